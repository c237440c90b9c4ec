/* SPDX-License-Identifier: MIT */
/* bloomline query: the input lines whose key may be in the filter, unchanged and in order. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OPT_NO_VERIFY = 256 };

static const struct option query_longopts[] = {
    {"invert-match", no_argument, NULL, 'v'},
    {"count", no_argument, NULL, 'c'},
    {"threads", required_argument, NULL, 't'},
    {"field", required_argument, NULL, 'f'},
    {"delimiter", required_argument, NULL, 'd'},
    {"quiet", no_argument, NULL, 'q'},
    {"null-data", no_argument, NULL, 'z'},
    CLI_COMMON_LONGOPT_MAX_LINE,
    {"no-verify", no_argument, NULL, OPT_NO_VERIFY},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

typedef struct query_worker {
    cli_lines lines;
    char *out;
    size_t out_len, out_cap;
    uint64_t selected;
} query_worker;

typedef struct query_ctx {
    const bl_filter *f;
    const cli_field *field;
    bool invert, count_only;
    query_worker *w;
    uint64_t selected;    /* in commit order */
    uint64_t *per_input;  /* -c with several inputs: selected lines of each, as grep -c */
    uint64_t short_lines; /* idem */
    size_t short_first_file;
    bool unterminated; /* the output so far ends in a line without its newline (NUL: -z) */
    cli_progress *progress;
} query_ctx;

static int query_process(void *ctx, unsigned worker, const cli_chunk *c)
{
    query_ctx *x = ctx;
    query_worker *w = &x->w[worker];
    cli_lines *l = &w->lines;
    cli_split(c, x->field, true, l);
    bl_contains_batch(x->f, l->key, l->len, l->n, l->res);
    cli_progress_lines(x->progress, l->n);
    /* An empty key (an empty line, or too few fields) was never added: it is certainly absent. */
    const uint8_t want = x->invert ? 0 : 1;
    uint64_t selected = 0;
    if (x->count_only) {
        for (size_t i = 0; i < l->n; i++)
            selected += (uint8_t)(l->res[i] & (l->len[i] != 0)) == want;
        w->selected = selected;
        return 0;
    }
    if (w->out_cap < c->len) {
        free(w->out);
        w->out = cli_malloc(c->len);
        w->out_cap = c->len;
    }
    /* Copy runs of selected lines: one memcpy per run rather than per line. */
    size_t out = 0, run_start = 0, start = 0;
    bool in_run = false;
    for (size_t i = 0; i < l->n; i++) {
        const bool sel = (uint8_t)(l->res[i] & (l->len[i] != 0)) == want;
        if (sel && !in_run) {
            run_start = start;
            in_run = true;
        } else if (!sel && in_run) {
            memcpy(w->out + out, c->data + run_start, start - run_start);
            out += start - run_start;
            in_run = false;
        }
        selected += sel;
        start = l->end[i];
    }
    if (in_run) {
        memcpy(w->out + out, c->data + run_start, start - run_start);
        out += start - run_start;
    }
    w->out_len = out;
    w->selected = selected;
    return 0;
}

static int query_commit(void *ctx, unsigned worker, const cli_chunk *c)
{
    query_ctx *x = ctx;
    query_worker *w = &x->w[worker];
    x->selected += w->selected;
    if (x->per_input != NULL)
        x->per_input[c->file] += w->selected;
    if (w->lines.short_lines > 0 && x->short_lines == 0)
        x->short_first_file = c->file;
    x->short_lines += w->lines.short_lines;
    if (x->count_only || w->out_len == 0)
        return 0;
    /* Only the last line of an input can lack its newline (its NUL with -z). Output after it (a
     * later input's lines) first ends it, as grep does, or the two would read as one line that
     * was in neither; the output of the last input stays byte for byte what it read. */
    if ((x->unterminated && cli_write_all(STDOUT_FILENO, &c->eol, 1) != 0) ||
        cli_write_all(STDOUT_FILENO, w->out, w->out_len) != 0) {
        cli_error("write error: %s", strerror(errno));
        return -1;
    }
    x->unterminated = (unsigned char)w->out[w->out_len - 1] != c->eol;
    return 0;
}

int cli_cmd_query(int argc, char **argv)
{
    cli_common cm;
    cli_common_init(&cm);
    bool invert = false, count_only = false, verify = true;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "vch" CLI_COMMON_SHORTOPTS, query_longopts, NULL)) != -1) {
        int r = cli_common_option(&cm, c, optarg);
        if (r < 0)
            return CLI_EXIT_ERROR;
        if (r > 0)
            continue;
        switch (c) {
        case 'v': invert = true; break;
        case 'c': count_only = true; break;
        case OPT_NO_VERIFY: verify = false; break;
        case 'h': return cli_print_help("query");
        default: return cli_bad_option(optopt, argv[optind - 1], query_longopts);
        }
    }
    if (cli_common_finish(&cm) != 0)
        return CLI_EXIT_ERROR;
    if (optind >= argc)
        return cli_usage_error("missing FILTER");
    const char *path = argv[optind++];
    size_t ninputs;
    char *const *inputs = cli_inputs(argc, argv, optind, &ninputs);
    cm.threads = cli_threads_for(cm.threads, inputs, ninputs);
    /* Standard output redirected into the filter or an input (>>) appended to it, as grep and
     * cat refuse to: lines after a filter's end make it unreadable, and an input gained its own
     * selected lines. Counts (-c) are printed once the inputs are read. */
    const char *written = count_only ? "the counts" : "the lines";
    if (cli_output_is_an_input("-", argv + optind - 1, 1, true, written) != 0 ||
        (!count_only && cli_output_is_an_input("-", inputs, ninputs, true, written) != 0))
        return CLI_EXIT_ERROR;

    bl_filter *f;
    if (cli_open_filter(path, false, verify, &f, NULL) != 0)
        return CLI_EXIT_ERROR;
    query_ctx x;
    memset(&x, 0, sizeof x);
    x.f = f;
    x.field = &cm.field;
    x.invert = invert;
    x.count_only = count_only;
    if (count_only && ninputs > 1) {
        x.per_input = cli_malloc(ninputs * sizeof *x.per_input);
        memset(x.per_input, 0, ninputs * sizeof *x.per_input);
    }
    x.w = cli_calloc(cm.threads, sizeof *x.w);
    cli_progress prog;
    /* Lines printed on the terminal the progress line is on would share its row: there they
     * show the progress themselves. */
    const bool lines_on_tty = !count_only && isatty(STDOUT_FILENO);
    cli_progress_init(&prog, cm.quiet || lines_on_tty, cli_inputs_size(inputs, ninputs));
    x.progress = &prog;
    cli_reader rd;
    /* Like grep, a bad input is reported and the others are still searched. */
    cli_reader_init(&rd, inputs, ninputs, true, cm.eol, cm.max_line);
    cli_job job = {.reader = &rd,
                   .threads = cm.threads,
                   .process = query_process,
                   .commit = query_commit,
                   .ctx = &x,
                   .progress = &prog};
    int rc = cli_run(&job);
    /* As with several inputs, an input that could not be opened gets no count line. */
    if (rc == 0 && count_only && x.per_input == NULL && !rd.refused[0])
        printf("%llu\n", (unsigned long long)x.selected);
    for (size_t i = 0; rc == 0 && x.per_input != NULL && i < ninputs; i++)
        if (!rd.refused[i])
            printf("%s:%llu\n", cli_input_name(inputs[i]), (unsigned long long)x.per_input[i]);
    if (fflush(stdout) != 0) {
        cli_error("write error: %s", strerror(errno));
        rc = -1;
    }
    /* -v selects those lines: it prints them, or with -c only counts them. */
    const char *fate = x.short_lines == 1 ? "it was not selected" : "they were not selected";
    if (invert && count_only)
        fate = x.short_lines == 1 ? "-v counted it" : "-v counted them";
    else if (invert)
        fate = x.short_lines == 1 ? "-v printed it" : "-v printed them";
    if (x.short_lines > 0)
        cli_warn("%llu line%s (first in %s) had fewer than %zu fields: an empty key is never in "
                 "the filter, so %s",
                 (unsigned long long)x.short_lines, x.short_lines == 1 ? "" : "s",
                 cli_input_name(inputs[x.short_first_file]), cm.field.field, fate);
    const int errors = rd.errors;
    cli_reader_free(&rd);
    for (unsigned i = 0; i < cm.threads; i++) {
        cli_lines_free(&x.w[i].lines);
        free(x.w[i].out);
    }
    free(x.w);
    free(x.per_input);
    bl_free(f);
    if (rc != 0 || errors > 0)
        return CLI_EXIT_ERROR;
    return x.selected > 0 ? CLI_EXIT_OK : CLI_EXIT_NONE;
}
