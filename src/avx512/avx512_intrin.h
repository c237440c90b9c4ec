/* SPDX-License-Identifier: MIT */
/* The AVX-512 intrinsics: the compiler's, or SIMDe's portable ones in the test build that runs
 * this kernel on CPUs without AVX-512 (BLOOMLINE_AVX512_VIA_SIMDE, as the NEON kernel runs on
 * x86), so that its answers and bits are checked against scalar on any x86-64 CI machine. */
#ifndef BL_AVX512_INTRIN_H
#define BL_AVX512_INTRIN_H

#include <immintrin.h>

#if defined(BL_AVX512_VIA_SIMDE)
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>

#include <stdint.h>
#include <string.h>

/* Those SIMDe 0.7.4 lacks, built from ones it has or lane by lane (test builds only: speed does
 * not matter, exactness does). */
static inline __mmask8 bl_sim_mm256_mask_testn_epi32_mask(__mmask8 k, __m256i a, __m256i b)
{
    const __m256i zero = _mm256_cmpeq_epi32(_mm256_and_si256(a, b), _mm256_setzero_si256());
    return (__mmask8)(k & _mm256_movemask_ps(_mm256_castsi256_ps(zero)));
}
static inline __mmask16 bl_sim_mm512_mask_testn_epi32_mask(__mmask16 k, __m512i a, __m512i b)
{
    return _mm512_mask_cmpeq_epi32_mask(k, _mm512_and_si512(a, b), _mm512_setzero_si512());
}
static inline __m512i bl_sim_mm512_broadcast_i32x8(__m256i a)
{
    return _mm512_inserti64x4(_mm512_castsi256_si512(a), a, 1);
}
static inline __mmask8 bl_sim_mm512_mask_cmpgt_epu64_mask(__mmask8 k, __m512i a, __m512i b)
{
    uint64_t x[8], y[8];
    memcpy(x, &a, sizeof x);
    memcpy(y, &b, sizeof y);
    unsigned m = 0;
    for (unsigned i = 0; i < 8; i++)
        m |= (unsigned)(x[i] > y[i]) << i;
    return (__mmask8)(m & k);
}
static inline __mmask8 bl_sim_mm512_cmpgt_epu64_mask(__m512i a, __m512i b)
{
    return bl_sim_mm512_mask_cmpgt_epu64_mask(0xff, a, b);
}
static inline __m512i bl_sim_mm512_cvtepu32_epi64(__m256i a)
{
    uint32_t x[8];
    uint64_t y[8];
    memcpy(x, &a, sizeof x);
    for (unsigned i = 0; i < 8; i++)
        y[i] = x[i];
    __m512i r;
    memcpy(&r, y, sizeof r);
    return r;
}
/* vshufi64x2: 128-bit lanes 0, 1 of the result from a (imm bits 0-3), 2, 3 from b (bits 4-7). */
static inline __m512i bl_sim_mm512_shuffle_i64x2(__m512i a, __m512i b, int imm)
{
    uint64_t x[8], y[8], r[8];
    memcpy(x, &a, sizeof x);
    memcpy(y, &b, sizeof y);
    for (unsigned lane = 0; lane < 4; lane++) {
        const unsigned from = (unsigned)imm >> (2 * lane) & 3;
        const uint64_t *src = lane < 2 ? x : y;
        r[2 * lane] = src[2 * from];
        r[2 * lane + 1] = src[2 * from + 1];
    }
    __m512i out;
    memcpy(&out, r, sizeof out);
    return out;
}
static inline __mmask8 bl_sim_mm512_mask_cmpge_epu64_mask(__mmask8 k, __m512i a, __m512i b)
{
    return (__mmask8)(k & ~bl_sim_mm512_cmpgt_epu64_mask(b, a));
}
static inline __mmask8 bl_sim_mm512_cmpge_epu64_mask(__m512i a, __m512i b)
{
    return bl_sim_mm512_mask_cmpge_epu64_mask(0xff, a, b);
}
/* Gathers: lane i of out (lane_bytes wide, holding src's lanes) reads base + index[i] * scale
 * where mask bit i is set. The address is formed in integers, as the instruction forms it: the
 * XXH64 tail gathers from absolute addresses with base NULL, and NULL + offset is undefined. */
static inline void bl_sim_gather8(void *out, size_t lane_bytes, __mmask8 k, __m512i index,
                                  const void *base, int scale)
{
    int64_t idx[8];
    memcpy(idx, &index, sizeof idx);
    for (unsigned i = 0; i < 8; i++)
        if (k >> i & 1)
            memcpy((char *)out + i * lane_bytes,
                   (const void *)((uintptr_t)base + (uintptr_t)(idx[i] * scale)), lane_bytes);
}
static inline __m256i bl_sim_mm512_mask_i64gather_epi32(__m256i src, __mmask8 k, __m512i index,
                                                        const void *base, int scale)
{
    bl_sim_gather8(&src, 4, k, index, base, scale);
    return src;
}
static inline __m512i bl_sim_mm512_mask_i64gather_epi64(__m512i src, __mmask8 k, __m512i index,
                                                        const void *base, int scale)
{
    bl_sim_gather8(&src, 8, k, index, base, scale);
    return src;
}
#undef _mm256_mask_testn_epi32_mask
#undef _mm512_mask_testn_epi32_mask
#undef _mm512_broadcast_i32x8
#undef _mm512_mask_cmpgt_epu64_mask
#undef _mm512_cmpgt_epu64_mask
#undef _mm512_cvtepu32_epi64
#undef _mm512_mask_i64gather_epi32
#undef _mm512_mask_i64gather_epi64
#undef _mm512_shuffle_i64x2
#undef _mm512_mask_cmpge_epu64_mask
#undef _mm512_cmpge_epu64_mask
#define _mm256_mask_testn_epi32_mask bl_sim_mm256_mask_testn_epi32_mask
#define _mm512_mask_testn_epi32_mask bl_sim_mm512_mask_testn_epi32_mask
#define _mm512_broadcast_i32x8 bl_sim_mm512_broadcast_i32x8
#define _mm512_mask_cmpgt_epu64_mask bl_sim_mm512_mask_cmpgt_epu64_mask
#define _mm512_cmpgt_epu64_mask bl_sim_mm512_cmpgt_epu64_mask
#define _mm512_cvtepu32_epi64 bl_sim_mm512_cvtepu32_epi64
#define _mm512_mask_i64gather_epi32 bl_sim_mm512_mask_i64gather_epi32
#define _mm512_mask_i64gather_epi64 bl_sim_mm512_mask_i64gather_epi64
#define _mm512_shuffle_i64x2 bl_sim_mm512_shuffle_i64x2
#define _mm512_mask_cmpge_epu64_mask bl_sim_mm512_mask_cmpge_epu64_mask
#define _mm512_cmpge_epu64_mask bl_sim_mm512_cmpge_epu64_mask
#endif

#endif
