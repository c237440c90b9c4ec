/* SPDX-License-Identifier: MIT */
/* bench_urls: print the benchmark's synthetic URLs, one per line (input for the CLI comparison). */
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

static inline uint64_t mulhi(uint64_t a, uint64_t b)
{
    __extension__ typedef unsigned __int128 u128;
    return (uint64_t)(((u128)a * b) >> 64);
}

static void usage(FILE *out)
{
    fprintf(out, "usage: bench_urls keys N      # URLs 0..N-1 (the set)\n"
                 "       bench_urls queries N   # N lookups: even lines present keys of a\n"
                 "                              # set of N, odd lines absent ones\n"
                 "N: 1 to 2^62 (1e7 and 2^20 forms too).\n");
}

int main(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        usage(stdout);
        return 0;
    }
    if (argc != 3 || (strcmp(argv[1], "keys") && strcmp(argv[1], "queries"))) {
        usage(stderr);
        return 2;
    }
    const bool queries = !strcmp(argv[1], "queries");
    uint64_t n;
    /* Absent URLs are numbers from 2^62 on: a larger N would print added keys as absent ones. */
    if (!bb_arg_count("bench_urls", "N", argv[2], 1, BB_ABSENT, &n))
        return 2;
    static char out[1 << 20];
    size_t off = 0;
    for (uint64_t j = 0; j < n; j++) {
        uint64_t idx = !queries ? j : (j & 1) ? BB_ABSENT + j : mulhi(bb_mix(j), n);
        off += bb_url(idx, out + off);
        out[off++] = '\n';
        if (off > sizeof out - BB_URL_MAX - 1) {
            if (fwrite(out, 1, off, stdout) != off)
                return 1;
            off = 0;
        }
    }
    return fwrite(out, 1, off, stdout) == off && fflush(stdout) == 0 ? 0 : 1;
}
