/* SPDX-License-Identifier: MIT */
/* The AVX2 kernel's operations, shared with the AVX-512 table for the ops AVX-512 does not speed up. */
#ifndef BL_KERNELS_AVX2_H
#define BL_KERNELS_AVX2_H

#include "../internal.h"

void bl_hash_u64_xxh3_avx2(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out);
void bl_hash_u64_xxh64_avx2(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out);
void bl_blocked_add_avx2(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h, size_t n,
                         size_t avail);
size_t bl_blocked_test_avx2(const uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h,
                            size_t n, size_t avail, uint8_t *res);
void bl_sbbf_add_avx2(uint8_t *data, uint64_t nblocks, const uint64_t *h, size_t n, size_t avail);
size_t bl_sbbf_test_avx2(const uint8_t *data, uint64_t nblocks, const uint64_t *h, size_t n,
                         size_t avail, uint8_t *res);

#endif
