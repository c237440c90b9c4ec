/* SPDX-License-Identifier: MIT */
/* Kernel tables, best first, and their selection by name, environment or CPU. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static const struct bl_kernels *const all_kernels[] = {
#if defined(BLOOMLINE_HAVE_AVX512)
    &bl_kernels_avx512,
#endif
#if defined(BLOOMLINE_HAVE_AVX2)
    &bl_kernels_avx2,
#endif
#if defined(BLOOMLINE_HAVE_NEON)
    &bl_kernels_neon,
#endif
    &bl_kernels_scalar,
};
#define NKERNELS (sizeof(all_kernels) / sizeof(all_kernels[0]))

static bool runs_here(const struct bl_kernels *k)
{
    uint32_t need = k->required & ~BL_CPU_FORCE_ONLY;
    return (bl_cpu_features() & need) == need;
}

static const struct bl_kernels *find(const char *name)
{
    for (size_t i = 0; i < NKERNELS; i++)
        if (strcmp(all_kernels[i]->name, name) == 0)
            return all_kernels[i];
    return NULL;
}

bl_status bl_kernel_resolve(const char *name, const struct bl_kernels **out)
{
    if (name == NULL || *name == '\0') {
        name = getenv("BLOOMLINE_KERNEL");
        if (name != NULL && *name == '\0')
            name = NULL;
    }
    if (name != NULL) {
        const struct bl_kernels *k = find(name);
        if (k == NULL || !runs_here(k))
            return BL_E_UNSUPPORTED;
        *out = k;
        return BL_OK;
    }
    for (size_t i = 0; i < NKERNELS; i++) {
        if (!(all_kernels[i]->required & BL_CPU_FORCE_ONLY) && runs_here(all_kernels[i])) {
            *out = all_kernels[i];
            return BL_OK;
        }
    }
    *out = &bl_kernels_scalar;
    return BL_OK;
}

const char *bl_kernel_name(void)
{
    const struct bl_kernels *k;
    return bl_kernel_resolve(NULL, &k) == BL_OK ? k->name : NULL;
}

bool bl_kernel_supported(const char *name)
{
    const struct bl_kernels *k = name ? find(name) : NULL;
    return k != NULL && runs_here(k);
}

const char *bl_kernel_at(size_t i) { return i < NKERNELS ? all_kernels[i]->name : NULL; }
