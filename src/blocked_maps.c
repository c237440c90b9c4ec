/* SPDX-License-Identifier: MIT */
/* The blocked layout's word sets (internal.h) as tables for SIMD index vectors. Row k of
 * bl_blocked_offsets (in internal.h, so kernels fold it) is D_k, the word offsets of probes
 * 0..k-1 (0 past k); row k of bl_blocked_probe_of maps an offset d to the probe i with
 * D_k[i] = d, or to lane 15 (a lane past k, whose bit is 0) when no probe uses d, twice over:
 * so the 16 (or 8) entries from 16 - r on are the probes of words 0, 1, ... for a key with
 * shift r, one unaligned load.
 * test_kernels checks both tables against each other.
 *
 * D_k is the k-subset of the 16 words, containing 0, whose 16 translates give the lowest
 * modeled false-positive rate (sizing.c) at lambda = 512 ln 2 / k keys per line, the load at
 * which k probes is about optimal; among sets within 1e-9 of that lowest rate (mirror images
 * tie), the one with the smallest 16-bit mask. Found by exhaustive search over the C(15, k-1)
 * candidates (docs/DESIGN.md; test_sizing repeats it for k <= 8). Fixed forever: part of the
 * format. */
#include "internal.h"

const uint32_t bl_blocked_probe_of[BL_K_MAX_BLOCKED + 1][32] __attribute__((aligned(64))) = {
    {15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15}, /* k = 0 */
    {0, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 0, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15}, /* k = 1 */
    {0, 1, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 0, 1, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15}, /* k = 2 */
    {0, 1, 15, 2, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 0, 1, 15, 2, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15}, /* k = 3 */
    {0, 1, 15, 15, 2, 15, 3, 15, 15, 15, 15, 15, 15, 15, 15, 15, 0, 1, 15, 15, 2, 15, 3, 15, 15, 15, 15, 15, 15, 15, 15, 15}, /* k = 4 */
    {0, 1, 15, 15, 2, 15, 3, 15, 4, 15, 15, 15, 15, 15, 15, 15, 0, 1, 15, 15, 2, 15, 3, 15, 4, 15, 15, 15, 15, 15, 15, 15}, /* k = 5 */
    {0, 1, 15, 15, 2, 3, 15, 4, 15, 5, 15, 15, 15, 15, 15, 15, 0, 1, 15, 15, 2, 3, 15, 4, 15, 5, 15, 15, 15, 15, 15, 15}, /* k = 6 */
    {0, 1, 15, 2, 3, 4, 15, 15, 5, 15, 6, 15, 15, 15, 15, 15, 0, 1, 15, 2, 3, 4, 15, 15, 5, 15, 6, 15, 15, 15, 15, 15}, /* k = 7 */
    {0, 1, 2, 3, 15, 4, 5, 15, 15, 6, 15, 7, 15, 15, 15, 15, 0, 1, 2, 3, 15, 4, 5, 15, 15, 6, 15, 7, 15, 15, 15, 15}, /* k = 8 */
    {0, 1, 2, 15, 3, 4, 5, 15, 6, 7, 15, 8, 15, 15, 15, 15, 0, 1, 2, 15, 3, 4, 5, 15, 6, 7, 15, 8, 15, 15, 15, 15}, /* k = 9 */
    {0, 1, 15, 2, 3, 4, 5, 15, 6, 7, 8, 15, 9, 15, 15, 15, 0, 1, 15, 2, 3, 4, 5, 15, 6, 7, 8, 15, 9, 15, 15, 15}, /* k = 10 */
    {0, 1, 2, 3, 4, 5, 15, 6, 7, 15, 8, 9, 10, 15, 15, 15, 0, 1, 2, 3, 4, 5, 15, 6, 7, 15, 8, 9, 10, 15, 15, 15}, /* k = 11 */
    {0, 1, 2, 3, 4, 5, 6, 7, 15, 8, 9, 10, 15, 11, 15, 15, 0, 1, 2, 3, 4, 5, 6, 7, 15, 8, 9, 10, 15, 11, 15, 15}, /* k = 12 */
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 15, 9, 10, 11, 15, 12, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 15, 9, 10, 11, 15, 12, 15}, /* k = 13 */
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 15}, /* k = 14 */
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, /* k = 15 */
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, /* k = 16 */
};

/* The multiplier of the probe with offset d (row k, columns d and d + 16), or 0 when no probe of
 * k has offset d, twice over like bl_blocked_probe_of: the 16 entries from 16 - r on are the
 * multipliers of words 0..15 of the line of a key with shift r (0: no bit in that word). With
 * them a key's mask is built in the line's own word order, with no word permutation (the AVX2
 * kernel's queries with k > 8 and adds with k >= 8). test_kernels checks it against
 * bl_blocked_mul and bl_blocked_offsets. */
const uint32_t bl_blocked_mul_of_word[BL_K_MAX_BLOCKED + 1][32] __attribute__((aligned(64))) = {
    /* k = 0 */
    {0, 0, 0, 0, 0, 0, 0, 0,
     0, 0, 0, 0, 0, 0, 0, 0,
     0, 0, 0, 0, 0, 0, 0, 0,
     0, 0, 0, 0, 0, 0, 0, 0},
    /* k = 1 */
    {0x556f4675, 0, 0, 0, 0, 0, 0, 0,
     0, 0, 0, 0, 0, 0, 0, 0,
     0x556f4675, 0, 0, 0, 0, 0, 0, 0,
     0, 0, 0, 0, 0, 0, 0, 0},
    /* k = 2 */
    {0x556f4675, 0x97c69b05, 0, 0, 0, 0, 0, 0,
     0, 0, 0, 0, 0, 0, 0, 0,
     0x556f4675, 0x97c69b05, 0, 0, 0, 0, 0, 0,
     0, 0, 0, 0, 0, 0, 0, 0},
    /* k = 3 */
    {0x556f4675, 0x97c69b05, 0, 0x923d592d, 0, 0, 0, 0,
     0, 0, 0, 0, 0, 0, 0, 0,
     0x556f4675, 0x97c69b05, 0, 0x923d592d, 0, 0, 0, 0,
     0, 0, 0, 0, 0, 0, 0, 0},
    /* k = 4 */
    {0x556f4675, 0x97c69b05, 0, 0, 0x923d592d, 0, 0xfa626315, 0,
     0, 0, 0, 0, 0, 0, 0, 0,
     0x556f4675, 0x97c69b05, 0, 0, 0x923d592d, 0, 0xfa626315, 0,
     0, 0, 0, 0, 0, 0, 0, 0},
    /* k = 5 */
    {0x556f4675, 0x97c69b05, 0, 0, 0x923d592d, 0, 0xfa626315, 0,
     0xa37774e5, 0, 0, 0, 0, 0, 0, 0,
     0x556f4675, 0x97c69b05, 0, 0, 0x923d592d, 0, 0xfa626315, 0,
     0xa37774e5, 0, 0, 0, 0, 0, 0, 0},
    /* k = 6 */
    {0x556f4675, 0x97c69b05, 0, 0, 0x923d592d, 0xfa626315, 0, 0xa37774e5,
     0, 0x422cfd25, 0, 0, 0, 0, 0, 0,
     0x556f4675, 0x97c69b05, 0, 0, 0x923d592d, 0xfa626315, 0, 0xa37774e5,
     0, 0x422cfd25, 0, 0, 0, 0, 0, 0},
    /* k = 7 */
    {0x556f4675, 0x97c69b05, 0, 0x923d592d, 0xfa626315, 0xa37774e5, 0, 0,
     0x422cfd25, 0, 0x77e68e55, 0, 0, 0, 0, 0,
     0x556f4675, 0x97c69b05, 0, 0x923d592d, 0xfa626315, 0xa37774e5, 0, 0,
     0x422cfd25, 0, 0x77e68e55, 0, 0, 0, 0, 0},
    /* k = 8 */
    {0x556f4675, 0x97c69b05, 0x923d592d, 0xfa626315, 0, 0xa37774e5, 0x422cfd25, 0,
     0, 0x77e68e55, 0, 0x78bd6055, 0, 0, 0, 0,
     0x556f4675, 0x97c69b05, 0x923d592d, 0xfa626315, 0, 0xa37774e5, 0x422cfd25, 0,
     0, 0x77e68e55, 0, 0x78bd6055, 0, 0, 0, 0},
    /* k = 9 */
    {0x556f4675, 0x97c69b05, 0x923d592d, 0, 0xfa626315, 0xa37774e5, 0x422cfd25, 0,
     0x77e68e55, 0x78bd6055, 0, 0xc9e4c63d, 0, 0, 0, 0,
     0x556f4675, 0x97c69b05, 0x923d592d, 0, 0xfa626315, 0xa37774e5, 0x422cfd25, 0,
     0x77e68e55, 0x78bd6055, 0, 0xc9e4c63d, 0, 0, 0, 0},
    /* k = 10 */
    {0x556f4675, 0x97c69b05, 0, 0x923d592d, 0xfa626315, 0xa37774e5, 0x422cfd25, 0,
     0x77e68e55, 0x78bd6055, 0xc9e4c63d, 0, 0xf6125f8d, 0, 0, 0,
     0x556f4675, 0x97c69b05, 0, 0x923d592d, 0xfa626315, 0xa37774e5, 0x422cfd25, 0,
     0x77e68e55, 0x78bd6055, 0xc9e4c63d, 0, 0xf6125f8d, 0, 0, 0},
    /* k = 11 */
    {0x556f4675, 0x97c69b05, 0x923d592d, 0xfa626315, 0xa37774e5, 0x422cfd25, 0, 0x77e68e55,
     0x78bd6055, 0, 0xc9e4c63d, 0xf6125f8d, 0xb32e2b25, 0, 0, 0,
     0x556f4675, 0x97c69b05, 0x923d592d, 0xfa626315, 0xa37774e5, 0x422cfd25, 0, 0x77e68e55,
     0x78bd6055, 0, 0xc9e4c63d, 0xf6125f8d, 0xb32e2b25, 0, 0, 0},
    /* k = 12 */
    {0x556f4675, 0x97c69b05, 0x923d592d, 0xfa626315, 0xa37774e5, 0x422cfd25, 0x77e68e55, 0x78bd6055,
     0, 0xc9e4c63d, 0xf6125f8d, 0xb32e2b25, 0, 0x582e34a5, 0, 0,
     0x556f4675, 0x97c69b05, 0x923d592d, 0xfa626315, 0xa37774e5, 0x422cfd25, 0x77e68e55, 0x78bd6055,
     0, 0xc9e4c63d, 0xf6125f8d, 0xb32e2b25, 0, 0x582e34a5, 0, 0},
    /* k = 13 */
    {0x556f4675, 0x97c69b05, 0x923d592d, 0xfa626315, 0xa37774e5, 0x422cfd25, 0x77e68e55, 0x78bd6055,
     0xc9e4c63d, 0, 0xf6125f8d, 0xb32e2b25, 0x582e34a5, 0, 0xc869a2cd, 0,
     0x556f4675, 0x97c69b05, 0x923d592d, 0xfa626315, 0xa37774e5, 0x422cfd25, 0x77e68e55, 0x78bd6055,
     0xc9e4c63d, 0, 0xf6125f8d, 0xb32e2b25, 0x582e34a5, 0, 0xc869a2cd, 0},
    /* k = 14 */
    {0x556f4675, 0x97c69b05, 0x923d592d, 0xfa626315, 0xa37774e5, 0x422cfd25, 0x77e68e55, 0x78bd6055,
     0xc9e4c63d, 0xf6125f8d, 0xb32e2b25, 0x582e34a5, 0xc869a2cd, 0x8d0a1fdd, 0, 0,
     0x556f4675, 0x97c69b05, 0x923d592d, 0xfa626315, 0xa37774e5, 0x422cfd25, 0x77e68e55, 0x78bd6055,
     0xc9e4c63d, 0xf6125f8d, 0xb32e2b25, 0x582e34a5, 0xc869a2cd, 0x8d0a1fdd, 0, 0},
    /* k = 15 */
    {0x556f4675, 0x97c69b05, 0x923d592d, 0xfa626315, 0xa37774e5, 0x422cfd25, 0x77e68e55, 0x78bd6055,
     0xc9e4c63d, 0xf6125f8d, 0xb32e2b25, 0x582e34a5, 0xc869a2cd, 0x8d0a1fdd, 0x99bd3555, 0,
     0x556f4675, 0x97c69b05, 0x923d592d, 0xfa626315, 0xa37774e5, 0x422cfd25, 0x77e68e55, 0x78bd6055,
     0xc9e4c63d, 0xf6125f8d, 0xb32e2b25, 0x582e34a5, 0xc869a2cd, 0x8d0a1fdd, 0x99bd3555, 0},
    /* k = 16 */
    {0x556f4675, 0x97c69b05, 0x923d592d, 0xfa626315, 0xa37774e5, 0x422cfd25, 0x77e68e55, 0x78bd6055,
     0xc9e4c63d, 0xf6125f8d, 0xb32e2b25, 0x582e34a5, 0xc869a2cd, 0x8d0a1fdd, 0x99bd3555, 0xafc85605,
     0x556f4675, 0x97c69b05, 0x923d592d, 0xfa626315, 0xa37774e5, 0x422cfd25, 0x77e68e55, 0x78bd6055,
     0xc9e4c63d, 0xf6125f8d, 0xb32e2b25, 0x582e34a5, 0xc869a2cd, 0x8d0a1fdd, 0x99bd3555, 0xafc85605
    },
};
