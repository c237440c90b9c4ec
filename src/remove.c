/* SPDX-License-Identifier: MIT */
/* Counting layout entry points: remove (single and batched) and freeze into a blocked filter. */
#include "counting.h"
#include "pipeline.h"

static bl_status check_remove(const bl_filter *f)
{
    if (f == NULL)
        return BL_E_INVALID;
    if (f->layout != BL_LAYOUT_COUNTING)
        return BL_E_UNSUPPORTED;
    return f->storage == BL_STORAGE_FILE_MAP ? BL_E_READ_ONLY : BL_OK;
}

/* keys_added tracks the keys the filter currently holds: a refused remove changes nothing, an
 * accepted one takes its key back out (never below zero, e.g. after an import without counts). */
static void uncount_keys(bl_filter *f, uint64_t n)
{
    if (f->flags & BL_FLAG_CONCURRENT) {
        uint64_t old = __atomic_load_n(&f->keys_added, __ATOMIC_RELAXED);
        while (!__atomic_compare_exchange_n(&f->keys_added, &old, old > n ? old - n : 0, true,
                                            __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        }
    } else {
        f->keys_added = f->keys_added > n ? f->keys_added - n : 0;
    }
}

bl_status bl_remove_hash(bl_filter *filter, uint64_t hash)
{
    bl_status st = check_remove(filter);
    if (st != BL_OK)
        return st;
    if (!bl_counting_remove_hash(filter, hash))
        return BL_E_NOT_PRESENT;
    uncount_keys(filter, 1);
    return BL_OK;
}

bl_status bl_remove(bl_filter *filter, const void *key, size_t len)
{
    if (filter == NULL || bl_key_is_bad(key, len))
        return BL_E_INVALID;
    return bl_remove_hash(filter, bl_hash(filter, key, len));
}

bl_status bl_remove_u64(bl_filter *filter, uint64_t key)
{
    if (filter == NULL)
        return BL_E_INVALID;
    return bl_remove_hash(filter, bl_hash_u64(filter, key));
}

static size_t stage_remove(bl_filter *f, const uint64_t *h, size_t n, size_t avail, uint8_t *res,
                           void *ctx)
{
    (void)res;
    (void)ctx;
    const size_t absent = bl_counting_remove_hashes(f, h, n, avail);
    uncount_keys(f, n - absent);
    return absent;
}

/* Every key is processed; the result is BL_E_NOT_PRESENT when at least one was refused. */
static bl_status remove_keys(bl_filter *f, const bl_keys *keys, size_t n, size_t *absent)
{
    const size_t refused = bl_pipeline(f, keys, n, NULL, stage_remove, NULL);
    if (absent != NULL)
        *absent = refused;
    return refused ? BL_E_NOT_PRESENT : BL_OK;
}

bl_status bl_remove_batch(bl_filter *filter, const void *const *keys, const size_t *lens,
                          size_t n, size_t *absent)
{
    if (absent != NULL)
        *absent = 0;
    bl_status st = check_remove(filter);
    if (st != BL_OK)
        return st;
    if (!bl_byte_keys_valid(filter, keys, lens, n))
        return BL_E_INVALID;
    bl_keys k = {BL_KEYS_BYTES, keys, lens, NULL, false};
    return remove_keys(filter, &k, n, absent);
}

bl_status bl_remove_u64_batch(bl_filter *filter, const uint64_t *keys, size_t n, size_t *absent)
{
    if (absent != NULL)
        *absent = 0;
    bl_status st = check_remove(filter);
    if (st != BL_OK)
        return st;
    if (n != 0 && keys == NULL)
        return BL_E_INVALID;
    bl_keys k = {BL_KEYS_U64, NULL, NULL, keys, false};
    return remove_keys(filter, &k, n, absent);
}

/* Counter c covers blocked bits 4c..4c+3 (counting.h), so a nibble that is non-zero becomes
 * 0xF: the blocked filter's probe of bit p then reads counter p >> 2, exactly the counter the
 * counting filter reads for the same hash. Same lines, k and seed: identical answers, served by
 * the blocked kernels, and saved/loaded/merged like any blocked filter. */
bl_status bl_freeze(bl_filter **out, const bl_filter *counting)
{
    if (out == NULL)
        return BL_E_INVALID;
    *out = NULL;
    if (counting == NULL)
        return BL_E_INVALID;
    if (counting->layout != BL_LAYOUT_COUNTING)
        return BL_E_UNSUPPORTED;
    bl_filter *b;
    bl_status st = bl_filter_new(&b, BL_LAYOUT_BLOCKED, counting->nblocks, counting->k,
                                 counting->seed, 0, counting->kern);
    if (st != BL_OK)
        return st;
    const uint64_t *s = (const uint64_t *)(const void *)counting->data;
    uint64_t *d = (uint64_t *)(void *)b->data;
    for (size_t i = 0; i < counting->nbytes / 8; i++)
        d[i] = bl_counting_nonzero_bits(s[i]) * 15;
    b->keys_added = counting->keys_added;
    b->keys_known = counting->keys_known;
    b->design_keys = counting->design_keys;
    b->design_fpp = counting->design_fpp;
    *out = b;
    return BL_OK;
}
