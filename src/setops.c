/* SPDX-License-Identifier: MIT */
/* Identity, union and intersection. */
#include "internal.h"

bool bl_same_identity(const bl_filter *a, const bl_filter *b)
{
    if (a == NULL || b == NULL || a->layout != b->layout)
        return false;
    if (a->layout == BL_LAYOUT_SCALABLE)
        return bl_scalable_same_identity(a, b);
    return a->nblocks == b->nblocks && a->nbits == b->nbits && a->k == b->k &&
           a->hash == b->hash && a->seed == b->seed;
}

static bl_status merge(bl_filter *dst, const bl_filter *src, bool intersect)
{
    if (dst == NULL || src == NULL)
        return BL_E_INVALID;
    if (!bl_same_identity(dst, src))
        return BL_E_MISMATCH;
    if (dst->storage == BL_STORAGE_FILE_MAP)
        return BL_E_READ_ONLY;
    if (dst->layout == BL_LAYOUT_SCALABLE)
        return bl_scalable_merge(dst, src, intersect);
    if (dst->layout == BL_LAYOUT_COUNTING) {
        bl_counting_merge(dst, src, intersect);
    } else {
        uint64_t *d = (uint64_t *)(void *)dst->data;
        const uint64_t *s = (const uint64_t *)(const void *)src->data;
        const size_t words = dst->nbytes / 8;
        if (intersect)
            for (size_t i = 0; i < words; i++)
                d[i] &= s[i];
        else
            for (size_t i = 0; i < words; i++)
                d[i] |= s[i];
    }
    /* keys_added counts insertions: a union holds at most the sum, an intersection at most the
     * smaller of the two. */
    if (intersect)
        dst->keys_added = dst->keys_added < src->keys_added ? dst->keys_added : src->keys_added;
    else
        dst->keys_added = bl_keys_sum(dst->keys_added, src->keys_added);
    dst->keys_known = dst->keys_known && src->keys_known;
    return BL_OK;
}

bl_status bl_union(bl_filter *dst, const bl_filter *src) { return merge(dst, src, false); }
bl_status bl_intersect(bl_filter *dst, const bl_filter *src) { return merge(dst, src, true); }
