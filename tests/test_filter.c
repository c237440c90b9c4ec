/* SPDX-License-Identifier: MIT */
/* The filter: no false negatives anywhere, batch == single, golden Parquet bits, set laws,
 * concurrency, huge filters, invalid parameters, estimates. */
#include <pthread.h>
#include <math.h>
#include <sys/mman.h>

#include "../src/internal.h"
#include "test_util.h"

static const bl_layout plain_layouts[] = {BL_LAYOUT_BLOCKED, BL_LAYOUT_SBBF, BL_LAYOUT_CLASSIC};

/* Byte keys of assorted lengths (0 and 1 included) in one arena. */
typedef struct keyset {
    size_t n;
    uint8_t *arena;
    const void **ptrs;
    size_t *lens;
    uint64_t *u64;
} keyset;

static keyset make_keys(size_t n, uint64_t *s)
{
    keyset k = {n, malloc(n * 64 + 1), malloc(n * sizeof(void *)), malloc(n * sizeof(size_t)),
                malloc(n * sizeof(uint64_t))};
    assert_true(k.arena && k.ptrs && k.lens && k.u64);
    for (size_t i = 0; i < n; i++) {
        /* Offset by one byte: unaligned key pointers. */
        uint8_t *p = k.arena + 1 + i * 64;
        k.lens[i] = tu_key(s, p, 63);
        k.ptrs[i] = p;
        k.u64[i] = tu_next(s);
    }
    return k;
}

static void free_keys(keyset *k)
{
    free(k->arena);
    free(k->ptrs);
    free(k->lens);
    free(k->u64);
}

/* Key kinds of a keyset: 0 bytes, 1 uint64, 2 the uint64 values as pre-hashed ones (classic
 * answers those in keys.c's own loop). */
static size_t query_batch(const bl_filter *f, const keyset *ks, size_t n, int kind, uint8_t *res)
{
    if (kind == 0)
        return bl_contains_batch(f, (const void *const *)ks->ptrs, ks->lens, n, res);
    if (kind == 1)
        return bl_contains_u64_batch(f, ks->u64, n, res);
    return bl_contains_hash_batch(f, ks->u64, n, res);
}

static bool query_one(const bl_filter *f, const keyset *ks, size_t i, int kind)
{
    if (kind == 0)
        return bl_contains(f, ks->ptrs[i], ks->lens[i]);
    if (kind == 1)
        return bl_contains_u64(f, ks->u64[i]);
    return bl_contains_hash(f, ks->u64[i]);
}

/* One batched query of n keys of one kind against single queries, with and without a result
 * array. Returns the hits. */
static size_t batch_agrees_with_single(const bl_filter *f, const keyset *ks, size_t n, int kind,
                                       uint8_t *res)
{
    memset(res, 0xee, n + 1);
    const size_t hits = query_batch(f, ks, n, kind, res);
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        const bool one = query_one(f, ks, i, kind);
        assert_int_equal(res[i], one);
        count += one;
    }
    assert_int_equal(hits, count);
    assert_int_equal(query_batch(f, ks, n, kind, NULL), count);
    return count;
}

/* Every layout x kernel x key kind, single and batched adds: every added key is found by every
 * query path, and batched answers equal single answers on a mixed set. */
static void test_no_false_negatives(void **state)
{
    (void)state;
    uint64_t s = tu_seed("no false negatives");
    const char *kernels[8];
    const size_t nk = tu_kernels(kernels, 8);
    const size_t sizes[] = {0, 1, 7, 8, 9, 15, 16, 17, 255, 256, 257, 321, 5000};
    for (size_t l = 0; l < BL_ARRAY_LEN(plain_layouts); l++) {
        for (size_t ki = 0; ki < nk; ki++) {
            for (size_t si = 0; si < BL_ARRAY_LEN(sizes); si++) {
                const size_t n = sizes[si];
                keyset ks = make_keys(n ? n : 1, &s);
                bl_filter *f = tu_create(plain_layouts[l], 3 * n + 1, 0.01, kernels[ki]);
                /* Half the keys single, half batched, for each kind. */
                const size_t half = n / 2;
                for (size_t i = 0; i < half; i++) {
                    assert_int_equal(bl_add(f, ks.ptrs[i], ks.lens[i]), BL_OK);
                    assert_int_equal(bl_add_u64(f, ks.u64[i]), BL_OK);
                    assert_int_equal(bl_add_hash(f, ks.u64[i] ^ 0x5555), BL_OK);
                }
                assert_int_equal(bl_add_batch(f, (const void *const *)ks.ptrs + half, ks.lens + half, n - half), BL_OK);
                assert_int_equal(bl_add_u64_batch(f, ks.u64 + half, n - half), BL_OK);
                uint64_t *hs = malloc((n + 1) * sizeof *hs);
                for (size_t i = 0; i < n; i++)
                    hs[i] = ks.u64[i] ^ 0x5555;
                assert_int_equal(bl_add_hash_batch(f, hs + half, n - half), BL_OK);

                uint8_t *res = malloc(n + 1);
                assert_int_equal(bl_contains_batch(f, (const void *const *)ks.ptrs, ks.lens, n, res), n);
                for (size_t i = 0; i < n; i++) {
                    assert_int_equal(res[i], 1);
                    assert_true(bl_contains(f, ks.ptrs[i], ks.lens[i]));
                    assert_true(bl_contains_u64(f, ks.u64[i]));
                    assert_true(bl_contains_hash(f, hs[i]));
                }
                assert_int_equal(bl_contains_u64_batch(f, ks.u64, n, res), n);
                assert_int_equal(bl_contains_hash_batch(f, hs, n, NULL), n);

                /* Fresh keys: batched answers must equal single answers, hit counts agree. */
                keyset neg = make_keys(n ? n : 1, &s);
                size_t count = 0;
                for (int kind = 0; kind < 3; kind++)
                    count = batch_agrees_with_single(f, &neg, n, kind, res);
                /* Sized for the 3n keys added at p = 1%: hits on fresh keys stay rare. */
                assert_true(n < 1000 || count < n / 10);
                free(res);
                free(hs);
                free_keys(&neg);
                free_keys(&ks);
                bl_free(f);
            }
        }
    }
}

/* Single adds and queries hash byte keys in keys.c and batches in the pipeline: for each of
 * XXH3's length paths (0, 1-3, 4-8, 9-16, 17-128 in 16-byte rounds, 129-240, over 240) and each
 * plain layout, single adds set exactly the bits batched adds set, and each path finds the
 * other's keys. */
static void test_single_paths_every_length(void **state)
{
    (void)state;
    uint64_t s = tu_seed("single paths, every length");
    enum { MAXLEN = 300, EXTRA = 3 };
    static const size_t extra[EXTRA] = {1000, 4096, 5003};
    uint8_t *arena = malloc(MAXLEN * (MAXLEN + 1) / 2 + 1000 + 4096 + 5003 + 1);
    const void *ptrs[MAXLEN + EXTRA];
    size_t lens[MAXLEN + EXTRA];
    assert_non_null(arena);
    size_t off = 0;
    for (size_t i = 0; i < MAXLEN + EXTRA; i++) {
        lens[i] = i < MAXLEN ? i : extra[i - MAXLEN];
        for (size_t b = 0; b < lens[i]; b++)
            arena[off + b] = (uint8_t)tu_next(&s);
        ptrs[i] = arena + off;
        off += lens[i];
    }
    const char *kernels[8];
    const size_t nk = tu_kernels(kernels, 8);
    for (size_t l = 0; l < BL_ARRAY_LEN(plain_layouts) * 2; l++) {
        for (size_t ki = 0; ki < nk; ki++) {
            bl_params p;
            bl_params_init(&p);
            p.layout = plain_layouts[l / 2];
            p.expected_keys = 4 * (MAXLEN + EXTRA);
            p.kernel = kernels[ki];
            p.seed = l % 2 ? tu_next(&s) : 0; /* XXH3 over 240 bytes takes another path seeded */
            bl_filter *one = tu_create_params(&p), *all = tu_create_params(&p);
            for (size_t i = 0; i < MAXLEN + EXTRA; i++)
                assert_int_equal(bl_add(one, ptrs[i], lens[i]), BL_OK);
            assert_int_equal(bl_add_batch(all, ptrs, lens, MAXLEN + EXTRA), BL_OK);
            if (memcmp(one->data, all->data, one->nbytes) != 0)
                fail_msg("%s, kernel %s: single adds set other bits than a batched add",
                         bl_layout_name(p.layout), kernels[ki]);
            assert_int_equal(bl_contains_batch(one, ptrs, lens, MAXLEN + EXTRA, NULL),
                             MAXLEN + EXTRA);
            for (size_t i = 0; i < MAXLEN + EXTRA; i++)
                if (!bl_contains(all, ptrs[i], lens[i]))
                    fail_msg("%s, kernel %s: a %zu-byte key added in a batch not found alone",
                             bl_layout_name(p.layout), kernels[ki], lens[i]);
            bl_free(one);
            bl_free(all);
        }
    }
    free(arena);
}

/* u64 keys are their 8 little-endian bytes. */
static void test_u64_is_bytes(void **state)
{
    (void)state;
    uint64_t s = tu_seed("u64 is bytes");
    for (size_t l = 0; l < BL_ARRAY_LEN(plain_layouts); l++) {
        bl_filter *a = tu_create(plain_layouts[l], 1000, 0.01, NULL);
        bl_filter *b = tu_create(plain_layouts[l], 1000, 0.01, NULL);
        for (int i = 0; i < 1000; i++) {
            uint64_t v = tu_next(&s);
            bl_add_u64(a, v);
            bl_add(b, &v, 8);
        }
        assert_memory_equal(a->data, b->data, a->nbytes);
        bl_free(a);
        bl_free(b);
    }
}

/* parquet-java's filter of "hello", "parquet", "bloom", "filter": 16-byte header + 1024 bytes. */
static void test_parquet_golden_bitset(void **state)
{
    (void)state;
    /* tests/interop holds a copy of ../shared/interop's file, so a clone alone can run this. */
    FILE *fp = fopen("interop/parquet-java-bloom_filter.xxhash.bin", "rb");
    if (fp == NULL)
        fp = fopen("../../shared/interop/parquet-java-bloom_filter.xxhash.bin", "rb");
    assert_non_null(fp);
    uint8_t file[2048];
    size_t len = fread(file, 1, sizeof file, fp);
    fclose(fp);
    assert_int_equal(len, 16 + 1024);
    bl_filter *f = NULL;
    const char *kernels[8];
    const size_t nk = tu_kernels(kernels, 8);
    for (size_t ki = 0; ki < nk; ki++) {
        assert_int_equal(bl_create_geometry(&f, BL_LAYOUT_SBBF, 1024 * 8, 8, 0, 0, kernels[ki]), BL_OK);
        const char *words[] = {"hello", "parquet", "bloom", "filter"};
        const void *ptrs[4];
        size_t lens[4];
        for (int i = 0; i < 4; i++) {
            ptrs[i] = words[i];
            lens[i] = strlen(words[i]);
        }
        assert_int_equal(bl_add_batch(f, ptrs, lens, 4), BL_OK);
        assert_int_equal(f->nbytes, 1024);
        assert_memory_equal(f->data, file + 16, 1024);
        for (int i = 0; i < 4; i++)
            assert_true(bl_contains(f, words[i], strlen(words[i])));
        bl_free(f);
    }
}

static void test_set_operations(void **state)
{
    (void)state;
    uint64_t s = tu_seed("set operations");
    for (size_t l = 0; l < BL_ARRAY_LEN(plain_layouts); l++) {
        bl_filter *a = tu_create(plain_layouts[l], 2000, 0.01, NULL);
        bl_filter *b = tu_create(plain_layouts[l], 2000, 0.01, NULL);
        uint64_t ka[1000], kb[1000];
        for (int i = 0; i < 1000; i++) {
            ka[i] = tu_next(&s);
            kb[i] = tu_next(&s);
        }
        bl_add_u64_batch(a, ka, 1000);
        bl_add_u64_batch(b, kb, 1000);
        bl_filter *u = NULL, *u2 = NULL, *x = NULL;
        assert_int_equal(bl_clone(&u, a), BL_OK);
        assert_int_equal(bl_clone(&u2, b), BL_OK);
        assert_int_equal(bl_clone(&x, a), BL_OK);
        assert_int_equal(bl_union(u, b), BL_OK);
        assert_int_equal(bl_union(u2, a), BL_OK);
        assert_memory_equal(u->data, u2->data, u->nbytes); /* commutative */
        for (int i = 0; i < 1000; i++) {
            assert_true(bl_contains_u64(u, ka[i]));
            assert_true(bl_contains_u64(u, kb[i]));
        }
        /* Union equals the filter built from both key sets. */
        bl_filter *both = tu_create(plain_layouts[l], 2000, 0.01, NULL);
        bl_add_u64_batch(both, ka, 1000);
        bl_add_u64_batch(both, kb, 1000);
        assert_memory_equal(u->data, both->data, u->nbytes);
        /* Intersection: a subset of both, and a & a == a. */
        assert_int_equal(bl_intersect(x, b), BL_OK);
        const uint64_t *xw = (const uint64_t *)(const void *)x->data;
        const uint64_t *aw = (const uint64_t *)(const void *)a->data;
        const uint64_t *bw = (const uint64_t *)(const void *)b->data;
        for (size_t i = 0; i < x->nbytes / 8; i++)
            assert_int_equal(xw[i], aw[i] & bw[i]);
        bl_filter *self = NULL;
        bl_clone(&self, a);
        assert_int_equal(bl_intersect(self, a), BL_OK);
        assert_memory_equal(self->data, a->data, a->nbytes);
        /* Different identity: refused, dst untouched. */
        bl_params p;
        bl_params_init(&p);
        p.layout = plain_layouts[l];
        p.expected_keys = 2000;
        p.seed = 7;
        bl_filter *other = NULL;
        assert_int_equal(bl_create(&other, &p), BL_OK);
        assert_false(bl_same_identity(a, other));
        assert_int_equal(bl_union(other, a), BL_E_MISMATCH);
        assert_int_equal(bl_intersect(other, a), BL_E_MISMATCH);
        bl_filter *bigger = tu_create(plain_layouts[l], 200000, 0.01, NULL);
        assert_int_equal(bl_union(bigger, a), BL_E_MISMATCH);
        bl_free(bigger);
        bl_free(other);
        bl_free(self);
        bl_free(both);
        bl_free(u);
        bl_free(u2);
        bl_free(x);
        bl_free(a);
        bl_free(b);
    }
}

/* Many threads adding to one BL_FLAG_CONCURRENT filter lose no bit: the result equals a
 * sequential build byte for byte. */
typedef struct adder {
    bl_filter *f;
    const uint64_t *keys;
    size_t n;
} adder;

static void *add_thread(void *arg)
{
    adder *a = arg;
    for (size_t i = 0; i < a->n; i += 100) {
        size_t m = a->n - i < 100 ? a->n - i : 100;
        if (i % 300 == 0) {
            for (size_t j = 0; j < m; j++)
                bl_add_u64(a->f, a->keys[i + j]);
        } else {
            bl_add_u64_batch(a->f, a->keys + i, m);
        }
    }
    return NULL;
}

/* A union's key count is a sum held at UINT64_MAX: a count near 2^64 (a file may say anything)
 * wrapped to a handful of keys. Blocked and scalable filters alike. */
static void test_union_count_saturates(void **state)
{
    (void)state;
    const bl_layout layouts[] = {BL_LAYOUT_BLOCKED, BL_LAYOUT_SCALABLE};
    for (size_t l = 0; l < BL_ARRAY_LEN(layouts); l++) {
        bl_filter *a = tu_create(layouts[l], 1000, 0.01, NULL);
        bl_filter *b = tu_create(layouts[l], 1000, 0.01, NULL);
        const uint64_t keys[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        assert_int_equal(bl_add_u64_batch(b, keys, 10), BL_OK);
        a->keys_added = UINT64_MAX - 5;
        assert_int_equal(bl_union(a, b), BL_OK);
        bl_info info;
        assert_int_equal(bl_get_info(a, &info), BL_OK);
        assert_true(info.keys_added == UINT64_MAX);
        bl_free(a);
        bl_free(b);
    }
}

/* A union with a filter whose count is unknown (an import) has an unknown count. */
static void test_union_keys_unknown(void **state)
{
    (void)state;
    const bl_layout layouts[] = {BL_LAYOUT_BLOCKED, BL_LAYOUT_SCALABLE};
    for (size_t l = 0; l < BL_ARRAY_LEN(layouts); l++) {
        bl_filter *a = tu_create(layouts[l], 1000, 0.01, NULL);
        bl_filter *b = tu_create(layouts[l], 1000, 0.01, NULL);
        assert_int_equal(bl_add_u64(a, 1), BL_OK);
        b->keys_known = false;
        assert_int_equal(bl_union(a, b), BL_OK);
        bl_info info;
        assert_int_equal(bl_get_info(a, &info), BL_OK);
        assert_false(info.keys_known);
        bl_free(a);
        bl_free(b);
    }
}

/* Adds hold keys_added at UINT64_MAX too (a loaded count may be near it); it wrapped to a few. */
static void test_add_count_saturates(void **state)
{
    (void)state;
    const uint64_t keys[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    const unsigned flags[] = {0, BL_FLAG_CONCURRENT, 0};
    const bl_layout layouts[] = {BL_LAYOUT_BLOCKED, BL_LAYOUT_BLOCKED, BL_LAYOUT_SCALABLE};
    for (size_t c = 0; c < BL_ARRAY_LEN(layouts); c++) {
        bl_params p;
        bl_params_init(&p);
        p.layout = layouts[c];
        p.expected_keys = 1000;
        p.flags = flags[c];
        bl_filter *f = NULL;
        assert_int_equal(bl_create(&f, &p), BL_OK);
        f->keys_added = UINT64_MAX - 5;
        assert_int_equal(bl_add_u64_batch(f, keys, 10), BL_OK);
        assert_true(f->keys_added == UINT64_MAX);
        assert_int_equal(bl_add_u64(f, 11), BL_OK);
        assert_int_equal(bl_add(f, "twelve", 6), BL_OK);
        assert_true(f->keys_added == UINT64_MAX);
        bl_free(f);
    }
}

/* Every add entry counts each key it adds once, on every layout (scalable aside: it passes over
 * keys its newest stage seems to hold) and with or without the concurrent flag: the single-key
 * fast paths of plain blocked filters keep the count themselves, so dropping it there went
 * unnoticed by every other test. */
static uint64_t keys_added(const bl_filter *f)
{
    bl_info info;
    assert_int_equal(bl_get_info(f, &info), BL_OK);
    return info.keys_added;
}

static void test_add_counts_each_key(void **state)
{
    (void)state;
    const bl_layout layouts[] = {BL_LAYOUT_BLOCKED, BL_LAYOUT_BLOCKED, BL_LAYOUT_SBBF,
                                 BL_LAYOUT_CLASSIC, BL_LAYOUT_COUNTING};
    const unsigned flags[] = {0, BL_FLAG_CONCURRENT, 0, 0, 0};
    static const char bytes[48] = "a key long enough for every short and long path";
    for (size_t c = 0; c < BL_ARRAY_LEN(layouts); c++) {
        bl_params p;
        bl_params_init(&p);
        p.layout = layouts[c];
        p.flags = flags[c];
        p.expected_keys = 1000;
        bl_filter *f = NULL;
        assert_int_equal(bl_create(&f, &p), BL_OK);
        uint64_t want = 0;
        for (uint64_t i = 0; i < 40; i++) {
            assert_int_equal(bl_add_u64(f, 1000 + i), BL_OK);
            assert_int_equal(bl_add_hash(f, 0x9E3779B97F4A7C15ull * (i + 1)), BL_OK);
            assert_int_equal(bl_add(f, bytes, (size_t)i), BL_OK); /* lengths 0..39 */
            want += 3;
            if (keys_added(f) != want)
                fail_msg("layout %d flags %u: %llu keys counted after %llu adds", (int)p.layout,
                         p.flags, (unsigned long long)keys_added(f), (unsigned long long)want);
        }
        const uint64_t u[3] = {1, 2, 3};
        const void *const kp[2] = {bytes, bytes + 1};
        const size_t lens[2] = {5, 30};
        assert_int_equal(bl_add_u64_batch(f, u, 3), BL_OK);
        assert_int_equal(bl_add_hash_batch(f, u, 3), BL_OK);
        assert_int_equal(bl_add_batch(f, kp, lens, 2), BL_OK);
        assert_int_equal(keys_added(f), want + 8);
        bl_free(f);
    }
}

static void test_concurrent_insert(void **state)
{
    (void)state;
    uint64_t s = tu_seed("concurrent insert");
    enum { THREADS = 4, PER = 50000 };
    uint64_t *keys = malloc(sizeof(uint64_t) * THREADS * PER);
    for (size_t i = 0; i < (size_t)THREADS * PER; i++)
        keys[i] = tu_next(&s);
    for (size_t l = 0; l < BL_ARRAY_LEN(plain_layouts); l++) {
        bl_params p;
        bl_params_init(&p);
        p.layout = plain_layouts[l];
        p.expected_keys = THREADS * PER;
        /* A small filter: threads collide on the same words often. */
        p.bits_per_key = 2;
        p.flags = BL_FLAG_CONCURRENT;
        bl_filter *f = NULL, *seq = NULL;
        assert_int_equal(bl_create(&f, &p), BL_OK);
        p.flags = 0;
        assert_int_equal(bl_create(&seq, &p), BL_OK);
        pthread_t t[THREADS];
        adder a[THREADS];
        for (int i = 0; i < THREADS; i++) {
            a[i] = (adder){f, keys + (size_t)i * PER, PER};
            assert_int_equal(pthread_create(&t[i], NULL, add_thread, &a[i]), 0);
        }
        for (int i = 0; i < THREADS; i++)
            pthread_join(t[i], NULL);
        bl_add_u64_batch(seq, keys, (size_t)THREADS * PER);
        assert_memory_equal(f->data, seq->data, f->nbytes);
        bl_info info;
        bl_get_info(f, &info);
        assert_int_equal(info.keys_added, (uint64_t)THREADS * PER);
        bl_free(f);
        bl_free(seq);
    }
    free(keys);
}

/* A blocked filter over 2^32 bits: 64-bit line indexes and sizes all the way. */
static void test_over_4g_bits(void **state)
{
    (void)state;
    uint64_t s = tu_seed("over 2^32 bits");
    bl_filter *f = NULL;
    const uint64_t bits = (UINT64_C(1) << 32) + 512 * 3;
    assert_int_equal(bl_create_geometry(&f, BL_LAYOUT_BLOCKED, bits, 7, 0, 0, NULL), BL_OK);
    assert_int_equal(f->nbits, bits);
    assert_true(f->nbytes > (size_t)UINT32_MAX / 8);
    uint64_t keys[4096];
    for (size_t i = 0; i < 4096; i++)
        keys[i] = tu_next(&s);
    /* Keys that land in the last lines (hash with high bits set): the far end is reachable. */
    uint64_t top = UINT64_MAX - 5;
    assert_int_equal(bl_add_hash(f, top), BL_OK);
    assert_int_equal(bl_blocked_line(top, f->nblocks), f->nblocks - 1);
    assert_true(bl_contains_hash(f, top));
    assert_int_equal(bl_add_u64_batch(f, keys, 4096), BL_OK);
    assert_int_equal(bl_contains_u64_batch(f, keys, 4096, NULL), 4096);
    bl_free(f);
    /* sbbf's block index holds 2^32 blocks at most; classic has no such limit. */
    assert_int_equal(bl_create_geometry(&f, BL_LAYOUT_SBBF, (UINT64_C(1) << 40) + 256, 8, 0, 0, NULL),
                     BL_E_TOO_LARGE);
}

/* No k the size searches try (1..64 within the layout's range) has a lower model rate. */
static void assert_k_is_best(bl_layout layout, uint64_t bits, unsigned k, uint64_t n)
{
    unsigned k_min, k_max;
    assert_int_equal(bl_layout_k_range(layout, &k_min, &k_max), BL_OK);
    const double rate = bl_expected_fpp(layout, bits, k, n);
    for (unsigned kk = k_min; kk <= k_max && kk <= 64; kk++)
        assert_true(bl_expected_fpp(layout, bits, kk, n) >= rate);
}

/* bl_create_with_bits: exactly that size (rounded up to the unit) for expected_keys keys, which
 * it records as its design, with the model's rate there; k the best for the size unless forced. */
static void test_create_exact_bits(void **state)
{
    (void)state;
    const bl_layout layouts[] = {BL_LAYOUT_BLOCKED, BL_LAYOUT_SBBF, BL_LAYOUT_CLASSIC,
                                 BL_LAYOUT_COUNTING};
    for (size_t li = 0; li < BL_ARRAY_LEN(layouts); li++) {
        const uint64_t unit = bl_layout_block_bytes(layouts[li]) * 8;
        bl_params p;
        bl_params_init(&p);
        p.layout = layouts[li];
        p.expected_keys = 1000;
        bl_filter *f = NULL;
        assert_int_equal(bl_create_with_bits(&f, &p, 8192 + 1), BL_OK); /* one past whole units */
        bl_info info;
        assert_int_equal(bl_get_info(f, &info), BL_OK);
        assert_int_equal(info.bits, 8192 + unit);
        assert_int_equal(info.design_keys, 1000);
        assert_k_is_best(p.layout, info.bits, info.k, 1000);
        assert_true(info.design_fpp == bl_expected_fpp(p.layout, info.bits, info.k, 1000));
        bl_free(f);
        p.k = layouts[li] == BL_LAYOUT_SBBF ? 8 : 3; /* forced */
        assert_int_equal(bl_create_with_bits(&f, &p, 8192), BL_OK);
        assert_int_equal(bl_get_info(f, &info), BL_OK);
        assert_int_equal(info.k, p.k);
        bl_free(f);
        p.k = 0;
        p.bits_per_key = 10; /* two sizes */
        assert_int_equal(bl_create_with_bits(&f, &p, 8192), BL_E_INVALID);
        p.bits_per_key = 0;
        assert_int_equal(bl_create_with_bits(&f, &p, 0), BL_E_INVALID);
        p.expected_keys = 1000000000; /* one unit for 10^9 keys: rate 1 */
        assert_int_equal(bl_create_with_bits(&f, &p, 64), BL_E_INVALID);
        assert_null(f);
        assert_int_equal(bl_create_with_bits(&f, &p, UINT64_MAX), BL_E_TOO_LARGE);
    }
    /* k from the size itself: through bits per key (ceil(n * bits / n) sized again) this one
     * got a k one unit more would suit (k = 14 where 13 had the lower rate, by the model then) */
    bl_params p;
    bl_params_init(&p);
    p.layout = BL_LAYOUT_CLASSIC;
    p.expected_keys = 14285;
    bl_filter *f = NULL;
    assert_int_equal(bl_create_with_bits(&f, &p, 503552), BL_OK);
    assert_k_is_best(p.layout, f->nbits, f->k, p.expected_keys);
    bl_free(f);
    p.layout = BL_LAYOUT_SCALABLE;
    assert_int_equal(bl_create_with_bits(&f, &p, 8192), BL_E_INVALID);
    f = (bl_filter *)1;
    assert_int_equal(bl_create_with_bits(&f, NULL, 8192), BL_E_INVALID);
    assert_null(f); /* cleared on every error */
    assert_int_equal(bl_create_with_bits(NULL, &p, 8192), BL_E_INVALID);
}

/* bl_layout_k_range names exactly the k that creation accepts, so callers (the CLI's -k
 * message) can state the range without repeating the library's constants. */
static void test_layout_k_range(void **state)
{
    (void)state;
    const bl_layout layouts[] = {BL_LAYOUT_BLOCKED, BL_LAYOUT_SBBF, BL_LAYOUT_CLASSIC,
                                 BL_LAYOUT_COUNTING, BL_LAYOUT_SCALABLE};
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        unsigned lo = 0, hi = 0;
        assert_int_equal(bl_layout_k_range(layouts[i], &lo, &hi), BL_OK);
        assert_true(lo >= 1 && lo <= hi);
        bl_params p;
        bl_params_init(&p);
        p.layout = layouts[i];
        p.expected_keys = 1000;
        p.fpp = 0.01;
        const unsigned tries[] = {lo - 1, lo, hi, hi + 1};
        for (size_t t = 0; t < 4; t++) {
            if (tries[t] == 0)
                continue; /* k = 0 means "pick the best k" */
            p.k = tries[t];
            bl_filter *f = NULL;
            bl_status want = tries[t] >= lo && tries[t] <= hi ? BL_OK : BL_E_BAD_K;
            if (layouts[i] == BL_LAYOUT_SCALABLE)
                want = BL_E_INVALID; /* its stages are sized by rate alone */
            bl_status got = bl_create(&f, &p);
            if (got != want)
                fail_msg("%s, k = %u: %s, want %s", bl_layout_name(layouts[i]), p.k,
                         bl_strerror(got), bl_strerror(want));
            bl_free(f);
        }
    }
    assert_int_equal(bl_layout_k_range((bl_layout)99, NULL, NULL), BL_E_BAD_LAYOUT);
}

/* A layout value or name the library does not know is named as such by every function that
 * takes one; creation with a forced k said BL_E_BAD_K, and geometry creation BL_E_INVALID. */
static void test_unknown_layout(void **state)
{
    (void)state;
    const bl_layout unknown = (bl_layout)99;
    bl_params p;
    bl_params_init(&p);
    p.expected_keys = 100;
    p.layout = unknown;
    bl_filter *f = NULL;
    assert_int_equal(bl_create(&f, &p), BL_E_BAD_LAYOUT);
    p.k = 5;
    assert_int_equal(bl_create(&f, &p), BL_E_BAD_LAYOUT);
    p.k = 0;
    p.bits_per_key = 10;
    assert_int_equal(bl_create(&f, &p), BL_E_BAD_LAYOUT);
    assert_null(f);
    assert_int_equal(bl_create_geometry(&f, unknown, 512, 4, 0, 0, NULL), BL_E_BAD_LAYOUT);
    assert_null(f);
    uint64_t bits;
    unsigned k;
    assert_int_equal(bl_size_for_fpp(unknown, 100, 0.01, &bits, &k), BL_E_BAD_LAYOUT);
    assert_int_equal(bl_size_for_bits_per_key(unknown, 100, 10, &bits, &k), BL_E_BAD_LAYOUT);
    /* a known layout the operation does not apply to stays BL_E_UNSUPPORTED */
    assert_int_equal(bl_size_for_fpp(BL_LAYOUT_SCALABLE, 100, 0.01, &bits, &k), BL_E_UNSUPPORTED);
    assert_int_equal(bl_create_geometry(&f, BL_LAYOUT_SCALABLE, 512, 4, 0, 0, NULL),
                     BL_E_UNSUPPORTED);
    bl_layout parsed = BL_LAYOUT_CLASSIC;
    assert_int_equal(bl_layout_from_name("bloked", &parsed), BL_E_BAD_LAYOUT);
    assert_int_equal(parsed, BL_LAYOUT_CLASSIC);
    assert_int_equal(bl_layout_from_name(NULL, &parsed), BL_E_INVALID);
    assert_string_equal(bl_layout_name(unknown), "unknown");
}

static void test_invalid_parameters(void **state)
{
    (void)state;
    bl_params p;
    bl_filter *f = (bl_filter *)1;
    bl_params_init(&p);
    assert_int_equal(bl_create(&f, &p), BL_E_INVALID); /* n = 0 */
    assert_null(f);
    p.expected_keys = 100;
    p.fpp = 0;
    assert_int_equal(bl_create(&f, &p), BL_E_INVALID);
    p.fpp = 1;
    assert_int_equal(bl_create(&f, &p), BL_E_INVALID);
    p.fpp = -0.5;
    assert_int_equal(bl_create(&f, &p), BL_E_INVALID);
    p.fpp = 0.01;
    p.k = 17;
    assert_int_equal(bl_create(&f, &p), BL_E_BAD_K);
    p.k = 0;
    p.layout = BL_LAYOUT_SBBF;
    p.k = 4;
    assert_int_equal(bl_create(&f, &p), BL_E_BAD_K);
    p.k = 0;
    p.layout = BL_LAYOUT_BLOCKED;
    p.expected_keys = 20000; /* a rate of 1: 200 bits for 20000 keys, or k = 16 in 6000 bits */
    p.bits_per_key = 0.01;
    assert_int_equal(bl_create(&f, &p), BL_E_INVALID);
    /* NaN is not "unset" (0 or less): it was ignored, sizing by fpp as if no budget were given. */
    p.bits_per_key = NAN;
    assert_int_equal(bl_create(&f, &p), BL_E_INVALID);
    p.layout = BL_LAYOUT_SCALABLE;
    assert_int_equal(bl_create(&f, &p), BL_E_INVALID);
    p.layout = BL_LAYOUT_BLOCKED;
    p.bits_per_key = 0.3; /* fine for the best k */
    p.k = 16;
    assert_int_equal(bl_create(&f, &p), BL_E_INVALID);
    assert_null(f);
    /* Sized by fpp, a forced k gets the size it needs (test_sizing test_forced_k). */
    p.bits_per_key = 0;
    p.fpp = 0.99;
    assert_int_equal(bl_create(&f, &p), BL_OK);
    bl_free(f);
    f = NULL;
    p.expected_keys = 100;
    p.fpp = 0.01;
    p.k = 0;
    p.layout = (bl_layout)99;
    assert_int_equal(bl_create(&f, &p), BL_E_BAD_LAYOUT);
    p.layout = BL_LAYOUT_BLOCKED;
    p.kernel = "no-such-kernel";
    assert_int_equal(bl_create(&f, &p), BL_E_UNSUPPORTED);
    p.kernel = NULL;
    p.flags = 0x80;
    assert_int_equal(bl_create(&f, &p), BL_E_INVALID);
    p.flags = 0;
    p.struct_size = 8;
    assert_int_equal(bl_create(&f, &p), BL_E_INVALID);
    p.struct_size = sizeof p;
    p.expected_keys = UINT64_MAX / 2;
    p.fpp = 1e-9;
    assert_int_equal(bl_create(&f, &p), BL_E_TOO_LARGE);
    assert_int_equal(bl_create(NULL, &p), BL_E_INVALID);
    assert_int_equal(bl_create_geometry(&f, BL_LAYOUT_BLOCKED, 0, 7, 0, 0, NULL), BL_E_INVALID);
    assert_int_equal(bl_create_geometry(&f, BL_LAYOUT_BLOCKED, 512, 7, 0, 0x80, NULL), BL_E_INVALID);
    assert_int_equal(bl_create_geometry(NULL, BL_LAYOUT_BLOCKED, 512, 7, 0, 0, NULL), BL_E_INVALID);
    assert_int_equal(bl_clone(NULL, f), BL_E_INVALID);
    assert_int_equal(bl_clear(NULL), BL_E_INVALID);
    bl_params_init(NULL); /* does nothing */
    assert_int_equal(bl_create_geometry(&f, BL_LAYOUT_BLOCKED, 512, 0, 0, 0, NULL), BL_E_BAD_K);
    assert_int_equal(bl_create_geometry(&f, BL_LAYOUT_CLASSIC, 64, 256, 0, 0, NULL), BL_E_BAD_K);
    assert_int_equal(bl_create_geometry(&f, BL_LAYOUT_BLOCKED, UINT64_MAX, 7, 0, 0, NULL), BL_E_TOO_LARGE);
    assert_int_equal(bl_create_geometry(&f, BL_LAYOUT_BLOCKED, UINT64_MAX / 2, 7, 0, 0, NULL), BL_E_TOO_LARGE);
    /* Invalid calls on valid filters. */
    bl_filter *g = tu_create(BL_LAYOUT_BLOCKED, 100, 0.01, NULL);
    assert_int_equal(bl_add(g, NULL, 3), BL_E_INVALID);
    assert_int_equal(bl_add(NULL, "x", 1), BL_E_INVALID);
    assert_int_equal(bl_add_u64_batch(g, NULL, 3), BL_E_INVALID);
    assert_int_equal(bl_add_u64_batch(g, NULL, 0), BL_OK);
    assert_false(bl_contains(NULL, "x", 1));
    assert_int_equal(bl_union(g, NULL), BL_E_INVALID);
    bl_free(g);
    bl_free(NULL);
    for (int st = 0; st <= BL_E_NOT_DURABLE; st++)
        assert_string_not_equal(bl_strerror((bl_status)st), "unknown status");
    assert_string_equal(bl_strerror((bl_status)1000), "unknown status");
}

/* The hash functions on invalid arguments: no crash and no read past a key that is not there
 * (a NULL key with len != 0 once hashed len bytes of a 1-byte static array). They return 0 then,
 * as the queries answer false; a NULL empty key is the empty key. */
static void test_hash_invalid(void **state)
{
    (void)state;
    bl_filter *f = tu_create(BL_LAYOUT_BLOCKED, 100, 0.01, NULL);
    assert_int_equal(bl_hash(NULL, "abc", 3), 0);
    assert_int_equal(bl_hash_u64(NULL, 42), 0);
    assert_int_equal(bl_hash(f, NULL, 3), 0);
    assert_int_equal(bl_hash(f, NULL, 0), bl_hash(f, "", 0));
    bl_free(f);
}

/* The layouts that keep one bit (counter) array: all but scalable. */
static const bl_layout array_layouts[] = {BL_LAYOUT_BLOCKED, BL_LAYOUT_SBBF, BL_LAYOUT_CLASSIC,
                                          BL_LAYOUT_COUNTING};

/* What an intersection's estimates mean (bloomline.h, bl_intersect): bits that both filters set
 * for different keys look like common keys, so its estimated_keys exceeds the common keys and
 * its current_fpp that of a filter built from them alone; inclusion-exclusion over the
 * estimates of a, b and their union estimates the common keys. Measured at 50000 keys each,
 * 10000 common, designed for 100000: the intersection estimated 15000-19000 (blocked, sbbf,
 * classic, counting). The filters are bound to different kernels, which are no part of their
 * identity. */
static void test_intersection_estimates(void **state)
{
    (void)state;
    uint64_t s = tu_seed_or("intersection estimates", TU_STATISTICAL_SEED);
    enum { DESIGN = 100000, EACH = 50000, COMMON = 10000 };
    uint64_t *ka = malloc(EACH * sizeof *ka), *kb = malloc(EACH * sizeof *kb);
    for (size_t l = 0; l < BL_ARRAY_LEN(array_layouts); l++) {
        for (size_t i = 0; i < EACH; i++) {
            ka[i] = tu_next(&s);
            kb[i] = i < COMMON ? ka[i] : tu_next(&s);
        }
        bl_filter *a = tu_create(array_layouts[l], DESIGN, 0.01, NULL);
        bl_filter *b = tu_create(array_layouts[l], DESIGN, 0.01, "scalar");
        bl_filter *c = tu_create(array_layouts[l], DESIGN, 0.01, NULL), *u = NULL, *x = NULL;
        assert_int_equal(bl_add_u64_batch(a, ka, EACH), BL_OK);
        assert_int_equal(bl_add_u64_batch(b, kb, EACH), BL_OK);
        assert_int_equal(bl_add_u64_batch(c, ka, COMMON), BL_OK);
        assert_true(bl_same_identity(a, b));
        assert_int_equal(bl_clone(&u, a), BL_OK);
        assert_int_equal(bl_clone(&x, a), BL_OK);
        assert_int_equal(bl_union(u, b), BL_OK);
        assert_int_equal(bl_intersect(x, b), BL_OK);
        assert_int_equal(bl_contains_u64_batch(x, ka, COMMON, NULL), COMMON);
        bl_info ia, ib, iu, ix, ic;
        bl_get_info(a, &ia);
        bl_get_info(b, &ib);
        bl_get_info(u, &iu);
        bl_get_info(x, &ix);
        bl_get_info(c, &ic);
        const double incl_excl = ia.estimated_keys + ib.estimated_keys - iu.estimated_keys;
        printf("# %s: union estimates %.0f (true %d); intersection %.0f, keys_added %llu, rate "
               "%.3g; common keys %d: %.0f by inclusion-exclusion, built alone rate %.3g\n",
               ia.layout_name, iu.estimated_keys, 2 * EACH - COMMON, ix.estimated_keys,
               (unsigned long long)ix.keys_added, ix.current_fpp, COMMON, incl_excl,
               ic.current_fpp);
        assert_true(fabs(iu.estimated_keys - (2 * EACH - COMMON)) < 0.01 * (2 * EACH - COMMON));
        assert_true(ix.estimated_keys > 1.5 * COMMON);
        assert_true(fabs(incl_excl - COMMON) < 0.1 * COMMON);
        assert_true(ix.current_fpp > ic.current_fpp);
        assert_int_equal(ix.keys_added, EACH); /* the smaller count: a bound, not the common */
        assert_int_equal(iu.keys_added, 2 * EACH);
        bl_free(a);
        bl_free(b);
        bl_free(c);
        bl_free(u);
        bl_free(x);
    }
    free(ka);
    free(kb);
}

/* An empty filter of one line (block, word): filled by a few thousand keys. */
static bl_filter *one_block(bl_layout layout)
{
    bl_filter *f = NULL;
    const unsigned k = layout == BL_LAYOUT_SBBF ? 8 : 7;
    assert_int_equal(bl_create_geometry(&f, layout, 1, k, 0, 0, NULL), BL_OK);
    return f;
}

/* Batched byte-key queries with a NULL key of non-zero length: that key is absent, as
 * bl_contains says, and the others are answered. The batch hashed len bytes of a 1-byte static
 * array in its place (a read past it; a long len crashed), and on a full filter answered yes. */
static void test_contains_batch_null_key(void **state)
{
    (void)state;
    for (size_t l = 0; l < BL_ARRAY_LEN(array_layouts); l++) {
        bl_filter *f = one_block(array_layouts[l]);
        memset(f->data, 0xff, f->nbytes); /* every key is present */
        const void *const keys[] = {"ab", NULL, NULL, "cd"};
        const size_t lens[] = {2, 3, 0, 2};
        uint8_t res[4] = {9, 9, 9, 9};
        assert_int_equal(bl_contains_batch(f, keys, lens, 4, res), 3);
        assert_memory_equal(res, ((const uint8_t[]){1, 0, 1, 1}), 4);
        assert_int_equal(bl_contains_batch(f, keys, lens, 4, NULL), 3);
        /* Through the pipeline: bad keys in the first and last place, inside and at the edges
         * of a vector group (AVX-512 hashes eight keys of 32-128 bytes at once, XXH64 of 4 and
         * more) and of pipeline chunks, past 2^16; a NULL empty key (valid) at 5. The answers
         * and the count, with and without results. */
        static const char key40[] = "0123456789012345678901234567890123456789";
        const size_t n = (2u << 16) + 5;
        const size_t bad[] = {0, 3, 7, 8, BL_PIPELINE_CHUNK - 1, BL_PIPELINE_CHUNK,
                              BL_PIPELINE_CHUNK + BL_PREFETCH_DISTANCE, (1u << 16) + 7, n - 1};
        const void **many = malloc(n * sizeof *many);
        size_t *many_lens = malloc(n * sizeof *many_lens);
        uint8_t *many_res = malloc(n);
        for (int long_keys = 0; long_keys < 2; long_keys++) {
            for (size_t i = 0; i < n; i++) {
                many[i] = long_keys ? key40 : "key";
                many_lens[i] = long_keys ? 40 : 3;
            }
            many[5] = NULL;
            many_lens[5] = 0;
            for (size_t b = 0; b < BL_ARRAY_LEN(bad); b++)
                many[bad[b]] = NULL;
            memset(many_res, 9, n);
            const size_t want = n - BL_ARRAY_LEN(bad);
            assert_int_equal(bl_contains_batch(f, many, many_lens, n, many_res), want);
            for (size_t i = 0, b = 0; i < n; i++) {
                const bool is_bad = b < BL_ARRAY_LEN(bad) && i == bad[b];
                if (many_res[i] != !is_bad)
                    fail_msg("%s, %s keys: key %zu answered %u", bl_layout_name(f->layout),
                             long_keys ? "40-byte" : "3-byte", i, many_res[i]);
                b += is_bad;
            }
            assert_int_equal(bl_contains_batch(f, many, many_lens, n, NULL), want);
        }
        free(many);
        free(many_lens);
        free(many_res);
        bl_free(f);
    }
}

static void test_estimates(void **state)
{
    (void)state;
    uint64_t s = tu_seed("estimates");
    for (size_t l = 0; l < BL_ARRAY_LEN(plain_layouts); l++) {
        bl_filter *f = tu_create(plain_layouts[l], 100000, 0.01, NULL);
        bl_info info;
        assert_int_equal(bl_get_info(f, &info), BL_OK);
        assert_true(info.fill_ratio == 0 && info.estimated_keys == 0 && info.current_fpp == 0);
        uint64_t *keys = malloc(50000 * sizeof *keys);
        for (int i = 0; i < 50000; i++)
            keys[i] = tu_next(&s);
        bl_add_u64_batch(f, keys, 50000);
        assert_int_equal(bl_get_info(f, &info), BL_OK);
        printf("# %s: 50000 keys, estimate %.0f, fill %.3f, fpp now %.3g, designed %.3g\n",
               info.layout_name, info.estimated_keys, info.fill_ratio, info.current_fpp, info.design_fpp);
        assert_true(fabs(info.estimated_keys - 50000) < 50000 * 0.03);
        assert_true(info.current_fpp < 0.01 && info.current_fpp > 0);
        assert_int_equal(info.keys_added, 50000);
        assert_true(info.keys_known);
        assert_int_equal(info.design_keys, 100000);
        assert_true(fabs(info.design_fpp - 0.01) < 1e-12);
        assert_non_null(info.kernel);
        /* Adding the same keys again changes no bit and no estimate. */
        bl_add_u64_batch(f, keys, 50000);
        bl_info again;
        bl_get_info(f, &again);
        assert_true(again.estimated_keys == info.estimated_keys);
        assert_int_equal(bl_clear(f), BL_OK);
        bl_get_info(f, &again);
        assert_true(again.fill_ratio == 0 && again.keys_added == 0);
        free(keys);
        bl_free(f);
    }
}

/* Pages of [p, p + bytes) resident in memory (p page-aligned). */
static size_t resident_pages(const void *p, size_t bytes)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = (bytes + page - 1) / page;
    unsigned char *vec = malloc(pages);
    assert_non_null(vec);
    assert_int_equal(mincore((void *)(uintptr_t)p, bytes, vec), 0);
    size_t n = 0;
    for (size_t i = 0; i < pages; i++)
        n += vec[i] & 1;
    free(vec);
    return n;
}

/* Whether MADV_DONTNEED really gives anonymous pages back here (qemu-user may return 0 and keep
 * them, and bl_clear then writes zeros instead). */
static bool dontneed_zeroes(void)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    volatile uint8_t *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                               -1, 0);
    assert_true(p != MAP_FAILED);
    *p = 1;
    const bool zeroed = madvise((void *)(uintptr_t)p, page, MADV_DONTNEED) == 0 && *p == 0;
    munmap((void *)(uintptr_t)p, page);
    return zeroed;
}

/* bl_clear empties a large (anonymous-mapped) payload without making it resident: a memset had
 * written every page, so clearing a sparse 64 MiB filter left all 64 MiB in memory. The filter
 * reads as empty and takes keys again afterwards, whether or not the pages could be released. */
static void test_clear_releases_pages(void **state)
{
    (void)state;
    uint64_t s = tu_seed("clear releases pages");
    bl_filter *f = NULL;
    assert_int_equal(bl_create_geometry(&f, BL_LAYOUT_BLOCKED, UINT64_C(64) << 23, 8, 0, 0, NULL),
                     BL_OK);
    assert_int_equal(f->storage, BL_STORAGE_ANON_MAP);
    uint64_t *keys = malloc(200000 * sizeof *keys);
    assert_non_null(keys);
    for (size_t i = 0; i < 200000; i++)
        keys[i] = tu_next(&s);
    assert_int_equal(bl_add_u64_batch(f, keys, 200000), BL_OK); /* touches nearly every page */
    const size_t pages = f->nbytes / (size_t)sysconf(_SC_PAGESIZE);
    assert_true(resident_pages(f->data, f->nbytes) > pages / 2);
    assert_int_equal(bl_clear(f), BL_OK);
    /* Before any read: reading the released pages maps them again (the zero page). */
    if (dontneed_zeroes())
        assert_true(resident_pages(f->data, f->nbytes) < pages / 16);
    else
        printf("# MADV_DONTNEED keeps pages here: residency after bl_clear not checked\n");
    bl_info info;
    assert_int_equal(bl_get_info(f, &info), BL_OK);
    assert_true(info.fill_ratio == 0 && info.keys_added == 0);
    assert_int_equal(bl_contains_u64_batch(f, keys, 200000, NULL), 0);
    assert_int_equal(bl_add_u64(f, keys[0]), BL_OK);
    assert_true(bl_contains_u64(f, keys[0]));
    free(keys);
    bl_free(f);
}

/* Estimates at the ends of the fill: an empty filter estimates +0 keys (it printed "-0"), and a
 * full one, which answers yes to every key, is rated exactly 1 (a one-line blocked filter said
 * 0.993, from a clamp meant only to keep the key estimate finite). Both finite in every layout. */
static void test_estimates_extremes(void **state)
{
    (void)state;
    for (size_t l = 0; l < BL_ARRAY_LEN(array_layouts); l++) {
        bl_filter *f = one_block(array_layouts[l]);
        bl_info info;
        assert_int_equal(bl_get_info(f, &info), BL_OK);
        assert_true(info.estimated_keys == 0 && !signbit(info.estimated_keys));
        assert_true(info.current_fpp == 0 && !signbit(info.current_fpp));
        for (uint64_t x = 0; x < 20000; x++)
            assert_int_equal(bl_add_u64(f, x), BL_OK);
        assert_int_equal(bl_get_info(f, &info), BL_OK);
        printf("# %s, one block, full: estimate %.1f, fpp now %.17g\n", info.layout_name,
               info.estimated_keys, info.current_fpp);
        assert_true(info.fill_ratio == 1);
        assert_true(isfinite(info.estimated_keys) && info.estimated_keys > 0);
        assert_true(info.current_fpp == 1);
        assert_int_equal(bl_contains_u64_batch(f, (const uint64_t[]){1u << 30, 1u << 31}, 2, NULL), 2);
        bl_free(f);
    }
}

static void test_kernel_selection(void **state)
{
    (void)state;
    const char *name = bl_kernel_name();
    assert_non_null(name);
    assert_true(bl_kernel_supported(name));
    assert_true(bl_kernel_supported("scalar"));
    assert_false(bl_kernel_supported("bogus"));
    assert_false(bl_kernel_supported(NULL));
    bl_filter *f = tu_create(BL_LAYOUT_BLOCKED, 10, 0.01, "scalar");
    assert_string_equal(bl_filter_kernel(f), "scalar");
    bl_free(f);
    /* BLOOMLINE_KERNEL names the kernel new filters get. */
    const char *old = getenv("BLOOMLINE_KERNEL");
    char *saved = old ? strdup(old) : NULL;
    setenv("BLOOMLINE_KERNEL", "scalar", 1);
    assert_string_equal(bl_kernel_name(), "scalar");
    setenv("BLOOMLINE_KERNEL", "definitely-not-a-kernel", 1);
    assert_null(bl_kernel_name());
    bl_params p;
    bl_params_init(&p);
    p.expected_keys = 10;
    assert_int_equal(bl_create(&f, &p), BL_E_UNSUPPORTED);
    if (saved) {
        setenv("BLOOMLINE_KERNEL", saved, 1);
        free(saved);
    } else {
        unsetenv("BLOOMLINE_KERNEL");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_false_negatives),
        cmocka_unit_test(test_single_paths_every_length),
        cmocka_unit_test(test_u64_is_bytes),
        cmocka_unit_test(test_parquet_golden_bitset),
        cmocka_unit_test(test_set_operations),
        cmocka_unit_test(test_concurrent_insert),
        cmocka_unit_test(test_over_4g_bits),
        cmocka_unit_test(test_create_exact_bits),
        cmocka_unit_test(test_union_count_saturates),
        cmocka_unit_test(test_union_keys_unknown),
        cmocka_unit_test(test_add_count_saturates),
        cmocka_unit_test(test_add_counts_each_key),
        cmocka_unit_test(test_invalid_parameters),
        cmocka_unit_test(test_layout_k_range),
        cmocka_unit_test(test_unknown_layout),
        cmocka_unit_test(test_hash_invalid),
        cmocka_unit_test(test_contains_batch_null_key),
        cmocka_unit_test(test_estimates),
        cmocka_unit_test(test_clear_releases_pages),
        cmocka_unit_test(test_estimates_extremes),
        cmocka_unit_test(test_intersection_estimates),
        cmocka_unit_test(test_kernel_selection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
