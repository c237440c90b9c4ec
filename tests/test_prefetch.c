/* SPDX-License-Identifier: MIT */
/* bl_prefetch_hash fetches what a query or add reads: bl_hash_line names exactly the memory
 * that bl_contains_hash needs and bl_add_hash writes, for every layout and kernel. */
#include "test_util.h"

#include "internal.h"

enum { HASHES = 64 };

/* The bytes bl_hash_line's pieces cover: a line, a Parquet block, a classic 64-bit word. */
static size_t piece_bytes(const bl_filter *f)
{
    switch (f->layout) {
    case BL_LAYOUT_SBBF: return BL_SBBF_BLOCK_BYTES;
    case BL_LAYOUT_CLASSIC: return 8;
    default: return BL_LINE_BYTES;
    }
}

/* The payloads of f: its own, or each stage's of a scalable chain. */
static size_t payloads(bl_filter *f, bl_filter **out, size_t cap)
{
    if (f->layout != BL_LAYOUT_SCALABLE) {
        out[0] = f;
        return 1;
    }
    assert_true(f->nstages <= cap);
    memcpy(out, f->stages, f->nstages * sizeof *out);
    return f->nstages;
}

/* The pieces bl_hash_line gives for h: each checked to lie inside its payload and aligned to its
 * size, and as many as there should be. */
typedef struct pieces {
    const uint8_t *at[64];
    size_t span[64];
    size_t n;
} pieces;

static void pieces_of(bl_filter *f, uint64_t h, pieces *ps)
{
    bl_filter *pay[64];
    const size_t npay = payloads(f, pay, BL_ARRAY_LEN(pay));
    const uint8_t *piece;
    ps->n = 0;
    for (; (piece = bl_hash_line(f, h, ps->n)) != NULL; ps->n++) {
        assert_true(ps->n < BL_ARRAY_LEN(ps->at));
        const bl_filter *owner = f->layout == BL_LAYOUT_SCALABLE ? pay[npay - 1 - ps->n] : f;
        const size_t span = piece_bytes(owner);
        assert_true(piece >= owner->data && piece + span <= owner->data + owner->nbytes);
        assert_int_equal((uintptr_t)piece % span, 0);
        ps->at[ps->n] = piece;
        ps->span[ps->n] = span;
    }
    /* one piece per stage, per classic probe, else one */
    const size_t want = f->layout == BL_LAYOUT_SCALABLE ? npay
                        : f->layout == BL_LAYOUT_CLASSIC ? f->k
                                                         : 1;
    assert_int_equal(ps->n, want);
}

static bool in_pieces(const pieces *ps, const uint8_t *p)
{
    for (size_t i = 0; i < ps->n; i++)
        if (p >= ps->at[i] && p < ps->at[i] + ps->span[i])
            return true;
    return false;
}

/* Zero the bytes of every payload that lie (inside) or do not lie (!inside) in h's pieces. */
static void zero_bytes(bl_filter *f, uint64_t h, bool inside)
{
    pieces ps;
    pieces_of(f, h, &ps);
    bl_filter *pay[64];
    const size_t npay = payloads(f, pay, BL_ARRAY_LEN(pay));
    for (size_t s = 0; s < npay; s++)
        for (size_t b = 0; b < pay[s]->nbytes; b++)
            if (in_pieces(&ps, pay[s]->data + b) == inside)
                pay[s]->data[b] = 0;
}

static bl_filter *make(bl_layout layout, const char *kernel)
{
    if (layout == BL_LAYOUT_SCALABLE)
        return tu_create_scalable(200, 0.01, 2.0, 0.8, 7, kernel);
    return tu_create(layout, 2000, 0.01, kernel);
}

static const bl_layout layouts[] = {BL_LAYOUT_BLOCKED, BL_LAYOUT_SBBF, BL_LAYOUT_COUNTING,
                                    BL_LAYOUT_CLASSIC, BL_LAYOUT_SCALABLE};

/* An add writes inside the hash's pieces only, and does write (the hashes are new to a filter
 * this empty, bar a rare false positive). */
static void test_add_writes_its_pieces(void **state)
{
    (void)state;
    const uint64_t seed = tu_seed("prefetch adds");
    const char *kernels[8];
    const size_t nk = tu_kernels(kernels, BL_ARRAY_LEN(kernels));
    for (size_t l = 0; l < BL_ARRAY_LEN(layouts); l++) {
        if (layouts[l] == BL_LAYOUT_SCALABLE)
            continue; /* an add may open a stage; the query test covers chains */
        for (size_t q = 0; q < nk; q++) {
            bl_filter *f = make(layouts[l], kernels[q]);
            uint8_t *before = malloc(f->nbytes);
            assert_non_null(before);
            uint64_t st = seed;
            size_t wrote = 0;
            for (int j = 0; j < HASHES; j++) {
                const uint64_t h = tu_next(&st);
                memcpy(before, f->data, f->nbytes);
                bl_prefetch_hash(f, h);
                assert_memory_equal(before, f->data, f->nbytes); /* a hint changes nothing */
                assert_int_equal(bl_add_hash(f, h), BL_OK);
                pieces ps;
                pieces_of(f, h, &ps);
                bool changed = false;
                for (size_t b = 0; b < f->nbytes; b++) {
                    if (before[b] == f->data[b])
                        continue;
                    changed = true;
                    if (!in_pieces(&ps, f->data + b))
                        fail_msg("%s/%s: hash 0x%llx wrote byte %zu outside its pieces",
                                 bl_layout_name(layouts[l]), kernels[q],
                                 (unsigned long long)h, b);
                }
                wrote += changed;
            }
            assert_true(wrote >= HASHES - 2);
            free(before);
            bl_free(f);
        }
    }
}

/* A query reads its pieces only: with every other byte zeroed it still answers yes, and with
 * its pieces zeroed no. */
static void test_query_reads_its_pieces(void **state)
{
    (void)state;
    const uint64_t seed = tu_seed("prefetch queries");
    const char *kernels[8];
    const size_t nk = tu_kernels(kernels, BL_ARRAY_LEN(kernels));
    for (size_t l = 0; l < BL_ARRAY_LEN(layouts); l++) {
        for (size_t q = 0; q < nk; q++) {
            bl_filter *f = make(layouts[l], kernels[q]);
            uint64_t st = seed, hashes[HASHES];
            for (int j = 0; j < HASHES; j++) {
                hashes[j] = tu_next(&st);
                assert_int_equal(bl_add_hash(f, hashes[j]), BL_OK);
            }
            /* a chain of several stages, the hashes spread over them */
            for (int j = 0; j < 2000 && layouts[l] == BL_LAYOUT_SCALABLE; j++)
                assert_int_equal(bl_add_hash(f, tu_next(&st)), BL_OK);
            if (layouts[l] == BL_LAYOUT_SCALABLE)
                assert_true(f->nstages >= 3);
            for (int j = 0; j < HASHES; j += 4) {
                bl_filter *c = NULL;
                assert_int_equal(bl_clone(&c, f), BL_OK);
                bl_prefetch_hash(c, hashes[j]);
                zero_bytes(c, hashes[j], false);
                if (!bl_contains_hash(c, hashes[j]))
                    fail_msg("%s/%s: hash 0x%llx needs bytes outside its pieces",
                             bl_layout_name(layouts[l]), kernels[q],
                             (unsigned long long)hashes[j]);
                zero_bytes(c, hashes[j], true);
                assert_false(bl_contains_hash(c, hashes[j]));
                bl_free(c);
            }
            bl_free(f);
        }
    }
}

static void test_null_filter(void **state)
{
    (void)state;
    bl_prefetch_hash(NULL, 42); /* ignored */
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_add_writes_its_pieces),
                                       cmocka_unit_test(test_query_reads_its_pieces),
                                       cmocka_unit_test(test_null_filter)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
