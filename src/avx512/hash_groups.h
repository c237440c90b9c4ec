/* SPDX-License-Identifier: MIT */
/* The loop shared by the AVX-512 byte-key hashes: groups of eight keys whose lengths the vector
 * handles go to it, runs of other groups to the portable loop (hash.c) whole. Hashing the other
 * keys one by one beside a partly filled vector measured slower than that loop on mixed lengths
 * (bench/NOTES.md). */
#ifndef BL_HASH_GROUPS_H
#define BL_HASH_GROUPS_H

#include <immintrin.h>

#include "../pipeline.h"

/* Lengths (and XXH64's key pointers) are loaded eight to a zmm as 64-bit lanes, which they are
 * not on x32 (ILP32 x86-64), where a CMake x86_64 build would otherwise compile wrong hashes. */
_Static_assert(sizeof(size_t) == 8 && sizeof(void *) == 8,
               "the AVX-512 byte-key hashes need 64-bit size_t and pointers");

/* Eight keys' hashes into out[0..8); every length in the vector's range. `ctx`: the hasher's. */
typedef void (*bl_hash8_fn)(const void *const *bytes, const size_t *lens, const void *ctx,
                            uint64_t *out);

/* Whether all eight lengths lie in [min_len, max_len]. */
static inline __attribute__((always_inline)) bool bl_group_fits(const size_t *lens, size_t min_len,
                                                                size_t max_len)
{
    const __m512i len = _mm512_loadu_si512(lens);
    return _mm512_cmple_epu64_mask(_mm512_sub_epi64(len, _mm512_set1_epi64((long long)min_len)),
                                   _mm512_set1_epi64((long long)(max_len - min_len))) == 0xff;
}

/* Byte keys [from, from + count) into out (keys before `limit` valid and prefetched ahead), with
 * `hash8` where a group fits [min_len, max_len], else with the portable loop of `scheme`. Inlined
 * into each hasher, so that hash8 is a direct call. */
static inline __attribute__((always_inline)) void
bl_hash_byte_groups(bl_hash_scheme scheme, uint64_t seed, size_t min_len, size_t max_len,
                    bl_hash8_fn hash8, const void *ctx, const void *const *bytes,
                    const size_t *lens, size_t from, size_t count, size_t limit, uint64_t *out)
{
    const size_t end = from + count;
    size_t i = from;
    while (i + 8 <= end) {
        if (bl_group_fits(lens + i, min_len, max_len)) {
            for (size_t j = i + BL_KEY_PREFETCH; j < i + 8 + BL_KEY_PREFETCH && j < limit; j++)
                bl_prefetch_key(bytes, lens, j);
            hash8(bytes + i, lens + i, ctx, out + (i - from));
            i += 8;
            continue;
        }
        size_t run = i + 8;
        while (run + 8 <= end && !bl_group_fits(lens + run, min_len, max_len))
            run += 8;
        bl_hash_bytes_batch(scheme, seed, bytes, lens, i, run - i, limit, out + (i - from));
        i = run;
    }
    if (i < end)
        bl_hash_bytes_batch(scheme, seed, bytes, lens, i, end - i, limit, out + (i - from));
}

#endif
