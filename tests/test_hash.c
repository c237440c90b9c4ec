/* SPDX-License-Identifier: MIT */
/* Hash stage: the u64 fast paths equal xxHash over the 8 LE bytes; Murmur3 matches its vectors. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "../src/internal.h"
#include "test_util.h"

static void test_u64_paths_match_xxhash(void **state)
{
    (void)state;
    uint64_t s = tu_seed("u64 hash paths");
    const uint64_t fixed_seeds[] = {0, 1, 0xffffffffULL, 0x100000000ULL, UINT64_MAX, 0x9e3779b97f4a7c15ULL};
    for (int round = 0; round < 20000; round++) {
        uint64_t key = tu_next(&s);
        uint64_t seed = round < 6 ? fixed_seeds[round] : tu_next(&s);
        uint8_t le[8];
        memcpy(le, &key, 8);
        assert_int_equal(bl_xxh3_u64(key, seed), XXH3_64bits_withSeed(le, 8, seed));
        assert_int_equal(bl_xxh64_u64(key, seed), XXH64(le, 8, seed));
    }
}

static void test_scheme_per_layout(void **state)
{
    (void)state;
    const char *key = "https://example.com/a/b?c=d";
    const size_t len = strlen(key);
    bl_filter *b = tu_create(BL_LAYOUT_BLOCKED, 100, 0.01, NULL);
    bl_filter *s = tu_create(BL_LAYOUT_SBBF, 100, 0.01, NULL);
    assert_int_equal(bl_hash(b, key, len), XXH3_64bits_withSeed(key, len, 0));
    assert_int_equal(bl_hash(s, key, len), XXH64(key, len, 0));
    /* u64 keys hash as their 8 little-endian bytes in every layout. */
    uint64_t v = 0x0123456789abcdefULL;
    assert_int_equal(bl_hash_u64(b, v), bl_hash(b, &v, 8));
    assert_int_equal(bl_hash_u64(s, v), bl_hash(s, &v, 8));
    /* The empty key is a key like any other. */
    assert_int_equal(bl_hash(b, NULL, 0), XXH3_64bits_withSeed("", 0, 0));
    bl_free(b);
    bl_free(s);
    /* Classic takes Murmur3's 32-bit seed from the low half of its own (bloomline.h, seed):
     * seeds that differ only above it hash alike, yet are different identities. */
    bl_filter *c1 = NULL, *c2 = NULL;
    assert_int_equal(bl_create_geometry(&c1, BL_LAYOUT_CLASSIC, 4096, 3, 7, 0, NULL), BL_OK);
    assert_int_equal(
        bl_create_geometry(&c2, BL_LAYOUT_CLASSIC, 4096, 3, 7 | UINT64_C(1) << 32, 0, NULL), BL_OK);
    assert_int_equal(bl_hash(c1, key, len), bl_hash(c2, key, len));
    assert_false(bl_same_identity(c1, c2));
    bl_filter *c3 = NULL; /* while the low 32 bits count: seed 8 hashes apart from 7 */
    assert_int_equal(bl_create_geometry(&c3, BL_LAYOUT_CLASSIC, 4096, 3, 8, 0, NULL), BL_OK);
    assert_true(bl_hash(c1, key, len) != bl_hash(c3, key, len));
    bl_free(c1);
    bl_free(c2);
    bl_free(c3);
}

/* Murmur3 x64 128 reference values (seed 0): the low 64 bits of MurmurHash3_x64_128 as
 * printed by the reference implementation / Guava's Hashing.murmur3_128().hashBytes(...). */
static void test_murmur3_vectors(void **state)
{
    (void)state;
    struct { const char *in; uint64_t h1, h2; } v[] = {
        {"", 0x0000000000000000ULL, 0x0000000000000000ULL},
        {"hello", 0xcbd8a7b341bd9b02ULL, 0x5b1e906a48ae1d19ULL},
        {"The quick brown fox jumps over the lazy dog", 0xe34bbc7bbc071b6cULL, 0x7a433ca9c49a9347ULL},
    };
    for (size_t i = 0; i < BL_ARRAY_LEN(v); i++) {
        uint64_t out[2];
        bl_murmur3_x64_128(v[i].in, strlen(v[i].in), 0, out);
        if (out[0] != v[i].h1 || out[1] != v[i].h2)
            fail_msg("murmur3(\"%s\") = %016llx %016llx, want %016llx %016llx", v[i].in,
                     (unsigned long long)out[0], (unsigned long long)out[1],
                     (unsigned long long)v[i].h1, (unsigned long long)v[i].h2);
    }
    /* Every tail length 0..31 takes a distinct path: all outputs must differ. */
    uint8_t buf[32];
    uint64_t seen[33][2];
    for (size_t len = 0; len <= 32; len++) {
        for (size_t i = 0; i < len; i++)
            buf[i] = (uint8_t)(i * 37 + 11);
        bl_murmur3_x64_128(buf, len, 0, seen[len]);
        for (size_t j = 0; j < len; j++)
            assert_false(seen[j][0] == seen[len][0] && seen[j][1] == seen[len][1]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u64_paths_match_xxhash),
        cmocka_unit_test(test_scheme_per_layout),
        cmocka_unit_test(test_murmur3_vectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
