/* SPDX-License-Identifier: MIT */
/* Input in line-aligned chunks (streams in order, files as ranges mapped in parallel) and keys. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

char *const *cli_inputs(int argc, char **argv, int first, size_t *n)
{
    static char *const stdin_only[] = {"-"};
    if (first < argc) {
        *n = (size_t)(argc - first);
        return argv + first;
    }
    *n = 1;
    return stdin_only;
}

const char *cli_input_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "(standard input)" : path;
}

/* A file truncated while it is read (logrotate's copytruncate) leaves the chunk mapped from it
 * past its new end, and reading there raises SIGBUS: the run died mid-output with a status that
 * read as "nothing selected". The handler puts a zero page where the file was, so that the access
 * completes, and notes it; the worker then discards the chunk (cli_chunk_check). Past the end of
 * any other mapping (the filter, truncated or rewritten in place by cp) there is no answer to
 * give: the process says so and exits with status 2, where it died of "Bus error" (status 135).
 * Any other SIGBUS keeps its default action. */
static _Thread_local const char *map_lo, *map_hi; /* this thread's chunk mapping, if any */
static _Thread_local volatile sig_atomic_t map_lost;
static long page_bytes;

/* A whole-file mapping (import's input) whose loss ends the run with its own message, built
 * beforehand: the handler may only write it. */
static const char *whole_lo, *whole_hi;
static char whole_msg[512];
static size_t whole_msg_len;

void cli_sigbus_names(const void *map, size_t len, const char *name)
{
    const int n = snprintf(whole_msg, sizeof whole_msg,
                           "bloomline %s: %s: file shrank while being read\n",
                           cli_cmd ? cli_cmd : "", name);
    whole_msg_len = n < 0 ? 0 : (size_t)n < sizeof whole_msg ? (size_t)n : sizeof whole_msg - 1;
    whole_lo = map;
    whole_hi = map != NULL ? (const char *)map + len : NULL;
}

static void on_sigbus(int sig, siginfo_t *si, void *uctx)
{
    (void)uctx;
    const char *a = si->si_addr;
    if (whole_lo != NULL && a >= whole_lo && a < whole_hi) {
        ssize_t w = write(STDERR_FILENO, whole_msg, whole_msg_len);
        (void)w;
        _exit(CLI_EXIT_ERROR);
    }
    if (map_lo != NULL && a >= map_lo && a < map_hi) {
        void *pg = (void *)((uintptr_t)a - (uintptr_t)a % (uintptr_t)page_bytes);
        if (mmap(pg, (size_t)page_bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
                 0) != MAP_FAILED) {
            map_lost = 1;
            return;
        }
    }
    if (si->si_code == BUS_ADRERR) {
        static const char msg[] = "bloomline: a mapped file (the filter?) was truncated or "
                                  "rewritten in place while in use; replace filter files by "
                                  "saving a new one over them (bloomline build -o does)\n";
        ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)w;
        _exit(CLI_EXIT_ERROR);
    }
    signal(sig, SIG_DFL); /* the access is repeated on return, and now ends the process */
}

void cli_catch_sigbus(void)
{
    page_bytes = sysconf(_SC_PAGESIZE);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    (void)sigaction(SIGBUS, &sa, NULL);
}

void cli_reader_init(cli_reader *r, char *const *paths, size_t npaths, bool keep_going,
                     unsigned char eol, uint64_t max_line)
{
    memset(r, 0, sizeof *r);
    r->paths = paths;
    r->npaths = npaths;
    r->fd = -1;
    r->keep_going = keep_going;
    r->eol = eol;
    r->max_line = max_line;
    r->refused = cli_malloc(npaths * sizeof *r->refused);
    memset(r->refused, 0, npaths * sizeof *r->refused);
    if (pipe2(r->wake, O_CLOEXEC | O_NONBLOCK) != 0)
        r->wake[0] = r->wake[1] = -1; /* reads then wait in read() alone, as they used to */
}

void cli_reader_stop(cli_reader *r)
{
    if (r->wake[1] >= 0) {
        ssize_t w = write(r->wake[1], "", 1); /* a full pipe already holds a byte: no matter */
        (void)w;
    }
}

/* Wait for a stream's input (or its end), or for the run to stop: false then. A worker blocked
 * in read() on a quiet stream (tail -f) kept a run that had failed (a closed output with SIGPIPE
 * ignored, a full disk) from ending until more input came, or forever. */
static bool wait_input(const cli_reader *r)
{
    if (r->wake[0] < 0)
        return true;
    struct pollfd p[2] = {{.fd = r->fd, .events = POLLIN}, {.fd = r->wake[0], .events = POLLIN}};
    for (;;) {
        if (poll(p, 2, -1) >= 0)
            return p[1].revents == 0;
        if (errno != EINTR)
            return true; /* read() waits by itself */
    }
}

/* A regular file is shared by the chunks cut from it: the last one to finish closes it. */
static void file_release(cli_file *f)
{
    if (f != NULL && __atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        if (f->fd != STDIN_FILENO)
            close(f->fd);
        free(f);
    }
}

void cli_reader_free(cli_reader *r)
{
    if (r->open) {
        if (r->file != NULL)
            file_release(r->file);
        else if (r->fd != STDIN_FILENO)
            close(r->fd);
    }
    r->open = false;
    r->file = NULL;
    free(r->carry);
    r->carry = NULL;
    free(r->refused);
    r->refused = NULL;
    for (int i = 0; i < 2; i++)
        if (r->wake[i] >= 0)
            close(r->wake[i]);
    r->wake[0] = r->wake[1] = -1;
}

/* Open the next input. 1: open, 0: none left, -1: a bad input and we must stop. */
static int open_next(cli_reader *r)
{
    while (r->cur < r->npaths) {
        const char *p = r->paths[r->cur];
        const bool is_stdin = strcmp(p, "-") == 0;
        int fd = is_stdin ? STDIN_FILENO : open(p, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd < 0) {
            cli_error("%s: cannot open: %s", p, strerror(errno));
        } else if (fstat(fd, &st) != 0) {
            cli_error("%s: cannot stat: %s", cli_input_name(p), strerror(errno));
        } else if (S_ISDIR(st.st_mode)) {
            cli_error("%s: is a directory", cli_input_name(p));
        } else {
            r->fd = fd;
            r->open = true;
            r->carry_len = 0;
            r->file = NULL;
            /* A regular file of size 0 may still have content (procfs, sysfs: the size is
             * not known until read): it is read to its end as a stream, like an empty file. */
            if (S_ISREG(st.st_mode) && st.st_size > 0) {
                /* Standard input redirected from a file may already be partly consumed. */
                off_t pos = is_stdin ? lseek(fd, 0, SEEK_CUR) : 0;
                r->file = cli_malloc(sizeof *r->file);
                r->file->fd = fd;
                r->file->refs = 1;
                r->file->size = (uint64_t)st.st_size;
                r->off = pos > 0 ? (uint64_t)pos : 0;
                r->first_pending = true;
                (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
            }
            return 1;
        }
        if (fd >= 0 && !is_stdin)
            close(fd);
        __atomic_add_fetch(&r->errors, 1, __ATOMIC_RELAXED);
        if (r->refused != NULL)
            r->refused[r->cur] = true;
        r->cur++;
        if (!r->keep_going)
            return -1;
    }
    return 0;
}

static void close_current(cli_reader *r)
{
    if (r->file != NULL) {
        if (r->fd == STDIN_FILENO && !r->peek) /* a second '-' then reads nothing, as read() */
            (void)lseek(r->fd, (off_t)r->file->size, SEEK_SET);
        file_release(r->file);
        r->file = NULL;
    } else if (r->fd != STDIN_FILENO) {
        close(r->fd);
    }
    r->open = false;
    r->fd = -1;
    r->cur++;
    r->carry_len = 0;
    r->skipping = false;
}

/* A line of input `file` longer than --max-line: an input error, reported. With keep_going the
 * line is passed over (true), else reading stops (false). Any thread. */
static bool line_too_long(cli_reader *r, size_t file)
{
    cli_error("%s: a line is longer than %llu bytes (--max-line)",
              cli_input_name(r->paths[file]), (unsigned long long)r->max_line);
    __atomic_add_fetch(&r->errors, 1, __ATOMIC_RELAXED);
    return r->keep_going;
}

/* A stream's read failed (errno): reported, counted, the input closed. 0: go on to the next
 * input (keep_going), -1: stop. */
static int stream_read_failed(cli_reader *r)
{
    cli_error("%s: read error: %s", cli_input_name(r->paths[r->cur]), strerror(errno));
    __atomic_add_fetch(&r->errors, 1, __ATOMIC_RELAXED);
    close_current(r);
    return r->keep_going ? 0 : -1;
}

/* The start of a line that the next chunk of the stream begins with. */
static void carry_over(cli_reader *r, const char *from, size_t n)
{
    if (n > r->carry_cap) {
        r->carry_cap = n * 2;
        r->carry = cli_realloc(r->carry, r->carry_cap);
    }
    if (n)
        memcpy(r->carry, from, n);
    r->carry_len = n;
}

/* On a pipe or terminal, hand over what we have as soon as the writer pauses, so that a slow
 * stream (tail -f) is answered line by line while a fast one still fills big chunks. */
static bool more_ready(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, 0) > 0;
}

static void reserve(cli_chunk *c, size_t need)
{
    if (c->cap < need) {
        c->buf = cli_realloc(c->buf, need);
        c->cap = need;
    }
}

/* Read a stream past the end of a line too long to hold, to where the next line starts, which is
 * carried over to the next chunk. 1: there, 0: the input ended (closed), -1: stop. */
static int skip_rest_of_line(cli_reader *r, cli_chunk *c)
{
    reserve(c, CLI_CHUNK_BYTES);
    for (;;) {
        if (!wait_input(r))
            return -1;
        ssize_t got = read(r->fd, c->buf, c->cap);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return stream_read_failed(r);
        if (got == 0) {
            close_current(r);
            return 0;
        }
        r->bytes += (uint64_t)got;
        const char *nl = memchr(c->buf, r->eol, (size_t)got);
        if (nl != NULL) {
            r->skipping = false;
            carry_over(r, nl + 1, (size_t)(c->buf + got - (nl + 1)));
            return 1;
        }
    }
}

/* A stream: read under the reader's lock, whole lines only, the partial last line carried over
 * to the next chunk. 1: a chunk, 0: the input ended, -1: stop, 2: nothing yet (a line too long
 * was dropped): call again. */
static int next_from_stream(cli_reader *r, cli_chunk *c)
{
    if (r->skipping) {
        const int s = skip_rest_of_line(r, c);
        if (s <= 0)
            return s;
    }
    reserve(c, r->carry_len + CLI_CHUNK_BYTES);
    if (r->carry_len)
        memcpy(c->buf, r->carry, r->carry_len);
    size_t len = r->carry_len;
    r->carry_len = 0;
    char *nl = NULL; /* the last newline so far; the carried part has none */
    bool eof = false;
    for (;;) {
        if (len == c->cap) {
            if (nl != NULL)
                break;
            /* The buffer holds one line, not yet ended: grow, up to --max-line (and one byte
             * more, to know that the line is longer). */
            if (len > r->max_line) {
                if (!line_too_long(r, r->cur))
                    return -1;
                r->skipping = true;
                return 2;
            }
            reserve(c, c->cap * 2 < r->max_line + 1 ? c->cap * 2 : (size_t)r->max_line + 1);
        }
        if (!wait_input(r))
            return -1; /* stopping: what was read goes unprocessed, as later input would */
        ssize_t got = read(r->fd, c->buf + len, c->cap - len);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return stream_read_failed(r);
        }
        if (got == 0) {
            eof = true;
            break;
        }
        r->bytes += (uint64_t)got;
        char *p = memrchr(c->buf + len, r->eol, (size_t)got);
        if (p != NULL)
            nl = p;
        len += (size_t)got;
        if (nl != NULL && !more_ready(r->fd))
            break;
    }
    c->file = r->cur;
    /* Only the first line (begun in the carried part, or alone in a buffer that grew) and, at the
     * end, an unended last one can be too long: the others lie in what was read past the first
     * newline, a chunk at most or what the buffer grew by, within --max-line (at least a chunk). */
    size_t start = 0;
    if (nl != NULL) {
        const char *first = memchr(c->buf, r->eol, len);
        if ((size_t)(first - c->buf) > r->max_line) {
            if (!line_too_long(r, r->cur))
                return -1;
            start = (size_t)(first + 1 - c->buf);
        }
    }
    const size_t keep = nl != NULL ? (size_t)(nl + 1 - c->buf) : 0;
    c->data = c->buf + start;
    if (eof) {
        /* the last line may lack its newline: it is a line all the same */
        size_t end = len;
        if (len - keep > r->max_line) {
            if (!line_too_long(r, r->cur))
                return -1;
            end = keep;
        }
        close_current(r);
        c->len = end > start ? end - start : 0;
        return c->len > 0 ? 1 : 0;
    }
    carry_over(r, c->buf + keep, len - keep);
    c->len = keep - start;
    return 1;
}

int cli_reader_next(cli_reader *r, cli_chunk *c)
{
    c->src = NULL;
    c->len = 0;
    c->eol = r->eol; /* for cli_split and the other users of the chunk, which have no reader */
    for (;;) {
        if (!r->open) {
            int o = open_next(r);
            if (o <= 0)
                return o;
        }
        if (r->file == NULL) {
            int rc = next_from_stream(r, c);
            if (rc == 2)
                continue;
            if (rc != 0)
                return rc;
            continue; /* end of this input (or a reported error we go past) */
        }
        /* A regular file: hand out the next byte range; the worker reads it itself, in
         * parallel with the others (cli_chunk_load). */
        if (r->off >= r->file->size) {
            close_current(r);
            continue;
        }
        c->src = r->file;
        __atomic_add_fetch(&r->file->refs, 1, __ATOMIC_RELAXED);
        c->off = r->off;
        c->end = r->file->size - r->off > CLI_CHUNK_BYTES ? r->off + CLI_CHUNK_BYTES
                                                          : r->file->size;
        c->first = r->first_pending;
        r->first_pending = false;
        r->bytes += c->end - c->off;
        r->off = c->end;
        c->file = r->cur;
        return 1;
    }
}

/* Read up to n bytes at off; fewer only at the end of the file. -1 on error. */
static ssize_t pread_full(int fd, char *buf, size_t n, uint64_t off)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, buf + got, n - got, (off_t)(off + got));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* Bytes looked at past a range's end to find where its last line ends (doubled for long lines). */
#define LOAD_TAIL 4096u

void cli_chunk_release(cli_chunk *c)
{
    file_release(c->held);
    c->held = NULL;
    map_lo = map_hi = NULL;
    if (c->map != NULL)
        munmap(c->map, c->map_len);
    c->map = NULL;
    free(c->buf);
    c->buf = NULL;
    c->cap = 0;
}

/* Bytes [from, from + want) of f, fewer only at its end: mapped when possible, since copying
 * from the page cache was a quarter of the CPU time of a build; each worker maps only its
 * current chunk, so the resident memory stays a few MiB whatever the file size. (A file
 * truncated while being read faults past its new end: see on_sigbus.) NULL on a read error. */
static const char *fetch(cli_chunk *c, const cli_file *f, uint64_t from, size_t want, size_t *got)
{
    map_lo = map_hi = NULL;
    if (c->map != NULL) {
        munmap(c->map, c->map_len);
        c->map = NULL;
    }
    const uint64_t avail = f->size > from ? f->size - from : 0;
    const size_t n = want < avail ? want : (size_t)avail;
    *got = n;
    if (n == 0) {
        reserve(c, 1);
        return c->buf;
    }
    const long page = sysconf(_SC_PAGESIZE);
    if (page > 0) {
        const uint64_t base = from - from % (uint64_t)page;
        const size_t len = n + (size_t)(from - base);
        void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, f->fd, (off_t)base);
        if (m != MAP_FAILED) {
            c->map = m;
            c->map_len = len;
            map_lo = m;
            map_hi = (const char *)m + len;
            return (const char *)m + (from - base);
        }
    }
    reserve(c, n);
    ssize_t r = pread_full(f->fd, c->buf, n, from);
    if (r < 0)
        return NULL;
    *got = (size_t)r;
    return c->buf;
}

int cli_chunk_load(cli_reader *r, cli_chunk *c)
{
    file_release(c->held); /* the previous chunk's, if it was not checked (a failed run) */
    c->held = NULL;
    cli_file *f = c->src;
    if (f == NULL)
        return 0;
    c->src = NULL;
    map_lost = 0;
    /* The chunk owns the lines that start in [off, end). One byte before off tells whether a
     * line starts at off; bytes past end hold the rest of the last line. */
    const uint64_t from = c->first ? c->off : c->off - 1;
    const size_t span = (size_t)(c->end - from);
    size_t want = span + LOAD_TAIL, got, s = 0, e;
    for (;;) {
        const char *b = fetch(c, f, from, want, &got);
        if (b == NULL) {
            cli_error("%s: read error: %s", cli_input_name(r->paths[c->file]), strerror(errno));
            __atomic_add_fetch(&r->errors, 1, __ATOMIC_RELAXED);
            c->data = c->buf;
            c->len = 0;
            file_release(f);
            return r->keep_going ? 0 : -1;
        }
        if (!c->first) {
            const size_t lim = span < got ? span : got;
            const char *p = lim > 0 ? memchr(b, r->eol, lim) : NULL;
            /* No line starts here: the previous chunk's last line covers the whole range. */
            if (p == NULL || from + (uint64_t)(p - b) + 1 >= c->end) {
                c->data = b;
                c->len = 0;
                break;
            }
            s = (size_t)(p - b) + 1;
        }
        const size_t i = span - 1; /* the last line ends at the first newline from here */
        const char *p = got > i ? memchr(b + i, r->eol, got - i) : NULL;
        /* Lines inside the range are shorter than a chunk: only the last one can be too long. */
        const size_t last_end = p != NULL ? (size_t)(p - b) : got;
        if (last_end - s > r->max_line) {
            const char *q = i > s ? memrchr(b + s, r->eol, i - s) : NULL;
            const size_t last = q != NULL ? (size_t)(q + 1 - b) : s; /* where it starts */
            if (last_end - last > r->max_line) {
                const bool go_on = line_too_long(r, c->file);
                c->data = b + s;
                c->len = go_on ? last - s : 0; /* the lines before it */
                if (!go_on) {
                    file_release(f);
                    return -1;
                }
                break;
            }
        }
        if (p == NULL && got == want) {
            want *= 2; /* a line longer than the tail: look further */
            continue;
        }
        e = p != NULL ? (size_t)(p - b) + 1 : got; /* else the file ends without a newline */
        c->data = b + s;
        c->len = e > s ? e - s : 0;
        break;
    }
    c->held = f; /* its reference, released by cli_chunk_check */
    return 0;
}

int cli_chunk_check(cli_reader *r, cli_chunk *c)
{
    /* A file cut to a length inside a page it had (not to 0, as copytruncate does) raises no
     * SIGBUS: the kernel zeroes the rest of that page, and the chunk read those zeros as its
     * last line (query -v printed 100 NUL bytes the file never held, status 0). The size the
     * file had when opened, checked once the chunk is processed, catches every shrink that
     * came before its last read. */
    cli_file *f = c->held;
    c->held = NULL;
    struct stat st;
    const bool shrank = map_lost ||
                        (f != NULL && fstat(f->fd, &st) == 0 && (uint64_t)st.st_size < f->size);
    file_release(f);
    if (!shrank)
        return 0;
    map_lost = 0;
    /* Later chunks of the file are past its end too: one message is enough. */
    if (!__atomic_exchange_n(&r->shrank, true, __ATOMIC_ACQ_REL))
        cli_error("%s: file shrank while being read", cli_input_name(r->paths[c->file]));
    __atomic_add_fetch(&r->errors, 1, __ATOMIC_RELAXED);
    return -1;
}

/* Whether every input is a regular file, and the sum of their sizes in *total. */
static bool regular_inputs_size(char *const *paths, size_t npaths, uint64_t *total)
{
    *total = 0;
    for (size_t f = 0; f < npaths; f++) {
        struct stat st;
        const int rc = strcmp(paths[f], "-") == 0 ? fstat(STDIN_FILENO, &st) : stat(paths[f], &st);
        if (rc != 0 || !S_ISREG(st.st_mode))
            return false;
        *total += (uint64_t)st.st_size;
    }
    return true;
}

uint64_t cli_inputs_size(char *const *paths, size_t npaths)
{
    uint64_t total;
    return regular_inputs_size(paths, npaths, &total) ? total : 0;
}

bool cli_inputs_fit_one_chunk(char *const *paths, size_t npaths)
{
    uint64_t total;
    return regular_inputs_size(paths, npaths, &total) && total <= CLI_CHUNK_BYTES;
}

/* ---- Lines and keys -------------------------------------------------------------------------- */

void cli_lines_reserve(cli_lines *l, size_t n)
{
    if (n <= l->cap)
        return;
    size_t cap = l->cap ? l->cap : 4096;
    while (cap < n)
        cap *= 2;
    l->key = cli_realloc(l->key, cap * sizeof *l->key);
    l->len = cli_realloc(l->len, cap * sizeof *l->len);
    l->end = cli_realloc(l->end, cap * sizeof *l->end);
    l->hash = cli_realloc(l->hash, cap * sizeof *l->hash);
    l->res = cli_realloc(l->res, cap * sizeof *l->res);
    l->cap = cap;
}

void cli_lines_free(cli_lines *l)
{
    free(l->key);
    free(l->len);
    free(l->end);
    free(l->hash);
    free(l->res);
    memset(l, 0, sizeof *l);
}

/* The byte a key drops from its line's end: a CRLF line's \r. A NUL-ended record (-z) is taken
 * as it is, as grep -z takes it: -1, which no byte equals, so that the test costs the same. */
static inline int dropped_cr(unsigned char eol)
{
    return eol == '\n' ? '\r' : -1;
}

/* One line [p, nl) (nl excludes the newline; next is where the following line starts). */
static inline void emit_line(const char *p, const char *nl, const char *next, const char *base,
                             const cli_field *fs, int cr, bool keep_all, cli_lines *l)
{
    const char *ks = p, *ke = nl;
    /* The key drops cr (dropped_cr); the line itself is output unchanged. Unsigned: a signed
     * char 0xff would equal -1. */
    if (ke > ks && (unsigned char)ke[-1] == cr)
        ke--;
    if (fs->field > 0 && ke > ks) {
        const char *s = ks;
        for (size_t f = 1; f < fs->field && s != NULL; f++) {
            const char *d = memchr(s, fs->delim, (size_t)(ke - s));
            s = d ? d + 1 : NULL;
        }
        if (s == NULL) { /* fewer fields than asked: the key is empty */
            l->short_lines++;
            ke = ks;
        } else {
            const char *d = memchr(s, fs->delim, (size_t)(ke - s));
            ks = s;
            if (d != NULL)
                ke = d;
        }
    }
    if (keep_all || ke > ks) {
        if (l->n == l->cap)
            cli_lines_reserve(l, l->n + 1);
        l->key[l->n] = ks;
        l->len[l->n] = (size_t)(ke - ks);
        l->end[l->n] = (size_t)(next - base);
        l->n++;
    }
}

#if defined(__SSE2__)
#include <emmintrin.h>
/* A bit per newline (each byte equal to nl's) in 64 bytes. SSE2 is part of x86-64, so this needs
 * no ISA flag; finding the newlines 64 bytes at a time costs a fraction of a memchr call per
 * ~60-byte line. */
static inline uint64_t newline_mask64(const char *p, __m128i nl)
{
    uint64_t m = 0;
    for (int i = 0; i < 4; i++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
        m |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)) << (16 * i);
    }
    return m;
}

void cli_split(const cli_chunk *c, const cli_field *fs, bool keep_all, cli_lines *l)
{
    const char *const base = c->data;
    const size_t n = c->len;
    const __m128i nl = _mm_set1_epi8((char)c->eol);
    const int cr = dropped_cr(c->eol);
    l->n = 0;
    l->short_lines = 0;
    size_t start = 0;
    for (size_t blk = 0; blk < n; blk += 64) {
        uint64_t m;
        if (n - blk >= 64) {
            m = newline_mask64(base + blk, nl);
        } else {
            char tail[64] = {0};
            memcpy(tail, base + blk, n - blk);
            /* past the data: the padding's zeros are NULs, newlines for -z */
            m = newline_mask64(tail, nl) & ((UINT64_C(1) << (n - blk)) - 1);
        }
        while (m != 0) {
            const size_t i = blk + (size_t)__builtin_ctzll(m);
            m &= m - 1;
            emit_line(base + start, base + i, base + i + 1, base, fs, cr, keep_all, l);
            start = i + 1;
        }
    }
    if (start < n) /* the last line of an input may lack its newline */
        emit_line(base + start, base + n, base + n, base, fs, cr, keep_all, l);
}
#else
void cli_split(const cli_chunk *c, const cli_field *fs, bool keep_all, cli_lines *l)
{
    const char *p = c->data, *const end = c->data + c->len;
    const int cr = dropped_cr(c->eol);
    l->n = 0;
    l->short_lines = 0;
    while (p < end) {
        const char *nl = memchr(p, c->eol, (size_t)(end - p));
        const char *next = nl ? nl + 1 : end;
        emit_line(p, nl ? nl : end, next, c->data, fs, cr, keep_all, l);
        p = next;
    }
}
#endif
