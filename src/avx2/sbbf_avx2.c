/* SPDX-License-Identifier: MIT */
/* The AVX2 kernel's Parquet split-block layout: one ymm is one 256-bit block, its eight words'
 * bits from one vpmulld by the spec's salts. */
#include "kernels_avx2.h"

#include <immintrin.h>

#define BL_INLINE static inline __attribute__((always_inline))

BL_INLINE __m256i sbbf_bits(uint64_t h)
{
    const __m256i salt = _mm256_loadu_si256((const __m256i *)(const void *)bl_sbbf_salt);
    const __m256i x = _mm256_mullo_epi32(_mm256_set1_epi32((int)(uint32_t)h), salt);
    return _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(x, 27));
}

BL_INLINE uint8_t *sbbf_block_ptr(const uint8_t *data, uint64_t nblocks, uint64_t h)
{
    return (uint8_t *)(uintptr_t)(data + bl_sbbf_block(h, nblocks) * BL_SBBF_BLOCK_BYTES);
}

BL_INLINE void sbbf_block_or(uint8_t *data, uint64_t nblocks, uint64_t h)
{
    __m256i *b = (__m256i *)(void *)sbbf_block_ptr(data, nblocks, h);
    _mm256_store_si256(b, _mm256_or_si256(_mm256_load_si256(b), sbbf_bits(h)));
}

BL_INLINE bool sbbf_block_has(const uint8_t *data, uint64_t nblocks, uint64_t h)
{
    const uint8_t *block = sbbf_block_ptr(data, nblocks, h);
    const __m256i b = _mm256_load_si256((const __m256i *)(const void *)block);
    return _mm256_testc_si256(b, sbbf_bits(h)); /* all bits present */
}

void bl_sbbf_add_avx2(uint8_t *data, uint64_t nblocks, const uint64_t *h, size_t n,
                      size_t avail)
{
    for (size_t i = 0; i < n; i++) {
        if (i + BL_PREFETCH_DISTANCE < avail)
            BL_PREFETCH_W(sbbf_block_ptr(data, nblocks, h[i + BL_PREFETCH_DISTANCE]));
        sbbf_block_or(data, nblocks, h[i]);
    }
}

size_t bl_sbbf_test_avx2(const uint8_t *data, uint64_t nblocks, const uint64_t *h, size_t n,
                         size_t avail, uint8_t *res)
{
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + BL_PREFETCH_DISTANCE < avail)
            BL_PREFETCH_R(sbbf_block_ptr(data, nblocks, h[i + BL_PREFETCH_DISTANCE]));
        hits += bl_answer(res, i, sbbf_block_has(data, nblocks, h[i]));
    }
    return hits;
}

void bl_sbbf_add_one_avx2(uint8_t *data, uint64_t nblocks, uint64_t h)
{
    sbbf_block_or(data, nblocks, h);
}

bool bl_sbbf_contains_avx2(const uint8_t *data, uint64_t nblocks, uint64_t h)
{
    return sbbf_block_has(data, nblocks, h);
}
