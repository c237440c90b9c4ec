/* SPDX-License-Identifier: MIT */
/* bl_get_info: geometry, fill ratio, and the estimates that follow from the fill. */
#include "counting.h"

#include <math.h>

static const char *hash_name(bl_hash_scheme h)
{
    switch (h) {
    case BL_HASH_XXH3: return "xxh3";
    case BL_HASH_XXH64: return "xxh64";
    case BL_HASH_MURMUR3_128: return "murmur3_x64_128";
    }
    return "unknown";
}

/* Invert the expected fill of each model. Line filters: a slot stays clear with probability
 * E[c^L] = exp(-lambda (1 - c)) for Poisson(lambda) loads, c = 1 - k/B the chance that one key
 * leaves it clear (a key takes k distinct of the line's B slots); sbbf words:
 * exp(-lambda / 32); classic: exp(-k n / m). */
static void estimate(const bl_filter *f, bl_layout model, uint64_t set, uint64_t slots,
                     bl_info *info)
{
    double fill = slots ? (double)set / (double)slots : 0;
    info->fill_ratio = fill;
    /* A saturated filter has no finite estimate; clamp to half a slot clear. */
    double clear = 1 - fill;
    if (clear < 0.5 / (double)slots)
        clear = 0.5 / (double)slots;
    /* -log(1) is -0, which an empty filter printed as "-0" estimated keys. */
    const double ln_clear = fill == 0 ? 0 : -log(clear);
    double lambda;
    switch (model) {
    case BL_LAYOUT_BLOCKED:
    case BL_LAYOUT_COUNTING: {
        const unsigned b = model == BL_LAYOUT_BLOCKED ? BL_LINE_BITS : BL_COUNTING_SLOTS;
        lambda = ln_clear / -expm1(bl_model_line_clear_log(b, f->k));
        info->estimated_keys = lambda * (double)f->nblocks;
        info->current_fpp = fill == 0 ? 0 : bl_model_line_fpp(b, f->k, lambda);
        break;
    }
    case BL_LAYOUT_SBBF:
        lambda = 32 * ln_clear;
        info->estimated_keys = lambda * (double)f->nblocks;
        info->current_fpp = fill == 0 ? 0 : bl_model_sbbf_fpp(lambda);
        break;
    case BL_LAYOUT_CLASSIC:
        info->estimated_keys = (double)f->nbits / f->k * ln_clear;
        info->current_fpp =
            fill == 0 ? 0 : bl_model_classic_fpp_fill((double)f->nbits, f->k, fill,
                                                      info->estimated_keys);
        break;
    case BL_LAYOUT_SCALABLE:
        break;
    }
    /* Every probe of every key finds its bit (counter) set: the rate is 1, not the model's value
     * at the clamped fill above (0.993 for one full blocked line). */
    if (set == slots && slots != 0)
        info->current_fpp = 1;
}

static void describe(const bl_filter *f, bl_info *info)
{
    memset(info, 0, sizeof *info);
    info->layout = f->layout;
    info->layout_name = bl_layout_name(f->layout);
    info->hash = f->hash;
    info->hash_name = hash_name(f->hash);
    info->seed = f->seed;
    info->bits = f->nbits;
    info->bytes = f->nbytes;
    info->blocks = f->nblocks;
    info->k = f->k;
    info->design_keys = f->design_keys;
    info->design_fpp = f->design_fpp;
    info->keys_added = __atomic_load_n(&f->keys_added, __ATOMIC_RELAXED);
    info->keys_known = f->keys_known;
    info->stages = 1;
    info->mapped = f->storage == BL_STORAGE_FILE_MAP;
    info->kernel = f->kern ? f->kern->name : NULL;
}

/* Whether a blocked filter's bits all come in whole nibbles (each 0 or 15), some set and some
 * clear: then it is a frozen counting filter (bl_freeze), whose every key probe set the 4 bits
 * of a counter. Estimated with the blocked model, such a filter held 4x its keys at 2/3 of the
 * rate it answers at. No flag records a freeze (the file format has none), so the bits decide:
 * a key added to a blocked filter sets one bit of each nibble it touches, so a filter built by
 * adds has every touched nibble whole only when full (else by a vanishing chance: each needs 4
 * keys on its 4 bits). Such a filter shows a partial nibble in its first words, which ends the
 * scan. */
static bool frozen_counting(const bl_filter *f, uint64_t set)
{
    if (set == 0 || set == f->nbits)
        return false;
    const uint64_t *w = (const uint64_t *)(const void *)f->data;
    const uint64_t low = 0x1111111111111111ULL;
    for (size_t i = 0; i < f->nbytes / 8; i++) {
        const uint64_t x = w[i];
        if (bl_counting_nonzero_bits(x) ^ (x & x >> 1 & x >> 2 & x >> 3 & low))
            return false;
    }
    return true;
}

bl_status bl_get_info(const bl_filter *filter, bl_info *info)
{
    if (filter == NULL || info == NULL)
        return BL_E_INVALID;
    if (filter->layout == BL_LAYOUT_SCALABLE)
        return bl_scalable_get_info(filter, info);
    describe(filter, info);
    const uint64_t counters = filter->nblocks * BL_COUNTING_SLOTS;
    if (filter->layout == BL_LAYOUT_COUNTING) {
        estimate(filter, BL_LAYOUT_COUNTING, bl_counting_nonzero(filter), counters, info);
        return BL_OK;
    }
    const uint64_t set = filter->kern->count_bits(filter->data, filter->nbytes);
    if (filter->layout == BL_LAYOUT_BLOCKED && frozen_counting(filter, set))
        /* every non-zero nibble whole: its counters are a quarter of its bits */
        estimate(filter, BL_LAYOUT_COUNTING, set / 4, counters, info);
    else
        estimate(filter, filter->layout, set, filter->nbits, info);
    return BL_OK;
}
