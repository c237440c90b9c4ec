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

/* With `mid`, 15 keys in 16 are of 32-128 bytes instead: lengths spread over 0..300 almost
 * never put eight keys of the AVX-512 XXH3 kernel's range in one group ((97/301)^8), so only
 * such keys make vector groups and portable runs alternate. */
static keyset make_keys_mix(size_t n, uint64_t *s, bool mid)
{
    keyset k = {n, malloc(n * 301 + 1), malloc(n * sizeof(void *)), malloc(n * sizeof(size_t))};
    assert_true(k.arena && k.ptrs && k.lens);
    size_t off = 1;
    for (size_t i = 0; i < n; i++) {
        if (mid && tu_next(s) % 16 != 0) {
            k.lens[i] = 32 + (size_t)(tu_next(s) % 97);
            for (size_t j = 0; j < k.lens[i]; j++)
                k.arena[off + j] = (uint8_t)tu_next(s);
        } else {
            k.lens[i] = tu_key(s, k.arena + off, 300);
        }
        k.ptrs[i] = k.lens[i] == 0 && (tu_next(s) & 1) ? NULL : k.arena + off;
        off += k.lens[i];
    }
    return k;
}

static keyset make_keys(size_t n, uint64_t *s) { return make_keys_mix(n, s, false); }

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

/* The hash stage as the pipeline calls it, through the filter's kernel (AVX-512: XXH3 for
 * blocked, XXH64 for sbbf, eight keys per vector where a group fits, else the portable loop):
 * windows [from, from + count) anywhere, limits at or past their end. out[i] is key from + i,
 * nothing is written past out[count), and nothing is read at or past `limit` (the pointer and
 * length arrays end there, so ASan sees a read past it). */
static void test_kernel_bytes_windows(void **state)
{
    (void)state;
    uint64_t s = tu_seed("kernel byte-key windows");
    const size_t n = 1500; /* several times the prefetch distance */
    keyset ks = make_keys_mix(n, &s, true);
    const bl_layout layouts[] = {BL_LAYOUT_BLOCKED, BL_LAYOUT_SBBF};
    for (size_t l = 0; l < BL_ARRAY_LEN(layouts); l++) {
        for (int round = 0; round < 32; round++) {
            /* Parquet's sbbf is defined for seed 0 only. */
            const uint64_t seed =
                round % 2 && layouts[l] != BL_LAYOUT_SBBF ? tu_next(&s) | 1 : 0;
            bl_filter *f = NULL;
            assert_int_equal(bl_create_geometry(&f, layouts[l], 10 * n, 8, seed, 0, NULL), BL_OK);
            const size_t from = round == 0 ? 0 : (size_t)(tu_next(&s) % n);
            const size_t count = round == 0 ? n : (size_t)(tu_next(&s) % (n - from + 1));
            const size_t limit =
                round % 3 ? from + count : from + count + tu_next(&s) % (n - from - count + 1);
            const size_t cap = limit != 0 ? limit : 1; /* malloc(0) may give NULL */
            const void **ptrs = malloc(cap * sizeof *ptrs);
            size_t *lens = malloc(cap * sizeof *lens);
            uint64_t *out = malloc((count + 1) * sizeof *out);
            assert_true(ptrs && lens && out);
            memcpy(ptrs, ks.ptrs, limit * sizeof *ptrs);
            memcpy(lens, ks.lens, limit * sizeof *lens);
            const uint64_t canary = 0x5a5a5a5a5a5a5a5aull;
            out[count] = canary;
            const bl_keys keys = {BL_KEYS_BYTES, ptrs, lens, NULL, false};
            bl_hash_keys(f, &keys, from, count, limit, out);
            for (size_t i = 0; i < count; i++) {
                const uint64_t want = reference(f->hash, seed, ptrs[from + i], lens[from + i]);
                if (out[i] != want)
                    fail_msg("%s, %s: key %zu (len %zu, window %zu+%zu, limit %zu): %016llx, "
                             "want %016llx",
                             f->kern->name, bl_layout_name(layouts[l]), from + i, lens[from + i],
                             from, count, limit, (unsigned long long)out[i],
                             (unsigned long long)want);
            }
            assert_int_equal(out[count], canary);
            free(ptrs);
            free(lens);
            free(out);
            bl_free(f);
        }
    }
    free_keys(&ks);
}

/* The validation scan of byte-key batches through the filter's kernel (AVX2 and AVX-512: sixteen
 * pointers a step, lengths read only in a block holding a NULL): a NULL key of non-zero length
 * is found at every position of batches that fill a step, leave a tail, or both, also beside
 * NULL empty keys (valid), and nothing is read at or past n (ASan sees the arrays end). */
static void test_null_key_scan(void **state)
{
    (void)state;
    uint64_t s = tu_seed("null key scan");
    bl_filter *f = NULL;
    assert_int_equal(bl_create_geometry(&f, BL_LAYOUT_BLOCKED, 4096, 4, 0, 0, NULL), BL_OK);
    static const char key[] = "key";
    for (size_t n = 1; n <= 70; n++) {
        const void **ptrs = malloc(n * sizeof *ptrs);
        size_t *lens = malloc(n * sizeof *lens);
        assert_true(ptrs && lens);
        for (size_t bad = 0; bad <= n; bad++) { /* bad == n: none */
            const size_t empty = (size_t)(tu_next(&s) % n); /* a NULL empty key, valid */
            for (size_t i = 0; i < n; i++) {
                ptrs[i] = key;
                lens[i] = 3;
            }
            if (empty != bad) {
                ptrs[empty] = NULL;
                lens[empty] = 0;
            }
            if (bad < n) {
                ptrs[bad] = NULL;
                lens[bad] = 1 + (size_t)(tu_next(&s) % 100);
            }
            if (bl_byte_keys_valid(f, ptrs, lens, n) != (bad == n))
                fail_msg("%s: n %zu, NULL key of length %zu at %zu, empty NULL at %zu",
                         f->kern->name, n, bad < n ? lens[bad] : 0, bad, empty);
        }
        free(ptrs);
        free(lens);
    }
    assert_true(bl_byte_keys_valid(f, NULL, NULL, 0));
    assert_false(bl_byte_keys_valid(f, NULL, (const size_t[]){0}, 1));
    bl_free(f);
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
        cmocka_unit_test(test_kernel_bytes_windows),
        cmocka_unit_test(test_null_key_scan),
        cmocka_unit_test(test_batch_equals_single),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
