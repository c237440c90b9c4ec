# SPDX-License-Identifier: MIT
# test_alloc_failure fails each of the library's allocations in turn: the linker routes the
# static library's calls to the allocator through the test's __wrap_ functions (GNU ld and lld
# both take --wrap, on every target the tests build for).
target_link_options(test_alloc_failure PRIVATE
  -Wl,--wrap=malloc -Wl,--wrap=calloc -Wl,--wrap=realloc -Wl,--wrap=aligned_alloc
  -Wl,--wrap=free -Wl,--wrap=mmap -Wl,--wrap=munmap)
