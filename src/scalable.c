/* SPDX-License-Identifier: MIT */
/* PLACEHOLDER (issue 8 replaces this file): the scalable layout is not implemented yet. */
#include "pipeline.h"

bl_status bl_scalable_create(bl_filter **out, const bl_params *p, const struct bl_kernels *kern);
bl_status bl_scalable_create(bl_filter **out, const bl_params *p, const struct bl_kernels *kern)
{ (void)out; (void)p; (void)kern; return BL_E_UNSUPPORTED; }
void bl_scalable_free_stages(bl_filter *f);
void bl_scalable_free_stages(bl_filter *f) { (void)f; }
bl_status bl_scalable_clone(bl_filter **out, const bl_filter *f);
bl_status bl_scalable_clone(bl_filter **out, const bl_filter *f) { (void)out; (void)f; return BL_E_UNSUPPORTED; }
bl_status bl_scalable_add_hashes(bl_filter *f, const uint64_t *h, size_t n, size_t avail)
{ (void)f; (void)h; (void)n; (void)avail; return BL_E_UNSUPPORTED; }
size_t bl_scalable_test_hashes(const bl_filter *f, const uint64_t *h, size_t n, size_t avail, uint8_t *res)
{ (void)f; (void)h; (void)n; (void)avail; (void)res; return 0; }
bool bl_scalable_same_identity(const bl_filter *a, const bl_filter *b) { (void)a; (void)b; return false; }
bl_status bl_scalable_merge(bl_filter *dst, const bl_filter *src, bool intersect)
{ (void)dst; (void)src; (void)intersect; return BL_E_UNSUPPORTED; }
bl_status bl_scalable_get_info(const bl_filter *f, bl_info *info) { (void)f; (void)info; return BL_E_UNSUPPORTED; }
