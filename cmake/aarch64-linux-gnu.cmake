# SPDX-License-Identifier: MIT
# Cross-compile for aarch64 with Debian's gcc-aarch64-linux-gnu against the arm64 multiarch -dev
# packages (libc6-dev:arm64, libcmocka-dev:arm64, libxxhash-dev:arm64); tests run under
# qemu-aarch64 (qemu-user), so the NEON kernel runs as on an arm64 machine.
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# Multiarch: arm64 libraries live in /usr/lib/aarch64-linux-gnu, headers in /usr/include are
# shared. Look for libraries and pkg-config files of the target architecture only.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")

# No -L: the programs run against the multiarch arm64 loader and libc (libc6:arm64, in /lib and
# /usr/lib/aarch64-linux-gnu). With -L /usr/aarch64-linux-gnu (the cross toolchain's libc) qemu
# 7.2 hangs in pthread_create and fork, even for a trivial program.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
