/* SPDX-License-Identifier: MIT */
/* Single-key query loops compiled with ISA flags (inline_single_*.c), for bench_parts. */
#ifndef BB_INLINE_SINGLE_H
#define BB_INLINE_SINGLE_H

#include "internal.h"

/* Hits among keys[0..n) of a blocked filter, hash and AVX-512 probe inline in one loop. */
size_t bb_inline_single_avx512(const bl_filter *f, const uint64_t *keys, size_t n);

#endif
