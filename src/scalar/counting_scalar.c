/* SPDX-License-Identifier: MIT */
/* Scalar counting kernels: the specification (counting.h) with the rolling prefetch. */
#include "../counting.h"

void bl_counting_add_scalar(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h, size_t n,
                            size_t avail)
{
    for (size_t i = 0; i < n; i++) {
        if (i + BL_PREFETCH_DISTANCE < avail)
            BL_PREFETCH_W(BL_LINE_AT(data, nlines, h[i + BL_PREFETCH_DISTANCE]));
        bl_counting_add_one(data, nlines, k, h[i]);
    }
}

BL_COUNTING_TEST_BY_K(bl_counting_test_scalar, bl_counting_test_one)
BL_CONTAINS_U64_BY_K(static, contains_u64_scalar, bl_counting_test_one);
BL_CONTAINS_HASH_BY_K(static, contains_hash_scalar, bl_counting_test_one);

size_t bl_counting_remove_scalar(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h,
                                 size_t n, size_t avail)
{
    size_t absent = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + BL_PREFETCH_DISTANCE < avail)
            BL_PREFETCH_W(BL_LINE_AT(data, nlines, h[i + BL_PREFETCH_DISTANCE]));
        absent += !bl_counting_remove_one(data, nlines, k, h[i]);
    }
    return absent;
}

const struct bl_counting_kernels bl_counting_kernels_scalar = {
    .name = "scalar",
    .add = bl_counting_add_scalar,
    .test = bl_counting_test_scalar,
    .contains_u64_by_k = contains_u64_scalar,
    .contains_hash_by_k = contains_hash_scalar,
    .remove = bl_counting_remove_scalar,
};
