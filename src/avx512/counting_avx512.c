/* SPDX-License-Identifier: MIT */
/* AVX-512 counting queries: a key's probed words permuted out of its line in one instruction, as
 * the blocked probe does (AVX2 needs two and a blend); updates stay scalar (counting_avx2.c). */
#include "avx512_intrin.h"

#include "../counting.h"

#define BL_INLINE static inline __attribute__((always_inline))

BL_INLINE __m256i load256(const void *p)
{
    return _mm256_loadu_si256((const __m256i *)p);
}

/* No probed counter of the key reads zero. Probe i reads counter x_i >> 29 (x_i = (uint32)h *
 * mul[i]) of word r + D_k[i] (vpermd / vpermt2d use its low 4 bits), i.e. bits 4 (x_i >> 29)
 * .. + 3 of that word. k <= 8 keeps to ymm, whose words come from both halves of the line in
 * one vpermt2d (as blocked_line_has8 in kernels_avx512.c). */
BL_INLINE bool test_one_avx512(const uint8_t *data, uint64_t nlines, unsigned k, uint64_t h)
{
    const uint8_t *line = BL_LINE_AT(data, nlines, h);
    if (k <= 8) {
        const __m256i hv = _mm256_set1_epi32((int)(uint32_t)h);
        const __m256i idx =
            _mm256_add_epi32(_mm256_srli_epi32(hv, 28), load256(bl_blocked_offsets[k]));
        const __m256i word = _mm256_permutex2var_epi32(load256(line), idx, load256(line + 32));
        const __m256i x = _mm256_mullo_epi32(hv, load256(bl_blocked_mul));
        const __m256i shift = _mm256_slli_epi32(_mm256_srli_epi32(x, 29), 2);
        const __m256i counter = _mm256_srlv_epi32(word, shift);
        return _mm256_mask_testn_epi32_mask((__mmask8)((1u << k) - 1), counter,
                                            _mm256_set1_epi32(15)) == 0;
    }
    const __m512i hv = _mm512_set1_epi32((int)(uint32_t)h);
    const __m512i idx =
        _mm512_add_epi32(_mm512_srli_epi32(hv, 28), _mm512_load_si512(bl_blocked_offsets[k]));
    const __m512i word = _mm512_permutexvar_epi32(idx, _mm512_load_si512(line));
    const __m512i x = _mm512_mullo_epi32(hv, _mm512_loadu_si512(bl_blocked_mul));
    const __m512i shift = _mm512_slli_epi32(_mm512_srli_epi32(x, 29), 2);
    const __m512i counter = _mm512_srlv_epi32(word, shift);
    return _mm512_mask_testn_epi32_mask((__mmask16)((1u << k) - 1), counter,
                                        _mm512_set1_epi32(15)) == 0;
}

BL_COUNTING_TEST_BY_K(bl_counting_test_avx512, test_one_avx512)

BL_CONTAINS_U64_BY_K(static, contains_u64_avx512, test_one_avx512);
BL_CONTAINS_HASH_BY_K(static, contains_hash_avx512, test_one_avx512);

const struct bl_counting_kernels bl_counting_kernels_avx512 = {
    .name = "avx512",
    .add = bl_counting_add_scalar,
    .test = bl_counting_test_avx512,
    .contains_u64_by_k = contains_u64_avx512,
    .contains_hash_by_k = contains_hash_avx512,
    .remove = bl_counting_remove_scalar,
};
