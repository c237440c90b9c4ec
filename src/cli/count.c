/* SPDX-License-Identifier: MIT */
/* The line count that sizes a build: newlines (NULs with -z) counted by the worker threads, chunk
 * by chunk. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/magic.h>
#include <sys/statfs.h>
#endif

/* Bytes equal to eol in a buffer, eight bytes at a time: a zero byte of x ^ eol*8 marks one, and
 * ~(((t & 0x7f..) + 0x7f..) | t) has exactly the high bit of each zero byte set. The per-byte
 * flags are summed in byte lanes and folded every 255 words, before a lane can overflow. */
uint64_t cli_count_eol(const unsigned char *p, size_t n, unsigned char eol)
{
    const uint64_t ones = UINT64_C(0x0101010101010101), lo7 = UINT64_C(0x7f7f7f7f7f7f7f7f);
    const uint64_t eols = ones * eol;
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
            const uint64_t t = x ^ eols;
            acc += (~(((t & lo7) + lo7) | t) >> 7) & ones;
        }
        acc = (acc & UINT64_C(0x00ff00ff00ff00ff)) + ((acc >> 8) & UINT64_C(0x00ff00ff00ff00ff));
        total += (acc * UINT64_C(0x0001000100010001)) >> 48;
    }
    for (; i < n; i++)
        total += p[i] == eol;
    return total;
}

typedef struct count_ctx {
    uint64_t lines; /* atomic */
} count_ctx;

/* Each line belongs to exactly one chunk (cli_chunk_load), so the sum over chunks of their
 * newlines, plus one for a last line without its newline, is the exact line count. */
static int count_process(void *ctx, unsigned worker, const cli_chunk *c)
{
    (void)worker;
    count_ctx *x = ctx;
    uint64_t n = cli_count_eol((const unsigned char *)c->data, c->len, c->eol);
    if (c->len > 0 && (unsigned char)c->data[c->len - 1] != c->eol)
        n++;
    __atomic_add_fetch(&x->lines, n, __ATOMIC_RELAXED);
    return 0;
}

/* Standard input, a regular file of size 0: empty indeed, or a file of procfs or sysfs whose
 * size says nothing (/proc/version), which the reader reads as a stream. Those file systems are
 * never probed (reading /proc/kmsg consumes it); elsewhere a read at offset 0 decides, with room
 * for a whole value (some sysctl files return nothing to a 1-byte read). */
static bool stdin_is_empty_file(void)
{
#ifdef __linux__
    struct statfs fs;
    if (fstatfs(STDIN_FILENO, &fs) != 0 || fs.f_type == PROC_SUPER_MAGIC ||
        fs.f_type == SYSFS_MAGIC)
        return false;
#endif
    char probe[4096];
    return pread(STDIN_FILENO, probe, sizeof probe, 0) == 0;
}

int cli_count_lines(char *const *paths, size_t npaths, unsigned threads, unsigned char eol,
                    uint64_t max_line, uint64_t *lines, bool *regular)
{
    *lines = 0;
    *regular = true;
    bool stdin_empty = false;
    for (size_t f = 0; f < npaths; f++) {
        struct stat st;
        const bool is_stdin = strcmp(paths[f], "-") == 0;
        const int rc = is_stdin ? fstat(0, &st) : stat(paths[f], &st);
        /* A stream can be read only once: it cannot be counted. Standard input from a regular
         * file of size 0 is one too, unless it is empty indeed: then it was "not a regular
         * file" (a scalable filter, or -l classic refused), the same file named a 64-byte
         * blocked one. */
        const bool size_0_stdin = rc == 0 && is_stdin && S_ISREG(st.st_mode) && st.st_size == 0;
        if (size_0_stdin && !stdin_empty)
            stdin_empty = stdin_is_empty_file();
        if (rc == 0 && ((!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) ||
                        (size_0_stdin && !stdin_empty))) {
            *regular = false;
            return 1;
        }
    }
    /* Standard input is read once: a second '-' reads nothing (it was counted twice, sizing the
     * filter for twice the keys). The others are all counted, repeats included, as they are
     * all read. */
    char **once = cli_malloc(npaths * sizeof *once);
    size_t nonce = 0;
    bool stdin_seen = false;
    for (size_t f = 0; f < npaths; f++) {
        const bool is_stdin = strcmp(paths[f], "-") == 0;
        /* An empty standard input is not read here: were it some file that only looked
         * empty, counting would consume what the build must read (sized for too few keys, it
         * then warns). */
        if (!is_stdin || (!stdin_seen && !stdin_empty))
            once[nonce++] = paths[f];
        stdin_seen = stdin_seen || is_stdin;
    }
    if (nonce == 0) {
        free(once);
        return 0;
    }
    count_ctx x = {0};
    cli_reader rd;
    cli_reader_init(&rd, once, nonce, false, eol, max_line);
    rd.peek = true;
    /* Counting reads the input without consuming it: regular files are read at offsets. */
    cli_job job = {.reader = &rd, .threads = threads, .process = count_process, .ctx = &x};
    int rc = cli_run(&job);
    if (rd.errors > 0)
        rc = -1;
    cli_reader_free(&rd);
    free(once);
    *lines = x.lines;
    return rc;
}
