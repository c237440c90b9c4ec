/* SPDX-License-Identifier: MIT */
/* Native file format codec: little-endian header and stage table, field by field, validated. */
#include "format.h"

#include <math.h>
#include <stdlib.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

/* ---- Little-endian fields ------------------------------------------------------------------- */

static void put32(uint8_t *p, uint32_t v)
{
    for (unsigned i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v)
{
    for (unsigned i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static void putf64(uint8_t *p, double d)
{
    uint64_t v;
    memcpy(&v, &d, sizeof v); /* IEEE 754 binary64 on every supported target */
    put64(p, v);
}
static uint32_t get32(const uint8_t *p)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < 4; i++)
        v |= (uint32_t)p[i] << (8 * i);
    return v;
}
static uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}
static double getf64(const uint8_t *p)
{
    uint64_t v = get64(p);
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}
static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0)
            return false;
    return true;
}

uint64_t bl_format_checksum(const void *data, size_t len) { return XXH3_64bits(data, len); }

uint64_t bl_format_table_end(uint32_t nstages)
{
    return BL_FORMAT_HEADER_BYTES + (uint64_t)nstages * BL_FORMAT_STAGE_BYTES;
}

uint64_t bl_format_align(uint64_t off)
{
    return (off + (BL_FORMAT_ALIGN - 1)) & ~(uint64_t)(BL_FORMAT_ALIGN - 1);
}

/* Scalable stages are blocked filters; every other layout is its own single stage. */
static bl_layout stage_layout(bl_layout layout)
{
    return layout == BL_LAYOUT_SCALABLE ? BL_LAYOUT_BLOCKED : layout;
}

/* A design rate: 0 (unknown) or in (0, 1). */
static bool fpp_valid(double p) { return p >= 0.0 && p < 1.0; }

/* ---- Writing -------------------------------------------------------------------------------- */

static uint32_t nstages_of(const bl_filter *f)
{
    return f->layout == BL_LAYOUT_SCALABLE ? (uint32_t)f->nstages : 1;
}

const bl_filter *bl_format_stage_filter(const bl_filter *f, uint32_t i)
{
    return f->layout == BL_LAYOUT_SCALABLE ? f->stages[i] : f;
}

bl_status bl_format_describe(const bl_filter *f, bl_format_header *h)
{
    if (f == NULL || h == NULL || (unsigned)f->layout > BL_LAYOUT_SCALABLE)
        return BL_E_INVALID;
    if (f->layout == BL_LAYOUT_SCALABLE && (f->nstages > UINT32_MAX || (f->nstages && !f->stages)))
        return BL_E_INVALID;
    memset(h, 0, sizeof *h);
    h->layout = f->layout;
    h->hash = f->hash;
    h->k = f->k;
    h->seed = f->seed;
    h->keys_added = __atomic_load_n(&f->keys_added, __ATOMIC_RELAXED);
    h->keys_known = f->keys_known;
    h->design_keys = f->design_keys;
    h->design_fpp = f->design_fpp;
    if (f->layout == BL_LAYOUT_SCALABLE) {
        h->growth = f->growth;
        h->tightening = f->tightening;
    }
    h->nstages = nstages_of(f);
    uint64_t end = bl_format_table_end(h->nstages);
    for (uint32_t i = 0; i < h->nstages; i++) {
        const bl_filter *s = bl_format_stage_filter(f, i);
        if (s == NULL || s->data == NULL || s->layout != stage_layout(f->layout))
            return BL_E_INVALID;
        const uint64_t off = bl_format_align(end);
        if (s->nbytes > UINT64_MAX / 8 - off || h->nbits > UINT64_MAX - (uint64_t)s->nbytes * 8)
            return BL_E_TOO_LARGE;
        end = off + s->nbytes;
        h->nbits += (uint64_t)s->nbytes * 8;
    }
    h->file_size = end;
    if (end > SIZE_MAX)
        return BL_E_TOO_LARGE;
    return BL_OK;
}

static void encode_stage(uint8_t *r, const bl_filter *s, uint64_t offset)
{
    put64(r + BL_FS_NBLOCKS, s->nblocks);
    put64(r + BL_FS_NBITS, (uint64_t)s->nbytes * 8);
    put32(r + BL_FS_K, s->k);
    put64(r + BL_FS_SEED, s->seed);
    put64(r + BL_FS_KEYS, __atomic_load_n(&s->keys_added, __ATOMIC_RELAXED));
    put64(r + BL_FS_DESIGN_KEYS, s->design_keys);
    putf64(r + BL_FS_DESIGN_FPP, s->design_fpp);
    put64(r + BL_FS_OFFSET, offset);
    put64(r + BL_FS_SIZE, s->nbytes);
    put64(r + BL_FS_CHECKSUM, bl_format_checksum(s->data, s->nbytes));
}

static void encode_header(uint8_t *p, const bl_format_header *h)
{
    memcpy(p + BL_FH_MAGIC, BL_FORMAT_MAGIC, BL_FORMAT_MAGIC_LEN);
    put32(p + BL_FH_VERSION, BL_FORMAT_VERSION);
    put32(p + BL_FH_LAYOUT, (uint32_t)h->layout);
    put32(p + BL_FH_HASH, (uint32_t)h->hash);
    put32(p + BL_FH_K, h->k);
    put64(p + BL_FH_SEED, h->seed);
    put64(p + BL_FH_KEYS, h->keys_added);
    put64(p + BL_FH_DESIGN_KEYS, h->design_keys);
    putf64(p + BL_FH_DESIGN_FPP, h->design_fpp);
    putf64(p + BL_FH_GROWTH, h->growth);
    putf64(p + BL_FH_TIGHTENING, h->tightening);
    put32(p + BL_FH_FLAGS, h->keys_known ? BL_FORMAT_FLAG_KEYS_KNOWN : 0);
    put32(p + BL_FH_NSTAGES, h->nstages);
    put64(p + BL_FH_NBITS, h->nbits);
    put64(p + BL_FH_FILE_SIZE, h->file_size);
    put64(p + BL_FH_TABLE_CHECKSUM, h->table_checksum);
    memset(p + BL_FH_RESERVED, 0, BL_FH_HEADER_CHECKSUM - BL_FH_RESERVED);
    put64(p + BL_FH_HEADER_CHECKSUM, bl_format_checksum(p, BL_FH_HEADER_CHECKSUM));
}

bl_status bl_format_encode(const bl_filter *f, uint8_t *out, size_t out_len, bl_format_header *h)
{
    bl_status st = bl_format_describe(f, h);
    if (st != BL_OK)
        return st;
    const uint64_t table_end = bl_format_table_end(h->nstages);
    const uint64_t prefix = bl_format_prefix_bytes(h->nstages);
    if (out_len < prefix)
        return BL_E_BUFFER_TOO_SMALL;
    memset(out, 0, (size_t)prefix);
    uint64_t end = table_end;
    for (uint32_t i = 0; i < h->nstages; i++) {
        const bl_filter *s = bl_format_stage_filter(f, i);
        const uint64_t off = bl_format_align(end);
        encode_stage(out + bl_format_table_end(i), s, off);
        end = off + s->nbytes;
    }
    h->table_checksum = bl_format_checksum(out + BL_FORMAT_HEADER_BYTES,
                                           (size_t)(prefix - BL_FORMAT_HEADER_BYTES));
    encode_header(out, h);
    /* Never write what the reader would refuse (a NaN design rate, an absurd k, ...). */
    bl_format_header check;
    st = bl_format_decode_header(out, (size_t)prefix, h->file_size, &check);
    if (st == BL_OK)
        st = bl_format_decode_table(&check, out + BL_FORMAT_HEADER_BYTES, h->file_size);
    return st == BL_OK ? BL_OK : BL_E_INVALID;
}

uint64_t bl_format_prefix_bytes(uint32_t nstages)
{
    return nstages ? bl_format_align(bl_format_table_end(nstages)) : bl_format_table_end(0);
}

/* ---- Reading -------------------------------------------------------------------------------- */

/* A chain's fields as the filter bl_scalable_* reads them to decide its stages. */
static bl_filter chain_fields(const bl_format_header *h)
{
    return (bl_filter){.layout = BL_LAYOUT_SCALABLE,
                       .design_keys = h->design_keys,
                       .design_fpp = h->design_fpp,
                       .growth = h->growth,
                       .tightening = h->tightening};
}

bl_status bl_format_decode_header(const uint8_t *buf, size_t avail, uint64_t total,
                                  bl_format_header *h)
{
    if (avail > total)
        avail = (size_t)total;
    /* A prefix of the magic is a truncated file; anything else is not ours. */
    const size_t mlen = avail < BL_FORMAT_MAGIC_LEN ? avail : BL_FORMAT_MAGIC_LEN;
    if (memcmp(buf, BL_FORMAT_MAGIC, mlen) != 0)
        return BL_E_BAD_MAGIC;
    if (avail < BL_FH_VERSION + 4)
        return BL_E_TRUNCATED;
    /* The version comes before the checksum: a later version may checksum differently. */
    if (get32(buf + BL_FH_VERSION) != BL_FORMAT_VERSION)
        return BL_E_BAD_VERSION;
    if (avail < BL_FORMAT_HEADER_BYTES)
        return BL_E_TRUNCATED;
    if (get64(buf + BL_FH_HEADER_CHECKSUM) != bl_format_checksum(buf, BL_FH_HEADER_CHECKSUM))
        return BL_E_HEADER_CHECKSUM;

    const uint32_t layout = get32(buf + BL_FH_LAYOUT);
    const uint32_t hash = get32(buf + BL_FH_HASH);
    const uint32_t flags = get32(buf + BL_FH_FLAGS);
    memset(h, 0, sizeof *h);
    if (layout > BL_LAYOUT_SCALABLE)
        return BL_E_BAD_LAYOUT;
    h->layout = (bl_layout)layout;
    if (hash != (uint32_t)bl_layout_hash(h->layout))
        return BL_E_BAD_LAYOUT;
    h->hash = (bl_hash_scheme)hash;
    /* Unknown flags or reserved bytes mean a writer newer than this reader. */
    if ((flags & ~BL_FORMAT_FLAG_KEYS_KNOWN) != 0 ||
        !all_zero(buf + BL_FH_RESERVED, BL_FH_HEADER_CHECKSUM - BL_FH_RESERVED))
        return BL_E_BAD_VERSION;
    h->k = get32(buf + BL_FH_K);
    h->seed = get64(buf + BL_FH_SEED);
    h->keys_added = get64(buf + BL_FH_KEYS);
    h->design_keys = get64(buf + BL_FH_DESIGN_KEYS);
    h->design_fpp = getf64(buf + BL_FH_DESIGN_FPP);
    h->growth = getf64(buf + BL_FH_GROWTH);
    h->tightening = getf64(buf + BL_FH_TIGHTENING);
    h->keys_known = flags & BL_FORMAT_FLAG_KEYS_KNOWN;
    h->nstages = get32(buf + BL_FH_NSTAGES);
    h->nbits = get64(buf + BL_FH_NBITS);
    h->file_size = get64(buf + BL_FH_FILE_SIZE);
    h->table_checksum = get64(buf + BL_FH_TABLE_CHECKSUM);

    if (h->layout == BL_LAYOUT_SCALABLE) {
        /* A chain's own k is informational (stages carry theirs); 0 is allowed. */
        if (h->k != 0 && !bl_layout_k_valid(BL_LAYOUT_BLOCKED, h->k))
            return BL_E_BAD_K;
        /* What bl_create accepts for a chain, and what it needs to grow: n and p known. */
        if (!(h->growth > 1.0 && isfinite(h->growth)) ||
            !(h->tightening > 0.0 && h->tightening < 1.0) || h->design_keys == 0 ||
            !(h->design_fpp > 0.0 && h->design_fpp < 1.0))
            return BL_E_BAD_GEOMETRY;
    } else {
        if (!bl_layout_k_valid(h->layout, h->k))
            return BL_E_BAD_K;
        /* Bit patterns, not values: -0.0 would not be written back identically. */
        if (h->nstages != 1 || get64(buf + BL_FH_GROWTH) != 0 || get64(buf + BL_FH_TIGHTENING) != 0)
            return BL_E_BAD_GEOMETRY;
    }
    if (!fpp_valid(h->design_fpp))
        return BL_E_BAD_GEOMETRY;
    /* A chain with no stage must be able to make its first, as bl_create does: a header field,
     * checked here with the others (FORMAT.md's step 4), before the table checksum. */
    if (h->layout == BL_LAYOUT_SCALABLE && h->nstages == 0) {
        const bl_filter chain = chain_fields(h);
        if (!bl_scalable_can_grow(&chain))
            return BL_E_BAD_GEOMETRY;
    }
    if (bl_format_prefix_bytes(h->nstages) > h->file_size)
        return BL_E_BAD_GEOMETRY;
    if (bl_format_prefix_bytes(h->nstages) > total)
        return BL_E_TRUNCATED;
    return BL_OK;
}

void bl_format_stage_at(const uint8_t *table, uint32_t i, bl_format_stage *s)
{
    const uint8_t *r = table + (size_t)i * BL_FORMAT_STAGE_BYTES;
    s->nblocks = get64(r + BL_FS_NBLOCKS);
    s->nbits = get64(r + BL_FS_NBITS);
    s->k = get32(r + BL_FS_K);
    s->seed = get64(r + BL_FS_SEED);
    s->keys_added = get64(r + BL_FS_KEYS);
    s->design_keys = get64(r + BL_FS_DESIGN_KEYS);
    s->design_fpp = getf64(r + BL_FS_DESIGN_FPP);
    s->offset = get64(r + BL_FS_OFFSET);
    s->size = get64(r + BL_FS_SIZE);
    s->checksum = get64(r + BL_FS_CHECKSUM);
}

/* One stage record against the header; `end` is where the previous payload ended. */
static bl_status check_stage(const bl_format_header *h, const uint8_t *r, const bl_format_stage *s,
                             uint64_t end)
{
    const bl_layout layout = stage_layout(h->layout);
    const uint64_t block_bytes = bl_layout_block_bytes(layout);
    if (get32(r + BL_FS_RESERVED0) != 0 ||
        !all_zero(r + BL_FS_RESERVED1, BL_FORMAT_STAGE_BYTES - BL_FS_RESERVED1))
        return BL_E_BAD_VERSION;
    if (!bl_layout_k_valid(layout, s->k) || (h->layout != BL_LAYOUT_SCALABLE && s->k != h->k))
        return BL_E_BAD_K;
    /* Sizes are checked by division first, so no product below can overflow. */
    if (s->nblocks == 0 || s->nblocks > UINT64_MAX / 8 / block_bytes ||
        s->size != s->nblocks * block_bytes || s->nbits != s->size * 8 || s->size > SIZE_MAX / 2)
        return BL_E_BAD_GEOMETRY;
    if (layout == BL_LAYOUT_SBBF && s->nblocks > (UINT64_C(1) << 32))
        return BL_E_BAD_GEOMETRY;
    if (!fpp_valid(s->design_fpp))
        return BL_E_BAD_GEOMETRY;
    /* Every stage of a chain is probed with the chain's hash, so its seed must be the chain's. */
    if (s->seed != h->seed)
        return BL_E_BAD_GEOMETRY;
    /* A single filter's record repeats the header's identity and counts. */
    if (h->layout != BL_LAYOUT_SCALABLE &&
        (s->keys_added != h->keys_added ||
         s->design_keys != h->design_keys || memcmp(&s->design_fpp, &h->design_fpp, 8) != 0))
        return BL_E_BAD_GEOMETRY;
    /* Payloads sit at canonical, page-aligned offsets, inside the declared file size. */
    if (end > h->file_size || s->offset != bl_format_align(end) || s->offset > h->file_size ||
        s->size > h->file_size - s->offset)
        return BL_E_BAD_GEOMETRY;
    return BL_OK;
}

/* A chain's stages against its fields, which decide how many keys each add puts in its newest
 * stage: every stage holds what the fields give it (bl_scalable_walk_stage), and the header's
 * count is the stages' (a union sums both alike, held at UINT64_MAX). Stage counts may exceed
 * their capacity: a union leaves them so, and a full newest stage only makes the next one. */
static bl_status check_chain(const bl_format_header *h, const uint8_t *table)
{
    bl_filter chain = chain_fields(h);
    bl_scalable_walk walk;
    bl_scalable_walk_start(&chain, &walk);
    uint64_t keys = 0;
    for (uint32_t i = 0; i < h->nstages; i++) {
        bl_format_stage s;
        bl_format_stage_at(table, i, &s);
        if (!bl_scalable_walk_stage(&chain, &walk, s.nblocks, s.k))
            return BL_E_BAD_GEOMETRY;
        keys = bl_keys_sum(keys, s.keys_added);
    }
    return keys == h->keys_added ? BL_OK : BL_E_BAD_GEOMETRY;
}

bl_status bl_format_decode_table(const bl_format_header *h, const uint8_t *table, uint64_t total)
{
    /* The checksum covers the table and its padding up to the first payload. */
    const uint64_t prefix = bl_format_prefix_bytes(h->nstages);
    if (bl_format_checksum(table, (size_t)(prefix - BL_FORMAT_HEADER_BYTES)) != h->table_checksum)
        return BL_E_HEADER_CHECKSUM;
    uint64_t end = bl_format_table_end(h->nstages), nbits = 0;
    /* Padding is written as zero: anything else is from a writer newer than this reader. */
    if (!all_zero(table + (end - BL_FORMAT_HEADER_BYTES), (size_t)(prefix - end)))
        return BL_E_BAD_VERSION;
    for (uint32_t i = 0; i < h->nstages; i++) {
        bl_format_stage s;
        bl_format_stage_at(table, i, &s);
        bl_status st = check_stage(h, table + (size_t)i * BL_FORMAT_STAGE_BYTES, &s, end);
        if (st != BL_OK)
            return st;
        if (s.nbits > UINT64_MAX - nbits)
            return BL_E_BAD_GEOMETRY;
        nbits += s.nbits;
        end = s.offset + s.size;
    }
    if (nbits != h->nbits || end != h->file_size)
        return BL_E_BAD_GEOMETRY;
    if (h->layout == BL_LAYOUT_SCALABLE) {
        bl_status st = check_chain(h, table);
        if (st != BL_OK)
            return st;
    }
    if (h->file_size > total)
        return BL_E_TRUNCATED;
    if (h->file_size < total)
        return BL_E_BAD_GEOMETRY; /* trailing bytes: not the object the header describes */
    return BL_OK;
}

/* ---- Building filter objects ------------------------------------------------------------------ */

bl_filter *bl_format_built_stage(bl_filter *f, uint32_t i)
{
    return f->layout == BL_LAYOUT_SCALABLE ? f->stages[i] : f;
}

void bl_format_discard(bl_filter *f)
{
    if (f == NULL)
        return;
    if (f->layout == BL_LAYOUT_SCALABLE && f->stages != NULL) {
        for (size_t i = 0; i < f->nstages; i++)
            bl_free(f->stages[i]);
        free(f->stages);
        f->stages = NULL;
        f->nstages = 0;
    }
    bl_free(f);
}

/* One stage (or single filter) object. A mapped one is created with a single block so that
 * bl_filter_new sets up its identity, then its tiny payload is swapped for the mapped one. */
static bl_status build_one(bl_layout layout, const bl_format_stage *s, bool keys_known,
                           const struct bl_kernels *kern, uint8_t *map_base, bl_filter **out)
{
    bl_status st = bl_filter_new(out, layout, map_base ? 1 : s->nblocks, s->k, s->seed, 0, kern);
    if (st != BL_OK)
        return st;
    bl_filter *f = *out;
    if (map_base != NULL) {
        bl_payload_free(f);
        f->storage = BL_STORAGE_FILE_MAP; /* map_base stays NULL: the owner unmaps */
        f->data = map_base + s->offset;
        f->nblocks = s->nblocks;
        f->nbits = s->nbits;
        f->nbytes = (size_t)s->size;
    }
    f->keys_added = s->keys_added;
    f->keys_known = keys_known;
    f->design_keys = s->design_keys;
    f->design_fpp = s->design_fpp;
    return BL_OK;
}

bl_status bl_format_build(const bl_format_header *h, const uint8_t *table, uint8_t *map_base,
                          size_t map_len, bl_filter **out)
{
    *out = NULL;
    const struct bl_kernels *kern;
    bl_status st = bl_kernel_resolve(NULL, &kern);
    if (st != BL_OK)
        return st;
    bl_filter *f;
    bl_format_stage s;
    if (h->layout != BL_LAYOUT_SCALABLE) {
        bl_format_stage_at(table, 0, &s);
        st = build_one(h->layout, &s, h->keys_known, kern, map_base, &f);
        if (st != BL_OK)
            return st;
    } else {
        f = calloc(1, sizeof *f);
        if (f == NULL)
            return BL_E_NOMEM;
        f->layout = BL_LAYOUT_SCALABLE;
        f->hash = h->hash;
        f->k = h->k;
        bl_filter_set_seed(f, h->seed);
        bl_filter_set_kernel(f, kern);
        f->keys_added = h->keys_added;
        f->keys_known = h->keys_known;
        f->design_keys = h->design_keys;
        f->design_fpp = h->design_fpp;
        f->growth = h->growth;
        f->tightening = h->tightening;
        f->storage = BL_STORAGE_HEAP;
        if (h->nstages > 0) {
            f->stages = calloc(h->nstages, sizeof *f->stages);
            if (f->stages == NULL) {
                free(f);
                return BL_E_NOMEM;
            }
            f->stages_cap = h->nstages;
        }
        for (uint32_t i = 0; i < h->nstages; i++) {
            bl_format_stage_at(table, i, &s);
            st = build_one(BL_LAYOUT_BLOCKED, &s, h->keys_known, kern, map_base, &f->stages[i]);
            if (st != BL_OK) {
                bl_format_discard(f);
                return st;
            }
            f->nstages = i + 1;
        }
    }
    if (map_base != NULL) {
        f->storage = BL_STORAGE_FILE_MAP;
        f->map_base = map_base;
        f->map_len = map_len;
    }
    *out = f;
    return BL_OK;
}

unsigned bl_format_version(void) { return BL_FORMAT_VERSION; }
