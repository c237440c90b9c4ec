/* SPDX-License-Identifier: MIT */
/* bloomline build: a filter from newline-delimited keys, sized from the input when it can be. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Initial capacity of a scalable filter built from a stream of unknown length: 2^20 keys cost
 * about 1.5 MB at p = 1% (the first stage is sized for p/2), small enough for a tiny stream, big
 * enough that a large one grows through only a few stages (each twice the last). */
#define BUILD_SCALABLE_START (UINT64_C(1) << 20)

enum { OPT_SEED = 256, OPT_BITS, OPT_HELP };

static const struct option build_longopts[] = {
    {"output", required_argument, NULL, 'o'},
    {"keys", required_argument, NULL, 'n'},
    {"fpp", required_argument, NULL, 'p'},
    {"bits-per-key", required_argument, NULL, 'b'},
    {"layout", required_argument, NULL, 'l'},
    {"threads", required_argument, NULL, 't'},
    {"field", required_argument, NULL, 'f'},
    {"delimiter", required_argument, NULL, 'd'},
    {"quiet", no_argument, NULL, 'q'},
    {"null-data", no_argument, NULL, 'z'},
    CLI_COMMON_LONGOPT_MAX_LINE,
    {"seed", required_argument, NULL, OPT_SEED},
    {"bits", required_argument, NULL, OPT_BITS},
    {"hashes", required_argument, NULL, 'k'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

typedef struct build_opts {
    const char *out;
    uint64_t n;
    double fpp, bpk;
    bool fpp_set, bpk_set;
    bl_layout layout;
    bool layout_set;
    uint64_t seed;
    uint64_t bits;
    unsigned k;
    cli_common cm;
} build_opts;

static int parse(int argc, char **argv, build_opts *o)
{
    memset(o, 0, sizeof *o);
    o->layout = BL_LAYOUT_BLOCKED;
    cli_common_init(&o->cm);
    opterr = 0;
    int c;
    uint64_t v;
    while ((c = getopt_long(argc, argv, "o:n:p:b:l:k:h" CLI_COMMON_SHORTOPTS, build_longopts,
                            NULL)) != -1) {
        int r = cli_common_option(&o->cm, c, optarg);
        if (r < 0)
            return -1;
        if (r > 0)
            continue;
        switch (c) {
        case 'o': o->out = optarg; break;
        case 'n':
            if (cli_parse_u64("-n", optarg, 1, UINT64_C(1) << 48, &o->n) != 0)
                return -1;
            break;
        case 'p':
            if (cli_parse_double("-p", optarg, 0, 1, true, true, &o->fpp) != 0)
                return -1;
            o->fpp_set = true;
            break;
        case 'b':
            if (cli_parse_double("-b", optarg, 0, 1024, true, false, &o->bpk) != 0)
                return -1;
            o->bpk_set = true;
            break;
        case 'l':
            if (bl_layout_from_name(optarg, &o->layout) != BL_OK) {
                cli_usage_error("-l: unknown layout '%s' (blocked, sbbf, classic, counting, "
                                "scalable)", optarg);
                return -1;
            }
            o->layout_set = true;
            break;
        case 'k':
            if (cli_parse_u64("-k", optarg, 1, 255, &v) != 0)
                return -1;
            o->k = (unsigned)v;
            break;
        case OPT_SEED:
            if (cli_parse_u64("--seed", optarg, 0, UINT64_MAX, &o->seed) != 0)
                return -1;
            break;
        case OPT_BITS:
            if (cli_parse_u64("--bits", optarg, 1, UINT64_C(1) << 50, &o->bits) != 0)
                return -1;
            break;
        case 'h': return 1;
        default: cli_bad_option(optopt, argv[optind - 1], build_longopts); return -1;
        }
    }
    if (cli_check_output(o->out, "FILTER") != 0)
        return -1;
    if (o->fpp_set && o->bpk_set) {
        cli_usage_error("give -p or -b, not both");
        return -1;
    }
    if (o->bits && (o->fpp_set || o->bpk_set)) {
        cli_usage_error("--bits fixes the size: it cannot be combined with -p or -b");
        return -1;
    }
    if (o->bits && o->layout == BL_LAYOUT_SCALABLE) {
        cli_usage_error("--bits: a scalable filter has no fixed size");
        return -1;
    }
    return cli_common_finish(&o->cm);
}

/* How many keys to size for: -n, else the line count of regular files. 0 when the input is a
 * stream (the caller then grows a scalable filter); -1 on error. */
static int size_input(const build_opts *o, char *const *inputs, size_t n, uint64_t *keys)
{
    if (o->n) {
        *keys = o->n;
        return 0;
    }
    uint64_t lines;
    bool regular;
    int rc = cli_count_lines(inputs, n, o->cm.threads, o->cm.eol, o->cm.max_line, &lines,
                             &regular);
    if (rc < 0)
        return -1;
    *keys = regular ? (lines ? lines : 1) : 0;
    return 0;
}

static bl_status create(const build_opts *o, uint64_t keys, bl_layout layout, bl_filter **f)
{
    bl_params p;
    bl_params_init(&p);
    p.layout = layout;
    p.expected_keys = keys;
    p.seed = o->seed;
    p.k = o->k;
    if (o->fpp_set)
        p.fpp = o->fpp;
    if (o->bpk_set)
        p.bits_per_key = o->bpk;
    /* an explicit size (e.g. a power-of-two Parquet bitset) for these keys */
    return o->bits ? bl_create_with_bits(f, &p, o->bits) : bl_create(f, &p);
}

/* A refused allocation says only "out of memory": the size the design needs shows a -n or -p
 * off by orders of magnitude (-n 1T asks for 1.1 TiB). Empty when it cannot be told. */
static void needed_size(const build_opts *o, uint64_t keys, bl_layout layout, char *out,
                        size_t cap)
{
    bl_params p;
    bl_params_init(&p);
    uint64_t bits = o->bits;
    unsigned k;
    bl_status st = BL_OK;
    double fpp = o->fpp_set ? o->fpp : p.fpp;
    if (layout == BL_LAYOUT_SCALABLE) { /* its first stage: blocked, at the chain's first rate */
        layout = BL_LAYOUT_BLOCKED;
        fpp *= 1 - p.tightening;
    }
    if (bits == 0)
        st = o->bpk_set ? bl_size_for_bits_per_key(layout, keys, o->bpk, &bits, &k)
                        : bl_size_for_fpp(layout, keys, fpp, &bits, &k);
    out[0] = '\0';
    if (st == BL_OK && bits > 0) {
        char size[32];
        cli_human_bytes((double)bits / 8, size, sizeof size);
        /* Sized by rate, a forced k other than the best needs more than this, the best k's
         * size; by bits or bits per key, the size is the one asked for whatever k. */
        const bool by_rate = o->bits == 0 && !o->bpk_set;
        snprintf(out, cap, " (it needs %s%s)", o->k && by_rate ? "at least " : "", size);
    }
}

/* -b or --bits so small that the design itself answers yes to most keys (the library refuses
 * only a rate of exactly 1; -b 0.01 for 5000 keys made one line, rate 0.9999). A rate asked for
 * with -p is the user's choice. */
static void warn_useless_design(const build_opts *o, const bl_filter *f, uint64_t keys)
{
    bl_info info;
    if (!(o->bpk_set || o->bits) || keys == 0 || bl_get_info(f, &info) != BL_OK)
        return;
    if (info.design_fpp > 0.5)
        cli_warn("%s: false-positive rate %.4g at %llu keys: it will answer yes to most keys "
                 "(give more bits, or size it with -p)",
                 o->out, info.design_fpp, (unsigned long long)keys);
}

int cli_cmd_build(int argc, char **argv)
{
    build_opts o;
    int pr = parse(argc, argv, &o);
    if (pr != 0)
        return pr > 0 ? cli_print_help("build") : CLI_EXIT_ERROR;
    size_t ninputs;
    char *const *inputs = cli_inputs(argc, argv, optind, &ninputs);
    o.cm.threads = cli_threads_for(o.cm.threads, inputs, ninputs);
    /* build -o keys.txt keys.txt replaced the key list with the filter, status 0 */
    if (cli_output_is_an_input(o.out, inputs, ninputs, false, "the filter") != 0)
        return CLI_EXIT_ERROR;

    uint64_t keys = 0;
    bl_layout layout = o.layout;
    if (layout == BL_LAYOUT_SCALABLE) {
        keys = o.n ? o.n : BUILD_SCALABLE_START;
    } else {
        if (size_input(&o, inputs, ninputs, &keys) != 0)
            return CLI_EXIT_ERROR;
        if (keys == 0) {
            /* A stream of unknown length: only the blocked layout has a growing form. */
            if (layout != BL_LAYOUT_BLOCKED || o.bits) {
                cli_usage_error("the input is not a regular file, so its keys cannot be counted: "
                                "give -n N to size a %s filter", bl_layout_name(layout));
                return CLI_EXIT_ERROR;
            }
            layout = BL_LAYOUT_SCALABLE;
            keys = BUILD_SCALABLE_START;
        }
    }
    if (layout == BL_LAYOUT_SCALABLE && (o.bpk_set || o.k)) {
        if (o.layout == BL_LAYOUT_SCALABLE) /* asked for, not chosen for a stream */
            cli_usage_error("-b and -k do not apply to a scalable filter: its stages are sized "
                            "by -p");
        else
            cli_usage_error("-b and -k need a fixed-size filter: give -n N (a stream without -n "
                            "grows a scalable filter, sized by -p)");
        return CLI_EXIT_ERROR;
    }
    bl_filter *f = NULL;
    bl_status st = create(&o, keys, layout, &f);
    if (st == BL_E_INVALID && (o.bits || o.bpk_set)) {
        /* The library refuses a design whose rate at n keys is 1: -b or --bits too small, or
         * too small for the -k forced with it (sized by -p, any k gets the size it needs). */
        char k_too[32] = "", asked[48];
        if (o.k)
            snprintf(k_too, sizeof k_too, " with -k %u", o.k);
        if (o.bits)
            snprintf(asked, sizeof asked, "--bits %llu", (unsigned long long)o.bits);
        else
            snprintf(asked, sizeof asked, "-b %g", o.bpk);
        cli_usage_error("%s%s: too few bits%s for %llu keys: the filter would answer yes to "
                        "every key", asked, k_too, o.bits ? "" : " per key",
                        (unsigned long long)keys);
        return CLI_EXIT_ERROR;
    }
    unsigned k_min, k_max;
    if (st == BL_E_BAD_K && o.k && bl_layout_k_range(layout, &k_min, &k_max) == BL_OK) {
        if (k_min == k_max)
            cli_usage_error("-k %u: a %s filter always uses %u hash functions", o.k,
                            bl_layout_name(layout), k_min);
        else
            cli_usage_error("-k %u: a %s filter takes %u to %u hash functions", o.k,
                            bl_layout_name(layout), k_min, k_max);
        return CLI_EXIT_ERROR;
    }
    if (st == BL_E_TOO_LARGE && o.bits == 0 && !o.bpk_set && o.k) {
        cli_usage_error("-k %u: no filter up to the size limit reaches the rate -p asks for "
                        "with %llu keys", o.k, (unsigned long long)keys);
        return CLI_EXIT_ERROR;
    }
    if (st != BL_OK) {
        char need[64] = "";
        if (st == BL_E_NOMEM)
            needed_size(&o, keys, layout, need, sizeof need);
        cli_error("cannot create a %s filter for %llu keys: %s%s", bl_layout_name(layout),
                  (unsigned long long)keys, bl_strerror(st), need);
        return CLI_EXIT_ERROR;
    }
    warn_useless_design(&o, f, keys);
    cli_feed_opts fo = {.layout = layout,
                        .inputs = inputs,
                        .ninputs = ninputs,
                        .field = o.cm.field,
                        .eol = o.cm.eol,
                        .max_line = o.cm.max_line,
                        .threads = o.cm.threads,
                        .quiet = o.cm.quiet};
    int rc = cli_feed(f, &fo, NULL);
    if (rc == 0)
        rc = cli_save_filter(f, o.out);
    if (rc == 0)
        cli_warn_capacity(o.out, f);
    bl_free(f);
    return rc == 0 ? CLI_EXIT_OK : CLI_EXIT_ERROR;
}
