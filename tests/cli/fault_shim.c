/* SPDX-License-Identifier: MIT */
/* An LD_PRELOAD shim that fails one call of the bloomline process: run_cli_fault_tests.sh runs a
 * command once per call of a class, failing that call, to show that every failure ends in a
 * message and a clean exit, or in the same result as without it. The environment chooses:
 *   BL_FAULT_CLASS   the class whose call fails: open (open, openat, creat: EACCES), read (read,
 *                    pread: EIO), write (write, pwrite, writev: ENOSPC), short-write (the same
 *                    calls, writing only half the bytes asked for: no error), fsync (fsync,
 *                    fdatasync: EIO), rename (rename, renameat, renameat2: EIO), truncate
 *                    (ftruncate, fallocate, posix_fallocate: ENOSPC), mmap (ENOMEM) or malloc
 *                    (malloc, calloc, realloc, aligned_alloc, posix_memalign, memalign: ENOMEM);
 *   BL_FAULT_AT      N: the N-th call of the class (from 1, in the order the process makes them)
 *                    fails; absent or 0, none does;
 *   BL_FAULT_ERRNO   the errno of the failure by name (EMFILE, EXDEV, ...), for the class's own;
 *   BL_FAULT_REPORT  a file that receives "failed FUNCTION" when the N-th call fails, so that the
 *                    driver knows the fault did happen, and at exit "calls CLASS C" for each
 *                    class (short-write counts as write), so that it knows the range of N;
 *   BL_FAULT_TRACE   a file that receives "CLASS N FUNCTION OBJECT" for every call: the object
 *                    (the program, libc.so.6, libhwloc.so.15, ...) that made it;
 *   BL_FAULT_ONLY    an object's name (the program's): count only the calls that object makes
 *                    itself, for BL_FAULT_AT and the report's counts.
 * Calls are counted from every part of the process (the command, the library, the C library's
 * calls through the PLT, hwloc): all of them can fail in a real run. The driver runs most
 * commands with one worker thread, so that the N-th call is the same call in every run. With
 * several workers the order varies; those runs count the program's own calls only (hwloc, which
 * they load, crashes on a failed allocation of its own). */
#define _GNU_SOURCE
#undef _FILE_OFFSET_BITS /* open and open64 below are two functions, not one renamed */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

typedef enum fault_class {
    CLASS_NONE,
    CLASS_OPEN,
    CLASS_READ,
    CLASS_WRITE,
    CLASS_FSYNC,
    CLASS_RENAME,
    CLASS_TRUNCATE,
    CLASS_MMAP,
    CLASS_MALLOC,
    CLASS_SHORT_WRITE, /* not a class of calls: a way to fail the write class's */
    CLASS_END
} fault_class;

static const struct {
    const char *name;
    int default_errno;
} class_table[CLASS_END] = {
    [CLASS_OPEN] = {"open", EACCES},         [CLASS_READ] = {"read", EIO},
    [CLASS_WRITE] = {"write", ENOSPC},       [CLASS_FSYNC] = {"fsync", EIO},
    [CLASS_RENAME] = {"rename", EIO},        [CLASS_TRUNCATE] = {"truncate", ENOSPC},
    [CLASS_MMAP] = {"mmap", ENOMEM},         [CLASS_MALLOC] = {"malloc", ENOMEM},
    [CLASS_SHORT_WRITE] = {"short-write", 0},
};

/* The errno values BL_FAULT_ERRNO may name: those a file call can really return. */
static const struct {
    const char *name;
    int value;
} errno_table[] = {
    {"EACCES", EACCES}, {"EMFILE", EMFILE}, {"ENFILE", ENFILE}, {"EIO", EIO},
    {"ENOSPC", ENOSPC}, {"EDQUOT", EDQUOT}, {"EXDEV", EXDEV},   {"ENOMEM", ENOMEM},
    {"EROFS", EROFS},   {"EPERM", EPERM},   {"EFBIG", EFBIG},   {"EINTR", EINTR},
};

static fault_class chosen = CLASS_NONE;
static unsigned long fail_at;
static int fail_errno;
static const char *report_path, *trace_path, *only_object;
static unsigned long calls[CLASS_END]; /* atomic */
static bool configured;

/* Report and trace lines are written with raw system calls: the shim's own writes must not be
 * counted, nor fail, nor allocate. */
static void append_line(const char *path, const char *fmt, ...)
{
    if (path == NULL)
        return;
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    const long fd =
        syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    if (n > 0)
        (void)syscall(SYS_write, (int)fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line);
    (void)syscall(SYS_close, (int)fd);
}

/* At exit, from the C library's list of destructors (atexit() may not be called yet when the
 * first call comes: the dynamic linker allocates through the shim before the C library starts). */
__attribute__((destructor)) static void report_calls(void)
{
    for (int c = CLASS_OPEN; c < CLASS_SHORT_WRITE; c++)
        append_line(report_path, "calls %s %lu\n", class_table[c].name,
                    __atomic_load_n(&calls[c], __ATOMIC_RELAXED));
}

extern char **environ;

/* Read the environment on the first call of any wrapped function once there is one: the dynamic
 * linker allocates through the shim before the C library has set environ (those calls are not
 * counted; they are the same in every run). The process has one thread then. An unknown class
 * or errno name ends the process: a typo in the driver would count nothing and pass every case. */
static void configure(void)
{
    if (configured || environ == NULL)
        return;
    configured = true;
    const char *name = getenv("BL_FAULT_CLASS"), *at = getenv("BL_FAULT_AT");
    const char *err = getenv("BL_FAULT_ERRNO");
    report_path = getenv("BL_FAULT_REPORT");
    trace_path = getenv("BL_FAULT_TRACE");
    only_object = getenv("BL_FAULT_ONLY");
    if (name == NULL)
        return;
    for (int c = CLASS_OPEN; c < CLASS_END; c++)
        if (strcmp(name, class_table[c].name) == 0)
            chosen = (fault_class)c;
    if (chosen == CLASS_NONE) {
        append_line(report_path, "unknown class %s\n", name);
        _exit(125);
    }
    fail_at = at != NULL ? strtoul(at, NULL, 10) : 0;
    fail_errno = class_table[chosen].default_errno;
    if (err != NULL) {
        fail_errno = 0;
        for (size_t i = 0; i < sizeof errno_table / sizeof errno_table[0]; i++)
            if (strcmp(err, errno_table[i].name) == 0)
                fail_errno = errno_table[i].value;
        if (fail_errno == 0) {
            append_line(report_path, "unknown errno %s\n", err);
            _exit(125);
        }
    }
}

/* The file name of the object holding code address at, without its directory. */
static const char *object_of(const void *at)
{
    Dl_info info;
    if (dladdr(at, &info) == 0 || info.dli_fname == NULL)
        return "?";
    const char *slash = strrchr(info.dli_fname, '/');
    return slash != NULL ? slash + 1 : info.dli_fname;
}

/* Count a call of class c made through function fn from code address caller: true when it is
 * the one to fail. */
static bool fault_now(fault_class c, const char *fn, const void *caller)
{
    configure();
    if (!configured || (only_object != NULL && strcmp(object_of(caller), only_object) != 0))
        return false;
    const unsigned long n = __atomic_add_fetch(&calls[c], 1, __ATOMIC_RELAXED);
    if (trace_path != NULL)
        append_line(trace_path, "%s %lu %s %s\n", class_table[c].name, n, fn, object_of(caller));
    const bool mine = c == chosen || (c == CLASS_WRITE && chosen == CLASS_SHORT_WRITE);
    if (!mine || n != fail_at)
        return false;
    append_line(report_path, "failed %s\n", fn);
    return true;
}

/* The wrappers' call, from the function __func__ names: the address it returns to tells which
 * object called it. */
#define FAULT_NOW(c) fault_now(c, __func__, __builtin_return_address(0))

/* The write class's: true when the call fails; a short write instead halves *n (at least one
 * byte is written: a full pipe or a signal does that). */
static bool write_fails(const char *fn, const void *caller, size_t *n)
{
    if (!fault_now(CLASS_WRITE, fn, caller))
        return false;
    if (chosen != CLASS_SHORT_WRITE)
        return true;
    *n = *n > 1 ? *n / 2 : *n;
    return false;
}
#define WRITE_FAILS(n) write_fails(__func__, __builtin_return_address(0), &(n))

/* The C library's function behind a wrapper, found once; the process stops if it is missing
 * (it cannot be: the wrappers are of functions the C library has). */
static void *next_symbol(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (p == NULL) {
        append_line(report_path, "no %s\n", name);
        _exit(125);
    }
    return p;
}

/* The C library's NAME, of the wrapper's own type (real_NAME, found on the first call).
 * *(void **)& is dlsym(3)'s way: ISO C has no cast from an object to a function pointer. */
#define NEXT(name)                                                                                 \
    (real_##name != NULL ? real_##name : (*(void **)&real_##name = next_symbol(#name), real_##name))

/* ret name(params): after setup, fails with the value failed (errno: the class's) when fails
 * holds, else returns target(args). The prototype keeps -Wmissing-prototypes quiet for names no
 * header declares (the fortified entry points). */
#define WRAP(ret, name, params, args, setup, fails, failed, target)                                \
    ret name params;                                                                               \
    static __typeof__(name) *real_##name __attribute__((unused));                                  \
    ret name params                                                                                \
    {                                                                                              \
        setup;                                                                                     \
        if (fails) {                                                                               \
            errno = fail_errno;                                                                    \
            return failed;                                                                         \
        }                                                                                          \
        return target args;                                                                        \
    }
#define NO_SETUP (void)0

/* open's mode is there only when a file may be created. */
#define TAKE_MODE                                                                                  \
    mode_t mode = 0;                                                                               \
    if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {                                   \
        va_list ap;                                                                                \
        va_start(ap, flags);                                                                       \
        mode = va_arg(ap, mode_t);                                                                 \
        va_end(ap);                                                                                \
    }

/* ---- open: EACCES ---------------------------------------------------------------------------- */

#define OPEN_PARAMS (const char *path, int flags, ...)
#define OPENAT_PARAMS (int dir, const char *path, int flags, ...)
#define OPEN_2_PARAMS (const char *path, int flags) /* fortified, without a mode */
#define CREAT_PARAMS (const char *path, mode_t mode)
WRAP(int, open, OPEN_PARAMS, (path, flags, mode), TAKE_MODE, FAULT_NOW(CLASS_OPEN), -1, NEXT(open))
WRAP(int, open64, OPEN_PARAMS, (path, flags, mode), TAKE_MODE, FAULT_NOW(CLASS_OPEN), -1,
     NEXT(open64))
WRAP(int, openat, OPENAT_PARAMS, (dir, path, flags, mode), TAKE_MODE, FAULT_NOW(CLASS_OPEN), -1,
     NEXT(openat))
WRAP(int, openat64, OPENAT_PARAMS, (dir, path, flags, mode), TAKE_MODE, FAULT_NOW(CLASS_OPEN), -1,
     NEXT(openat64))
WRAP(int, __open_2, OPEN_2_PARAMS, (path, flags), NO_SETUP, FAULT_NOW(CLASS_OPEN), -1,
     NEXT(__open_2))
WRAP(int, __open64_2, OPEN_2_PARAMS, (path, flags), NO_SETUP, FAULT_NOW(CLASS_OPEN), -1,
     NEXT(__open64_2))
WRAP(int, creat, CREAT_PARAMS, (path, mode), NO_SETUP, FAULT_NOW(CLASS_OPEN), -1, NEXT(creat))
WRAP(int, creat64, CREAT_PARAMS, (path, mode), NO_SETUP, FAULT_NOW(CLASS_OPEN), -1, NEXT(creat64))

/* ---- read: EIO ------------------------------------------------------------------------------- */

#define PREAD_PARAMS (int fd, void *buf, size_t n, off_t off)
#define PREAD_CHK_PARAMS (int fd, void *buf, size_t n, off_t off, size_t buf_size) /* fortified */
WRAP(ssize_t, read, (int fd, void *buf, size_t n), (fd, buf, n), NO_SETUP, FAULT_NOW(CLASS_READ),
     -1, NEXT(read))
WRAP(ssize_t, __read_chk, (int fd, void *buf, size_t n, size_t buf_size), (fd, buf, n, buf_size),
     NO_SETUP, FAULT_NOW(CLASS_READ), -1, NEXT(__read_chk))
WRAP(ssize_t, pread, PREAD_PARAMS, (fd, buf, n, off), NO_SETUP, FAULT_NOW(CLASS_READ), -1,
     NEXT(pread))
WRAP(ssize_t, pread64, PREAD_PARAMS, (fd, buf, n, off), NO_SETUP, FAULT_NOW(CLASS_READ), -1,
     NEXT(pread64))
WRAP(ssize_t, __pread_chk, PREAD_CHK_PARAMS, (fd, buf, n, off, buf_size), NO_SETUP,
     FAULT_NOW(CLASS_READ), -1, NEXT(__pread_chk))
WRAP(ssize_t, __pread64_chk, PREAD_CHK_PARAMS, (fd, buf, n, off, buf_size), NO_SETUP,
     FAULT_NOW(CLASS_READ), -1, NEXT(__pread64_chk))

/* ---- write: ENOSPC, or short --------------------------------------------------------------- */

#define PWRITE_PARAMS (int fd, const void *buf, size_t n, off_t off)
WRAP(ssize_t, write, (int fd, const void *buf, size_t n), (fd, buf, n), NO_SETUP, WRITE_FAILS(n),
     -1, NEXT(write))
WRAP(ssize_t, pwrite, PWRITE_PARAMS, (fd, buf, n, off), NO_SETUP, WRITE_FAILS(n), -1, NEXT(pwrite))
WRAP(ssize_t, pwrite64, PWRITE_PARAMS, (fd, buf, n, off), NO_SETUP, WRITE_FAILS(n), -1,
     NEXT(pwrite64))

/* Short, writev writes half of the first buffer that has any bytes (those before it are empty). */
ssize_t writev(int fd, const struct iovec *iov, int count)
{
    static __typeof__(writev) *real_writev;
    int first = 0;
    while (first < count - 1 && iov[first].iov_len == 0)
        first++;
    const size_t whole = count > 0 ? iov[first].iov_len : 0;
    size_t n = whole;
    if (WRITE_FAILS(n)) {
        errno = fail_errno;
        return -1;
    }
    if (n == whole)
        return NEXT(writev)(fd, iov, count);
    const struct iovec part = {iov[first].iov_base, n};
    return NEXT(writev)(fd, &part, 1);
}

/* ---- fsync: EIO ------------------------------------------------------------------------------ */

WRAP(int, fsync, (int fd), (fd), NO_SETUP, FAULT_NOW(CLASS_FSYNC), -1, NEXT(fsync))
WRAP(int, fdatasync, (int fd), (fd), NO_SETUP, FAULT_NOW(CLASS_FSYNC), -1, NEXT(fdatasync))

/* ---- rename: EIO ----------------------------------------------------------------------------- */

WRAP(int, rename, (const char *from, const char *to), (from, to), NO_SETUP,
     FAULT_NOW(CLASS_RENAME), -1, NEXT(rename))
WRAP(int, renameat, (int from_dir, const char *from, int to_dir, const char *to),
     (from_dir, from, to_dir, to), NO_SETUP, FAULT_NOW(CLASS_RENAME), -1, NEXT(renameat))
WRAP(int, renameat2, (int from_dir, const char *from, int to_dir, const char *to, unsigned flags),
     (from_dir, from, to_dir, to, flags), NO_SETUP, FAULT_NOW(CLASS_RENAME), -1, NEXT(renameat2))

/* ---- truncate and allocate: ENOSPC ----------------------------------------------------------- */

#define FALLOCATE_PARAMS (int fd, int mode, off_t off, off_t len)
#define POSIX_FALLOCATE_PARAMS (int fd, off_t off, off_t len)
WRAP(int, ftruncate, (int fd, off_t len), (fd, len), NO_SETUP, FAULT_NOW(CLASS_TRUNCATE), -1,
     NEXT(ftruncate))
WRAP(int, ftruncate64, (int fd, off_t len), (fd, len), NO_SETUP, FAULT_NOW(CLASS_TRUNCATE), -1,
     NEXT(ftruncate64))
WRAP(int, fallocate, FALLOCATE_PARAMS, (fd, mode, off, len), NO_SETUP, FAULT_NOW(CLASS_TRUNCATE),
     -1, NEXT(fallocate))
WRAP(int, fallocate64, FALLOCATE_PARAMS, (fd, mode, off, len), NO_SETUP,
     FAULT_NOW(CLASS_TRUNCATE), -1, NEXT(fallocate64))
/* posix_fallocate returns its error (errno, set too, does not matter) */
WRAP(int, posix_fallocate, POSIX_FALLOCATE_PARAMS, (fd, off, len), NO_SETUP,
     FAULT_NOW(CLASS_TRUNCATE), fail_errno, NEXT(posix_fallocate))
WRAP(int, posix_fallocate64, POSIX_FALLOCATE_PARAMS, (fd, off, len), NO_SETUP,
     FAULT_NOW(CLASS_TRUNCATE), fail_errno, NEXT(posix_fallocate64))

/* ---- mmap: ENOMEM ---------------------------------------------------------------------------- */

#define MMAP_PARAMS (void *addr, size_t len, int prot, int flags, int fd, off_t off)
WRAP(void *, mmap, MMAP_PARAMS, (addr, len, prot, flags, fd, off), NO_SETUP,
     FAULT_NOW(CLASS_MMAP), MAP_FAILED, NEXT(mmap))
WRAP(void *, mmap64, MMAP_PARAMS, (addr, len, prot, flags, fd, off), NO_SETUP,
     FAULT_NOW(CLASS_MMAP), MAP_FAILED, NEXT(mmap64))

/* ---- malloc: ENOMEM -------------------------------------------------------------------------- */

/* glibc's own entry points: dlsym(RTLD_NEXT, "malloc") may itself allocate, and so recurse. */
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t count, size_t n);
void *__libc_realloc(void *p, size_t n);
void *__libc_memalign(size_t align, size_t n);

WRAP(void *, malloc, (size_t n), (n), NO_SETUP, FAULT_NOW(CLASS_MALLOC), NULL, __libc_malloc)
WRAP(void *, calloc, (size_t count, size_t n), (count, n), NO_SETUP, FAULT_NOW(CLASS_MALLOC), NULL,
     __libc_calloc)
/* realloc(p, 0) frees p: a failure there is no failure to allocate. */
WRAP(void *, realloc, (void *p, size_t n), (p, n), NO_SETUP,
     !(p != NULL && n == 0) && FAULT_NOW(CLASS_MALLOC), NULL, __libc_realloc)
WRAP(void *, aligned_alloc, (size_t align, size_t n), (align, n), NO_SETUP,
     FAULT_NOW(CLASS_MALLOC), NULL, __libc_memalign)
WRAP(void *, memalign, (size_t align, size_t n), (align, n), NO_SETUP, FAULT_NOW(CLASS_MALLOC),
     NULL, __libc_memalign)
/* posix_memalign returns its error; it allocates through glibc's internals, not through malloc. */
WRAP(int, posix_memalign, (void **out, size_t align, size_t n), (out, align, n), NO_SETUP,
     FAULT_NOW(CLASS_MALLOC), ENOMEM, NEXT(posix_memalign))
