/* SPDX-License-Identifier: MIT */
/* Messages, memory and whole-file I/O for the bloomline command. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *cli_cmd = NULL;

static void vmessage(const char *kind, const char *fmt, va_list ap)
{
    fflush(stdout);
    cli_progress_clear();
    if (cli_cmd)
        fprintf(stderr, "bloomline %s: %s", cli_cmd, kind);
    else
        fprintf(stderr, "bloomline: %s", kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage("", fmt, ap);
    va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage("warning: ", fmt, ap);
    va_end(ap);
}

void cli_status_error(const char *file, const char *what, bl_status st)
{
    /* An I/O status has its detail in errno; the others are self-explanatory. */
    if (st == BL_E_IO && errno != 0)
        cli_error("%s: %s: %s", file, what, strerror(errno));
    else
        cli_error("%s: %s: %s", file, what, bl_strerror(st));
}

int cli_flush_stdout(void)
{
    /* What printf buffered is written only now: a failure here (a full disk, a closed pipe with
     * SIGPIPE ignored) is the command's failure, and says so. */
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("write error: %s", errno ? strerror(errno) : "unknown error");
        return CLI_EXIT_ERROR;
    }
    return CLI_EXIT_OK;
}

/* Workers allocate too, and two threads calling exit() at once is undefined behaviour: the
 * first one through holds the lock for good while exit() ends the process. */
static _Noreturn void out_of_memory(size_t n)
{
    static pthread_mutex_t exiting = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&exiting);
    cli_error("out of memory (%zu bytes)", n);
    exit(CLI_EXIT_ERROR);
}

void *cli_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL)
        out_of_memory(n);
    return p;
}

void *cli_realloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (q == NULL)
        out_of_memory(n);
    return q;
}

int cli_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

int cli_read_file(const char *path, uint64_t max, const char *what, cli_read_probe probe,
                  const void *ctx, unsigned char **out, size_t *len)
{
    const bool is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        cli_error("%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) != 0) {
        cli_error("%s: %s", cli_input_name(path), strerror(errno));
        rc = -1;
    } else if (S_ISDIR(st.st_mode)) {
        cli_error("%s: is a directory", path);
        rc = -1;
    } else if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max) {
        rc = -2;
    }
    size_t cap = 1u << 16, n = 0;
    if (rc == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
        cap = (size_t)st.st_size + 1;
    unsigned char *buf = rc == 0 ? cli_malloc(cap) : NULL;
    bool probed = probe == NULL;
    while (rc == 0) {
        if (n == cap) {
            cap *= 2;
            buf = cli_realloc(buf, cap);
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            cli_error("%s: read error: %s", cli_input_name(path), strerror(errno));
            rc = -1;
            break;
        }
        n += (size_t)r;
        if (n > max) {
            rc = -2;
            break;
        }
        if (r == 0)
            break;
        if (!probed && n >= CLI_READ_PROBE) { /* a shorter input is whole: nothing to stop */
            probed = true;
            const uint64_t most = probe(buf, n, ctx);
            if (most == 0) {
                rc = 1;
                break;
            }
            if (most < max && n <= most)
                max = most;
        }
    }
    if (rc == -2)
        cli_error("%s: larger than any %s filter (at most %llu bytes)", cli_input_name(path),
                  what, (unsigned long long)max);
    if (!is_stdin)
        close(fd);
    if (rc < 0) {
        free(buf);
        return -1;
    }
    *out = buf;
    *len = n;
    return rc;
}

/* A link to standard output's own file (/dev/stdout, /dev/fd/1, /proc/self/fd/1): when that is a
 * regular file (a shell redirect), a save renamed over the link, for root over /dev/stdout
 * itself, and left the redirected file empty. */
static bool names_stdout(const char *path)
{
    struct stat link, target, out;
    return lstat(path, &link) == 0 && S_ISLNK(link.st_mode) && stat(path, &target) == 0 &&
           fstat(STDOUT_FILENO, &out) == 0 && target.st_dev == out.st_dev &&
           target.st_ino == out.st_ino;
}

bool cli_is_stream(const char *path)
{
    struct stat st;
    if (strcmp(path, "-") == 0)
        return true; /* a save had made a file named '-' */
    return stat(path, &st) == 0 &&
           ((!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) || names_stdout(path));
}

int cli_write_stream(const char *path, const void *data, size_t len)
{
    /* Standard output is written where it stands: reopened, a file redirected with >> was
     * overwritten from its start. */
    const bool is_stdout = strcmp(path, "-") == 0 || names_stdout(path);
    int fd = is_stdout ? STDOUT_FILENO : open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        cli_error("%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    int rc = cli_write_all(fd, data, len);
    if (!is_stdout && close(fd) != 0)
        rc = -1;
    if (rc != 0)
        cli_error("%s: write error: %s", is_stdout ? "standard output" : path, strerror(errno));
    return rc;
}

int cli_open_filter(const char *path, bool mutable_copy, bool verify, bl_filter **out,
                    bl_info *info)
{
    struct stat st;
    /* Filters are mapped or read at offsets: a stream cannot be, and the library's refusal of one
     * read "Invalid argument" ('-', taken for a file name: "No such file or directory"). */
    if (strcmp(path, "-") == 0) {
        cli_error("'-': a filter is read from a file, not from standard input");
        return -1;
    }
    if (stat(path, &st) != 0) {
        cli_error("%s: cannot open filter: %s", path, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        cli_error("%s: is a directory, not a filter file", path);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        cli_error("%s: not a regular file: a filter is read from a file (save a stream to one "
                  "first)", path);
        return -1;
    }
    errno = 0;
    bl_status s = mutable_copy ? bl_load(out, path) : bl_map(out, path);
    if (s != BL_OK) {
        cli_status_error(path, "cannot read filter", s);
        return -1;
    }
    if (!mutable_copy && verify) {
        s = bl_verify(*out);
        if (s != BL_OK) {
            cli_status_error(path, "corrupt filter", s);
            bl_free(*out);
            *out = NULL;
            return -1;
        }
    }
    if (info != NULL && (s = bl_get_info(*out, info)) != BL_OK) {
        cli_status_error(path, "cannot describe filter", s);
        bl_free(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

int cli_save_filter(const bl_filter *f, const char *path)
{
    if (cli_is_stream(path)) { /* bl_save replaces files only */
        size_t size = 0;
        bl_status s = bl_serialized_size(f, &size);
        unsigned char *buf = s == BL_OK ? cli_malloc(size) : NULL;
        if (s == BL_OK)
            s = bl_serialize(f, buf, size, &size);
        int rc = s == BL_OK ? cli_write_stream(path, buf, size) : -1;
        if (s != BL_OK)
            cli_status_error(path, "cannot save filter", s);
        free(buf);
        return rc;
    }
    errno = 0;
    bl_status s = bl_save(f, path);
    if (s != BL_OK) {
        cli_status_error(path, "cannot save filter", s);
        return -1;
    }
    return 0;
}
