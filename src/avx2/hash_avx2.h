/* SPDX-License-Identifier: MIT */
/* uint64_t keys hashed four to a ymm, bit-identical to bl_xxh3_u64_flipped and bl_xxh64_u64:
 * the batched hash stage (hash_avx2.c) and the blocked key window (kernels_avx2.c) share them. */
#ifndef BL_HASH_AVX2_H
#define BL_HASH_AVX2_H

#include "../internal.h"

#include <immintrin.h>

/* a * c mod 2^64 for a constant c: AVX2 multiplies only 32x32->64 (vpmuludq), so build it from
 * the low product and the two cross products (the high x high term falls off the top). With
 * this and the byte-shuffle rotate in bl_avx2_xxh3_u64x4 in place of three vpmuludq and a
 * shifted rotate: batched u64 queries at 2^16 0.96-0.99x the time, adds 0.91-0.96x, sbbf (XXH64)
 * 0.92-0.93x (Zen 3; 30.5 -> 29.6 instructions per query). */
static inline __attribute__((always_inline)) __m256i bl_avx2_mul64c(__m256i a, uint64_t c)
{
    const __m256i clo = _mm256_set1_epi64x((long long)(c & 0xffffffffu));
    /* one vpmulld gives both cross products' low halves: a_lo c_hi in the low dword of each
     * lane, a_hi c_lo in the high one (c's halves swapped) */
    const __m256i cswap = _mm256_set1_epi64x((long long)(c << 32 | c >> 32));
    const __m256i cross32 = _mm256_mullo_epi32(a, cswap);
    const __m256i cross = _mm256_add_epi32(cross32, _mm256_srli_epi64(cross32, 32));
    return _mm256_add_epi64(_mm256_mul_epu32(a, clo), _mm256_slli_epi64(cross, 32));
}

/* Each 64-bit lane rotated left by r (a constant: the shifts take immediates). */
#define BL_AVX2_ROTL64(v, r)                                                                       \
    _mm256_or_si256(_mm256_slli_epi64((v), (r)), _mm256_srli_epi64((v), 64 - (r)))

/* bl_xxh3_u64_flipped of the four keys at `keys`, flip in every lane. */
static inline __attribute__((always_inline)) __m256i bl_avx2_xxh3_u64x4(const uint64_t *keys,
                                                                        __m256i flip)
{
    const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)keys);
    /* rotl 32 of a 64-bit lane is a swap of its halves */
    __m256i h = _mm256_xor_si256(_mm256_shuffle_epi32(v, _MM_SHUFFLE(2, 3, 0, 1)), flip);
    /* rotl 24 is a rotation by 3 bytes: one vpshufb (byte i from byte i - 3 of its lane) */
    const __m256i rotl24 = _mm256_setr_epi8(5, 6, 7, 0, 1, 2, 3, 4, 13, 14, 15, 8, 9, 10, 11, 12, 5,
                                            6, 7, 0, 1, 2, 3, 4, 13, 14, 15, 8, 9, 10, 11, 12);
    h = _mm256_xor_si256(h,
                         _mm256_xor_si256(BL_AVX2_ROTL64(h, 49), _mm256_shuffle_epi8(h, rotl24)));
    h = bl_avx2_mul64c(h, BL_XXH3_RRMXMX);
    h = _mm256_xor_si256(h, _mm256_add_epi64(_mm256_srli_epi64(h, 35), _mm256_set1_epi64x(8)));
    h = bl_avx2_mul64c(h, BL_XXH3_RRMXMX);
    return _mm256_xor_si256(h, _mm256_srli_epi64(h, 28));
}

#endif
