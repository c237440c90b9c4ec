/* SPDX-License-Identifier: MIT */
/* Compatibility formats: Parquet split-block filters (thrift header + bitset) and Guava streams. */
#include "test_util.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>

#include "compat.h"
#include "format_test.h"
#include "internal.h"
#include "thrift_compact.h"
/* The bl_import fuzz target: its seeds and regressions are replayed through exactly its checks. */
#include "fuzz/fuzz_import.c"

/* Written by parquet-java (a copy of ../shared/interop/parquet-java-bloom_filter.xxhash.bin):
 * the 16-byte BloomFilterHeader, then the 1024-byte bitset holding the four keys below. */
#define GOLDEN_PARQUET "interop/parquet-java-bloom_filter.xxhash.bin"
#define GOLDEN_BYTES 1024u
static const char *const golden_keys[] = {"hello", "parquet", "bloom", "filter"};

/* Written by Guava 31.1: BloomFilter.create(Funnels.byteArrayFunnel(), 10, 0.01), the same four
 * keys put, writeTo: strategy 1, k = 7, 2 longs (m = 128 bits), the longs big-endian. */
static const uint8_t golden_guava[] = {0x01, 0x07, 0x00, 0x00, 0x00, 0x02, 0x02, 0x14, 0x20, 0x0a, 0x0b,
                                       0x00, 0x80, 0x84, 0x80, 0x40, 0x01, 0x60, 0x50, 0x30, 0x60, 0x89};

static uint64_t g_seed;

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        fail_msg("cannot open %s (tests run from the tests/ directory)", path);
    uint8_t *buf = malloc(1 << 16);
    assert_non_null(buf);
    *len = fread(buf, 1, 1 << 16, fp);
    fclose(fp);
    return buf;
}

static bl_filter *geometry(bl_layout layout, uint64_t bits, unsigned k, uint64_t seed,
                           const char *kernel)
{
    bl_filter *f = NULL;
    bl_status st = bl_create_geometry(&f, layout, bits, k, seed, 0, kernel);
    if (st != BL_OK)
        fail_msg("bl_create_geometry(%s, %llu bits, k=%u): %s", bl_layout_name(layout),
                 (unsigned long long)bits, k, bl_strerror(st));
    return f;
}

/* Export into a fresh buffer of exactly bl_export_size bytes. */
static uint8_t *export_all(const bl_filter *f, bl_foreign_format fmt, size_t *len)
{
    size_t size = 0, written = 0;
    assert_int_equal(bl_export_size(f, fmt, &size), BL_OK);
    uint8_t *buf = malloc(size);
    assert_non_null(buf);
    assert_int_equal(bl_export(f, fmt, buf, size, &written), BL_OK);
    assert_int_equal(written, size);
    *len = size;
    return buf;
}

/* The four golden keys, added one by one or in one batch. */
static void add_golden_keys(bl_filter *f, int batched)
{
    const void *keys[4];
    size_t lens[4];
    for (size_t i = 0; i < 4; i++) {
        keys[i] = golden_keys[i];
        lens[i] = strlen(golden_keys[i]);
        if (!batched)
            assert_int_equal(bl_add(f, keys[i], lens[i]), BL_OK);
    }
    if (batched)
        assert_int_equal(bl_add_batch(f, keys, lens, 4), BL_OK);
}

static void assert_imported(const bl_filter *f, bl_layout layout)
{
    bl_info info;
    assert_int_equal(bl_get_info(f, &info), BL_OK);
    assert_int_equal(info.layout, layout);
    assert_false(info.keys_known);
    assert_int_equal(info.keys_added, 0);
    assert_int_equal(info.design_keys, 0);
    assert_int_equal(info.seed, 0);
}

/* ---- Names ----------------------------------------------------------------------------------- */

static void test_format_names(void **state)
{
    (void)state;
    bl_foreign_format f = 0;
    assert_int_equal(bl_format_from_name("parquet", &f), BL_OK);
    assert_int_equal(f, BL_FORMAT_PARQUET);
    assert_int_equal(bl_format_from_name("parquet-raw", &f), BL_OK);
    assert_int_equal(f, BL_FORMAT_PARQUET_RAW);
    assert_int_equal(bl_format_from_name("guava", &f), BL_OK);
    assert_int_equal(f, BL_FORMAT_GUAVA);
    assert_int_equal(bl_format_from_name("Parquet", &f), BL_E_INVALID);
    assert_int_equal(bl_format_from_name("", &f), BL_E_INVALID);
    assert_int_equal(bl_format_from_name(NULL, &f), BL_E_INVALID);
    assert_int_equal(bl_format_from_name("guava", NULL), BL_E_INVALID);
}

/* ---- Parquet --------------------------------------------------------------------------------- */

/* The parquet-java file, byte for byte, from every kernel, single and batched adds. */
static void test_parquet_golden_export(void **state)
{
    (void)state;
    size_t flen;
    uint8_t *file = slurp(GOLDEN_PARQUET, &flen);
    assert_int_equal(flen, 16 + GOLDEN_BYTES);
    const char *kernels[8];
    const size_t nk = tu_kernels(kernels, BL_ARRAY_LEN(kernels));
    assert_true(nk >= 1);
    for (size_t ki = 0; ki < nk; ki++) {
        for (int batched = 0; batched < 2; batched++) {
            bl_filter *f = geometry(BL_LAYOUT_SBBF, GOLDEN_BYTES * 8, 8, 0, kernels[ki]);
            add_golden_keys(f, batched);
            size_t len;
            uint8_t *out = export_all(f, BL_FORMAT_PARQUET, &len);
            if (len != flen || memcmp(out, file, flen) != 0)
                fail_msg("kernel %s (%s adds): parquet export differs from parquet-java's file",
                         kernels[ki], batched ? "batched" : "single");
            free(out);
            out = export_all(f, BL_FORMAT_PARQUET_RAW, &len);
            assert_int_equal(len, GOLDEN_BYTES);
            assert_memory_equal(out, file + 16, GOLDEN_BYTES);
            free(out);
            bl_free(f);
        }
    }
    free(file);
}

static void test_parquet_golden_import(void **state)
{
    (void)state;
    size_t flen;
    uint8_t *file = slurp(GOLDEN_PARQUET, &flen);
    for (int raw = 0; raw < 2; raw++) {
        bl_filter *f = NULL;
        const bl_foreign_format fmt = raw ? BL_FORMAT_PARQUET_RAW : BL_FORMAT_PARQUET;
        assert_int_equal(bl_import(&f, fmt, raw ? file + 16 : file, raw ? GOLDEN_BYTES : flen),
                         BL_OK);
        assert_imported(f, BL_LAYOUT_SBBF);
        bl_info info;
        assert_int_equal(bl_get_info(f, &info), BL_OK);
        assert_int_equal(info.bytes, GOLDEN_BYTES);
        assert_int_equal(info.blocks, GOLDEN_BYTES / 32);
        assert_int_equal(info.k, 8);
        assert_int_equal(info.hash, BL_HASH_XXH64);
        for (size_t i = 0; i < 4; i++)
            assert_true(bl_contains(f, golden_keys[i], strlen(golden_keys[i])));
        /* 32 bits set in 128 blocks: a handful of other keys must be absent. */
        size_t hits = 0;
        char key[32];
        for (int i = 0; i < 1000; i++)
            hits += bl_contains(f, key, (size_t)snprintf(key, sizeof key, "absent-%d", i));
        assert_true(hits < 10);
        bl_free(f);
    }
    free(file);
}

/* Header bytes match parquet-java's for 1024, and every size round-trips through the reader. */
static void test_thrift_header(void **state)
{
    (void)state;
    size_t flen;
    uint8_t *file = slurp(GOLDEN_PARQUET, &flen);
    uint8_t hdr[BL_THRIFT_BLOOM_HEADER_MAX];
    assert_int_equal(bl_thrift_write_bloom_header(hdr, 1024), 16);
    assert_memory_equal(hdr, file, 16);
    free(file);
    static const struct {
        int32_t n;
        size_t len;
    } sizes[] = {{32, 15}, {63, 15}, {64, 16}, {1024, 16}, {1 << 20, 18}, {128 << 20, 19},
                 {INT32_MAX, 19}, {-1, 15}, {INT32_MIN, 19}};
    for (size_t i = 0; i < BL_ARRAY_LEN(sizes); i++) {
        size_t len = bl_thrift_write_bloom_header(hdr, sizes[i].n);
        assert_int_equal(len, sizes[i].len);
        assert_int_equal(bl_thrift_bloom_header_size(sizes[i].n), len);
        int32_t back = 0;
        size_t hlen = 0;
        assert_int_equal(bl_thrift_read_bloom_header(hdr, len, &back, &hlen), BL_OK);
        assert_int_equal(back, sizes[i].n);
        assert_int_equal(hlen, len);
    }
}

static void check_parquet_roundtrip(bl_filter *f, uint64_t *rng, size_t nkeys)
{
    uint8_t key[64];
    uint64_t start = *rng;
    for (size_t i = 0; i < nkeys; i++) {
        size_t len = tu_key(rng, key, sizeof key);
        assert_int_equal(bl_add(f, key, len), BL_OK);
    }
    for (int raw = 0; raw < 2; raw++) {
        const bl_foreign_format fmt = raw ? BL_FORMAT_PARQUET_RAW : BL_FORMAT_PARQUET;
        size_t len;
        uint8_t *buf = export_all(f, fmt, &len);
        const size_t hlen = raw ? 0 : bl_thrift_bloom_header_size((int32_t)f->nbytes);
        assert_int_equal(len, hlen + f->nbytes);
        if (!raw) {
            int32_t nb = 0;
            size_t got = 0;
            assert_int_equal(bl_thrift_read_bloom_header(buf, len, &nb, &got), BL_OK);
            assert_int_equal(nb, f->nbytes);
            assert_int_equal(got, hlen);
        }
        bl_filter *g = NULL;
        assert_int_equal(bl_import(&g, fmt, buf, len), BL_OK);
        assert_imported(g, BL_LAYOUT_SBBF);
        assert_int_equal(g->nbytes, f->nbytes);
        assert_memory_equal(g->data, f->data, f->nbytes);
        assert_true(bl_same_identity(f, g));
        uint64_t replay = start;
        for (size_t i = 0; i < nkeys; i++) {
            size_t klen = tu_key(&replay, key, sizeof key);
            if (!bl_contains(g, key, klen))
                fail_msg("key %zu missing after parquet%s import (%zu bytes)", i, raw ? "-raw" : "",
                         f->nbytes);
        }
        /* Imported filters keep working as ordinary sbbf filters. */
        assert_int_equal(bl_add(g, "after import", 12), BL_OK);
        assert_true(bl_contains(g, "after import", 12));
        bl_free(g);
        free(buf);
    }
}

static void test_parquet_roundtrip_sizes(void **state)
{
    (void)state;
    uint64_t rng = g_seed;
    static const size_t sizes[] = {32, 64, 256, 4096, 65536, 1u << 20, 4u << 20};
    for (size_t i = 0; i < BL_ARRAY_LEN(sizes); i++) {
        bl_filter *f = geometry(BL_LAYOUT_SBBF, (uint64_t)sizes[i] * 8, 8, 0, NULL);
        assert_int_equal(f->nbytes, sizes[i]);
        /* ~10 bits per key, capped so the largest sizes stay quick under ASan. */
        size_t nkeys = sizes[i] * 8 / 10;
        check_parquet_roundtrip(f, &rng, nkeys < 20000 ? nkeys : 20000);
        bl_free(f);
    }
    /* Filters sized by bl_create come out at sizes Parquet accepts. */
    static const uint64_t ns[] = {1, 100, 12345, 1000000};
    for (size_t i = 0; i < BL_ARRAY_LEN(ns); i++) {
        bl_filter *f = tu_create(BL_LAYOUT_SBBF, ns[i], 0.01, NULL);
        check_parquet_roundtrip(f, &rng, ns[i] < 5000 ? (size_t)ns[i] : 5000);
        bl_free(f);
    }
}

/* Parquet hashes an INT64 column value as XXH64 of its 8 little-endian bytes: the u64 key path
 * must set the same bits as the byte path on those bytes. */
static void test_parquet_int64_keys(void **state)
{
    (void)state;
    uint64_t rng = g_seed ^ 0x5bd1e995;
    bl_filter *a = geometry(BL_LAYOUT_SBBF, 8192 * 8, 8, 0, NULL);
    bl_filter *b = geometry(BL_LAYOUT_SBBF, 8192 * 8, 8, 0, NULL);
    uint64_t batch[300];
    for (size_t i = 0; i < BL_ARRAY_LEN(batch); i++) {
        uint64_t v = tu_next(&rng);
        uint8_t le[8];
        for (int j = 0; j < 8; j++)
            le[j] = (uint8_t)(v >> (8 * j));
        batch[i] = v;
        assert_int_equal(bl_add(a, le, 8), BL_OK);
    }
    assert_int_equal(bl_add_u64_batch(b, batch, BL_ARRAY_LEN(batch)), BL_OK);
    assert_memory_equal(a->data, b->data, a->nbytes);
    /* XXH64 of the empty input with seed 0 (the xxHash reference value). */
    assert_true(bl_hash(a, "", 0) == 0xEF46DB3751D8E999ULL);
    bl_free(a);
    bl_free(b);
}

static void test_parquet_export_refusals(void **state)
{
    (void)state;
    size_t size = 0, written = 99;
    uint8_t buf[2048];
    /* 3 blocks = 96 bytes: not a power of two. */
    bl_filter *f = geometry(BL_LAYOUT_SBBF, 96 * 8, 8, 0, NULL);
    assert_int_equal(bl_export_size(f, BL_FORMAT_PARQUET, &size), BL_E_UNSUPPORTED);
    assert_int_equal(bl_export(f, BL_FORMAT_PARQUET_RAW, buf, sizeof buf, &written),
                     BL_E_UNSUPPORTED);
    assert_int_equal(written, 0);
    bl_free(f);
    /* A seed other than 0: Parquet readers would hash differently and miss keys. */
    f = geometry(BL_LAYOUT_SBBF, 1024 * 8, 8, 1, NULL);
    assert_int_equal(bl_export_size(f, BL_FORMAT_PARQUET, &size), BL_E_UNSUPPORTED);
    assert_int_equal(bl_export(f, BL_FORMAT_PARQUET, buf, sizeof buf, &written), BL_E_UNSUPPORTED);
    bl_free(f);
    /* 256 MiB is over Parquet's 128 MiB limit; 128 MiB itself is fine (pages never touched). */
    f = geometry(BL_LAYOUT_SBBF, (UINT64_C(256) << 20) * 8, 8, 0, NULL);
    assert_int_equal(bl_export_size(f, BL_FORMAT_PARQUET, &size), BL_E_UNSUPPORTED);
    bl_free(f);
    f = geometry(BL_LAYOUT_SBBF, (UINT64_C(128) << 20) * 8, 8, 0, NULL);
    assert_int_equal(bl_export_size(f, BL_FORMAT_PARQUET, &size), BL_OK);
    assert_int_equal(size, (128u << 20) + 19);
    assert_int_equal(bl_export_size(f, BL_FORMAT_PARQUET_RAW, &size), BL_OK);
    assert_int_equal(size, 128u << 20);
    bl_free(f);
    /* Other layouts cannot be Parquet filters. */
    f = geometry(BL_LAYOUT_BLOCKED, 1024 * 8, 6, 0, NULL);
    assert_int_equal(bl_export_size(f, BL_FORMAT_PARQUET, &size), BL_E_UNSUPPORTED);
    bl_free(f);
    f = geometry(BL_LAYOUT_CLASSIC, 1024 * 8, 6, 0, NULL);
    assert_int_equal(bl_export_size(f, BL_FORMAT_PARQUET_RAW, &size), BL_E_UNSUPPORTED);
    bl_free(f);
    /* Small buffers and bad arguments. */
    f = geometry(BL_LAYOUT_SBBF, 1024 * 8, 8, 0, NULL);
    assert_int_equal(bl_export(f, BL_FORMAT_PARQUET, buf, 1039, &written), BL_E_BUFFER_TOO_SMALL);
    assert_int_equal(written, 1040); /* the size needed, as bl_serialize reports it */
    assert_int_equal(bl_export(f, BL_FORMAT_PARQUET_RAW, buf, 1023, &written),
                     BL_E_BUFFER_TOO_SMALL);
    assert_int_equal(written, 1024);
    assert_int_equal(bl_export(f, BL_FORMAT_PARQUET_RAW, NULL, 0, &written),
                     BL_E_BUFFER_TOO_SMALL);
    assert_int_equal(written, 1024);
    assert_int_equal(bl_export(f, BL_FORMAT_PARQUET, buf, 1040, &written), BL_OK);
    assert_int_equal(written, 1040);
    assert_int_equal(bl_export(f, BL_FORMAT_PARQUET, NULL, 1040, &written), BL_E_INVALID);
    assert_int_equal(bl_export(f, (bl_foreign_format)99, buf, sizeof buf, &written), BL_E_INVALID);
    assert_int_equal(bl_export_size(f, (bl_foreign_format)0, &size), BL_E_INVALID);
    assert_int_equal(bl_export_size(NULL, BL_FORMAT_PARQUET, &size), BL_E_INVALID);
    assert_int_equal(bl_export_size(f, BL_FORMAT_PARQUET, NULL), BL_E_INVALID);
    bl_free(f);
}

typedef struct malformed_case {
    const char *what;
    uint8_t bytes[24];
    size_t len;
    bl_status want;
} malformed_case;

/* Header variants, each followed by `data` bitset bytes (1024 unless the case says otherwise). */
static const malformed_case parquet_cases[] = {
    /* Accepted spellings. */
    {"canonical", {0x15, 0x80, 0x10, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, 16, BL_OK},
    {"long-form field ids", {0x05, 0x02, 0x80, 0x10, 0x0c, 0x04, 0x1c, 0, 0, 0x0c, 0x06, 0x1c, 0, 0, 0x0c, 0x08, 0x1c, 0, 0, 0}, 20, BL_OK},
    {"fields in reverse order", {0x0c, 0x08, 0x1c, 0, 0, 0x0c, 0x06, 0x1c, 0, 0, 0x0c, 0x04, 0x1c, 0, 0, 0x05, 0x02, 0x80, 0x10, 0}, 20, BL_OK},
    /* Wrong union members and types. */
    {"algorithm member 2", {0x15, 0x80, 0x10, 0x1c, 0x2c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, 16, BL_E_FORMAT},
    {"hash member 2", {0x15, 0x80, 0x10, 0x1c, 0x1c, 0, 0, 0x1c, 0x2c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, 16, BL_E_FORMAT},
    {"compression member 2 (GZIP-like)", {0x15, 0x80, 0x10, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x2c, 0, 0, 0}, 16, BL_E_FORMAT},
    {"algorithm member is an i32", {0x15, 0x80, 0x10, 0x1c, 0x15, 0x02, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, 16, BL_E_FORMAT},
    {"empty algorithm union", {0x15, 0x80, 0x10, 0x1c, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, 14, BL_E_FORMAT},
    {"two algorithm members", {0x15, 0x80, 0x10, 0x1c, 0x1c, 0, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, 18, BL_E_FORMAT},
    {"field inside SplitBlockAlgorithm", {0x15, 0x80, 0x10, 0x1c, 0x1c, 0x15, 0x02, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, 18, BL_E_FORMAT},
    {"nested struct in SplitBlockAlgorithm", {0x15, 0x80, 0x10, 0x1c, 0x1c, 0x1c, 0x1c, 0x1c, 0, 0, 0, 0, 0, 0}, 14, BL_E_FORMAT},
    {"numBytes is an i64", {0x16, 0x80, 0x10, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, 16, BL_E_FORMAT},
    {"numBytes is a bool", {0x11, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, 14, BL_E_FORMAT},
    {"algorithm is an i32", {0x15, 0x80, 0x10, 0x15, 0x02, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, 14, BL_E_FORMAT},
    /* Unknown, repeated, missing fields. */
    {"unknown field 5", {0x15, 0x80, 0x10, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x15, 0x02, 0}, 18, BL_E_FORMAT},
    {"field 0 (long form)", {0x05, 0x00, 0x80, 0x10, 0}, 5, BL_E_FORMAT},
    {"negative field id", {0x05, 0x01, 0x80, 0x10, 0}, 5, BL_E_FORMAT},
    {"numBytes twice", {0x15, 0x80, 0x10, 0x05, 0x02, 0x80, 0x10, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, 20, BL_E_FORMAT},
    {"compression missing", {0x15, 0x80, 0x10, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, 12, BL_E_FORMAT},
    {"numBytes missing", {0x2c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, 13, BL_E_FORMAT},
    {"empty struct", {0}, 1, BL_E_FORMAT},
    {"stop byte with a delta", {0x15, 0x80, 0x10, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x10}, 16, BL_E_FORMAT},
    /* Varints. */
    {"overlong numBytes varint", {0x15, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, 20, BL_E_FORMAT},
    {"non-minimal numBytes varint", {0x15, 0x80, 0x90, 0x00, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, 17, BL_E_FORMAT},
    {"numBytes wider than 32 bits", {0x15, 0xff, 0xff, 0xff, 0xff, 0x1f, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, 19, BL_E_FORMAT},
    {"overlong field id", {0x05, 0x82, 0x80, 0x80, 0x00, 0x80, 0x10, 0}, 8, BL_E_FORMAT},
    {"field id wider than 16 bits", {0x05, 0x80, 0x80, 0x04, 0x80, 0x10, 0}, 7, BL_E_FORMAT},
    /* numBytes values Parquet readers reject. */
    {"numBytes -1024", {0x15, 0xff, 0x0f, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, 16, BL_E_BAD_GEOMETRY},
    {"numBytes 1000", {0x15, 0xd0, 0x0f, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, 16, BL_E_BAD_GEOMETRY},
    {"numBytes 16", {0x15, 0x20, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, 15, BL_E_BAD_GEOMETRY},
    {"numBytes 0", {0x15, 0x00, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, 15, BL_E_BAD_GEOMETRY},
    {"numBytes 256 MiB", {0x15, 0x80, 0x80, 0x80, 0x80, 0x02, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, 19, BL_E_BAD_GEOMETRY},
    {"numBytes 2048 (data is 1024)", {0x15, 0x80, 0x20, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, 16, BL_E_TRUNCATED},
    {"numBytes 512 (data is 1024)", {0x15, 0x80, 0x08, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, 16, BL_E_BAD_GEOMETRY},
};

static void test_parquet_malformed(void **state)
{
    (void)state;
    uint8_t *buf = calloc(1, 24 + GOLDEN_BYTES + 1);
    assert_non_null(buf);
    for (size_t i = 0; i < BL_ARRAY_LEN(parquet_cases); i++) {
        const malformed_case *c = &parquet_cases[i];
        memcpy(buf, c->bytes, c->len);
        memset(buf + c->len, 0x5a, GOLDEN_BYTES);
        bl_filter *f = (bl_filter *)buf; /* must be reset to NULL on failure */
        bl_status st = bl_import(&f, BL_FORMAT_PARQUET, buf, c->len + GOLDEN_BYTES);
        if (st != c->want)
            fail_msg("parquet case \"%s\": got %s, want %s", c->what, bl_strerror(st),
                     bl_strerror(c->want));
        if (st == BL_OK) {
            assert_int_equal(f->nbytes, GOLDEN_BYTES);
            assert_true(f->data[0] == 0x5a && f->data[GOLDEN_BYTES - 1] == 0x5a);
        } else {
            assert_null(f);
        }
        bl_free(f);
    }
    /* Truncation anywhere inside the header, with nothing after it. */
    size_t flen;
    uint8_t *file = slurp(GOLDEN_PARQUET, &flen);
    for (size_t len = 0; len < 16; len++) {
        bl_filter *f = NULL;
        bl_status st = bl_import(&f, BL_FORMAT_PARQUET, file, len);
        if (st != BL_E_FORMAT)
            fail_msg("header truncated to %zu bytes: got %s", len, bl_strerror(st));
    }
    /* Header intact, bitset cut short or extended: numBytes disagrees with the data. */
    bl_filter *f = NULL;
    assert_int_equal(bl_import(&f, BL_FORMAT_PARQUET, file, 16), BL_E_TRUNCATED);
    assert_int_equal(bl_import(&f, BL_FORMAT_PARQUET, file, flen - 1), BL_E_TRUNCATED);
    memcpy(buf, file, flen);
    buf[flen] = 0;
    assert_int_equal(bl_import(&f, BL_FORMAT_PARQUET, buf, flen + 1), BL_E_BAD_GEOMETRY);
    /* Raw bitsets of sizes Parquet rejects. */
    static const size_t raw_bad[] = {0, 1, 31, 48, 96, 1000, 1023, 1025};
    for (size_t i = 0; i < BL_ARRAY_LEN(raw_bad); i++)
        assert_int_equal(bl_import(&f, BL_FORMAT_PARQUET_RAW, buf, raw_bad[i]), BL_E_BAD_GEOMETRY);
    /* Arguments. */
    assert_int_equal(bl_import(NULL, BL_FORMAT_PARQUET, file, flen), BL_E_INVALID);
    assert_int_equal(bl_import(&f, BL_FORMAT_PARQUET, NULL, flen), BL_E_INVALID);
    assert_int_equal(bl_import(&f, (bl_foreign_format)7, file, flen), BL_E_INVALID);
    assert_int_equal(bl_import(&f, BL_FORMAT_PARQUET, NULL, 0), BL_E_FORMAT);
    assert_null(f);
    free(file);
    free(buf);
}

/* Random corruption of a valid export, and random bytes: an error or a well-formed filter,
 * never a crash or an out-of-bounds read (run under ASan). */
static void test_parquet_fuzz(void **state)
{
    (void)state;
    uint64_t rng = g_seed ^ 0xf00d;
    size_t flen;
    uint8_t *file = slurp(GOLDEN_PARQUET, &flen);
    size_t ok = 0, rejected = 0;
    for (int iter = 0; iter < 20000; iter++) {
        uint64_t r = tu_next(&rng);
        size_t len = flen;
        uint8_t *buf = malloc(flen);
        assert_non_null(buf);
        memcpy(buf, file, flen);
        if (iter % 4 == 3) {
            /* Header of random bytes. */
            for (size_t i = 0; i < 24; i++)
                buf[i] = (uint8_t)tu_next(&rng);
        } else {
            /* 1-3 byte flips inside the header, maybe a truncation. */
            for (unsigned m = 0; m <= (r & 3) % 3; m++) {
                uint64_t q = tu_next(&rng);
                buf[q % 16] ^= (uint8_t)(1u << ((q >> 8) & 7));
            }
            if (r & 0x100)
                len = (size_t)((r >> 16) % flen);
        }
        /* An exact-size copy so ASan sees any read past the end. */
        uint8_t *exact = malloc(len ? len : 1);
        assert_non_null(exact);
        memcpy(exact, buf, len);
        bl_filter *f = NULL;
        bl_status st = bl_import(&f, BL_FORMAT_PARQUET, exact, len);
        if (st == BL_OK) {
            ok++;
            assert_true(f->nbytes >= 32 && (f->nbytes & (f->nbytes - 1)) == 0);
            assert_true(f->nbytes < len);
            bl_free(f);
        } else {
            rejected++;
            assert_null(f);
            assert_true(st == BL_E_FORMAT || st == BL_E_BAD_GEOMETRY || st == BL_E_TRUNCATED);
        }
        free(exact);
        free(buf);
    }
    printf("# parquet fuzz: %zu accepted, %zu rejected\n", ok, rejected);
    assert_true(rejected > 0);
    free(file);
}

/* ---- Guava ------------------------------------------------------------------------------------ */

/* Hashing.murmur3_128().hashBytes(key).toString() from Guava 31.1: h1 then h2, little-endian. */
static const struct {
    const char *key_hex;
    const char *guava;
} murmur_vectors[] = {
    {"", "00000000000000000000000000000000"},
    {"61", "897859f6655555855a890e51483ab5e6"},
    {"68656c6c6f", "029bbd41b3a7d8cb191dae486a901e5b"},
    {"54686520717569636b2062726f776e20666f78206a756d7073206f76657220746865206c617a7920646f67",
     "6c1b07bc7bbc4be347939ac4a93c437a"},
    {"0001020304050607", "c82f8ed6bde1a747c7dc31ec02eee660"},
    {"000102030405060708", "322d816e0fcbb4fbb9ff00021d75de78"},
    {"000102030405060708090a0b0c0d0e", "e92549fd98152347e97dc688ee6d84cd"},
    {"000102030405060708090a0b0c0d0e0f", "303f9091b524494445e82f76566490ab"},
    {"000102030405060708090a0b0c0d0e0f10", "0ec2e79f0ff4765c24a8da9e6b025fc1"},
    {"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e",
     "94d02ca3e1d33d05905400b4ef9ae59e"},
    {"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
     "0f502fb622906dc65111c3346e0a051c"},
    {"c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6"
     "f7f8f9fafbfcfdfeff000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425"
     "262728292a2b2c",
     "538c1f9305a43b4a0db77f2dd7a223d0"},
    {"68c3a96c6c6f2077c3b6726c6420e29883", "a943eb2144049a037e1c3c876217c011"},
};

static size_t unhex(const char *hex, uint8_t *out)
{
    size_t n = strlen(hex) / 2;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
    return n;
}

static void test_murmur3_guava_vectors(void **state)
{
    (void)state;
    for (size_t i = 0; i < BL_ARRAY_LEN(murmur_vectors); i++) {
        uint8_t key[128], want[16], got[16];
        size_t len = unhex(murmur_vectors[i].key_hex, key);
        unhex(murmur_vectors[i].guava, want);
        uint64_t h[2];
        bl_murmur3_x64_128(key, len, 0, h);
        for (int j = 0; j < 16; j++)
            got[j] = (uint8_t)(h[j / 8] >> (8 * (j % 8)));
        if (memcmp(got, want, 16) != 0)
            fail_msg("murmur3 vector %zu (%zu bytes) differs from Guava", i, len);
    }
}

static void test_guava_golden(void **state)
{
    (void)state;
    /* Single and batched adds both give Guava's bytes. */
    for (int batched = 0; batched < 2; batched++) {
        bl_filter *f = geometry(BL_LAYOUT_CLASSIC, 128, 7, 0, NULL);
        add_golden_keys(f, batched);
        size_t len;
        uint8_t *out = export_all(f, BL_FORMAT_GUAVA, &len);
        assert_int_equal(len, sizeof golden_guava);
        assert_memory_equal(out, golden_guava, sizeof golden_guava);
        free(out);
        bl_free(f);
    }
    /* Import Guava's bytes: every key present, geometry as Guava's. */
    bl_filter *f;
    assert_int_equal(bl_import(&f, BL_FORMAT_GUAVA, golden_guava, sizeof golden_guava), BL_OK);
    assert_imported(f, BL_LAYOUT_CLASSIC);
    bl_info info;
    assert_int_equal(bl_get_info(f, &info), BL_OK);
    assert_int_equal(info.k, 7);
    assert_int_equal(info.bits, 128);
    assert_int_equal(info.hash, BL_HASH_MURMUR3_128);
    for (size_t i = 0; i < 4; i++)
        assert_true(bl_contains(f, golden_keys[i], strlen(golden_keys[i])));
    bl_free(f);
}

static void test_guava_roundtrip(void **state)
{
    (void)state;
    uint64_t rng = g_seed ^ 0xc0ffee;
    static const struct {
        uint64_t bits;
        unsigned k;
        size_t keys;
    } geo[] = {{64, 1, 3}, {192, 3, 10}, {64 * 1001, 7, 6000}, {1 << 20, 10, 70000},
               {64 * 3, 255, 2}};
    uint8_t key[64];
    for (size_t gi = 0; gi < BL_ARRAY_LEN(geo); gi++) {
        bl_filter *f = geometry(BL_LAYOUT_CLASSIC, geo[gi].bits, geo[gi].k, 0, NULL);
        uint64_t start = rng;
        for (size_t i = 0; i < geo[gi].keys; i++) {
            size_t len = tu_key(&rng, key, sizeof key);
            assert_int_equal(bl_add(f, key, len), BL_OK);
        }
        size_t len;
        uint8_t *buf = export_all(f, BL_FORMAT_GUAVA, &len);
        assert_int_equal(len, 6 + geo[gi].bits / 8);
        assert_int_equal(buf[0], 1);
        assert_int_equal(buf[1], geo[gi].k & 0xff);
        assert_int_equal(((uint32_t)buf[2] << 24 | buf[3] << 16 | buf[4] << 8 | buf[5]),
                         geo[gi].bits / 64);
        /* The first word, big-endian, is the first 64 bits of the payload. */
        uint64_t w0 = 0, p0;
        for (int j = 0; j < 8; j++)
            w0 = w0 << 8 | buf[6 + j];
        memcpy(&p0, f->data, 8);
        assert_true(w0 == p0);
        bl_filter *g = NULL;
        assert_int_equal(bl_import(&g, BL_FORMAT_GUAVA, buf, len), BL_OK);
        assert_imported(g, BL_LAYOUT_CLASSIC);
        assert_true(bl_same_identity(f, g));
        assert_memory_equal(g->data, f->data, f->nbytes);
        uint64_t replay = start;
        for (size_t i = 0; i < geo[gi].keys; i++) {
            size_t klen = tu_key(&replay, key, sizeof key);
            assert_true(bl_contains(g, key, klen));
        }
        for (int i = 0; i < 2000; i++) {
            size_t klen = tu_key(&rng, key, sizeof key);
            assert_int_equal(bl_contains(f, key, klen), bl_contains(g, key, klen));
        }
        bl_free(g);
        free(buf);
        bl_free(f);
    }
    /* bl_create's classic sizing exports too. */
    bl_filter *f = tu_create(BL_LAYOUT_CLASSIC, 5000, 0.001, NULL);
    size_t size;
    assert_int_equal(bl_export_size(f, BL_FORMAT_GUAVA, &size), BL_OK);
    assert_int_equal(size, 6 + f->nbytes);
    bl_free(f);
}

static void test_guava_export_refusals(void **state)
{
    (void)state;
    size_t size, written = 5;
    uint8_t buf[256];
    bl_filter *f = geometry(BL_LAYOUT_CLASSIC, 1024, 5, 42, NULL);
    assert_int_equal(bl_export_size(f, BL_FORMAT_GUAVA, &size), BL_E_UNSUPPORTED);
    assert_int_equal(bl_export(f, BL_FORMAT_GUAVA, buf, sizeof buf, &written), BL_E_UNSUPPORTED);
    assert_int_equal(written, 0);
    bl_free(f);
    f = geometry(BL_LAYOUT_SBBF, 1024, 8, 0, NULL);
    assert_int_equal(bl_export_size(f, BL_FORMAT_GUAVA, &size), BL_E_UNSUPPORTED);
    bl_free(f);
    f = geometry(BL_LAYOUT_BLOCKED, 1024, 8, 0, NULL);
    assert_int_equal(bl_export_size(f, BL_FORMAT_GUAVA, &size), BL_E_UNSUPPORTED);
    bl_free(f);
    f = geometry(BL_LAYOUT_CLASSIC, 1024, 5, 0, NULL);
    assert_int_equal(bl_export(f, BL_FORMAT_GUAVA, buf, 6 + 128 - 1, &written),
                     BL_E_BUFFER_TOO_SMALL);
    assert_int_equal(written, 6 + 128);
    assert_int_equal(bl_export(f, BL_FORMAT_GUAVA, buf, 6 + 128, &written), BL_OK);
    assert_int_equal(written, 6 + 128);
    bl_free(f);
}

/* Guava counts its longs in a Java int: a classic filter of 2^31 - 1 words (16 GiB, mapped
 * lazily, never touched) is the largest it carries, and one word more is refused before any
 * byte is written. Skipped where the address space or overcommit refuses 16 GiB. */
static void test_guava_export_word_limit(void **state)
{
    (void)state;
    const uint64_t max_words = UINT64_C(0x7fffffff);
    bl_filter *f = NULL;
    bl_status st = bl_create_geometry(&f, BL_LAYOUT_CLASSIC, max_words * 64, 3, 0, 0, NULL);
    if (st == BL_E_NOMEM || st == BL_E_TOO_LARGE)
        skip();
    assert_int_equal(st, BL_OK);
    size_t size = 0, written = 0;
    uint8_t buf[16];
    assert_int_equal(bl_export_size(f, BL_FORMAT_GUAVA, &size), BL_OK);
    assert_int_equal(size, 6 + max_words * 8);
    assert_int_equal(bl_export(f, BL_FORMAT_GUAVA, buf, sizeof buf, &written),
                     BL_E_BUFFER_TOO_SMALL);
    assert_int_equal(written, size);
    bl_free(f);
    st = bl_create_geometry(&f, BL_LAYOUT_CLASSIC, (max_words + 1) * 64, 3, 0, 0, NULL);
    if (st == BL_E_NOMEM)
        skip();
    assert_int_equal(st, BL_OK);
    assert_int_equal(bl_export_size(f, BL_FORMAT_GUAVA, &size), BL_E_UNSUPPORTED);
    written = 5;
    assert_int_equal(bl_export(f, BL_FORMAT_GUAVA, buf, sizeof buf, &written), BL_E_UNSUPPORTED);
    assert_int_equal(written, 0);
    bl_free(f);
}

static void test_guava_malformed(void **state)
{
    (void)state;
    static const malformed_case cases[] = {
        {"empty", {0}, 0, BL_E_TRUNCATED},
        {"5-byte header", {1, 7, 0, 0, 0}, 5, BL_E_TRUNCATED},
        {"strategy MURMUR128_MITZ_32", {0, 7, 0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8}, 14, BL_E_UNSUPPORTED},
        {"strategy 2", {2, 7, 0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8}, 14, BL_E_FORMAT},
        {"strategy -1", {0xff, 7, 0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8}, 14, BL_E_FORMAT},
        {"k = 0", {1, 0, 0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8}, 14, BL_E_BAD_K},
        {"word count 0", {1, 7, 0, 0, 0, 0}, 6, BL_E_BAD_GEOMETRY},
        {"word count overflows (0x80000000)", {1, 7, 0x80, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8}, 14, BL_E_FORMAT},
        {"word count overflows (-1)", {1, 7, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 7, 8}, 14, BL_E_FORMAT},
        {"word count INT32_MAX, 1 word of data", {1, 7, 0x7f, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 7, 8}, 14, BL_E_TRUNCATED},
        {"2 words, 1 present", {1, 7, 0, 0, 0, 2, 1, 2, 3, 4, 5, 6, 7, 8}, 14, BL_E_TRUNCATED},
        {"1 word, 7 bytes", {1, 7, 0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7}, 13, BL_E_TRUNCATED},
        {"1 word, 9 bytes", {1, 7, 0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 15, BL_E_BAD_GEOMETRY},
        {"valid: 1 word, k = 255", {1, 255, 0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8}, 14, BL_OK},
    };
    for (size_t i = 0; i < BL_ARRAY_LEN(cases); i++) {
        /* An exact-size heap copy so ASan catches any read past the end. */
        uint8_t *buf = malloc(cases[i].len ? cases[i].len : 1);
        assert_non_null(buf);
        memcpy(buf, cases[i].bytes, cases[i].len);
        bl_filter *f = (bl_filter *)buf;
        bl_status st = bl_import(&f, BL_FORMAT_GUAVA, buf, cases[i].len);
        if (st != cases[i].want)
            fail_msg("guava case \"%s\": got %s, want %s", cases[i].what, bl_strerror(st),
                     bl_strerror(cases[i].want));
        if (st == BL_OK) {
            assert_int_equal(f->k, 255);
            assert_int_equal(f->nbits, 64);
            /* Big-endian long 0x0102030405060708 -> bit 3 (0x08) is bit 3 of word 0. */
            uint64_t w;
            memcpy(&w, f->data, 8);
            assert_true(w == 0x0102030405060708ULL);
        } else {
            assert_null(f);
        }
        bl_free(f);
        free(buf);
    }
}

/* ---- Streams and files: bl_export_fd, bl_export_save ---------------------------------------- */

/* Exports of several sizes per format: Guava's of 1 word, of a few, of 2.5 MiB in 3 pieces (its
 * words are converted 1 MiB at a time, the last piece partial); Parquet's of 32 bytes to 4 MiB. */
static const struct {
    bl_foreign_format format;
    uint64_t bits;
    size_t keys;
} stream_cases[] = {
    {BL_FORMAT_GUAVA, 64, 3},
    {BL_FORMAT_GUAVA, 64 * 5, 20},
    {BL_FORMAT_GUAVA, 64 * 333331, 200000},
    {BL_FORMAT_PARQUET, 32 * 8, 5},
    {BL_FORMAT_PARQUET, (1u << 20) * 8, 100000},
    {BL_FORMAT_PARQUET_RAW, 32 * 8, 5},
    {BL_FORMAT_PARQUET_RAW, (4u << 20) * 8, 100000},
};

/* The filter of a case, with keys in it: every byte of the export is worth comparing. */
static bl_filter *stream_filter(size_t i, uint64_t *rng)
{
    const bool guava = stream_cases[i].format == BL_FORMAT_GUAVA;
    bl_filter *f = geometry(guava ? BL_LAYOUT_CLASSIC : BL_LAYOUT_SBBF, stream_cases[i].bits,
                            guava ? 5 : 8, 0, NULL);
    uint64_t *keys = malloc(stream_cases[i].keys * sizeof *keys);
    assert_non_null(keys);
    for (size_t j = 0; j < stream_cases[i].keys; j++)
        keys[j] = tu_next(rng);
    assert_int_equal(bl_add_u64_batch(f, keys, stream_cases[i].keys), BL_OK);
    free(keys);
    return f;
}

/* A temporary directory for the files of a test, and a name in it. */
static void stream_dir(char (*dir)[256], char (*path)[300], const char *name)
{
    assert_true(tu_temp_dir(*dir, sizeof *dir, "bl_compat"));
    snprintf(*path, sizeof *path, "%s/%s", *dir, name);
}

/* bl_export_fd writes bl_export's bytes in order from the descriptor's position: into a pipe
 * (a child writes, this process reads), into a file after bytes already there; bl_export_save's
 * file holds them exactly; and any split of the export into pieces gives them back. */
static void test_export_streams(void **state)
{
    (void)state;
    uint64_t rng = g_seed ^ 0x5717ea;
    char dir[256], path[300];
    stream_dir(&dir, &path, "export.out");
    for (size_t i = 0; i < BL_ARRAY_LEN(stream_cases); i++) {
        const bl_foreign_format fmt = stream_cases[i].format;
        bl_filter *f = stream_filter(i, &rng);
        size_t len;
        uint8_t *want = export_all(f, fmt, &len);

        int from_child, to_parent;
        pid_t pid = tu_fork_piped(&from_child, &to_parent);
        if (pid == 0)
            _exit(bl_export_fd(f, fmt, to_parent) == BL_OK ? 0 : 1);
        size_t got_len = 0;
        uint8_t *got = tu_child_output(pid, from_child, &got_len);
        if (got_len != len || memcmp(got, want, len) != 0)
            fail_msg("case %zu: bl_export_fd through a pipe: %zu bytes, not bl_export's %zu", i,
                     got_len, len);
        free(got);

        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "ahead", 5), 5);
        assert_int_equal(bl_export_fd(f, fmt, fd), BL_OK);
        assert_int_equal(close(fd), 0);
        got = ft_read_file(path, &got_len);
        assert_int_equal(got_len, 5 + len);
        assert_memory_equal(got, "ahead", 5);
        if (memcmp(got + 5, want, len) != 0)
            fail_msg("case %zu: bl_export_fd after bytes in a file differs from bl_export", i);
        free(got);

        assert_int_equal(bl_export_save(f, fmt, path), BL_OK);
        got = ft_read_file(path, &got_len);
        assert_int_equal(got_len, len);
        if (memcmp(got, want, len) != 0)
            fail_msg("case %zu: bl_export_save's file differs from bl_export", i);
        free(got);

        /* Pieces of any length at any offset: single bytes and odd lengths cut Guava's words
         * and the header anywhere. */
        bl_export_plan plan;
        assert_int_equal(bl_export_plan_of(f, fmt, &plan), BL_OK);
        assert_int_equal(plan.header_len + plan.payload_len, len);
        got = malloc(len);
        assert_non_null(got);
        memset(got, 0xa5, len);
        for (size_t off = 0, n; off < len; off += n) {
            const uint64_t r = tu_next(&rng);
            n = r % 4 == 0 ? (size_t)(r >> 8) % 17 : (size_t)(r >> 8) % (len / 3 + 2);
            n = n < len - off ? n : len - off;
            bl_export_piece(&plan, got + off, off, n);
        }
        if (memcmp(got, want, len) != 0)
            fail_msg("case %zu: the export in random pieces differs from bl_export", i);
        free(got);
        free(want);
        bl_free(f);
    }
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* The refusals of bl_export_size, before anything is written or any file made; bad arguments;
 * a write that fails (a pipe with no reader: EPIPE), at the first write and after a few pieces. */
static void test_export_stream_errors(void **state)
{
    (void)state;
    char dir[256], path[300];
    stream_dir(&dir, &path, "refused.out");
    bl_filter *cl = geometry(BL_LAYOUT_CLASSIC, 64 * 333331, 5, 0, NULL);
    bl_filter *pq = geometry(BL_LAYOUT_SBBF, 1024 * 8, 8, 0, NULL);
    bl_filter *seeded = geometry(BL_LAYOUT_CLASSIC, 1024, 5, 42, NULL);
    bl_filter *odd = geometry(BL_LAYOUT_SBBF, 96 * 8, 8, 0, NULL);
    int p[2];
    assert_int_equal(pipe(p), 0);
    const struct {
        const bl_filter *f;
        bl_foreign_format fmt;
        bl_status want;
    } refused[] = {{NULL, BL_FORMAT_GUAVA, BL_E_INVALID},
                   {cl, (bl_foreign_format)99, BL_E_INVALID},
                   {cl, BL_FORMAT_PARQUET, BL_E_UNSUPPORTED},
                   {pq, BL_FORMAT_GUAVA, BL_E_UNSUPPORTED},
                   {seeded, BL_FORMAT_GUAVA, BL_E_UNSUPPORTED},
                   {odd, BL_FORMAT_PARQUET_RAW, BL_E_UNSUPPORTED}};
    for (size_t i = 0; i < BL_ARRAY_LEN(refused); i++) {
        assert_int_equal(bl_export_fd(refused[i].f, refused[i].fmt, p[1]), refused[i].want);
        assert_int_equal(bl_export_save(refused[i].f, refused[i].fmt, path), refused[i].want);
        assert_int_equal(access(path, F_OK), -1);
    }
    close(p[1]);
    uint8_t byte;
    assert_int_equal(read(p[0], &byte, 1), 0); /* nothing was written */
    close(p[0]);
    assert_int_equal(bl_export_fd(cl, BL_FORMAT_GUAVA, -1), BL_E_INVALID);
    assert_int_equal(bl_export_save(cl, BL_FORMAT_GUAVA, NULL), BL_E_INVALID);

    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    static const bl_foreign_format fmts[] = {BL_FORMAT_PARQUET, BL_FORMAT_PARQUET_RAW,
                                             BL_FORMAT_GUAVA};
    for (size_t i = 0; i < BL_ARRAY_LEN(fmts); i++) {
        assert_int_equal(pipe(p), 0);
        close(p[0]);
        errno = 0;
        assert_int_equal(bl_export_fd(fmts[i] == BL_FORMAT_GUAVA ? cl : pq, fmts[i], p[1]),
                         BL_E_IO);
        assert_int_equal(errno, EPIPE);
        close(p[1]);
    }
    /* The reader leaves after the first piece and a half of a 2.5 MiB Guava export. */
    int from_child, to_parent;
    pid_t pid = tu_fork_piped(&from_child, &to_parent);
    if (pid == 0) {
        errno = 0;
        const bl_status st = bl_export_fd(cl, BL_FORMAT_GUAVA, to_parent);
        _exit(st == BL_E_IO && errno == EPIPE ? 0 : 1);
    }
    uint8_t *buf = malloc(3u << 19);
    assert_non_null(buf);
    size_t got = 0;
    while (got < (3u << 19)) {
        const ssize_t r = read(from_child, buf + got, (3u << 19) - got);
        assert_true(r > 0);
        got += (size_t)r;
    }
    free(buf);
    close(from_child);
    tu_wait_ok(pid);
    signal(SIGPIPE, old);
    bl_free(cl);
    bl_free(pq);
    bl_free(seeded);
    bl_free(odd);
    assert_int_equal(rmdir(dir), 0);
}

/* ---- Fuzz corpus and regressions of bl_import ------------------------------------------------ */

static void replay_import(const char *path, const uint8_t *buf, size_t len)
{
    (void)path;
    (void)LLVMFuzzerTestOneInput(buf, len); /* traps on any violation */
}

/* A seed is a filter its format accepts, so that mutations start past the validation. */
static void replay_import_seed(const char *path, const uint8_t *buf, size_t len)
{
    bl_filter *f = NULL;
    if (len == 0 || bl_import(&f, fuzz_import_format(buf[0]), buf + 1, len - 1) != BL_OK)
        fail_msg("%s: not an input bl_import accepts", path);
    bl_free(f);
    replay_import(path, buf, len);
}

static void test_fuzz_import_corpus_and_regressions(void **state)
{
    (void)state;
    size_t n = ft_replay_dir("fuzz/corpus-import", replay_import_seed);
    assert_true(n >= 4);
    const size_t found = ft_replay_dir("fuzz/found-import", replay_import);
    assert_true(found >= 36);
    n += found + ft_replay_dir("fuzz/regressions-import", replay_import);
    printf("# replayed %zu import fuzz inputs\n", n);
}

int main(void)
{
    g_seed = tu_seed("test_compat");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_names),
        cmocka_unit_test(test_parquet_golden_export),
        cmocka_unit_test(test_parquet_golden_import),
        cmocka_unit_test(test_thrift_header),
        cmocka_unit_test(test_parquet_roundtrip_sizes),
        cmocka_unit_test(test_parquet_int64_keys),
        cmocka_unit_test(test_parquet_export_refusals),
        cmocka_unit_test(test_parquet_malformed),
        cmocka_unit_test(test_parquet_fuzz),
        cmocka_unit_test(test_murmur3_guava_vectors),
        cmocka_unit_test(test_guava_golden),
        cmocka_unit_test(test_guava_roundtrip),
        cmocka_unit_test(test_guava_export_refusals),
        cmocka_unit_test(test_guava_export_word_limit),
        cmocka_unit_test(test_guava_malformed),
        cmocka_unit_test(test_export_streams),
        cmocka_unit_test(test_export_stream_errors),
        cmocka_unit_test(test_fuzz_import_corpus_and_regressions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
