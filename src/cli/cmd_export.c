/* SPDX-License-Identifier: MIT */
/* bloomline export: a filter as the bytes Parquet or Guava read. */
#include "cli.h"

#include <getopt.h>
#include <string.h>
#include <unistd.h>

static const struct option export_longopts[] = {{"format", required_argument, NULL, 'F'},
                                                {"output", required_argument, NULL, 'o'},
                                                {"help", no_argument, NULL, 'h'},
                                                {NULL, 0, NULL, 0}};

int cli_parse_format(const char *s, bl_foreign_format *fmt)
{
    if (s == NULL)
        return cli_usage_error("--format is required (parquet, parquet-raw or guava)");
    if (bl_format_from_name(s, fmt) != BL_OK)
        return cli_usage_error("--format: unknown format '%s' (parquet, parquet-raw or guava)", s);
    return 0;
}

static const char *layout_for(bl_foreign_format fmt)
{
    return fmt == BL_FORMAT_GUAVA ? "classic" : "sbbf";
}

/* Why the format cannot carry this filter, in the terms of the flags that would make one. */
static void explain_refusal(const char *path, const char *format, bl_foreign_format fmt,
                            const bl_info *info, bl_status st)
{
    const char *layout = info->layout_name ? info->layout_name : "?";
    if (strcmp(layout, layout_for(fmt)) != 0)
        cli_error("%s: cannot export a %s filter as %s: that format holds %s filters "
                  "(build with -l %s)",
                  path, layout, format, layout_for(fmt), layout_for(fmt));
    else if (info->seed != 0) /* checked before the size: a seeded filter may be well sized */
        cli_error("%s: cannot export as %s: the filter's hash seed is %llu, and %s readers "
                  "hash with seed 0 (build with --seed 0)",
                  path, format, (unsigned long long)info->seed,
                  fmt == BL_FORMAT_GUAVA ? "Guava" : "Parquet");
    else if (fmt != BL_FORMAT_GUAVA)
        cli_error("%s: cannot export as %s: a %zu-byte bitset (Parquet readers accept "
                  "power-of-two bitsets of 32 bytes to 128 MiB; build with --bits)",
                  path, format, info->bytes);
    else if (info->blocks > INT32_MAX) /* Guava counts its longs in a Java int */
        cli_error("%s: cannot export as %s: %llu 64-bit words (Guava's format holds at most "
                  "%d, 16 GiB; build with a larger -p or fewer keys)",
                  path, format, (unsigned long long)info->blocks, INT32_MAX);
    else
        cli_status_error(path, "cannot export", st);
}

int cli_cmd_export(int argc, char **argv)
{
    const char *out = NULL, *format = NULL;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "o:F:h", export_longopts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'F': format = optarg; break;
        case 'h': return cli_print_help("export");
        default: return cli_bad_option(optopt, argv[optind - 1], export_longopts);
        }
    }
    bl_foreign_format fmt;
    if (cli_parse_format(format, &fmt) != 0)
        return CLI_EXIT_ERROR;
    if (cli_check_output(out, "OUT") != 0)
        return CLI_EXIT_ERROR;
    if (optind + 1 != argc)
        return cli_usage_error(optind >= argc ? "missing FILTER" : "one FILTER at a time");
    const char *path = argv[optind];
    if (cli_output_is_an_input(out, argv + optind, 1, false, "the export") != 0)
        return CLI_EXIT_ERROR;
    bl_filter *f;
    bl_info info;
    /* Verified only once the format accepts it: a refusal costs no pass over the payload (44 s
     * for a 16 GiB classic filter that Guava's format cannot hold). */
    if (cli_open_filter(path, false, false, &f, &info) != 0)
        return CLI_EXIT_ERROR;
    size_t size;
    bl_status st = bl_export_size(f, fmt, &size);
    if (st != BL_OK) {
        explain_refusal(path, format, fmt, &info, st);
        bl_free(f);
        return CLI_EXIT_ERROR;
    }
    if (cli_verify_filter(path, &f) != 0)
        return CLI_EXIT_ERROR;
    /* Standard output, a device or a FIFO is written into; a file is replaced atomically. */
    const int rc = cli_save_export(f, out, fmt);
    bl_free(f);
    return rc == 0 ? CLI_EXIT_OK : CLI_EXIT_ERROR;
}
