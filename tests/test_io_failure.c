/* SPDX-License-Identifier: MIT */
/* Every system call the library makes on files, failed in turn. The library's open, close,
 * fstat, lstat, stat, fcntl, lseek, pread, pwrite, write, ftruncate, fsync and rename are routed
 * here by the linker (--wrap, set in io_failure.cmake); while the library is called, the N-th of
 * them fails (EIO; ENOSPC for writes). A scenario of saves, exports, streams, loads and maps runs
 * once per N until no call is left to fail. The call given the failure must say BL_E_IO with the
 * injected errno (past a save's rename, BL_E_NOT_DURABLE), leave its output NULL, close every
 * descriptor it opened and, for a save, leave the target as it was (or, once the rename is done,
 * as the new file) and no temporary beside it; it may succeed only past the failures it can do
 * without (an lseek for holes, whose fallback reads everything; closing a descriptor it only
 * read). Called again it must succeed and write or read the right bytes. unlink (a failed save's
 * clean-up) and madvise (advice) are left alone. */
#include "test_util.h"

#include <stdarg.h>
#include <sys/stat.h>

/* ---- The wrapped calls ---------------------------------------------------------------------- */

int __real_open(const char *path, int flags, ...);
int __real_close(int fd);
int __real_fstat(int fd, struct stat *st);
int __real_lstat(const char *path, struct stat *st);
int __real_stat(const char *path, struct stat *st);
int __real_fcntl(int fd, int cmd, ...);
off_t __real_lseek(int fd, off_t off, int whence);
ssize_t __real_pread(int fd, void *buf, size_t n, off_t off);
ssize_t __real_pwrite(int fd, const void *buf, size_t n, off_t off);
ssize_t __real_write(int fd, const void *buf, size_t n);
int __real_ftruncate(int fd, off_t len);
int __real_fsync(int fd);
int __real_rename(const char *from, const char *to);
int __wrap_open(const char *path, int flags, ...);
int __wrap_close(int fd);
int __wrap_fstat(int fd, struct stat *st);
int __wrap_lstat(const char *path, struct stat *st);
int __wrap_stat(const char *path, struct stat *st);
int __wrap_fcntl(int fd, int cmd, ...);
off_t __wrap_lseek(int fd, off_t off, int whence);
ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off);
ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off);
ssize_t __wrap_write(int fd, const void *buf, size_t n);
int __wrap_ftruncate(int fd, off_t len);
int __wrap_fsync(int fd);
int __wrap_rename(const char *from, const char *to);

static struct {
    bool armed; /* the library is being called: count, and maybe fail */
    unsigned long calls; /* calls made while armed since io_reset */
    unsigned long fail_at; /* the one that fails (1-based); 0: none */
    unsigned long injected; /* failures given */
    int err; /* the errno of the last failure given */
    bool tolerable; /* and whether the call may succeed despite it */
    long fds; /* descriptors the library opened and has not closed */
    bool renamed; /* a rename succeeded during the armed call */
} g;

static void io_reset(unsigned long fail_at)
{
    g.calls = 0;
    g.fail_at = fail_at;
    g.injected = 0;
}

/* Whether this call fails, with err as its errno. */
static bool fail_now(int err, bool tolerable)
{
    if (!g.armed || ++g.calls != g.fail_at)
        return false;
    g.injected++;
    g.err = err;
    g.tolerable = tolerable;
    errno = err;
    return true;
}

/* The access mode of each descriptor the library opened (-1: none), for close. */
#define MAX_FD 4096
static int g_fd_mode[MAX_FD];

int __wrap_open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if (fail_now(EIO, false))
        return -1;
    const int fd = __real_open(path, flags, mode);
    if (g.armed && fd >= 0) {
        g.fds++;
        assert_true(fd < MAX_FD);
        g_fd_mode[fd] = flags & O_ACCMODE;
    }
    return fd;
}

/* The descriptor is released even when close reports an error (Linux), so it is counted closed.
 * A close that succeeds leaves errno changed, which POSIX allows. */
int __wrap_close(int fd)
{
    const int r = __real_close(fd);
    const bool read_only = fd >= 0 && fd < MAX_FD && g_fd_mode[fd] == O_RDONLY;
    if (g.armed) {
        g.fds--;
        if (fd >= 0 && fd < MAX_FD)
            g_fd_mode[fd] = -1;
    }
    if (fail_now(EIO, read_only))
        return -1;
    if (g.armed && r == 0)
        errno = EDOM; /* a failed call's clean-up must keep its errno */
    return r;
}

int __wrap_fstat(int fd, struct stat *st)
{
    return fail_now(EIO, false) ? -1 : __real_fstat(fd, st);
}

int __wrap_lstat(const char *path, struct stat *st)
{
    return fail_now(EIO, false) ? -1 : __real_lstat(path, st);
}

int __wrap_stat(const char *path, struct stat *st)
{
    return fail_now(EIO, false) ? -1 : __real_stat(path, st);
}

/* The library asks only F_GETFL (no argument) and F_SETFL (an int). */
int __wrap_fcntl(int fd, int cmd, ...)
{
    int arg = 0;
    if (cmd == F_SETFL) {
        va_list ap;
        va_start(ap, cmd);
        arg = va_arg(ap, int);
        va_end(ap);
    }
    if (fail_now(EIO, false))
        return -1;
    return cmd == F_SETFL ? __real_fcntl(fd, cmd, arg) : __real_fcntl(fd, cmd);
}

off_t __wrap_lseek(int fd, off_t off, int whence)
{
    return fail_now(EIO, true) ? -1 : __real_lseek(fd, off, whence);
}

ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off)
{
    return fail_now(EIO, false) ? -1 : __real_pread(fd, buf, n, off);
}

ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off)
{
    return fail_now(ENOSPC, false) ? -1 : __real_pwrite(fd, buf, n, off);
}

ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
    return fail_now(ENOSPC, false) ? -1 : __real_write(fd, buf, n);
}

int __wrap_ftruncate(int fd, off_t len)
{
    return fail_now(ENOSPC, false) ? -1 : __real_ftruncate(fd, len);
}

int __wrap_fsync(int fd)
{
    return fail_now(EIO, false) ? -1 : __real_fsync(fd);
}

int __wrap_rename(const char *from, const char *to)
{
    if (fail_now(EIO, false))
        return -1;
    const int r = __real_rename(from, to);
    g.renamed |= g.armed && r == 0;
    return r;
}

/* ---- The calls, armed ----------------------------------------------------------------------- */

static unsigned long g_before; /* failures given before the armed call */

/* Before a library call: count its file calls, and fail the one whose turn it is. */
static void call_start(void)
{
    g_before = g.injected;
    g.renamed = false;
    g.armed = true;
}

/* After it: every descriptor it opened is closed; a failure it could not do without is
 * BL_E_IO with the injected errno. Returns whether the call failed. */
static bool call_end(bl_status st)
{
    g.armed = false;
    const int err = errno;
    assert_int_equal(g.fds, 0);
    if (st == BL_OK) {
        assert_true(g.injected == g_before || g.tolerable);
        return false;
    }
    assert_int_equal(g.injected, g_before + 1);
    /* past a save's rename, only the directory's fsync can fail: the new file is in place */
    assert_int_equal(st, g.renamed ? BL_E_NOT_DURABLE : BL_E_IO);
    assert_int_equal(err, g.err);
    return true;
}

#define NKEYS 3000
#define FILE_CAP ((size_t)1 << 20)

static uint64_t g_keys[NKEYS];
static char g_dir[256], g_path[512], g_stream[512];
static uint8_t g_old[FILE_CAP], g_now[FILE_CAP], g_want[FILE_CAP];
static bl_filter *g_blocked, *g_chain, *g_sbbf, *g_classic;

/* The bytes a save or a stream of f must write, into g_want. */
static size_t expected_bytes(const bl_filter *f, bl_foreign_format format)
{
    size_t len = 0;
    assert_int_equal(format ? bl_export(f, format, g_want, FILE_CAP, &len)
                            : bl_serialize(f, g_want, FILE_CAP, &len),
                     BL_OK);
    return len;
}

static void file_is(const char *path, const uint8_t *want, size_t want_len)
{
    size_t len = 0;
    assert_true(tu_read_file(path, g_now, FILE_CAP, &len));
    assert_int_equal(len, want_len);
    assert_memory_equal(g_now, want, len);
}

/* bl_save or bl_export_save over g_path. A failed save leaves the old file (or none) and no
 * temporary; a failure after the rename (the directory's fsync) leaves the new file. */
static void saved(const bl_filter *f, bl_foreign_format format)
{
    const size_t want = expected_bytes(f, format);
    size_t old_len = 0;
    const bool had = tu_read_file(g_path, g_old, FILE_CAP, &old_len);
    call_start();
    const bl_status st = tu_save(f, format, g_path);
    if (call_end(st)) {
        if (g.renamed) {
            file_is(g_path, g_want, want);
        } else if (had) {
            file_is(g_path, g_old, old_len);
        } else {
            size_t len = 0;
            assert_false(tu_read_file(g_path, g_now, FILE_CAP, &len));
        }
        assert_int_equal(tu_count_files(g_dir, ".tmp"), 0);
        call_start();
        assert_false(call_end(tu_save(f, format, g_path)));
    }
    file_is(g_path, g_want, want);
}

/* bl_save_fd or bl_export_fd into a new file: on failure, written again from the start. */
static void streamed(const bl_filter *f, bl_foreign_format format)
{
    const size_t want = expected_bytes(f, format);
    for (int attempt = 0;; attempt++) {
        assert_true(attempt < 2);
        const int fd = open(g_stream, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        call_start();
        const bl_status st = format ? bl_export_fd(f, format, fd) : bl_save_fd(f, fd);
        const bool failed = call_end(st);
        assert_int_equal(close(fd), 0);
        if (!failed)
            break;
    }
    file_is(g_stream, g_want, want);
}

/* bl_load (map false) or bl_map of g_path: on failure it sets *out to NULL; the filter read
 * holds the chain's keys. */
static void read_back(bool map)
{
    bl_filter *f = NULL;
    for (int attempt = 0;; attempt++) {
        assert_true(attempt < 2);
        f = (bl_filter *)(void *)&g; /* not NULL: the call must set it */
        call_start();
        const bl_status st = map ? bl_map(&f, g_path) : bl_load(&f, g_path);
        if (!call_end(st))
            break;
        assert_null(f);
    }
    uint8_t res[NKEYS];
    assert_int_equal(bl_contains_u64_batch(f, g_keys, NKEYS, res), NKEYS);
    bl_free(f);
}

static void scenario(void)
{
    remove(g_path);
    saved(g_blocked, 0); /* no file there */
    saved(g_chain, 0); /* over an old one */
    saved(g_sbbf, BL_FORMAT_PARQUET);
    saved(g_classic, BL_FORMAT_GUAVA);
    saved(g_chain, 0);
    read_back(false);
    read_back(true);
    streamed(g_chain, 0);
    streamed(g_classic, BL_FORMAT_GUAVA);
    streamed(g_sbbf, BL_FORMAT_PARQUET);
}

/* ---- Tests ---------------------------------------------------------------------------------- */

static bl_filter *filled(bl_layout layout, uint64_t n)
{
    bl_params p;
    bl_params_init(&p);
    p.layout = layout;
    p.expected_keys = n;
    bl_filter *f = NULL;
    assert_int_equal(bl_create(&f, &p), BL_OK);
    assert_int_equal(bl_add_u64_batch(f, g_keys, NKEYS), BL_OK);
    return f;
}

static int setup(void **state)
{
    (void)state;
    for (size_t i = 0; i < NKEYS; i++)
        g_keys[i] = i * UINT64_C(0x9E3779B97F4A7C15) + 777;
    for (size_t i = 0; i < MAX_FD; i++)
        g_fd_mode[i] = -1;
    if (!tu_temp_dir(g_dir, sizeof g_dir, "bl_io"))
        return -1;
    snprintf(g_path, sizeof g_path, "%s/f.blf", g_dir);
    snprintf(g_stream, sizeof g_stream, "%s/stream.out", g_dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return tu_remove_tree(g_dir);
}

static void test_every_file_call_fails_in_turn(void **state)
{
    (void)state;
    g_blocked = filled(BL_LAYOUT_BLOCKED, NKEYS);
    g_chain = filled(BL_LAYOUT_SCALABLE, 200); /* several stages, so gaps between payloads */
    g_sbbf = filled(BL_LAYOUT_SBBF, NKEYS);
    g_classic = filled(BL_LAYOUT_CLASSIC, NKEYS);
    bl_info info;
    assert_int_equal(bl_get_info(g_chain, &info), BL_OK);
    assert_true(info.stages >= 3);

    io_reset(0);
    scenario();
    const unsigned long total = g.calls;
    printf("# the scenario makes %lu file calls; each fails in one run\n", total);
    assert_true(total > 40);
    for (unsigned long n = 1; n <= total; n++) {
        io_reset(n);
        scenario();
        if (g.injected != 1)
            fail_msg("call %lu of %lu was never made (%lu made)", n, total, g.calls);
    }
    bl_free(g_blocked);
    bl_free(g_chain);
    bl_free(g_sbbf);
    bl_free(g_classic);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_file_call_fails_in_turn),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
