/* SPDX-License-Identifier: MIT */
/* Counting layout: the counter-selection spec every counting kernel must match, and its kernels. */
#ifndef BL_COUNTING_H
#define BL_COUNTING_H

#include "internal.h"

/*
 * A counting line is one 64-byte cache line of 128 4-bit counters. Counter c is nibble (c & 1)
 * of byte c >> 1 (the low nibble for even c), i.e. bits 4c..4c+3 of the line read as
 * little-endian 32-bit words. The line is bl_blocked_line(h, nlines), and probe i selects, in the
 * blocked probe's word (internal.h), counter ((uint32)h * bl_blocked_mul[i]) >> 29 of its 8: the
 * top 3 bits of the product whose top 5 select the blocked bit. Hence counter c covers exactly
 * the blocked bits 4c..4c+3, which is what lets bl_freeze turn a counting filter into a plain
 * blocked filter of the same geometry; and a key's k counters are distinct, as its words are.
 *
 * A saturated counter (15) is never changed again, so removal cannot create a false negative
 * for any key that shares it. A remove is refused (BL_E_NOT_PRESENT, nothing changed) when some
 * counter the key needs is zero (not saturated): such a key was provably never added (or
 * already removed). The update code still counts a probe per counter step, so it would stay
 * exact if probes could repeat.
 */
#define BL_COUNTER_MAX 15u

static inline uint32_t bl_counting_pos(uint64_t h, unsigned k, unsigned i)
{
    return bl_blocked_word(h, k, i) << 3 | ((uint32_t)h * bl_blocked_mul[i]) >> 29;
}

static inline unsigned bl_counter_get(const uint8_t *line, uint32_t c)
{
    return (line[c >> 1] >> ((c & 1) * 4)) & 15u;
}

static inline void bl_counting_add_one(uint8_t *data, uint64_t nlines, unsigned k, uint64_t h)
{
    uint8_t *line = BL_LINE_AT(data, nlines, h);
    for (unsigned i = 0; i < k; i++) {
        const uint32_t c = bl_counting_pos(h, k, i);
        if (bl_counter_get(line, c) != BL_COUNTER_MAX)
            line[c >> 1] = (uint8_t)(line[c >> 1] + (1u << ((c & 1) * 4)));
    }
}

static inline bool bl_counting_test_one(const uint8_t *data, uint64_t nlines, unsigned k,
                                        uint64_t h)
{
    const uint8_t *line = BL_LINE_AT(data, nlines, h);
    for (unsigned i = 0; i < k; i++)
        if (bl_counter_get(line, bl_counting_pos(h, k, i)) == 0)
            return false;
    return true;
}

/* Decrement a private copy of the line first, so a refused remove leaves the filter untouched.
 * Returns false (and changes nothing) when the key was provably never added. */
static inline bool bl_counting_remove_one(uint8_t *data, uint64_t nlines, unsigned k, uint64_t h)
{
    uint8_t *line = BL_LINE_AT(data, nlines, h);
    uint8_t copy[BL_LINE_BYTES];
    memcpy(copy, line, sizeof copy);
    for (unsigned i = 0; i < k; i++) {
        const uint32_t c = bl_counting_pos(h, k, i);
        const unsigned v = bl_counter_get(copy, c);
        if (v == 0)
            return false;
        if (v != BL_COUNTER_MAX)
            copy[c >> 1] = (uint8_t)(copy[c >> 1] - (1u << ((c & 1) * 4)));
    }
    memcpy(line, copy, sizeof copy);
    return true;
}

/* Bit 4j of the result is set when counter j of the 16 in x (a 64-bit LE word) is non-zero. */
static inline uint64_t bl_counting_nonzero_bits(uint64_t x)
{
    return (x | x >> 1 | x >> 2 | x >> 3) & 0x1111111111111111ULL;
}

/* The batched query of every counting table: the rolling prefetch, then ONE(data, nlines, K, h),
 * the table's one-key test, per key. */
#define BL_COUNTING_TEST_LOOP(ONE, K)                                                              \
    size_t hits = 0;                                                                               \
    for (size_t i = 0; i < n; i++) {                                                               \
        if (i + BL_PREFETCH_DISTANCE < avail)                                                      \
            BL_PREFETCH_R(BL_LINE_AT(data, nlines, h[i + BL_PREFETCH_DISTANCE]));                  \
        const bool r = ONE(data, nlines, K, h[i]);                                                 \
        hits += r;                                                                                 \
        if (res)                                                                                   \
            res[i] = r;                                                                            \
    }                                                                                              \
    return hits
/* The loop for any k (NEON's; its test is not inlined for each k). */
#define BL_COUNTING_TEST(NAME, ONE)                                                                \
    static size_t NAME(const uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h,       \
                       size_t n, size_t avail, uint8_t *res)                                      \
    {                                                                                              \
        BL_COUNTING_TEST_LOOP(ONE, k);                                                             \
    }
/* The loop compiled for each k = 1..16 (ONE inlined with k a constant: its word offsets, lane
 * mask and probe groups fixed), NAME picking one by k. At 2^16 keys (k = 7) callgrind counts
 * 65.6 -> 42.6 instructions per batched query with AVX2 and 88.3 -> 69.3 scalar; bench_ab on a
 * Zen 3: 0.86 of the any-k loop's time with AVX2 (0.71-0.76 at k = 11, 0.75 scalar, 0.81-0.91
 * at 2^24, no change from DRAM at 2^27). */
typedef size_t bl_counting_test_k_fn(const uint8_t *data, uint64_t nlines, const uint64_t *h,
                                     size_t n, size_t avail, uint8_t *res);
#define BL_COUNTING_TEST_ONE_K(NAME, ONE, K)                                                       \
    static size_t NAME##_##K(const uint8_t *data, uint64_t nlines, const uint64_t *h, size_t n,   \
                             size_t avail, uint8_t *res)                                          \
    {                                                                                              \
        BL_COUNTING_TEST_LOOP(ONE, K);                                                             \
    }
#define BL_COUNTING_TEST_BY_K(NAME, ONE)                                                           \
    BL_BY_K(BL_COUNTING_TEST_ONE_K, static, bl_counting_test_k_fn, NAME##_k, ONE);                \
    static size_t NAME(const uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h,       \
                       size_t n, size_t avail, uint8_t *res)                                      \
    {                                                                                              \
        return NAME##_k[k](data, nlines, h, n, avail, res);                                        \
    }

/* Counting kernels: same contract as struct bl_kernels (h holds avail >= n hashes, res may be
 * NULL). remove returns how many keys it refused as not present. One table per ISA, chosen by
 * the filter's own probe-kernel table, so a filter bound to "avx2" counts with AVX2 too. */
struct bl_counting_kernels {
    const char *name;
    void (*add)(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h, size_t n,
                size_t avail);
    size_t (*test)(const uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h, size_t n,
                   size_t avail, uint8_t *res);
    /* One key, no look-ahead, compiled for each k (BL_CONTAINS_U64_BY_K, BL_CONTAINS_HASH_BY_K,
     * indexed by k = 1..16): a counting filter's bl_contains_u64 and bl_contains_hash call them
     * directly (bl_filter_set_kernel). test with n = 1 spent ~25 instructions on its loop and
     * the prefetch test; the one-key test for any k ~20 more on k's loop and its table rows. */
    bl_contains_u64_fn *const *contains_u64_by_k;
    bl_contains_u64_fn *const *contains_hash_by_k;
    size_t (*remove)(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h, size_t n,
                     size_t avail);
};

extern const struct bl_counting_kernels bl_counting_kernels_scalar;
/* The scalar updates, which every table uses (counting_avx2.c says why updates stay scalar). */
void bl_counting_add_scalar(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h, size_t n,
                            size_t avail);
size_t bl_counting_remove_scalar(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h,
                                 size_t n, size_t avail);
#if defined(BLOOMLINE_HAVE_AVX2)
extern const struct bl_counting_kernels bl_counting_kernels_avx2;
#endif
#if defined(BLOOMLINE_HAVE_AVX512)
extern const struct bl_counting_kernels bl_counting_kernels_avx512;
#endif
#if defined(BLOOMLINE_HAVE_NEON)
extern const struct bl_counting_kernels bl_counting_kernels_neon;
#endif

/* The counting table of a probe-kernel table (scalar when the ISA has none). */
const struct bl_counting_kernels *bl_counting_kernels_for(const struct bl_kernels *kern);

#endif /* BL_COUNTING_H */
