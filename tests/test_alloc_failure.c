/* SPDX-License-Identifier: MIT */
/* Every allocation the library makes, failed in turn. The library's calls to malloc, calloc,
 * realloc, aligned_alloc, free, mmap and munmap are routed here by the linker (--wrap, set in
 * alloc_failure.cmake), which counts them and fails the N-th with ENOMEM. A scenario that touches
 * every allocating call runs once per N until no allocation is left to fail. Each call that fails
 * must say BL_E_NOMEM, set its output to NULL and leave the filters it was given as they were;
 * asked again (the failure spent), it must succeed. At the end every key is found and every block
 * and mapping is given back, in any build (ASan and valgrind add their own leak checks). The
 * header's promise that only some calls allocate is checked too: the others make no allocation. */
#include "test_util.h"

#include <sys/mman.h>

/* ---- The wrapped allocator ------------------------------------------------------------------ */

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *old, size_t size);
void *__real_aligned_alloc(size_t align, size_t size);
void __real_free(void *p);
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __real_munmap(void *addr, size_t len);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *old, size_t size);
void *__wrap_aligned_alloc(size_t align, size_t size);
void __wrap_free(void *p);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __wrap_munmap(void *addr, size_t len);

static struct {
    unsigned long calls; /* allocations asked for since alloc_reset */
    unsigned long fail_at; /* the one that fails (1-based); 0: none */
    unsigned long injected; /* failures given */
    long blocks, maps; /* heap blocks and mappings not yet given back */
} g;

static void alloc_reset(unsigned long fail_at)
{
    g.calls = 0;
    g.fail_at = fail_at;
    g.injected = 0;
}

static bool fail_now(void)
{
    if (++g.calls != g.fail_at)
        return false;
    g.injected++;
    errno = ENOMEM;
    return true;
}

void *__wrap_malloc(size_t size)
{
    void *p = fail_now() ? NULL : __real_malloc(size);
    g.blocks += p != NULL;
    return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
    void *p = fail_now() ? NULL : __real_calloc(n, size);
    g.blocks += p != NULL;
    return p;
}

void *__wrap_aligned_alloc(size_t align, size_t size)
{
    void *p = fail_now() ? NULL : __real_aligned_alloc(align, size);
    g.blocks += p != NULL;
    return p;
}

/* The library never shrinks to 0 bytes, so a block stays one block. */
void *__wrap_realloc(void *old, size_t size)
{
    if (fail_now())
        return NULL; /* old stays allocated, as a failed realloc leaves it */
    void *p = __real_realloc(old, size);
    g.blocks += old == NULL && p != NULL;
    return p;
}

void __wrap_free(void *p)
{
    g.blocks -= p != NULL;
    __real_free(p);
}

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    void *p = fail_now() ? MAP_FAILED : __real_mmap(addr, len, prot, flags, fd, off);
    g.maps += p != MAP_FAILED;
    return p;
}

int __wrap_munmap(void *addr, size_t len)
{
    const int r = __real_munmap(addr, len);
    g.maps -= r == 0;
    return r;
}

/* ---- Steps ---------------------------------------------------------------------------------- */

/* A call that made no allocation must not fail for want of one; one that failed did so at the
 * allocation failed in it, and says so. */
static void expect_nomem(bl_status st, unsigned long injected_before)
{
    assert_int_equal(g.injected, injected_before + 1);
    assert_int_equal(st, BL_E_NOMEM);
}

/* A call that makes a filter: on failure it sets *out to NULL, and a second call succeeds. */
typedef bl_status (*make_fn)(bl_filter **out, const void *ctx);

static bl_filter *make(make_fn fn, const void *ctx)
{
    const unsigned long before = g.injected;
    bl_filter *f = (bl_filter *)(void *)&g; /* not NULL: the call must set it */
    bl_status st = fn(&f, ctx);
    if (st != BL_OK) {
        expect_nomem(st, before);
        assert_null(f);
        st = fn(&f, ctx);
    }
    assert_int_equal(st, BL_OK);
    assert_non_null(f);
    return f;
}

/* ---- The filters and their keys ------------------------------------------------------------- */

#define NKEYS 3000
#define SMALL_KEYS 150 /* the smaller chain of the union: 2 stages */

static uint64_t key_at(uint64_t i)
{
    return i * UINT64_C(0x9E3779B97F4A7C15) + 12345;
}

static uint64_t g_keys[NKEYS];
static char g_dir[256];
static char g_path[512];

/* Queries and descriptions allocate nothing. */
static void all_present(const bl_filter *f, size_t n)
{
    const unsigned long calls = g.calls;
    uint8_t res[NKEYS];
    assert_int_equal(bl_contains_u64_batch(f, g_keys, n, res), n);
    assert_true(n == 0 || bl_contains_u64(f, g_keys[n - 1]));
    assert_int_equal(g.calls, calls);
}

static size_t stage_count(const bl_filter *f)
{
    const unsigned long calls = g.calls;
    bl_info info;
    assert_int_equal(bl_get_info(f, &info), BL_OK);
    assert_int_equal(g.calls, calls);
    return info.stages;
}

static bl_status create_from(bl_filter **out, const void *params)
{
    return bl_create(out, params);
}

static bl_filter *create(bl_layout layout, uint64_t n, double fpp)
{
    bl_params p;
    bl_params_init(&p);
    p.layout = layout;
    p.expected_keys = n;
    p.fpp = fpp;
    return make(create_from, &p);
}

/* The keys added, checking that a non-scalable filter's adds allocate nothing. */
static void fill(bl_filter *f, size_t n)
{
    const unsigned long calls = g.calls;
    assert_int_equal(bl_add_u64_batch(f, g_keys, n), BL_OK);
    assert_int_equal(g.calls, calls);
}

/* A scalable chain's adds: a batch stopped by a stage it could not get has added the keys
 * before that one, lost none it had, and adding it again finishes it (bloomline.h). */
static void fill_scalable(bl_filter *f, size_t from, size_t to, size_t batch)
{
    for (size_t i = from; i < to; i += batch) {
        const size_t n = to - i < batch ? to - i : batch;
        const unsigned long before = g.injected;
        const size_t stages = stage_count(f);
        bl_status st = n == 1 ? bl_add_u64(f, g_keys[i]) : bl_add_u64_batch(f, g_keys + i, n);
        if (st != BL_OK) {
            expect_nomem(st, before);
            assert_int_equal(stage_count(f), stages);
            all_present(f, i);
            st = n == 1 ? bl_add_u64(f, g_keys[i]) : bl_add_u64_batch(f, g_keys + i, n);
        }
        assert_int_equal(st, BL_OK);
    }
    all_present(f, to);
}

/* ---- Copies: clone, serialize, save, export ------------------------------------------------- */

static bl_status clone_of(bl_filter **out, const void *f)
{
    return bl_clone(out, f);
}

typedef struct bytes {
    const uint8_t *p;
    size_t len;
    bl_foreign_format format;
} bytes;

static bl_status deserialize_from(bl_filter **out, const void *ctx)
{
    const bytes *b = ctx;
    return bl_deserialize(out, b->p, b->len);
}

static bl_status import_from(bl_filter **out, const void *ctx)
{
    const bytes *b = ctx;
    return bl_import(out, b->format, b->p, b->len);
}

static bl_status load_from(bl_filter **out, const void *path)
{
    return bl_load(out, path);
}

static bl_status map_from(bl_filter **out, const void *path)
{
    return bl_map(out, path);
}

static bl_status freeze_from(bl_filter **out, const void *counting)
{
    return bl_freeze(out, counting);
}

/* A clone and a deserialized copy answer for the n keys. Serializing allocates nothing. */
static void copies(const bl_filter *f, size_t n)
{
    bl_filter *c = make(clone_of, f);
    all_present(c, n);
    bl_free(c);
    size_t len;
    assert_int_equal(bl_serialized_size(f, &len), BL_OK);
    uint8_t *buf = __real_malloc(len); /* the test's own, outside the count */
    assert_non_null(buf);
    const unsigned long calls = g.calls;
    assert_int_equal(bl_serialize(f, buf, len, NULL), BL_OK);
    assert_int_equal(g.calls, calls);
    const bytes b = {buf, len, 0};
    bl_filter *d = make(deserialize_from, &b);
    all_present(d, n);
    bl_free(d);
    __real_free(buf);
}

/* Room for the files saved here (the largest, the 6-stage chain, takes 62 KiB), in buffers of the
 * test's own: nothing allocated while allocations are counted. */
#define FILE_CAP ((size_t)1 << 20)
static uint8_t g_old[FILE_CAP], g_now[FILE_CAP];

/* Saved over g_path (bl_save, or bl_export_save with a format): on failure the old file is
 * untouched and no temporary is left. */
static void save(const bl_filter *f, bl_foreign_format format)
{
    size_t old_len = 0, len = 0;
    const bool had = tu_read_file(g_path, g_old, FILE_CAP, &old_len);
    const unsigned long before = g.injected;
    bl_status st = tu_save(f, format, g_path);
    if (st != BL_OK) {
        expect_nomem(st, before);
        assert_true(tu_read_file(g_path, g_now, FILE_CAP, &len) == had);
        if (had) {
            assert_int_equal(len, old_len);
            assert_memory_equal(g_now, g_old, len);
        }
        assert_int_equal(tu_count_files(g_dir, ".tmp"), 0);
        st = tu_save(f, format, g_path);
    }
    assert_int_equal(st, BL_OK);
}

/* Saved, then loaded and mapped back. */
static void through_file(const bl_filter *f, size_t n)
{
    save(f, 0);
    bl_filter *l = make(load_from, g_path);
    all_present(l, n);
    bl_free(l);
    bl_filter *m = make(map_from, g_path);
    all_present(m, n);
    bl_free(m);
}

/* Exported to a file and imported back. */
static void through_export(const bl_filter *f, bl_foreign_format format, size_t n)
{
    save(f, format);
    size_t len = 0;
    assert_true(tu_read_file(g_path, g_now, FILE_CAP, &len));
    const bytes b = {g_now, len, format};
    bl_filter *i = make(import_from, &b);
    all_present(i, n);
    bl_free(i);
}

/* ---- The scenario --------------------------------------------------------------------------- */

static void scenario(void)
{
    bl_filter *blocked = create(BL_LAYOUT_BLOCKED, NKEYS, 0.01);
    bl_filter *big = create(BL_LAYOUT_BLOCKED, 2000000, 0.01); /* > 2 MiB: mmap */
    bl_filter *sbbf = create(BL_LAYOUT_SBBF, NKEYS, 0.01);
    bl_filter *classic = create(BL_LAYOUT_CLASSIC, NKEYS, 0.01);
    bl_filter *counting = create(BL_LAYOUT_COUNTING, NKEYS, 0.01);
    bl_filter *chain = create(BL_LAYOUT_SCALABLE, 64, 0.01);
    bl_filter *small_chain = create(BL_LAYOUT_SCALABLE, 64, 0.01);
    fill(blocked, NKEYS);
    fill(big, NKEYS);
    fill(sbbf, NKEYS);
    fill(classic, NKEYS);
    fill(counting, NKEYS);
    /* Single adds, then batches: the chain grows to 6 stages, its array reallocated past 4. */
    fill_scalable(chain, 0, 200, 1);
    fill_scalable(chain, 200, NKEYS, 500);
    fill_scalable(small_chain, 0, SMALL_KEYS, 7);
    assert_true(stage_count(chain) > 4);

    /* A union that must copy the stages only the source has: on failure, the destination is the
     * chain it was. */
    const size_t stages = stage_count(small_chain);
    assert_true(stages >= 2 && stages < stage_count(chain));
    const unsigned long before = g.injected;
    bl_status st = bl_union(small_chain, chain);
    if (st != BL_OK) {
        expect_nomem(st, before);
        assert_int_equal(stage_count(small_chain), stages);
        all_present(small_chain, SMALL_KEYS);
        st = bl_union(small_chain, chain);
    }
    assert_int_equal(st, BL_OK);
    all_present(small_chain, NKEYS);

    bl_filter *frozen = make(freeze_from, counting);
    all_present(frozen, NKEYS);

    bl_filter *all[] = {blocked, big, sbbf, classic, counting, chain, small_chain, frozen};
    for (size_t i = 0; i < BL_ARRAY_LEN(all); i++)
        copies(all[i], NKEYS);
    through_file(blocked, NKEYS);
    through_file(chain, NKEYS);
    through_export(sbbf, BL_FORMAT_PARQUET, NKEYS);
    through_export(classic, BL_FORMAT_GUAVA, NKEYS);

    for (size_t i = 0; i < BL_ARRAY_LEN(all); i++)
        bl_free(all[i]);
}

/* ---- Tests ---------------------------------------------------------------------------------- */

static int setup(void **state)
{
    (void)state;
    for (size_t i = 0; i < NKEYS; i++)
        g_keys[i] = key_at(i);
    if (!tu_temp_dir(g_dir, sizeof g_dir, "bl_alloc"))
        return -1;
    snprintf(g_path, sizeof g_path, "%s/f.blf", g_dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return tu_remove_tree(g_dir);
}

static void test_every_allocation_fails_in_turn(void **state)
{
    (void)state;
    /* The scenario once with nothing failed: how many allocations it makes. */
    alloc_reset(0);
    const long blocks = g.blocks, maps = g.maps;
    scenario();
    const unsigned long total = g.calls;
    assert_int_equal(g.blocks, blocks);
    assert_int_equal(g.maps, maps);
    printf("# the scenario makes %lu allocations; each fails in one run\n", total);
    assert_true(total > 50);
    for (unsigned long n = 1; n <= total; n++) {
        remove(g_path);
        alloc_reset(n);
        scenario();
        if (g.injected != 1)
            fail_msg("allocation %lu of %lu was never asked for (%lu made)", n, total, g.calls);
        assert_int_equal(g.blocks, blocks);
        assert_int_equal(g.maps, maps);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_allocation_fails_in_turn),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
