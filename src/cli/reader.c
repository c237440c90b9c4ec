/* SPDX-License-Identifier: MIT */
/* Input in large line-aligned chunks, the fast line count, and key extraction from lines. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *cli_input_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "(standard input)" : path;
}

void cli_reader_init(cli_reader *r, char *const *paths, size_t npaths, bool keep_going)
{
    memset(r, 0, sizeof *r);
    r->paths = paths;
    r->npaths = npaths;
    r->fd = -1;
    r->keep_going = keep_going;
}

void cli_reader_free(cli_reader *r)
{
    if (r->open && r->fd != STDIN_FILENO)
        close(r->fd);
    r->open = false;
    free(r->carry);
    r->carry = NULL;
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
            r->regular = S_ISREG(st.st_mode);
            if (r->regular)
                (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
            r->carry_len = 0;
            return 1;
        }
        if (fd >= 0 && !is_stdin)
            close(fd);
        r->errors++;
        r->cur++;
        if (!r->keep_going)
            return -1;
    }
    return 0;
}

static void close_current(cli_reader *r)
{
    if (r->fd != STDIN_FILENO)
        close(r->fd);
    r->open = false;
    r->fd = -1;
    r->cur++;
    r->carry_len = 0;
}

/* On a pipe or terminal, hand over what we have as soon as the writer pauses, so that a slow
 * stream (tail -f) is answered line by line while a fast one still fills big chunks. */
static bool more_ready(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, 0) > 0;
}

int cli_reader_next(cli_reader *r, cli_chunk *c)
{
    for (;;) {
        if (!r->open) {
            int o = open_next(r);
            if (o <= 0)
                return o;
        }
        size_t need = r->carry_len + CLI_CHUNK_BYTES;
        if (c->cap < need) {
            c->buf = cli_realloc(c->buf, need);
            c->cap = need;
        }
        if (r->carry_len)
            memcpy(c->buf, r->carry, r->carry_len);
        size_t len = r->carry_len;
        r->carry_len = 0;
        char *nl = NULL; /* the last newline so far; the carried part has none */
        bool eof = false, failed = false;
        for (;;) {
            if (len == c->cap) {
                if (nl != NULL)
                    break;
                /* One line longer than the buffer: grow; memory follows the longest line. */
                c->cap *= 2;
                c->buf = cli_realloc(c->buf, c->cap);
            }
            ssize_t got = read(r->fd, c->buf + len, c->cap - len);
            if (got < 0) {
                if (errno == EINTR)
                    continue;
                cli_error("%s: read error: %s", cli_input_name(r->paths[r->cur]), strerror(errno));
                failed = true;
                break;
            }
            if (got == 0) {
                eof = true;
                break;
            }
            r->bytes += (uint64_t)got;
            char *p = memrchr(c->buf + len, '\n', (size_t)got);
            if (p != NULL)
                nl = p;
            len += (size_t)got;
            if (!r->regular && nl != NULL && !more_ready(r->fd))
                break;
        }
        c->file = r->cur;
        if (failed) {
            r->errors++;
            close_current(r);
            if (!r->keep_going)
                return -1;
            continue;
        }
        if (eof) {
            close_current(r);
            if (len == 0)
                continue;
            c->len = len; /* the last line may lack its newline: it is a line all the same */
            return 1;
        }
        const size_t keep = (size_t)(nl + 1 - c->buf);
        r->carry_len = len - keep;
        if (r->carry_len > r->carry_cap) {
            r->carry_cap = r->carry_len * 2;
            r->carry = cli_realloc(r->carry, r->carry_cap);
        }
        memcpy(r->carry, c->buf + keep, r->carry_len);
        c->len = keep;
        return 1;
    }
}

/* Newlines in a buffer, eight bytes at a time: a zero byte of x ^ '\n'*8 marks a newline, and
 * ~(((t & 0x7f..) + 0x7f..) | t) has exactly the high bit of each zero byte set. The per-byte
 * flags are summed in byte lanes and folded every 255 words, before a lane can overflow. */
static uint64_t count_newlines(const unsigned char *p, size_t n)
{
    const uint64_t ones = UINT64_C(0x0101010101010101), lo7 = UINT64_C(0x7f7f7f7f7f7f7f7f);
    uint64_t total = 0;
    size_t i = 0;
    while (n - i >= 8) {
        uint64_t acc = 0;
        size_t words = (n - i) / 8;
        if (words > 255)
            words = 255;
        for (size_t w = 0; w < words; w++, i += 8) {
            uint64_t x;
            memcpy(&x, p + i, 8);
            const uint64_t t = x ^ (ones * '\n');
            acc += (~(((t & lo7) + lo7) | t) >> 7) & ones;
        }
        acc = (acc & UINT64_C(0x00ff00ff00ff00ff)) + ((acc >> 8) & UINT64_C(0x00ff00ff00ff00ff));
        total += (acc * UINT64_C(0x0001000100010001)) >> 48;
    }
    for (; i < n; i++)
        total += p[i] == '\n';
    return total;
}

int cli_count_lines(char *const *paths, size_t npaths, uint64_t *lines, uint64_t *bytes,
                    bool *regular)
{
    *lines = 0;
    *bytes = 0;
    *regular = true;
    for (size_t f = 0; f < npaths; f++) {
        struct stat st;
        if (strcmp(paths[f], "-") == 0 || (stat(paths[f], &st) == 0 && !S_ISREG(st.st_mode) &&
                                           !S_ISDIR(st.st_mode))) {
            *regular = false;
            return 1;
        }
    }
    enum { BUF = 1 << 20 };
    unsigned char *buf = cli_malloc(BUF);
    int rc = 0;
    for (size_t f = 0; f < npaths && rc == 0; f++) {
        int fd = open(paths[f], O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd < 0) {
            cli_error("%s: cannot open: %s", paths[f], strerror(errno));
            rc = -1;
            break;
        }
        if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
            cli_error("%s: is a directory", paths[f]);
            close(fd);
            rc = -1;
            break;
        }
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
        unsigned char last = '\n';
        for (;;) {
            ssize_t got = read(fd, buf, BUF);
            if (got < 0) {
                if (errno == EINTR)
                    continue;
                cli_error("%s: read error: %s", paths[f], strerror(errno));
                rc = -1;
                break;
            }
            if (got == 0)
                break;
            *lines += count_newlines(buf, (size_t)got);
            *bytes += (uint64_t)got;
            last = buf[got - 1];
        }
        if (last != '\n')
            (*lines)++; /* a last line without its newline */
        close(fd);
    }
    free(buf);
    return rc;
}

uint64_t cli_inputs_size(char *const *paths, size_t npaths)
{
    uint64_t total = 0;
    for (size_t f = 0; f < npaths; f++) {
        struct stat st;
        if (strcmp(paths[f], "-") == 0 || stat(paths[f], &st) != 0 || !S_ISREG(st.st_mode))
            return 0;
        total += (uint64_t)st.st_size;
    }
    return total;
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

void cli_split(const cli_chunk *c, const cli_field *fs, bool keep_all, cli_lines *l)
{
    const char *p = c->buf, *const end = c->buf + c->len;
    l->n = 0;
    l->short_lines = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *next = nl ? nl + 1 : end;
        const char *ks = p, *ke = nl ? nl : end;
        /* The key drops a CRLF line's \r; the line itself is output unchanged. */
        if (ke > ks && ke[-1] == '\r')
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
            l->end[l->n] = (size_t)(next - c->buf);
            l->n++;
        }
        p = next;
    }
}
