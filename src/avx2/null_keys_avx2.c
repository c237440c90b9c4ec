/* SPDX-License-Identifier: MIT */
/* The validation scan of byte-key batches (bl_byte_keys_valid), sixteen pointers a step. */
#include <immintrin.h>

#include "../pipeline.h"
#include "kernels_avx2.h"

/* Pointers are compared with zero four to a ymm, and only a block of sixteen that holds a NULL
 * has its lengths read (NULL empty keys are allowed, and rare). The portable loop takes ~1 cycle
 * a key; this scan keeps up with the pointer stream. Also the AVX-512 table's: the scan waits
 * on memory, not on the vector width. */
bool bl_null_keys_empty_avx2(const void *const *bytes, const size_t *lens, size_t n)
{
    const __m256i zero = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256i *p = (const __m256i *)(const void *)(bytes + i);
        const __m256i a = _mm256_cmpeq_epi64(_mm256_loadu_si256(p), zero);
        const __m256i b = _mm256_cmpeq_epi64(_mm256_loadu_si256(p + 1), zero);
        const __m256i c = _mm256_cmpeq_epi64(_mm256_loadu_si256(p + 2), zero);
        const __m256i d = _mm256_cmpeq_epi64(_mm256_loadu_si256(p + 3), zero);
        const __m256i any = _mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d));
        if (!_mm256_testz_si256(any, any) && !bl_null_keys_empty(bytes + i, lens + i, 16))
            return false;
    }
    return bl_null_keys_empty(bytes + i, lens + i, n - i);
}
