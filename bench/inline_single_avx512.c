/* SPDX-License-Identifier: MIT */
/* The single-key query written into the caller's loop with AVX-512 (no call, no dispatch): the
 * floor of what an inline header path could reach, for bench_parts. */
#include "inline_single.h"

#include <immintrin.h>

size_t bb_inline_single_avx512(const bl_filter *f, const uint64_t *keys, size_t n)
{
    const __m512i mul = _mm512_loadu_si512(bl_blocked_mul);
    const __m512i offsets = _mm512_load_si512(bl_blocked_offsets[f->k]);
    const __mmask16 lanes = (__mmask16)((1u << f->k) - 1);
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t h = bl_xxh3_u64_flipped(keys[i], f->xxh3_flip);
        const __m512i hv = _mm512_set1_epi32((int)(uint32_t)h);
        const __m512i x = _mm512_mullo_epi32(hv, mul);
        const __m512i line = _mm512_load_si512(f->data + bl_blocked_line(h, f->nblocks) * BL_LINE_BYTES);
        const __m512i word = _mm512_permutexvar_epi32(
            _mm512_add_epi32(_mm512_srli_epi32(hv, 28), offsets), line);
        const __m512i bit = _mm512_rolv_epi32(_mm512_set1_epi32(1), _mm512_srli_epi32(x, 27));
        hits += _mm512_mask_testn_epi32_mask(lanes, word, bit) == 0;
    }
    return hits;
}
