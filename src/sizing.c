/* SPDX-License-Identifier: MIT */
/* False-positive models for each layout, and the searches that size filters with them. */
#include "internal.h"

#include <math.h>
#include <pthread.h>

/*
 * Line filters (blocked: 512 bit slots per line; counting: 128 counter slots). A line holding L
 * keys has received t = kL uniform throws. A query's k throws hit j distinct slots with
 * probability S(k,j) (B)_j / B^k (Stirling numbers of the second kind), and j given slots are all
 * hit after t throws with probability Q(j,t) = sum_i (-1)^i C(j,i) (1 - i/B)^t. So
 *     E_k(L) = sum_j S(k,j) (B)_j / B^k * Q(j, kL)
 * is the exact rate of a line with L keys, and the filter's rate mixes E_k(L) over the Poisson
 * distribution of line loads. The usual fill^k shortcut underestimates it by about 1% at 10
 * bits/key, and the classic formula by 15%: both would size filters that miss their target.
 * The alternating sum is evaluated in long double; j <= 16 keeps its cancellation error
 * below 1e-14 in absolute terms, far under any rate we size for.
 */
#define LMAX 2048 /* loads beyond this only matter when the rate is essentially 1 */

typedef struct line_table {
    pthread_once_t once;
    unsigned slots;
    double e[BL_K_MAX_BLOCKED + 1][LMAX + 1];
} line_table;

static line_table table512 = {PTHREAD_ONCE_INIT, 512, {{0}}};
static line_table table128 = {PTHREAD_ONCE_INIT, 128, {{0}}};

static void fill_table(line_table *t)
{
    const long double B = t->slots;
    long double binom[BL_K_MAX_BLOCKED + 1][BL_K_MAX_BLOCKED + 1] = {{0}};
    long double stirling[BL_K_MAX_BLOCKED + 1][BL_K_MAX_BLOCKED + 1] = {{0}};
    for (unsigned n = 0; n <= BL_K_MAX_BLOCKED; n++) {
        binom[n][0] = 1;
        for (unsigned r = 1; r <= n; r++)
            binom[n][r] = binom[n - 1][r - 1] + (r < n ? binom[n - 1][r] : 0);
    }
    stirling[0][0] = 1;
    for (unsigned n = 1; n <= BL_K_MAX_BLOCKED; n++)
        for (unsigned j = 1; j <= n; j++)
            stirling[n][j] = j * stirling[n - 1][j] + stirling[n - 1][j - 1];

    for (unsigned k = 1; k <= BL_K_MAX_BLOCKED; k++) {
        long double distinct[BL_K_MAX_BLOCKED + 1]; /* P(k query throws hit j distinct slots) */
        for (unsigned j = 1; j <= k; j++) {
            long double falling = 1;
            for (unsigned r = 0; r < j; r++)
                falling *= (B - r) / B;
            distinct[j] = stirling[k][j] * falling / powl(B, (long double)(k - j));
        }
        long double step[BL_K_MAX_BLOCKED + 1], pw[BL_K_MAX_BLOCKED + 1];
        for (unsigned i = 0; i <= k; i++) {
            step[i] = powl(1.0L - i / B, (long double)k); /* one more key: k more throws */
            pw[i] = 1;
        }
        for (unsigned L = 0; L <= LMAX; L++) {
            long double e = 0;
            for (unsigned j = 1; j <= k; j++) {
                long double q = 0;
                for (unsigned i = 0; i <= j; i++)
                    q += ((i & 1) ? -1 : 1) * binom[j][i] * pw[i];
                if (q < 0)
                    q = 0;
                e += distinct[j] * q;
            }
            t->e[k][L] = (double)(e > 1 ? 1 : e);
            for (unsigned i = 0; i <= k; i++)
                pw[i] *= step[i];
        }
    }
}
static void fill512(void) { fill_table(&table512); }
static void fill128(void) { fill_table(&table128); }

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
    double logp = -lambda + lo * log(lambda) - lgamma(lo + 1.0);
    double p = exp(logp), sum = 0;
    for (unsigned L = lo; L <= hi; L++) {
        sum += p * e[L];
        p *= lambda / (L + 1);
    }
    return sum;
}

double bl_model_line_fpp(unsigned slots, unsigned k, double lambda)
{
    if (k < 1 || k > BL_K_MAX_BLOCKED || !(lambda >= 0))
        return 1.0;
    line_table *t = slots == 128 ? &table128 : &table512;
    pthread_once(&t->once, slots == 128 ? fill128 : fill512);
    double r = poisson_mix(t->e[k], lambda);
    if (r < 0) /* overloaded lines: the rate is near 1 anyway; use the fill^k estimate */
        r = pow(-expm1(lambda * k * log1p(-1.0 / slots)), k);
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
    double p = exp(-lambda + lo * log(lambda) - lgamma(lo + 1.0)), sum = 0;
    for (unsigned L = lo; L <= hi; L++) {
        sum += p * sbbf_block_rate(L);
        p *= lambda / (L + 1);
    }
    return sum > 1 ? 1 : sum;
}

double bl_model_classic_fpp(uint64_t m, unsigned k, double n)
{
    if (m == 0 || k == 0)
        return 1.0;
    if (n <= 0)
        return 0;
    double fill = -expm1((double)k * n * log1p(-1.0 / (double)m));
    return pow(fill, k);
}

double bl_expected_fpp(bl_layout layout, uint64_t bits, unsigned k, uint64_t n)
{
    if (bits == 0)
        return 1.0;
    switch (layout) {
    case BL_LAYOUT_BLOCKED: {
        uint64_t lines = (bits + BL_LINE_BITS - 1) / BL_LINE_BITS;
        return bl_model_line_fpp(BL_LINE_BITS, k, (double)n / (double)lines);
    }
    case BL_LAYOUT_COUNTING: {
        uint64_t lines = (bits + BL_LINE_BITS - 1) / BL_LINE_BITS;
        return bl_model_line_fpp(BL_COUNTING_SLOTS, k, (double)n / (double)lines);
    }
    case BL_LAYOUT_SBBF: {
        uint64_t blocks = (bits + 255) / 256;
        return bl_model_sbbf_fpp((double)n / (double)blocks);
    }
    case BL_LAYOUT_CLASSIC:
        return bl_model_classic_fpp((bits + 63) / 64 * 64, k, (double)n);
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

static bool geometry_of(bl_layout layout, geometry *g)
{
    g->layout = layout;
    switch (layout) {
    case BL_LAYOUT_BLOCKED: *g = (geometry){layout, BL_LINE_BITS, 1, BL_K_MAX_BLOCKED}; return true;
    case BL_LAYOUT_COUNTING: *g = (geometry){layout, BL_LINE_BITS, 1, BL_K_MAX_BLOCKED}; return true;
    case BL_LAYOUT_SBBF: *g = (geometry){layout, 256, BL_SBBF_K, BL_SBBF_K}; return true;
    /* Past k = 64 a classic filter would need a rate below 1e-19; Guava's range is 1..255. */
    case BL_LAYOUT_CLASSIC: *g = (geometry){layout, 64, 1, 64}; return true;
    case BL_LAYOUT_SCALABLE: break;
    }
    return false;
}

static double rate_of(const geometry *g, uint64_t blocks, unsigned k, uint64_t n)
{
    return bl_expected_fpp(g->layout, blocks * g->block_bits, k, n);
}

/* Smallest block count with rate <= p for this k (rate falls as blocks grow). 0 if none fits. */
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

bl_status bl_size_for_fpp(bl_layout layout, uint64_t n, double fpp, uint64_t *bits, unsigned *k)
{
    geometry g;
    if (bits == NULL || k == NULL || n == 0 || !(fpp > 0 && fpp < 1))
        return BL_E_INVALID;
    if (!geometry_of(layout, &g))
        return BL_E_UNSUPPORTED;
    const uint64_t limit = BL_MAX_PAYLOAD_BYTES * 8 / g.block_bits;
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

bl_status bl_size_for_bits_per_key(bl_layout layout, uint64_t n, double bits_per_key,
                                   uint64_t *bits, unsigned *k)
{
    geometry g;
    if (bits == NULL || k == NULL || n == 0 || !(bits_per_key > 0) || !isfinite(bits_per_key))
        return BL_E_INVALID;
    if (!geometry_of(layout, &g))
        return BL_E_UNSUPPORTED;
    const double total = ceil((double)n * bits_per_key);
    if (total > (double)BL_MAX_PAYLOAD_BYTES * 8)
        return BL_E_TOO_LARGE;
    uint64_t blocks = ((uint64_t)total + g.block_bits - 1) / g.block_bits;
    if (blocks == 0)
        blocks = 1;
    unsigned best_k = g.kmin;
    double best_rate = 2;
    for (unsigned kk = g.kmin; kk <= g.kmax; kk++) {
        double r = rate_of(&g, blocks, kk, n);
        if (r < best_rate) {
            best_rate = r;
            best_k = kk;
        }
    }
    *bits = blocks * g.block_bits;
    *k = best_k;
    return BL_OK;
}
