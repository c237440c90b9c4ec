/* SPDX-License-Identifier: MIT */
/* cli_split, the CLI's line splitter, against a plain reference on seeded random chunks. The
 * splitter finds newlines 64 bytes at a time with SSE2 on x86-64 (memchr elsewhere: the aarch64
 * run covers that one), so the chunks cross those blocks, end inside them, end with and without
 * a newline, and hold \r, NUL, delimiters and empty fields at every offset. */
#include "../test_util.h"

#include "cli.h"

#define MAX_CHUNK 300
#define MAX_LINES (MAX_CHUNK + 1)

/* What cli_split must give for one chunk (cli.h): per line, its key and the offset past it. */
typedef struct split_ref {
    size_t key_off[MAX_LINES], key_len[MAX_LINES], end[MAX_LINES];
    size_t n;
    uint64_t short_lines;
} split_ref;

/* The reference, written from the contract rather than from the code: records end at eol (the
 * last may lack it); a '\n' record drops one final '\r' from its key; with a field asked for,
 * the key is that field of the record, split at every delimiter, or empty (a short line) when
 * the record has fewer fields; an empty record is not a short line. Empty keys are kept only
 * with keep_all. */
static void split_reference(const char *data, size_t len, unsigned char eol, cli_field fs,
                            bool keep_all, split_ref *r)
{
    r->n = 0;
    r->short_lines = 0;
    size_t start = 0;
    while (start < len) {
        size_t stop = start;
        while (stop < len && (unsigned char)data[stop] != eol)
            stop++;
        const size_t next = stop < len ? stop + 1 : len;
        size_t key_end = stop;
        if (eol == '\n' && key_end > start && data[key_end - 1] == '\r')
            key_end--;
        size_t key_off = start, key_len = key_end - start;
        if (fs.field > 0 && key_len > 0) {
            size_t field = 1, field_start = start;
            bool found = false;
            for (size_t i = start; i <= key_end; i++) {
                if (i < key_end && (unsigned char)data[i] != fs.delim)
                    continue;
                if (field == fs.field) {
                    key_off = field_start;
                    key_len = i - field_start;
                    found = true;
                    break;
                }
                field++;
                field_start = i + 1;
            }
            if (!found) {
                r->short_lines++;
                key_len = 0;
                key_off = start;
            }
        }
        if (keep_all || key_len > 0) {
            r->key_off[r->n] = key_off;
            r->key_len[r->n] = key_len;
            r->end[r->n] = next;
            r->n++;
        }
        start = next;
    }
}

/* A chunk of bytes from a small alphabet in which newlines, \r, NUL and the delimiter are
 * common, so that empty records, CRLF ends and empty fields turn up everywhere. */
static size_t random_chunk(uint64_t *state, char *out)
{
    static const char alphabet[] = {'a', 'b', '\n', '\n', '\r', '\0', ',', ',', '\xff', 'z'};
    const uint64_t shape = tu_next(state);
    size_t len = (size_t)(tu_next(state) % (MAX_CHUNK + 1));
    if (shape % 4 == 0) /* lengths at and beside 64-byte block edges */
        len = (size_t)(64 * (1 + (shape >> 8) % 4) + (shape >> 16) % 3) - 1;
    const unsigned sparse = (unsigned)(shape >> 24) % 3; /* 0: dense in separators; 2: long lines */
    for (size_t i = 0; i < len; i++) {
        const uint64_t x = tu_next(state);
        out[i] = sparse && x % (8 * sparse) != 0 ? (char)('c' + x % 20)
                                                 : alphabet[(x >> 8) % sizeof alphabet];
    }
    return len;
}

static void test_split_matches_reference(void **state)
{
    (void)state;
    const uint64_t seed = tu_seed("test_cli_split");
    uint64_t rng = seed;
    static char data[MAX_CHUNK];
    static split_ref want;
    cli_lines got = {0};
    for (unsigned round = 0; round < 20000; round++) {
        const size_t len = random_chunk(&rng, data);
        const uint64_t opts = tu_next(&rng);
        /* the chunk's own copy, so that reading past its end is ASan's to see */
        char *copy = malloc(len ? len : 1);
        assert_non_null(copy);
        memcpy(copy, data, len);
        const cli_chunk chunk = {.data = copy, .len = len, .eol = opts % 3 == 0 ? '\0' : '\n'};
        const cli_field fs = {.field = (size_t)(opts >> 4) % 4,
                              .delim = (opts >> 8) % 4 == 0 ? '\r' : ','};
        const bool keep_all = (opts >> 12) & 1;
        cli_split(&chunk, &fs, keep_all, &got);
        split_reference(copy, len, chunk.eol, fs, keep_all, &want);
        if (got.n != want.n || got.short_lines != want.short_lines)
            fail_msg("seed %#llx round %u: %zu lines (%llu short), want %zu (%llu short)",
                     (unsigned long long)seed, round, got.n, (unsigned long long)got.short_lines,
                     want.n, (unsigned long long)want.short_lines);
        for (size_t i = 0; i < want.n; i++) {
            const size_t off = (size_t)((const char *)got.key[i] - copy);
            /* an empty key's position says nothing */
            if (got.len[i] != want.key_len[i] || (want.key_len[i] > 0 && off != want.key_off[i]) ||
                got.end[i] != want.end[i])
                fail_msg("seed %#llx round %u line %zu: key at %zu, %zu bytes, end %zu; want %zu, "
                         "%zu bytes, end %zu",
                         (unsigned long long)seed, round, i, off, got.len[i], got.end[i],
                         want.key_off[i], want.key_len[i], want.end[i]);
        }
        free(copy);
    }
    cli_lines_free(&got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_matches_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
