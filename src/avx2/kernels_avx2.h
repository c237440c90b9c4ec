/* SPDX-License-Identifier: MIT */
/* The AVX2 kernel's operations, shared with the AVX-512 table for the ops AVX-512 does not speed up. */
#ifndef BL_KERNELS_AVX2_H
#define BL_KERNELS_AVX2_H

#include "../internal.h"

bool bl_null_keys_empty_avx2(const void *const *bytes, const size_t *lens, size_t n);
void bl_hash_u64_xxh3_avx2(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out);
void bl_hash_u64_xxh64_avx2(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out);
void bl_blocked_add_avx2(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h, size_t n,
                         size_t avail);
size_t bl_blocked_test_avx2(const uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h,
                            size_t n, size_t avail, uint8_t *res);
void bl_sbbf_add_avx2(uint8_t *data, uint64_t nblocks, const uint64_t *h, size_t n, size_t avail);
size_t bl_sbbf_test_avx2(const uint8_t *data, uint64_t nblocks, const uint64_t *h, size_t n,
                         size_t avail, uint8_t *res);

/* The rolling prefetch window of the blocked layout. A key's line address costs a 64x64->128
 * multiply; each is computed once, when the key enters the window (and its line is prefetched),
 * kept in a ring of `depth` slots, and reused when the key is probed. The depth is
 * BL_PREFETCH_DISTANCE, or BL_DEEP_WINDOW on filters that fit a last-level cache. */
typedef struct bl_window {
    size_t depth; /* a power of two */
    const uint8_t *line[BL_DEEP_WINDOW];
} bl_window;

/* Enter keys [0, min(depth, avail)). `write`: prefetch with intent to modify (adds). */
static inline __attribute__((always_inline)) void
bl_window_start(bl_window *w, const uint8_t *data, uint64_t nlines, const uint64_t *h,
                size_t avail, bool write)
{
    w->depth = bl_window_depth(nlines);
    const size_t m = avail < w->depth ? avail : w->depth;
    for (size_t i = 0; i < m; i++) {
        w->line[i] = BL_LINE_AT(data, nlines, h[i]);
        if (write)
            BL_PREFETCH_W(w->line[i]);
        else
            BL_PREFETCH_R(w->line[i]);
    }
}

/* The line of key i (which must be the next key in order); key i + D enters the window. */
static inline __attribute__((always_inline)) const uint8_t *
bl_window_next(bl_window *w, const uint8_t *data, uint64_t nlines, const uint64_t *h, size_t i,
               size_t avail, bool write)
{
    const size_t slot = i & (w->depth - 1);
    const uint8_t *line = w->line[slot];
    /* Likely: Clang otherwise placed this block after the loop's end, entered and left by
     * jumps, which cost its add loop 1.88 against 1.45 ns/key at 2^16 (gcc lays it in line). */
    if (__builtin_expect(i + w->depth < avail, 1)) {
        const uint8_t *ahead = BL_LINE_AT(data, nlines, h[i + w->depth]);
        if (write)
            BL_PREFETCH_W(ahead);
        else
            BL_PREFETCH_R(ahead);
        w->line[slot] = ahead;
    }
    return line;
}

#endif
