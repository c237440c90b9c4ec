/* SPDX-License-Identifier: MIT */
/* What the AVX-512 byte-key hashes share: loading eight keys' bytes as word vectors, and the loop
 * that sends groups of eight keys whose lengths the vector handles to it, runs of other groups to
 * the portable loop (hash.c) whole. Hashing the other keys one by one beside a partly filled
 * vector measured slower than that loop on mixed lengths (bench/NOTES.md). */
#ifndef BL_HASH_GROUPS_H
#define BL_HASH_GROUPS_H

#include "avx512_intrin.h"

#include "../pipeline.h"

/* Lengths (and XXH64's key pointers) are loaded eight to a zmm as 64-bit lanes, which they are
 * not on x32 (ILP32 x86-64), where a CMake x86_64 build would otherwise compile wrong hashes. */
_Static_assert(sizeof(size_t) == 8 && sizeof(void *) == 8,
               "the AVX-512 byte-key hashes need 64-bit size_t and pointers");

#define BL_GROUPS_INLINE static inline __attribute__((always_inline))

/* ---- Loading eight keys' bytes ------------------------------------------------------------ */

/* Two keys' 32 bytes in one zmm: a's in the low half, b's in the high. */
BL_GROUPS_INLINE __m512i bl_load_pair(const uint8_t *a, const uint8_t *b)
{
    return _mm512_inserti64x4(
        _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(const void *)a)),
        _mm256_loadu_si256((const __m256i *)(const void *)b), 1);
}

/* Bytes nobody's key: what lanes outside a mask load. */
static const uint8_t bl_dummy_bytes[32] __attribute__((aligned(32)));

/* Where lane l's 32-byte load starts: `off` bytes from the key's start, or from its end when
 * `from_end` (lens is read only then); the dummy for lanes outside m. Computed in general
 * registers, which are idle here: pointers computed in a vector and stored for the loads cost a
 * stalled store-to-load forward (3.4 against 2.7 ns/key for URL keys in cache). */
BL_GROUPS_INLINE const uint8_t *bl_lane_at(const void *const *bytes, const size_t *lens,
                                           __mmask8 m, unsigned l, bool from_end, ptrdiff_t off)
{
    const uintptr_t p = (uintptr_t)bytes[l] + (from_end ? lens[l] : 0) + (uintptr_t)off;
    return (m >> l) & 1 ? (const uint8_t *)p : bl_dummy_bytes;
}

/* The 32 bytes each lane loads (bl_lane_at), as four vectors: word w of lane l in lane l of w[w].
 * In-lane unpacks and 128-bit lane shuffles, cheaper on Zen 4 than vpermt2q (2.49 against 2.66
 * ns/key for 48-53-byte keys in cache). The pairs are chosen so that the result comes out in lane
 * order. */
BL_GROUPS_INLINE void bl_load_words(const void *const *bytes, const size_t *lens, __mmask8 m,
                                   bool from_end, ptrdiff_t off, __m512i w[4])
{
#define BL_AT(l) bl_lane_at(bytes, lens, m, (l), from_end, off)
    const __m512i z0 = bl_load_pair(BL_AT(0), BL_AT(2)), z1 = bl_load_pair(BL_AT(1), BL_AT(3));
    const __m512i z2 = bl_load_pair(BL_AT(4), BL_AT(6)), z3 = bl_load_pair(BL_AT(5), BL_AT(7));
    /* per 128-bit lane: (word 0 or 2 of lanes x, x + 1) and (word 1 or 3 of them) */
    const __m512i even01 = _mm512_unpacklo_epi64(z0, z1), odd01 = _mm512_unpackhi_epi64(z0, z1);
    const __m512i even45 = _mm512_unpacklo_epi64(z2, z3), odd45 = _mm512_unpackhi_epi64(z2, z3);
    w[0] = _mm512_shuffle_i64x2(even01, even45, 0x88); /* 128-bit lanes 0, 2 of each */
    w[2] = _mm512_shuffle_i64x2(even01, even45, 0xdd); /* 128-bit lanes 1, 3 of each */
    w[1] = _mm512_shuffle_i64x2(odd01, odd45, 0x88);
    w[3] = _mm512_shuffle_i64x2(odd01, odd45, 0xdd);
#undef BL_AT
}

/* ---- The loop over groups ------------------------------------------------------------------ */

/* Eight keys' hashes into out[0..8); every length in the vector's range. `ctx`: the hasher's. */
typedef void (*bl_hash8_fn)(const void *const *bytes, const size_t *lens, const void *ctx,
                            uint64_t *out);

/* Whether all eight keys have a pointer and a length in [min_len, max_len]. A NULL pointer goes
 * to the portable loop, which hashes it as the empty key whatever its length (a query answers
 * such a key itself: bl_pipeline). */
BL_GROUPS_INLINE bool bl_group_fits(const void *const *bytes, const size_t *lens, size_t min_len,
                                    size_t max_len)
{
    const __m512i len = _mm512_loadu_si512(lens), ptr = _mm512_loadu_si512(bytes);
    const __mmask8 fits =
        _mm512_cmple_epu64_mask(_mm512_sub_epi64(len, _mm512_set1_epi64((long long)min_len)),
                                _mm512_set1_epi64((long long)(max_len - min_len)));
    return _mm512_mask_test_epi64_mask(fits, ptr, ptr) == 0xff;
}

/* Byte keys [from, from + count) into out (keys before `limit` valid and prefetched ahead), with
 * `hash8` where a group fits [min_len, max_len], else with the portable loop of `scheme`. Inlined
 * into each hasher, so that hash8 is a direct call. */
BL_GROUPS_INLINE void
bl_hash_byte_groups(bl_hash_scheme scheme, uint64_t seed, size_t min_len, size_t max_len,
                    bl_hash8_fn hash8, const void *ctx, const void *const *bytes,
                    const size_t *lens, size_t from, size_t count, size_t limit, uint64_t *out)
{
    const size_t end = from + count;
    size_t i = from;
    while (i + 8 <= end) {
        if (bl_group_fits(bytes + i, lens + i, min_len, max_len)) {
            for (size_t j = i + BL_KEY_PREFETCH; j < i + 8 + BL_KEY_PREFETCH && j < limit; j++)
                bl_prefetch_key(bytes, lens, j);
            hash8(bytes + i, lens + i, ctx, out + (i - from));
            i += 8;
            continue;
        }
        size_t run = i + 8;
        while (run + 8 <= end && !bl_group_fits(bytes + run, lens + run, min_len, max_len))
            run += 8;
        bl_hash_bytes_batch(scheme, seed, bytes, lens, i, run - i, limit, out + (i - from));
        i = run;
    }
    if (i < end)
        bl_hash_bytes_batch(scheme, seed, bytes, lens, i, end - i, limit, out + (i - from));
}

#endif
