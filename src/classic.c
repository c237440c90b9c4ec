/* SPDX-License-Identifier: MIT */
/* Classic layout with Guava's MURMUR128_MITZ_64 index scheme, so exports are byte-compatible. */
#include "internal.h"

void bl_classic_add_h(bl_filter *f, uint64_t h1, uint64_t h2)
{
    uint64_t *w = (uint64_t *)(void *)f->data;
    const uint64_t m = f->nbits;
    uint64_t combined = h1;
    const bool atomic = f->flags & BL_FLAG_CONCURRENT;
    for (unsigned i = 0; i < f->k; i++) {
        const uint64_t idx = bl_classic_index(combined, m);
        uint64_t bit = UINT64_C(1) << (idx & 63);
        if (atomic)
            __atomic_fetch_or(&w[idx >> 6], bit, __ATOMIC_RELAXED);
        else
            w[idx >> 6] |= bit;
        combined += h2;
    }
}

bool bl_classic_test_h(const bl_filter *f, uint64_t h1, uint64_t h2)
{
    const uint64_t *w = (const uint64_t *)(const void *)f->data;
    const uint64_t m = f->nbits;
    uint64_t combined = h1;
    for (unsigned i = 0; i < f->k; i++) {
        const uint64_t idx = bl_classic_index(combined, m);
        if (!((w[idx >> 6] >> (idx & 63)) & 1))
            return false;
        combined += h2;
    }
    return true;
}
