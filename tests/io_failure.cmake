# SPDX-License-Identifier: MIT
# test_io_failure fails each of the library's file calls in turn: the linker routes the static
# library's calls through the test's __wrap_ functions, as alloc_failure.cmake does for the
# allocator.
target_link_options(test_io_failure PRIVATE
  -Wl,--wrap=open -Wl,--wrap=close -Wl,--wrap=fstat -Wl,--wrap=lstat -Wl,--wrap=stat
  -Wl,--wrap=fcntl -Wl,--wrap=lseek -Wl,--wrap=pread -Wl,--wrap=pwrite -Wl,--wrap=write
  -Wl,--wrap=ftruncate -Wl,--wrap=fsync -Wl,--wrap=rename)
