/* SPDX-License-Identifier: MIT */
/* Keys from input lines into a filter (build, add): parsed and hashed in parallel, then added
 * in batches under one lock, so every thread count gives the same bits as one thread. */
#include "cli.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Why not BL_FLAG_CONCURRENT adds from every worker: hashing a ~60-byte line costs several
 * times the probe of a batch of precomputed hashes (a prefetched pipeline), so the adds can be
 * serial at no cost to throughput, and a filter built that way is byte-identical to a one-thread
 * build without relying on atomics. Adds commute (bitwise OR, counters summed) for every layout
 * but the scalable one, whose stages fill up in insertion order: it adds in input order. */
typedef struct feed_ctx {
    bl_filter *f;
    const cli_feed_opts *o;
    cli_lines *lines; /* one per worker */
    bool by_bytes;    /* classic: its hash of a key's bytes is not a function of bl_hash;
                         removes: bl_remove_batch hashes them */
    bool in_order;    /* scalable; and removes, whose "not present" answers depend on order */
    pthread_mutex_t lock;
    uint64_t keys;
    uint64_t absent; /* removes of keys the filter shows were never added */
    uint64_t short_lines;
    size_t short_first_file;
    bl_status err;
    cli_progress *progress;
} feed_ctx;

/* A counting filter's removes: bl_remove_batch takes every key, leaving those it shows were
 * never added as they were and counting them (BL_E_NOT_PRESENT is that count, not a failure). */
static bl_status remove_lines(feed_ctx *x, const cli_lines *l)
{
    size_t absent = 0;
    const bl_status st = bl_remove_batch(x->f, l->key, l->len, l->n, &absent);
    x->absent += absent;
    return st == BL_E_NOT_PRESENT ? BL_OK : st;
}

static int add_lines(feed_ctx *x, const cli_lines *l, const cli_chunk *c)
{
    bl_status st = BL_OK;
    if (l->n > 0 && x->o->absent != NULL)
        st = remove_lines(x, l);
    else if (l->n > 0)
        st = x->by_bytes ? bl_add_batch(x->f, l->key, l->len, l->n)
                         : bl_add_hash_batch(x->f, l->hash, l->n);
    if (st != BL_OK) {
        x->err = st;
        return -1;
    }
    x->keys += l->n;
    if (l->short_lines > 0 && x->short_lines == 0)
        x->short_first_file = c->file;
    x->short_lines += l->short_lines;
    return 0;
}

static int feed_process(void *ctx, unsigned worker, const cli_chunk *c)
{
    feed_ctx *x = ctx;
    cli_lines *l = &x->lines[worker];
    cli_split(c, &x->o->field, false, l);
    if (!x->by_bytes)
        for (size_t i = 0; i < l->n; i++)
            l->hash[i] = bl_hash(x->f, l->key[i], l->len[i]);
    cli_progress_lines(x->progress, l->n);
    if (x->in_order)
        return 0;
    pthread_mutex_lock(&x->lock);
    int rc = add_lines(x, l, c);
    pthread_mutex_unlock(&x->lock);
    return rc;
}

static int feed_commit(void *ctx, unsigned worker, const cli_chunk *c)
{
    feed_ctx *x = ctx;
    return add_lines(x, &x->lines[worker], c);
}

int cli_feed(bl_filter *f, const cli_feed_opts *o, uint64_t *keys_fed)
{
    feed_ctx x;
    memset(&x, 0, sizeof x);
    x.f = f;
    x.o = o;
    x.by_bytes = o->layout == BL_LAYOUT_CLASSIC || o->absent != NULL;
    x.in_order = o->layout == BL_LAYOUT_SCALABLE || o->absent != NULL;
    x.lines = cli_calloc(o->threads, sizeof *x.lines);
    pthread_mutex_init(&x.lock, NULL);
    cli_progress prog;
    cli_progress_init(&prog, o->quiet, cli_inputs_size(o->inputs, o->ninputs));
    x.progress = &prog;
    cli_reader rd;
    cli_reader_init(&rd, o->inputs, o->ninputs, false, o->eol, o->max_line);
    cli_job job = {.reader = &rd,
                   .threads = o->threads,
                   .process = feed_process,
                   .commit = x.in_order ? feed_commit : NULL,
                   .ctx = &x,
                   .progress = &prog};
    int rc = cli_run(&job);
    if (x.err != BL_OK) {
        cli_error("%s keys: %s", o->absent != NULL ? "removing" : "adding", bl_strerror(x.err));
        rc = -1;
    }
    if (rd.errors > 0)
        rc = -1;
    if (rc == 0 && x.short_lines > 0)
        cli_warn("%llu line%s (first in %s) had fewer than %zu fields: %s",
                 (unsigned long long)x.short_lines, x.short_lines == 1 ? "" : "s",
                 cli_input_name(o->inputs[x.short_first_file]), o->field.field,
                 x.short_lines == 1 ? "its key is empty, skipped"
                                    : "their keys are empty, skipped");
    cli_reader_free(&rd);
    for (unsigned i = 0; i < o->threads; i++)
        cli_lines_free(&x.lines[i]);
    free(x.lines);
    pthread_mutex_destroy(&x.lock);
    if (keys_fed)
        *keys_fed = x.keys;
    if (o->absent != NULL)
        *o->absent = x.absent;
    return rc;
}

/* Past its designed capacity a filter still answers correctly, only with more false positives:
 * say how many more, since that is what the user sized for (an add, a build whose -n was too
 * small, a union). keys_added counts duplicates, and a key added again sets no new bit: the
 * distinct keys estimated from the fill must be past the design too, or adding the same keys
 * twice warned of a rate that had not risen; and the rate must have risen by more than the
 * estimate's noise (a union of one filter with itself, estimated a few keys past its design,
 * warned of 20000 keys and a rate of 0.01 designed for 0.01). */
static bool rate_risen(const bl_info *info)
{
    return info->current_fpp > info->design_fpp * 1.05;
}

static bool past_capacity(const bl_info *info)
{
    return info->keys_known && info->design_keys > 0 && info->keys_added > info->design_keys &&
           info->estimated_keys > (double)info->design_keys && rate_risen(info);
}

/* A scalable chain grows instead, so only a union overloads it: stage i takes both chains'
 * stage-i keys (two chains of 20000 keys from 1000-key first stages at p = 0.01: 0.19 measured).
 * Said when a stage is past its capacity and the chain's rate past the one it was sized for. */
static void warn_stage_capacity(const char *path, const bl_filter *f, const bl_info *chain)
{
    if (!rate_risen(chain))
        return;
    for (size_t i = 0; i < chain->stages; i++) {
        bl_info stage;
        if (bl_get_stage_info(f, i, &stage) != BL_OK || !past_capacity(&stage))
            continue;
        cli_warn("%s: stage %zu holds %llu keys, past its capacity of %llu (scalable filters "
                 "unite stage by stage): expected false-positive rate now %.3g (designed for "
                 "%.3g)",
                 path, i, (unsigned long long)stage.keys_added,
                 (unsigned long long)stage.design_keys, chain->current_fpp, chain->design_fpp);
        return;
    }
}

void cli_warn_capacity(const char *path, const bl_filter *f)
{
    bl_info info;
    if (bl_get_info(f, &info) != BL_OK)
        return;
    if (info.layout == BL_LAYOUT_SCALABLE) {
        warn_stage_capacity(path, f, &info);
        return;
    }
    if (!past_capacity(&info))
        return;
    cli_warn("%s: %llu keys added, past the designed capacity of %llu: expected false-positive "
             "rate now %.3g (designed for %.3g)",
             path, (unsigned long long)info.keys_added, (unsigned long long)info.design_keys,
             info.current_fpp, info.design_fpp);
}
