/* SPDX-License-Identifier: MIT */
/* bench_filters: bloomline (each layout x kernel) vs libbloom vs an exact hash set vs the memory
 * probes, uint64 and URL keys, insert / query-hit / query-miss ns per key, single and batched. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef BB_HAVE_LIBBLOOM
#include <bloom.h>
#endif

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "bench_common.h"
#include "bloomline.h"
#include "hashset.h"
#include "internal.h" /* the payload, for the paired probes */
#include "probe.h"

#define MAX_ROWS 48

/* Wrong answers (a false negative, batch and single disagreeing) make the run fail. */
static int wrong;
/* So do rows that could not run (a filter or set not created): their row was simply missing. */
static int failed;
static uint64_t g_sample; /* --sample, for the table headers */
#define FILL_CHUNK 65536u

typedef struct row {
    char impl[16];
    char layout[16];
    char kernel[16];
    size_t bytes;
    double fpr; /* measured on the miss queries; < 0: not measured */
    bb_stat ins1, insb, hit1, hitb, miss1, missb;
    /* The rolling probes timed in alternation with hitb, missb (read) and insb (RMW) */
    bb_stat probe_hit, probe_miss, probe_ins;
    /* libbloom's row only: its queries (hits, then misses) timed in alternation with bloomline's
     * batched ones on a blocked filter of the first (best) kernel, vs_kernel: ns per key of
     * each and libbloom's time over bloomline's per repetition (vs_ratio). */
    char vs_kernel[16];
    bb_stat vs_libbloom, vs_bloomline, vs_ratio;
    char note[64];
} row;

typedef struct config {
    int reps;
    uint64_t sample;
    double bpk;
    unsigned dist;
    const char *layouts; /* comma list or NULL for all that work */
    const char *kernels; /* comma list or NULL for all the CPU runs */
    bool libbloom, hashset;
    double hashset_max_gib;
    bool all_kernels; /* counting/scalable with every kernel, single-key ops with every kernel */
} config;

/* The keys of one (kind, size) run: s present keys (indexes [0, s)) and s absent ones. */
typedef struct keyset {
    bool url;
    size_t s;
    uint64_t *hit, *miss; /* uint64 keys (also the probes' random lines) */
    bb_urls uhit, umiss;
} keyset;

/* Whether fp false positives among q absent keys fit an expected rate: within sampling error (5
 * SD) of 0.7 to 1.4 times it (measured/model read 0.95-1.14 over 2^13-2^20 keys, every layout).
 * The miss queries' hits were compared with nothing but the single-key loop's, and no single-key
 * loop runs above 2^20 keys for kernels after the first: a batched miss query that answered
 * without reading the filter (all absent, or all present) passed there. */
static bool plausible_fp(size_t fp, size_t q, double rate)
{
    const double e = rate * (double)q, sd = sqrt(e);
    return (double)fp >= 0.7 * e - 5 * sd && (double)fp <= 1.4 * e + 5 * sd + 5;
}

/* Repeat a small sample within each repetition so that every repetition does ~sample keys. */
static uint64_t loops_for(const config *cfg, size_t s)
{
    return s >= cfg->sample ? 1 : (cfg->sample + s - 1) / s;
}

/* ---- bloomline -------------------------------------------------------------------------------- */

static void fill_bloomline(bl_filter *f, const keyset *ks, uint64_t from, uint64_t to,
                           uint64_t *ubuf, bb_urls *chunk)
{
    for (uint64_t i = from; i < to; i += FILL_CHUNK) {
        size_t c = (size_t)(to - i < FILL_CHUNK ? to - i : FILL_CHUNK);
        if (ks->url) {
            bb_urls_fill(chunk, i, c);
            bl_add_batch(f, chunk->ptr, chunk->len, c);
        } else {
            bb_keys_u64(ubuf, i, c);
            bl_add_u64_batch(f, ubuf, c);
        }
    }
}

static size_t query_single(const bl_filter *f, const keyset *ks, bool hit)
{
    size_t hits = 0;
    if (ks->url) {
        const bb_urls *u = hit ? &ks->uhit : &ks->umiss;
        for (size_t i = 0; i < ks->s; i++)
            hits += bl_contains(f, u->ptr[i], u->len[i]);
    } else {
        const uint64_t *k = hit ? ks->hit : ks->miss;
        for (size_t i = 0; i < ks->s; i++)
            hits += bl_contains_u64(f, k[i]);
    }
    return hits;
}

static size_t query_batch(const bl_filter *f, const keyset *ks, bool hit, uint8_t *res)
{
    if (ks->url) {
        const bb_urls *u = hit ? &ks->uhit : &ks->umiss;
        return bl_contains_batch(f, u->ptr, u->len, ks->s, res);
    }
    return bl_contains_u64_batch(f, hit ? ks->hit : ks->miss, ks->s, res);
}

static void insert_single(bl_filter *f, const keyset *ks)
{
    if (ks->url)
        for (size_t i = 0; i < ks->s; i++)
            bl_add(f, ks->uhit.ptr[i], ks->uhit.len[i]);
    else
        for (size_t i = 0; i < ks->s; i++)
            bl_add_u64(f, ks->hit[i]);
}

static void insert_batch(bl_filter *f, const keyset *ks)
{
    if (ks->url)
        bl_add_batch(f, ks->uhit.ptr, ks->uhit.len, ks->s);
    else
        bl_add_u64_batch(f, ks->hit, ks->s);
}

/* A filter of parameters p holding the n keys (the sample first), its pages touched before; NULL
 * (said, and counted as failed) if it cannot be created. `what` ends the message. */
static bl_filter *full_filter(const bl_params *p, const keyset *ks, uint64_t n, uint64_t *ubuf,
                              bb_urls *chunk, const char *what)
{
    bl_filter *f = NULL;
    const bl_status st = bl_create(&f, p);
    if (st != BL_OK) {
        fprintf(stderr, "bench_filters: %s/%s at %llu keys%s: %s\n", bl_layout_name(p->layout),
                p->kernel != NULL ? p->kernel : "default", (unsigned long long)n, what,
                bl_strerror(st));
        failed++;
        return NULL;
    }
    bb_touch_filter(f);
    insert_batch(f, ks);
    fill_bloomline(f, ks, ks->s, n, ubuf, chunk);
    return f;
}

/* A view of a structure's own memory as a probe buffer (never freed through it). */
static bb_buffer own_memory(const void *data, size_t bytes)
{
    bb_buffer b = {(uint8_t *)(uintptr_t)data, bytes, bytes / 64, 0};
    return b;
}

static bl_params filter_params(const config *cfg, uint64_t n, bl_layout lay, const char *kernel)
{
    bl_params p;
    bl_params_init(&p);
    p.layout = lay;
    p.expected_keys = n;
    p.kernel = kernel;
    /* Counting and scalable filters are sized for the rate the plain filter gets at this budget
     * (about 1% at 10 bits/key): their own bits-per-key follow from their models. */
    if (lay == BL_LAYOUT_COUNTING || lay == BL_LAYOUT_SCALABLE)
        p.fpp = 0.01;
    else
        p.bits_per_key = cfg->bpk;
    return p;
}

/* Insert timing re-inserts the sample: for a Bloom filter that is the same work (hash, fetch
 * the line, OR the bits), and it lets every repetition time the same keys. */
static bool bench_bloomline(row *r, const config *cfg, const keyset *ks, uint64_t n, bl_layout lay,
                            const char *kernel, bool single, uint64_t *ubuf, bb_urls *chunk,
                            uint8_t *res, bb_buffer *probe)
{
    const bl_params p = filter_params(cfg, n, lay, kernel);
    bl_filter *f = NULL;
    const bl_status st = bl_create(&f, &p);
    if (st != BL_OK) {
        fprintf(stderr, "bench_filters: %s/%s at %llu keys: %s\n", bl_layout_name(lay), kernel,
                (unsigned long long)n, bl_strerror(st));
        failed++;
        return false;
    }
    bb_touch_filter(f); /* every page of the payload written before timing */
    memset(r, 0, sizeof *r);
    snprintf(r->impl, sizeof r->impl, "bloomline");
    snprintf(r->layout, sizeof r->layout, "%s", bl_layout_name(lay));
    snprintf(r->kernel, sizeof r->kernel, "%s", lay == BL_LAYOUT_CLASSIC ? "any" : kernel);
    const int reps = cfg->reps;
    const size_t s = ks->s;
    const uint64_t lp = loops_for(cfg, s);
    /* The paired probes run over the filter's own payload (a separate buffer of the same size
     * would evict it from, and compete with it for, the shared last-level cache: at 2^27 that
     * slowed both by ~35%). Scalable filters have no single payload: the separate buffer. */
    bb_buffer own = f->data != NULL ? own_memory(f->data, f->nbytes) : *probe;
    if (single)
        BB_TIME_LOOPS(reps, s, lp, r->ins1, insert_single(f, ks));
    BB_TIME_LOOPS_PAIRED(reps, s, lp, r->insb, insert_batch(f, ks), r->probe_ins,
                         bb_probe_rmw(&own, ks->hit, s, BB_PROBE_ROLLING, cfg->dist));
    /* The RMW probe set stray bits in the payload: query a fresh filter holding the n keys once
     * each. (A scalable chain, probed beside a buffer of its own, no longer grows as the timed
     * loops add the sample again: it passes over keys its newest stage holds.) */
    bl_free(f);
    if ((f = full_filter(&p, ks, n, ubuf, chunk, ", again")) == NULL)
        return false;
    if (f->data != NULL)
        own = own_memory(f->data, f->nbytes);
    size_t h1 = s, hb = 0, m1 = 0, mb = 0;
    if (single)
        BB_TIME_LOOPS(reps, s, lp, r->hit1, h1 = query_single(f, ks, true));
    BB_TIME_LOOPS_PAIRED(reps, s, lp, r->hitb, hb = query_batch(f, ks, true, res), r->probe_hit,
                         bb_sink += bb_probe_read(&own, ks->hit, s, BB_PROBE_ROLLING, cfg->dist));
    if (single)
        BB_TIME_LOOPS(reps, s, lp, r->miss1, m1 = query_single(f, ks, false));
    BB_TIME_LOOPS_PAIRED(reps, s, lp, r->missb, mb = query_batch(f, ks, false, res), r->probe_miss,
                         bb_sink += bb_probe_read(&own, ks->hit, s, BB_PROBE_ROLLING, cfg->dist));
    if (!single)
        m1 = mb;
    if (h1 != s || hb != s || m1 != mb) {
        wrong++;
        fprintf(stderr, "bench_filters: WRONG ANSWERS %s/%s: hits %zu %zu of %zu, misses %zu %zu\n",
                r->layout, r->kernel, h1, hb, s, m1, mb);
    }
    r->fpr = (double)mb / (double)s;
    bl_info info;
    const bool got_info = bl_get_info(f, &info) == BL_OK;
    r->bytes = got_info ? info.bytes : 0;
    if (!got_info || !plausible_fp(mb, s, info.current_fpp)) {
        wrong++;
        fprintf(stderr, "bench_filters: WRONG ANSWERS %s/%s: %zu false positives of %zu absent "
                "keys, the model expects %.1f\n", r->layout, r->kernel, mb, s,
                got_info ? info.current_fpp * (double)s : NAN);
    }
    bl_free(f);
    return true;
}

/* A peer's query loop, timed in alternation with the rolling read probe over the peer's own
 * memory, like bloomline's batched queries (bench_bloomline). */
#define PEER_TIME(stat, probe_stat, own, body)                                                     \
    BB_TIME_LOOPS_PAIRED(reps, s, loops_for(cfg, s), stat, body, probe_stat,                      \
                         bb_sink += bb_probe_read(&(own), ks->hit, s, BB_PROBE_ROLLING, cfg->dist))

/* ---- libbloom ------------------------------------------------------------------------------ */

#ifdef BB_HAVE_LIBBLOOM
/* libbloom's answers to count keys of the sample from `from` (hits or misses). */
static size_t libbloom_query(struct bloom *b, const keyset *ks, bool hit, size_t from, size_t count)
{
    size_t hits = 0;
    if (ks->url) {
        const bb_urls *u = hit ? &ks->uhit : &ks->umiss;
        for (size_t i = from; i < from + count; i++)
            hits += (size_t)bloom_check(b, u->ptr[i], (int)u->len[i]);
    } else {
        const uint64_t *k = hit ? ks->hit : ks->miss;
        for (size_t i = from; i < from + count; i++)
            hits += (size_t)bloom_check(b, &k[i], 8);
    }
    return hits;
}

/* libbloom is some 20 times slower per key: it queries 1/VS_SHARE of the sample per repetition
 * (VS_MIN keys at least: a shorter stretch starts cold after bloomline's) so that both halves of
 * a repetition last about as long and see the same load. */
#define VS_SHARE 32u
#define VS_MIN 4096u
/* More repetitions than a row's: each is shorter, and the host's load moves between them. */
#define VS_REPS(reps) ((reps) * 4 + 1 < BB_MAX_REPS ? (reps) * 4 + 1 : BB_MAX_REPS)

/* libbloom's rows and bloomline's are timed minutes apart, each beside its own probe, and this
 * host's memory speed moves within a run (the probe beside libbloom once read 13.5 ns where
 * bloomline's read 5.2; four 160 MiB buffers probed in turn read alike, so it is the time, not
 * the pages). Here they alternate: libbloom's hits and misses, then bloomline's batched hits
 * and misses on a blocked filter of the given kernel, repetition by repetition; each libbloom
 * repetition takes the next keys of the sample, as its few thousand keys' lines would stay in
 * the cache from one repetition to the next where bloomline's whole sample does not. */
static void libbloom_vs_bloomline(row *r, const config *cfg, const keyset *ks, uint64_t n,
                                  struct bloom *b, const char *kernel, uint64_t *ubuf,
                                  bb_urls *chunk, uint8_t *res)
{
    const bl_params p = filter_params(cfg, n, BL_LAYOUT_BLOCKED, kernel);
    bl_filter *f = full_filter(&p, ks, n, ubuf, chunk, ", against libbloom");
    if (f == NULL)
        return;
    const size_t s = ks->s;
    const size_t sl = s / VS_SHARE > VS_MIN ? s / VS_SHARE : (s < VS_MIN ? s : VS_MIN);
    size_t from = 0, lh = 0, lq = 0, bh = 0, bq = 0;
    BB_TIME_LOOPS_VS(VS_REPS(cfg->reps), 2 * sl, 2 * s, loops_for(cfg, s), r->vs_libbloom,
                     lh += libbloom_query(b, ks, true, from, sl);
                     bb_sink += libbloom_query(b, ks, false, from, sl); lq += sl;
                     from = from + 2 * sl <= s ? from + sl : 0,
                     r->vs_bloomline,
                     bh += query_batch(f, ks, true, res);
                     bb_sink += query_batch(f, ks, false, res); bq += s,
                     r->vs_ratio);
    if (lh != lq || bh != bq) {
        wrong++;
        fprintf(stderr, "bench_filters: WRONG ANSWERS against libbloom: hits %zu of %zu "
                "(libbloom), %zu of %zu (bloomline)\n", lh, lq, bh, bq);
    }
    snprintf(r->vs_kernel, sizeof r->vs_kernel, "%s", bl_filter_kernel(f));
    bl_free(f);
}

static bool bench_libbloom(row *r, const config *cfg, const keyset *ks, uint64_t n,
                           const char *kernel, uint64_t *ubuf, bb_urls *chunk, uint8_t *res)
{
    struct bloom b;
    /* libbloom sizes by error: bits per entry = -ln(error) / ln(2)^2, so this error gives the
     * same bits per key as the others (it takes int counts: fine up to 2^27 at 10 bits/key). */
    const double err = exp(-cfg->bpk * log(2) * log(2));
    if (n > 200000000u)
        return false;
    if (bloom_init(&b, (int)n, err) != 0) {
        fprintf(stderr, "bench_filters: libbloom: bloom_init at %llu keys failed\n",
                (unsigned long long)n);
        failed++;
        return false;
    }
    /* libbloom callocs its bits: 4 KiB pages, where the filters, the probes and the hash set get
     * 2 MiB ones by MADV_HUGEPAGE (transparent huge pages are "madvise" on the project's
     * machines), so each of its k random reads also missed the TLB and its 2^24 and 2^27 rows
     * measured page size as much as libbloom. The same advice for the whole pages of its array,
     * before the memset below first writes them (glibc's calloc leaves fresh mmap pages alone). */
    if ((size_t)b.bytes >= (2u << 20))
        bb_advise_huge(b.bf, (size_t)b.bytes);
    memset(b.bf, 0, (size_t)b.bytes); /* calloc'd lazily: touch it like the others */
    memset(r, 0, sizeof *r);
    snprintf(r->impl, sizeof r->impl, "libbloom");
    snprintf(r->layout, sizeof r->layout, "classic");
    snprintf(r->kernel, sizeof r->kernel, "-");
    const size_t s = ks->s;
    const int reps = cfg->reps;
    r->insb.valid = r->hitb.valid = r->missb.valid = false;
    if (ks->url) {
        BB_TIME_LOOPS(reps, s, loops_for(cfg, s), r->ins1, for (size_t i = 0; i < s; i++) bloom_add(&b, ks->uhit.ptr[i], (int)ks->uhit.len[i]));
        for (uint64_t i = s; i < n; i += FILL_CHUNK) {
            size_t c = (size_t)(n - i < FILL_CHUNK ? n - i : FILL_CHUNK);
            bb_urls_fill(chunk, i, c);
            for (size_t j = 0; j < c; j++)
                bloom_add(&b, chunk->ptr[j], (int)chunk->len[j]);
        }
    } else {
        BB_TIME_LOOPS(reps, s, loops_for(cfg, s), r->ins1, for (size_t i = 0; i < s; i++) bloom_add(&b, &ks->hit[i], 8));
        for (uint64_t i = s; i < n; i++) {
            uint64_t k = bb_key_u64(i);
            bloom_add(&b, &k, 8);
        }
    }
    size_t h = 0, m = 0;
    const bb_buffer own = own_memory(b.bf, (size_t)b.bytes);
    PEER_TIME(r->hit1, r->probe_hit, own, h = libbloom_query(&b, ks, true, 0, s));
    PEER_TIME(r->miss1, r->probe_miss, own, m = libbloom_query(&b, ks, false, 0, s));
    if (h != s) {
        wrong++;
        fprintf(stderr, "bench_filters: libbloom missed %zu of %zu keys\n", s - h, s);
    }
    if (!plausible_fp(m, s, err)) {
        wrong++;
        fprintf(stderr, "bench_filters: libbloom: %zu false positives of %zu absent keys, its "
                "design rate expects %.1f\n", m, s, err * (double)s);
    }
    r->fpr = (double)m / (double)s;
    r->bytes = (size_t)b.bytes;
    libbloom_vs_bloomline(r, cfg, ks, n, &b, kernel, ubuf, chunk, res);
    bloom_free(&b);
    return true;
}
#endif

/* ---- Exact hash set -------------------------------------------------------------------------- */

static bool hashset_failed(uint64_t n)
{
    fprintf(stderr, "bench_filters: no memory for a hash set of %llu keys (--hashset-max-gib)\n",
            (unsigned long long)n);
    failed++;
    return false;
}

/* A set cannot re-insert a key at the same cost, so insert timing builds: small sets are
 * rebuilt from empty every repetition; large ones are built to n - reps*C keys, then each
 * repetition times the next C keys (the load ends at n as for a full build). */
static bool bench_hashset(row *r, const config *cfg, const keyset *ks, uint64_t n, bb_urls *chunk,
                          uint64_t *ubuf)
{
    const size_t s = ks->s;
    const int reps = cfg->reps;
    memset(r, 0, sizeof *r);
    snprintf(r->impl, sizeof r->impl, "hash set");
    snprintf(r->layout, sizeof r->layout, "exact");
    snprintf(r->kernel, sizeof r->kernel, "-");
    const double est = (double)n * (ks->url ? 32 + 51 : 16);
    if (est > cfg->hashset_max_gib * (1u << 30)) {
        snprintf(r->note, sizeof r->note, "skipped: needs ~%.1f GiB", est / (1u << 30));
        r->fpr = -1;
        return true;
    }
    /* Fewer than two keys a repetition would be left to time past n - reps*C (C = 0: "nan"). */
    bool rebuild = n <= s || n < 2 * (uint64_t)reps;
    uint64_t c = rebuild ? n : (n / (uint64_t)(2 * reps) < s ? n / (uint64_t)(2 * reps) : s);
    uint64_t base = rebuild ? 0 : n - (uint64_t)reps * c;
    double v[BB_MAX_REPS];
    size_t h = 0, m = 0;
    if (ks->url) {
        bb_setstr set;
        if (bb_setstr_init(&set, (size_t)n, (size_t)n * 54) != 0)
            return hashset_failed(n);
        for (int rep = 0; rep < reps; rep++) {
            uint64_t lo = rebuild ? 0 : base + (uint64_t)rep * c, hi = lo + c;
            if (rebuild || rep == 0) {
                bb_setstr_clear(&set);
                for (uint64_t i = 0; i < (rebuild ? 0 : base); i += FILL_CHUNK) {
                    size_t cc = (size_t)(base - i < FILL_CHUNK ? base - i : FILL_CHUNK);
                    bb_urls_fill(chunk, i, cc);
                    for (size_t j = 0; j < cc; j++)
                        bb_setstr_insert(&set, chunk->ptr[j], chunk->len[j]);
                }
            }
            uint64_t t = 0;
            for (uint64_t i = lo; i < hi; i += FILL_CHUNK) {
                size_t cc = (size_t)(hi - i < FILL_CHUNK ? hi - i : FILL_CHUNK);
                bb_urls_fill(chunk, i, cc); /* generation kept out of the timed part */
                uint64_t t0 = bb_timer_ns();
                for (size_t j = 0; j < cc; j++)
                    bb_setstr_insert(&set, chunk->ptr[j], chunk->len[j]);
                t += bb_timer_ns() - t0;
            }
            v[rep] = (double)t / (double)c;
        }
        r->ins1 = bb_stat_of(v, reps);
        const bb_buffer own = own_memory(set.slots, (size_t)(set.mask + 1) * sizeof *set.slots);
        PEER_TIME(r->hit1, r->probe_hit, own, h = 0; for (size_t i = 0; i < s; i++) h += bb_setstr_contains(&set, ks->uhit.ptr[i], ks->uhit.len[i]));
        PEER_TIME(r->miss1, r->probe_miss, own, m = 0; for (size_t i = 0; i < s; i++) m += bb_setstr_contains(&set, ks->umiss.ptr[i], ks->umiss.len[i]));
        r->bytes = bb_setstr_bytes(&set);
        bb_setstr_free(&set);
    } else {
        bb_set64 set;
        if (bb_set64_init(&set, (size_t)n) != 0)
            return hashset_failed(n);
        for (int rep = 0; rep < reps; rep++) {
            uint64_t lo = rebuild ? 0 : base + (uint64_t)rep * c, hi = lo + c;
            if (rebuild || rep == 0) {
                bb_set64_clear(&set);
                for (uint64_t i = 0; i < (rebuild ? 0 : base); i++)
                    bb_set64_insert(&set, bb_key_u64(i));
            }
            uint64_t t = 0;
            for (uint64_t i = lo; i < hi; i += FILL_CHUNK) {
                size_t cc = (size_t)(hi - i < FILL_CHUNK ? hi - i : FILL_CHUNK);
                bb_keys_u64(ubuf, i, cc);
                uint64_t t0 = bb_timer_ns();
                for (size_t j = 0; j < cc; j++)
                    bb_set64_insert(&set, ubuf[j]);
                t += bb_timer_ns() - t0;
            }
            v[rep] = (double)t / (double)c;
        }
        r->ins1 = bb_stat_of(v, reps);
        const bb_buffer own = own_memory(set.slots, (size_t)(set.mask + 1) * sizeof *set.slots);
        PEER_TIME(r->hit1, r->probe_hit, own, h = 0; for (size_t i = 0; i < s; i++) h += bb_set64_contains(&set, ks->hit[i]));
        PEER_TIME(r->miss1, r->probe_miss, own, m = 0; for (size_t i = 0; i < s; i++) m += bb_set64_contains(&set, ks->miss[i]));
        r->bytes = bb_set64_bytes(&set);
        bb_set64_free(&set);
    }
    if (h != s || m != 0) {
        wrong++;
        fprintf(stderr, "bench_filters: hash set wrong: %zu hits of %zu, %zu false\n", h, s, m);
    }
    r->fpr = 0;
    return true;
}

/* The floor for byte keys: XXH3 over the same keys (read from memory like the filters do). */
static void bench_hash_only(row *r, const config *cfg, const keyset *ks)
{
    memset(r, 0, sizeof *r);
    snprintf(r->impl, sizeof r->impl, "XXH3 alone");
    snprintf(r->layout, sizeof r->layout, "-");
    snprintf(r->kernel, sizeof r->kernel, "-");
    r->fpr = -1;
    uint64_t x = 0;
    BB_TIME_LOOPS(cfg->reps, ks->s, loops_for(cfg, ks->s), r->hit1, for (size_t i = 0; i < ks->s; i++) x += XXH3_64bits(ks->uhit.ptr[i], ks->uhit.len[i]));
    BB_TIME_LOOPS(cfg->reps, ks->s, loops_for(cfg, ks->s), r->miss1, for (size_t i = 0; i < ks->s; i++) x += XXH3_64bits(ks->umiss.ptr[i], ks->umiss.len[i]));
    bb_sink += x;
}

/* ---- Output -------------------------------------------------------------------------------- */

static double qmean(const row *r, bool batch)
{
    if (batch && r->hitb.valid && r->missb.valid)
        return (r->hitb.med + r->missb.med) / 2;
    if (r->hit1.valid && r->miss1.valid)
        return (r->hit1.med + r->miss1.med) / 2;
    return NAN;
}

static void cell_ratio(char *buf, size_t cap, double a, double b)
{
    if (isfinite(a) && isfinite(b) && b > 0)
        snprintf(buf, cap, "%.2f", a / b);
    else
        snprintf(buf, cap, "-");
}

/* The median of the probe timed beside a row when there is one, else the size's own probe. */
static double paired(bb_stat beside, bb_stat alone)
{
    return beside.valid ? beside.med : alone.med;
}

static void csv_stat(FILE *csv, bb_stat s)
{
    if (s.valid)
        fprintf(csv, ",%.4f,%.4f", s.med, s.min);
    else
        fprintf(csv, ",,");
}

static void print_size(FILE *csv, const char *kind, uint64_t n, size_t s, const row *rows,
                       int nrows, const bb_stat probe_rd[3], const bb_stat probe_rmw[3],
                       unsigned dist)
{
    printf("\n### %s keys, n = 2^%d (%llu), timed over %zu keys per repetition%s\n\n", kind,
           __builtin_ctzll(n), (unsigned long long)n, s,
           s < g_sample ? ", repeated to the sample size in each repetition" : "");
    printf("| probe (1 line per key) | read ns/key | read-modify-write ns/key |\n|---|---:|---:|\n");
    for (int m = 0; m < 3; m++) {
        char c1[64], c2[64];
        printf("| %s%s | %s | %s |\n", bb_probe_mode_name[m],
               m == 0 ? "" : (m == 1 ? " (chunks of D)" : " (D ahead)"),
               bb_fmt_ns(probe_rd[m], c1, 64), bb_fmt_ns(probe_rmw[m], c2, 64));
    }
    printf("\nD = %u. Cells: median (min) ns per key. Ratios use medians; probe = the rolling probe,\n"
           "timed in alternation with each row's batched repetitions (so both see the same load).\n\n",
           dist);
    double lib = NAN, set = NAN;
    for (int i = 0; i < nrows; i++) {
        if (!strcmp(rows[i].impl, "libbloom"))
            lib = qmean(&rows[i], false);
        if (!strcmp(rows[i].impl, "hash set"))
            set = qmean(&rows[i], false);
    }
    printf("| impl | layout | kernel | MiB | bits/key | FPR %% | insert | insert batch | hit | hit batch "
           "| miss | miss batch | hit b / probe | miss b / probe | ins b / RMW probe | x vs libbloom "
           "| x vs hash set |\n");
    printf("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        char c[6][64], q[5][32], fpr[32];
        if (r->note[0]) {
            printf("| %s | %s | %s | | | | %s | | | | | | | | | | |\n", r->impl, r->layout,
                   r->kernel, r->note);
            continue;
        }
        bb_fmt_ns(r->ins1, c[0], 64);
        bb_fmt_ns(r->insb, c[1], 64);
        bb_fmt_ns(r->hit1, c[2], 64);
        bb_fmt_ns(r->hitb, c[3], 64);
        bb_fmt_ns(r->miss1, c[4], 64);
        bb_fmt_ns(r->missb, c[5], 64);
        cell_ratio(q[0], 32, r->hitb.valid ? r->hitb.med : NAN, paired(r->probe_hit, probe_rd[2]));
        cell_ratio(q[1], 32, r->missb.valid ? r->missb.med : NAN, paired(r->probe_miss, probe_rd[2]));
        cell_ratio(q[2], 32, r->insb.valid ? r->insb.med : NAN, paired(r->probe_ins, probe_rmw[2]));
        const bool peer = !strcmp(r->impl, "XXH3 alone"); /* a reference, not a filter */
        cell_ratio(q[3], 32, lib, peer ? NAN : qmean(r, true));
        cell_ratio(q[4], 32, set, peer ? NAN : qmean(r, true));
        if (r->fpr >= 0)
            snprintf(fpr, sizeof fpr, "%.3f", 100 * r->fpr);
        else
            snprintf(fpr, sizeof fpr, "-");
        printf("| %s | %s | %s | %.2f | %.2f | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
               r->impl, r->layout, r->kernel, r->bytes / 1048576.0, 8.0 * r->bytes / (double)n,
               fpr, c[0], c[1], c[2], c[3], c[4], c[5], q[0], q[1], q[2], q[3], q[4]);
    }
    for (int i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        if (!r->vs_ratio.valid)
            continue;
        char a[64], b[64];
        printf("\n%s against bloomline (blocked, %s, batched), the same hits and misses timed in "
               "alternation: %.2fx (median of the repetitions' ratios; lowest %.2fx); ns/key "
               "%s vs %s.\n",
               r->impl, r->vs_kernel, r->vs_ratio.med, r->vs_ratio.min,
               bb_fmt_ns(r->vs_libbloom, a, sizeof a), bb_fmt_ns(r->vs_bloomline, b, sizeof b));
    }
    if (csv == NULL)
        return;
    for (int m = 0; m < 3; m++) {
        fprintf(csv, "%s,%llu,probe,%s,-,%zu,%.4f,", kind, (unsigned long long)n,
                bb_probe_mode_name[m], (size_t)0, 0.0);
        bb_stat none = {0, 0, false};
        csv_stat(csv, none);
        csv_stat(csv, probe_rmw[m]);
        csv_stat(csv, none);
        csv_stat(csv, probe_rd[m]);
        csv_stat(csv, none);
        csv_stat(csv, probe_rd[m]);
        fprintf(csv, "\n");
    }
    for (int i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        if (r->note[0])
            continue;
        fprintf(csv, "%s,%llu,%s,%s,%s,%zu,%.4f,", kind, (unsigned long long)n, r->impl,
                r->layout, r->kernel, r->bytes, 8.0 * r->bytes / (double)n);
        if (r->fpr >= 0)
            fprintf(csv, "%.6g", r->fpr);
        csv_stat(csv, r->ins1);
        csv_stat(csv, r->insb);
        csv_stat(csv, r->hit1);
        csv_stat(csv, r->hitb);
        csv_stat(csv, r->miss1);
        csv_stat(csv, r->missb);
        csv_stat(csv, r->probe_hit);
        csv_stat(csv, r->probe_miss);
        csv_stat(csv, r->probe_ins);
        fprintf(csv, ",%s", r->vs_ratio.valid ? r->vs_kernel : "");
        csv_stat(csv, r->vs_libbloom);
        csv_stat(csv, r->vs_bloomline);
        csv_stat(csv, r->vs_ratio);
        fprintf(csv, "\n");
    }
    fflush(csv);
}

/* ---- Main ---------------------------------------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: bench_filters [--sizes 16,20,24,27] [--keys u64,url] [--reps 5] [--sample 2^21]\n"
            "         [--bits-per-key 10] [--dist 64] [--layouts blocked,sbbf,...] [--kernels ...]\n"
            "         [--no-libbloom] [--no-hashset] [--hashset-max-gib 6] [--clock cpu|wall]\n"
            "         [--all-kernels] [--csv FILE] [--quick]\n"
            "Sizes are powers of two (up to 16 exponents from 1 to %d). Every size is timed over\n"
            "min(n, sample) keys per repetition (sample at most 2^30; reps 1 to %d).\n"
            "Bits per key above 0 and below %d; prefetch window D 1 to %u lines.\n"
            "Layouts: blocked,sbbf,classic,counting,scalable. Kernels: those this CPU runs\n"
            "(bloomline's kernel list). Hash set skipped above --hashset-max-gib (0 to 1e6).\n"
            "Single-key calls do not go through the kernels: above 2^20 keys they are timed\n"
            "with the first (best) kernel only, and counting/scalable use it only, unless\n"
            "--all-kernels.\n",
            BB_MAX_LOG2_KEYS, BB_MAX_REPS, BB_MAX_BITS_PER_KEY, BB_MAX_DIST);
}

int main(int argc, char **argv)
{
    const char *prog = "bench_filters";
    config cfg = {5, 1u << 21, 10, 64, NULL, NULL, true, true, 6, false};
    uint64_t sizes[16] = {1u << 16, 1u << 20, 1u << 24, 1u << 27};
    int nsizes = 4;
    const char *kinds = "u64,url";
    const char *csv_path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--quick")) {
            sizes[0] = 1u << 10, sizes[1] = 1u << 13, nsizes = 2, cfg.reps = 3;
            cfg.sample = 1u << 13;
            continue;
        }
        if (!strcmp(a, "--no-libbloom")) {
            cfg.libbloom = false;
            continue;
        }
        if (!strcmp(a, "--all-kernels")) {
            cfg.all_kernels = true;
            continue;
        }
        if (!strcmp(a, "--no-hashset")) {
            cfg.hashset = false;
            continue;
        }
        bool ok;
        uint64_t x = cfg.dist;
        if (!strcmp(a, "--sizes"))
            ok = bb_arg_list(prog, a, v, sizes, 16, true, UINT64_MAX, &nsizes);
        else if (!strcmp(a, "--keys"))
            ok = bb_arg_string(prog, a, v, &kinds);
        else if (!strcmp(a, "--reps"))
            ok = bb_arg_int(prog, a, v, 1, BB_MAX_REPS, &cfg.reps);
        else if (!strcmp(a, "--sample"))
            ok = bb_arg_count(prog, a, v, 1, BB_MAX_SAMPLE, &cfg.sample);
        else if (!strcmp(a, "--bits-per-key"))
            ok = bb_arg_real(prog, a, v, 0, BB_MAX_BITS_PER_KEY, true, &cfg.bpk);
        else if (!strcmp(a, "--dist"))
            ok = bb_arg_count(prog, a, v, 1, BB_MAX_DIST, &x);
        else if (!strcmp(a, "--layouts"))
            ok = bb_arg_string(prog, a, v, &cfg.layouts);
        else if (!strcmp(a, "--kernels"))
            ok = bb_arg_string(prog, a, v, &cfg.kernels);
        else if (!strcmp(a, "--hashset-max-gib"))
            ok = bb_arg_real(prog, a, v, 0, 1e6, false, &cfg.hashset_max_gib);
        else if (!strcmp(a, "--clock"))
            ok = bb_arg_clock(prog, a, v);
        else if (!strcmp(a, "--csv"))
            ok = bb_arg_string(prog, a, v, &csv_path);
        else
            return bb_arg_error(prog, "unknown option '%s'", a);
        if (!ok)
            return 2;
        cfg.dist = (unsigned)x;
        i++;
    }
    g_sample = cfg.sample;
    /* The kernels this CPU runs, in the library's order (best first). */
    const char *kernels[8];
    int nkern = 0;
    for (size_t i = 0; bl_kernel_at(i) != NULL && nkern < 8; i++) {
        const char *k = bl_kernel_at(i);
#if defined(__x86_64__) || defined(__i386__)
        if (!strcmp(k, "neon")) /* NEON through SIMDe on x86 is for testing, not a real kernel */
            continue;
#endif
        if (bl_kernel_supported(k))
            kernels[nkern++] = k;
    }
    static const bl_layout all_layouts[] = {BL_LAYOUT_BLOCKED, BL_LAYOUT_SBBF, BL_LAYOUT_CLASSIC,
                                            BL_LAYOUT_COUNTING, BL_LAYOUT_SCALABLE};
    const char *layout_names[5];
    for (int i = 0; i < 5; i++)
        layout_names[i] = bl_layout_name(all_layouts[i]);
    static const char *const kind_names[] = {"u64", "url"};
    if (!bb_arg_names(prog, "--keys", kinds, kind_names, 2) ||
        (cfg.layouts != NULL && !bb_arg_names(prog, "--layouts", cfg.layouts, layout_names, 5)) ||
        (cfg.kernels != NULL && !bb_arg_names(prog, "--kernels", cfg.kernels, kernels, nkern)))
        return 2;
    int nk = 0;
    for (int i = 0; i < nkern; i++)
        if (bb_in_list(cfg.kernels, kernels[i]))
            kernels[nk++] = kernels[i];
    nkern = nk;
    bl_layout layouts[5];
    int nlay = 0;
    for (int i = 0; i < 5; i++) {
        if (!bb_in_list(cfg.layouts, layout_names[i]))
            continue;
        if (!bb_layout_works(all_layouts[i])) {
            printf("# layout %s: not implemented in this build, skipped\n", layout_names[i]);
            continue;
        }
        layouts[nlay++] = all_layouts[i];
    }

    FILE *csv = bb_csv_open(csv_path, "kind,n,impl,layout,kernel,bytes,bits_per_key,fpr,"
                                      "ins1_med,ins1_min,insb_med,insb_min,hit1_med,hit1_min,"
                                      "hitb_med,hitb_min,miss1_med,miss1_min,missb_med,missb_min,"
                                      "probe_hit_med,probe_hit_min,probe_miss_med,probe_miss_min,"
                                      "probe_ins_med,probe_ins_min,vs_kernel,vs_libbloom_med,"
                                      "vs_libbloom_min,vs_bloomline_med,vs_bloomline_min,"
                                      "vs_ratio_med,vs_ratio_min");
    if (csv_path != NULL && csv == NULL)
        return 1;
    int cpu = bb_pin_thread(-1);
    bb_print_machine(stdout);
    printf("# pinned to cpu %d; %d repetitions per cell, timed with %s; %.3g bits/key; "
           "prefetch window D = %u\n",
           cpu, cfg.reps, bb_clock_name(), cfg.bpk, cfg.dist);
#ifndef BB_HAVE_LIBBLOOM
    printf("# libbloom not found at build time: its rows are missing\n");
#endif
    uint64_t *ubuf = bb_malloc(FILL_CHUNK * sizeof *ubuf);
    bb_urls chunk;
    bb_urls_make(&chunk, 0, FILL_CHUNK);
    for (int kind = 0; kind < 2; kind++) {
        const char *kname = kind ? "url" : "u64";
        if (!bb_in_list(kinds, kname))
            continue;
        for (int si = 0; si < nsizes; si++) {
            const uint64_t n = sizes[si];
            keyset ks;
            memset(&ks, 0, sizeof ks);
            ks.url = kind == 1;
            ks.s = (size_t)(n < cfg.sample ? n : cfg.sample);
            ks.hit = bb_malloc(ks.s * sizeof *ks.hit);
            ks.miss = bb_malloc(ks.s * sizeof *ks.miss);
            uint8_t *res = bb_malloc(ks.s);
            bb_keys_u64(ks.hit, 0, ks.s);
            bb_keys_u64(ks.miss, BB_ABSENT, ks.s);
            if (ks.url) {
                bb_urls_make(&ks.uhit, 0, ks.s);
                bb_urls_make(&ks.umiss, BB_ABSENT, ks.s);
            }

            /* The probes: a buffer the size of the 10-bits/key filter, the same random lines. */
            bb_stat prd[3], prmw[3];
            bb_buffer buf;
            if (bb_buffer_alloc(&buf, (size_t)((double)n * cfg.bpk / 8)) != 0) {
                fprintf(stderr, "bench_filters: cannot allocate the probe buffer for %llu keys\n",
                        (unsigned long long)n);
                return 1;
            }
            for (int m = 0; m < 3; m++) {
                const uint64_t lp = loops_for(&cfg, ks.s);
                BB_TIME_LOOPS(cfg.reps, ks.s, lp, prd[m], bb_sink += bb_probe_read(&buf, ks.hit, ks.s, m, cfg.dist));
                BB_TIME_LOOPS(cfg.reps, ks.s, lp, prmw[m], bb_probe_rmw(&buf, ks.hit, ks.s, m, cfg.dist));
            }

            row rows[MAX_ROWS];
            int nrows = 0;
#ifdef BB_HAVE_LIBBLOOM
            if (cfg.libbloom && bench_libbloom(&rows[nrows], &cfg, &ks, n,
                                               nkern > 0 ? kernels[0] : NULL, ubuf, &chunk, res))
                nrows++;
#endif
            if (cfg.hashset && bench_hashset(&rows[nrows], &cfg, &ks, n, &chunk, ubuf))
                nrows++;
            if (ks.url)
                bench_hash_only(&rows[nrows++], &cfg, &ks);
            for (int li = 0; li < nlay; li++) {
                const bl_layout lay = layouts[li];
                for (int ki = 0; ki < nkern && nrows < MAX_ROWS; ki++) {
                    const bool single = ki == 0 || cfg.all_kernels || n <= (1u << 20);
                    if (bench_bloomline(&rows[nrows], &cfg, &ks, n, lay, kernels[ki], single, ubuf,
                                        &chunk, res, &buf))
                        nrows++;
                    if (lay == BL_LAYOUT_CLASSIC) /* no kernel-specific code: once */
                        break;
                    if ((lay == BL_LAYOUT_COUNTING || lay == BL_LAYOUT_SCALABLE) && !cfg.all_kernels)
                        break;
                }
            }
            bb_buffer_free(&buf);
            print_size(csv, kname, n, ks.s, rows, nrows, prd, prmw, cfg.dist);
            fflush(stdout);
            free(ks.hit);
            free(ks.miss);
            free(res);
            if (ks.url) {
                bb_urls_free(&ks.uhit);
                bb_urls_free(&ks.umiss);
            }
        }
    }
    bb_urls_free(&chunk);
    free(ubuf);
    if (!bb_csv_close(csv, csv_path))
        return 1;
    return wrong || failed ? 1 : 0;
}
