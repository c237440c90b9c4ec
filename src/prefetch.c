/* SPDX-License-Identifier: MIT */
/* bl_prefetch_hash: the memory a key's query or add will touch, fetched ahead of it, for callers
 * whose keys come one at a time (a packet, a row) and who cannot batch them. */
#include "internal.h"

const uint8_t *bl_hash_line(const bl_filter *f, uint64_t h, size_t i)
{
    switch (f->layout) {
    case BL_LAYOUT_BLOCKED:
    case BL_LAYOUT_COUNTING: return i == 0 ? BL_LINE_AT(f->data, f->nblocks, h) : NULL;
    case BL_LAYOUT_SBBF:
        return i == 0 ? f->data + bl_sbbf_block(h, f->nblocks) * BL_SBBF_BLOCK_BYTES : NULL;
    case BL_LAYOUT_CLASSIC: {
        if (i >= f->k)
            return NULL;
        uint64_t h1, h2;
        bl_classic_hashes_from_prehash(h, &h1, &h2);
        const uint64_t idx = bl_classic_index(h1 + i * h2, f->nbits);
        return f->data + (idx >> 6) * 8;
    }
    case BL_LAYOUT_SCALABLE: /* newest stage first, as queries ask them */
        return i < f->nstages ? bl_hash_line(f->stages[f->nstages - 1 - i], h, 0) : NULL;
    }
    return NULL;
}

void bl_prefetch_hash(const bl_filter *filter, uint64_t hash)
{
    if (filter == NULL)
        return;
    /* The native layout's line without the loop: this sits in the caller's per-key path. */
    if (filter->layout == BL_LAYOUT_BLOCKED) {
        BL_PREFETCH_R(BL_LINE_AT(filter->data, filter->nblocks, hash));
        return;
    }
    const uint8_t *line;
    for (size_t i = 0; (line = bl_hash_line(filter, hash, i)) != NULL; i++)
        BL_PREFETCH_R(line);
}
