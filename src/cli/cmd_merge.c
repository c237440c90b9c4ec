/* SPDX-License-Identifier: MIT */
/* bloomline merge / intersect: the union or intersection of filters of one identity. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const struct option merge_longopts[] = {
    {"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};

/* Name the first identity field that differs, so the user knows which build option to change. */
static void explain_mismatch(const char *a_path, const bl_filter *a, const char *b_path,
                             const bl_filter *b)
{
    bl_info x, y;
    char why[256] = "different stage geometry";
    if (bl_get_info(a, &x) == BL_OK && bl_get_info(b, &y) == BL_OK) {
        /* a chain's identity is its design, not the size it has grown to or its newest k */
        const bool chain = x.layout == BL_LAYOUT_SCALABLE;
        if (x.layout != y.layout)
            snprintf(why, sizeof why, "layout %s vs %s", x.layout_name, y.layout_name);
        else if (chain && x.design_keys != y.design_keys)
            snprintf(why, sizeof why, "first stage for %llu vs %llu keys",
                     (unsigned long long)x.design_keys, (unsigned long long)y.design_keys);
        else if (chain && x.design_fpp != y.design_fpp)
            snprintf(why, sizeof why, "rate %g vs %g", x.design_fpp, y.design_fpp);
        else if (!chain && x.bits != y.bits)
            snprintf(why, sizeof why, "size %llu vs %llu bits", (unsigned long long)x.bits,
                     (unsigned long long)y.bits);
        else if (!chain && x.k != y.k)
            snprintf(why, sizeof why, "k %u vs %u", x.k, y.k);
        else if (x.hash != y.hash)
            snprintf(why, sizeof why, "hash %s vs %s", x.hash_name, y.hash_name);
        else if (x.seed != y.seed)
            snprintf(why, sizeof why, "seed %llu vs %llu", (unsigned long long)x.seed,
                     (unsigned long long)y.seed);
        else if (chain)
            snprintf(why, sizeof why, "growth, tightening or a stage's geometry");
    }
    cli_error("%s and %s differ in identity (%s): only filters built with the same layout, size, "
              "k and seed (scalable: the same -n, -p and seed) can be combined",
              a_path, b_path, why);
}

int cli_cmd_merge(int argc, char **argv)
{
    const bool intersect = strcmp(argv[0], "intersect") == 0;
    const char *out = NULL;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "o:h", merge_longopts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'h': return cli_print_help(argv[0]);
        default: return cli_bad_option(optopt, argv[optind - 1], merge_longopts);
        }
    }
    if (cli_check_output(out, "OUT") != 0)
        return CLI_EXIT_ERROR;
    if (argc - optind < 2)
        return cli_usage_error("give at least two filters to %s", argv[0]);
    if (cli_output_is_an_input(out, argv + optind, (size_t)(argc - optind), true,
                               "the result") != 0)
        return CLI_EXIT_ERROR;
    bl_filter *acc;
    const char *first = argv[optind];
    if (cli_open_filter(first, true, true, &acc, NULL) != 0)
        return CLI_EXIT_ERROR;
    int rc = 0;
    for (int i = optind + 1; i < argc && rc == 0; i++) {
        bl_filter *g;
        if (cli_open_filter(argv[i], false, true, &g, NULL) != 0) {
            rc = -1;
            break;
        }
        bl_status st = intersect ? bl_intersect(acc, g) : bl_union(acc, g);
        bl_info gi;
        if (st == BL_E_MISMATCH) {
            explain_mismatch(first, acc, argv[i], g);
            rc = -1;
        } else if (st == BL_E_UNSUPPORTED && intersect && bl_get_info(g, &gi) == BL_OK &&
                   gi.layout == BL_LAYOUT_SCALABLE) {
            /* bl_strerror's text for this status is about kernels and CPUs: name the layout. */
            cli_error("%s: scalable filters cannot be intersected (their stages fill in the "
                      "order keys came; merge them, or build a fixed-size layout with -n)",
                      argv[i]);
            rc = -1;
        } else if (st != BL_OK) {
            cli_status_error(argv[i], intersect ? "cannot intersect" : "cannot merge", st);
            rc = -1;
        }
        bl_free(g);
    }
    if (rc == 0)
        rc = cli_save_filter(acc, out);
    if (rc == 0)
        cli_warn_capacity(out, acc); /* a union holds the keys of all: it may pass the design */
    bl_free(acc);
    return rc == 0 ? CLI_EXIT_OK : CLI_EXIT_ERROR;
}
