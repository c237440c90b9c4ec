/* SPDX-License-Identifier: MIT */
/* Adds for BL_FLAG_CONCURRENT filters: atomic OR per word, so concurrent adders lose no bit.
 * Same positions as the scalar spec, so the bits are identical to every kernel's. */
#include "internal.h"

void bl_blocked_add_atomic(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        uint32_t *w = (uint32_t *)(void *)(data + bl_blocked_line(h[j], nlines) * BL_LINE_BYTES);
        for (unsigned i = 0; i < k; i++) {
            uint32_t pos = bl_blocked_pos(h[j], i);
            __atomic_fetch_or(&w[pos >> 5], 1u << (pos & 31), __ATOMIC_RELAXED);
        }
    }
}

void bl_sbbf_add_atomic(uint8_t *data, uint64_t nblocks, const uint64_t *h, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        uint32_t *w = (uint32_t *)(void *)(data + bl_sbbf_block(h[j], nblocks) * BL_SBBF_BLOCK_BYTES);
        for (unsigned i = 0; i < 8; i++)
            __atomic_fetch_or(&w[i], 1u << (((uint32_t)h[j] * bl_sbbf_salt[i]) >> 27),
                              __ATOMIC_RELAXED);
    }
}
