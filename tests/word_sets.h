/* SPDX-License-Identifier: MIT */
/* The rate that chose the blocked layout's word sets, shared by test_sizing and
 * word_sets_search, and written independently of sizing.c (which groups the subsets into
 * classes). */
#ifndef BL_TEST_WORD_SETS_H
#define BL_TEST_WORD_SETS_H

#include <math.h>
#include <stdint.h>

/* Rate of a line filter whose keys take the 16 translates of the word set `set` (Poisson line
 * loads, lambda keys per line, 32 bits per word), from the inclusion-exclusion sum over the
 * query words that stay clear. Up to 2^16 terms of size ~1 cancel: long double keeps ~1e-15. */
static inline long double ws_translates_rate(uint32_t set, long double lambda)
{
    long double power[17] = {1}; /* (31/32)^m */
    for (unsigned m = 1; m <= 16; m++)
        power[m] = power[m - 1] * 31 / 32;
    uint32_t window[16];
    for (unsigned r = 0; r < 16; r++)
        window[r] = ((set << r) | (set >> (16 - r))) & 0xffffu;
    long double total = 0;
    for (uint32_t s = set;; s = (s - 1) & set) {
        long double f = 0;
        for (unsigned r = 0; r < 16; r++)
            f += power[__builtin_popcount(s & window[r])];
        total += ((__builtin_popcount(s) & 1) ? -1 : 1) * expl(lambda * (f / 16 - 1));
        if (s == 0)
            break;
    }
    return total;
}

/* Among all k-subsets of the 16 words containing word 0, the one with the lowest rate at
 * lambda; the smallest mask among those within 1e-9 of it (mirror images tie). */
static inline uint32_t ws_best_set(unsigned k, long double lambda)
{
    long double best_rate = 2;
    uint32_t best = 0;
    for (uint32_t set = 1; set < 0x10000; set += 2) {
        if ((unsigned)__builtin_popcount(set) != k)
            continue;
        const long double r = ws_translates_rate(set, lambda);
        if (r < best_rate * (1 - 1e-9L))
            best = set, best_rate = r;
    }
    return best;
}

#endif
