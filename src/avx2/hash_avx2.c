/* SPDX-License-Identifier: MIT */
/* The AVX2 kernel's batched hash stage of uint64_t keys: XXH3 (blocked, classic, counting) and
 * XXH64 (sbbf, which hashes a key's 8 little-endian bytes as Parquet hashes INT64). */
#include "hash_avx2.h"
#include "kernels_avx2.h"

/* Six keys a step: four in a ymm, two on the scalar ALUs, which the vector hash leaves idle
 * (AVX2 has no 64-bit multiply: the vector form costs ~10 instructions a key, the scalar form
 * ~15 on other units). On a Zen 5, batched u64 queries in cache (blocked, which hash in this
 * stage up to 16 MiB of payload; counting) took 0.89x and 0.92x the time of the all-vector
 * loop, adds 0.92x and 0.95x (bench_ab, alternated). Eight in ymm and two scalar: queries 0.92x
 * but adds 1.15x; the stage alone, four and four: 1.14x, as the scalar side then sets the pace. */
void bl_hash_u64_xxh3_avx2(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out)
{
    const uint64_t flip = bl_xxh3_u64_flip(seed);
    const __m256i vflip = _mm256_set1_epi64x((long long)flip);
    size_t i = 0;
    for (; i + 6 <= n; i += 6) {
        _mm256_storeu_si256((__m256i *)(void *)(out + i), bl_avx2_xxh3_u64x4(keys + i, vflip));
        out[i + 4] = bl_xxh3_u64_flipped(keys[i + 4], flip);
        out[i + 5] = bl_xxh3_u64_flipped(keys[i + 5], flip);
    }
    for (; i < n; i++)
        out[i] = bl_xxh3_u64_flipped(keys[i], flip);
}

/* Five keys a step, one of them in scalar registers, for the same reason: sbbf batched u64
 * queries at 2^12-2^20 0.94x the time of the all-vector loop, adds 0.91-0.93x (Zen 5,
 * bench_ab); four and two: queries 0.95-1.01x. */
void bl_hash_u64_xxh64_avx2(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out)
{
    const __m256i h0 = _mm256_set1_epi64x((long long)(seed + BL_XXH64_P5 + 8));
    const __m256i p4 = _mm256_set1_epi64x((long long)BL_XXH64_P4);
    size_t i = 0;
    for (; i + 5 <= n; i += 5) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(keys + i));
        __m256i k1 =
            bl_avx2_mul64c(BL_AVX2_ROTL64(bl_avx2_mul64c(v, BL_XXH64_P2), 31), BL_XXH64_P1);
        __m256i h = _mm256_xor_si256(h0, k1);
        h = _mm256_add_epi64(bl_avx2_mul64c(BL_AVX2_ROTL64(h, 27), BL_XXH64_P1), p4);
        h = _mm256_xor_si256(h, _mm256_srli_epi64(h, 33));
        h = bl_avx2_mul64c(h, BL_XXH64_P2);
        h = _mm256_xor_si256(h, _mm256_srli_epi64(h, 29));
        h = bl_avx2_mul64c(h, BL_XXH64_P3);
        h = _mm256_xor_si256(h, _mm256_srli_epi64(h, 32));
        _mm256_storeu_si256((__m256i *)(void *)(out + i), h);
        out[i + 4] = bl_xxh64_u64(keys[i + 4], seed);
    }
    for (; i < n; i++)
        out[i] = bl_xxh64_u64(keys[i], seed);
}
