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

/* ---- Blocked layout: a line is one zmm ------------------------------------------------------- */

/* x = (uint32)h * mul: word = x >> 28, bit = (x >> 23) & 31; returns the lanes whose bit the
 * line (as `word`, already gathered) lacks. */
BL_INLINE __mmask16 blocked_missing(__m512i x, __m512i word)
{
    const __m512i sh = _mm512_and_si512(_mm512_srli_epi32(x, 23), _mm512_set1_epi32(31));
    const __m512i bit = _mm512_sllv_epi32(_mm512_set1_epi32(1), sh);
    return _mm512_test_epi32_mask(bit, _mm512_andnot_si512(word, bit));
}

/* k <= 8: two keys per zmm, 8 probes each (lanes past k repeat probe 0, which the key sets
 * anyway). vpermt2d picks words from both lines at once: index bit 4 selects key b's line. */
static size_t blocked_test_pairs(const uint8_t *data, uint64_t nlines, unsigned k,
                                 const uint64_t *h, size_t n, size_t avail, uint8_t *res)
{
    /* built in registers: a stack array read back as one vector would stall store forwarding,
     * which costs more than a whole probe on single-key calls */
    const __mmask16 lanes = (__mmask16)(((1u << k) - 1) * 0x0101u);
    const __m512i mul = _mm512_mask_blend_epi32(
        lanes, _mm512_set1_epi32((int)bl_blocked_mul[0]),
        _mm512_broadcast_i32x8(_mm256_loadu_si256((const __m256i *)(const void *)bl_blocked_mul)));
    const __m512i line_b = _mm512_set_epi32(16, 16, 16, 16, 16, 16, 16, 16, 0, 0, 0, 0, 0, 0, 0, 0);
    /* (uint32)h[i] to lanes 0..7 and (uint32)h[i + 1] to lanes 8..15 */
    const __m512i spread = _mm512_set_epi32(2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0);
    bl_window win;
    bl_window_start(&win, data, nlines, h, avail, false);
    size_t hits = 0, i = 0;
    for (; i + 2 <= n; i += 2) {
        const __m512i la = _mm512_load_si512(bl_window_next(&win, data, nlines, h, i, avail, false));
        const __m512i lb = _mm512_load_si512(bl_window_next(&win, data, nlines, h, i + 1, avail, false));
        const __m512i hv =
            _mm512_permutexvar_epi32(spread, _mm512_castsi128_si512(_mm_loadu_si128((const void *)(h + i))));
        const __m512i x = _mm512_mullo_epi32(hv, mul);
        const __m512i idx = _mm512_or_si512(_mm512_srli_epi32(x, 28), line_b);
        const unsigned miss = blocked_missing(x, _mm512_permutex2var_epi32(la, idx, lb));
        const int ra = (miss & 0xff) == 0, rb = (miss >> 8) == 0;
        hits += (size_t)(ra + rb);
        if (res) {
            res[i] = (uint8_t)ra;
            res[i + 1] = (uint8_t)rb;
        }
    }
    if (i < n) { /* the odd last key */
        const __m512i la = _mm512_load_si512(bl_window_next(&win, data, nlines, h, i, avail, false));
        const __m512i x = _mm512_mullo_epi32(_mm512_set1_epi32((int)(uint32_t)h[i]), mul);
        const unsigned miss = blocked_missing(x, _mm512_permutexvar_epi32(_mm512_srli_epi32(x, 28), la));
        const int r = (miss & 0xff) == 0;
        hits += (size_t)r;
        if (res)
            res[i] = (uint8_t)r;
    }
    return hits;
}

/* k > 8: one key per zmm, its 16 lanes masked to k; vpermd reads exactly the 4 index bits. */
static size_t blocked_test_avx512(const uint8_t *data, uint64_t nlines, unsigned k,
                                  const uint64_t *h, size_t n, size_t avail, uint8_t *res)
{
    if (k <= 8)
        return blocked_test_pairs(data, nlines, k, h, n, avail, res);
    const __m512i mul = _mm512_loadu_si512(bl_blocked_mul);
    const unsigned active = (1u << k) - 1;
    bl_window win;
    bl_window_start(&win, data, nlines, h, avail, false);
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        const __m512i line = _mm512_load_si512(bl_window_next(&win, data, nlines, h, i, avail, false));
        const __m512i x = _mm512_mullo_epi32(_mm512_set1_epi32((int)(uint32_t)h[i]), mul);
        const unsigned miss = blocked_missing(x, _mm512_permutexvar_epi32(_mm512_srli_epi32(x, 28), line));
        const int r = (miss & active) == 0;
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
