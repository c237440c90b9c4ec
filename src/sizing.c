/* SPDX-License-Identifier: MIT */
/* False-positive models for each layout, and the searches that size filters with them. */
#include "internal.h"

#include <math.h>
#include <pthread.h>

/*
 * Line filters (blocked: 16 words of 32 bits; counting: 16 words of 8 counters). A key sets one
 * uniform slot in each of its k distinct words W_r = r + D_k (mod 16), r uniform (internal.h).
 * The 16 translates form a group, so a query may be taken to use words D_k. Its slot in word i
 * is set with probability 1 - a^c_i, a = 1 - 1/(slots per word), c_i = the number of the line's
 * keys whose words include i. Inclusion-exclusion over the query words S that stay clear, with
 * the L keys' shifts independent, gives the exact rate of a line holding L keys:
 *     E_k(L) = sum_{S subset of D_k} (-1)^|S| f(S)^L,  f(S) = mean_r a^|S & W_r|.
 * f depends on S only through how many translates meet S in m words (m = 0..k), so the 2^k
 * subsets collapse into a few hundred classes at most per k, each summed once per L.
 *
 * The filter's rate mixes E_k(L) over the Poisson distribution of line loads. The usual fill^k
 * shortcut underestimates it by about 1% at 10 bits/key, and the classic formula by 15%: both
 * would size filters that miss their target.
 *
 * The alternating sums cancel: their terms reach 2^k in size while E_k(L) of a lightly loaded
 * line is tiny (k = 16: 8e-25 at L = 1, 4e-20 at L = 2). In long double (64-bit mantissa) they
 * left errors of ~1e-16 there (k = 16, L = 2 came out 4.4e-16; k = 13, L = 2 negative), and those
 * loads carry the whole rate of filters sized for p <= 1e-15: their model was off by up to 1.7x,
 * in either direction. So loads up to PRECISE_LOADS are summed in binary128 (errors ~1e-30);
 * past them E_k(L) exceeds 1e-7 for every k, and long double (errors ~1e-15) is exact enough
 * and far faster than binary128's software arithmetic over the 2048 loads.
 */
#define LMAX 2048 /* loads beyond this only matter when the rate is essentially 1 */
#define PRECISE_LOADS 16
#if defined(__x86_64__) || defined(__i386__)
__extension__ typedef __float128 wide; /* GCC and Clang: software arithmetic in libgcc */
#else
typedef long double wide; /* binary128 already on aarch64 Linux */
#endif

/* One class of query subsets: how many translates meet them in m words, f, and the summed
 * signs. */
typedef struct subset_class {
    uint8_t meets[BL_K_MAX_BLOCKED + 1];
    wide f;
    int32_t coef; /* the summed signs (-1)^|S| */
} subset_class;

/* 132 at most for the format's D_k (k = 9); a set with more would not be modeled, and
 * test_model_matches_spec would fail on it. */
#define MAX_CLASSES 1024

/* The classes' index by their meets, open addressing: twice MAX_CLASSES, a power of two. */
#define CLASS_SLOTS (2 * MAX_CLASSES)

/* One table per line size, its rows E_k(L) filled per k on first use: sizing reads every k, but
 * a filter opened or described (bl_get_info, the CLI's add and info) reads only its own, and k =
 * 16 alone takes 65536 subsets (all rows: ~60 million instructions, the cost of a process's
 * first create, see bl_create in bloomline.h). */
typedef struct line_table {
    pthread_mutex_t lock;              /* one fill at a time: they share the scratch below */
    bool filled[BL_K_MAX_BLOCKED + 1]; /* row k is ready: read with acquire, set with release */
    unsigned slots;
    double e[BL_K_MAX_BLOCKED + 1][LMAX + 1];
    subset_class classes[MAX_CLASSES]; /* fill scratch, one per table: both may fill at once */
    int16_t class_at[CLASS_SLOTS];     /* class + 1, 0 for an empty slot */
    wide powers[MAX_CLASSES];
    long double powers_ld[MAX_CLASSES], f_ld[MAX_CLASSES];
} line_table;

static line_table table512 = {.lock = PTHREAD_MUTEX_INITIALIZER, .slots = 512};
static line_table table128 = {.lock = PTHREAD_MUTEX_INITIALIZER, .slots = 128};

static double unit_clamp(long double e) { return (double)(e < 0 ? 0 : e > 1 ? 1 : e); }

/* Bits set in a 16-bit word, from a table of bytes. Not __builtin_popcount: the library is built
 * for any x86-64, where that is a call into libgcc, and the first bl_create of a process spent 44
 * of its 109 million instructions there filling the table below. */
#define POP2(n) n, n + 1, n + 1, n + 2
#define POP4(n) POP2(n), POP2(n + 1), POP2(n + 1), POP2(n + 2)
#define POP6(n) POP4(n), POP4(n + 1), POP4(n + 1), POP4(n + 2)
static const uint8_t pop8[256] = {POP6(0), POP6(1), POP6(1), POP6(2)};

static unsigned popcount16(uint32_t x) { return pop8[x & 0xffu] + pop8[(x >> 8) & 0xffu]; }

/* The class with these meets: its index, a new one if it is not there yet, or MAX_CLASSES when
 * the classes are full. A hash of the meets finds it, not a scan of every class: 65536 subsets
 * for k = 16. */
static unsigned class_of(line_table *t, unsigned *ncls, const uint8_t meets[BL_K_MAX_BLOCKED + 1],
                         unsigned k)
{
    uint64_t h = 0xcbf29ce484222325u; /* FNV-1a over meets[0..k]: those past k are 0 */
    for (unsigned j = 0; j <= k; j++)
        h = (h ^ meets[j]) * 0x100000001b3u;
    for (unsigned slot = (unsigned)(h ^ (h >> 32)) & (CLASS_SLOTS - 1);;
         slot = (slot + 1) & (CLASS_SLOTS - 1)) {
        const int c = t->class_at[slot] - 1;
        if (c < 0) {
            if (*ncls == MAX_CLASSES)
                return MAX_CLASSES;
            t->class_at[slot] = (int16_t)(*ncls + 1);
            memcpy(t->classes[*ncls].meets, meets, BL_K_MAX_BLOCKED + 1);
            return (*ncls)++;
        }
        if (memcmp(t->classes[c].meets, meets, BL_K_MAX_BLOCKED + 1) == 0)
            return (unsigned)c;
    }
}

/* Row k of the table: E_k(L) for L = 0..LMAX. Called under t->lock. */
static void fill_row(line_table *t, unsigned k)
{
    subset_class *cls = t->classes;
    const wide a = 1 - (wide)16 / t->slots;
    uint32_t query = 0; /* D_k as a 16-bit set */
    for (unsigned i = 0; i < k; i++)
        query |= 1u << bl_blocked_offsets[k][i];
    uint32_t window[16]; /* its translates r + D_k */
    for (unsigned r = 0; r < 16; r++)
        window[r] = ((query << r) | (query >> (16 - r))) & 0xffffu;
    unsigned ncls = 0;
    memset(t->class_at, 0, sizeof t->class_at);
    for (uint32_t set = query;; set = (set - 1) & query) { /* every subset of D_k */
        uint8_t meets[BL_K_MAX_BLOCKED + 1] = {0};
        for (unsigned r = 0; r < 16; r++)
            meets[popcount16(set & window[r])]++;
        const unsigned before = ncls, c = class_of(t, &ncls, meets, k);
        if (ncls > before) { /* a new class */
            wide f = 0, am = 1;
            for (unsigned j = 0; j <= k; j++, am *= a)
                f += meets[j] * am;
            cls[c].f = f / 16;
            cls[c].coef = 0;
        }
        if (c < ncls)
            cls[c].coef += (popcount16(set) & 1) ? -1 : 1;
        if (set == 0)
            break;
    }
    wide *pw = t->powers;
    for (unsigned c = 0; c < ncls; c++)
        pw[c] = 1;
    for (unsigned L = 0; L <= PRECISE_LOADS; L++) {
        wide e = 0;
        for (unsigned c = 0; c < ncls; c++) {
            e += cls[c].coef * pw[c];
            pw[c] *= cls[c].f;
        }
        t->e[k][L] = unit_clamp((long double)e);
    }
    long double *pl = t->powers_ld, *fl = t->f_ld; /* go on from f^(PRECISE_LOADS + 1) */
    for (unsigned c = 0; c < ncls; c++) {
        pl[c] = (long double)pw[c];
        fl[c] = (long double)cls[c].f;
    }
    for (unsigned L = PRECISE_LOADS + 1; L <= LMAX; L++) {
        long double e = 0;
        for (unsigned c = 0; c < ncls; c++) {
            e += cls[c].coef * pl[c];
            pl[c] *= fl[c];
        }
        t->e[k][L] = unit_clamp(e);
    }
}

/* Row k, filled first if no thread has yet. */
static const double *table_row(line_table *t, unsigned k)
{
    if (!__atomic_load_n(&t->filled[k], __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&t->lock);
        if (!t->filled[k]) {
            fill_row(t, k);
            __atomic_store_n(&t->filled[k], true, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&t->lock);
    }
    return t->e[k];
}

/* log(n!) for the Poisson terms. lgamma_r, not lgamma: lgamma also stores the sign of Gamma in
 * the global signgam, so every sizing and every bl_get_info wrote it, racing with other threads
 * doing the same (bloomline.h lets many threads read a filter at once) and clobbering the
 * caller's own signgam. */
static double log_factorial(unsigned n)
{
    int sign_unused;
    return lgamma_r(n + 1.0, &sign_unused);
}

/* Sum f(L) * Poisson(L; lambda) over the loads that matter. Returns -1 when loads beyond LMAX
 * would matter (lambda too large for the table). */
static double poisson_mix(const double *e, double lambda)
{
    if (lambda <= 0)
        return 0;
    const double spread = 12 * sqrt(lambda) + 30;
    const double hi_d = ceil(lambda + spread);
    if (hi_d > LMAX) /* checked first: only then do the bounds fit in an unsigned */
        return -1;
    const double lo_d = floor(lambda - spread);
    const unsigned lo = lo_d < 0 ? 0 : (unsigned)lo_d;
    const unsigned hi = (unsigned)hi_d;
    /* Start from log pmf at lo, then step with the ratio lambda / L: no underflow at large lambda. */
    double logp = -lambda + lo * log(lambda) - log_factorial(lo);
    double p = exp(logp), sum = 0;
    for (unsigned L = lo; L <= hi; L++) {
        sum += p * e[L];
        p *= lambda / (L + 1);
    }
    return sum;
}

double bl_model_line_clear_log(unsigned slots, unsigned k)
{
    return log1p(-(double)k / slots); /* k distinct slots of the line */
}

double bl_model_line_fpp(unsigned slots, unsigned k, double lambda)
{
    if (k < 1 || k > BL_K_MAX_BLOCKED || !(lambda >= 0))
        return 1.0;
    double r = poisson_mix(table_row(slots == 128 ? &table128 : &table512, k), lambda);
    if (r < 0) /* overloaded lines: the rate is near 1 anyway; use the fill^k estimate */
        r = pow(-expm1(lambda * bl_model_line_clear_log(slots, k)), k);
    return r > 1 ? 1 : r;
}

/* Parquet block: each key sets exactly one of the 32 bits of each of the 8 words. */
static double sbbf_block_rate(unsigned L) { return pow(-expm1(L * log1p(-1.0 / 32)), 8); }

double bl_model_sbbf_fpp(double lambda)
{
    if (!(lambda > 0))
        return 0;
    const double spread = 12 * sqrt(lambda) + 30;
    const double hi_d = ceil(lambda + spread);
    if (hi_d > 1e7) /* checked first: only then do the bounds fit in an unsigned */
        return 1.0;
    const double lo_d = floor(lambda - spread);
    const unsigned lo = lo_d < 0 ? 0 : (unsigned)lo_d;
    const unsigned hi = (unsigned)hi_d;
    double p = exp(-lambda + lo * log(lambda) - log_factorial(lo)), sum = 0;
    for (unsigned L = lo; L <= hi; L++) {
        sum += p * sbbf_block_rate(L);
        p *= lambda / (L + 1);
    }
    return sum > 1 ? 1 : sum;
}

/*
 * Classic (Guava's scheme): probe i of a key is ((h1 + i*h2) & INT64_MAX) mod m, an arithmetic
 * progression, not k independent bits, and the usual fill^k misses two ways in which a
 * progression's bits meet. Their excess is ~1/m: sized by fill^k alone, filters of 1 to 3000 keys
 * measured 2-275x p at p = 1e-4..1e-5, and large ones exceed p once p nears 1/m (10^6 keys at
 * 1e-9: m = 4.3e7 bits).
 * - Collapse: a step of period j < k leaves j distinct bits, rate fill^j instead of fill^k.
 *   With m = 2^v o (o odd, v >= 6: m is whole 64-bit words) a power of two, that is exact: for
 *   each power of two j, phi(j) = j/2 of the m steps d = h2 mod m (1 for j = 1) have period j.
 *   Other m do not divide 2^63, so & INT64_MAX shifts the progression by 2^63 mod m at each wrap,
 *   and most periods break: simulated (20-40 million keys per m), m = 6400..114688 at k = 4..32
 *   gave j = 1 to 1/(k-1) of what a power of two does, and j distinct bits in at most
 *   1.4 j^2 / (k - 1) steps of m (the worst case j = 2 at k = 4: 1.7 of 1.87). A small o also
 *   confines one key in 2^v to o bits (m = 192, o = 3: 2.8 of m at j = 3), charged as o steps.
 * - Runs: a query whose step is an added key's, or its negative (the same cycle walked back),
 *   and lies s steps off it shares k - |s| of its bits (probability 2n/m^2 per s, times the mean
 *   gcd of the step with 2^v, v/2 + 1, whose cycles are that much shorter). For m not a power
 *   of two the wraps break runs as they break periods: charged 1.4/(k - 1) of that, as j = 1
 *   is above (sized filters of 30 to 10^4 keys at p = 1e-7..1e-8, where this term leads,
 *   measured 0.35-0.7 p over 10^9 to 4 10^9 queries each).
 * Measured over m = 64..96000 bits, k = 2..24 at full, a third and a tenth of the design load
 * (400 filters each; tests/test_sizing.c does the same with sized filters), and m from 2k^2 up at
 * k = 32..255: at most the model's rate. Both terms are ~1/m, so they matter where p is not far
 * below 1/m.
 */
double bl_model_classic_fpp(double m, unsigned k, double n)
{
    if (!(m >= 1) || k == 0)
        return 1.0;
    if (n <= 0)
        return 0;
    return bl_model_classic_fpp_fill(m, k, -expm1((double)k * n * log1p(-1.0 / m)), n);
}

double bl_model_classic_fpp_fill(double m, unsigned k, double fill, double n)
{
    /* Fewer than 2k^2 bits: a key's progression covers whole cosets of its step and the fill
     * varies from filter to filter far more than fill^j assumes; measured, such filters answered
     * yes up to 13x more often than this model says (m = 6400 at k = 255; 1.2-1.3x at m = k^2
     * for k = 32..128; 1.6x at m = 64, k = 17), and a forced k = 128 in 128 bits set every bit.
     * Not modeled: rated 1, so sizing with a forced k grows the filter to 2k^2 bits at least. */
    if (!(m >= 1) || k == 0 || 2.0 * k * k > m)
        return 1.0;
    const double all = pow(fill, k);
    /* Past 2^53 bits m is no longer an exact integer, and the excess (~1/m) is below 1e-16. */
    if (m > 0x1p53)
        return all;
    const uint64_t bits = (uint64_t)m;
    const unsigned v = (unsigned)__builtin_ctzll(bits);
    const uint64_t odd = bits >> v;
    double rate = all, fill_j = 1, runs = 1;
    for (unsigned j = 1; j < k; j++) {
        fill_j *= fill; /* fill^j */
        double steps = 0; /* of m, those leaving j distinct bits */
        if (odd == 1)
            steps = (j & (j - 1)) == 0 ? (j == 1 ? 1 : j / 2) : 0;
        else
            steps = 1.4 * j * j / (k - 1) + (j == odd ? (double)odd : 0);
        rate += steps / m * (fill_j - all);
        runs += 2 * fill_j;
    }
    rate += 2 * n / (m * m) * (v / 2.0 + 1) * runs * (odd == 1 ? 1 : 1.4 / (k - 1));
    return rate > 1 ? 1 : rate;
}

/* Whole blocks of block_bits covering `bits`, rounded up without the wrap of (bits + b - 1) / b,
 * which took sizes within a block of 2^64 to 0 blocks and so rated such a filter, empty, at 1. */
static uint64_t blocks_for(uint64_t bits, uint64_t block_bits)
{
    return bits / block_bits + (bits % block_bits != 0);
}

double bl_expected_fpp(bl_layout layout, uint64_t bits, unsigned k, uint64_t n)
{
    /* A k the layout cannot have (sbbf's model has no k, so it would rate any) is an impossible
     * geometry, rated 1 like one of 0 bits. */
    if (bits == 0 || !bl_layout_k_valid(layout, k))
        return 1.0;
    switch (layout) {
    case BL_LAYOUT_BLOCKED:
        return bl_model_line_fpp(BL_LINE_BITS, k, (double)n / (double)blocks_for(bits, BL_LINE_BITS));
    case BL_LAYOUT_COUNTING:
        return bl_model_line_fpp(BL_COUNTING_SLOTS, k,
                                 (double)n / (double)blocks_for(bits, BL_LINE_BITS));
    case BL_LAYOUT_SBBF:
        return bl_model_sbbf_fpp((double)n / (double)blocks_for(bits, 256));
    case BL_LAYOUT_CLASSIC: /* m = whole 64-bit words, as a double: 2^64 itself does not wrap */
        return bl_model_classic_fpp((double)blocks_for(bits, 64) * 64, k, (double)n);
    case BL_LAYOUT_SCALABLE:
        break;
    }
    return 1.0;
}

/* ---- Searches -------------------------------------------------------------------------------- */


typedef struct geometry {
    bl_layout layout;
    uint64_t block_bits;
    unsigned kmin, kmax;
} geometry;

/* The unit and the k of a fixed-size layout, from the layout's own definitions (filter.c).
 * BL_E_BAD_LAYOUT for an unknown layout, BL_E_UNSUPPORTED for scalable (no single size). */
static bl_status geometry_of(bl_layout layout, geometry *g)
{
    const bl_status st = bl_layout_k_range(layout, &g->kmin, &g->kmax);
    if (st != BL_OK)
        return st;
    const size_t block_bytes = bl_layout_block_bytes(layout);
    if (block_bytes == 0)
        return BL_E_UNSUPPORTED;
    g->layout = layout;
    g->block_bits = (uint64_t)block_bytes * 8;
    /* Past k = 64 a classic filter would need a rate below 1e-19; Guava's range is 1..255. */
    if (g->kmax > 64)
        g->kmax = 64;
    return BL_OK;
}

static double rate_of(const geometry *g, uint64_t blocks, unsigned k, uint64_t n)
{
    return bl_expected_fpp(g->layout, blocks * g->block_bits, k, n);
}

/* The k of the lowest rate at this size (the first of equals). */
static unsigned best_k_at(const geometry *g, uint64_t blocks, uint64_t n)
{
    unsigned best_k = g->kmin;
    double best_rate = 2;
    for (unsigned kk = g->kmin; kk <= g->kmax; kk++) {
        const double r = rate_of(g, blocks, kk, n);
        if (r < best_rate) {
            best_rate = r;
            best_k = kk;
        }
    }
    return best_k;
}

/* A block count with rate <= p for this k, by bisection: the smallest where the rate falls as
 * blocks grow. Classic's rate also depends a little on m's factors (a power of two collapses
 * more), so there the count found meets p but may be a few percent above the smallest (at most
 * 5.9% over 45 cases of n = 10..1000). 0 if none fits. */
static uint64_t min_blocks(const geometry *g, unsigned k, uint64_t n, double p, uint64_t limit)
{
    uint64_t hi = 1;
    while (rate_of(g, hi, k, n) > p) {
        if (hi >= limit)
            return 0;
        hi = hi * 2 > limit ? limit : hi * 2;
    }
    uint64_t lo = hi / 2; /* rate(lo) > p, or lo == 0 */
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (rate_of(g, mid, k, n) <= p)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

static uint64_t round_pow2(uint64_t x)
{
    uint64_t r = 1;
    while (r < x)
        r <<= 1;
    return r;
}

/* k_forced == 0: the best k; else the smallest size at which that k meets fpp. A caller who
 * forces k still asked for rate fpp: sizing for the best k and then swapping the k in gave,
 * e.g., a 9.6% filter for p = 1% with k = 1. */
bl_status bl_size_for_fpp_k(bl_layout layout, uint64_t n, double fpp, unsigned k_forced,
                            uint64_t *bits, unsigned *k)
{
    geometry g;
    if (bits == NULL || k == NULL || n == 0 || !(fpp > 0 && fpp < 1))
        return BL_E_INVALID;
    const bl_status gst = geometry_of(layout, &g);
    if (gst != BL_OK)
        return gst;
    if (k_forced != 0) {
        if (!bl_layout_k_valid(layout, k_forced))
            return BL_E_BAD_K;
        g.kmin = g.kmax = k_forced;
    }
    const uint64_t limit = bl_layout_max_blocks(layout);
    uint64_t best = 0;
    unsigned best_k = 0;
    for (unsigned kk = g.kmin; kk <= g.kmax; kk++) {
        uint64_t b = min_blocks(&g, kk, n, fpp, best ? best : limit);
        if (b != 0 && (best == 0 || b < best)) {
            best = b;
            best_k = kk;
        }
    }
    if (best == 0)
        return BL_E_TOO_LARGE;
    /* Parquet writers size split-block filters to a power of two between 32 bytes and 128 MiB;
     * do the same when the size fits, so filters drop into Parquet files unchanged. */
    if (layout == BL_LAYOUT_SBBF) {
        uint64_t pow2 = round_pow2(best);
        if (pow2 * BL_SBBF_BLOCK_BYTES <= (UINT64_C(128) << 20))
            best = pow2;
    }
    *bits = best * g.block_bits;
    *k = best_k;
    return BL_OK;
}

bl_status bl_size_for_fpp(bl_layout layout, uint64_t n, double fpp, uint64_t *bits, unsigned *k)
{
    return bl_size_for_fpp_k(layout, n, fpp, 0, bits, k);
}

bl_status bl_size_for_bits_per_key(bl_layout layout, uint64_t n, double bits_per_key,
                                   uint64_t *bits, unsigned *k)
{
    geometry g;
    if (bits == NULL || k == NULL || n == 0 || !(bits_per_key > 0) || !isfinite(bits_per_key))
        return BL_E_INVALID;
    const bl_status gst = geometry_of(layout, &g);
    if (gst != BL_OK)
        return gst;
    const double total = ceil((double)n * bits_per_key);
    if (total > (double)BL_MAX_PAYLOAD_BYTES * 8)
        return BL_E_TOO_LARGE;
    uint64_t blocks = ((uint64_t)total + g.block_bits - 1) / g.block_bits;
    if (blocks == 0)
        blocks = 1;
    if (blocks > bl_layout_max_blocks(layout))
        return BL_E_TOO_LARGE;
    *bits = blocks * g.block_bits;
    *k = best_k_at(&g, blocks, n);
    return BL_OK;
}

bl_status bl_best_k_for_bits(bl_layout layout, uint64_t bits, uint64_t n, unsigned *k)
{
    geometry g;
    const bl_status st = geometry_of(layout, &g);
    if (st == BL_OK)
        *k = best_k_at(&g, bits / g.block_bits, n);
    return st;
}
