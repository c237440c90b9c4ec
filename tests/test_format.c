/* SPDX-License-Identifier: MIT */
/* Native format in memory: round trips for every layout, every corruption class, golden files. */
#include "test_util.h"

#include <math.h>
#include <sys/stat.h>

#include "format.h"
#include "format_test.h"
/* The fuzz target itself: corpus and regressions are replayed through exactly its checks. */
#include "fuzz/fuzz_deserialize.c"

static uint64_t g_seed;

static const bl_layout all_layouts[] = {BL_LAYOUT_BLOCKED, BL_LAYOUT_SBBF, BL_LAYOUT_CLASSIC,
                                        BL_LAYOUT_COUNTING, BL_LAYOUT_SCALABLE};

static uint8_t *serialize(const bl_filter *f, size_t *len)
{
    assert_int_equal(bl_serialized_size(f, len), BL_OK);
    uint8_t *buf = malloc(*len);
    assert_non_null(buf);
    size_t written = 0;
    assert_int_equal(bl_serialize(f, buf, *len, &written), BL_OK);
    assert_int_equal(written, *len);
    return buf;
}

/* Deserialize a copy of exactly len bytes, so ASan sees any read past the end. */
static bl_status deserialize_exact(const uint8_t *src, size_t len, bl_filter **out)
{
    uint8_t *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, src, len);
    bl_status st = bl_deserialize(out, copy, len);
    free(copy);
    if (st != BL_OK)
        assert_null(*out);
    return st;
}

/* Deserialize as deserialize_exact; an accepted input must serialize back to the same bytes. */
static bl_status deserialize_canonical(const uint8_t *buf, size_t len)
{
    bl_filter *g = NULL;
    bl_status st = deserialize_exact(buf, len, &g);
    if (st == BL_OK) {
        size_t len2;
        uint8_t *again = serialize(g, &len2);
        assert_int_equal(len2, len);
        assert_memory_equal(again, buf, len);
        free(again);
        ft_free(g);
    }
    return st;
}

/* ---- Raw header editing (for hand-made corruptions with valid checksums) --------------------- */

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
static uint64_t get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}
static uint32_t get32(const uint8_t *p) { return (uint32_t)get64(p) & 0xffffffffu; }
static void putf64(uint8_t *p, double d)
{
    uint64_t v;
    memcpy(&v, &d, 8);
    put64(p, v);
}

/* Recompute the table and header checksums after an edit (nstages as the header now says, the
 * table region clamped to the buffer). */
static void refix(uint8_t *buf, size_t len)
{
    if (len < BL_FORMAT_HEADER_BYTES)
        return;
    uint64_t prefix = bl_format_prefix_bytes(get32(buf + BL_FH_NSTAGES));
    if (prefix > len)
        prefix = len;
    put64(buf + BL_FH_TABLE_CHECKSUM,
          bl_format_checksum(buf + BL_FORMAT_HEADER_BYTES, (size_t)(prefix - BL_FORMAT_HEADER_BYTES)));
    put64(buf + BL_FH_HEADER_CHECKSUM, bl_format_checksum(buf, BL_FH_HEADER_CHECKSUM));
}

static uint8_t *stage_rec(uint8_t *buf, unsigned i)
{
    return buf + BL_FORMAT_HEADER_BYTES + (size_t)i * BL_FORMAT_STAGE_BYTES;
}

/* ---- Round trips ------------------------------------------------------------------------------- */

static void test_roundtrip_every_layout(void **state)
{
    (void)state;
    uint64_t rng = g_seed;
    for (size_t li = 0; li < BL_ARRAY_LEN(all_layouts); li++) {
        for (int manual = 0; manual < (all_layouts[li] == BL_LAYOUT_SCALABLE ? 2 : 1); manual++) {
            const uint64_t stream = tu_next(&rng) & 0xffff, n = 500 + tu_next(&rng) % 3000;
            bl_filter *f = ft_make_filled(all_layouts[li], stream, n, manual);
            size_t len;
            uint8_t *buf = serialize(f, &len);
            bl_filter *g = NULL;
            assert_int_equal(deserialize_exact(buf, len, &g), BL_OK);
            ft_assert_same(f, g);
            ft_assert_same_answers(f, g, stream, n);
            /* Canonical: the copy serializes to the very same bytes. */
            size_t len2;
            uint8_t *buf2 = serialize(g, &len2);
            assert_int_equal(len, len2);
            assert_memory_equal(buf, buf2, len);
            /* Payloads start on page boundaries of the object. */
            for (uint32_t i = 0; i < get32(buf + BL_FH_NSTAGES); i++)
                assert_int_equal(get64(stage_rec(buf, i) + BL_FS_OFFSET) % 4096, 0);
            /* A loaded filter is mutable and still answers its keys after more adds. */
            bl_status st = ft_add_key(g, stream, n);
            if (st != BL_OK)
                fail_msg("%s (manual %d): add after load: %s", bl_layout_name(all_layouts[li]),
                         manual, bl_strerror(st));
            assert_true(ft_has_key(g, stream, n));
            free(buf);
            free(buf2);
            ft_free(f);
            ft_free(g);
        }
    }
}

static void test_roundtrip_flags_and_empty(void **state)
{
    (void)state;
    bl_filter *f = ft_make_filled(BL_LAYOUT_BLOCKED, 3, 0, false);
    f->keys_known = false;
    f->design_keys = 0;
    f->design_fpp = 0;
    size_t len = 0;
    uint8_t *buf = serialize(f, &len);
    bl_filter *g = NULL;
    assert_int_equal(deserialize_exact(buf, len, &g), BL_OK);
    ft_assert_same(f, g);
    assert_false(g->keys_known);
    bl_info info;
    assert_int_equal(bl_get_info(g, &info), BL_OK);
    assert_false(info.keys_known);
    assert_false(info.mapped);
    free(buf);
    bl_free(f);
    bl_free(g);
}

static void test_serialize_arguments(void **state)
{
    (void)state;
    bl_filter *f = ft_make_filled(BL_LAYOUT_BLOCKED, 4, 100, false);
    size_t len = 0, written = 0;
    assert_int_equal(bl_serialized_size(f, &len), BL_OK);
    assert_true(len > 4096);
    size_t dummy = 1;
    assert_int_equal(bl_serialized_size(NULL, &dummy), BL_E_INVALID);
    assert_int_equal(dummy, 0);
    assert_int_equal(bl_serialized_size(f, NULL), BL_E_INVALID);
    uint8_t *buf = malloc(len);
    memset(buf, 0xAB, len);
    assert_int_equal(bl_serialize(f, buf, len - 1, &written), BL_E_BUFFER_TOO_SMALL);
    assert_int_equal(written, len); /* tells how much is needed */
    assert_int_equal(buf[0], 0xAB); /* nothing written */
    assert_int_equal(bl_serialize(f, NULL, 0, &written), BL_E_BUFFER_TOO_SMALL);
    assert_int_equal(written, len);
    assert_int_equal(bl_serialize(f, NULL, len, &written), BL_E_INVALID);
    assert_int_equal(bl_serialize(NULL, buf, len, &written), BL_E_INVALID);
    assert_int_equal(bl_serialize(f, buf, len, NULL), BL_OK);
    bl_filter *g = (bl_filter *)buf; /* must be reset to NULL on failure */
    assert_int_equal(bl_deserialize(NULL, buf, len), BL_E_INVALID);
    assert_int_equal(bl_deserialize(&g, NULL, 5), BL_E_INVALID);
    assert_null(g);
    assert_int_equal(bl_deserialize(&g, NULL, 0), BL_E_TRUNCATED);
    assert_int_equal(bl_deserialize(&g, buf, len), BL_OK);
    ft_assert_same(f, g);
    free(buf);
    bl_free(f);
    bl_free(g);
}

/* ---- Corruption classes ------------------------------------------------------------------------- */

static void test_truncated_at_every_offset(void **state)
{
    (void)state;
    for (int chain = 0; chain < 2; chain++) {
        bl_filter *f = ft_make_filled(chain ? BL_LAYOUT_SCALABLE : BL_LAYOUT_BLOCKED, 5, 2000, chain);
        size_t len = 0;
        uint8_t *buf = serialize(f, &len);
        const size_t prefix = (size_t)bl_format_prefix_bytes(get32(buf + BL_FH_NSTAGES));
        size_t checked = 0;
        for (size_t cut = 0; cut < len; cut += cut <= prefix + 128 ? 1 : 61) {
            bl_filter *g = NULL;
            bl_status st = deserialize_exact(buf, cut, &g);
            if (st != BL_E_TRUNCATED)
                fail_msg("cut at %zu of %zu: %s", cut, len, bl_strerror(st));
            checked++;
        }
        bl_filter *g = NULL;
        assert_int_equal(deserialize_exact(buf, len - 1, &g), BL_E_TRUNCATED);
        /* A longer buffer is not the object its header describes either. */
        uint8_t *longer = calloc(1, len + 1);
        memcpy(longer, buf, len);
        assert_int_equal(deserialize_exact(longer, len + 1, &g), BL_E_BAD_GEOMETRY);
        assert_true(checked > prefix);
        free(longer);
        free(buf);
        ft_free(f);
    }
}

static void test_flip_every_header_byte(void **state)
{
    (void)state;
    static const uint8_t masks[] = {0x01, 0x80, 0xff, 0x10};
    for (int chain = 0; chain < 2; chain++) {
        bl_filter *f = ft_make_filled(chain ? BL_LAYOUT_SCALABLE : BL_LAYOUT_BLOCKED, 6, 1000, chain);
        size_t len = 0;
        uint8_t *buf = serialize(f, &len);
        /* The header, the stage table and its padding: everything before the first payload. */
        const size_t prefix = (size_t)bl_format_prefix_bytes(get32(buf + BL_FH_NSTAGES));
        for (size_t pos = 0; pos < prefix; pos++) {
            for (size_t m = 0; m < BL_ARRAY_LEN(masks); m++) {
                buf[pos] ^= masks[m];
                bl_filter *g = NULL;
                bl_status st = deserialize_exact(buf, len, &g);
                buf[pos] ^= masks[m];
                bl_status want = pos < 8 ? BL_E_BAD_MAGIC
                                 : pos < 12 ? BL_E_BAD_VERSION
                                            : BL_E_HEADER_CHECKSUM;
                if (st != want)
                    fail_msg("chain %d byte %zu ^ 0x%02x: got %s, want %s", chain, pos, masks[m],
                             bl_strerror(st), bl_strerror(want));
            }
        }
        free(buf);
        ft_free(f);
    }
}

static void test_flip_payload_bytes(void **state)
{
    (void)state;
    uint64_t rng = g_seed ^ 0x55;
    /* Every payload byte of a small filter, one random bit each. */
    bl_filter *f = ft_make_filled(BL_LAYOUT_BLOCKED, 7, 300, false);
    size_t len = 0;
    uint8_t *buf = serialize(f, &len);
    const size_t prefix = (size_t)bl_format_prefix_bytes(1);
    for (size_t pos = prefix; pos < len; pos++) {
        uint8_t m = (uint8_t)(1u << (tu_next(&rng) & 7));
        buf[pos] ^= m;
        bl_filter *g = NULL;
        assert_int_equal(bl_deserialize(&g, buf, len), BL_E_PAYLOAD_CHECKSUM);
        buf[pos] ^= m;
    }
    free(buf);
    bl_free(f);
    /* Random payload bytes of every layout, and the padding between a chain's payloads. */
    for (size_t li = 0; li < BL_ARRAY_LEN(all_layouts); li++) {
        f = ft_make_filled(all_layouts[li], 8, 2000, true);
        buf = serialize(f, &len);
        const uint32_t nstages = get32(buf + BL_FH_NSTAGES);
        for (int t = 0; t < 300; t++) {
            size_t pos = (size_t)bl_format_prefix_bytes(nstages) +
                         (size_t)(tu_next(&rng) % (len - bl_format_prefix_bytes(nstages)));
            buf[pos] ^= 0x04;
            bl_filter *g = NULL;
            bl_status st = bl_deserialize(&g, buf, len);
            buf[pos] ^= 0x04;
            if (st != BL_E_PAYLOAD_CHECKSUM)
                fail_msg("%s: flip at %zu: %s", bl_layout_name(all_layouts[li]), pos,
                         bl_strerror(st));
        }
        free(buf);
        ft_free(f);
    }
}

typedef struct edit_case {
    const char *what;
    bl_status want;
} edit_case;

static void expect_edit(const uint8_t *orig, size_t len, void (*edit)(uint8_t *, size_t, int),
                        int which, bl_status want, const char *what)
{
    uint8_t *buf = malloc(len + 64);
    memcpy(buf, orig, len);
    edit(buf, len, which);
    refix(buf, len);
    bl_filter *g = NULL;
    bl_status st = deserialize_exact(buf, len, &g);
    if (st != want)
        fail_msg("%s: got %s, want %s", what, bl_strerror(st), bl_strerror(want));
    ft_free(g);
    free(buf);
}

/* Edits of a single-stage (blocked unless said otherwise) object, checksums recomputed after. */
static void edit_single(uint8_t *b, size_t len, int which)
{
    uint8_t *s = stage_rec(b, 0);
    const uint64_t nblocks = get64(s + BL_FS_NBLOCKS);
    (void)len;
    switch (which) {
    case 0: put32(b + BL_FH_LAYOUT, 5); break;
    case 1: put32(b + BL_FH_LAYOUT, 0xffffffffu); break;
    case 2: put32(b + BL_FH_HASH, BL_HASH_XXH64); break;
    case 3: put32(b + BL_FH_HASH, 0); break;
    case 4: put32(b + BL_FH_VERSION, BL_FORMAT_VERSION + 1); break;
    case 5: put32(b + BL_FH_VERSION, BL_FORMAT_VERSION - 1); break; /* version 1: other bits */
    case 6: put32(b + BL_FH_FLAGS, 3); break;
    case 7: b[BL_FH_RESERVED + 5] = 1; break;
    case 8: s[BL_FS_RESERVED1 + 3] = 1; break;
    case 9: put32(b + BL_FH_K, 0), put32(s + BL_FS_K, 0); break;
    case 10: put32(b + BL_FH_K, 17), put32(s + BL_FS_K, 17); break;
    case 11: put32(s + BL_FS_K, get32(s + BL_FS_K) + 1); break;
    case 12: put32(b + BL_FH_NSTAGES, 2); break;
    case 13: put32(b + BL_FH_NSTAGES, 0); break;
    case 14: putf64(b + BL_FH_GROWTH, 2.0); break;
    case 15: putf64(b + BL_FH_DESIGN_FPP, NAN), putf64(s + BL_FS_DESIGN_FPP, NAN); break;
    case 16: putf64(b + BL_FH_DESIGN_FPP, 1.5), putf64(s + BL_FS_DESIGN_FPP, 1.5); break;
    case 17: putf64(b + BL_FH_DESIGN_FPP, -0.25), putf64(s + BL_FS_DESIGN_FPP, -0.25); break;
    case 18: put64(b + BL_FH_NBITS, get64(b + BL_FH_NBITS) + 8); break;
    case 19: put64(b + BL_FH_FILE_SIZE, get64(b + BL_FH_FILE_SIZE) + 64); break;
    case 20: put64(b + BL_FH_FILE_SIZE, 0); break;
    case 21: put64(s + BL_FS_NBLOCKS, 0); break;
    case 22: put64(s + BL_FS_NBLOCKS, nblocks + 1); break;
    case 23: /* a product that wraps to the real size modulo 2^64 */
        put64(s + BL_FS_NBLOCKS, nblocks + (UINT64_C(1) << 58));
        break;
    case 24: put64(s + BL_FS_NBLOCKS, UINT64_MAX); break;
    case 25: /* consistent, larger: the buffer is too short for it */
        put64(s + BL_FS_NBLOCKS, nblocks * 2);
        put64(s + BL_FS_SIZE, nblocks * 2 * 64);
        put64(s + BL_FS_NBITS, nblocks * 2 * 512);
        put64(b + BL_FH_NBITS, nblocks * 2 * 512);
        put64(b + BL_FH_FILE_SIZE, get64(s + BL_FS_OFFSET) + nblocks * 2 * 64);
        break;
    case 26: /* consistent and absurd (64 TiB): refused before anything is allocated */
        put64(s + BL_FS_NBLOCKS, UINT64_C(1) << 40);
        put64(s + BL_FS_SIZE, UINT64_C(1) << 46);
        put64(s + BL_FS_NBITS, UINT64_C(1) << 49);
        put64(b + BL_FH_NBITS, UINT64_C(1) << 49);
        put64(b + BL_FH_FILE_SIZE, get64(s + BL_FS_OFFSET) + (UINT64_C(1) << 46));
        break;
    case 27: put64(s + BL_FS_OFFSET, get64(s + BL_FS_OFFSET) + 4096); break;
    case 28: put64(s + BL_FS_OFFSET, 64); break;
    case 29: put64(s + BL_FS_SIZE, get64(s + BL_FS_SIZE) - 64); break;
    case 30: put64(s + BL_FS_SEED, get64(s + BL_FS_SEED) + 1); break;
    case 31: put64(s + BL_FS_KEYS, get64(s + BL_FS_KEYS) + 1); break;
    case 32: put64(b + BL_FH_DESIGN_KEYS, 12345); break;
    case 33: s[BL_FS_RESERVED0] = 9; break;
    case 34: put64(s + BL_FS_NBITS, get64(s + BL_FS_NBITS) - 8); break;
    case 35: b[bl_format_table_end(1) + 100] = 1; break; /* padding: must stay zero */
    default: break;
    }
}

static void test_crafted_headers(void **state)
{
    (void)state;
    static const bl_status want[] = {
        BL_E_BAD_LAYOUT,   BL_E_BAD_LAYOUT,   BL_E_BAD_LAYOUT,   BL_E_BAD_LAYOUT,
        BL_E_BAD_VERSION,  BL_E_BAD_VERSION,  BL_E_BAD_VERSION,  BL_E_BAD_VERSION,
        BL_E_BAD_VERSION,  BL_E_BAD_K,        BL_E_BAD_K,        BL_E_BAD_K,
        BL_E_BAD_GEOMETRY, BL_E_BAD_GEOMETRY, BL_E_BAD_GEOMETRY, BL_E_BAD_GEOMETRY,
        BL_E_BAD_GEOMETRY, BL_E_BAD_GEOMETRY, BL_E_BAD_GEOMETRY, BL_E_BAD_GEOMETRY,
        BL_E_BAD_GEOMETRY, BL_E_BAD_GEOMETRY, BL_E_BAD_GEOMETRY, BL_E_BAD_GEOMETRY,
        BL_E_BAD_GEOMETRY, BL_E_TRUNCATED,    BL_E_TRUNCATED,    BL_E_BAD_GEOMETRY,
        BL_E_BAD_GEOMETRY, BL_E_BAD_GEOMETRY, BL_E_BAD_GEOMETRY, BL_E_BAD_GEOMETRY,
        BL_E_BAD_GEOMETRY, BL_E_BAD_VERSION,  BL_E_BAD_GEOMETRY, BL_E_BAD_VERSION};
    bl_filter *f = ft_make_filled(BL_LAYOUT_BLOCKED, 9, 500, false);
    size_t len = 0;
    uint8_t *buf = serialize(f, &len);
    for (int i = 0; i < (int)BL_ARRAY_LEN(want); i++) {
        char what[64];
        snprintf(what, sizeof what, "blocked edit %d", i);
        expect_edit(buf, len, edit_single, i, want[i], what);
    }
    /* Unedited but re-checksummed: still fine (refix is not hiding anything). */
    expect_edit(buf, len, edit_single, -1, BL_OK, "no edit");
    free(buf);
    bl_free(f);
}

/* Layout-specific limits: sbbf k and block count, classic k, chain fields. */
static void edit_layouts(uint8_t *b, size_t len, int which)
{
    uint8_t *s = stage_rec(b, 0);
    (void)len;
    switch (which) {
    case 0: put32(b + BL_FH_K, 7), put32(s + BL_FS_K, 7); break; /* sbbf */
    case 1: /* sbbf over 2^32 blocks */
        put64(s + BL_FS_NBLOCKS, (UINT64_C(1) << 32) + 1);
        put64(s + BL_FS_SIZE, ((UINT64_C(1) << 32) + 1) * 32);
        put64(s + BL_FS_NBITS, ((UINT64_C(1) << 32) + 1) * 256);
        put64(b + BL_FH_NBITS, ((UINT64_C(1) << 32) + 1) * 256);
        put64(b + BL_FH_FILE_SIZE, 4096 + ((UINT64_C(1) << 32) + 1) * 32);
        break;
    case 2: put32(b + BL_FH_K, 256), put32(s + BL_FS_K, 256); break; /* classic */
    case 3: putf64(b + BL_FH_GROWTH, 0.5); break;                      /* chain */
    case 4: putf64(b + BL_FH_TIGHTENING, 0.0); break;
    case 5: putf64(b + BL_FH_TIGHTENING, NAN); break;
    case 6: put32(b + BL_FH_NSTAGES, 0xffffffffu); break;
    case 7: put32(b + BL_FH_NSTAGES, get32(b + BL_FH_NSTAGES) + 1); break;
    case 8: put32(stage_rec(b, 1) + BL_FS_K, 17); break;
    case 9: put32(b + BL_FH_K, 17); break;
    case 10: put64(stage_rec(b, 1) + BL_FS_OFFSET, get64(stage_rec(b, 1) + BL_FS_OFFSET) - 64); break;
    case 11: put32(b + BL_FH_NSTAGES, get32(b + BL_FH_NSTAGES) - 1); break;
    case 12: put32(b + BL_FH_HASH, BL_HASH_MURMUR3_128); break;
    case 13: put64(stage_rec(b, 1) + BL_FS_SEED, get64(b + BL_FH_SEED) + 1); break;
    /* Chain fields that do not describe the stages: the newest stage would be given far more
     * keys (n, growth) or a far lower rate (tightening) than its size holds. */
    case 14: put64(b + BL_FH_DESIGN_KEYS, 100000); break;
    case 15: putf64(b + BL_FH_GROWTH, 100.0); break;
    case 16: putf64(b + BL_FH_TIGHTENING, 1e-6); break;
    case 17: put64(b + BL_FH_KEYS, get64(b + BL_FH_KEYS) + 1); break; /* not the stages' sum */
    case 18: /* a stage past its capacity, as a union leaves one: fine */
        put64(stage_rec(b, 2) + BL_FS_KEYS, get64(stage_rec(b, 2) + BL_FS_KEYS) + 1000000);
        put64(b + BL_FH_KEYS, get64(b + BL_FH_KEYS) + 1000000);
        break;
    case 19: put64(b + BL_FH_DESIGN_KEYS, 50); break; /* stages larger than needed: fine */
    default: break;
    }
}

static void test_crafted_layout_limits(void **state)
{
    (void)state;
    static const struct {
        bl_layout layout;
        int edit;
        bl_status want;
    } cases[] = {
        {BL_LAYOUT_SBBF, 0, BL_E_BAD_K},          {BL_LAYOUT_SBBF, 1, BL_E_BAD_GEOMETRY},
        {BL_LAYOUT_CLASSIC, 2, BL_E_BAD_K},       {BL_LAYOUT_SCALABLE, 3, BL_E_BAD_GEOMETRY},
        {BL_LAYOUT_SCALABLE, 4, BL_E_BAD_GEOMETRY}, {BL_LAYOUT_SCALABLE, 5, BL_E_BAD_GEOMETRY},
        {BL_LAYOUT_SCALABLE, 6, BL_E_BAD_GEOMETRY}, {BL_LAYOUT_SCALABLE, 7, BL_E_BAD_K},
        {BL_LAYOUT_SCALABLE, 8, BL_E_BAD_K},      {BL_LAYOUT_SCALABLE, 9, BL_E_BAD_K},
        {BL_LAYOUT_SCALABLE, 10, BL_E_BAD_GEOMETRY}, {BL_LAYOUT_SCALABLE, 11, BL_E_BAD_VERSION},
        {BL_LAYOUT_SCALABLE, 12, BL_E_BAD_LAYOUT},  {BL_LAYOUT_SCALABLE, 13, BL_E_BAD_GEOMETRY},
        {BL_LAYOUT_SCALABLE, 14, BL_E_BAD_GEOMETRY}, {BL_LAYOUT_SCALABLE, 15, BL_E_BAD_GEOMETRY},
        {BL_LAYOUT_SCALABLE, 16, BL_E_BAD_GEOMETRY}, {BL_LAYOUT_SCALABLE, 17, BL_E_BAD_GEOMETRY},
        {BL_LAYOUT_SCALABLE, 18, BL_OK},            {BL_LAYOUT_SCALABLE, 19, BL_OK},
        {BL_LAYOUT_SCALABLE, -1, BL_OK},
        {BL_LAYOUT_COUNTING, 2, BL_E_BAD_K},
    };
    for (size_t i = 0; i < BL_ARRAY_LEN(cases); i++) {
        bl_filter *f = ft_make_filled(cases[i].layout, 10, 700, true);
        size_t len = 0;
        uint8_t *buf = serialize(f, &len);
        char what[64];
        snprintf(what, sizeof what, "%s edit %d", bl_layout_name(cases[i].layout), cases[i].edit);
        expect_edit(buf, len, edit_layouts, cases[i].edit, cases[i].want, what);
        free(buf);
        ft_free(f);
    }
}

/* A chain with no stage (the 128-byte header alone) opens its first stage at its first add, so
 * it loads only if that stage can be made: else it would refuse every add, forever. That is a
 * header field (FORMAT.md's validation step 4), so it outranks a wrong table checksum (step 5):
 * the library once checked it after the table, and answered such a header differently from a
 * reader written from the spec. */
static void test_empty_chain(void **state)
{
    (void)state;
    static const struct {
        uint64_t design_keys;
        double design_fpp;
        bl_status want;
    } cases[] = {
        {100, 0.01, BL_OK},
        {UINT64_C(1) << 60, 0.01, BL_E_BAD_GEOMETRY}, /* more keys than a stage can hold */
        {100, 1e-300, BL_E_BAD_GEOMETRY},             /* a rate no stage can meet */
    };
    bl_filter *f = ft_make_filled(BL_LAYOUT_SCALABLE, 12, 10, true);
    size_t len = 0;
    uint8_t *buf = serialize(f, &len);
    for (size_t i = 0; i < BL_ARRAY_LEN(cases); i++) {
        uint8_t b[BL_FORMAT_HEADER_BYTES];
        memcpy(b, buf, sizeof b);
        put32(b + BL_FH_NSTAGES, 0);
        put64(b + BL_FH_NBITS, 0);
        put64(b + BL_FH_KEYS, 0);
        put64(b + BL_FH_FILE_SIZE, sizeof b);
        put64(b + BL_FH_DESIGN_KEYS, cases[i].design_keys);
        putf64(b + BL_FH_DESIGN_FPP, cases[i].design_fpp);
        refix(b, sizeof b);
        bl_filter *g = NULL;
        bl_status st = deserialize_exact(b, sizeof b, &g);
        if (st != cases[i].want)
            fail_msg("empty chain %zu: got %s, want %s", i, bl_strerror(st),
                     bl_strerror(cases[i].want));
        if (g != NULL) {
            assert_int_equal(ft_add_key(g, 12, 0), BL_OK);
            assert_true(ft_has_key(g, 12, 0));
            assert_int_equal(g->nstages, 1);
        }
        ft_free(g);
        if (cases[i].want == BL_OK)
            continue;
        put64(b + BL_FH_TABLE_CHECKSUM, get64(b + BL_FH_TABLE_CHECKSUM) ^ 1);
        put64(b + BL_FH_HEADER_CHECKSUM, bl_format_checksum(b, BL_FH_HEADER_CHECKSUM));
        g = NULL;
        st = deserialize_exact(b, sizeof b, &g);
        if (st != cases[i].want)
            fail_msg("empty chain %zu with a wrong table checksum: got %s, want %s", i,
                     bl_strerror(st), bl_strerror(cases[i].want));
        assert_null(g);
    }
    free(buf);
    ft_free(f);
}

/* Random damage (with and without repaired checksums): never a crash, and whatever is accepted
 * is canonical (serializes back to the same bytes). */
static void test_random_mutations(void **state)
{
    (void)state;
    uint64_t rng = g_seed ^ 0xdead;
    size_t accepted = 0;
    for (size_t li = 0; li < BL_ARRAY_LEN(all_layouts); li++) {
        bl_filter *f = ft_make_filled(all_layouts[li], 11, 400, true);
        size_t len = 0;
        uint8_t *orig = serialize(f, &len);
        uint8_t *buf = malloc(len);
        for (int t = 0; t < 1500; t++) {
            memcpy(buf, orig, len);
            const unsigned nflips = 1 + (unsigned)(tu_next(&rng) % 4);
            for (unsigned j = 0; j < nflips; j++) {
                uint64_t r = tu_next(&rng);
                /* Mostly the header and table, where the validation logic is. */
                size_t pos = (r & 3) ? (size_t)((r >> 8) % bl_format_table_end(3))
                                     : (size_t)((r >> 8) % len);
                if (pos < len)
                    buf[pos] ^= (uint8_t)(r >> 56 | 1);
            }
            size_t cut = (tu_next(&rng) % 8 == 0) ? (size_t)(tu_next(&rng) % len) : len;
            if (tu_next(&rng) & 1)
                refix(buf, cut);
            bl_status st = deserialize_canonical(buf, cut);
            if (st == BL_OK) {
                accepted++;
            } else {
                assert_true(st >= BL_E_TRUNCATED && st <= BL_E_PAYLOAD_CHECKSUM);
            }
        }
        free(buf);
        free(orig);
        ft_free(f);
    }
    printf("# random mutations: %zu accepted (all canonical)\n", accepted);
}

/* ---- Golden files ------------------------------------------------------------------------------- */

/* A golden file loads, answers its keys, and is byte for byte what this build writes from the
 * same keys: the format and the bit selection are the same on every machine. */
static void check_golden(const ft_golden *g, const char *dir)
{
    char path[256];
    snprintf(path, sizeof path, "%s/golden-%s.blf", dir, g->name);
    size_t len = 0;
    uint8_t *bytes = ft_read_file(path, &len);
    if (bytes == NULL)
        fail_msg("missing golden file %s (run format_golden_gen)", path);
    bl_filter *loaded = NULL, *mapped = NULL, *rebuilt = NULL;
    assert_int_equal(bl_load(&loaded, path), BL_OK);
    assert_int_equal(bl_map(&mapped, path), BL_OK);
    assert_int_equal(bl_verify(mapped), BL_OK);
    for (uint64_t i = 0; i < g->nkeys; i++) {
        if (ft_golden_removed(g, i))
            continue;
        if (!ft_has_key(loaded, FT_GOLDEN_STREAM, i) || !ft_has_key(mapped, FT_GOLDEN_STREAM, i))
            fail_msg("%s: key %llu missing", path, (unsigned long long)i);
    }
    assert_int_equal(ft_golden_build(g, &rebuilt), BL_OK);
    size_t len2;
    uint8_t *mine = serialize(rebuilt, &len2);
    assert_int_equal(len, len2);
    if (memcmp(bytes, mine, len) != 0) {
        size_t at = 0;
        while (bytes[at] == mine[at])
            at++;
        fail_msg("%s differs from this build's bytes at offset %zu", path, at);
    }
    ft_assert_same(rebuilt, loaded);
    ft_assert_same_negatives(loaded, mapped, FT_GOLDEN_STREAM + 1, 5000);
    ft_assert_same_negatives(rebuilt, loaded, FT_GOLDEN_STREAM + 1, 5000);
    free(mine);
    free(bytes);
    ft_free(rebuilt);
    ft_free(loaded);
    ft_free(mapped);
}

static void test_golden_files(void **state)
{
    (void)state;
    for (size_t i = 0; i < BL_ARRAY_LEN(ft_goldens); i++)
        check_golden(&ft_goldens[i], "data");
}

/* Files written by the aarch64 build (under qemu) answer identically here, and the reverse runs
 * when this suite itself runs under qemu-aarch64 with the x86 files above. */
static void test_golden_files_aarch64(void **state)
{
    (void)state;
    for (size_t i = 0; i < BL_ARRAY_LEN(ft_goldens); i++)
        check_golden(&ft_goldens[i], "data/aarch64");
}

/* ---- Fuzz corpus and regressions --------------------------------------------------------------- */

static void replay_one(const char *path, const uint8_t *buf, size_t len)
{
    (void)path;
    (void)deserialize_canonical(buf, len); /* what the fuzz target does with an accepted input */
    (void)LLVMFuzzerTestOneInput(buf, len); /* traps on any violation */
}

static void test_fuzz_corpus_and_regressions(void **state)
{
    (void)state;
    size_t n = ft_replay_dir("fuzz/corpus", replay_one);
    assert_true(n >= 5);
    const size_t found = ft_replay_dir("fuzz/found", replay_one);
    assert_true(found >= 58);
    n += found + ft_replay_dir("fuzz/regressions", replay_one);
    printf("# replayed %zu fuzz inputs\n", n);
}

int main(void)
{
    g_seed = tu_seed("test_format");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_every_layout),
        cmocka_unit_test(test_roundtrip_flags_and_empty),
        cmocka_unit_test(test_serialize_arguments),
        cmocka_unit_test(test_truncated_at_every_offset),
        cmocka_unit_test(test_flip_every_header_byte),
        cmocka_unit_test(test_flip_payload_bytes),
        cmocka_unit_test(test_crafted_headers),
        cmocka_unit_test(test_crafted_layout_limits),
        cmocka_unit_test(test_empty_chain),
        cmocka_unit_test(test_random_mutations),
        cmocka_unit_test(test_golden_files),
        cmocka_unit_test(test_golden_files_aarch64),
        cmocka_unit_test(test_fuzz_corpus_and_regressions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
