/* SPDX-License-Identifier: MIT */
/* Every kernel against scalar: identical bits, identical answers, identical u64 hashes. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "test_util.h"

#include <math.h>
#include <sys/mman.h>

#include "../src/counting.h"

#define MAX_KERNELS 8
#define NKEYS 3000u /* keys added per filter; as many fresh keys are queried besides */
#define KEY_MAX_LEN 63u

/* Batch sizes cycled through by the batched paths: around vector widths, the prefetch windows
 * (64, and 128 on filters of 4-32 MiB), the pipeline chunk (1024: the last key alone in a second
 * step at +1) and the chunk plus the deep window (the hash buffer; at +1 the second step hashes
 * a single key), and beyond. The two pipeline edges come first, so the adds (NKEYS keys) meet
 * them too, not only the queries. */
#define CHUNK BL_PIPELINE_CHUNK
#define WINDOW BL_PREFETCH_DISTANCE
#define DEEP BL_DEEP_WINDOW
static const size_t batch_sizes[] = {CHUNK + 1,  CHUNK + DEEP + 1, 0,     1,         7,
                                     8,          9,                15,    16,        17,
                                     WINDOW - 1, WINDOW,           WINDOW + 1, DEEP - 1, DEEP,
                                     DEEP + 1,   255,              256,   257,       CHUNK - 1,
                                     CHUNK,      CHUNK + WINDOW,   CHUNK + DEEP, 1500};

typedef enum kind { KIND_BYTES, KIND_U64, KIND_HASH } kind;
static const char *const kind_names[] = {"bytes", "u64", "hash"};

/* 2 x NKEYS keys of each kind: the first NKEYS are added, all are queried. */
typedef struct keyset {
    uint64_t u64[2 * NKEYS];
    uint64_t hash[2 * NKEYS];
    const void *ptr[2 * NKEYS];
    size_t len[2 * NKEYS];
    uint8_t arena[2 * NKEYS * (KEY_MAX_LEN + 2)];
} keyset;

static keyset ks;
static uint64_t seed_state;

static void make_keys(uint64_t *st)
{
    size_t off = 1; /* every byte key starts at an odd address */
    for (size_t i = 0; i < 2 * NKEYS; i++) {
        ks.u64[i] = tu_next(st);
        ks.hash[i] = tu_next(st);
        ks.len[i] = tu_key(st, ks.arena + off, KEY_MAX_LEN);
        ks.ptr[i] = ks.arena + off;
        off += ks.len[i] + ((ks.len[i] & 1) == 0); /* the next start stays odd */
    }
}

static int setup(void **state)
{
    (void)state;
    seed_state = tu_seed("test_kernels");
    uint64_t st = seed_state;
    make_keys(&st);
    return 0;
}

static size_t kernels(const char **names) { return tu_kernels(names, MAX_KERNELS); }

static bl_filter *make(bl_layout layout, uint64_t blocks, unsigned k, uint64_t seed,
                       const char *kernel)
{
    const uint64_t bits = blocks * (layout == BL_LAYOUT_SBBF ? 256u : 512u);
    bl_filter *f = NULL;
    bl_status st = bl_create_geometry(&f, layout, bits, k, seed, 0, kernel);
    if (st != BL_OK)
        fail_msg("bl_create_geometry(%s, %llu bits, k=%u, %s): %s", bl_layout_name(layout),
                 (unsigned long long)bits, k, kernel, bl_strerror(st));
    assert_string_equal(bl_filter_kernel(f), kernel);
    assert_int_equal(f->nblocks, blocks);
    return f;
}

/* Add keys [0, NKEYS) of one kind, one by one or in batches of the sizes above. */
static void add_all(bl_filter *f, kind kd, bool batched)
{
    if (!batched) {
        for (size_t i = 0; i < NKEYS; i++) {
            bl_status st = kd == KIND_BYTES  ? bl_add(f, ks.ptr[i], ks.len[i])
                           : kd == KIND_U64 ? bl_add_u64(f, ks.u64[i])
                                            : bl_add_hash(f, ks.hash[i]);
            assert_int_equal(st, BL_OK);
        }
        return;
    }
    size_t i = 0;
    for (size_t b = 0; i < NKEYS; b++) {
        size_t m = batch_sizes[b % BL_ARRAY_LEN(batch_sizes)];
        if (m > NKEYS - i)
            m = NKEYS - i;
        bl_status st = kd == KIND_BYTES  ? bl_add_batch(f, ks.ptr + i, ks.len + i, m)
                       : kd == KIND_U64 ? bl_add_u64_batch(f, ks.u64 + i, m)
                                        : bl_add_hash_batch(f, ks.hash + i, m);
        assert_int_equal(st, BL_OK);
        i += m;
    }
}

/* Query all 2 x NKEYS keys; returns hits. Batched queries also run count-only (res NULL) and
 * must report the same number of hits. */
static size_t query_all(const bl_filter *f, kind kd, bool batched, uint8_t *res)
{
    const size_t n = 2 * NKEYS;
    size_t hits = 0;
    if (!batched) {
        for (size_t i = 0; i < n; i++) {
            res[i] = kd == KIND_BYTES  ? bl_contains(f, ks.ptr[i], ks.len[i])
                     : kd == KIND_U64 ? bl_contains_u64(f, ks.u64[i])
                                      : bl_contains_hash(f, ks.hash[i]);
            hits += res[i];
        }
        return hits;
    }
    memset(res, 0xee, n);
    size_t i = 0;
    for (size_t b = 0; i < n; b++) {
        size_t m = batch_sizes[b % BL_ARRAY_LEN(batch_sizes)];
        if (m > n - i)
            m = n - i;
        size_t h1, h2;
        if (kd == KIND_BYTES) {
            h1 = bl_contains_batch(f, ks.ptr + i, ks.len + i, m, res + i);
            h2 = bl_contains_batch(f, ks.ptr + i, ks.len + i, m, NULL);
        } else if (kd == KIND_U64) {
            h1 = bl_contains_u64_batch(f, ks.u64 + i, m, res + i);
            h2 = bl_contains_u64_batch(f, ks.u64 + i, m, NULL);
        } else {
            h1 = bl_contains_hash_batch(f, ks.hash + i, m, res + i);
            h2 = bl_contains_hash_batch(f, ks.hash + i, m, NULL);
        }
        size_t sum = 0;
        for (size_t j = 0; j < m; j++) {
            assert_true(res[i + j] <= 1);
            sum += res[i + j];
        }
        assert_int_equal(h1, sum);
        assert_int_equal(h2, sum);
        hits += h1;
        i += m;
    }
    return hits;
}

/* For one geometry: every kernel x kind x {single, batched} add path builds exactly the filter
 * the scalar single path builds, and every query path answers exactly as scalar single queries
 * (which read the specification inline in internal.h). */
static void check_geometry(bl_layout layout, uint64_t blocks, unsigned k, uint64_t seed)
{
    const char *names[MAX_KERNELS];
    const size_t nk = kernels(names);
    static uint8_t want[2 * NKEYS], got[2 * NKEYS];
    for (int kd = KIND_BYTES; kd <= KIND_HASH; kd++) {
        bl_filter *ref = make(layout, blocks, k, seed, "scalar");
        add_all(ref, (kind)kd, false);
        const size_t want_hits = query_all(ref, (kind)kd, false, want);
        for (size_t i = 0; i < NKEYS; i++)
            if (!want[i])
                fail_msg("scalar false negative: %s key %zu (seed 0x%llx)", kind_names[kd], i,
                         (unsigned long long)seed_state);
        for (size_t ki = 0; ki < nk; ki++) {
            for (int batched = 0; batched <= 1; batched++) {
                bl_filter *f = make(layout, blocks, k, seed, names[ki]);
                add_all(f, (kind)kd, batched);
                assert_int_equal(f->nbytes, ref->nbytes);
                if (memcmp(f->data, ref->data, f->nbytes) != 0)
                    fail_msg("%s k=%u blocks=%llu: kernel %s %s add of %s keys differs from "
                             "scalar (seed 0x%llx)",
                             bl_layout_name(layout), k, (unsigned long long)blocks, names[ki],
                             batched ? "batched" : "single", kind_names[kd],
                             (unsigned long long)seed_state);
                for (int qb = 0; qb <= 1; qb++) {
                    const size_t hits = query_all(f, (kind)kd, qb, got);
                    if (hits != want_hits || memcmp(got, want, sizeof want) != 0)
                        fail_msg("%s k=%u blocks=%llu: kernel %s %s query of %s keys answers "
                                 "differently from scalar (%zu vs %zu hits, seed 0x%llx)",
                                 bl_layout_name(layout), k, (unsigned long long)blocks, names[ki],
                                 qb ? "batched" : "single", kind_names[kd], hits, want_hits,
                                 (unsigned long long)seed_state);
                }
                bl_free(f);
            }
        }
        bl_free(ref);
    }
}

/* Lines for NKEYS keys so that the fill is high enough (0.5 .. 0.9) that a kernel skipping or
 * mangling any one probe answers "present" for measurably more fresh keys than scalar. */
static uint64_t dense_lines(unsigned k)
{
    const double fill = 0.5 + 0.025 * k;
    const double keys_per_line = -512.0 * log(1.0 - fill) / k;
    return (uint64_t)(NKEYS / keys_per_line) + 1;
}

static void test_blocked_identical(void **state)
{
    (void)state;
    for (unsigned k = 1; k <= BL_K_MAX_BLOCKED; k++)
        check_geometry(BL_LAYOUT_BLOCKED, dense_lines(k), k, seed_state + k);
    /* 1 line (everything collides), a few lines, ~64 KiB, 4 MiB (beyond L2), 6.1 MiB (the
     * deep prefetch window; a line count no power of two, for the vector line offsets),
     * 16.5 MiB (uint64_t keys hashed in the window, BL_KEYS_IN_WINDOW_MIN_BYTES) and 64.1 MiB
     * (the same with AVX-512, BL_KEYS_IN_WINDOW_MIN_BYTES_AVX512). */
    static const uint64_t sizes[] = {1, 3, 1000, 65536, 100003, 270001, 1050001};
    assert_true(bl_window_depth(100003) == BL_DEEP_WINDOW);
    assert_true(270001 * BL_LINE_BYTES > BL_KEYS_IN_WINDOW_MIN_BYTES);
    assert_true(1050001 * BL_LINE_BYTES > BL_KEYS_IN_WINDOW_MIN_BYTES_AVX512);
    for (size_t s = 0; s < BL_ARRAY_LEN(sizes); s++) {
        for (unsigned k = 1; k <= BL_K_MAX_BLOCKED; k++) {
            if (sizes[s] >= 65536 && k != 1 && k != 7 && k != 8 && k != 9 && k != 16)
                continue;
            if (sizes[s] > 100003 && k != 7 && k != 9)
                continue;
            if (sizes[s] > 270001 && k != 7)
                continue;
            check_geometry(BL_LAYOUT_BLOCKED, sizes[s], k, seed_state ^ (s * 16 + k));
        }
    }
}

static void test_sbbf_identical(void **state)
{
    (void)state;
    /* 40 blocks: ~75 keys per block, dense enough for any dropped bit to show in the answers. */
    static const uint64_t sizes[] = {1, 3, 40, 1024, 131072};
    for (size_t s = 0; s < BL_ARRAY_LEN(sizes); s++)
        check_geometry(BL_LAYOUT_SBBF, sizes[s], BL_SBBF_K, 0);
}

/* The hash stage for uint64_t keys equals xxHash over the key's 8 little-endian bytes, for
 * every length around the vector widths and many seeds. */
static void test_hash_u64(void **state)
{
    (void)state;
    const char *names[MAX_KERNELS];
    const size_t nk = kernels(names);
    uint64_t st = seed_state ^ 0x5eed;
    enum { N = 1031 };
    static uint64_t keys[N + 1], out[N + 1];
    for (size_t i = 0; i < N + 1; i++)
        keys[i] = tu_next(&st);
    keys[0] = 0;
    keys[1] = UINT64_MAX;
    uint64_t seeds[40] = {0, 1, UINT64_MAX, 0xffffffffu, 1ull << 32, 0x8000000000000000ull};
    for (size_t i = 6; i < BL_ARRAY_LEN(seeds); i++)
        seeds[i] = tu_next(&st);
    for (size_t ki = 0; ki < nk; ki++) {
        const struct bl_kernels *kern;
        assert_int_equal(bl_kernel_resolve(names[ki], &kern), BL_OK);
        assert_string_equal(kern->name, names[ki]);
        for (size_t s = 0; s < BL_ARRAY_LEN(seeds); s++) {
            for (size_t n = 0; n <= N; n = n < 40 ? n + 1 : n + 331) {
                for (int scheme = 0; scheme < 2; scheme++) {
                    /* start at element 1: not 32-byte aligned */
                    const uint64_t sentinel = 0xdeadbeefcafef00dull;
                    out[n + 1 > N ? N : n + 1] = sentinel;
                    if (scheme == 0)
                        kern->hash_u64_xxh3(keys + 1, n, seeds[s], out + 1);
                    else
                        kern->hash_u64_xxh64(keys + 1, n, seeds[s], out + 1);
                    for (size_t i = 0; i < n; i++) {
                        uint8_t le[8];
                        for (int b = 0; b < 8; b++)
                            le[b] = (uint8_t)(keys[1 + i] >> (8 * b));
                        const uint64_t want = scheme == 0 ? XXH3_64bits_withSeed(le, 8, seeds[s])
                                                          : XXH64(le, 8, seeds[s]);
                        if (out[1 + i] != want)
                            fail_msg("kernel %s %s: key %zu of %zu seed 0x%llx: 0x%llx != 0x%llx",
                                     names[ki], scheme ? "xxh64" : "xxh3", i, n,
                                     (unsigned long long)seeds[s], (unsigned long long)out[1 + i],
                                     (unsigned long long)want);
                    }
                    if (n + 1 <= N)
                        assert_true(out[n + 1] == sentinel); /* nothing written past n */
                }
            }
        }
    }
}

/* Calling the kernel tables directly: a window `avail` larger than n (prefetch only) changes
 * nothing, and n = 0 touches nothing. */
static void test_direct_window(void **state)
{
    (void)state;
    const char *names[MAX_KERNELS];
    const size_t nk = kernels(names);
    const uint64_t nlines = 97;
    bl_filter *ref = make(BL_LAYOUT_BLOCKED, nlines, 11, 0, "scalar");
    for (size_t i = 0; i < NKEYS; i++)
        bl_blocked_add_one(ref->data, nlines, 11, ks.hash[i]);
    static uint8_t want[2 * NKEYS], got[2 * NKEYS];
    for (size_t i = 0; i < 2 * NKEYS; i++)
        want[i] = bl_blocked_test_one(ref->data, nlines, 11, ks.hash[i]);
    for (size_t ki = 0; ki < nk; ki++) {
        const struct bl_kernels *kern;
        assert_int_equal(bl_kernel_resolve(names[ki], &kern), BL_OK);
        bl_filter *f = make(BL_LAYOUT_BLOCKED, nlines, 11, 0, names[ki]);
        kern->blocked_add(f->data, nlines, 11, ks.hash, 0, 2 * NKEYS);
        for (size_t i = 0; i < f->nbytes; i++)
            assert_int_equal(f->data[i], 0);
        kern->blocked_add(f->data, nlines, 11, ks.hash, NKEYS, 2 * NKEYS);
        assert_memory_equal(f->data, ref->data, f->nbytes);
        memset(got, 0xee, sizeof got);
        size_t hits = kern->blocked_test(f->data, nlines, 11, ks.hash, 2 * NKEYS - 5, 2 * NKEYS,
                                         got);
        assert_int_equal(got[2 * NKEYS - 5], 0xee);
        assert_memory_equal(got, want, 2 * NKEYS - 5);
        size_t sum = 0;
        for (size_t i = 0; i < 2 * NKEYS - 5; i++)
            sum += want[i];
        assert_int_equal(hits, sum);
        bl_free(f);
    }
    bl_free(ref);
}

/* blocked_add_new (scalable stages) sets the bits blocked_add sets and counts, in order, the
 * keys new to their line, as the scalar spec does one key at a time: with no limit, stopped by
 * `room` mid-batch (then resumed), with room 0, and over keys repeated in one batch. A small
 * filter (97 lines, 3000 keys) makes keys share lines, so a key made old by an earlier key of
 * the same batch must not count. */
static void test_add_new(void **state)
{
    (void)state;
    const char *names[MAX_KERNELS];
    const size_t nk = kernels(names);
    const uint64_t nlines = 97;
    enum { N = NKEYS + NKEYS / 3 };
    static uint64_t h[N];
    static bool want_new[N];
    for (size_t i = 0; i < N; i++) /* the last third repeats keys of the first */
        h[i] = i < NKEYS ? ks.hash[i] : ks.hash[(i - NKEYS) * 3];
    bl_filter *ref = make(BL_LAYOUT_BLOCKED, nlines, 11, 0, "scalar");
    uint64_t want_taken = 0;
    for (size_t i = 0; i < N; i++) {
        want_new[i] = bl_blocked_add_one(ref->data, nlines, 11, h[i]);
        want_taken += want_new[i];
    }
    assert_true(want_taken > NKEYS - NKEYS / 10 && want_taken <= NKEYS); /* no repeat counts */
    for (size_t ki = 0; ki < nk; ki++) {
        const struct bl_kernels *kern;
        assert_int_equal(bl_kernel_resolve(names[ki], &kern), BL_OK);
        bl_filter *f = make(BL_LAYOUT_BLOCKED, nlines, 11, 0, names[ki]);
        uint64_t taken = 0;
        assert_int_equal(kern->blocked_add_new(f->data, nlines, 11, h, N, N, UINT64_MAX, &taken),
                         N);
        assert_int_equal(taken, want_taken);
        assert_memory_equal(f->data, ref->data, f->nbytes);
        /* Stopped at room 37: up to and including the key that took the 37th place. */
        memset(f->data, 0, f->nbytes);
        taken = 5;
        assert_int_equal(kern->blocked_add_new(f->data, nlines, 11, h, N, N, 0, &taken), 0);
        assert_int_equal(taken, 5);
        size_t stop = 0;
        for (uint64_t t = 0; t < 37; stop++)
            t += want_new[stop];
        taken = 0;
        assert_int_equal(kern->blocked_add_new(f->data, nlines, 11, h, N, N, 37, &taken), stop);
        assert_int_equal(taken, 37);
        assert_int_equal(kern->blocked_add_new(f->data, nlines, 11, h + stop, N - stop, N - stop,
                                               UINT64_MAX, &taken),
                         N - stop);
        assert_int_equal(taken, want_taken);
        assert_memory_equal(f->data, ref->data, f->nbytes);
        bl_free(f);
    }
    bl_free(ref);
}

/* Line counts past 32 bits: the line index is the high half of the full 64 x 64-bit product
 * h * nlines, so a kernel that reduces with fewer bits (nlines truncated to 32 bits, or the
 * sbbf's ((h >> 32) * n) >> 32) picks other lines, yet agrees with scalar on every filter small
 * enough to allocate (powers of two up to 2^32 come out the same either way). The sbbf's own
 * block index, conversely, differs from the blocked one only for large block counts that are
 * not powers of two (the 2^32 - 1 it may have). Such filters are 128-256 GiB, so the kernels
 * run directly on one sparse anonymous mapping, of which only the few hundred lines the keys
 * touch are ever written (and zeroed again after each run), against what the spec's add, test
 * and remove leave there. */
#define HUGE_KEYS 200u /* keys added; as many fresh ones are queried */
#define HUGE_MAX_LINES ((UINT64_C(1) << 32) + 3)

typedef struct huge_run {
    uint8_t *data; /* HUGE_MAX_LINES lines */
    uint64_t nlines; /* lines, or blocks of the sbbf */
    bool sbbf;
    unsigned k;
    uint64_t h[2 * HUGE_KEYS];
} huge_run;

/* The line (or sbbf block) of key i. */
static uint8_t *huge_line(const huge_run *r, size_t i)
{
    if (r->sbbf)
        return r->data + bl_sbbf_block(r->h[i], r->nlines) * BL_SBBF_BLOCK_BYTES;
    return r->data + bl_blocked_line(r->h[i], r->nlines) * BL_LINE_BYTES;
}

/* Move the lines of all 2 x HUGE_KEYS keys out of the payload (zeroing them there), in key order. */
static void huge_take_lines(huge_run *r, uint8_t lines[][BL_LINE_BYTES])
{
    const size_t bytes = r->sbbf ? BL_SBBF_BLOCK_BYTES : BL_LINE_BYTES;
    memset(lines, 0, 2 * HUGE_KEYS * BL_LINE_BYTES);
    for (size_t i = 0; i < 2 * HUGE_KEYS; i++)
        memcpy(lines[i], huge_line(r, i), bytes);
    for (size_t i = 0; i < 2 * HUGE_KEYS; i++)
        memset(huge_line(r, i), 0, bytes);
}

static void huge_check_lines(huge_run *r, uint8_t want[][BL_LINE_BYTES], const char *what)
{
    static uint8_t got[2 * HUGE_KEYS][BL_LINE_BYTES];
    huge_take_lines(r, got);
    for (size_t i = 0; i < 2 * HUGE_KEYS; i++)
        if (memcmp(got[i], want[i], BL_LINE_BYTES) != 0)
            fail_msg("%s %s k=%u, %llu lines: the line of key %zu differs from the spec "
                     "(seed 0x%llx)", what, r->sbbf ? "sbbf" : "blocked/counting", r->k,
                     (unsigned long long)r->nlines, i, (unsigned long long)seed_state);
}

/* One kernel on one geometry: adds (batched, then single), queries, counting add, test, remove. */
static void huge_check_kernel(huge_run *r, const char *name, uint8_t blocked[][BL_LINE_BYTES],
                              uint8_t counting[][BL_LINE_BYTES], uint8_t removed[][BL_LINE_BYTES],
                              const uint8_t *want, size_t absent_want)
{
    enum { N = HUGE_KEYS };
    const struct bl_kernels *kern;
    assert_int_equal(bl_kernel_resolve(name, &kern), BL_OK);
    static uint8_t got[2 * N];
    bl_filter keyed; /* what blocked_contains_u64_by_k reads of a filter */
    memset(&keyed, 0, sizeof keyed);
    keyed.data = r->data;
    keyed.nblocks = r->nlines;
    keyed.k = r->k;
    bl_filter_set_seed(&keyed, seed_state + r->k);

    kern->blocked_add(r->data, r->nlines, r->k, r->h, N - 9, N);
    for (size_t i = N - 9; i < N; i++)
        kern->blocked_add_one(r->data, r->nlines, r->k, r->h[i]);
    memset(got, 0xee, sizeof got);
    assert_int_equal(kern->blocked_test(r->data, r->nlines, r->k, r->h, 2 * N, 2 * N, got), N);
    for (size_t i = 0; i < 2 * N; i++) {
        if (got[i] != want[i] ||
            kern->blocked_contains(r->data, r->nlines, r->k, r->h[i]) != want[i] ||
            kern->blocked_contains_u64_by_k[r->k](&keyed, ks.u64[i]) != want[i])
            fail_msg("%s k=%u, %llu lines: key %zu answers differently from the spec", name, r->k,
                     (unsigned long long)r->nlines, i);
    }
    if (kern->blocked_test_u64_keys != NULL) { /* keys hashed in the window: lines past 2^32
                                                * enter one by one; batches ending in 3 keys
                                                * past their last step of 8, added ones first */
        for (size_t m = N - 5; m <= 2 * N - 5; m += N) {
            memset(got, 0xee, sizeof got);
            const size_t hits = kern->blocked_test_u64_keys(r->data, r->nlines, r->k, ks.u64, m,
                                                            keyed.xxh3_flip, got);
            assert_int_equal(got[m], 0xee);
            assert_memory_equal(got, want, m);
            size_t want_hits = 0;
            for (size_t i = 0; i < m; i++)
                want_hits += want[i];
            assert_int_equal(hits, want_hits);
        }
    }
    huge_check_lines(r, blocked, name);
    if (kern->blocked_add_u64_keys != NULL) { /* in two batches of 195 and 5 keys: tails */
        kern->blocked_add_u64_keys(r->data, r->nlines, r->k, ks.u64, N - 5, keyed.xxh3_flip);
        kern->blocked_add_u64_keys(r->data, r->nlines, r->k, ks.u64 + N - 5, 5, keyed.xxh3_flip);
        huge_check_lines(r, blocked, name);
    }

    const struct bl_counting_kernels *ck = bl_counting_kernels_for(kern);
    ck->add(r->data, r->nlines, r->k, r->h, N, N);
    memset(got, 0xee, sizeof got);
    assert_int_equal(ck->test(r->data, r->nlines, r->k, r->h, 2 * N, 2 * N, got), N);
    assert_memory_equal(got, want, 2 * N);
    huge_check_lines(r, counting, name);
    for (size_t i = 0; i < N; i++) /* put the added counters back */
        bl_counting_add_one(r->data, r->nlines, r->k, r->h[i]);
    assert_int_equal(ck->remove(r->data, r->nlines, r->k, r->h + N / 2, N, N + N / 2),
                     absent_want);
    huge_check_lines(r, removed, name);
}

/* One kernel's sbbf add (in two batches) and test. */
static void huge_check_sbbf(huge_run *r, const char *name, uint8_t blocks[][BL_LINE_BYTES],
                            const uint8_t *want)
{
    enum { N = HUGE_KEYS };
    const struct bl_kernels *kern;
    assert_int_equal(bl_kernel_resolve(name, &kern), BL_OK);
    static uint8_t got[2 * N];
    kern->sbbf_add(r->data, r->nlines, r->h, N - 9, N);
    kern->sbbf_add(r->data, r->nlines, r->h + N - 9, 9, 9);
    memset(got, 0xee, sizeof got);
    assert_int_equal(kern->sbbf_test(r->data, r->nlines, r->h, 2 * N, 2 * N, got), N);
    assert_memory_equal(got, want, 2 * N);
    huge_check_lines(r, blocks, name);
}

static void test_huge_line_counts(void **state)
{
    (void)state;
    /* Emulators may track every page of a mapping (qemu-user 7: seconds and 1.6 GB for this
     * one); the NEON source runs here natively through SIMDe anyway. */
    if (getenv("BLOOMLINE_TEST_EMULATED") != NULL)
        skip();
    enum { N = HUGE_KEYS };
    const char *names[MAX_KERNELS];
    const size_t nk = kernels(names);
    const size_t bytes = (size_t)(HUGE_MAX_LINES * BL_LINE_BYTES);
    static huge_run r;
    void *map = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (map == MAP_FAILED) {
        printf("# no sparse mapping of %zu bytes here: skipped\n", bytes);
        skip();
    }
#if defined(MADV_NOHUGEPAGE)
    (void)madvise(map, bytes, MADV_NOHUGEPAGE); /* not 2 MiB for each line touched */
#endif
    r.data = map;
    /* just below 2^32 and not a power of two; past 2^32 */
    static const uint64_t line_counts[] = {UINT32_MAX, HUGE_MAX_LINES};
    static const unsigned kvals[] = {3, 8, 9, 16}; /* both sides of each kernel's k <= 8 split */
    static uint8_t blocked[2 * N][BL_LINE_BYTES], counting[2 * N][BL_LINE_BYTES],
        removed[2 * N][BL_LINE_BYTES], want[2 * N];
    for (size_t li = 0; li < BL_ARRAY_LEN(line_counts); li++) {
        for (size_t kv = 0; kv < BL_ARRAY_LEN(kvals); kv++) {
            r.nlines = line_counts[li];
            r.k = kvals[kv];
            for (size_t i = 0; i < 2 * N; i++)
                r.h[i] = bl_xxh3_u64(ks.u64[i], seed_state + r.k);
            /* The spec's lines: blocked adds; counting adds; then removes of the second half of
             * the added keys and as many never added. */
            for (size_t i = 0; i < N; i++)
                bl_blocked_add_one(r.data, r.nlines, r.k, r.h[i]);
            for (size_t i = 0; i < 2 * N; i++) {
                want[i] = bl_blocked_test_one(r.data, r.nlines, r.k, r.h[i]);
                assert_true(want[i] || i >= N);
            }
            huge_take_lines(&r, blocked);
            for (size_t i = 0; i < N; i++)
                bl_counting_add_one(r.data, r.nlines, r.k, r.h[i]);
            for (size_t i = 0; i < 2 * N; i++)
                assert_int_equal(bl_counting_test_one(r.data, r.nlines, r.k, r.h[i]), want[i]);
            huge_take_lines(&r, counting);
            for (size_t i = 0; i < N; i++)
                bl_counting_add_one(r.data, r.nlines, r.k, r.h[i]);
            size_t absent_want = 0;
            for (size_t i = N / 2; i < N / 2 + N; i++)
                absent_want += !bl_counting_remove_one(r.data, r.nlines, r.k, r.h[i]);
            huge_take_lines(&r, removed);
            for (size_t ki = 0; ki < nk; ki++)
                huge_check_kernel(&r, names[ki], blocked, counting, removed, want, absent_want);
        }
    }
    r.sbbf = true;
    r.nlines = UINT32_MAX;
    r.k = BL_SBBF_K;
    for (size_t i = 0; i < 2 * N; i++)
        r.h[i] = bl_xxh64_u64(ks.u64[i], 0);
    for (size_t i = 0; i < N; i++)
        bl_sbbf_add_one(r.data, r.nlines, r.h[i]);
    for (size_t i = 0; i < 2 * N; i++) {
        want[i] = bl_sbbf_test_one(r.data, r.nlines, r.h[i]);
        assert_true(want[i] || i >= N);
    }
    huge_take_lines(&r, blocked);
    for (size_t ki = 0; ki < nk; ki++)
        huge_check_sbbf(&r, names[ki], blocked, want);
    assert_int_equal(munmap(map, bytes), 0);
}

/* The word-set tables (internal.h, blocked_maps.c): row k of the offsets holds k distinct words
 * starting with 0 (then zeros), the inverse table (stored twice over) maps each of them back
 * to its probe and every other word to lane 15, a lane past k, and the multiplier table (twice
 * over too) holds each such word's probe multiplier and 0 elsewhere. Then every key's k words are
 * distinct, which the adds' mask permutation relies on. */
static void test_word_sets(void **state)
{
    (void)state;
    for (unsigned k = 1; k <= 16; k++) {
        unsigned seen = 0;
        assert_int_equal(bl_blocked_offsets[k][0], 0);
        for (unsigned i = 0; i < 16; i++) {
            const uint32_t d = bl_blocked_offsets[k][i];
            if (i >= k) {
                assert_int_equal(d, 0);
                continue;
            }
            assert_true(d < 16);
            assert_false(seen & (1u << d));
            seen |= 1u << d;
            assert_int_equal(bl_blocked_probe_of[k][d], i);
        }
        for (unsigned d = 0; d < 16; d++) {
            assert_int_equal(bl_blocked_probe_of[k][d + 16], bl_blocked_probe_of[k][d]);
            if (!(seen & (1u << d)))
                assert_true(bl_blocked_probe_of[k][d] == 15 && k < 16);
            /* the multipliers in word order: the probe's with offset d, or 0 (no bit) */
            const uint32_t m = (seen & (1u << d)) ? bl_blocked_mul[bl_blocked_probe_of[k][d]] : 0;
            assert_int_equal(bl_blocked_mul_of_word[k][d], m);
            assert_int_equal(bl_blocked_mul_of_word[k][d + 16], m);
        }
        for (uint64_t h = 0; h < (UINT64_C(1) << 32); h += UINT64_C(0x10000001)) {
            unsigned words = 0;
            for (unsigned i = 0; i < k; i++)
                words |= 1u << (bl_blocked_pos(h, k, i) >> 5);
            assert_int_equal(__builtin_popcount(words), k);
        }
    }
}

/* BLOOMLINE_KERNEL, when set (the per-kernel ctest reruns set it), is the kernel that runs; when
 * unset, aarch64 picks NEON and x86 with AVX2 a vector kernel. */
static void test_env_kernel(void **state)
{
    (void)state;
    const char *env = getenv("BLOOMLINE_KERNEL");
    const char *name = bl_kernel_name();
    printf("# BLOOMLINE_KERNEL=%s, running kernel: %s\n", env ? env : "(unset)",
           name ? name : "(none)");
    if (name == NULL)
        fail_msg("BLOOMLINE_KERNEL=%s is not a kernel this build and CPU run", env ? env : "");
    bl_filter *f = tu_create(BL_LAYOUT_BLOCKED, 1000, 0.01, NULL);
    assert_string_equal(bl_filter_kernel(f), name);
    bl_info info;
    assert_int_equal(bl_get_info(f, &info), BL_OK);
    assert_string_equal(info.kernel, name);
    bl_free(f);
    if (env != NULL && *env != '\0') {
        assert_string_equal(name, env);
        return;
    }
#if defined(__aarch64__)
    assert_string_equal(name, "neon");
#elif defined(__x86_64__) && defined(BLOOMLINE_HAVE_AVX2)
    if (bl_cpu_features() & BL_CPU_AVX2)
        assert_true(strcmp(name, "avx2") == 0 || strcmp(name, "avx512") == 0);
    else
        assert_string_equal(name, "scalar");
#endif
}

/* The CPU features against the compiler's own detection (libgcc / compiler-rt), which also
 * asks XGETBV whether the OS saves YMM and ZMM state. The kernel reruns and test_env_kernel go by
 * bl_cpu_features itself, so a detection that lost a feature would only leave its kernel
 * untested (and never selected) without this. */
static void test_cpu_features(void **state)
{
    (void)state;
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
    __builtin_cpu_init();
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
#if defined(BL_AVX512_VIA_SIMDE) /* the test build whose AVX-512 kernel is SIMDe over AVX2 */
    const bool avx512 = avx2;
#else
    const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") &&
                        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
                        __builtin_cpu_supports("avx512vl");
#endif
    const uint32_t features = bl_cpu_features();
    printf("# CPU: avx2 %d, avx512 %d; bl_cpu_features 0x%x\n", avx2, avx512, (unsigned)features);
    assert_int_equal(!!(features & BL_CPU_AVX2), avx2);
    assert_int_equal(!!(features & BL_CPU_AVX512), avx512);
    assert_int_equal(features & BL_CPU_NEON, 0);
#if defined(BLOOMLINE_HAVE_AVX2)
    assert_int_equal(bl_kernel_supported("avx2"), avx2);
#endif
#if defined(BLOOMLINE_HAVE_AVX512)
    assert_int_equal(bl_kernel_supported("avx512"), avx512);
#endif
#else
    skip();
#endif
}

/* Unknown and unsupported kernels: a clear error from creation, never a silent fallback. */
static void test_bad_kernel(void **state)
{
    (void)state;
    bl_params p;
    bl_params_init(&p);
    p.expected_keys = 100;
    p.kernel = "bogus";
    bl_filter *f = NULL;
    assert_int_equal(bl_create(&f, &p), BL_E_UNSUPPORTED);
    assert_null(f);
    assert_false(bl_kernel_supported("bogus"));
    assert_false(bl_kernel_supported(NULL));
    assert_true(bl_kernel_supported("scalar"));
    /* Every compiled-in kernel reports support consistently with the CPU features. */
    for (size_t i = 0; bl_kernel_at(i) != NULL; i++) {
        const struct bl_kernels *kern;
        const char *n = bl_kernel_at(i);
        bl_status st = bl_kernel_resolve(n, &kern);
        assert_int_equal(st == BL_OK, bl_kernel_supported(n));
        p.kernel = n;
        st = bl_create(&f, &p);
        assert_int_equal(st == BL_OK, bl_kernel_supported(n));
        if (st == BL_OK) {
            assert_string_equal(bl_filter_kernel(f), n);
            bl_free(f);
            f = NULL;
        } else {
            assert_int_equal(st, BL_E_UNSUPPORTED);
        }
    }
}

/* Kernel names match whole: a prefix, an extension or another case of a name is no kernel. An
 * empty name, in the parameters or as BLOOMLINE_KERNEL (a variable exported empty), is none
 * given: the environment's kernel, then the best. */
static void test_kernel_names(void **state)
{
    (void)state;
    static const char *const near[] = {"avx", "avx5", "avx2 ", "sca", "scalar2", "Scalar", "neo",
                                       "AVX512", ""};
    bl_params p;
    bl_params_init(&p);
    p.expected_keys = 100;
    for (size_t i = 0; i < BL_ARRAY_LEN(near); i++) {
        assert_false(bl_kernel_supported(near[i]));
        const struct bl_kernels *kern = NULL;
        if (near[i][0] != '\0') {
            assert_int_equal(bl_kernel_resolve(near[i], &kern), BL_E_UNSUPPORTED);
            bl_filter *f = NULL;
            p.kernel = near[i];
            assert_int_equal(bl_create(&f, &p), BL_E_UNSUPPORTED);
            assert_null(f);
        }
    }
    const char *env = getenv("BLOOMLINE_KERNEL");
    char *saved = env ? strdup(env) : NULL;
    unsetenv("BLOOMLINE_KERNEL");
    const char *best = bl_kernel_name();
    assert_non_null(best);
    setenv("BLOOMLINE_KERNEL", "", 1);
    const char *empty_env = bl_kernel_name();
    p.kernel = "";
    bl_filter *f = NULL;
    const bl_status st = bl_create(&f, &p);
    setenv("BLOOMLINE_KERNEL", "scalar", 1);
    bl_filter *g = NULL;
    const bl_status st_env = bl_create(&g, &p);
    if (saved != NULL) {
        setenv("BLOOMLINE_KERNEL", saved, 1);
        free(saved);
    } else {
        unsetenv("BLOOMLINE_KERNEL");
    }
    assert_non_null(empty_env);
    assert_string_equal(empty_env, best);
    assert_int_equal(st, BL_OK);
    assert_string_equal(bl_filter_kernel(f), best);
    assert_int_equal(st_env, BL_OK);
    assert_string_equal(bl_filter_kernel(g), "scalar");
    bl_free(f);
    bl_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_env_kernel),      cmocka_unit_test(test_bad_kernel),
        cmocka_unit_test(test_kernel_names),
        cmocka_unit_test(test_word_sets),       cmocka_unit_test(test_cpu_features),
        cmocka_unit_test(test_hash_u64),        cmocka_unit_test(test_direct_window),
        cmocka_unit_test(test_add_new),
        cmocka_unit_test(test_huge_line_counts),
        cmocka_unit_test(test_sbbf_identical),  cmocka_unit_test(test_blocked_identical),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
