/* SPDX-License-Identifier: MIT */
/* Hash stage for byte-string keys: XXH3, XXH64 and Murmur3 x64 128 (Guava's hash). */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "internal.h"

static uint64_t read_le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v; /* little-endian target (internal.h) */
}

static uint64_t fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

/* Murmur3 x64 128 (Austin Appleby's algorithm, as Guava's Hashing.murmur3_128 computes it). */
void bl_murmur3_x64_128(const void *key, size_t len, uint32_t seed, uint64_t out[2])
{
    const uint64_t c1 = 0x87c37b91114253d5ULL, c2 = 0x4cf5ad432745937fULL;
    const uint8_t *p = key;
    uint64_t h1 = seed, h2 = seed;
    const size_t nblocks = len / 16;
    for (size_t i = 0; i < nblocks; i++, p += 16) {
        uint64_t k1 = read_le64(p), k2 = read_le64(p + 8);
        k1 *= c1; k1 = bl_rotl64(k1, 31); k1 *= c2; h1 ^= k1;
        h1 = bl_rotl64(h1, 27); h1 += h2; h1 = h1 * 5 + 0x52dce729;
        k2 *= c2; k2 = bl_rotl64(k2, 33); k2 *= c1; h2 ^= k2;
        h2 = bl_rotl64(h2, 31); h2 += h1; h2 = h2 * 5 + 0x38495ab5;
    }
    uint64_t k1 = 0, k2 = 0;
    const size_t tail = len & 15;
    for (size_t i = tail; i > 8; i--)
        k2 |= (uint64_t)p[i - 1] << (8 * (i - 9));
    if (tail > 8) {
        k2 *= c2; k2 = bl_rotl64(k2, 33); k2 *= c1; h2 ^= k2;
    }
    for (size_t i = tail < 8 ? tail : 8; i > 0; i--)
        k1 |= (uint64_t)p[i - 1] << (8 * (i - 1));
    if (tail > 0) {
        k1 *= c1; k1 = bl_rotl64(k1, 31); k1 *= c2; h1 ^= k1;
    }
    h1 ^= (uint64_t)len;
    h2 ^= (uint64_t)len;
    h1 += h2;
    h2 += h1;
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 += h2;
    h2 += h1;
    out[0] = h1;
    out[1] = h2;
}

uint64_t bl_hash_bytes_scheme(bl_hash_scheme scheme, uint64_t seed, const void *key, size_t len)
{
    /* xxHash reads nothing when len is 0, but it is documented for a non-NULL pointer. */
    static const uint8_t empty[1] = {0};
    if (key == NULL)
        key = empty;
    switch (scheme) {
    case BL_HASH_XXH3: return XXH3_64bits_withSeed(key, len, seed);
    case BL_HASH_XXH64: return XXH64(key, len, seed);
    case BL_HASH_MURMUR3_128: {
        uint64_t out[2];
        bl_murmur3_x64_128(key, len, (uint32_t)seed, out);
        return out[0];
    }
    }
    return 0;
}
