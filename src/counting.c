/* SPDX-License-Identifier: MIT */
/* Counting layout: kernel choice, concurrent counters, fill count and counter-wise merges. */
#include "counting.h"
#include "pipeline.h"

/* The counting table for a probe-kernel table: scalar when the ISA has none. Pointers, not
 * names: single-key calls ask on every key, and the name compares made them dear (queries
 * 12.9 -> 10.3 ns/key at 2^16 and 107 -> 74 at 2^24, adds 17.7 -> 15.4 at 2^16, once gone). */
const struct bl_counting_kernels *bl_counting_kernels_for(const struct bl_kernels *kern)
{
    (void)kern; /* read by none of the tests below where no ISA kernel is built (fuzz.sh) */
#if defined(BLOOMLINE_HAVE_AVX512)
    if (kern == &bl_kernels_avx512)
        return &bl_counting_kernels_avx512;
#endif
#if defined(BLOOMLINE_HAVE_AVX2)
    if (kern == &bl_kernels_avx2)
        return &bl_counting_kernels_avx2;
#endif
#if defined(BLOOMLINE_HAVE_NEON)
    if (kern == &bl_kernels_neon)
        return &bl_counting_kernels_neon;
#endif
    return &bl_counting_kernels_scalar;
}

/* ---- BL_FLAG_CONCURRENT: one compare-and-swap per counter step -------------------------------- */

/* Apply delta (+1 or -1) to counter c unless it sits at the bound (15 for +1, 0 or 15 for -1).
 * The CAS never lets a counter wrap, whatever other threads do meanwhile. */
static void atomic_step(uint8_t *line, uint32_t c, int delta)
{
    uint32_t *w = (uint32_t *)(void *)line + (c >> 3);
    const unsigned shift = (c & 7) * 4;
    uint32_t old = __atomic_load_n(w, __ATOMIC_RELAXED);
    for (;;) {
        const unsigned v = (old >> shift) & 15u;
        if (v == BL_COUNTER_MAX || (delta < 0 && v == 0))
            return;
        const uint32_t upd = delta > 0 ? old + (1u << shift) : old - (1u << shift);
        if (__atomic_compare_exchange_n(w, &old, upd, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return;
    }
}

static void add_atomic(bl_filter *f, const uint64_t *h, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        uint8_t *line = BL_LINE_AT(f->data, f->nblocks, h[j]);
        for (unsigned i = 0; i < f->k; i++)
            atomic_step(line, bl_counting_pos(h[j], f->k, i), +1);
    }
}

/* The not-present check runs on a snapshot of the line, then each step is its own CAS: a
 * concurrent remove is not atomic as a whole, but no counter ever underflows or leaves 15. */
static size_t remove_atomic(bl_filter *f, const uint64_t *h, size_t n)
{
    size_t absent = 0;
    for (size_t j = 0; j < n; j++) {
        uint8_t *line = BL_LINE_AT(f->data, f->nblocks, h[j]);
        uint8_t snap[BL_LINE_BYTES];
        for (unsigned w = 0; w < BL_LINE_BYTES / 4; w++) {
            uint32_t v = __atomic_load_n((uint32_t *)(void *)line + w, __ATOMIC_RELAXED);
            memcpy(snap + 4 * w, &v, 4);
        }
        /* nlines = 1 maps every hash to line 0, i.e. to the snapshot itself. */
        if (!bl_counting_remove_one(snap, 1, f->k, h[j])) {
            absent++;
            continue;
        }
        for (unsigned i = 0; i < f->k; i++)
            atomic_step(line, bl_counting_pos(h[j], f->k, i), -1);
    }
    return absent;
}

/* ---- Hooks (pipeline.h) ----------------------------------------------------------------------- */

void bl_counting_add_hashes(bl_filter *f, const uint64_t *h, size_t n, size_t avail)
{
    if (f->flags & BL_FLAG_CONCURRENT)
        add_atomic(f, h, n);
    else
        bl_counting_kernels_for(f->kern)->add(f->data, f->nblocks, f->k, h, n, avail);
}

void bl_counting_add_hash(bl_filter *f, uint64_t h)
{
    if (f->flags & BL_FLAG_CONCURRENT)
        add_atomic(f, &h, 1);
    else /* every table's add is this scalar one (counting_avx2.c says why) */
        bl_counting_add_one(f->data, f->nblocks, f->k, h);
}

size_t bl_counting_test_hashes(const bl_filter *f, const uint64_t *h, size_t n, size_t avail,
                               uint8_t *res)
{
    return bl_counting_kernels_for(f->kern)->test(f->data, f->nblocks, f->k, h, n, avail, res);
}

size_t bl_counting_remove_hashes(bl_filter *f, const uint64_t *h, size_t n, size_t avail)
{
    if (f->flags & BL_FLAG_CONCURRENT)
        return remove_atomic(f, h, n);
    return bl_counting_kernels_for(f->kern)->remove(f->data, f->nblocks, f->k, h, n, avail);
}

bool bl_counting_remove_hash(bl_filter *f, uint64_t h)
{
    if (f->flags & BL_FLAG_CONCURRENT)
        return remove_atomic(f, &h, 1) == 0;
    return bl_counting_remove_one(f->data, f->nblocks, f->k, h); /* every table's remove */
}

/* ---- Whole-array operations (SWAR over 64-bit words, 16 counters each) ----------------------- */

#define NIB_LOW 0x0F0F0F0F0F0F0F0FULL  /* even counters, one per byte after masking */
#define BYTE_16 0x1010101010101010ULL  /* bit 4 of each byte: the carry out of a nibble */

uint64_t bl_counting_nonzero(const bl_filter *f)
{
    return f->kern->count_nonzero_nibbles(f->data, f->nbytes);
}

/* Each byte of a and b holds one counter (0..15) in its low nibble. */
static uint64_t sat_add_bytes(uint64_t a, uint64_t b)
{
    const uint64_t s = a + b;                   /* <= 30 per byte: no carry between bytes */
    const uint64_t over = (s & BYTE_16) >> 4;   /* 1 in each byte that reached 16 */
    return (s | over * 15) & NIB_LOW;
}

static uint64_t min_bytes(uint64_t a, uint64_t b)
{
    const uint64_t ge = (((a | BYTE_16) - b) & BYTE_16) >> 4; /* 1 where a >= b */
    const uint64_t m = ge * 15;
    return (b & m) | (a & ~m & NIB_LOW);
}

void bl_counting_merge(bl_filter *dst, const bl_filter *src, bool intersect)
{
    uint64_t *d = (uint64_t *)(void *)dst->data;
    const uint64_t *s = (const uint64_t *)(const void *)src->data;
    uint64_t (*op)(uint64_t, uint64_t) = intersect ? min_bytes : sat_add_bytes;
    for (size_t i = 0; i < dst->nbytes / 8; i++) {
        const uint64_t even = op(d[i] & NIB_LOW, s[i] & NIB_LOW);
        const uint64_t odd = op((d[i] >> 4) & NIB_LOW, (s[i] >> 4) & NIB_LOW);
        d[i] = even | odd << 4;
    }
}
