/* SPDX-License-Identifier: MIT */
/* bench_fpr: measured false-positive rates vs bits per key and vs the requested rate, against
 * each layout's model and the classic formula, with 3-standard-error bounds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "bloomline.h"

#define CHUNK 65536u

typedef struct fpr_cfg {
    uint64_t n;         /* keys added */
    uint64_t q_min;     /* queries of absent keys, at least */
    uint64_t q_max;     /* and at most */
    double q_expected;  /* aim for this many expected false positives */
} fpr_cfg;

/* The classic formula (1 - e^{-kn/m})^k. */
static double classic_formula(double m, double k, double n) { return pow(-expm1(-k * n / m), k); }

/* The classic formula at its best integer k for m/n bits per key. */
static double classic_best(double bpk)
{
    double best = 1;
    for (int k = 1; k <= 64; k++) {
        double f = classic_formula(bpk, k, 1);
        if (f < best)
            best = f;
    }
    return best;
}

/* Added keys that the filters built here did not find (the run then fails). */
static uint64_t false_negatives;
/* Filters that could not be created (their rows are missing; the run fails too). */
static int failed;

static bool build(bl_filter **out, bl_layout lay, uint64_t n, double fpp, double bpk,
                  uint64_t *buf)
{
    bl_params p;
    bl_params_init(&p);
    p.layout = lay;
    p.expected_keys = n;
    if (bpk > 0)
        p.bits_per_key = bpk;
    else
        p.fpp = fpp;
    bl_status st = bl_create(out, &p);
    if (st != BL_OK) {
        fprintf(stderr, "bench_fpr: %s n=%llu p=%g bpk=%g: %s\n", bl_layout_name(lay),
                (unsigned long long)n, fpp, bpk, bl_strerror(st));
        failed++;
        return false;
    }
    for (uint64_t i = 0; i < n; i += CHUNK) {
        size_t c = (size_t)(n - i < CHUNK ? n - i : CHUNK);
        bb_keys_u64(buf, i, c);
        bl_add_u64_batch(*out, buf, c);
    }
    /* Every added key must be found: a rate measured on a filter that loses keys means nothing,
     * and the run fails (main's exit status: bench/run stops there). */
    uint64_t found = 0;
    for (uint64_t i = 0; i < n; i += CHUNK) {
        size_t c = (size_t)(n - i < CHUNK ? n - i : CHUNK);
        bb_keys_u64(buf, i, c);
        found += bl_contains_u64_batch(*out, buf, c, NULL);
    }
    if (found != n) {
        false_negatives += n - found;
        fprintf(stderr, "bench_fpr: %s n=%llu p=%g bpk=%g: FALSE NEGATIVES: %llu of %llu keys\n",
                bl_layout_name(lay), (unsigned long long)n, fpp, bpk,
                (unsigned long long)(n - found), (unsigned long long)n);
    }
    return true;
}

/* Query q absent keys; returns the false positives. Absent key streams differ per call (salt)
 * so the curves are independent samples. */
static uint64_t count_fp(const bl_filter *f, uint64_t q, uint64_t salt, uint64_t *buf)
{
    uint64_t fp = 0;
    for (uint64_t i = 0; i < q; i += CHUNK) {
        size_t c = (size_t)(q - i < CHUNK ? q - i : CHUNK);
        bb_keys_u64(buf, BB_ABSENT + (salt << 40) + i, c);
        fp += bl_contains_u64_batch(f, buf, c, NULL);
    }
    return fp;
}

static uint64_t queries_for(const fpr_cfg *cfg, double rate)
{
    double q = cfg->q_expected / (rate > 1e-12 ? rate : 1e-12);
    if (q < (double)cfg->q_min)
        q = (double)cfg->q_min;
    if (q > (double)cfg->q_max)
        q = (double)cfg->q_max;
    return ((uint64_t)q + CHUNK - 1) / CHUNK * CHUNK;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: bench_fpr [--keys 1e6] [--queries-min 2e6] [--queries-max 1e8]\n"
                 "                 [--layouts blocked,sbbf,...] [--csv-bpk FILE] [--csv-p FILE]\n"
                 "                 [--csv-space FILE]\n"
                 "                 [--quick]\n"
                 "Keys: 1 to 2^62. Queries (absent keys per row, rounded up to 65536): 1 to 2^40.\n"
                 "Layouts: blocked,sbbf,classic,counting,scalable.\n");
}

int main(int argc, char **argv)
{
    const char *prog = "bench_fpr";
    fpr_cfg cfg = {1000000, 2000000, 100000000, 200};
    const char *layouts_arg = NULL, *csv_bpk = NULL, *csv_p = NULL, *csv_space = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--quick")) {
            cfg.n = 20000, cfg.q_min = 65536, cfg.q_max = 1 << 20, cfg.q_expected = 50;
            continue;
        }
        bool ok;
        /* Present keys are indexes below n, absent ones start at 2^62 and the rows' absent
         * streams 2^40 apart: larger values would query added keys as absent ones. */
        if (!strcmp(a, "--keys"))
            ok = bb_arg_count(prog, a, v, 1, BB_ABSENT, &cfg.n);
        else if (!strcmp(a, "--queries-min"))
            ok = bb_arg_count(prog, a, v, 1, UINT64_C(1) << 40, &cfg.q_min);
        else if (!strcmp(a, "--queries-max"))
            ok = bb_arg_count(prog, a, v, 1, UINT64_C(1) << 40, &cfg.q_max);
        else if (!strcmp(a, "--layouts"))
            ok = bb_arg_string(prog, a, v, &layouts_arg);
        else if (!strcmp(a, "--csv-bpk"))
            ok = bb_arg_string(prog, a, v, &csv_bpk);
        else if (!strcmp(a, "--csv-p"))
            ok = bb_arg_string(prog, a, v, &csv_p);
        else if (!strcmp(a, "--csv-space"))
            ok = bb_arg_string(prog, a, v, &csv_space);
        else
            return bb_arg_error(prog, "unknown option '%s'", a);
        if (!ok)
            return 2;
        i++;
    }
    if (cfg.q_max < cfg.q_min)
        return bb_arg_error(prog, "--queries-max %llu is below --queries-min %llu",
                            (unsigned long long)cfg.q_max, (unsigned long long)cfg.q_min);
    static const bl_layout all[] = {BL_LAYOUT_BLOCKED, BL_LAYOUT_SBBF, BL_LAYOUT_CLASSIC,
                                    BL_LAYOUT_COUNTING, BL_LAYOUT_SCALABLE};
    const char *names[5];
    for (int i = 0; i < 5; i++)
        names[i] = bl_layout_name(all[i]);
    /* Exact names: "block" (a substring of one) once selected blocked alone, "foo" nothing. */
    if (layouts_arg != NULL && !bb_arg_names(prog, "--layouts", layouts_arg, names, 5))
        return 2;
    bl_layout lays[5];
    int nlay = 0;
    for (int i = 0; i < 5; i++) {
        if (!bb_in_list(layouts_arg, names[i]))
            continue;
        if (bb_layout_works(all[i]))
            lays[nlay++] = all[i];
        else
            printf("# layout %s: not implemented in this build, skipped\n", names[i]);
    }
    /* All three before the first row: a bad path stops the run before it starts. */
    FILE *cb = bb_csv_open(csv_bpk, "layout,bpk_requested,bits_per_key,k,queries,fp,measured,se,"
                                    "model,classic_same_mk,classic_best");
    FILE *cp = bb_csv_open(csv_p, "layout,p,bits_per_key,k,queries,fp,measured,se,bound,pass");
    FILE *cs = bb_csv_open(csv_space, "p,classic_bpk,classic_k,blocked_bpk,blocked_k,ratio,"
                                      "sbbf_bpk,formula_bpk");
    if ((csv_bpk != NULL && cb == NULL) || (csv_p != NULL && cp == NULL) ||
        (csv_space != NULL && cs == NULL))
        return 1;
    uint64_t *buf = bb_malloc(CHUNK * sizeof *buf);
    bb_pin_thread(-1);
    bb_print_machine(stdout);
    printf("# n = %llu keys per filter; absent-key queries sized for ~%.0f expected false "
           "positives (%llu..%llu); SE = sqrt(r(1-r)/q)\n",
           (unsigned long long)cfg.n, cfg.q_expected, (unsigned long long)cfg.q_min,
           (unsigned long long)cfg.q_max);

    /* ---- 1. Rate vs bits per key ----------------------------------------------------------- */
    printf("\n## Measured false-positive rate vs bits per key\n\n");
    printf("| layout | bits/key asked | bits/key real | k | measured | +-1 SE | model | "
           "measured/model | classic formula (same m,k) | classic optimum at these bits |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int li = 0; li < nlay; li++) {
        if (lays[li] == BL_LAYOUT_SCALABLE) /* no fixed geometry: sized by rate only */
            continue;
        for (int b = 4; b <= 24; b++) {
            bl_filter *f;
            if (!build(&f, lays[li], cfg.n, 0, b, buf))
                continue;
            bl_info info;
            bl_get_info(f, &info);
            double model = bl_expected_fpp(lays[li], info.bits, info.k, cfg.n);
            /* The counting layout's bits are 4 per counter: its budget is bits of memory. */
            double m = (double)info.bits, bpk = m / (double)cfg.n;
            double cls = classic_formula(m, info.k, (double)cfg.n);
            uint64_t q = queries_for(&cfg, model);
            uint64_t fp = count_fp(f, q, (uint64_t)b, buf);
            double r = (double)fp / (double)q, se = sqrt(r * (1 - r) / (double)q);
            printf("| %s | %d | %.2f | %u | %.3e | %.1e | %.3e | %.3f | %.3e | %.3e |\n",
                   info.layout_name, b, bpk, info.k, r, se, model, model > 0 ? r / model : NAN,
                   cls, classic_best(bpk));
            if (cb)
                fprintf(cb, "%s,%d,%.4f,%u,%llu,%llu,%.6e,%.3e,%.6e,%.6e,%.6e\n",
                        info.layout_name, b, bpk, info.k, (unsigned long long)q,
                        (unsigned long long)fp, r, se, model, cls, classic_best(bpk));
            fflush(stdout);
            bl_free(f);
        }
    }

    /* ---- 2. Rate vs requested p ------------------------------------------------------------ */
    printf("\n## Honest sizing: measured rate vs requested p (pass: measured <= p + 3 SE)\n\n");
    printf("| layout | p | bits/key | k | queries | false pos. | measured | measured/p | p + 3 SE "
           "| pass |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    int fails = 0;
    for (int li = 0; li < nlay; li++) {
        for (int e = 1; e <= 6; e++) {
            const double p = pow(10, -e);
            bl_filter *f;
            if (!build(&f, lays[li], cfg.n, p, 0, buf))
                continue;
            bl_info info;
            bl_get_info(f, &info);
            uint64_t q = queries_for(&cfg, p);
            uint64_t fp = count_fp(f, q, 100 + (uint64_t)e, buf);
            double r = (double)fp / (double)q;
            /* The standard error of the rate under the hypothesis that it equals p. */
            double bound = p + 3 * sqrt(p * (1 - p) / (double)q);
            bool pass = r <= bound;
            fails += !pass;
            printf("| %s | 1e-%d | %.2f | %u | %llu | %llu | %.3e | %.3f | %.3e | %s |\n",
                   info.layout_name, e, (double)info.bits / (double)cfg.n, info.k,
                   (unsigned long long)q, (unsigned long long)fp, r, r / p, bound,
                   pass ? "yes" : "**NO**");
            if (cp)
                fprintf(cp, "%s,%g,%.4f,%u,%llu,%llu,%.6e,%.3e,%.6e,%d\n", info.layout_name, p,
                        (double)info.bits / (double)cfg.n, info.k, (unsigned long long)q,
                        (unsigned long long)fp, r, sqrt(p * (1 - p) / (double)q), bound, pass);
            fflush(stdout);
            bl_free(f);
        }
    }

    /* ---- 3. Space: blocked vs classic at the same p (from the sizing models) ---------------- */
    printf("\n## Space for a target rate (bl_size_for_fpp, n = %llu)\n\n", (unsigned long long)cfg.n);
    printf("| p | classic bits/key (k) | blocked bits/key (k) | blocked / classic | sbbf bits/key | "
           "classic formula optimum bits/key |\n|---:|---:|---:|---:|---:|---:|\n");
    for (int e = 1; e <= 6; e++) {
        const double p = pow(10, -e);
        uint64_t bc = 0, bb = 0, bs = 0;
        unsigned kc = 0, kb = 0, ks = 0;
        bl_size_for_fpp(BL_LAYOUT_CLASSIC, cfg.n, p, &bc, &kc);
        bl_size_for_fpp(BL_LAYOUT_BLOCKED, cfg.n, p, &bb, &kb);
        bl_size_for_fpp(BL_LAYOUT_SBBF, cfg.n, p, &bs, &ks);
        const double nn = (double)cfg.n;
        printf("| 1e-%d | %.2f (%u) | %.2f (%u) | %.3f | %.2f | %.2f |\n", e, bc / nn, kc, bb / nn,
               kb, bc ? (double)bb / (double)bc : NAN, bs / nn, -log(p) / (log(2) * log(2)));
        if (cs)
            fprintf(cs, "%g,%.4f,%u,%.4f,%u,%.5f,%.4f,%.4f\n", p, bc / nn, kc, bb / nn, kb,
                    bc ? (double)bb / (double)bc : NAN, bs / nn, -log(p) / (log(2) * log(2)));
    }
    printf("\n# honest sizing: %d failure(s)\n", fails);
    free(buf);
    /* Every CSV is closed, so each failure is reported, not only the first. */
    const bool kept_bpk = bb_csv_close(cb, csv_bpk);
    const bool kept_p = bb_csv_close(cp, csv_p);
    const bool kept_space = bb_csv_close(cs, csv_space);
    const bool kept = kept_bpk && kept_p && kept_space;
    return false_negatives == 0 && failed == 0 && kept ? 0 : 1;
}
