/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER (issue 8 replaces this file): the counting layout is not implemented yet. */
#include "pipeline.h"

void bl_counting_add_hashes(bl_filter *f, const uint64_t *h, size_t n, size_t avail)
{ (void)f; (void)h; (void)n; (void)avail; }
size_t bl_counting_test_hashes(const bl_filter *f, const uint64_t *h, size_t n, size_t avail, uint8_t *res)
{ (void)f; (void)h; (void)avail; if (res) memset(res, 1, n); return n; }
size_t bl_counting_remove_hashes(bl_filter *f, const uint64_t *h, size_t n, size_t avail)
{ (void)f; (void)h; (void)n; (void)avail; return 0; }
uint64_t bl_counting_nonzero(const bl_filter *f) { (void)f; return 0; }
void bl_counting_merge(bl_filter *dst, const bl_filter *src, bool intersect) { (void)dst; (void)src; (void)intersect; }
