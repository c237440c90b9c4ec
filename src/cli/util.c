/* SPDX-License-Identifier: MIT */
/* Messages, memory and whole-file I/O for the bloomline command. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *cli_cmd = NULL;

/* One message, one line: workers report their chunks' errors (a read error, a line too long)
 * at the same time, and the pieces of two messages interleaved otherwise. */
static void vmessage(const char *kind, const char *fmt, va_list ap)
{
    fflush(stdout);
    flockfile(stderr);
    cli_progress_clear();
    if (cli_cmd)
        fprintf(stderr, "bloomline %s: %s", cli_cmd, kind);
    else
        fprintf(stderr, "bloomline: %s", kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    funlockfile(stderr);
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

void *cli_calloc(size_t count, size_t n)
{
    void *p = calloc(count ? count : 1, n ? n : 1);
    if (p == NULL) /* calloc refuses a product that overflows: reported as SIZE_MAX */
        out_of_memory(n != 0 && count > SIZE_MAX / n ? SIZE_MAX : count * n);
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
    const uint64_t format_max = max; /* the probe may lower max to what a header gives */
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
    /* Past a header's own length the input is no filter of that length, whatever the format
     * allows: a Guava stream with bytes after its longs was "larger than any guava filter (at
     * most <its own length> bytes)" from a pipe, "inconsistent geometry" from a file. */
    if (rc == -2 && max < format_max)
        cli_error("%s: not a valid %s filter: longer than the %llu bytes its header gives",
                  cli_input_name(path), what, (unsigned long long)max);
    else if (rc == -2)
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

/* The descriptor a path names when it is one of this process's own open descriptors: /dev/stdin,
 * /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N (and /proc/<our pid>/fd/N), directly or
 * behind links. -1 otherwise. When such a descriptor is a regular file (a shell redirect), a save
 * renamed over the link (for root over /dev/stdout or /dev/stderr themselves) and left the
 * redirected file empty; it is written where it stands instead, as standard output always was. */
static int fd_number(const char *path)
{
    static const char *const std[] = {"/dev/stdin", "/dev/stdout", "/dev/stderr"};
    for (int i = 0; i < 3; i++)
        if (strcmp(path, std[i]) == 0)
            return i;
    char own[40];
    snprintf(own, sizeof own, "/proc/%ld/fd/", (long)getpid());
    static const char *const dirs[] = {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"};
    const char *num = NULL;
    for (int i = 0; i < 3 && num == NULL; i++)
        if (strncmp(path, dirs[i], strlen(dirs[i])) == 0)
            num = path + strlen(dirs[i]);
    if (num == NULL && strncmp(path, own, strlen(own)) == 0)
        num = path + strlen(own);
    if (num == NULL || *num < '0' || *num > '9' || strlen(num) > 9)
        return -1;
    for (const char *c = num; *c; c++)
        if (*c < '0' || *c > '9')
            return -1;
    return atoi(num);
}

static int own_fd_alias(const char *path)
{
    char cur[4096], next[4096];
    if (strlen(path) >= sizeof cur)
        return -1;
    strcpy(cur, path);
    for (int hop = 0; hop < 40; hop++) { /* the kernel's own limit on links in a path */
        const int fd = fd_number(cur);
        if (fd >= 0)
            return fcntl(fd, F_GETFD) != -1 ? fd : -1;
        const ssize_t n = readlink(cur, next, sizeof next - 1);
        if (n < 0)
            return -1;
        next[n] = '\0';
        const char *slash = strrchr(cur, '/');
        const size_t dir = next[0] == '/' || slash == NULL ? 0 : (size_t)(slash + 1 - cur);
        if (dir + (size_t)n >= sizeof cur)
            return -1;
        memcpy(cur + dir, next, (size_t)n + 1); /* a relative target is relative to the link */
    }
    return -1;
}

bool cli_is_stream(const char *path)
{
    struct stat st;
    if (strcmp(path, "-") == 0)
        return true; /* a save had made a file named '-' */
    return stat(path, &st) == 0 &&
           ((!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) || own_fd_alias(path) >= 0);
}

/* The descriptor to write a stream output to; *own tells that it is one of ours (not to close).
 * Our own descriptors are written where they stand: reopened, a file redirected with >> was
 * overwritten from its start. -1 (reported) when it cannot be opened. */
static int open_stream(const char *path, bool *own)
{
    const int fd = strcmp(path, "-") == 0 ? STDOUT_FILENO : own_fd_alias(path);
    *own = fd >= 0;
    if (fd >= 0)
        return fd;
    const int opened = open(path, O_WRONLY | O_CLOEXEC);
    if (opened < 0)
        cli_error("%s: cannot open: %s", path, strerror(errno));
    return opened;
}

static const char *stream_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "standard output" : path;
}

int cli_write_stream(const char *path, const bl_filter *f, const bl_foreign_format *format)
{
    bool own;
    const int fd = open_stream(path, &own);
    if (fd < 0)
        return -1;
    errno = 0;
    bl_status s = format != NULL ? bl_export_fd(f, *format, fd) : bl_save_fd(f, fd);
    if (!own && close(fd) != 0 && s == BL_OK)
        s = BL_E_IO;
    if (s != BL_OK) {
        const char *what = format != NULL ? "cannot write" : "cannot save filter";
        cli_status_error(stream_name(path), what, s);
    }
    return s == BL_OK ? 0 : -1;
}

size_t cli_input_index_of(const struct stat *file, char *const *inputs, size_t ninputs,
                          size_t from)
{
    struct stat in;
    for (size_t i = from; i < ninputs; i++) {
        const bool is_stdin = strcmp(inputs[i], "-") == 0;
        if ((is_stdin ? fstat(STDIN_FILENO, &in) : stat(inputs[i], &in)) == 0 &&
            in.st_dev == file->st_dev && in.st_ino == file->st_ino)
            return i;
    }
    return ninputs;
}

/* Whether a named output replaces the input: saves rename a new file over the output's own
 * directory entry (a symbolic link is replaced, not followed), so the input is lost only when
 * that entry is its file's one name, or the input's name itself. */
static bool replaces_input(const char *out, const struct stat *o, const char *in)
{
    return o->st_nlink == 1 || strcmp(out, in) == 0;
}

/* Named outputs are saved by renaming a new file over them once the inputs are read, so an
 * output that is an input is refused only where the input would be lost (named_ok false: a
 * typo away, build -o keys.txt keys.txt). Our own descriptors ('-', /dev/stdout, /dev/fd/N)
 * are written where they stand, so one redirected into an input is refused always: merge -o -
 * a.blf b.blf >> a.blf appended a filter to a.blf (unreadable after), and > had emptied it
 * before bloomline ran. */
int cli_output_is_an_input(const char *out, char *const *inputs, size_t ninputs, bool named_ok,
                           const char *written)
{
    struct stat o;
    const int fd = strcmp(out, "-") == 0 ? STDOUT_FILENO : own_fd_alias(out);
    if (fd < 0 && named_ok)
        return 0;
    if ((fd >= 0 ? fstat(fd, &o) : lstat(out, &o)) != 0 || !S_ISREG(o.st_mode))
        return 0;
    for (size_t i = 0; (i = cli_input_index_of(&o, inputs, ninputs, i)) < ninputs; i++) {
        const bool is_stdin = strcmp(inputs[i], "-") == 0; /* build -o keys.txt < keys.txt */
        if (fd >= 0) {
            cli_error("%s is %s%s: %s would be written into it (send it elsewhere)",
                      strcmp(out, "-") == 0 ? "standard output" : out,
                      is_stdin ? "the file on standard input" : inputs[i],
                      is_stdin ? "" : ", an input", written);
            return -1;
        }
        if (replaces_input(out, &o, inputs[i])) {
            cli_error("%s is also an input: %s would replace it (choose another -o)", out,
                      written);
            return -1;
        }
    }
    return 0;
}

int cli_verify_filter(const char *path, bl_filter **f)
{
    const bl_status s = bl_verify(*f);
    if (s == BL_OK)
        return 0;
    cli_status_error(path, "corrupt filter", s);
    bl_free(*f);
    *f = NULL;
    return -1;
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
    if (!mutable_copy && verify && cli_verify_filter(path, out) != 0)
        return -1;
    if (info != NULL && (s = bl_get_info(*out, info)) != BL_OK) {
        cli_status_error(path, "cannot describe filter", s);
        bl_free(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

void cli_hold_termination(sigset_t *saved)
{
    sigset_t hold;
    sigemptyset(&hold);
    sigaddset(&hold, SIGINT);
    sigaddset(&hold, SIGTERM);
    sigaddset(&hold, SIGHUP);
    sigaddset(&hold, SIGQUIT);
    pthread_sigmask(SIG_BLOCK, &hold, saved);
}

void cli_release_termination(const sigset_t *saved)
{
    const int e = errno; /* the save's, for its message */
    pthread_sigmask(SIG_SETMASK, saved, NULL);
    errno = e;
}

/* Replace the file at path with f, in the file format or exported in *format. A failed save
 * leaves the old file but for its last step: BL_E_NOT_DURABLE, the directory's fsync failed
 * after the rename, with the new file in place. Reported as an error, that was status 2, which
 * tells a script that nothing changed (a remove run again took its keys out twice); the work is
 * done and only its durability in doubt, so it is a warning, status 0. */
static int replace_file(const bl_filter *f, const char *path, const bl_foreign_format *format)
{
    sigset_t saved;
    cli_hold_termination(&saved);
    errno = 0;
    const bl_status s = format != NULL ? bl_export_save(f, *format, path) : bl_save(f, path);
    cli_release_termination(&saved);
    if (s == BL_OK)
        return 0;
    if (s == BL_E_NOT_DURABLE) {
        cli_warn("%s: written, but syncing its directory failed (%s): a crash may undo it",
                 path, strerror(errno));
        return 0;
    }
    cli_status_error(path, format != NULL ? "cannot write" : "cannot save filter", s);
    return -1;
}

int cli_save_filter(const bl_filter *f, const char *path)
{
    if (cli_is_stream(path)) /* bl_save replaces files only */
        return cli_write_stream(path, f, NULL);
    return replace_file(f, path, NULL);
}

int cli_save_export(const bl_filter *f, const char *path, bl_foreign_format format)
{
    if (cli_is_stream(path))
        return cli_write_stream(path, f, &format);
    return replace_file(f, path, &format);
}
