/* SPDX-License-Identifier: MIT */
/* The whole-array counts of every kernel (set bits, non-zero nibbles: the fill behind
 * bl_get_info's estimates) against a count made bit by bit. */
#include "test_util.h"

#include "../src/internal.h"

#define MAX_KERNELS 8
/* Past every kernel's step (64 bytes for AVX2, 16 for NEON), its tails (8 to 56 bytes), the
 * scalar fold (64 bytes) and NEON's (16 KiB); 128 KiB of ones fill NEON's 16-bit lanes past 65535
 * if the fold came four times later. */
static const size_t lengths[] = {0,   8,   16,   24,   32,    56,    64,          72,
                                 120, 128, 136,  192,  1032,  16384, 16384 + 88, 40000,
                                 131072 + 24};
#define MAX_LEN (131072 + 24)
#define OFFSET 8 /* the counts read unaligned data: start off any vector's alignment */

static uint64_t seed_state;
static uint8_t buf[MAX_LEN + OFFSET];

static int setup(void **state)
{
    (void)state;
    seed_state = tu_seed("test_counts");
    return 0;
}

static uint64_t reference_bits(const uint8_t *p, size_t n)
{
    uint64_t c = 0;
    for (size_t i = 0; i < n; i++)
        for (unsigned b = 0; b < 8; b++)
            c += (p[i] >> b) & 1;
    return c;
}

static uint64_t reference_nonzero_nibbles(const uint8_t *p, size_t n)
{
    uint64_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((p[i] & 0x0F) != 0) + ((p[i] >> 4) != 0);
    return c;
}

static size_t kernel_tables(const struct bl_kernels **out)
{
    const char *names[MAX_KERNELS];
    const size_t n = tu_kernels(names, MAX_KERNELS);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(bl_kernel_resolve(names[i], &out[i]), BL_OK);
    return n;
}

static void check_all(const char *what, const uint8_t *p)
{
    const struct bl_kernels *kerns[MAX_KERNELS];
    const size_t nk = kernel_tables(kerns);
    for (size_t l = 0; l < BL_ARRAY_LEN(lengths); l++) {
        const size_t n = lengths[l];
        const uint64_t bits = reference_bits(p, n), nibbles = reference_nonzero_nibbles(p, n);
        for (size_t k = 0; k < nk; k++) {
            const uint64_t got_bits = kerns[k]->count_bits(p, n);
            const uint64_t got_nibbles = kerns[k]->count_nonzero_nibbles(p, n);
            if (got_bits != bits || got_nibbles != nibbles)
                fail_msg("%s, %zu bytes, kernel %s: %llu set bits and %llu non-zero nibbles, "
                         "expected %llu and %llu (seed 0x%llx)",
                         what, n, kerns[k]->name, (unsigned long long)got_bits,
                         (unsigned long long)got_nibbles, (unsigned long long)bits,
                         (unsigned long long)nibbles, (unsigned long long)seed_state);
        }
    }
}

/* Every byte alike: all clear, all set, and nibble patterns (one half, one bit in a half). */
static void test_patterns(void **state)
{
    (void)state;
    static const uint8_t bytes[] = {0x00, 0xFF, 0x0F, 0xF0, 0x01, 0x10, 0x80, 0x08, 0x11};
    char what[32];
    for (size_t i = 0; i < BL_ARRAY_LEN(bytes); i++) {
        memset(buf, bytes[i], sizeof buf);
        snprintf(what, sizeof what, "bytes 0x%02x", bytes[i]);
        check_all(what, buf + OFFSET);
    }
}

/* Seeded random words at densities from sparse to nearly full (a filter's fill ranges so). */
static void test_random(void **state)
{
    (void)state;
    uint64_t st = seed_state;
    for (unsigned density = 0; density < 5; density++) {
        for (size_t i = 0; i + 8 <= sizeof buf; i += 8) {
            uint64_t w = tu_next(&st);
            switch (density) {
            case 0: w &= tu_next(&st) & tu_next(&st) & tu_next(&st); break; /* 1/16 */
            case 1: break;                                                  /* 1/2 */
            case 2: w |= tu_next(&st) | tu_next(&st); break;                /* 7/8 */
            case 3: w = ~(w & tu_next(&st) & tu_next(&st) & tu_next(&st) & tu_next(&st)); break;
            default: w = (w & 0x1111111111111111ULL) * 15; break; /* whole nibbles */
            }
            memcpy(buf + i, &w, 8);
        }
        char what[32];
        snprintf(what, sizeof what, "random, density %u", density);
        check_all(what, buf + OFFSET);
    }
}

/* bl_get_info's fill, with each kernel, is the reference count over the payload: set bits of
 * blocked and sbbf filters, non-zero counters of a counting one. */
static void test_info_fill(void **state)
{
    (void)state;
    const char *names[MAX_KERNELS];
    const size_t nk = tu_kernels(names, MAX_KERNELS);
    static const bl_layout layouts[] = {BL_LAYOUT_BLOCKED, BL_LAYOUT_SBBF, BL_LAYOUT_CLASSIC,
                                        BL_LAYOUT_COUNTING};
    uint64_t keys[4000];
    uint64_t st = seed_state;
    for (size_t i = 0; i < BL_ARRAY_LEN(keys); i++)
        keys[i] = tu_next(&st);
    for (size_t l = 0; l < BL_ARRAY_LEN(layouts); l++) {
        for (size_t k = 0; k < nk; k++) {
            bl_params p;
            bl_params_init(&p);
            p.layout = layouts[l];
            p.expected_keys = 3000;
            p.kernel = names[k];
            bl_filter *f = tu_create_params(&p);
            assert_int_equal(bl_add_u64_batch(f, keys, BL_ARRAY_LEN(keys)), BL_OK);
            bl_info info;
            assert_int_equal(bl_get_info(f, &info), BL_OK);
            const bool counters = layouts[l] == BL_LAYOUT_COUNTING;
            const uint64_t want = counters ? reference_nonzero_nibbles(f->data, f->nbytes)
                                           : reference_bits(f->data, f->nbytes);
            const double slots = counters ? (double)f->nblocks * BL_COUNTING_SLOTS
                                          : (double)f->nbits;
            if (fabs(info.fill_ratio * slots - (double)want) > 0.01)
                fail_msg("%s filter, kernel %s: fill %.6f of %.0f slots, expected %llu set",
                         bl_layout_name(layouts[l]), names[k], info.fill_ratio, slots,
                         (unsigned long long)want);
            bl_free(f);
        }
    }
}

/* bl_get_info takes a blocked filter whose set bits all come in whole nibbles for a frozen
 * counting filter (a quarter of its bits are counters). Two payloads are not frozen: a full one
 * (a freeze never fills every counter; estimated as frozen it would count fewer keys than with
 * a bit clear), and nibbles of 3 bits (0xB), which must read as any 3-bit nibbles do (0x7). */
static void test_frozen_detection(void **state)
{
    (void)state;
    bl_filter *f = NULL, *g = NULL;
    assert_int_equal(bl_create_geometry(&f, BL_LAYOUT_BLOCKED, 64 * 512, 7, 1, 0, NULL), BL_OK);
    assert_int_equal(bl_create_geometry(&g, BL_LAYOUT_BLOCKED, 64 * 512, 7, 1, 0, NULL), BL_OK);
    bl_info full, near;
    memset(f->data, 0xff, f->nbytes);
    assert_int_equal(bl_get_info(f, &full), BL_OK);
    f->data[0] = 0xfe;
    assert_int_equal(bl_get_info(f, &near), BL_OK);
    if (!(full.estimated_keys >= near.estimated_keys && full.current_fpp >= near.current_fpp))
        fail_msg("full: %.1f keys, rate %g; one bit clear: %.1f keys, rate %g",
                 full.estimated_keys, full.current_fpp, near.estimated_keys, near.current_fpp);

    memset(f->data, 0, f->nbytes);
    memset(f->data, 0xbb, f->nbytes / 2);
    memset(g->data, 0x77, g->nbytes / 2);
    bl_info b, seven;
    assert_int_equal(bl_get_info(f, &b), BL_OK);
    assert_int_equal(bl_get_info(g, &seven), BL_OK);
    if (!(b.fill_ratio == seven.fill_ratio && b.estimated_keys == seven.estimated_keys &&
          b.current_fpp == seven.current_fpp))
        fail_msg("0xbb: %.1f keys, rate %g; 0x77: %.1f keys, rate %g", b.estimated_keys,
                 b.current_fpp, seven.estimated_keys, seven.current_fpp);
    bl_free(f);
    bl_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_patterns),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_info_fill),
        cmocka_unit_test(test_frozen_detection),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
