/* SPDX-License-Identifier: MIT */
/* Hash stage for byte-string keys: XXH3, XXH64 and Murmur3 x64 128 (Guava's hash). */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "pipeline.h"

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

/* xxHash reads nothing when len is 0, but it is documented for a non-NULL pointer. */
static const uint8_t empty_key[1] = {0};

/* Keys over 16 bytes: their paths save and restore registers, which the short ones need not. */
__attribute__((noinline)) static uint64_t xxh3_bytes_long(const void *key, size_t len, uint64_t seed)
{
    return XXH3_64bits_withSeed(key, len, seed);
}

/* The blocked layouts' hash of one byte key. Keys up to 16 bytes need no saved registers, so
 * the long paths sit out of line: with both in one function behind a switch over the schemes,
 * the hash took 1.1 ns of the 6.0 per single 8-byte query at 2^16. */
uint64_t bl_xxh3_bytes(const void *key, size_t len, uint64_t seed)
{
    if (len > 16)
        return xxh3_bytes_long(key, len, seed);
    return XXH3_64bits_withSeed(key != NULL ? key : empty_key, len, seed);
}

/* Keys of 32 bytes or more: XXH64's stripe loop, whose registers the short keys need not save. */
__attribute__((noinline)) static uint64_t xxh64_bytes_long(const void *key, size_t len, uint64_t seed)
{
    return XXH64(key, len, seed);
}

/* Parquet's hash of one byte key, split the same way. */
uint64_t bl_xxh64_bytes(const void *key, size_t len, uint64_t seed)
{
    if (len >= 32)
        return xxh64_bytes_long(key, len, seed);
    return XXH64(key != NULL ? key : empty_key, len, seed);
}

/* Guava's scheme keeps h1, the low 64 bits. */
uint64_t bl_murmur3_low64(const void *key, size_t len, uint64_t seed)
{
    uint64_t out[2];
    bl_murmur3_x64_128(key != NULL ? key : empty_key, len, (uint32_t)seed, out);
    return out[0];
}

/* ---- Batches of byte keys ------------------------------------------------------------------ */

typedef enum bl_bytes_hash {
    BL_BYTES_XXH3,        /* seed 0: XXH3_64bits, equal to XXH3_64bits_withSeed(.., 0) */
    BL_BYTES_XXH3_SEEDED,
    BL_BYTES_XXH64,
    BL_BYTES_MURMUR3,
} bl_bytes_hash;

#define BL_BYTES_INLINE static inline __attribute__((always_inline))

BL_BYTES_INLINE uint64_t bytes_hash(bl_bytes_hash kind, uint64_t seed, const void *key, size_t len)
{
    switch (kind) {
    /* With seed 0 the secret's words are constants the compiler folds: ~0.3 ns/key in cache. */
    case BL_BYTES_XXH3: return XXH3_64bits(key, len);
    case BL_BYTES_XXH3_SEEDED: return XXH3_64bits_withSeed(key, len, seed);
    case BL_BYTES_XXH64: return XXH64(key, len, seed);
    case BL_BYTES_MURMUR3: break;
    }
    uint64_t out[2];
    bl_murmur3_x64_128(key, len, (uint32_t)seed, out);
    return out[0];
}

/* Key i's hash. A NULL key hashes as the empty key whatever its length, so that nothing is read
 * at it (a query answers a NULL key of non-zero length itself: bl_pipeline). xxHash reads
 * nothing when len is 0, but it is documented for a non-NULL pointer. */
BL_BYTES_INLINE uint64_t hash_key_at(bl_bytes_hash kind, uint64_t seed, const void *const *bytes,
                                     const size_t *lens, size_t i)
{
    static const uint8_t empty[1] = {0};
    const void *key = bytes[i];
    return bytes_hash(kind, seed, key != NULL ? key : empty, key != NULL ? lens[i] : 0);
}

BL_BYTES_INLINE void hash_bytes_run(bl_bytes_hash kind, uint64_t seed, const void *const *bytes,
                                    const size_t *lens, size_t from, size_t end, size_t limit,
                                    uint64_t *out)
{
    size_t i = from;
    /* Prefetch while key i + PREFETCH exists; the last keys before `limit` were prefetched. */
    size_t pf_end = limit > BL_KEY_PREFETCH ? limit - BL_KEY_PREFETCH : 0;
    if (pf_end > end)
        pf_end = end;
    for (; i < pf_end; i++) {
        bl_prefetch_key(bytes, lens, i + BL_KEY_PREFETCH);
        out[i - from] = hash_key_at(kind, seed, bytes, lens, i);
    }
    for (; i < end; i++)
        out[i - from] = hash_key_at(kind, seed, bytes, lens, i);
}

/* gcc keeps the seeded XXH3 out of line unless told; inlined it is ~0.2 ns/key faster in cache.
 * flatten stops at xxHash's noinline long-key paths. */
static __attribute__((flatten)) void hash_xxh3_seeded(uint64_t seed, const void *const *bytes,
                                                      const size_t *lens, size_t from, size_t end,
                                                      size_t limit, uint64_t *out)
{
    hash_bytes_run(BL_BYTES_XXH3_SEEDED, seed, bytes, lens, from, end, limit, out);
}

void bl_hash_bytes_batch(bl_hash_scheme scheme, uint64_t seed, const void *const *bytes,
                         const size_t *lens, size_t from, size_t count, size_t limit,
                         uint64_t *out)
{
    /* One loop per scheme, so the per-key switch folds away. */
    const size_t end = from + count;
    switch (scheme) {
    case BL_HASH_XXH3:
        if (seed == 0)
            hash_bytes_run(BL_BYTES_XXH3, 0, bytes, lens, from, end, limit, out);
        else
            hash_xxh3_seeded(seed, bytes, lens, from, end, limit, out);
        return;
    case BL_HASH_XXH64:
        hash_bytes_run(BL_BYTES_XXH64, seed, bytes, lens, from, end, limit, out);
        return;
    case BL_HASH_MURMUR3_128:
        hash_bytes_run(BL_BYTES_MURMUR3, seed, bytes, lens, from, end, limit, out);
        return;
    }
    for (size_t i = from; i < end; i++) /* unknown scheme: the single-key function's answer */
        out[i - from] = bl_hash_bytes_scheme(scheme, seed, bytes[i], bytes[i] ? lens[i] : 0);
}
