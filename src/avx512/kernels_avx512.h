/* SPDX-License-Identifier: MIT */
/* The AVX-512 kernel's operations defined outside kernels_avx512.c. */
#ifndef BL_KERNELS_AVX512_H
#define BL_KERNELS_AVX512_H

#include "../internal.h"

/* XXH64 of byte keys [from, from + count) into out, eight keys per zmm; keys before `limit` are
 * valid and prefetched ahead (hash_xxh64_avx512.c). Same values as XXH64(key, len, seed). */
void bl_hash_bytes_xxh64_avx512(uint64_t seed, const void *const *bytes, const size_t *lens,
                                size_t from, size_t count, size_t limit, uint64_t *out);

/* XXH3 of byte keys likewise, keys of 32-128 bytes eight per zmm (hash_xxh3_avx512.c). Same
 * values as XXH3_64bits_withSeed(key, len, seed). */
void bl_hash_bytes_xxh3_avx512(uint64_t seed, const void *const *bytes, const size_t *lens,
                               size_t from, size_t count, size_t limit, uint64_t *out);

#endif
