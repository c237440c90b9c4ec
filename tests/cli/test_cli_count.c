/* SPDX-License-Identifier: MIT */
/* cli_count_eol, the newline count that sizes a build, against a byte-by-byte count. It counts
 * eight bytes a word in byte lanes and folds them every 255 words, before a lane can wrap: so the
 * buffers here cross 8-byte words and 255-word folds, start at every alignment, and include runs
 * where every byte is the terminator (each lane gaining one a word, the most a fold holds). */
#include "../test_util.h"

#include "cli.h"

#define MAX_BYTES (3 * 255 * 8 + 64)

static uint64_t count_slowly(const unsigned char *p, size_t n, unsigned char eol)
{
    uint64_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += p[i] == eol;
    return c;
}

static void test_count_matches_bytewise(void **state)
{
    (void)state;
    const uint64_t seed = tu_seed("test_cli_count");
    uint64_t rng = seed;
    static unsigned char buf[MAX_BYTES + 8];
    for (unsigned round = 0; round < 3000; round++) {
        const uint64_t shape = tu_next(&rng);
        const unsigned char eol = shape & 1 ? '\n' : '\0';
        const size_t off = (size_t)(shape >> 1) % 8; /* every alignment of the first word */
        size_t n = (size_t)(tu_next(&rng) % (MAX_BYTES + 1));
        if ((shape >> 4) % 4 == 0) /* at and beside a fold of 255 words */
            n = (size_t)(255 * 8 * (1 + (shape >> 8) % 3) + (shape >> 16) % 17) - 8;
        /* density of the terminator: all, about half, rare; near-misses (eol ^ 0x80, eol + 1)
         * catch a test of fewer than all eight bits */
        const unsigned density = (unsigned)(shape >> 24) % 3;
        for (size_t i = 0; i < n; i++) {
            const uint64_t x = tu_next(&rng);
            const bool hit = density == 0 || (density == 1 ? x % 2 : x % 61 == 0);
            const unsigned char other[] = {(unsigned char)(eol ^ 0x80), (unsigned char)(eol + 1),
                                           'a', 0xff};
            buf[off + i] = hit ? eol : other[(x >> 8) % sizeof other];
        }
        const uint64_t got = cli_count_eol(buf + off, n, eol), want = count_slowly(buf + off, n, eol);
        if (got != want)
            fail_msg("seed %#llx round %u: %llu of byte %#x in %zu bytes at offset %zu, want %llu",
                     (unsigned long long)seed, round, (unsigned long long)got, eol, n, off,
                     (unsigned long long)want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count_matches_bytewise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
