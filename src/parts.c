/* SPDX-License-Identifier: MIT */
/* Partitioned adds: several threads build one filter with plain stores, each owning one range
 * of its lines, so no bit needs an atomic OR. */
#include "pipeline.h"

__extension__ typedef unsigned __int128 u128; /* GCC and Clang on 64-bit targets */

/* Why: a locked OR per word drains its thread's store buffer and stalls the line fetches
 * behind it. A billion URLs (p = 1e-4, 2.8 GB) built on two cores in 25.3 s this way against
 * 59.3 s with BL_FLAG_CONCURRENT adds, run back to back; 10^8 URLs alternated: 2.0-2.1 against
 * 3.8-4.2 s (bench_scale, docs/BENCHMARKS.md). */

/* The unit a hash writes: its line (blocked, counting) or its 256-bit block (sbbf). The other
 * layouts spread a key over the whole array (classic) or over growing stages (scalable). */
static bool partitionable(const bl_filter *f)
{
    return f->layout == BL_LAYOUT_BLOCKED || f->layout == BL_LAYOUT_SBBF ||
           f->layout == BL_LAYOUT_COUNTING;
}

/* The layout's map from a hash to one of m units (its own line or block index formula). */
static uint64_t scaled(const bl_filter *f, uint64_t h, uint64_t m)
{
    return f->layout == BL_LAYOUT_SBBF ? bl_sbbf_block(h, m) : bl_blocked_line(h, m);
}

static uint64_t unit_of(const bl_filter *f, uint64_t h) { return scaled(f, h, f->nblocks); }

/* Part p of `parts` owns units [start(p), start(p + 1)) with start(p) = floor(p * units / parts):
 * contiguous, disjoint, covering all units, sizes differing by at most one. */
static uint64_t part_start(uint64_t units, unsigned p, unsigned parts)
{
    return (uint64_t)((u128)units * p / parts);
}

static bl_status check_parts(const bl_filter *f, unsigned part, unsigned parts)
{
    if (f == NULL || parts == 0 || part >= parts)
        return BL_E_INVALID;
    return partitionable(f) ? BL_OK : BL_E_UNSUPPORTED;
}

bl_status bl_hash_part(const bl_filter *filter, uint64_t hash, unsigned parts, unsigned *part)
{
    bl_status st = check_parts(filter, 0, parts);
    if (st != BL_OK || part == NULL)
        return st != BL_OK ? st : BL_E_INVALID;
    /* Unit u is in part p iff p * units < (u + 1) * parts <= (p + 1) * units. The same index
     * formula with `parts` units in place of `units`, floor(x * parts), x the hash's fraction
     * in [0, 1), is never above p (x * parts < (u + 1) * parts / units) and at most one below
     * it when parts <= units, so a short walk up replaces a 128-bit division per hash. */
    const uint64_t units = filter->nblocks;
    const u128 mark = ((u128)unit_of(filter, hash) + 1) * parts;
    if (parts > units) {
        /* Some parts own no unit, and the estimate can be parts / units below (the walk took
         * 1.7 s for 2^32 - 1 parts of one line): the last part starting at or below the unit,
         * the largest p with p * units < mark, from one division. */
        *part = (unsigned)((mark - 1) / units);
        return BL_OK;
    }
    uint64_t p = scaled(filter, hash, parts);
    while ((u128)(p + 1) * units < mark)
        p++;
    *part = (unsigned)p;
    return BL_OK;
}

bl_status bl_add_hash_batch_part(bl_filter *filter, const uint64_t *hashes, size_t n,
                                 unsigned part, unsigned parts)
{
    bl_status st = check_parts(filter, part, parts);
    if (st != BL_OK)
        return st;
    if (hashes == NULL && n != 0)
        return BL_E_INVALID;
    if (filter->storage == BL_STORAGE_FILE_MAP)
        return BL_E_READ_ONLY;
    const uint64_t lo = part_start(filter->nblocks, part, parts);
    const uint64_t width = part_start(filter->nblocks, part + 1, parts) - lo;
    /* The part's hashes are gathered into a buffer that keeps a window's depth of them beyond
     * each kernel call, as bl_pipeline does, so the prefetch window rolls on across calls. */
    enum { CAP = BL_PIPELINE_CHUNK + BL_DEEP_WINDOW };
    uint64_t buf[CAP];
    size_t filled = 0;
    uint64_t added = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t h = hashes[i];
        buf[filled] = h;
        filled += unit_of(filter, h) - lo < width; /* unsigned: below lo wraps past width */
        if (filled == CAP) {
            st = bl_add_hashes_uncounted(filter, buf, BL_PIPELINE_CHUNK, CAP);
            memmove(buf, buf + BL_PIPELINE_CHUNK, BL_DEEP_WINDOW * sizeof *buf);
            filled = BL_DEEP_WINDOW;
            added += BL_PIPELINE_CHUNK;
        }
    }
    if (filled > 0)
        st = bl_add_hashes_uncounted(filter, buf, filled, filled);
    added += filled;
    /* Every part counts its own keys, and the parts run at once. */
    bl_count_keys_atomic(filter, added);
    return st;
}
