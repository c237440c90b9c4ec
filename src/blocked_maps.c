/* SPDX-License-Identifier: MIT */
/* The blocked layout's 128 word maps as tables (internal.h): SIMD kernels load a key's word
 * indices (queries) or its inverse permutation (adds, which permute the key's bits into place)
 * as one 64-byte row instead of computing them per lane. */
#include "internal.h"

/* The inverse of i -> (r + s i) mod 16 is w -> s^-1 (w - r) mod 16, and s^-1 = s^3 mod 16 for
 * every odd s (the unit group mod 16 has exponent 4). */
#define BL_S(t) (2u * ((t) >> 4) + 1u)
#define BL_PROBE(t, w) ((BL_S(t) * BL_S(t) * BL_S(t) * ((w) + 16u - ((t) & 15u))) & 15u)

#define ROW(F, t)                                                                                  \
    {F(t, 0),  F(t, 1),  F(t, 2),  F(t, 3),  F(t, 4),  F(t, 5),  F(t, 6),  F(t, 7),                \
     F(t, 8),  F(t, 9),  F(t, 10), F(t, 11), F(t, 12), F(t, 13), F(t, 14), F(t, 15)}
#define ROWS8(F, t)                                                                                \
    ROW(F, t), ROW(F, t + 1), ROW(F, t + 2), ROW(F, t + 3), ROW(F, t + 4), ROW(F, t + 5),          \
        ROW(F, t + 6), ROW(F, t + 7)
#define ROWS128(F)                                                                                 \
    ROWS8(F, 0u), ROWS8(F, 8u), ROWS8(F, 16u), ROWS8(F, 24u), ROWS8(F, 32u), ROWS8(F, 40u),        \
        ROWS8(F, 48u), ROWS8(F, 56u), ROWS8(F, 64u), ROWS8(F, 72u), ROWS8(F, 80u), ROWS8(F, 88u),  \
        ROWS8(F, 96u), ROWS8(F, 104u), ROWS8(F, 112u), ROWS8(F, 120u)

const uint32_t bl_blocked_words[BL_BLOCKED_MAPS][16] __attribute__((aligned(64))) = {
    ROWS128(BL_BLOCKED_WORD)};
const uint32_t bl_blocked_probes[BL_BLOCKED_MAPS][16] __attribute__((aligned(64))) = {
    ROWS128(BL_PROBE)};
#define BL_WORD_B(t, i) (BL_BLOCKED_WORD(t, i) | 16u)
const uint32_t bl_blocked_words_b[BL_BLOCKED_MAPS][16] __attribute__((aligned(64))) = {
    ROWS128(BL_WORD_B)};
