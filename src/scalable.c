/* SPDX-License-Identifier: MIT */
/* Scalable layout: a growing chain of blocked stages (Almeida et al. 2007) under one target rate. */
#include "pipeline.h"

#include <math.h>
#include <stdlib.h>

/*
 * Stage i (0 = oldest) holds up to n0 * g^i keys at rate p_i = p (1 - r) r^i, where n0 is
 * design_keys, p design_fpp, g growth and r tightening. The rates form a geometric series whose
 * sum is p (1 - r) / (1 - r) = p, so a query that misses every stage is a false positive with
 * probability 1 - prod(1 - p_i) <= sum p_i < p however many stages the chain grows. With the
 * default r = 0.5 the first stage gets p/2, the next p/4, ...: each stage costs about
 * log2(1/r) / ln 2 = 1.44 more bits per key than the one before (r = 0.85 would spend fewer
 * bits on later stages but more on the first, p0 = 0.15 p). Growth g = 2 keeps the number of
 * stages logarithmic in n, so queries probe few lines.
 *
 * Everything here is derived from the top-level fields (hash, seed, kern, design_keys,
 * design_fpp, growth, tightening, keys_added, flags) and from the stages themselves (each a
 * blocked filter with its own keys_added), so a chain rebuilt by the loader from those fields
 * behaves exactly like the one that was saved. The top-level seed is the one keys are hashed
 * with (one hash serves every stage), so it must equal the stages' seed.
 */
#define BL_SCALABLE_DEFAULT_KEYS (UINT64_C(1) << 16)
#define BL_SCALABLE_MAX_KEYS 9007199254740992.0 /* 2^53: stage sizes stay exact in doubles */

bl_status bl_scalable_create(bl_filter **out, const bl_params *p, const struct bl_kernels *kern);
void bl_scalable_free_stages(bl_filter *f);
bl_status bl_scalable_clone(bl_filter **out, const bl_filter *f);

/* Capacities are n0 g^i by repeated products, not pow, the same in every build; a product past
 * 2^53 is not carried further (that stage and every later one are too large). */
static double next_stage_keys(const bl_filter *f, double keys)
{
    return keys <= BL_SCALABLE_MAX_KEYS ? keys * f->growth : keys;
}

static bl_status capacity_of(double keys, uint64_t *cap)
{
    const double c = ceil(keys);
    if (!(c >= 1 && c <= BL_SCALABLE_MAX_KEYS))
        return BL_E_TOO_LARGE;
    *cap = (uint64_t)c;
    return BL_OK;
}

static bl_status stage_capacity(const bl_filter *f, size_t i, uint64_t *cap)
{
    double keys = (double)f->design_keys;
    for (size_t j = 0; j < i && keys <= BL_SCALABLE_MAX_KEYS; j++)
        keys = next_stage_keys(f, keys);
    return capacity_of(keys, cap);
}

static double stage_fpp(const bl_filter *f, size_t i)
{
    return f->design_fpp * (1 - f->tightening) * pow(f->tightening, (double)i);
}

/* How far over its rate a stage, full, may be modeled: the line model has been refined before
 * (by up to 1.7x at rates below 1e-15), and a stage sized by an earlier model is not wrong. Fields
 * that do not describe the stages are off by orders of magnitude (a stage given 1000x its keys
 * answers yes to everything). */
#define BL_SCALABLE_MODEL_SLACK 2.0

void bl_scalable_walk_start(const bl_filter *chain, bl_scalable_walk *walk)
{
    walk->stage = 0;
    walk->keys = (double)chain->design_keys;
}

bool bl_scalable_walk_stage(const bl_filter *chain, bl_scalable_walk *walk, uint64_t lines,
                            unsigned k)
{
    uint64_t cap;
    const double p = stage_fpp(chain, walk->stage);
    const bool fits = capacity_of(walk->keys, &cap) == BL_OK && p > 0 &&
                      bl_expected_fpp(BL_LAYOUT_BLOCKED, lines * BL_LINE_BITS, k, cap) <=
                          p * BL_SCALABLE_MODEL_SLACK;
    walk->stage++;
    walk->keys = next_stage_keys(chain, walk->keys);
    return fits;
}

static const struct bl_kernels *stage_kern(const bl_filter *f, const bl_filter *s)
{
    return s->kern ? s->kern : f->kern;
}

static bl_status append_stage(bl_filter *f, bl_filter *s)
{
    if (f->nstages == f->stages_cap) {
        const size_t cap = f->stages_cap ? f->stages_cap * 2 : 4;
        bl_filter **grown = realloc(f->stages, cap * sizeof *grown);
        if (grown == NULL)
            return BL_E_NOMEM;
        f->stages = grown;
        f->stages_cap = cap;
    }
    f->stages[f->nstages++] = s;
    return BL_OK;
}

/* The next stage's capacity and rate, and its size by the blocked layout's own model. */
static bl_status next_stage_geometry(const bl_filter *f, uint64_t *cap, double *p,
                                     uint64_t *bits, unsigned *k)
{
    bl_status st = stage_capacity(f, f->nstages, cap);
    if (st != BL_OK)
        return st;
    *p = stage_fpp(f, f->nstages);
    if (!(*p > 0))
        return BL_E_TOO_LARGE;
    return bl_size_for_fpp(BL_LAYOUT_BLOCKED, *cap, *p, bits, k);
}

bool bl_scalable_can_grow(const bl_filter *chain)
{
    uint64_t cap, bits;
    double p;
    unsigned k;
    return next_stage_geometry(chain, &cap, &p, &bits, &k) == BL_OK;
}

/* Append the next stage. */
static bl_status grow(bl_filter *f)
{
    uint64_t cap, bits;
    double p;
    unsigned k;
    bl_status st = next_stage_geometry(f, &cap, &p, &bits, &k);
    if (st != BL_OK)
        return st;
    bl_filter *s;
    st = bl_filter_new(&s, BL_LAYOUT_BLOCKED, bits / BL_LINE_BITS, k, f->seed,
                       f->flags & ~BL_FLAG_CONCURRENT, f->kern);
    if (st != BL_OK)
        return st;
    s->design_keys = cap;
    s->design_fpp = p;
    st = append_stage(f, s);
    if (st != BL_OK)
        bl_free(s);
    return st;
}

bl_status bl_scalable_create(bl_filter **out, const bl_params *p, const struct bl_kernels *kern)
{
    *out = NULL;
    if (!(p->fpp > 0 && p->fpp < 1))
        return BL_E_INVALID;
    if (!(p->growth > 1) || !isfinite(p->growth))
        return BL_E_INVALID;
    if (!(p->tightening > 0 && p->tightening < 1))
        return BL_E_INVALID;
    /* Stages are sized by rate alone; a forced k or bits-per-key has no meaning for a chain. */
    if (p->k != 0 || p->bits_per_key > 0)
        return BL_E_INVALID;
    /* Appending a stage reallocates the chain: concurrent adders would race on it. */
    if (p->flags & BL_FLAG_CONCURRENT)
        return BL_E_UNSUPPORTED;
    bl_filter *f = calloc(1, sizeof *f);
    if (f == NULL)
        return BL_E_NOMEM;
    f->layout = BL_LAYOUT_SCALABLE;
    f->hash = bl_layout_hash(BL_LAYOUT_SCALABLE);
    bl_filter_set_seed(f, p->seed);
    f->flags = p->flags;
    bl_filter_set_kernel(f, kern);
    f->keys_known = true;
    f->design_keys = p->expected_keys ? p->expected_keys : BL_SCALABLE_DEFAULT_KEYS;
    f->design_fpp = p->fpp;
    f->growth = p->growth;
    f->tightening = p->tightening;
    bl_status st = grow(f);
    if (st != BL_OK) {
        bl_free(f);
        return st;
    }
    /* Parameters under which the first stage is the last (growth 1e300, tightening 1e-300) would
     * only show at the first add past it: refuse them here. */
    if (!bl_scalable_can_grow(f)) {
        bl_free(f);
        return BL_E_INVALID;
    }
    f->k = f->stages[0]->k;
    *out = f;
    return BL_OK;
}

void bl_scalable_free_stages(bl_filter *f)
{
    for (size_t i = 0; i < f->nstages; i++)
        bl_free(f->stages[i]);
    free(f->stages);
    f->stages = NULL;
    f->nstages = 0;
    f->stages_cap = 0;
}

bl_status bl_scalable_clone(bl_filter **out, const bl_filter *f)
{
    bl_filter *c = calloc(1, sizeof *c);
    if (c == NULL)
        return BL_E_NOMEM;
    *c = *f;
    c->data = NULL;
    c->nbytes = 0;
    c->storage = BL_STORAGE_HEAP;
    c->map_base = NULL;
    c->map_len = 0;
    c->stages = NULL;
    c->nstages = 0;
    c->stages_cap = 0;
    for (size_t i = 0; i < f->nstages; i++) {
        bl_filter *s;
        bl_status st = bl_clone(&s, f->stages[i]);
        if (st == BL_OK && (st = append_stage(c, s)) != BL_OK)
            bl_free(s);
        if (st != BL_OK) {
            bl_free(c);
            return st;
        }
    }
    *out = c;
    return BL_OK;
}

/* Later stages are freed, not kept emptied: adds go to the newest stage only, so the older ones
 * would stay empty for good while every query still probed them, and the chain would grow past
 * them (a cleared chain of 7 stages took 8 and twice the memory to hold its keys again). */
void bl_scalable_clear(bl_filter *f)
{
    for (size_t i = 1; i < f->nstages; i++)
        bl_free(f->stages[i]);
    if (f->nstages > 1)
        f->nstages = 1;
    if (f->nstages == 1)
        bl_clear(f->stages[0]);
}

/* The keys from h[i] on that a full stage holds, passed over: returns the first it lacks (n if
 * none). Tested a piece at a time by the kernel's batched query, with its prefetch: one
 * blocked_contains a key waited for each line, so adds to a newest stage at or past its
 * capacity (a union, or filled exactly) took 16-37 ns per held key at 2^24 keys against 4-11
 * with room left (4.7-5.5 this way; 2-core VM, busy). The part of a piece past the key the stage
 * lacks is tested for nothing, once per stage opened. */
#define BL_PASS_PIECE 256
static size_t pass_over_held(const struct bl_kernels *kern, const bl_filter *s, const uint64_t *h,
                             size_t i, size_t n, size_t avail)
{
    uint8_t held[BL_PASS_PIECE];
    while (i < n) {
        const size_t m = n - i < BL_PASS_PIECE ? n - i : BL_PASS_PIECE;
        if (kern->blocked_test(s->data, s->nblocks, s->k, h + i, m, avail - i, held) < m)
            for (size_t j = 0; j < m; j++)
                if (!held[j])
                    return i + j;
        i += m;
    }
    return n;
}

/* A chain gets its first stage with its first key (an emptied or loaded one may have none). */
static bl_status first_stage(bl_filter *f)
{
    return f->nstages == 0 ? grow(f) : BL_OK;
}

/* The keys the newest stage s may still take. */
static bl_status newest_room(const bl_filter *f, const bl_filter *s, uint64_t *room)
{
    uint64_t cap = 0;
    const bl_status st = stage_capacity(f, f->nstages - 1, &cap);
    *room = cap > s->keys_added ? cap - s->keys_added : 0;
    return st;
}

static void count_taken(bl_filter *f, bl_filter *s, uint64_t taken)
{
    s->keys_added += taken;
    f->keys_added = bl_keys_sum(f->keys_added, taken);
}

/* Add h[0, n) in order to the newest stage, which takes the keys new to it until it is full
 * (the kernels' blocked_add_new: the add loop plus one test per key). A full stage gives way
 * to the next only for a key it lacks: the keys it holds are passed over first. */
static bl_status add_in_order(bl_filter *f, const uint64_t *h, size_t n, size_t avail)
{
    size_t i = 0;
    while (i < n) {
        bl_filter *s = f->stages[f->nstages - 1];
        const struct bl_kernels *kern = stage_kern(f, s);
        uint64_t room;
        bl_status st = newest_room(f, s, &room);
        if (st != BL_OK)
            return st;
        uint64_t taken = 0;
        i += kern->blocked_add_new(s->data, s->nblocks, s->k, h + i, n - i, avail - i, room,
                                   &taken);
        count_taken(f, s, taken);
        i = pass_over_held(kern, s, h, i, n, avail);
        if (i < n && (st = grow(f)) != BL_OK)
            return st;
    }
    return BL_OK;
}

/* A key the newest stage already holds is not taken again: its bits there are all set, so
 * adding it would change no bit, only the count that decides when the chain grows. A stream
 * that repeats its keys (a log, a crawl frontier) then fills stages with its distinct keys,
 * not its lines (3M lines of 20000 distinct keys had grown a 2^20-key chain to two stages,
 * 5 MB, with an estimate of 40000 keys; the chain stays at its first stage now). Only the
 * newest stage is asked, so an add still touches one line: a key held by an older stage only
 * is taken again, once per stage at most (asking every stage would read one line per stage per
 * add: 2x the time with 5 stages). A stage whose capacity holds every distinct key is never
 * left, so repeats grow the chain to that stage at most: with growth >= 2 one past the stages
 * the keys fill once each (n0 g^S >= n0 (g^S - 1) / (g - 1)), further nearer 1 (growth 1.1: 26
 * stages against 8, test_repeats_stage_bound). A key passed over as a false positive answers
 * yes for good all the same: bits are never cleared while the chain lives. Keys are taken in
 * order, one at a time, so the chain is the same however they are split into calls. */
bl_status bl_scalable_add_hashes(bl_filter *f, const uint64_t *h, size_t n, size_t avail)
{
    const bl_status st = first_stage(f);
    return st != BL_OK ? st : add_in_order(f, h, n, avail);
}

/* One key, as add_in_order takes it, with the stage's single-key probe and add instead of the
 * batch loops, whose chunk and prefetch set-up cost more than the key (14 ns per bl_add_u64 at
 * 2^16 keys): a key the newest stage holds changes nothing and is not counted; one it lacks is
 * added and counted while the stage has room, else the chain grows and the new stage is asked. */
bl_status bl_scalable_add_one(bl_filter *f, uint64_t h)
{
    bl_status st = first_stage(f);
    if (st != BL_OK)
        return st;
    for (;;) {
        bl_filter *s = f->stages[f->nstages - 1];
        const struct bl_kernels *kern = stage_kern(f, s);
        if (kern->blocked_contains(s->data, s->nblocks, s->k, h))
            return BL_OK;
        uint64_t room;
        if ((st = newest_room(f, s, &room)) != BL_OK)
            return st;
        if (room > 0) {
            kern->blocked_add_one(s->data, s->nblocks, s->k, h);
            count_taken(f, s, 1);
            return BL_OK;
        }
        if ((st = grow(f)) != BL_OK)
            return st;
    }
}

bool bl_scalable_test_one(const bl_filter *f, uint64_t h)
{
    /* each stage's single-key probe: no chunk buffers or prefetch window to set up for one key */
    for (size_t si = f->nstages; si-- > 0;) {
        const bl_filter *s = f->stages[si];
        if (stage_kern(f, s)->blocked_contains(s->data, s->nblocks, s->k, h))
            return true;
    }
    return false;
}

/* Newest stage first over the whole chunk, then each older stage over the keys still missing
 * only (compacted, so the kernels keep running full batches with their prefetch). */
size_t bl_scalable_test_hashes(const bl_filter *f, const uint64_t *h, size_t n, size_t avail,
                               uint8_t *res)
{
    size_t hits = 0;
    for (size_t off = 0; off < n; off += BL_PIPELINE_CHUNK) {
        const size_t cnt = n - off < BL_PIPELINE_CHUNK ? n - off : BL_PIPELINE_CHUNK;
        uint8_t found[BL_PIPELINE_CHUNK], r[BL_PIPELINE_CHUNK];
        uint64_t miss_h[BL_PIPELINE_CHUNK];
        uint16_t miss_i[BL_PIPELINE_CHUNK];
        memset(found, 0, cnt);
        size_t nmiss = 0;
        for (size_t si = f->nstages; si-- > 0;) {
            const bl_filter *s = f->stages[si];
            const struct bl_kernels *kern = stage_kern(f, s);
            if (si == f->nstages - 1) {
                kern->blocked_test(s->data, s->nblocks, s->k, h + off, cnt, avail - off, found);
                for (size_t j = 0; j < cnt; j++)
                    if (!found[j]) {
                        miss_h[nmiss] = h[off + j];
                        miss_i[nmiss++] = (uint16_t)j;
                    }
                continue;
            }
            if (nmiss == 0)
                break;
            kern->blocked_test(s->data, s->nblocks, s->k, miss_h, nmiss, nmiss, r);
            size_t keep = 0;
            for (size_t j = 0; j < nmiss; j++) {
                if (r[j]) {
                    found[miss_i[j]] = 1;
                } else {
                    miss_h[keep] = miss_h[j];
                    miss_i[keep++] = miss_i[j];
                }
            }
            nmiss = keep;
        }
        for (size_t j = 0; j < cnt; j++)
            hits += found[j];
        if (res)
            memcpy(res + off, found, cnt);
    }
    return hits;
}

/* Chains built with the same parameters grow identical stages, so two chains are compatible
 * when their parameters agree and their common stages (the shorter chain is a prefix) agree. */
bool bl_scalable_same_identity(const bl_filter *a, const bl_filter *b)
{
    if (a->hash != b->hash || a->seed != b->seed || a->design_keys != b->design_keys ||
        a->design_fpp != b->design_fpp || a->growth != b->growth ||
        a->tightening != b->tightening)
        return false;
    const size_t common = a->nstages < b->nstages ? a->nstages : b->nstages;
    for (size_t i = 0; i < common; i++)
        if (!bl_same_identity(a->stages[i], b->stages[i]))
            return false;
    return true;
}

/* Union ORs stage i into stage i (a key lives in one stage of its chain, so it stays found) and
 * copies the stages only src has. Intersection cannot be done stage by stage: a key common to
 * both chains may sit in stage 0 of one and stage 3 of the other, and ANDing would lose it. */
bl_status bl_scalable_merge(bl_filter *dst, const bl_filter *src, bool intersect)
{
    if (intersect)
        return BL_E_UNSUPPORTED;
    for (size_t i = 0; i < dst->nstages; i++)
        if (dst->stages[i]->storage == BL_STORAGE_FILE_MAP)
            return BL_E_READ_ONLY;
    /* Clone src's extra stages first, so a failed allocation leaves dst unchanged. */
    const size_t common = dst->nstages < src->nstages ? dst->nstages : src->nstages;
    const size_t extra = src->nstages - common;
    bl_filter **copies = NULL;
    if (extra) {
        copies = calloc(extra, sizeof *copies);
        if (copies == NULL)
            return BL_E_NOMEM;
    }
    bl_status st = BL_OK;
    for (size_t i = 0; i < extra && st == BL_OK; i++)
        st = bl_clone(&copies[i], src->stages[common + i]);
    if (st == BL_OK && dst->nstages + extra > dst->stages_cap) {
        bl_filter **grown = realloc(dst->stages, (dst->nstages + extra) * sizeof *grown);
        if (grown == NULL) {
            st = BL_E_NOMEM;
        } else {
            dst->stages = grown;
            dst->stages_cap = dst->nstages + extra;
        }
    }
    if (st != BL_OK) {
        for (size_t i = 0; i < extra; i++)
            bl_free(copies[i]);
        free(copies);
        return st;
    }
    for (size_t i = 0; i < common; i++)
        if ((st = bl_union(dst->stages[i], src->stages[i])) != BL_OK)
            break; /* cannot happen: identities and writability were checked */
    for (size_t i = 0; i < extra; i++)
        dst->stages[dst->nstages++] = copies[i];
    free(copies);
    dst->keys_added = bl_keys_sum(dst->keys_added, src->keys_added);
    dst->keys_known = dst->keys_known && src->keys_known;
    return st;
}

bl_status bl_scalable_get_info(const bl_filter *f, bl_info *info)
{
    memset(info, 0, sizeof *info);
    double set = 0, pass = 1;
    for (size_t i = 0; i < f->nstages; i++) {
        bl_info si;
        bl_status st = bl_get_info(f->stages[i], &si);
        if (st != BL_OK)
            return st;
        info->bits += si.bits;
        info->bytes += si.bytes;
        info->blocks += si.blocks;
        info->k = si.k; /* the newest stage's */
        info->estimated_keys += si.estimated_keys;
        set += si.fill_ratio * (double)si.bits;
        pass *= 1 - si.current_fpp;
        info->hash_name = si.hash_name;
    }
    info->layout = f->layout;
    info->layout_name = bl_layout_name(f->layout);
    info->hash = f->hash;
    info->seed = f->seed;
    info->design_keys = f->design_keys; /* the first stage's capacity: the chain grows past it */
    info->design_fpp = f->design_fpp;
    info->keys_added = f->keys_added;
    info->keys_known = f->keys_known;
    info->fill_ratio = info->bits ? set / (double)info->bits : 0;
    info->current_fpp = 1 - pass;
    info->stages = f->nstages;
    info->mapped = f->storage == BL_STORAGE_FILE_MAP;
    info->kernel = f->kern ? f->kern->name : NULL;
    if (info->hash_name == NULL)
        info->hash_name = "xxh3";
    return BL_OK;
}

bl_status bl_get_stage_info(const bl_filter *filter, size_t stage, bl_info *info)
{
    if (filter == NULL || info == NULL)
        return BL_E_INVALID;
    if (filter->layout != BL_LAYOUT_SCALABLE) /* any other filter is its own single stage */
        return stage == 0 ? bl_get_info(filter, info) : BL_E_INVALID;
    if (stage >= filter->nstages)
        return BL_E_INVALID;
    return bl_get_info(filter->stages[stage], info);
}
