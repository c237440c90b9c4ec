/* SPDX-License-Identifier: MIT */
/* An LD_PRELOAD shim for the CLI's input reader (reader.c), which maps each 2 MiB chunk of a
 * regular file and reads it with pread only where mapping fails (a file system that cannot map).
 * run_cli_tests.sh runs the command under it to reach that path and its read errors:
 *   BL_SHIM_NO_MMAP=1     mmap of a file with MAP_POPULATE (the reader's chunk maps; nothing
 *                         else asks for it) fails with ENODEV;
 *   BL_SHIM_EIO_PATH=P    pread of file P fails with EIO from byte BL_SHIM_EIO_AT (default 0),
 *                         as a disk's bad sector does.
 * Other calls go to the C library untouched. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    static void *(*real)(void *, size_t, int, int, int, off_t);
    const char *no = getenv("BL_SHIM_NO_MMAP");
    if (fd >= 0 && (flags & MAP_POPULATE) && no != NULL && strcmp(no, "1") == 0) {
        errno = ENODEV;
        return MAP_FAILED;
    }
    if (real == NULL)
        real = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
    if (real == NULL) {
        errno = ENOSYS;
        return MAP_FAILED;
    }
    return real(addr, len, prot, flags, fd, off);
}

/* Whether fd is the file the environment names (compared as resolved paths). */
static int is_failing_file(int fd)
{
    const char *want = getenv("BL_SHIM_EIO_PATH");
    if (want == NULL)
        return 0;
    char link[64], have[PATH_MAX], resolved[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    const ssize_t n = readlink(link, have, sizeof have - 1);
    if (n <= 0 || realpath(want, resolved) == NULL)
        return 0;
    have[n] = '\0';
    return strcmp(have, resolved) == 0;
}

ssize_t pread(int fd, void *buf, size_t count, off_t off)
{
    static ssize_t (*real)(int, void *, size_t, off_t);
    if (is_failing_file(fd)) {
        const char *at = getenv("BL_SHIM_EIO_AT");
        const off_t from = at != NULL ? (off_t)strtoll(at, NULL, 10) : 0;
        if (off + (off_t)count > from) {
            errno = EIO;
            return -1;
        }
    }
    if (real == NULL)
        real = (ssize_t(*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
    if (real == NULL) {
        errno = ENOSYS;
        return -1;
    }
    return real(fd, buf, count, off);
}
