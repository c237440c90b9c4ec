/* SPDX-License-Identifier: MIT */
/* An LD_PRELOAD shim that does what qemu-user before 7.1 does: madvise(MADV_DONTNEED) is
 * ignored and reported as success. test_filter runs under it (madvise_noop.cmake) to show that
 * bl_clear still empties a filter when the pages it gives back keep their contents. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <sys/mman.h>

int madvise(void *addr, size_t len, int advice)
{
    static int (*real)(void *, size_t, int);
    if (advice == MADV_DONTNEED)
        return 0;
    if (real == NULL)
        real = (int (*)(void *, size_t, int))dlsym(RTLD_NEXT, "madvise");
    return real != NULL ? real(addr, len, advice) : -1;
}
