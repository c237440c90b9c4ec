/* SPDX-License-Identifier: MIT */
/* The scalar kernel: portable C11, the specification every SIMD kernel must match bit for bit. */
#include "../internal.h"

static void bl_hash_u64_xxh3_scalar(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = bl_xxh3_u64(keys[i], seed);
}

static void bl_hash_u64_xxh64_scalar(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = bl_xxh64_u64(keys[i], seed);
}

/* The batched loops compiled once for each k = 1..16 (BL_BY_K tables, as the counting kernels'
 * test): the probe loop unrolled, its word offsets and multipliers immediates instead of table
 * loads. bench_ab on a Zen 4 against the any-k loops: batched queries 0.86-0.97 of their time
 * (2^16-2^24, k = 6; 0.91 at k = 11), batched adds 0.93-0.96. */
#define BL_INLINE static inline __attribute__((always_inline))

BL_INLINE void blocked_add_loop(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h,
                                size_t n, size_t avail)
{
    for (size_t i = 0; i < n; i++) {
        if (i + BL_PREFETCH_DISTANCE < avail)
            BL_PREFETCH_W(BL_LINE_AT(data, nlines, h[i + BL_PREFETCH_DISTANCE]));
        bl_blocked_add_one(data, nlines, k, h[i]);
    }
}

BL_INLINE size_t blocked_test_loop(const uint8_t *data, uint64_t nlines, unsigned k,
                                   const uint64_t *h, size_t n, size_t avail, uint8_t *res)
{
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + BL_PREFETCH_DISTANCE < avail)
            BL_PREFETCH_R(BL_LINE_AT(data, nlines, h[i + BL_PREFETCH_DISTANCE]));
        hits += bl_answer(res, i, bl_blocked_test_one(data, nlines, k, h[i]));
    }
    return hits;
}

typedef void blocked_add_k_fn(uint8_t *data, uint64_t nlines, const uint64_t *h, size_t n,
                              size_t avail);
typedef size_t blocked_test_k_fn(const uint8_t *data, uint64_t nlines, const uint64_t *h,
                                 size_t n, size_t avail, uint8_t *res);
#define BL_ADD_ONE_K(NAME, LOOP, K)                                                                \
    static void NAME##_##K(uint8_t *data, uint64_t nlines, const uint64_t *h, size_t n,          \
                           size_t avail)                                                          \
    {                                                                                              \
        LOOP(data, nlines, K, h, n, avail);                                                        \
    }
#define BL_TEST_ONE_K(NAME, LOOP, K)                                                               \
    static size_t NAME##_##K(const uint8_t *data, uint64_t nlines, const uint64_t *h, size_t n,   \
                             size_t avail, uint8_t *res)                                          \
    {                                                                                              \
        return LOOP(data, nlines, K, h, n, avail, res);                                            \
    }
BL_BY_K(BL_ADD_ONE_K, static, blocked_add_k_fn, blocked_add_by_k, blocked_add_loop);
BL_BY_K(BL_TEST_ONE_K, static, blocked_test_k_fn, blocked_test_by_k, blocked_test_loop);

/* k is 1..16 here: bl_create and the loader refuse any other for a blocked filter. */
static void bl_blocked_add_scalar(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h,
                                  size_t n, size_t avail)
{
    blocked_add_by_k[k](data, nlines, h, n, avail);
}

static size_t bl_blocked_test_scalar(const uint8_t *data, uint64_t nlines, unsigned k,
                                     const uint64_t *h, size_t n, size_t avail, uint8_t *res)
{
    return blocked_test_by_k[k](data, nlines, h, n, avail, res);
}

bool bl_blocked_contains_scalar(const uint8_t *data, uint64_t nlines, unsigned k, uint64_t h)
{
    return bl_blocked_test_one(data, nlines, k, h);
}

BL_CONTAINS_U64_BY_K(, bl_blocked_contains_u64_scalar, bl_blocked_test_one);
BL_CONTAINS_HASH_BY_K(, bl_blocked_contains_hash_scalar, bl_blocked_test_one);
BL_ADD_U64_BY_K(, bl_blocked_add_u64_scalar, bl_blocked_add_one);
BL_ADD_HASH_BY_K(, bl_blocked_add_hash_scalar, bl_blocked_add_one);

void bl_blocked_add_one_scalar(uint8_t *data, uint64_t nlines, unsigned k, uint64_t h)
{
    bl_blocked_add_one(data, nlines, k, h);
}

size_t bl_blocked_add_new_scalar(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h,
                                 size_t n, size_t avail, uint64_t room, uint64_t *taken)
{
    uint64_t t = 0;
    size_t i = 0;
    for (; i < n && t < room; i++) {
        if (i + BL_PREFETCH_DISTANCE < avail)
            BL_PREFETCH_W(BL_LINE_AT(data, nlines, h[i + BL_PREFETCH_DISTANCE]));
        t += bl_blocked_add_one(data, nlines, k, h[i]);
    }
    *taken += t;
    return i;
}

static void bl_sbbf_add_scalar(uint8_t *data, uint64_t nblocks, const uint64_t *h, size_t n,
                               size_t avail)
{
    for (size_t i = 0; i < n; i++) {
        if (i + BL_PREFETCH_DISTANCE < avail)
            BL_PREFETCH_W(data + bl_sbbf_block(h[i + BL_PREFETCH_DISTANCE], nblocks) * BL_SBBF_BLOCK_BYTES);
        bl_sbbf_add_one(data, nblocks, h[i]);
    }
}

static size_t bl_sbbf_test_scalar(const uint8_t *data, uint64_t nblocks, const uint64_t *h,
                                  size_t n, size_t avail, uint8_t *res)
{
    size_t hits = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + BL_PREFETCH_DISTANCE < avail)
            BL_PREFETCH_R(data + bl_sbbf_block(h[i + BL_PREFETCH_DISTANCE], nblocks) * BL_SBBF_BLOCK_BYTES);
        hits += bl_answer(res, i, bl_sbbf_test_one(data, nblocks, h[i]));
    }
    return hits;
}

static void bl_sbbf_add_one_scalar(uint8_t *data, uint64_t nblocks, uint64_t h)
{
    bl_sbbf_add_one(data, nblocks, h);
}

static bool bl_sbbf_contains_scalar(const uint8_t *data, uint64_t nblocks, uint64_t h)
{
    return bl_sbbf_test_one(data, nblocks, h);
}

const struct bl_kernels bl_kernels_scalar = {
    .name = "scalar",
    .required = 0,
    .hash_u64_xxh3 = bl_hash_u64_xxh3_scalar,
    .hash_u64_xxh64 = bl_hash_u64_xxh64_scalar,
    .blocked_add = bl_blocked_add_scalar,
    .blocked_test = bl_blocked_test_scalar,
    .blocked_contains = bl_blocked_contains_scalar,
    .blocked_contains_u64_by_k = bl_blocked_contains_u64_scalar,
    .blocked_add_u64_by_k = bl_blocked_add_u64_scalar,
    .blocked_contains_hash_by_k = bl_blocked_contains_hash_scalar,
    .blocked_add_hash_by_k = bl_blocked_add_hash_scalar,
    .blocked_add_one = bl_blocked_add_one_scalar,
    .blocked_add_new = bl_blocked_add_new_scalar,
    .sbbf_add = bl_sbbf_add_scalar,
    .sbbf_test = bl_sbbf_test_scalar,
    .sbbf_add_one = bl_sbbf_add_one_scalar,
    .sbbf_contains = bl_sbbf_contains_scalar,
    .count_bits = bl_count_bits_scalar,
    .count_nonzero_nibbles = bl_count_nonzero_nibbles_scalar,
};
