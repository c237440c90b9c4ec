/* SPDX-License-Identifier: MIT */
/* bench_scale: build a blocked filter from N synthetic distinct URLs generated on the fly, then
 * probe N others (half present) with all cores; throughput, peak memory and measured rate.
 * The build is partitioned (bl_add_hash_batch_part: each thread adds the keys of its own range
 * of lines with plain stores); --concurrent builds with BL_FLAG_CONCURRENT atomic adds instead,
 * --plain with one thread, for comparison. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench_common.h"
#include "bloomline.h"

#define CHUNK 16384u

enum { MAX_THREADS = 256 };

typedef enum build_mode { BUILD_PARTS, BUILD_CONCURRENT, BUILD_PLAIN } build_mode;

typedef struct shared {
    bl_filter *f;
    uint64_t n;
    uint64_t total; /* work items (keys) of the current phase */
    uint64_t next;  /* next chunk start, taken atomically: threads share a busy machine fairly */
    uint64_t present_hits, present, absent_hits, absent;
    bool probe;
    /* Partitioned build: in round r thread t hashes chunk r * threads + t into hashes[r & 1][t],
     * then, after the barrier, adds its part of every thread's hashes of that round. Two sets
     * of buffers let one barrier per round suffice: a thread can only be hashing round r + 1
     * once everyone has passed round r's barrier, i.e. finished adding round r - 1. */
    int threads;
    pthread_barrier_t round;
    uint64_t *hashes[2][MAX_THREADS];
    size_t count[2][MAX_THREADS];
    int failed; /* a bl_* call failed somewhere (atomic) */
} shared;

typedef struct worker {
    shared *sh;
    int id;
    int core; /* bound to this core (bb_pin_core), -1: not pinned */
    char *arena;
    const void **ptr;
    size_t *len;
} worker;

static inline uint64_t mulhi(uint64_t a, uint64_t b)
{
    __extension__ typedef unsigned __int128 u128;
    return (uint64_t)(((u128)a * b) >> 64);
}

/* Keys in the chunk starting at lo: CHUNK, fewer at the end, 0 past it. */
static size_t chunk_len(const shared *sh, uint64_t lo)
{
    return lo >= sh->total ? 0 : (size_t)(sh->total - lo < CHUNK ? sh->total - lo : CHUNK);
}

/* Generate keys [lo, lo + c) of the current phase into the worker's arena. */
static void make_keys(worker *w, uint64_t lo, size_t c)
{
    const shared *sh = w->sh;
    size_t off = 0;
    for (size_t i = 0; i < c; i++) {
        const uint64_t j = lo + i;
        /* Build: keys 0..n-1. Probe: even j a random present key, odd j an absent one. */
        uint64_t idx = !sh->probe ? j : (j & 1) ? BB_ABSENT + j : mulhi(bb_mix(j), sh->n);
        w->len[i] = bb_url(idx, w->arena + off);
        w->ptr[i] = w->arena + off;
        off += w->len[i];
    }
}

static void *build_parts(void *arg)
{
    worker *w = arg;
    shared *sh = w->sh;
    if (w->core >= 0)
        bb_pin_core(w->core);
    const uint64_t T = (uint64_t)sh->threads;
    for (uint64_t r = 0; r * T * CHUNK < sh->total; r++) {
        const int set = (int)(r & 1);
        const uint64_t lo = (r * T + (uint64_t)w->id) * CHUNK;
        const size_t c = chunk_len(sh, lo);
        make_keys(w, lo, c);
        if (bl_hash_batch(sh->f, w->ptr, w->len, c, sh->hashes[set][w->id]) != BL_OK)
            __atomic_store_n(&sh->failed, 1, __ATOMIC_RELAXED);
        sh->count[set][w->id] = c;
        pthread_barrier_wait(&sh->round);
        for (int u = 0; u < sh->threads; u++)
            if (bl_add_hash_batch_part(sh->f, sh->hashes[set][u], sh->count[set][u],
                                       (unsigned)w->id, (unsigned)T) != BL_OK)
                __atomic_store_n(&sh->failed, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void *run(void *arg)
{
    worker *w = arg;
    shared *sh = w->sh;
    if (w->core >= 0)
        bb_pin_core(w->core);
    uint8_t *res = bb_malloc(CHUNK);
    uint64_t ph = 0, pc = 0, ah = 0, ac = 0;
    for (;;) {
        uint64_t lo = __atomic_fetch_add(&sh->next, CHUNK, __ATOMIC_RELAXED);
        const size_t c = chunk_len(sh, lo);
        if (c == 0)
            break;
        make_keys(w, lo, c);
        if (!sh->probe) {
            if (bl_add_batch(sh->f, w->ptr, w->len, c) != BL_OK)
                __atomic_store_n(&sh->failed, 1, __ATOMIC_RELAXED);
            continue;
        }
        bl_contains_batch(sh->f, w->ptr, w->len, c, res);
        for (size_t i = 0; i < c; i++) {
            if ((lo + i) & 1) {
                ah += res[i];
                ac++;
            } else {
                ph += res[i];
                pc++;
            }
        }
    }
    __atomic_fetch_add(&sh->present_hits, ph, __ATOMIC_RELAXED);
    __atomic_fetch_add(&sh->present, pc, __ATOMIC_RELAXED);
    __atomic_fetch_add(&sh->absent_hits, ah, __ATOMIC_RELAXED);
    __atomic_fetch_add(&sh->absent, ac, __ATOMIC_RELAXED);
    free(res);
    return NULL;
}

/* CPU seconds used by the whole process so far: with wall time it shows how much of the cores
 * the run really had on a shared machine. */
static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

static double phase(shared *sh, worker *ws, int threads, bool probe, bool parts)
{
    sh->probe = probe;
    sh->next = 0;
    sh->total = sh->n;
    sh->threads = threads;
    pthread_t tid[MAX_THREADS];
    uint64_t t0 = bb_now_ns();
    for (int t = 0; t < threads; t++) {
        if (pthread_create(&tid[t], NULL, parts ? build_parts : run, &ws[t]) != 0) {
            /* joining threads never started was undefined; the others wait at the barrier */
            fprintf(stderr, "bench_scale: cannot start thread %d of %d\n", t + 1, threads);
            exit(1);
        }
    }
    for (int t = 0; t < threads; t++)
        pthread_join(tid[t], NULL);
    return (double)(bb_now_ns() - t0) / 1e9;
}

static const char *build_mode_name(build_mode m)
{
    switch (m) {
    case BUILD_PARTS: return "partitioned plain";
    case BUILD_CONCURRENT: return "BL_FLAG_CONCURRENT";
    case BUILD_PLAIN: return "plain single-thread";
    }
    return "?";
}

static void usage(FILE *out)
{
    fprintf(out, "usage: bench_scale [--keys 1e9] [--fpp 1e-4] [--threads N] [--no-pin]\n"
                 "                   [--concurrent | --plain] [--csv FILE]\n"
                 "Builds a blocked filter from N generated URLs, each thread adding the keys of\n"
                 "its own part of the lines (bl_add_hash_batch_part), then probes N others, half\n"
                 "of them present. For comparison: --concurrent builds with BL_FLAG_CONCURRENT\n"
                 "atomic adds from every thread, --plain with one thread.\n"
                 "Keys: 2 to 2^62; fpp above 0 and below 1; threads 1 to %d (default: the\n"
                 "cores).\n",
            MAX_THREADS);
}

int main(int argc, char **argv)
{
    const char *prog = "bench_scale";
    uint64_t n = 1000000000u;
    double fpp = 1e-4;
    int threads = bb_ncores();
    bool pin = true;
    build_mode mode = BUILD_PARTS;
    const char *csv_path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--no-pin")) {
            pin = false;
            continue;
        }
        if (!strcmp(a, "--plain") || !strcmp(a, "--concurrent")) {
            mode = !strcmp(a, "--plain") ? BUILD_PLAIN : BUILD_CONCURRENT;
            continue;
        }
        bool ok;
        /* Present keys are URL numbers below n, absent ones from 2^62 on: kept apart. */
        if (!strcmp(a, "--keys"))
            ok = bb_arg_count(prog, a, v, 2, BB_ABSENT, &n);
        else if (!strcmp(a, "--fpp"))
            ok = bb_arg_real(prog, a, v, 0, 1, true, &fpp);
        else if (!strcmp(a, "--threads"))
            ok = bb_arg_int(prog, a, v, 1, MAX_THREADS, &threads);
        else if (!strcmp(a, "--csv"))
            ok = bb_arg_string(prog, a, v, &csv_path);
        else
            return bb_arg_error(prog, "unknown option '%s'", a);
        if (!ok)
            return 2;
        i++;
    }
    if (threads > MAX_THREADS) /* the default, on a machine of more cores than that */
        threads = MAX_THREADS;
    FILE *csv = bb_csv_open(csv_path, "keys,threads,fpp,bytes,bits_per_key,k,build_s,probe_s,"
                                      "false_negatives,absent,absent_hits,fpr,peak_rss,build");
    if (csv_path != NULL && csv == NULL) /* known before the run, not after an hour of it */
        return 1;
    bb_print_machine(stdout);
    bl_params p;
    bl_params_init(&p);
    p.layout = BL_LAYOUT_BLOCKED;
    p.expected_keys = n;
    p.fpp = fpp;
    p.flags = mode == BUILD_CONCURRENT ? BL_FLAG_CONCURRENT : 0;
    shared sh;
    memset(&sh, 0, sizeof sh);
    sh.n = n;
    bl_status st = bl_create(&sh.f, &p);
    if (st != BL_OK) {
        fprintf(stderr, "bench_scale: bl_create: %s\n", bl_strerror(st));
        return 1;
    }
    bl_info info;
    bl_get_info(sh.f, &info);
    printf("# %llu keys, p = %g: blocked filter of %.3f GB (%.2f bits/key, k = %u), %d threads, "
           "kernel %s, %s adds\n",
           (unsigned long long)n, fpp, info.bytes / 1e9, (double)info.bits / (double)n, info.k,
           threads, info.kernel, build_mode_name(mode));
    worker ws[MAX_THREADS];
    for (int t = 0; t < threads; t++) {
        ws[t].sh = &sh;
        ws[t].id = t;
        ws[t].core = pin ? t : -1;
        ws[t].arena = bb_malloc(CHUNK * BB_URL_MAX);
        ws[t].ptr = bb_malloc(CHUNK * sizeof *ws[t].ptr);
        ws[t].len = bb_malloc(CHUNK * sizeof *ws[t].len);
        sh.hashes[0][t] = bb_malloc(CHUNK * sizeof(uint64_t));
        sh.hashes[1][t] = bb_malloc(CHUNK * sizeof(uint64_t));
    }
    const int build_threads = mode == BUILD_PLAIN ? 1 : threads;
    pthread_barrier_init(&sh.round, NULL, (unsigned)build_threads);
    /* The build includes the payload's first-touch page faults: a real build pays them too. */
    fprintf(stderr, "bench_scale: building...\n");
    double c0 = cpu_seconds();
    double tb = phase(&sh, ws, build_threads, false, mode == BUILD_PARTS);
    double c1 = cpu_seconds();
    fprintf(stderr, "bench_scale: probing...\n");
    double tp = phase(&sh, ws, threads, true, false);
    double c2 = cpu_seconds();
    size_t rss = bb_peak_rss();
    double fpr = (double)sh.absent_hits / (double)sh.absent;
    double se = sqrt(fpr * (1 - fpr) / (double)sh.absent);
    uint64_t fn = sh.present - sh.present_hits;

    printf("\n| keys | threads | filter GB | bits/key | k | build s | build Mkeys/s | probe s | "
           "probe Mkeys/s | false negatives | measured rate (absent half) | +-SE | peak RSS GB | "
           "peak / filter |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    const int bt = build_threads;
    printf("| %.3g | %d | %.3f | %.2f | %u | %.2f | %.1f | %.2f | %.1f | %llu | %.3e | %.1e | "
           "%.3f | %.3f |\n",
           (double)n, threads, info.bytes / 1e9, (double)info.bits / (double)n, info.k, tb,
           n / tb / 1e6, tp, n / tp / 1e6, (unsigned long long)fn, fpr, se, rss / 1e9,
           (double)rss / (double)info.bytes);
    printf("\nCPU time used: build %.1f s (%.0f%% of %d threads x wall), probe %.1f s (%.0f%% of %d "
           "threads x wall); the rest of the cores' time went to other jobs.\n",
           c1 - c0, 100 * (c1 - c0) / (tb * bt), bt, c2 - c1, 100 * (c2 - c1) / (tp * threads),
           threads);
    if (csv) {
        fprintf(csv, "%llu,%d,%g,%zu,%.4f,%u,%.3f,%.3f,%llu,%llu,%llu,%.6e,%zu,%s\n",
                (unsigned long long)n, threads, fpp, info.bytes, (double)info.bits / (double)n,
                info.k, tb, tp, (unsigned long long)fn, (unsigned long long)sh.absent,
                (unsigned long long)sh.absent_hits, fpr, rss, build_mode_name(mode));
    }
    const bool kept = bb_csv_close(csv, csv_path);
    pthread_barrier_destroy(&sh.round);
    for (int t = 0; t < threads; t++) {
        free(sh.hashes[0][t]);
        free(sh.hashes[1][t]);
        free(ws[t].arena);
        free((void *)ws[t].ptr);
        free(ws[t].len);
    }
    bl_free(sh.f);
    if (sh.failed)
        fprintf(stderr, "bench_scale: an add or hash call failed\n");
    return fn == 0 && !sh.failed && kept ? 0 : 1;
}
