/* SPDX-License-Identifier: MIT */
/* Parallel builds: partitioned adds from concurrent threads give the serial filter byte for
 * byte, each part writes only its own lines, bl_hash_part names the part that adds a hash, and
 * the batch hash functions agree with the single-key ones. */
#include <limits.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../src/internal.h"
#include "test_util.h"

__extension__ typedef unsigned __int128 u128;

static const bl_layout part_layouts[] = {BL_LAYOUT_BLOCKED, BL_LAYOUT_SBBF, BL_LAYOUT_COUNTING};

static bl_filter *make(bl_layout layout, uint64_t n, double bits_per_key, unsigned flags,
                       const char *kernel)
{
    bl_params p;
    bl_params_init(&p);
    p.layout = layout;
    p.expected_keys = n;
    p.bits_per_key = bits_per_key;
    p.flags = flags;
    p.kernel = kernel;
    bl_filter *f = NULL;
    bl_status st = bl_create(&f, &p);
    if (st != BL_OK)
        fail_msg("bl_create(%s, %s): %s", bl_layout_name(layout), kernel ? kernel : "auto",
                 bl_strerror(st));
    return f;
}

/* n seeded random hashes (free them). */
static uint64_t *random_hashes(size_t n, uint64_t *seed)
{
    uint64_t *h = malloc(n * sizeof *h);
    assert_non_null(h);
    for (size_t i = 0; i < n; i++)
        h[i] = tu_next(seed);
    return h;
}

/* The hashes of a build as the routing threads would hold them: several arrays of uneven
 * lengths, one of them empty. */
enum { SLICES = 3 };
typedef struct slices {
    const uint64_t *h[SLICES];
    size_t n[SLICES];
} slices;

static slices cut(const uint64_t *h, size_t n)
{
    slices s = {{h, h + n / 5, h + n / 5}, {n / 5, 0, n - n / 5}};
    return s;
}

typedef struct part_job {
    bl_filter *f;
    const slices *s;
    unsigned part, parts;
    pthread_barrier_t *start;
    bl_status st;
} part_job;

static void *part_thread(void *arg)
{
    part_job *j = arg;
    pthread_barrier_wait(j->start); /* all parts write at once */
    j->st = BL_OK;
    for (int i = 0; i < SLICES && j->st == BL_OK; i++)
        j->st = bl_add_hash_batch_part(j->f, j->s->h[i], j->s->n[i], j->part, j->parts);
    return NULL;
}

/* Build f from the slices with `parts` threads, one per part. */
static void build_by_parts(bl_filter *f, const slices *s, unsigned parts)
{
    pthread_t *t = malloc(parts * sizeof *t);
    part_job *j = malloc(parts * sizeof *j);
    pthread_barrier_t start;
    assert_non_null(t);
    assert_non_null(j);
    assert_int_equal(pthread_barrier_init(&start, NULL, parts), 0);
    for (unsigned p = 0; p < parts; p++) {
        j[p] = (part_job){f, s, p, parts, &start, BL_OK};
        assert_int_equal(pthread_create(&t[p], NULL, part_thread, &j[p]), 0);
    }
    for (unsigned p = 0; p < parts; p++) {
        pthread_join(t[p], NULL);
        assert_int_equal(j[p].st, BL_OK);
    }
    pthread_barrier_destroy(&start);
    free(t);
    free(j);
}

/* Concurrent parts build the serial filter exactly, for every layout, kernel and part count
 * (more parts than lines included), with and without BL_FLAG_CONCURRENT. */
static void test_parts_build_serial_filter(void **state)
{
    (void)state;
    uint64_t seed = tu_seed("parts build");
    enum { N = 40000 };
    uint64_t *h = random_hashes(N, &seed);
    const slices s = cut(h, N);
    const unsigned part_counts[] = {1, 2, 3, 8};
    const char *kernels[8];
    const size_t nk = tu_kernels(kernels, BL_ARRAY_LEN(kernels));
    for (size_t l = 0; l < BL_ARRAY_LEN(part_layouts); l++) {
        for (size_t ki = 0; ki < nk; ki++) {
            for (size_t c = 0; c < BL_ARRAY_LEN(part_counts); c++) {
                /* 8 bits/key: lines hold many keys, so neighbouring parts' keys interleave;
                 * 3 keys: a filter of one or two lines, fewer than the parts. */
                const uint64_t sizes[] = {N, 3};
                for (size_t z = 0; z < BL_ARRAY_LEN(sizes); z++) {
                    const unsigned flags = c == 1 ? BL_FLAG_CONCURRENT : 0;
                    bl_filter *serial = make(part_layouts[l], sizes[z], 8, 0, kernels[ki]);
                    bl_filter *parted = make(part_layouts[l], sizes[z], 8, flags, kernels[ki]);
                    assert_int_equal(bl_add_hash_batch(serial, h, N), BL_OK);
                    build_by_parts(parted, &s, part_counts[c]);
                    if (memcmp(serial->data, parted->data, serial->nbytes) != 0)
                        fail_msg("%s/%s, %u parts, %llu lines: differs from the serial build",
                                 bl_layout_name(part_layouts[l]), kernels[ki], part_counts[c],
                                 (unsigned long long)serial->nblocks);
                    assert_int_equal(parted->keys_added, N);
                    bl_free(serial);
                    bl_free(parted);
                }
            }
        }
    }
    free(h);
}

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0)
            return false;
    return true;
}

/* One part alone: it writes only inside its own range of lines (floor(p * units / parts) up to
 * the next part's start), it adds exactly the hashes bl_hash_part assigns to it, and those
 * answer present. */
static void test_part_writes_only_its_lines(void **state)
{
    (void)state;
    uint64_t seed = tu_seed("part ranges");
    enum { N = 20000, PARTS = 5 };
    uint64_t *h = random_hashes(N, &seed);
    for (size_t l = 0; l < BL_ARRAY_LEN(part_layouts); l++) {
        uint64_t assigned = 0;
        for (unsigned p = 0; p < PARTS; p++) {
            bl_filter *f = make(part_layouts[l], N, 10, 0, NULL);
            assert_int_equal(bl_add_hash_batch_part(f, h, N, p, PARTS), BL_OK);
            const size_t unit = f->nbytes / f->nblocks;
            const uint64_t lo = f->nblocks * p / PARTS, hi = f->nblocks * (p + 1) / PARTS;
            assert_true(all_zero(f->data, lo * unit));
            assert_true(all_zero(f->data + hi * unit, f->nbytes - hi * unit));
            uint64_t mine = 0;
            for (size_t i = 0; i < N; i++) {
                unsigned owner = PARTS;
                assert_int_equal(bl_hash_part(f, h[i], PARTS, &owner), BL_OK);
                assert_true(owner < PARTS);
                if (owner == p) {
                    mine++;
                    assert_true(bl_contains_hash(f, h[i]));
                }
            }
            assert_int_equal(f->keys_added, mine);
            assert_true(mine > 0);
            assigned += mine;
            bl_free(f);
        }
        assert_int_equal(assigned, N); /* every hash has exactly one owner */
    }
    free(h);
}

/* bl_hash_part against the definition, on geometries where rounding matters: part p owns units
 * [floor(p * u / P), floor((p + 1) * u / P)). Half the hashes sit on unit edges, where an
 * estimate of the part is most likely off. */
static void test_hash_part_boundaries(void **state)
{
    (void)state;
    uint64_t seed = tu_seed("part boundaries");
    const bl_layout layouts[] = {BL_LAYOUT_BLOCKED, BL_LAYOUT_SBBF};
    const uint64_t units[] = {1, 3, 7, 1000003};
    /* Up to more parts than units (some own none), where the estimate is furthest off. */
    const unsigned parts[] = {1, 2, 3, 4, 7, 64, 1000, 1000004, 3000000007u, UINT_MAX};
    for (size_t l = 0; l < BL_ARRAY_LEN(layouts); l++) {
        const bool sbbf = layouts[l] == BL_LAYOUT_SBBF;
        for (size_t b = 0; b < BL_ARRAY_LEN(units); b++) {
            bl_filter *f = NULL;
            const uint64_t U = units[b];
            assert_int_equal(bl_create_geometry(&f, layouts[l], U * (sbbf ? 256 : 512),
                                                sbbf ? 8 : 6, 0, 0, NULL),
                             BL_OK);
            assert_int_equal(f->nblocks, U);
            for (size_t c = 0; c < BL_ARRAY_LEN(parts); c++) {
                const uint64_t P = parts[c];
                for (int i = 0; i < 2000; i++) {
                    uint64_t h = tu_next(&seed);
                    if (i & 1) { /* the first hash of a random unit, or just below it */
                        const uint64_t unit = h % U;
                        h = sbbf ? (((unit << 32) + U - 1) / U) << 32
                                 : (uint64_t)((((u128)unit << 64) + U - 1) / U);
                        h -= (i & 2) && h > 0;
                    }
                    const uint64_t u = sbbf ? bl_sbbf_block(h, U) : bl_blocked_line(h, U);
                    unsigned p = 0;
                    assert_int_equal(bl_hash_part(f, h, parts[c], &p), BL_OK);
                    assert_true(p < P);
                    assert_true((u128)U * p / P <= u);
                    assert_true(u < (u128)U * (p + 1) / P);
                }
            }
            bl_free(f);
        }
    }
}

static void test_parts_invalid(void **state)
{
    (void)state;
    bl_filter *f = make(BL_LAYOUT_BLOCKED, 1000, 10, 0, NULL);
    uint64_t h = 42;
    unsigned p;
    assert_int_equal(bl_add_hash_batch_part(NULL, &h, 1, 0, 1), BL_E_INVALID);
    assert_int_equal(bl_add_hash_batch_part(f, &h, 1, 0, 0), BL_E_INVALID);
    assert_int_equal(bl_add_hash_batch_part(f, &h, 1, 2, 2), BL_E_INVALID);
    assert_int_equal(bl_add_hash_batch_part(f, NULL, 1, 0, 2), BL_E_INVALID);
    assert_int_equal(bl_add_hash_batch_part(f, NULL, 0, 0, 2), BL_OK);
    assert_int_equal(bl_hash_part(NULL, h, 2, &p), BL_E_INVALID);
    assert_int_equal(bl_hash_part(f, h, 0, &p), BL_E_INVALID);
    assert_int_equal(bl_hash_part(f, h, 2, NULL), BL_E_INVALID);
    assert_int_equal(f->keys_added, 0);
    bl_free(f);
    const bl_layout spread[] = {BL_LAYOUT_CLASSIC, BL_LAYOUT_SCALABLE};
    for (size_t l = 0; l < BL_ARRAY_LEN(spread); l++) {
        f = make(spread[l], 1000, 0, 0, NULL);
        assert_int_equal(bl_add_hash_batch_part(f, &h, 1, 0, 2), BL_E_UNSUPPORTED);
        assert_int_equal(bl_hash_part(f, h, 2, &p), BL_E_UNSUPPORTED);
        bl_free(f);
    }
}

/* Partitioned adds hold keys_added at UINT64_MAX, as other adds do (a loaded count may be near
 * it); they wrapped it to a few. */
static void test_parts_count_saturates(void **state)
{
    (void)state;
    bl_filter *f = make(BL_LAYOUT_BLOCKED, 1000, 10, 0, NULL);
    const uint64_t h[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    f->keys_added = UINT64_MAX - 5;
    for (unsigned part = 0; part < 2; part++)
        assert_int_equal(bl_add_hash_batch_part(f, h, BL_ARRAY_LEN(h), part, 2), BL_OK);
    assert_true(f->keys_added == UINT64_MAX);
    bl_free(f);
}

/* A mapped filter is read-only for partitioned adds too. */
static void test_parts_read_only(void **state)
{
    (void)state;
    char path[256];
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/bl_parts_%ld.blf", tmp && *tmp ? tmp : "/tmp", (long)getpid());
    bl_filter *f = make(BL_LAYOUT_BLOCKED, 1000, 10, 0, NULL);
    assert_int_equal(bl_save(f, path), BL_OK);
    bl_free(f);
    assert_int_equal(bl_map(&f, path), BL_OK);
    uint64_t h = 7;
    assert_int_equal(bl_add_hash_batch_part(f, &h, 1, 0, 1), BL_E_READ_ONLY);
    bl_free(f);
    remove(path);
}

/* The batch hashes are the single-key hashes, for every layout's scheme and seed, byte keys of
 * every length from 0 (NULL pointer included) and uint64 keys. */
static void test_hash_batch_matches_single(void **state)
{
    (void)state;
    uint64_t seed = tu_seed("hash batch");
    enum { N = 700 };
    uint8_t *arena = malloc(N * 80);
    const void **ptr = malloc(N * sizeof *ptr);
    size_t *len = malloc(N * sizeof *len);
    uint64_t *u = malloc(N * sizeof *u), *out = malloc(N * sizeof *out);
    assert_true(arena && ptr && len && u && out);
    for (size_t i = 0; i < N; i++) {
        len[i] = tu_key(&seed, arena + i * 80, 79);
        ptr[i] = len[i] == 0 && (i & 1) ? NULL : arena + i * 80;
        u[i] = tu_next(&seed);
    }
    const bl_layout layouts[] = {BL_LAYOUT_BLOCKED, BL_LAYOUT_SBBF, BL_LAYOUT_CLASSIC,
                                 BL_LAYOUT_COUNTING, BL_LAYOUT_SCALABLE};
    for (size_t l = 0; l < BL_ARRAY_LEN(layouts); l++) {
        bl_params p;
        bl_params_init(&p);
        p.layout = layouts[l];
        p.expected_keys = 1000;
        p.seed = layouts[l] == BL_LAYOUT_SBBF ? 0 : tu_next(&seed);
        bl_filter *f = NULL;
        assert_int_equal(bl_create(&f, &p), BL_OK);
        assert_int_equal(bl_hash_batch(f, ptr, len, N, out), BL_OK);
        for (size_t i = 0; i < N; i++)
            assert_int_equal(out[i], bl_hash(f, ptr[i], len[i]));
        assert_int_equal(bl_hash_u64_batch(f, u, N, out), BL_OK);
        for (size_t i = 0; i < N; i++)
            assert_int_equal(out[i], bl_hash_u64(f, u[i]));
        bl_free(f);
    }
    bl_filter *f = make(BL_LAYOUT_BLOCKED, 1000, 10, 0, NULL);
    const void *bad[1] = {NULL};
    size_t one[1] = {1};
    assert_int_equal(bl_hash_batch(f, bad, one, 1, out), BL_E_INVALID);
    assert_int_equal(bl_hash_batch(f, ptr, len, N, NULL), BL_E_INVALID);
    assert_int_equal(bl_hash_u64_batch(NULL, u, N, out), BL_E_INVALID);
    assert_int_equal(bl_hash_u64_batch(f, u, 0, NULL), BL_OK);
    bl_free(f);
    free(arena);
    free(ptr);
    free(len);
    free(u);
    free(out);
}

/* A batch hash equals the single-key hash for every key: `n` keys of lengths spread over
 * [minlen, maxlen] and shuffled (mixed lengths in every group of eight), seed 0 and another.
 * Every key starts right after, or ends right before, a page nobody may read, so a read outside
 * a key crashes the test. */
static void check_batch_lengths(bl_layout layout, size_t minlen, size_t maxlen, uint64_t *seed)
{
    enum { COPIES = 2 };
    const size_t n = COPIES * (maxlen - minlen + 1);
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t span = (maxlen + page - 1) / page * page;
    uint8_t *map = mmap(NULL, span + 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                        -1, 0);
    assert_true(map != MAP_FAILED);
    uint8_t *region = map + page;
    assert_int_equal(mprotect(map, page, PROT_NONE), 0);
    assert_int_equal(mprotect(region + span, page, PROT_NONE), 0);
    for (size_t i = 0; i < span; i++)
        region[i] = (uint8_t)tu_next(seed);
    const void **ptr = malloc(n * sizeof *ptr);
    size_t *len = malloc(n * sizeof *len);
    uint64_t *out = malloc(n * sizeof *out);
    assert_true(ptr && len && out);
    for (size_t i = 0; i < n; i++)
        len[i] = minlen + i / COPIES;
    for (size_t i = n - 1; i > 0; i--) {
        const size_t j = (size_t)(tu_next(seed) % (i + 1)), t = len[i];
        len[i] = len[j];
        len[j] = t;
    }
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = tu_next(seed);
        ptr[i] = (r & 1) ? region : region + span - len[i]; /* after or before a guard page */
        if (len[i] == 0 && (r & 2))
            ptr[i] = NULL;
    }
    const uint64_t seeds[] = {0, tu_next(seed)};
    for (size_t s = 0; s < BL_ARRAY_LEN(seeds); s++) {
        bl_params p;
        bl_params_init(&p);
        p.layout = layout;
        p.expected_keys = 1000;
        p.seed = seeds[s];
        bl_filter *f = NULL;
        assert_int_equal(bl_create(&f, &p), BL_OK);
        assert_int_equal(bl_hash_batch(f, ptr, len, n, out), BL_OK);
        for (size_t i = 0; i < n; i++)
            if (out[i] != bl_hash(f, ptr[i], len[i]))
                fail_msg("%s, %s: key %zu of %zu bytes, seed 0x%llx: batch 0x%llx, single 0x%llx",
                         bl_kernel_name(), bl_layout_name(layout), i, len[i],
                         (unsigned long long)seeds[s], (unsigned long long)out[i],
                         (unsigned long long)bl_hash(f, ptr[i], len[i]));
        bl_free(f);
    }
    free(ptr);
    free(len);
    free(out);
    munmap(map, span + 2 * page);
}

/* The sbbf layout's XXH64 (eight keys per vector in the AVX-512 kernel: stripes, 8-, 4- and
 * 1-byte tail steps masked per key), every length 0-300; and 4-31, groups with no stripe at
 * all (short IDs), which lengths spread over 0-300 give almost never ((28/301)^8). */
static void test_xxh64_batch_lengths(void **state)
{
    (void)state;
    uint64_t seed = tu_seed("xxh64 batch");
    check_batch_lengths(BL_LAYOUT_SBBF, 0, 300, &seed);
    check_batch_lengths(BL_LAYOUT_SBBF, 4, 31, &seed);
}

/* The blocked layout's XXH3 (in the AVX-512 kernel, groups of eight keys of 32-128 bytes per
 * vector, other groups through xxHash): lengths 32-128 only, where every group is a vector and
 * crosses XXH3's 64- and 96-byte steps in its lanes; 32-64, groups that skip those steps whole
 * (URL-like keys; (33/97)^8 of the groups of 32-128); 30-130, where vector groups and runs of
 * others alternate; and every length 0-300. */
static void test_xxh3_batch_lengths(void **state)
{
    (void)state;
    uint64_t seed = tu_seed("xxh3 batch");
    check_batch_lengths(BL_LAYOUT_BLOCKED, 32, 128, &seed);
    check_batch_lengths(BL_LAYOUT_BLOCKED, 32, 64, &seed);
    check_batch_lengths(BL_LAYOUT_BLOCKED, 30, 130, &seed);
    check_batch_lengths(BL_LAYOUT_BLOCKED, 0, 300, &seed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parts_build_serial_filter),
        cmocka_unit_test(test_part_writes_only_its_lines),
        cmocka_unit_test(test_hash_part_boundaries),
        cmocka_unit_test(test_parts_invalid),
        cmocka_unit_test(test_parts_count_saturates),
        cmocka_unit_test(test_parts_read_only),
        cmocka_unit_test(test_hash_batch_matches_single),
        cmocka_unit_test(test_xxh64_batch_lengths),
        cmocka_unit_test(test_xxh3_batch_lengths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
