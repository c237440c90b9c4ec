/* SPDX-License-Identifier: MIT */
/* The batched pipeline: byte-key batch hashing equals xxHash/Murmur3 per key for every scheme,
 * seed, length path and prefetch window; batched adds and queries equal single ones. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "../src/pipeline.h"
#include "test_util.h"

/* Keys of lengths 0..300 (every XXH3 length path, including > 240) packed in one arena, at odd
 * addresses; some are NULL with length 0, which must hash as the empty key. */
typedef struct keyset {
    size_t n;
    uint8_t *arena;
    const void **ptrs;
    size_t *lens;
} keyset;

static keyset make_keys(size_t n, uint64_t *s)
{
    keyset k = {n, malloc(n * 301 + 1), malloc(n * sizeof(void *)), malloc(n * sizeof(size_t))};
    assert_true(k.arena && k.ptrs && k.lens);
    size_t off = 1;
    for (size_t i = 0; i < n; i++) {
        k.lens[i] = tu_key(s, k.arena + off, 300);
        k.ptrs[i] = k.lens[i] == 0 && (tu_next(s) & 1) ? NULL : k.arena + off;
        off += k.lens[i];
    }
    return k;
}

static void free_keys(keyset *k)
{
    free(k->arena);
    free(k->ptrs);
    free(k->lens);
}

/* The reference: the hash libraries themselves, one key at a time. */
static uint64_t reference(bl_hash_scheme scheme, uint64_t seed, const void *key, size_t len)
{
    if (key == NULL)
        key = "";
    switch (scheme) {
    case BL_HASH_XXH3: return XXH3_64bits_withSeed(key, len, seed);
    case BL_HASH_XXH64: return XXH64(key, len, seed);
    case BL_HASH_MURMUR3_128: break;
    }
    uint64_t out[2];
    bl_murmur3_x64_128(key, len, (uint32_t)seed, out);
    return out[0];
}

static void test_bytes_batch_matches_reference(void **state)
{
    (void)state;
    uint64_t s = tu_seed("bytes batch hashing");
    const size_t n = 1500; /* several times the prefetch distances */
    keyset ks = make_keys(n, &s);
    uint64_t *out = malloc(n * sizeof *out);
    assert_non_null(out);
    const bl_hash_scheme schemes[] = {BL_HASH_XXH3, BL_HASH_XXH64, BL_HASH_MURMUR3_128};
    for (size_t si = 0; si < BL_ARRAY_LEN(schemes); si++) {
        for (int round = 0; round < 24; round++) {
            /* Seed 0 takes its own loop for XXH3; the others the seeded one. */
            const uint64_t seed = round % 3 == 0 ? 0 : tu_next(&s);
            /* Windows at the start, the end and in between; limits from the window's end to n,
             * so every prefetch loop and both edges are exercised. */
            size_t from, count;
            if (round == 0) {
                from = 0;
                count = n;
            } else {
                from = tu_next(&s) % n;
                count = tu_next(&s) % (n - from + 1);
            }
            const size_t limit =
                round % 2 ? from + count : from + count + tu_next(&s) % (n - from - count + 1);
            bl_hash_bytes_batch(schemes[si], seed, ks.ptrs, ks.lens, from, count, limit, out);
            for (size_t i = 0; i < count; i++) {
                const uint64_t want =
                    reference(schemes[si], seed, ks.ptrs[from + i], ks.lens[from + i]);
                if (out[i] != want)
                    fail_msg("scheme %d seed %llx key %zu (len %zu, window %zu+%zu, limit %zu): "
                             "%016llx, want %016llx",
                             (int)schemes[si], (unsigned long long)seed, from + i,
                             ks.lens[from + i], from, count, limit, (unsigned long long)out[i],
                             (unsigned long long)want);
                assert_int_equal(out[i],
                                 bl_hash_bytes_scheme(schemes[si], seed, ks.ptrs[from + i],
                                                      ks.lens[from + i]));
            }
        }
    }
    free(out);
    free_keys(&ks);
}

/* Through the public API, across several pipeline chunks: a batch add leaves the same bytes as
 * single adds, and a batch query gives the single answers, for seed 0 and a random seed. */
static void test_batch_equals_single(void **state)
{
    (void)state;
    uint64_t s = tu_seed("batch equals single");
    const size_t n = 3 * BL_PIPELINE_CHUNK + 77;
    const bl_layout layouts[] = {BL_LAYOUT_BLOCKED, BL_LAYOUT_SBBF, BL_LAYOUT_COUNTING};
    for (size_t l = 0; l < BL_ARRAY_LEN(layouts); l++) {
        for (int seeded = 0; seeded < 2; seeded++) {
            /* Parquet's sbbf is defined for seed 0 only. */
            const uint64_t seed = seeded && layouts[l] != BL_LAYOUT_SBBF ? tu_next(&s) | 1 : 0;
            keyset ks = make_keys(n, &s);
            /* 10 bits per key; k = 8 suits every layout here (sbbf requires it). */
            bl_filter *single = NULL, *batch = NULL;
            assert_int_equal(bl_create_geometry(&single, layouts[l], 10 * n, 8, seed, 0, NULL), BL_OK);
            assert_int_equal(bl_create_geometry(&batch, layouts[l], 10 * n, 8, seed, 0, NULL), BL_OK);
            for (size_t i = 0; i < n; i++)
                assert_int_equal(bl_add(single, ks.ptrs[i], ks.lens[i]), BL_OK);
            assert_int_equal(bl_add_batch(batch, ks.ptrs, ks.lens, n), BL_OK);
            assert_int_equal(single->nbits, batch->nbits);
            assert_memory_equal(single->data, batch->data, (size_t)(single->nbits / 8));

            uint8_t *res = malloc(n);
            assert_non_null(res);
            assert_int_equal(bl_contains_batch(batch, ks.ptrs, ks.lens, n, res), n);
            keyset fresh = make_keys(n, &s);
            const size_t hits = bl_contains_batch(batch, fresh.ptrs, fresh.lens, n, res);
            size_t count = 0;
            for (size_t i = 0; i < n; i++) {
                assert_int_equal(res[i], bl_contains(single, fresh.ptrs[i], fresh.lens[i]));
                count += res[i];
            }
            assert_int_equal(hits, count);
            free(res);
            free_keys(&fresh);
            free_keys(&ks);
            bl_free(single);
            bl_free(batch);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes_batch_matches_reference),
        cmocka_unit_test(test_batch_equals_single),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
