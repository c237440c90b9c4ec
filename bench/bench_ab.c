/* SPDX-License-Identifier: MIT */
/* bench_ab: two builds of libbloomline.so timed in one process. On a shared host whose speed
 * swings 1.5x between runs, an old and a new build timed in separate runs measure the host; here
 * each build is dlopened with its own symbols (RTLD_LOCAL), gets the same filter and keys, and
 * every repetition times both in turn, so that each repetition's new/old ratio compares them
 * under one load. */
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "bloomline.h" /* the types; every bl_* function is called through dlsym */

static const char *const prog = "bench_ab";

/* Every repetition passes over the n keys until it has done this many: a repetition then lasts
 * milliseconds even at small n, and a context switch costs a few percent of one, not most of it
 * (as BB_TIME_LOOPS). */
#define KEYS_PER_REP (UINT64_C(1) << 22)
/* Every key is held in memory (the URLs at ~50 bytes each): 2^30 keys as BB_MAX_SAMPLE. */
#define MAX_LOG2_KEYS 30

/* ---- One build ------------------------------------------------------------------------------ */

/* The functions of one build, as dlsym finds them in its own copy. */
typedef struct api {
    void (*params_init)(bl_params *);
    bl_status (*create)(bl_filter **, const bl_params *);
    void (*free_filter)(bl_filter *);
    const char *(*status_text)(bl_status);
    bl_status (*layout_from_name)(const char *, bl_layout *);
    bool (*kernel_supported)(const char *);
    const char *(*filter_kernel)(const bl_filter *);
    bl_status (*get_info)(const bl_filter *, bl_info *);
    bool (*contains_u64)(const bl_filter *, uint64_t);
    bool (*contains)(const bl_filter *, const void *, size_t);
    size_t (*contains_u64_batch)(const bl_filter *, const uint64_t *, size_t, uint8_t *);
    size_t (*contains_batch)(const bl_filter *, const void *const *, const size_t *, size_t,
                             uint8_t *);
    bl_status (*add_u64)(bl_filter *, uint64_t);
    bl_status (*add)(bl_filter *, const void *, size_t);
    bl_status (*add_u64_batch)(bl_filter *, const uint64_t *, size_t);
    bl_status (*add_batch)(bl_filter *, const void *const *, const size_t *, size_t);
} api;

static const struct symbol {
    const char *name;
    size_t offset; /* of its pointer in struct api */
} symbols[] = {
    {"bl_params_init", offsetof(api, params_init)},
    {"bl_create", offsetof(api, create)},
    {"bl_free", offsetof(api, free_filter)},
    {"bl_strerror", offsetof(api, status_text)},
    {"bl_layout_from_name", offsetof(api, layout_from_name)},
    {"bl_kernel_supported", offsetof(api, kernel_supported)},
    {"bl_filter_kernel", offsetof(api, filter_kernel)},
    {"bl_get_info", offsetof(api, get_info)},
    {"bl_contains_u64", offsetof(api, contains_u64)},
    {"bl_contains", offsetof(api, contains)},
    {"bl_contains_u64_batch", offsetof(api, contains_u64_batch)},
    {"bl_contains_batch", offsetof(api, contains_batch)},
    {"bl_add_u64", offsetof(api, add_u64)},
    {"bl_add", offsetof(api, add)},
    {"bl_add_u64_batch", offsetof(api, add_u64_batch)},
    {"bl_add_batch", offsetof(api, add_batch)},
};

/* dlsym gives object pointers: they are copied into the function pointers (POSIX has both the
 * same size), since a cast from one to the other is not ISO C (-Wpedantic). */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "dlsym needs function pointers");

typedef struct build {
    const char *role; /* "old" or "new" */
    const char *path;
    void *handle;
    api fn;
    const char *loaded_from; /* the file dladdr finds its bl_create in */
    bl_filter *filter;
    unsigned k;
} build;

/* Load a build and bind its functions; false with a message if it is not a bloomline library. */
static bool load(build *b)
{
    dlerror();
    b->handle = dlopen(b->path, RTLD_NOW | RTLD_LOCAL);
    if (b->handle == NULL) {
        bb_arg_error(prog, "%s (%s): cannot load: %s", b->path, b->role, dlerror());
        return false;
    }
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        void *sym = dlsym(b->handle, symbols[i].name);
        if (sym == NULL) {
            bb_arg_error(prog, "%s (%s): no symbol %s: not a bloomline library, or one older "
                         "than this program", b->path, b->role, symbols[i].name);
            return false;
        }
        memcpy((char *)&b->fn + symbols[i].offset, &sym, sizeof sym);
    }
    Dl_info where;
    const bool found = dladdr(dlsym(b->handle, "bl_create"), &where) && where.dli_fname;
    b->loaded_from = found ? where.dli_fname : "?";
    return true;
}

/* Whether the two builds are two copies: the loader opens a file once however it is named
 * (a link, the same path twice), and one copy timed against itself would pass for an A/B run. */
static bool distinct_copies(const build *b)
{
    if (b[0].handle != b[1].handle)
        return true;
    bb_arg_error(prog, "%s and %s are one library to the dynamic loader (the same file): copy "
                 "it to time a build against itself", b[0].path, b[1].path);
    return false;
}

/* A bl_* symbol in the global scope (a bloomline linked into this program and exported, or
 * preloaded) would be where the builds' calls to their own exported functions could bind,
 * rather than in their own copies. */
static bool global_scope_clean(void)
{
    void *sym = dlsym(RTLD_DEFAULT, "bl_create");
    if (sym == NULL)
        return true;
    Dl_info where;
    bb_arg_error(prog, "bl_create is in the global scope (%s): the builds' own calls could bind "
                 "to it", dladdr(sym, &where) && where.dli_fname ? where.dli_fname : "?");
    return false;
}

/* ---- Options -------------------------------------------------------------------------------- */

enum op { SINGLE_QUERY, BATCH_QUERY, SINGLE_ADD, BATCH_ADD, NOPS };
static const char *const op_names[NOPS] = {"single-query", "batch-query", "single-add",
                                           "batch-add"};
static const char *const key_names[] = {"u64", "url"};

typedef struct options {
    const char *paths[2];
    int npaths;
    const char *layout;
    const char *kernel; /* NULL: BLOOMLINE_KERNEL, else each build's best */
    int log2n;
    double bpk;
    int k; /* 0: the sizing's */
    int reps;
    const char *ops;
    bool url;
} options;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: bench_ab OLD.so NEW.so [--layout blocked] [--kernel NAME] [--size 16]\n"
            "         [--bits-per-key 10] [--k K] [--reps 21]\n"
            "         [--ops single-query,batch-query,single-add,batch-add] [--keys u64|url]\n"
            "         [--clock cpu|wall]\n"
            "Times two builds of libbloomline.so in one process, each loaded with its own\n"
            "symbols: the same filter of 2^size keys (size 1 to %d) and the same operations on\n"
            "both, every repetition timing both in turn (which one first alternates). Prints\n"
            "each build's median (min) ns/key and the median and quartiles of the repetitions'\n"
            "new/old ratios: below 1, the new build is faster.\n"
            "OLD and NEW must be two files (copy one to time a build against itself). Reps 1 to\n"
            "%d; bits per key above 0 and below %d; k 1 to 255 (default: the sizing's); kernel:\n"
            "one both builds run here (default: BLOOMLINE_KERNEL, else each build's best).\n",
            MAX_LOG2_KEYS, BB_MAX_REPS, BB_MAX_BITS_PER_KEY);
}

/* One name of a list, not a comma-separated list of them. */
static bool arg_choice(const char *opt, const char *v, const char *const *names, int n, int *out)
{
    if (!bb_arg_names(prog, opt, v, names, n))
        return false;
    for (int i = 0; i < n; i++)
        if (!strcmp(v, names[i])) {
            *out = i;
            return true;
        }
    bb_arg_error(prog, "%s: expected one name, got '%s'", opt, v);
    return false;
}

/* One option and its value (argv[i + 1], NULL if none); false with a message on a bad one. */
static bool parse_option(const char *a, const char *v, options *o)
{
    int keys = o->url;
    const char *name;
    bool ok;
    if (!strcmp(a, "--layout"))
        ok = bb_arg_string(prog, a, v, &o->layout);
    else if (!strcmp(a, "--kernel"))
        ok = bb_arg_string(prog, a, v, &o->kernel);
    else if (!strcmp(a, "--size"))
        ok = bb_arg_int(prog, a, v, 1, MAX_LOG2_KEYS, &o->log2n);
    else if (!strcmp(a, "--bits-per-key"))
        ok = bb_arg_real(prog, a, v, 0, BB_MAX_BITS_PER_KEY, true, &o->bpk);
    else if (!strcmp(a, "--k"))
        ok = bb_arg_int(prog, a, v, 1, 255, &o->k);
    else if (!strcmp(a, "--reps"))
        ok = bb_arg_int(prog, a, v, 1, BB_MAX_REPS, &o->reps);
    else if (!strcmp(a, "--ops"))
        ok = bb_arg_string(prog, a, v, &o->ops) && bb_arg_names(prog, a, v, op_names, NOPS);
    else if (!strcmp(a, "--keys"))
        ok = bb_arg_string(prog, a, v, &name) && arg_choice(a, name, key_names, 2, &keys);
    else if (!strcmp(a, "--clock"))
        ok = bb_arg_clock(prog, a, v);
    else {
        bb_arg_error(prog, "unknown option '%s'", a);
        return false;
    }
    o->url = keys == 1;
    return ok;
}

/* The exit status to stop with (0 after --help), or -1 to run. */
static int parse_args(int argc, char **argv, options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (a[0] != '-') {
            if (o->npaths == 2)
                return bb_arg_error(prog, "expected two libraries, OLD.so NEW.so; a third: '%s'",
                                    a);
            o->paths[o->npaths++] = a;
            continue;
        }
        if (!parse_option(a, i + 1 < argc ? argv[i + 1] : NULL, o))
            return 2;
        i++;
    }
    if (o->npaths < 2)
        return bb_arg_error(prog, "expected two libraries, OLD.so NEW.so; got %d", o->npaths);
    return -1;
}

/* ---- The filters ---------------------------------------------------------------------------- */

/* The keys: set 0 the n present ones (indexes [0, n)), set 1 n absent ones (from BB_ABSENT). */
typedef struct keyset {
    size_t n;
    bool url;
    uint64_t *u64[2];
    bb_urls urls[2];
} keyset;

static void make_keys(keyset *ks, size_t n, bool url)
{
    memset(ks, 0, sizeof *ks);
    ks->n = n;
    ks->url = url;
    for (int set = 0; set < 2; set++) {
        const uint64_t first = set ? BB_ABSENT : 0;
        if (url) {
            bb_urls_make(&ks->urls[set], first, n);
        } else {
            ks->u64[set] = bb_malloc(n * sizeof *ks->u64[set]);
            bb_keys_u64(ks->u64[set], first, n);
        }
    }
}

static void free_keys(keyset *ks)
{
    for (int set = 0; set < 2; set++) {
        free(ks->u64[set]);
        if (ks->url)
            bb_urls_free(&ks->urls[set]);
    }
}

/* The same filter in a build, checked at every step; false with a message. bl_params and
 * bl_info are given room to spare: a build may have grown them past this program's header. */
static bool create_filter(build *b, const options *o)
{
    union {
        bl_params p;
        unsigned char room[4 * sizeof(bl_params)];
    } params;
    memset(&params, 0, sizeof params);
    b->fn.params_init(&params.p);
    bl_layout layout;
    bl_status st = b->fn.layout_from_name(o->layout, &layout);
    if (st != BL_OK) {
        bb_arg_error(prog, "--layout: '%s' is not a layout of %s: %s", o->layout, b->path,
                     b->fn.status_text(st));
        return false;
    }
    if (o->kernel != NULL && !b->fn.kernel_supported(o->kernel)) {
        bb_arg_error(prog, "--kernel: '%s' is not a kernel %s runs on this CPU", o->kernel,
                     b->path);
        return false;
    }
    params.p.layout = layout;
    params.p.expected_keys = UINT64_C(1) << o->log2n;
    /* a chain's stages are sized by rate (bits_per_key is BL_E_INVALID there): p = 1% */
    params.p.bits_per_key = layout == BL_LAYOUT_SCALABLE ? 0 : o->bpk;
    params.p.k = (unsigned)o->k;
    params.p.kernel = o->kernel;
    st = b->fn.create(&b->filter, &params.p);
    if (st != BL_OK) {
        bb_arg_error(prog, "%s: bl_create (%s, 2^%d keys, %g bits/key): %s", b->path, o->layout,
                     o->log2n, o->bpk, b->fn.status_text(st));
        return false;
    }
    union {
        bl_info i;
        unsigned char room[4 * sizeof(bl_info)];
    } info;
    st = b->fn.get_info(b->filter, &info.i);
    if (st != BL_OK) {
        bb_arg_error(prog, "%s: bl_get_info: %s", b->path, b->fn.status_text(st));
        return false;
    }
    b->k = info.i.k;
    return true;
}

/* ---- Passes over the keys, timed ------------------------------------------------------------ */

/* A row of the table: an operation, and for queries the keys asked (0 present, 1 absent). */
typedef struct row {
    enum op op;
    int set;
} row;

/* The hits of one pass of queries over the n keys of a set. */
static size_t query_pass(const build *b, bool batch, const keyset *ks, int set, uint8_t *res)
{
    const api *a = &b->fn;
    const bl_filter *f = b->filter;
    size_t hits = 0;
    if (ks->url) {
        const bb_urls *u = &ks->urls[set];
        if (batch)
            return a->contains_batch(f, u->ptr, u->len, ks->n, res);
        for (size_t i = 0; i < ks->n; i++)
            hits += a->contains(f, u->ptr[i], u->len[i]);
    } else {
        const uint64_t *k = ks->u64[set];
        if (batch)
            return a->contains_u64_batch(f, k, ks->n, res);
        for (size_t i = 0; i < ks->n; i++)
            hits += a->contains_u64(f, k[i]);
    }
    return hits;
}

/* One pass of adds of the present keys again: for a Bloom filter the same work as the first
 * time (hash, fetch the line, OR the bits), so every repetition times the same. The last error
 * of the pass, if any. */
static bl_status add_pass(const build *b, bool batch, const keyset *ks)
{
    const api *a = &b->fn;
    bl_filter *f = b->filter;
    bl_status last = BL_OK;
    if (ks->url) {
        const bb_urls *u = &ks->urls[0];
        if (batch)
            return a->add_batch(f, u->ptr, u->len, ks->n);
        for (size_t i = 0; i < ks->n; i++) {
            const bl_status st = a->add(f, u->ptr[i], u->len[i]);
            last = st != BL_OK ? st : last;
        }
    } else {
        const uint64_t *k = ks->u64[0];
        if (batch)
            return a->add_u64_batch(f, k, ks->n);
        for (size_t i = 0; i < ks->n; i++) {
            const bl_status st = a->add_u64(f, k[i]);
            last = st != BL_OK ? st : last;
        }
    }
    return last;
}

/* Add the present keys, which also writes every page of the payload before any timing (no
 * first-touch faults: a 4 KiB page gets ~3300 keys at 10 bits/key, still ~30 at 1000), and check
 * that the build then finds them all. bb_touch_filter cannot: it reads this program's bl_filter,
 * which need not be the builds'. */
static bool fill_filter(const build *b, const keyset *ks, uint8_t *res)
{
    const bl_status st = add_pass(b, true, ks);
    if (st != BL_OK) {
        fprintf(stderr, "%s: %s: adding the keys: %s\n", prog, b->path, b->fn.status_text(st));
        return false;
    }
    const size_t found = query_pass(b, true, ks, 0, res);
    if (found != ks->n) {
        fprintf(stderr, "%s: %s: WRONG ANSWERS: %zu of %zu added keys found\n", prog, b->path,
                found, ks->n);
        return false;
    }
    return true;
}

/* ns per key of `loops` passes of a row's operation; false with a message if an add failed or
 * a query of the present keys missed one. */
static bool time_passes(const build *b, row rw, const keyset *ks, uint8_t *res, uint64_t loops,
                        double *ns)
{
    const bool batch = rw.op == BATCH_QUERY || rw.op == BATCH_ADD;
    const bool query = rw.op == SINGLE_QUERY || rw.op == BATCH_QUERY;
    uint64_t hits = 0;
    bl_status st = BL_OK;
    const uint64_t t0 = bb_timer_ns();
    for (uint64_t l = 0; l < loops; l++) {
        if (query) {
            hits += query_pass(b, batch, ks, rw.set, res);
        } else {
            const bl_status s = add_pass(b, batch, ks);
            st = s != BL_OK ? s : st;
        }
    }
    *ns = (double)(bb_timer_ns() - t0) / ((double)ks->n * (double)loops);
    bb_sink += hits;
    if (st != BL_OK) {
        fprintf(stderr, "%s: %s: %s: %s\n", prog, b->path, op_names[rw.op], b->fn.status_text(st));
        return false;
    }
    if (query && rw.set == 0 && hits != ks->n * loops) {
        fprintf(stderr, "%s: %s: %s: WRONG ANSWERS: %llu of %llu added keys found\n", prog,
                b->path, op_names[rw.op], (unsigned long long)hits,
                (unsigned long long)(ks->n * loops));
        return false;
    }
    return true;
}

static int cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The q-quantile of n sorted values, interpolated (q = 0.5: bb_stat_of's median). */
static double quantile(const double *sorted, int n, double q)
{
    const double pos = q * (n - 1);
    const int lo = (int)floor(pos);
    return lo + 1 < n ? sorted[lo] + (pos - lo) * (sorted[lo + 1] - sorted[lo]) : sorted[lo];
}

/* Time a row on both builds, repetition by repetition, and print it; false if a pass failed. */
static bool time_row(const build b[2], row rw, const keyset *ks, uint8_t *res, int reps,
                     uint64_t loops)
{
    double ns[2][BB_MAX_REPS], ratio[BB_MAX_REPS], warm;
    /* an untimed pass each first: the first repetition then finds the caches and predictors as
     * the later ones do */
    for (int j = 0; j < 2; j++)
        if (!time_passes(&b[j], rw, ks, res, 1, &warm))
            return false;
    for (int r = 0; r < reps; r++) {
        /* old first in even repetitions, new first in odd ones: neither always inherits the
         * caches, the clock speed or the slice of the host the other left */
        for (int j = 0; j < 2; j++) {
            const int who = (r & 1) ? 1 - j : j;
            if (!time_passes(&b[who], rw, ks, res, loops, &ns[who][r]))
                return false;
        }
        ratio[r] = ns[1][r] / ns[0][r];
    }
    qsort(ratio, (size_t)reps, sizeof ratio[0], cmp_double);
    char name[32], old_cell[64], new_cell[64];
    snprintf(name, sizeof name, "%s%s", op_names[rw.op],
             rw.op == SINGLE_QUERY || rw.op == BATCH_QUERY ? (rw.set ? " miss" : " hit") : "");
    printf("| %s | %s | %s | %.3f | %.3f-%.3f |\n", name,
           bb_fmt_ns(bb_stat_of(ns[0], reps), old_cell, sizeof old_cell),
           bb_fmt_ns(bb_stat_of(ns[1], reps), new_cell, sizeof new_cell),
           quantile(ratio, reps, 0.5), quantile(ratio, reps, 0.25), quantile(ratio, reps, 0.75));
    fflush(stdout);
    return true;
}

/* ---- Main ----------------------------------------------------------------------------------- */

static void print_header(const build b[2], const options *o, int cpu, uint64_t loops)
{
    bb_print_machine(stdout); /* its kernel: that of the copy bench_common links, the default */
    for (int j = 0; j < 2; j++)
        printf("# %s: %s (bl_create from %s), filter kernel %s, k %u\n", b[j].role, b[j].path,
               b[j].loaded_from, b[j].fn.filter_kernel(b[j].filter), b[j].k);
    if (b[0].k != b[1].k)
        printf("# the builds chose different k: they do not do the same work\n");
    if (strcmp(o->layout, "scalable") == 0)
        printf("# %s layout sized for p = 1%%, 2^%d %s keys", o->layout, o->log2n,
               o->url ? "URL" : "u64");
    else
        printf("# %s layout, 2^%d %s keys, %.3g bits/key", o->layout, o->log2n,
               o->url ? "URL" : "u64", o->bpk);
    printf("; pinned to cpu %d\n", cpu);
    printf("# %d repetitions timed with %s, each timing both builds (the first alternating)\n"
           "# over %llu passes of the keys; ns/key: median (min); new/old: median and quartiles\n"
           "# of the repetitions' ratios, below 1 when the new build is faster. Query rows: hit\n"
           "# asks for the added keys, miss for absent ones; add rows add the added keys again.\n"
           "\n", o->reps, bb_clock_name(), (unsigned long long)loops);
    printf("| op | old ns/key median (min) | new ns/key median (min) | new/old median | "
           "quartiles |\n|---|---:|---:|---:|---|\n");
}

/* The rows --ops asks for, in the table's order: queries of present, then of absent keys. */
static int rows_of(const char *ops, row *rows)
{
    int n = 0;
    for (int op = 0; op < NOPS; op++) {
        if (!bb_in_list(ops, op_names[op]))
            continue;
        const bool query = op == SINGLE_QUERY || op == BATCH_QUERY;
        for (int set = 0; set < (query ? 2 : 1); set++)
            rows[n++] = (row){(enum op)op, set};
    }
    return n;
}

/* Fill both filters and time the rows; false if a build failed or answered wrong. */
static bool run(const build b[2], const options *o)
{
    const int cpu = bb_pin_thread(-1);
    keyset ks;
    make_keys(&ks, (size_t)1 << o->log2n, o->url);
    uint8_t *res = bb_malloc(ks.n);
    bool ok = fill_filter(&b[0], &ks, res) && fill_filter(&b[1], &ks, res);
    if (ok) {
        const uint64_t loops = ks.n >= KEYS_PER_REP ? 1 : KEYS_PER_REP / ks.n;
        print_header(b, o, cpu, loops);
        row rows[2 * NOPS];
        const int nrows = rows_of(o->ops, rows);
        for (int i = 0; i < nrows && ok; i++)
            ok = time_row(b, rows[i], &ks, res, o->reps, loops);
    }
    free(res);
    free_keys(&ks);
    return ok;
}

int main(int argc, char **argv)
{
    options o = {.layout = "blocked", .log2n = 16, .bpk = 10, .reps = 21,
                 .ops = "single-query,batch-query,single-add,batch-add"};
    const int stop = parse_args(argc, argv, &o);
    if (stop >= 0)
        return stop;
    build b[2] = {{.role = "old", .path = o.paths[0]}, {.role = "new", .path = o.paths[1]}};
    int status = 2;
    if (global_scope_clean() && load(&b[0]) && load(&b[1]) && distinct_copies(b) &&
        create_filter(&b[0], &o) && create_filter(&b[1], &o))
        status = run(b, &o) ? 0 : 1;
    for (int j = 1; j >= 0; j--) {
        if (b[j].filter != NULL)
            b[j].fn.free_filter(b[j].filter);
        if (b[j].handle != NULL)
            dlclose(b[j].handle);
    }
    return status;
}
