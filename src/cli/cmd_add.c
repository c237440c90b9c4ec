/* SPDX-License-Identifier: MIT */
/* bloomline add: more keys into an existing filter file, saved atomically. */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const struct option add_longopts[] = {
    {"threads", required_argument, NULL, 't'},
    {"field", required_argument, NULL, 'f'},
    {"delimiter", required_argument, NULL, 'd'},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

int cli_cmd_add(int argc, char **argv)
{
    cli_common cm;
    cli_common_init(&cm);
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h" CLI_COMMON_SHORTOPTS, add_longopts, NULL)) != -1) {
        int r = cli_common_option(&cm, c, optarg);
        if (r < 0)
            return CLI_EXIT_ERROR;
        if (r > 0)
            continue;
        if (c == 'h')
            return cli_print_help("add");
        return cli_bad_option(optopt, argv[optind - 1]);
    }
    if (cli_common_finish(&cm) != 0)
        return CLI_EXIT_ERROR;
    if (optind >= argc)
        return cli_usage_error("missing FILTER");
    const char *path = argv[optind++];
    size_t ninputs;
    char *const *inputs = cli_inputs(argc, argv, optind, &ninputs);

    bl_filter *f;
    bl_info info;
    if (cli_open_filter(path, true, true, &f, &info) != 0)
        return CLI_EXIT_ERROR;
    cli_feed_opts fo = {info.layout, inputs, ninputs, cm.field, cm.threads, cm.quiet};
    int rc = cli_feed(f, &fo, NULL);
    if (rc == 0)
        rc = cli_save_filter(f, path);
    if (rc == 0)
        cli_warn_capacity(path, f);
    bl_free(f);
    return rc == 0 ? CLI_EXIT_OK : CLI_EXIT_ERROR;
}
