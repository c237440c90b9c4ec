/* SPDX-License-Identifier: MIT */
/* bench_parts: where the time goes. Times the pieces of the blocked filter's paths (hash stage,
 * probe stage, single-key path, byte-key hashing, atomic adds) so that docs/BENCHMARKS.md can say
 * why a target is missed without hardware counters. Uses the internal kernel tables. */
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "bench_common.h"
#include "inline_single.h"
#include "internal.h"

static int reps = 5;
/* Pieces that did not answer as the filter does, or filters not created (the run then fails). */
static int wrong;

/* The rows timed on ready hashes stand for the query's own probe stage only if those hashes are
 * the filter's: every added key must then be found through them, as through the keys. */
static void check_hits(const char *what, const char *kernel, size_t got, size_t want)
{
    if (got != want) {
        wrong++;
        fprintf(stderr, "bench_parts: WRONG ANSWERS %s (%s): %zu of %zu added keys found\n", what,
                kernel, got, want);
    }
}
/* Every repetition does about this many keys (small samples are repeated): ms-long repetitions
 * keep a context switch of the shared machine from dominating one. */
static uint64_t per_rep = 1u << 21;

#define LP(s) ((s) >= per_rep ? 1 : (per_rep + (s) - 1) / (s))

static void line(const char *what, const char *kernel, uint64_t n, bb_stat s, const char *note)
{
    char c[64];
    printf("| %s | %s | 2^%d | %s | %s |\n", what, kernel, __builtin_ctzll(n), bb_fmt_ns(s, c, 64),
           note);
}

static bl_filter *make(uint64_t n, const char *kernel, unsigned flags)
{
    bl_params p;
    bl_params_init(&p);
    p.expected_keys = n;
    p.bits_per_key = 10;
    p.kernel = kernel;
    p.flags = flags;
    bl_filter *f = NULL;
    const bl_status st = bl_create(&f, &p);
    if (st != BL_OK) { /* its rows would just be missing: the run fails */
        fprintf(stderr, "bench_parts: %s filter of %llu keys: %s\n", kernel,
                (unsigned long long)n, bl_strerror(st));
        wrong++;
        return NULL;
    }
    bb_touch_filter(f);
    return f;
}

/* Add keys [from, to) through buf (cap keys), which holds the last chunk after. */
static void add_keys(bl_filter *f, uint64_t from, uint64_t to, uint64_t *buf, size_t cap)
{
    for (uint64_t i = from; i < to; i += cap) {
        const size_t c = (size_t)(to - i < cap ? to - i : cap);
        bb_keys_u64(buf, i, c);
        bl_add_u64_batch(f, buf, c);
    }
}

/* How many keys ahead a caller with one key at a time prefetches (prefetched_singles). */
#define SINGLES_AHEAD 32u

/* A caller whose keys come one at a time and cannot be batched: each key is hashed and its line
 * prefetched as it arrives (bl_hash_u64, bl_prefetch_hash), and asked or added SINGLES_AHEAD keys
 * later (bl_contains_hash, bl_add_hash), its hash kept in a ring meanwhile. Returns the hits. */
static size_t prefetched_singles(bl_filter *f, const uint64_t *k, size_t s, bool add)
{
    uint64_t ring[SINGLES_AHEAD];
    size_t hits = 0;
    for (size_t i = 0; i < s + SINGLES_AHEAD; i++) {
        const size_t slot = i % SINGLES_AHEAD;
        if (i >= SINGLES_AHEAD) {
            if (add)
                hits += bl_add_hash(f, ring[slot]) == BL_OK;
            else
                hits += bl_contains_hash(f, ring[slot]);
        }
        if (i < s) {
            ring[slot] = bl_hash_u64(f, k[i]);
            bl_prefetch_hash(f, ring[slot]);
        }
    }
    return hits;
}

/* uint64 keys, in cache and out: batch = hash stage + probe stage + pipeline (or, on filters past
 * the kernel's keys_in_window_min_bytes if it has that path, keys hashed in the probe's window,
 * the hashing then hidden behind the memory: the whole query near the probe stage alone). */
static void u64_parts(uint64_t n, const char *kernel)
{
    bl_filter *f = make(n, kernel, 0);
    if (f == NULL)
        return;
    const size_t s = (size_t)(n < (1u << 21) ? n : (1u << 21));
    uint64_t *k = bb_malloc(s * 8), *h = bb_malloc(s * 8);
    uint8_t *res = bb_malloc(s);
    add_keys(f, s, n, k, s); /* fill with n keys; the timed sample is the first s */
    add_keys(f, 0, s, k, s);
    f->kern->hash_u64_xxh3(k, s, f->seed, h);
    check_hits("bl_contains_u64_batch", kernel, bl_contains_u64_batch(f, k, s, NULL), s);
    check_hits("blocked_test on hash_u64_xxh3", kernel,
               f->kern->blocked_test(f->data, f->nblocks, f->k, h, s, s, NULL), s);
    bb_stat st;
    size_t hits = 0;
    BB_TIME_LOOPS(reps, s, LP(s), st, hits += bl_contains_u64_batch(f, k, s, res));
    line("bl_contains_u64_batch (whole batched query)", kernel, n, st, "");
    BB_TIME_LOOPS(reps, s, LP(s), st, f->kern->hash_u64_xxh3(k, s, f->seed, h));
    line("· hash stage alone (kernel hash_u64_xxh3)", kernel, n, st, "");
    BB_TIME_LOOPS(reps, s, LP(s), st, hits += f->kern->blocked_test(f->data, f->nblocks, f->k, h, s, s, res));
    line("· probe stage alone (kernel blocked_test on ready hashes)", kernel, n, st, "");
    BB_TIME_LOOPS(reps, s, LP(s), st, hits += bl_contains_hash_batch(f, h, s, res));
    line("· bl_contains_hash_batch (no hashing)", kernel, n, st, "");
    BB_TIME_LOOPS(reps, s, LP(s), st, bl_add_u64_batch(f, k, s));
    line("bl_add_u64_batch (whole batched insert)", kernel, n, st, "");
    BB_TIME_LOOPS(reps, s, LP(s), st, f->kern->blocked_add(f->data, f->nblocks, f->k, h, s, s));
    line("· add stage alone (kernel blocked_add on ready hashes)", kernel, n, st, "");
    if (!strcmp(kernel, bl_kernel_name()) || !strcmp(kernel, "scalar")) {
        BB_TIME_LOOPS(reps, s, LP(s), st, for (size_t i = 0; i < s; i++) hits += bl_contains_u64(f, k[i]));
        line("bl_contains_u64 (single key)", kernel, n, st, "one kernel call: hash + probe");
        /* A loop of independent single queries overlaps ~15 of them in the out-of-order window;
         * a caller that needs each answer before the next key (here: the answer feeds the next
         * key) pays the full memory latency per key. */
        BB_TIME_LOOPS(reps, s, LP(s), st, {
            size_t r = 0;
            for (size_t i = 0; i < s; i++)
                r = bl_contains_u64(f, k[i] + r);
            hits += r;
        });
        line("· bl_contains_u64, each key waiting for the previous answer", kernel, n, st,
             "latency");
        BB_TIME_LOOPS(reps, s, LP(s), st, for (size_t i = 0; i < s; i++) hits += bl_contains_hash(f, h[i]));
        line("· bl_contains_hash (single, no hashing)", kernel, n, st, "");
        BB_TIME_LOOPS(reps, s, LP(s), st, for (size_t i = 0; i < s; i++) hits += f->kern->blocked_contains(f->data, f->nblocks, f->k, h[i]));
        line("· kernel blocked_contains on ready hashes", kernel, n, st, "");
#ifdef BB_HAVE_INLINE_AVX512
        if ((bl_cpu_features() & BL_CPU_AVX512) && !strcmp(kernel, "avx512")) {
            /* The floor the notes quote for the single-key target: a copy of the kernel's
             * probe, so it counts only if it finds every added key as the kernel does. */
            check_hits("hash + AVX-512 probe inline", kernel, bb_inline_single_avx512(f, k, s), s);
            BB_TIME_LOOPS(reps, s, LP(s), st, hits += bb_inline_single_avx512(f, k, s));
            line("· hash + AVX-512 probe inline in the caller's loop", kernel, n, st, "no call: the floor");
        }
#endif
        BB_TIME_LOOPS(reps, s, LP(s), st, for (size_t i = 0; i < s; i++) hits += bl_blocked_test_one(f->data, f->nblocks, f->k, h[i]));
        line("· bl_blocked_test_one inlined (the spec's scalar test)", kernel, n, st, "");
        BB_TIME_LOOPS(reps, s, LP(s), st, for (size_t i = 0; i < s; i++) hits += bl_xxh3_u64(k[i], 0) & 1);
        line("· bl_xxh3_u64 alone (scalar)", kernel, n, st, "");
        check_hits("prefetched single queries", kernel, prefetched_singles(f, k, s, false), s);
        BB_TIME_LOOPS(reps, s, LP(s), st, hits += prefetched_singles(f, k, s, false));
        char what[96];
        snprintf(what, sizeof what,
                 "· bl_hash_u64 + bl_prefetch_hash, bl_contains_hash %u keys later", SINGLES_AHEAD);
        line(what, kernel, n, st, "one key at a time, prefetched");
        BB_TIME_LOOPS(reps, s, LP(s), st, {
            for (size_t i = 0; i < s; i++)
                hits += bl_add_u64(f, k[i]) == BL_OK;
        });
        line("bl_add_u64 (single key)", kernel, n, st, "");
        BB_TIME_LOOPS(reps, s, LP(s), st, hits += prefetched_singles(f, k, s, true));
        snprintf(what, sizeof what,
                 "· bl_hash_u64 + bl_prefetch_hash, bl_add_hash %u keys later", SINGLES_AHEAD);
        line(what, kernel, n, st, "one key at a time, prefetched");
    }
    bb_sink += hits;
    free(k);
    free(h);
    free(res);
    bl_free(f);
}

/* ~50-byte URL keys: hashing the bytes vs probing. */
static void url_parts(uint64_t n, const char *kernel)
{
    bl_filter *f = make(n, kernel, 0);
    if (f == NULL)
        return;
    bb_urls u;
    bb_urls_make(&u, 0, (size_t)n);
    uint64_t *h = bb_malloc(n * 8);
    uint8_t *res = bb_malloc(n);
    bl_add_batch(f, u.ptr, u.len, n);
    bb_stat st;
    size_t hits = 0;
    uint64_t x = 0;
    BB_TIME_LOOPS(reps, n, LP(n), st, hits += bl_contains_batch(f, u.ptr, u.len, n, res));
    line("URL bl_contains_batch (whole batched query)", kernel, n, st, "");
    BB_TIME_LOOPS(reps, n, LP(n), st, for (size_t i = 0; i < n; i++) h[i] = bl_hash(f, u.ptr[i], u.len[i]));
    line("· bl_hash per key", kernel, n, st, "");
    BB_TIME_LOOPS(reps, n, LP(n), st, bl_hash_batch(f, u.ptr, u.len, n, h));
    line("· bl_hash_batch (the hash stage)", kernel, n, st, "");
    BB_TIME_LOOPS(reps, n, LP(n), st, for (size_t i = 0; i < n; i++) x += XXH3_64bits(u.ptr[i], u.len[i]));
    line("· XXH3_64bits inlined, nothing else", kernel, n, st, "");
    check_hits("URL bl_contains_batch", kernel, bl_contains_batch(f, u.ptr, u.len, n, NULL), n);
    check_hits("URL bl_contains_hash_batch on bl_hash", kernel, bl_contains_hash_batch(f, h, n, NULL), n);
    BB_TIME_LOOPS(reps, n, LP(n), st, hits += bl_contains_hash_batch(f, h, n, res));
    line("· bl_contains_hash_batch (probe stage)", kernel, n, st, "");
    bb_sink += hits + x;
    free(h);
    free(res);
    bb_urls_free(&u);
    bl_free(f);
}

/* BL_FLAG_CONCURRENT adds (atomic OR) vs plain adds, one thread, pre-hashed keys. */
static void atomic_parts(uint64_t n, const char *kernel)
{
    const size_t s = (size_t)(n < (1u << 21) ? n : (1u << 21));
    uint64_t *k = bb_malloc(s * 8);
    bb_keys_u64(k, 0, s);
    for (int conc = 0; conc < 2; conc++) {
        bl_params p;
        bl_params_init(&p);
        p.expected_keys = n;
        p.fpp = 1e-4;
        p.kernel = kernel;
        p.flags = conc ? BL_FLAG_CONCURRENT : 0;
        bl_filter *f = NULL;
        const bl_status cst = bl_create(&f, &p);
        if (cst != BL_OK) {
            fprintf(stderr, "bench_parts: %s filter of %llu keys at p = 1e-4: %s\n", kernel,
                    (unsigned long long)n, bl_strerror(cst));
            wrong++;
            break;
        }
        bb_touch_filter(f);
        bb_stat st;
        BB_TIME_LOOPS(reps, s, LP(s), st, bl_add_hash_batch(f, k, s));
        line(conc ? "bl_add_hash_batch, BL_FLAG_CONCURRENT (p = 1e-4)"
                  : "bl_add_hash_batch, plain (p = 1e-4)",
             kernel, n, st,
             conc ? "a locked OR per 64-bit word that needs one" : "kernel add with prefetch");
        bl_free(f);
    }
    free(k);
}

/* ---- bl_get_info's fill count ------------------------------------------------------------- */

/* The memory limit of a pass over the payload: every word read and summed. */
static uint64_t read_words(const uint8_t *data, uint64_t nbytes)
{
    const uint64_t *w = (const uint64_t *)(const void *)data;
    uint64_t sum = 0;
    for (uint64_t i = 0; i < nbytes / 8; i++)
        sum += w[i];
    return sum;
}

/* The count bloomline made before its kernels had one, and the obvious one: built with this
 * program's flags, which on x86-64 is the baseline, where each word is a call to libgcc. */
static uint64_t builtin_popcount(const uint8_t *data, uint64_t nbytes)
{
    const uint64_t *w = (const uint64_t *)(const void *)data;
    uint64_t total = 0;
    for (uint64_t i = 0; i < nbytes / 8; i++)
        total += (uint64_t)__builtin_popcountll(w[i]);
    return total;
}

static void fill_row(const char *what, const char *kernel, uint64_t n, bb_stat s, bb_stat probe)
{
    char c[64];
    printf("| %s | %s | 2^%d | %s | %.1f | %.2f |\n", what, kernel, __builtin_ctzll(n),
           bb_fmt_ns(s, c, 64), 64 / s.med, s.med / probe.med);
}

/* bl_get_info counts the set bits of the whole payload for its estimates: with each kernel's
 * count, beside the read of every word and the __builtin_popcountll loop, the three timed in
 * turn within each repetition so that they see the same load. ns per 64-byte line. */
static void fill_parts(uint64_t n, const char *best, bool quick)
{
    bl_filter *f = make(n, best, 0);
    if (f == NULL)
        return;
    const size_t s = 1u << 16;
    uint64_t *k = bb_malloc(s * 8);
    add_keys(f, 0, n, k, s);
    free(k);
    const uint64_t lines = f->nbytes / BL_LINE_BYTES;
    /* each repetition passes over at least 8 MiB (1 MiB in a smoke run) */
    const uint64_t passes = LP(lines * (quick ? 1 : 16));
    bl_info info;
    bl_get_info(f, &info);
    const uint64_t set = (uint64_t)(info.fill_ratio * (double)f->nbits + 0.5);
    const uint64_t counted = builtin_popcount(f->data, f->nbytes);
    if (counted != set) {
        fprintf(stderr, "bench_parts: WRONG FILL: bl_get_info read %llu set bits, the loop %llu\n",
                (unsigned long long)set, (unsigned long long)counted);
        wrong++;
    }
    bb_stat probe = {0}, loop = {0};
    for (size_t i = 0; bl_kernel_at(i) != NULL; i++) {
        const struct bl_kernels *kern = NULL;
        if (!bl_kernel_supported(bl_kernel_at(i)) || bl_kernel_resolve(bl_kernel_at(i), &kern))
            continue;
#if defined(__x86_64__) || defined(__i386__)
        if (!strcmp(kern->name, "neon"))
            continue;
#endif
        bl_filter_set_kernel(f, kern);
        double vi[BB_MAX_REPS], vr[BB_MAX_REPS], vl[BB_MAX_REPS];
        uint64_t sink = 0;
        const double per = (double)(lines * passes);
        for (int r = 0; r < reps; r++) {
            uint64_t t0 = bb_timer_ns();
            for (uint64_t p = 0; p < passes; p++)
                sink += bl_get_info(f, &info) == BL_OK;
            vi[r] = (double)(bb_timer_ns() - t0) / per;
            t0 = bb_timer_ns();
            for (uint64_t p = 0; p < passes; p++)
                sink += read_words(f->data, f->nbytes);
            vr[r] = (double)(bb_timer_ns() - t0) / per;
            t0 = bb_timer_ns();
            for (uint64_t p = 0; p < passes; p++)
                sink += builtin_popcount(f->data, f->nbytes);
            vl[r] = (double)(bb_timer_ns() - t0) / per;
        }
        bb_sink += sink;
        probe = bb_stat_of(vr, reps);
        loop = bb_stat_of(vl, reps);
        fill_row("bl_get_info (kernel count_bits)", kern->name, n, bb_stat_of(vi, reps), probe);
    }
    /* the last kernel's pairs: each kernel's row was timed with its own, alike */
    fill_row("read of every word (the memory limit)", "-", n, probe, probe);
    fill_row("__builtin_popcountll loop (this build's flags)", "-", n, loop, probe);
    bl_free(f);
}

static void usage(FILE *out)
{
    fprintf(out, "usage: bench_parts [--quick]\n"
                 "Times the pieces of the blocked filter's paths, filters of 2^16 to 2^29 keys\n"
                 "(--quick: 2^12 to 2^14, a smoke run).\n");
}

int main(int argc, char **argv)
{
    /* Any other argument once ran the full benchmark (a 640 MB filter, minutes): --help too. */
    bool quick = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--quick"))
            return bb_arg_error("bench_parts", "unknown option '%s'", argv[i]);
        quick = true;
    }
    if (quick) {
        reps = 3;
        per_rep = 1u << 14;
    }
    bb_pin_thread(-1);
    bb_print_machine(stdout);
    printf("# where the time goes: median (min) ns per key of %d repetitions, %s\n\n", reps,
           bb_clock_name());
    printf("| piece | kernel | keys | ns/key | note |\n|---|---|---:|---:|---|\n");
    const char *best = bl_kernel_name() ? bl_kernel_name() : "scalar";
    const uint64_t small = quick ? (1u << 12) : (1u << 16), big = quick ? (1u << 14) : (1u << 27);
    for (size_t i = 0; bl_kernel_at(i) != NULL; i++) {
        const char *kn = bl_kernel_at(i);
#if defined(__x86_64__) || defined(__i386__)
        if (!strcmp(kn, "neon"))
            continue;
#endif
        if (!bl_kernel_supported(kn))
            continue;
        u64_parts(small, kn);
        if (!strcmp(kn, best))
            u64_parts(big, kn);
        /* 640 MB: larger than this machine's 480 MiB last-level cache */
        if (!strcmp(kn, best) && !quick)
            u64_parts(UINT64_C(1) << 29, kn);
    }
    url_parts(quick ? (1u << 12) : (1u << 20), best);
    atomic_parts(quick ? (1u << 14) : (1u << 27), best);
    printf("\nThe fill count behind bl_get_info's estimates: every word of the payload, "
           "ns per 64-byte line, median (min) of %d repetitions.\n\n", reps);
    printf("| count | kernel | keys | ns/line | GB/s | x read |\n|---|---|---:|---:|---:|---:|\n");
    fill_parts(small, best, quick);
    fill_parts(quick ? (1u << 14) : (UINT64_C(1) << 29), best, quick);
    return wrong ? 1 : 0;
}
