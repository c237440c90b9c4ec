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

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "keys") && strcmp(argv[1], "queries"))) {
        fprintf(stderr, "usage: bench_urls keys N      # URLs 0..N-1 (the set)\n"
                        "       bench_urls queries N   # N lookups: even lines present keys of a\n"
                        "                              # set of N, odd lines absent ones\n");
        return 2;
    }
    const bool queries = !strcmp(argv[1], "queries");
    const uint64_t n = bb_parse_count(argv[2]);
    if (n == 0)
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
