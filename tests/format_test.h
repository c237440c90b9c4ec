/* SPDX-License-Identifier: MIT */
/* Helpers shared by the format tests and the golden-file generator: builders, golden specs. */
#ifndef BL_FORMAT_TEST_H
#define BL_FORMAT_TEST_H

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- Keys: a fixed, portable stream mixing byte-string and uint64 keys ---------------------- */

/* Key i of a stream: even i are byte strings of varying length (0 included), odd i are uint64
 * keys. Returns the length (8 for u64 keys, whose value goes to *u). */
static inline size_t ft_key(uint64_t stream, uint64_t i, char *buf, size_t cap, uint64_t *u,
                            bool *is_u64)
{
    *is_u64 = (i & 1) != 0;
    *u = (i + stream * 0x10000) * 0x9E3779B97F4A7C15ULL;
    if (*is_u64)
        return 8;
    if (i % 50 == 0)
        return 0; /* the empty key */
    if (i % 50 == 2) {
        buf[0] = (char)i;
        return 1;
    }
    int n = snprintf(buf, cap, "key-%llu-%llu-%.*s", (unsigned long long)stream,
                     (unsigned long long)i, (int)(i % 23), "abcdefghijklmnopqrstuvw");
    return (size_t)n;
}

static inline bl_status ft_add_key(bl_filter *f, uint64_t stream, uint64_t i)
{
    char buf[96];
    uint64_t u;
    bool is_u64;
    size_t len = ft_key(stream, i, buf, sizeof buf, &u, &is_u64);
    return is_u64 ? bl_add_u64(f, u) : bl_add(f, buf, len);
}

static inline bool ft_has_key(const bl_filter *f, uint64_t stream, uint64_t i)
{
    char buf[96];
    uint64_t u;
    bool is_u64;
    size_t len = ft_key(stream, i, buf, sizeof buf, &u, &is_u64);
    return is_u64 ? bl_contains_u64(f, u) : bl_contains(f, buf, len);
}

static inline bl_status ft_remove_key(bl_filter *f, uint64_t stream, uint64_t i)
{
    char buf[96];
    uint64_t u;
    bool is_u64;
    size_t len = ft_key(stream, i, buf, sizeof buf, &u, &is_u64);
    return is_u64 ? bl_remove_u64(f, u) : bl_remove(f, buf, len);
}

/* ---- Scalable chains built by hand ------------------------------------------------------------ */

/* A scalable chain with the given stage geometries (blocked stages, all with the chain's seed),
 * assembled directly so that its bytes do not depend on the chain's growth policy. */
static inline bl_status ft_manual_scalable(bl_filter **out, size_t nstages, const uint64_t *lines,
                                           const unsigned *ks, uint64_t seed, double growth,
                                           double tightening)
{
    const struct bl_kernels *kern;
    bl_status st = bl_kernel_resolve(NULL, &kern);
    if (st != BL_OK)
        return st;
    bl_filter *f = calloc(1, sizeof *f);
    if (f == NULL)
        return BL_E_NOMEM;
    f->layout = BL_LAYOUT_SCALABLE;
    f->hash = BL_HASH_XXH3;
    f->k = ks[0];
    bl_filter_set_seed(f, seed);
    bl_filter_set_kernel(f, kern);
    f->keys_known = true;
    f->growth = growth;
    f->tightening = tightening;
    f->design_keys = 100; /* a chain needs n and p to grow */
    f->design_fpp = 0.01;
    f->storage = BL_STORAGE_HEAP;
    f->stages = calloc(nstages, sizeof *f->stages);
    f->stages_cap = nstages;
    if (f->stages == NULL) {
        free(f);
        return BL_E_NOMEM;
    }
    for (size_t i = 0; i < nstages; i++) {
        st = bl_filter_new(&f->stages[i], BL_LAYOUT_BLOCKED, lines[i], ks[i], seed, 0, kern);
        if (st != BL_OK)
            break;
        f->nstages = i + 1;
        f->stages[i]->design_keys = 100u << i;
        f->stages[i]->design_fpp = 0.01 / (double)(1u << i);
    }
    *out = f;
    return st;
}

/* Free any filter, freeing a scalable chain's stages here so that the tests do not depend on
 * how the chain's own free treats them. */
static inline void ft_free(bl_filter *f)
{
    if (f != NULL && f->layout == BL_LAYOUT_SCALABLE) {
        for (size_t i = 0; i < f->nstages; i++)
            bl_free(f->stages[i]);
        free(f->stages);
        f->stages = NULL;
        f->nstages = 0;
        f->stages_cap = 0;
    }
    bl_free(f);
}

/* Add key i of a stream to a manual chain: keys go to stage i * nstages / total. */
static inline void ft_scalable_add(bl_filter *f, uint64_t stream, uint64_t i, uint64_t total)
{
    bl_filter *s = f->stages[(size_t)(i * f->nstages / total)];
    (void)ft_add_key(s, stream, i);
    f->keys_added++;
}

/* ---- Golden files ------------------------------------------------------------------------------ */

typedef struct ft_golden {
    const char *name; /* tests/data/golden-<name>.blf */
    bl_layout layout;
    uint64_t bits;
    unsigned k;
    uint64_t seed;
    uint64_t nkeys;
    uint64_t design_keys;
    double design_fpp;
} ft_golden;

/* Fixed forever: the files in tests/data were written from exactly these. */
static const ft_golden ft_goldens[] = {
    {"blocked", BL_LAYOUT_BLOCKED, 512 * 48, 7, 0x0123456789abcdefULL, 2000, 2000, 0.005},
    {"sbbf", BL_LAYOUT_SBBF, 256 * 64, 8, 0, 1500, 1500, 0.01},
    {"classic", BL_LAYOUT_CLASSIC, 64 * 256, 6, 0, 1200, 1200, 0.02},
    {"counting", BL_LAYOUT_COUNTING, 512 * 32, 5, 0xfeedfacecafebeefULL, 400, 400, 0.03},
    {"scalable", BL_LAYOUT_SCALABLE, 512 * (16 + 32), 7, 0x5ca1ab1eULL, 750, 250, 0.01},
};
#define FT_GOLDEN_STREAM 7u
/* Counting goldens also remove every 5th key (so the file holds decremented counters). */
static inline bool ft_golden_removed(const ft_golden *g, uint64_t i)
{
    return g->layout == BL_LAYOUT_COUNTING && i % 5 == 0;
}

static inline bl_status ft_golden_build(const ft_golden *g, bl_filter **out)
{
    bl_filter *f = NULL;
    bl_status st;
    if (g->layout == BL_LAYOUT_SCALABLE) {
        static const uint64_t lines[2] = {16, 32};
        static const unsigned ks[2] = {7, 8};
        st = ft_manual_scalable(&f, 2, lines, ks, g->seed, 2.0, 0.5);
        if (st != BL_OK) {
            ft_free(f);
            return st;
        }
        for (uint64_t i = 0; i < g->nkeys; i++)
            ft_scalable_add(f, FT_GOLDEN_STREAM, i, g->nkeys);
    } else {
        st = bl_create_geometry(&f, g->layout, g->bits, g->k, g->seed, 0, NULL);
        if (st != BL_OK)
            return st;
        for (uint64_t i = 0; i < g->nkeys && st == BL_OK; i++)
            st = ft_add_key(f, FT_GOLDEN_STREAM, i);
        for (uint64_t i = 0; i < g->nkeys && st == BL_OK; i++)
            if (ft_golden_removed(g, i))
                st = ft_remove_key(f, FT_GOLDEN_STREAM, i);
        if (st != BL_OK) {
            bl_free(f);
            return st;
        }
    }
    f->design_keys = g->design_keys;
    f->design_fpp = g->design_fpp;
    *out = f;
    return BL_OK;
}

/* ---- Assertions (cmocka tests only) ------------------------------------------------------------ */
#ifdef assert_int_equal
#include "test_util.h"

/* A filter of `layout` holding keys [0, n) of `stream`, sized for n at 1%. Chains come from
 * bl_create, or assembled by hand (3 tiny stages, for n up to ~1000) with manual_chain. */
static inline bl_filter *ft_make_filled(bl_layout layout, uint64_t stream, uint64_t n,
                                        bool manual_chain)
{
    bl_filter *f = NULL;
    if (layout == BL_LAYOUT_SCALABLE && manual_chain) {
        static const uint64_t lines[3] = {4, 8, 16};
        static const unsigned ks[3] = {6, 7, 8};
        assert_int_equal(ft_manual_scalable(&f, 3, lines, ks, stream * 0x9E3779B97F4A7C15ULL,
                                            2.0, 0.5),
                         BL_OK);
        for (uint64_t i = 0; i < n; i++)
            ft_scalable_add(f, stream, i, n);
        return f;
    }
    bl_params p;
    bl_params_init(&p);
    p.layout = layout;
    p.expected_keys = layout == BL_LAYOUT_SCALABLE ? n / 8 + 1 : n + 1; /* chains must grow */
    p.fpp = 0.01;
    p.seed = layout == BL_LAYOUT_SBBF ? 0 : stream * 0x9E3779B97F4A7C15ULL;
    assert_int_equal(bl_create(&f, &p), BL_OK);
    for (uint64_t i = 0; i < n; i++)
        assert_int_equal(ft_add_key(f, stream, i), BL_OK);
    return f;
}

/* A whole file in a buffer of its size (tu_read_file), or NULL if there is none. */
static inline uint8_t *ft_read_file(const char *path, size_t *len)
{
    *len = 0;
    struct stat st;
    if (stat(path, &st) != 0)
        return NULL;
    uint8_t *buf = malloc(st.st_size > 0 ? (size_t)st.st_size : 1);
    assert_non_null(buf);
    assert_true(tu_read_file(path, buf, (size_t)st.st_size, len));
    return buf;
}

/* Call each(path, bytes, len) on every file of dir but dot files (.gitkeep), each in a buffer of
 * exactly its size so ASan sees any read past the end; returns how many (0 if dir is missing). */
static inline size_t ft_replay_dir(const char *dir,
                                   void (*each)(const char *path, const uint8_t *buf, size_t len))
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len = 0;
        uint8_t *buf = ft_read_file(path, &len);
        if (buf == NULL)
            continue;
        printf("# replaying %s\n", path);
        fflush(stdout);
        each(path, buf, len);
        free(buf);
        n++;
    }
    closedir(d);
    return n;
}

/* Same identity, counts, design parameters and payload bytes, stage by stage. */
static inline void ft_assert_same(const bl_filter *a, const bl_filter *b)
{
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(a->layout, b->layout);
    assert_int_equal(a->hash, b->hash);
    assert_int_equal(a->k, b->k);
    assert_true(a->seed == b->seed);
    assert_true(a->keys_added == b->keys_added);
    assert_int_equal(a->keys_known, b->keys_known);
    assert_true(a->design_keys == b->design_keys);
    assert_memory_equal(&a->design_fpp, &b->design_fpp, sizeof(double));
    if (a->layout == BL_LAYOUT_SCALABLE) {
        assert_int_equal(a->nstages, b->nstages);
        assert_memory_equal(&a->growth, &b->growth, sizeof(double));
        assert_memory_equal(&a->tightening, &b->tightening, sizeof(double));
        for (size_t i = 0; i < a->nstages; i++)
            ft_assert_same(a->stages[i], b->stages[i]);
        return;
    }
    assert_true(a->nblocks == b->nblocks);
    assert_true(a->nbits == b->nbits);
    assert_true(a->nbytes == b->nbytes);
    assert_memory_equal(a->data, b->data, a->nbytes);
}

/* Both filters answer `count` keys of a stream that was never added alike, and not all yes (a
 * filter of all ones would agree with anything). */
static inline void ft_assert_same_negatives(const bl_filter *a, const bl_filter *b,
                                            uint64_t stream, uint64_t count)
{
    uint64_t hits = 0;
    for (uint64_t i = 0; i < count; i++) {
        bool x = ft_has_key(a, stream, i);
        assert_int_equal(x, ft_has_key(b, stream, i));
        hits += x;
    }
    assert_true(hits < count);
}

/* Both filters find keys [0, n) of a stream and answer 4n + 1000 other keys alike. */
static inline void ft_assert_same_answers(const bl_filter *a, const bl_filter *b, uint64_t stream,
                                          uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        assert_true(ft_has_key(a, stream, i));
        assert_true(ft_has_key(b, stream, i));
    }
    ft_assert_same_negatives(a, b, stream + 1000, 4 * n + 1000);
}

#endif

#endif
