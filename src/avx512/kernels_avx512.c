/* SPDX-License-Identifier: MIT */
/* The AVX-512 kernel: u64 hashing with vpmullq, a key's 16 probes in one zmm against the line. */
#include "../avx2/kernels_avx2.h"

#include <immintrin.h>

#define BL_INLINE static inline __attribute__((always_inline))

/* ---- uint64_t hashing, eight keys per zmm: AVX-512DQ has a 64-bit multiply -------------------- */

BL_INLINE __m512i mul64c(__m512i a, uint64_t c)
{
    return _mm512_mullo_epi64(a, _mm512_set1_epi64((long long)c));
}

static void hash_u64_xxh3_avx512(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out)
{
    const __m512i flip =
        _mm512_set1_epi64((long long)(BL_XXH3_BITFLIP_8 - bl_xxh3_u64_seed_fold(seed)));
    const __m512i eight = _mm512_set1_epi64(8);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m512i h = _mm512_xor_si512(_mm512_rol_epi64(_mm512_loadu_si512(keys + i), 32), flip);
        /* h ^= rotl(h, 49) ^ rotl(h, 24): one three-input XOR */
        h = _mm512_ternarylogic_epi64(h, _mm512_rol_epi64(h, 49), _mm512_rol_epi64(h, 24), 0x96);
        h = mul64c(h, BL_XXH3_RRMXMX);
        h = _mm512_xor_si512(h, _mm512_add_epi64(_mm512_srli_epi64(h, 35), eight));
        h = mul64c(h, BL_XXH3_RRMXMX);
        _mm512_storeu_si512(out + i, _mm512_xor_si512(h, _mm512_srli_epi64(h, 28)));
    }
    for (; i < n; i++)
        out[i] = bl_xxh3_u64(keys[i], seed);
}

static void hash_u64_xxh64_avx512(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out)
{
    const __m512i h0 = _mm512_set1_epi64((long long)(seed + BL_XXH64_P5 + 8));
    const __m512i p4 = _mm512_set1_epi64((long long)BL_XXH64_P4);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m512i v = _mm512_loadu_si512(keys + i);
        __m512i k1 = mul64c(_mm512_rol_epi64(mul64c(v, BL_XXH64_P2), 31), BL_XXH64_P1);
        __m512i h = _mm512_xor_si512(h0, k1);
        h = _mm512_add_epi64(mul64c(_mm512_rol_epi64(h, 27), BL_XXH64_P1), p4);
        h = _mm512_xor_si512(h, _mm512_srli_epi64(h, 33));
        h = mul64c(h, BL_XXH64_P2);
        h = _mm512_xor_si512(h, _mm512_srli_epi64(h, 29));
        h = mul64c(h, BL_XXH64_P3);
        _mm512_storeu_si512(out + i, _mm512_xor_si512(h, _mm512_srli_epi64(h, 32)));
    }
    for (; i < n; i++)
        out[i] = bl_xxh64_u64(keys[i], seed);
}

/* ---- Blocked layout: the line is one zmm ------------------------------------------------------ */

BL_INLINE const uint8_t *blocked_line_ptr(const uint8_t *data, uint64_t nlines, uint64_t h)
{
    return data + bl_blocked_line(h, nlines) * BL_LINE_BYTES;
}

/* x = (uint32)h * mul: word = x >> 28 (vpermd reads exactly those 4 bits), bit = (x >> 23) & 31.
 * Lanes past k are masked off. Returns true when every probed bit is set. */
static size_t blocked_test_avx512(const uint8_t *data, uint64_t nlines, unsigned k,
                                  const uint64_t *h, size_t n, size_t avail, uint8_t *res)
{
    const __m512i mul = _mm512_loadu_si512(bl_blocked_mul);
    const __mmask16 active = (__mmask16)((1u << k) - 1);
    const __m512i one = _mm512_set1_epi32(1), m31 = _mm512_set1_epi32(31);
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + BL_PREFETCH_DISTANCE < avail)
            BL_PREFETCH_R(blocked_line_ptr(data, nlines, h[i + BL_PREFETCH_DISTANCE]));
        const __m512i line = _mm512_load_si512(blocked_line_ptr(data, nlines, h[i]));
        const __m512i x = _mm512_mullo_epi32(_mm512_set1_epi32((int)(uint32_t)h[i]), mul);
        const __m512i word = _mm512_permutexvar_epi32(_mm512_srli_epi32(x, 28), line);
        const __m512i bit =
            _mm512_sllv_epi32(one, _mm512_and_si512(_mm512_srli_epi32(x, 23), m31));
        /* lanes whose bit is absent: (bit & ~word) != 0 */
        const __mmask16 miss = _mm512_mask_test_epi32_mask(active, bit, _mm512_andnot_si512(word, bit));
        const int r = miss == 0;
        hits += (size_t)r;
        if (res)
            res[i] = (uint8_t)r;
    }
    return hits;
}

const struct bl_kernels bl_kernels_avx512 = {
    .name = "avx512",
    .required = BL_CPU_AVX512,
    .hash_u64_xxh3 = hash_u64_xxh3_avx512,
    .hash_u64_xxh64 = hash_u64_xxh64_avx512,
    .blocked_add = bl_blocked_add_avx2,
    .blocked_test = blocked_test_avx512,
    .sbbf_add = bl_sbbf_add_avx2,
    .sbbf_test = bl_sbbf_test_avx2,
};
