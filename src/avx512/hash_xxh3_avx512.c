/* SPDX-License-Identifier: MIT */
/* XXH3 of byte keys of 32-128 bytes (URLs, paths, most text keys), eight keys at a time, one per
 * 64-bit lane: the batched byte-key hash of the XXH3 layouts (blocked, counting, scalable). XXH3
 * hashes such a key as 2-8 16-byte pieces, each folded by a 64x64->128-bit multiply (low half
 * XOR high half), taken alternately from the key's start and its end. A scalar core has one
 * such multiplier; AVX-512 builds eight of them from 32x32->64-bit vpmuludq. Groups of eight
 * with any other length go to xxHash. Same values as XXH3_64bits_withSeed for every length:
 * tests/test_parts.c.
 * Measured on an AMD Zen 4 (bench_filters, blocked, 10 bits/key, ~50-byte URL keys, three runs
 * alternated with xxHash's loop): batched queries 5.34-5.74 -> 3.89-3.98 ns/key at 2^16 keys and
 * 6.49-6.95 -> 5.95-6.22 at 2^20, where the key bytes stream from memory (~67 bytes a key with
 * pointer and length: ~2.9 ns/key at this host's 23 GB/s) and bound the hash stage. */
#define XXH_INLINE_ALL /* for XXH3_kSecret and XXH_PRIME64_1 */
#include <xxhash.h>

#include "avx512_intrin.h"

#include "hash_groups.h"
#include "kernels_avx512.h"

#define BL_INLINE static inline __attribute__((always_inline))

enum {
    VEC_MIN_LEN = 32,  /* shorter keys would read outside themselves (17-31) or are another class */
    VEC_MAX_LEN = 128, /* XXH3's 17-128-byte class (32 belongs to it too) */
};

BL_INLINE __m512i set64(uint64_t c) { return _mm512_set1_epi64((long long)c); }

/* lo64(a * b) ^ hi64(a * b), the 128-bit product's halves folded, in every lane. The high half
 * from four 32x32-bit products; the low half from vpmullq, which is cheaper than assembling it. */
BL_INLINE __m512i mul128_fold(__m512i a, __m512i b)
{
    const __m512i low32 = set64(0xffffffffu);
    const __m512i ah = _mm512_srli_epi64(a, 32), bh = _mm512_srli_epi64(b, 32);
    const __m512i ll = _mm512_mul_epu32(a, b), lh = _mm512_mul_epu32(a, bh);
    const __m512i hl = _mm512_mul_epu32(ah, b), hh = _mm512_mul_epu32(ah, bh);
    /* neither sum can carry out of 64 bits: (2^32 - 1)^2 + 2 (2^32 - 1) < 2^64 */
    const __m512i t = _mm512_add_epi64(hl, _mm512_srli_epi64(ll, 32));
    const __m512i u = _mm512_add_epi64(_mm512_and_si512(t, low32), lh);
    const __m512i hi = _mm512_add_epi64(_mm512_add_epi64(hh, _mm512_srli_epi64(t, 32)),
                                        _mm512_srli_epi64(u, 32));
    return _mm512_xor_si512(_mm512_mullo_epi64(a, b), hi);
}

/* XXH3's mix16B: the 16 bytes in words (lo, hi) against secret words (s[0], s[1]), the seed
 * already folded into them (s[0] + seed, s[1] - seed). */
BL_INLINE __m512i mix16(__m512i lo, __m512i hi, const __m512i s[2])
{
    return mul128_fold(_mm512_xor_si512(lo, s[0]), _mm512_xor_si512(hi, s[1]));
}

/* The secret's first 16 words, each broadcast, with the seed folded in as mix16B does. */
typedef struct secret16 {
    __m512i s[8][2];
} secret16;

static void secret16_init(secret16 *sec, uint64_t seed)
{
    for (unsigned i = 0; i < 8; i++) {
        uint64_t w[2];
        memcpy(w, XXH3_kSecret + 16 * i, sizeof w);
        sec->s[i][0] = set64(w[0] + seed);
        sec->s[i][1] = set64(w[1] - seed);
    }
}

/* XXH3 of eight keys of VEC_MIN_LEN..VEC_MAX_LEN bytes into out[0..8). */
BL_INLINE void xxh3x8(const void *const *bytes, const size_t *lens, const secret16 *sec,
                      uint64_t *out)
{
    const __m512i len = _mm512_loadu_si512(lens);
    __m512i f[4], e[4]; /* bytes [0, 32) and [len - 32, len) */
    bl_load_words(bytes, lens, 0xff, false, 0, f);
    bl_load_words(bytes, lens, 0xff, true, -32, e);
    __m512i acc = _mm512_mullo_epi64(len, set64(XXH_PRIME64_1));
    acc = _mm512_add_epi64(acc, _mm512_add_epi64(mix16(f[0], f[1], sec->s[0]),
                                                 mix16(e[2], e[3], sec->s[1])));
    const __mmask8 over32 = _mm512_cmpgt_epu64_mask(len, set64(32));
    acc = _mm512_mask_add_epi64(acc, over32, acc,
                                _mm512_add_epi64(mix16(f[2], f[3], sec->s[2]),
                                                 mix16(e[0], e[1], sec->s[3])));
    const __mmask8 over64 = _mm512_cmpgt_epu64_mask(len, set64(64));
    if (over64) { /* bytes [32, 64) and [len - 64, len - 32) */
        bl_load_words(bytes, lens, over64, false, 32, f);
        bl_load_words(bytes, lens, over64, true, -64, e);
        acc = _mm512_mask_add_epi64(acc, over64, acc,
                                    _mm512_add_epi64(mix16(f[0], f[1], sec->s[4]),
                                                     mix16(e[2], e[3], sec->s[5])));
        const __mmask8 over96 = _mm512_cmpgt_epu64_mask(len, set64(96));
        acc = _mm512_mask_add_epi64(acc, over96, acc,
                                    _mm512_add_epi64(mix16(f[2], f[3], sec->s[6]),
                                                     mix16(e[0], e[1], sec->s[7])));
    }
    /* XXH3's avalanche */
    acc = _mm512_xor_si512(acc, _mm512_srli_epi64(acc, 37));
    acc = _mm512_mullo_epi64(acc, set64(0x165667919E3779F9ULL));
    _mm512_storeu_si512(out, _mm512_xor_si512(acc, _mm512_srli_epi64(acc, 32)));
}

/* The group hasher for bl_hash_byte_groups: ctx is the secret16. */
BL_INLINE void xxh3_group(const void *const *bytes, const size_t *lens, const void *ctx,
                          uint64_t *out)
{
    xxh3x8(bytes, lens, ctx, out);
}

void bl_hash_bytes_xxh3_avx512(uint64_t seed, const void *const *bytes, const size_t *lens,
                               size_t from, size_t count, size_t limit, uint64_t *out)
{
    secret16 sec;
    secret16_init(&sec, seed);
    bl_hash_byte_groups(BL_HASH_XXH3, seed, VEC_MIN_LEN, VEC_MAX_LEN, xxh3_group, &sec, bytes,
                        lens, from, count, limit, out);
}
