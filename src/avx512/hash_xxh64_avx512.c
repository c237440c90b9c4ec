/* SPDX-License-Identifier: MIT */
/* XXH64 of byte keys, eight keys at a time, one per 64-bit lane (the sbbf layout's hash, which
 * Parquet fixes). XXH64 is 64-bit multiplies, rotates and adds, all of which AVX-512 has for
 * eight lanes; a scalar core has one multiplier, and a ~50-byte key takes 28 multiplies.
 * Measured on an AMD Zen 4 (in cache, alternated with xxHash's XXH64): 5.9 against 17.3 ns/key
 * for 48-53-byte keys, 10.0 against 18.8 for lengths spread over 20-200 (a group of eight runs
 * as long as its longest key). Groups with a key under 4 bytes go to the portable loop (with
 * them in the group, lengths spread over 0-16 bytes took 6.95 against its 6.17 ns/key; 1-40
 * bytes 10.65 against 9.25). Loading stripes with XXH3's loader (hash_groups.h) instead of a
 * vpermt2q transpose of pointers stored in an array: 6.9 -> 5.4 ns/key for 48-53-byte keys, 14.7
 * -> 9.1 for 20-200. Same values as XXH64 for every length: tests/test_parts.c. */
#include "avx512_intrin.h"

#include "hash_groups.h"
#include "kernels_avx512.h"

#define BL_INLINE static inline __attribute__((always_inline))

BL_INLINE __m512i set64(uint64_t c) { return _mm512_set1_epi64((long long)c); }

BL_INLINE __m512i mul64(__m512i a, uint64_t c) { return _mm512_mullo_epi64(a, set64(c)); }

/* XXH64's round: rotl(acc + input * P2, 31) * P1. */
BL_INLINE __m512i round64(__m512i acc, __m512i input)
{
    return mul64(_mm512_rol_epi64(_mm512_add_epi64(acc, mul64(input, BL_XXH64_P2)), 31),
                 BL_XXH64_P1);
}

BL_INLINE __m512i merge_round(__m512i h, __m512i v)
{
    h = _mm512_xor_si512(h, round64(_mm512_setzero_si512(), v));
    return _mm512_add_epi64(mul64(h, BL_XXH64_P1), set64(BL_XXH64_P4));
}

/* The 32-byte stripes of the lanes in `big` (len >= 32): the four accumulators, merged.
 * Advances p and rem past the stripes. */
BL_INLINE __m512i stripes(const void *const *bytes, __mmask8 big, __m512i seed, __m512i *p,
                          __m512i *rem)
{
    __m512i v1 = _mm512_add_epi64(seed, set64(BL_XXH64_P1 + BL_XXH64_P2));
    __m512i v2 = _mm512_add_epi64(seed, set64(BL_XXH64_P2)), v3 = seed;
    __m512i v4 = _mm512_sub_epi64(seed, set64(BL_XXH64_P1));
    size_t off = 0;
    for (__mmask8 m = big; m; m = _mm512_mask_cmpge_epu64_mask(m, *rem, set64(32)), off += 32) {
        __m512i w[4]; /* lanes that are done load the dummy */
        bl_load_words(bytes, NULL, m, false, (ptrdiff_t)off, w);
        v1 = _mm512_mask_mov_epi64(v1, m, round64(v1, w[0]));
        v2 = _mm512_mask_mov_epi64(v2, m, round64(v2, w[1]));
        v3 = _mm512_mask_mov_epi64(v3, m, round64(v3, w[2]));
        v4 = _mm512_mask_mov_epi64(v4, m, round64(v4, w[3]));
        *p = _mm512_mask_add_epi64(*p, m, *p, set64(32));
        *rem = _mm512_mask_sub_epi64(*rem, m, *rem, set64(32));
    }
    __m512i h = _mm512_add_epi64(_mm512_add_epi64(_mm512_rol_epi64(v1, 1), _mm512_rol_epi64(v2, 7)),
                                 _mm512_add_epi64(_mm512_rol_epi64(v3, 12),
                                                  _mm512_rol_epi64(v4, 18)));
    h = merge_round(h, v1);
    h = merge_round(h, v2);
    h = merge_round(h, v3);
    return merge_round(h, v4);
}

/* XXH64's tail of every lane: 8-byte steps, a 4-byte step, then single bytes. Every read lies
 * inside its key: words at p while rem allows them, the last bytes taken from the key's last 4
 * (every key has 4 or more). Lanes a step does not apply to read nothing. */
BL_INLINE __m512i tail(__m512i h, __m512i p, __m512i rem, __m512i end)
{
    for (__mmask8 m = _mm512_cmpge_epu64_mask(rem, set64(8)); m;
         m = _mm512_mask_cmpge_epu64_mask(m, rem, set64(8))) {
        const __m512i k1 = round64(_mm512_setzero_si512(),
                                   _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), m, p, NULL, 1));
        const __m512i next = _mm512_add_epi64(
            mul64(_mm512_rol_epi64(_mm512_xor_si512(h, k1), 27), BL_XXH64_P1), set64(BL_XXH64_P4));
        h = _mm512_mask_mov_epi64(h, m, next);
        p = _mm512_mask_add_epi64(p, m, p, set64(8));
        rem = _mm512_mask_sub_epi64(rem, m, rem, set64(8));
    }
    __mmask8 m = _mm512_cmpge_epu64_mask(rem, set64(4));
    if (m) {
        const __m512i w = _mm512_cvtepu32_epi64(
            _mm512_mask_i64gather_epi32(_mm256_setzero_si256(), m, p, NULL, 1));
        const __m512i next =
            _mm512_add_epi64(mul64(_mm512_rol_epi64(_mm512_xor_si512(h, mul64(w, BL_XXH64_P1)), 23),
                                   BL_XXH64_P2),
                             set64(BL_XXH64_P3));
        h = _mm512_mask_mov_epi64(h, m, next);
        rem = _mm512_mask_sub_epi64(rem, m, rem, set64(4));
    }
    m = _mm512_cmpgt_epu64_mask(rem, _mm512_setzero_si512());
    if (m) {
        /* rem <= 3 bytes: the top rem bytes of the key's last four, shifted down */
        __m512i last = _mm512_cvtepu32_epi64(_mm512_mask_i64gather_epi32(
            _mm256_setzero_si256(), m, _mm512_sub_epi64(end, set64(4)), NULL, 1));
        last = _mm512_srlv_epi64(last, _mm512_slli_epi64(_mm512_sub_epi64(set64(4), rem), 3));
        for (unsigned j = 0; j < 3 && m; j++) {
            const __m512i b = _mm512_and_si512(last, set64(0xff));
            const __m512i next = mul64(
                _mm512_rol_epi64(_mm512_xor_si512(h, mul64(b, BL_XXH64_P5)), 11), BL_XXH64_P1);
            h = _mm512_mask_mov_epi64(h, m, next);
            last = _mm512_srli_epi64(last, 8);
            m = _mm512_mask_cmpgt_epu64_mask(m, rem, set64(j + 1));
        }
    }
    return h;
}

/* XXH64 of eight keys of at least 4 bytes into out[0..8). */
BL_INLINE void xxh64x8(const void *const *bytes, const size_t *lens, uint64_t seed, uint64_t *out)
{
    const __m512i len = _mm512_loadu_si512(lens);
    const __m512i start = _mm512_loadu_si512((const void *)bytes);
    const __m512i vseed = set64(seed);
    const __mmask8 big = _mm512_cmpge_epu64_mask(len, set64(32));
    __m512i p = start, rem = len;
    __m512i h = _mm512_add_epi64(vseed, set64(BL_XXH64_P5));
    if (big)
        h = _mm512_mask_mov_epi64(h, big, stripes(bytes, big, vseed, &p, &rem));
    h = tail(_mm512_add_epi64(h, len), p, rem, _mm512_add_epi64(start, len));
    h = _mm512_xor_si512(h, _mm512_srli_epi64(h, 33));
    h = mul64(h, BL_XXH64_P2);
    h = _mm512_xor_si512(h, _mm512_srli_epi64(h, 29));
    h = mul64(h, BL_XXH64_P3);
    _mm512_storeu_si512(out, _mm512_xor_si512(h, _mm512_srli_epi64(h, 32)));
}

/* The group hasher for bl_hash_byte_groups: ctx is the seed. */
BL_INLINE void xxh64_group(const void *const *bytes, const size_t *lens, const void *ctx,
                           uint64_t *out)
{
    xxh64x8(bytes, lens, *(const uint64_t *)ctx, out);
}

void bl_hash_bytes_xxh64_avx512(uint64_t seed, const void *const *bytes, const size_t *lens,
                                size_t from, size_t count, size_t limit, uint64_t *out)
{
    /* the tail step reads a key's last 4 bytes */
    bl_hash_byte_groups(BL_HASH_XXH64, seed, 4, SIZE_MAX, xxh64_group, &seed, bytes, lens, from,
                        count, limit, out);
}
