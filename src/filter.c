/* SPDX-License-Identifier: MIT */
/* The filter object: parameters, creation from sizes or geometry, lifetime, identity. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void bl_params_init(bl_params *params)
{
    if (params == NULL)
        return;
    memset(params, 0, sizeof *params);
    params->struct_size = sizeof *params;
    params->layout = BL_LAYOUT_BLOCKED;
    params->fpp = 0.01;
    params->growth = 2.0;
    params->tightening = 0.5;
}

size_t bl_layout_block_bytes(bl_layout layout)
{
    switch (layout) {
    case BL_LAYOUT_BLOCKED:
    case BL_LAYOUT_COUNTING: return BL_LINE_BYTES;
    case BL_LAYOUT_SBBF: return BL_SBBF_BLOCK_BYTES;
    case BL_LAYOUT_CLASSIC: return 8;
    case BL_LAYOUT_SCALABLE: break;
    }
    return 0;
}

/* The payload limit, and for sbbf its block index ((h >> 32) * nblocks) >> 32, which reaches
 * 2^32 blocks at most. The sizing searches stop here too, so that they never give a size that
 * bl_create_geometry refuses. */
uint64_t bl_layout_max_blocks(bl_layout layout)
{
    const size_t block_bytes = bl_layout_block_bytes(layout);
    if (block_bytes == 0)
        return 0;
    if (layout == BL_LAYOUT_SBBF)
        return UINT64_C(1) << 32;
    return BL_MAX_PAYLOAD_BYTES / block_bytes;
}

bl_status bl_layout_k_range(bl_layout layout, unsigned *k_min, unsigned *k_max)
{
    unsigned lo = 1, hi;
    switch (layout) {
    case BL_LAYOUT_BLOCKED:
    case BL_LAYOUT_COUNTING:
    case BL_LAYOUT_SCALABLE: hi = BL_K_MAX_BLOCKED; break;
    case BL_LAYOUT_SBBF: lo = hi = BL_SBBF_K; break; /* the Parquet spec fixes eight words */
    case BL_LAYOUT_CLASSIC: hi = BL_K_MAX_CLASSIC; break;
    default: return BL_E_BAD_LAYOUT;
    }
    if (k_min)
        *k_min = lo;
    if (k_max)
        *k_max = hi;
    return BL_OK;
}

bool bl_layout_known(bl_layout layout)
{
    return bl_layout_k_range(layout, NULL, NULL) == BL_OK;
}

bool bl_layout_k_valid(bl_layout layout, unsigned k)
{
    unsigned lo, hi;
    return bl_layout_k_range(layout, &lo, &hi) == BL_OK && k >= lo && k <= hi;
}

bl_hash_scheme bl_layout_hash(bl_layout layout)
{
    switch (layout) {
    case BL_LAYOUT_SBBF: return BL_HASH_XXH64;
    case BL_LAYOUT_CLASSIC: return BL_HASH_MURMUR3_128;
    default: return BL_HASH_XXH3;
    }
}

const char *bl_layout_name(bl_layout layout)
{
    switch (layout) {
    case BL_LAYOUT_BLOCKED: return "blocked";
    case BL_LAYOUT_SBBF: return "sbbf";
    case BL_LAYOUT_CLASSIC: return "classic";
    case BL_LAYOUT_COUNTING: return "counting";
    case BL_LAYOUT_SCALABLE: return "scalable";
    }
    return "unknown";
}

bl_status bl_layout_from_name(const char *name, bl_layout *layout)
{
    static const bl_layout all[] = {BL_LAYOUT_BLOCKED, BL_LAYOUT_SBBF, BL_LAYOUT_CLASSIC,
                                    BL_LAYOUT_COUNTING, BL_LAYOUT_SCALABLE};
    if (name == NULL || layout == NULL)
        return BL_E_INVALID;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (strcmp(name, bl_layout_name(all[i])) == 0) {
            *layout = all[i];
            return BL_OK;
        }
    }
    return BL_E_BAD_LAYOUT;
}

bl_status bl_filter_new(bl_filter **out, bl_layout layout, uint64_t nblocks, unsigned k,
                        uint64_t seed, unsigned flags, const struct bl_kernels *kern)
{
    const size_t block_bytes = bl_layout_block_bytes(layout);
    if (out == NULL || block_bytes == 0)
        return BL_E_INVALID;
    *out = NULL;
    if (!bl_layout_k_valid(layout, k))
        return BL_E_BAD_K;
    if (nblocks == 0)
        return BL_E_INVALID;
    /* Keep every byte and bit count representable: bits = bytes * 8 must fit in 64 bits. */
    if (nblocks > bl_layout_max_blocks(layout) || nblocks * block_bytes > SIZE_MAX / 2)
        return BL_E_TOO_LARGE;
    bl_filter *f = calloc(1, sizeof *f);
    if (f == NULL)
        return BL_E_NOMEM;
    f->layout = layout;
    f->hash = bl_layout_hash(layout);
    f->k = k;
    f->flags = flags;
    bl_filter_set_seed(f, seed);
    f->nblocks = nblocks;
    f->nbits = nblocks * block_bytes * 8;
    f->keys_known = true;
    bl_filter_set_kernel(f, kern);
    bl_status st = bl_payload_alloc(f, (size_t)(nblocks * block_bytes));
    if (st != BL_OK) {
        free(f);
        return st;
    }
    *out = f;
    return BL_OK;
}

bl_status bl_create_geometry(bl_filter **out, bl_layout layout, uint64_t bits, unsigned k,
                             uint64_t seed, unsigned flags, const char *kernel)
{
    if (out == NULL)
        return BL_E_INVALID;
    *out = NULL;
    if (!bl_layout_known(layout))
        return BL_E_BAD_LAYOUT;
    if (layout == BL_LAYOUT_SCALABLE)
        return BL_E_UNSUPPORTED; /* a chain has no single geometry: use bl_create */
    const size_t block_bytes = bl_layout_block_bytes(layout);
    if (block_bytes == 0 || bits == 0)
        return BL_E_INVALID;
    if (flags & ~BL_FLAG_CONCURRENT)
        return BL_E_INVALID;
    const uint64_t block_bits = block_bytes * 8;
    if (bits > UINT64_MAX - block_bits)
        return BL_E_TOO_LARGE;
    const struct bl_kernels *kern;
    bl_status st = bl_kernel_resolve(kernel, &kern);
    if (st != BL_OK)
        return st;
    return bl_filter_new(out, layout, (bits + block_bits - 1) / block_bits, k, seed, flags, kern);
}

bl_status bl_scalable_create(bl_filter **out, const bl_params *p, const struct bl_kernels *kern);

/* The size and k for an exact size: unless forced, the k of the lowest model rate at that size
 * (through bl_size_for_bits_per_key, which sizes ceil(n * bits / n) again, it could be the best
 * for one unit more). */
static bl_status size_exactly(const bl_params *params, uint64_t exact, uint64_t *bits,
                              unsigned *k)
{
    const uint64_t block_bits = bl_layout_block_bytes(params->layout) * 8;
    if (params->bits_per_key > 0)
        return BL_E_INVALID; /* two sizes */
    if (exact > UINT64_MAX - block_bits)
        return BL_E_TOO_LARGE;
    *bits = (exact + block_bits - 1) / block_bits * block_bits;
    *k = params->k;
    return *k != 0 ? BL_OK : bl_best_k_for_bits(params->layout, *bits, params->expected_keys, k);
}

/* exact == 0: sized by params (fpp, or bits_per_key); else exactly that many bits. */
static bl_status create(bl_filter **out, const bl_params *params, uint64_t exact)
{
    if (out == NULL)
        return BL_E_INVALID;
    *out = NULL;
    if (params == NULL)
        return BL_E_INVALID;
    if (params->struct_size < sizeof(bl_params))
        return BL_E_INVALID;
    if (params->flags & ~BL_FLAG_CONCURRENT)
        return BL_E_INVALID;
    /* bits_per_key <= 0 means "size by fpp"; a NaN (say 0/0 in the caller) is not that, and was
     * silently taken for it. */
    if (isnan(params->bits_per_key))
        return BL_E_INVALID;
    const struct bl_kernels *kern;
    bl_status st = bl_kernel_resolve(params->kernel, &kern);
    if (st != BL_OK)
        return st;
    if (!bl_layout_known(params->layout)) /* before the k check, which would blame k */
        return BL_E_BAD_LAYOUT;
    if (params->layout == BL_LAYOUT_SCALABLE) /* stages are sized by rate: no exact size */
        return exact != 0 ? BL_E_INVALID : bl_scalable_create(out, params, kern);
    if (params->expected_keys == 0)
        return BL_E_INVALID;
    if (params->k != 0 && !bl_layout_k_valid(params->layout, params->k))
        return BL_E_BAD_K;
    uint64_t bits;
    unsigned k;
    const bool by_fpp = !(params->bits_per_key > 0) && exact == 0;
    if (exact != 0)
        st = size_exactly(params, exact, &bits, &k);
    else if (by_fpp) /* a forced k gets the size at which it meets fpp */
        st = bl_size_for_fpp_k(params->layout, params->expected_keys, params->fpp, params->k,
                               &bits, &k);
    else
        st = bl_size_for_bits_per_key(params->layout, params->expected_keys, params->bits_per_key,
                                      &bits, &k);
    if (st != BL_OK)
        return st;
    if (params->k != 0)
        k = params->k; /* over a bits-per-key budget, whatever rate that k gives there */
    /* A budget (or a forced k in it) so small that the model's rate at n keys is 1 would answer
     * yes to every key: refused, as the file format refuses such a design. */
    const double model_fpp = bl_expected_fpp(params->layout, bits, k, params->expected_keys);
    if (!(model_fpp < 1.0))
        return BL_E_INVALID;
    const uint64_t block_bits = bl_layout_block_bytes(params->layout) * 8;
    st = bl_filter_new(out, params->layout, bits / block_bits, k, params->seed, params->flags, kern);
    if (st != BL_OK)
        return st;
    (*out)->design_keys = params->expected_keys;
    (*out)->design_fpp = by_fpp ? params->fpp : model_fpp;
    return BL_OK;
}

bl_status bl_create(bl_filter **out, const bl_params *params) { return create(out, params, 0); }

bl_status bl_create_with_bits(bl_filter **out, const bl_params *params, uint64_t bits)
{
    if (bits == 0) {
        if (out != NULL)
            *out = NULL;
        return BL_E_INVALID;
    }
    return create(out, params, bits);
}

void bl_scalable_free_stages(bl_filter *f);

void bl_free(bl_filter *filter)
{
    if (filter == NULL)
        return;
    bl_scalable_free_stages(filter);
    bl_payload_free(filter);
    free(filter);
}

bl_status bl_scalable_clone(bl_filter **out, const bl_filter *f);

bl_status bl_clone(bl_filter **out, const bl_filter *filter)
{
    if (out == NULL || filter == NULL)
        return BL_E_INVALID;
    *out = NULL;
    if (filter->layout == BL_LAYOUT_SCALABLE)
        return bl_scalable_clone(out, filter);
    bl_filter *c;
    bl_status st = bl_filter_new(&c, filter->layout, filter->nblocks, filter->k, filter->seed,
                                 filter->flags, filter->kern);
    if (st != BL_OK)
        return st;
    memcpy(c->data, filter->data, filter->nbytes);
    c->keys_added = filter->keys_added;
    c->keys_known = filter->keys_known;
    c->design_keys = filter->design_keys;
    c->design_fpp = filter->design_fpp;
    *out = c;
    return BL_OK;
}

bl_status bl_clear(bl_filter *filter)
{
    if (filter == NULL)
        return BL_E_INVALID;
    if (filter->storage == BL_STORAGE_FILE_MAP)
        return BL_E_READ_ONLY;
    if (filter->layout == BL_LAYOUT_SCALABLE)
        bl_scalable_clear(filter);
    if (filter->data != NULL)
        bl_payload_clear(filter);
    filter->keys_added = 0;
    filter->keys_known = true;
    return BL_OK;
}

const char *bl_filter_kernel(const bl_filter *filter)
{
    return filter != NULL && filter->kern != NULL ? filter->kern->name : NULL;
}
