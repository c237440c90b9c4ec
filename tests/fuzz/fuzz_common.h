/* SPDX-License-Identifier: MIT */
/* What every fuzz target (tests/fuzz/fuzz_*.c) does with a filter it accepted. */
#ifndef BL_FUZZ_COMMON_H
#define BL_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "bloomline.h"

/* Integer keys for queries, spread over the 64-bit range. */
#define FUZZ_U64_KEYS 16u
static inline uint64_t fuzz_u64_key(uint64_t i) { return i * 0x9E3779B97F4A7C15ULL; }

/* A working filter: it describes itself (into *info), answers queries, and a key it accepts is
 * then found. An add may be refused (a chain whose fields forbid growth), never lost. */
static inline void fuzz_exercise(bl_filter *f, const uint8_t *key, size_t klen, bl_info *info)
{
    if (bl_get_info(f, info) != BL_OK)
        __builtin_trap();
    for (uint64_t i = 0; i < FUZZ_U64_KEYS; i++)
        (void)bl_contains_u64(f, fuzz_u64_key(i));
    if (bl_add(f, key, klen) == BL_OK && !bl_contains(f, key, klen))
        __builtin_trap();
}

#endif /* BL_FUZZ_COMMON_H */
