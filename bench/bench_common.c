/* SPDX-License-Identifier: MIT */
/* Shared benchmark helpers: timing and statistics, pinning, key and URL generators, arguments. */
#include "bench_common.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef BB_HAVE_HWLOC
#include <hwloc.h>
#endif

#include "bloomline.h"
#include "internal.h"

volatile uint64_t bb_sink;

uint64_t bb_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int bb_timing_clock = CLOCK_THREAD_CPUTIME_ID;

uint64_t bb_timer_ns(void)
{
    struct timespec ts;
    clock_gettime(bb_timing_clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool bb_set_clock(const char *name)
{
    if (strcmp(name, "cpu") == 0)
        bb_timing_clock = CLOCK_THREAD_CPUTIME_ID;
    else if (strcmp(name, "wall") == 0)
        bb_timing_clock = CLOCK_MONOTONIC;
    else
        return false;
    return true;
}

const char *bb_clock_name(void)
{
    return bb_timing_clock == CLOCK_MONOTONIC ? "wall-clock time" : "thread CPU time";
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

bb_stat bb_stat_of(const double *v, int n)
{
    bb_stat s = {0, 0, false};
    if (n <= 0)
        return s;
    double tmp[BB_MAX_REPS];
    if (n > BB_MAX_REPS)
        n = BB_MAX_REPS;
    memcpy(tmp, v, (size_t)n * sizeof *tmp);
    qsort(tmp, (size_t)n, sizeof *tmp, cmp_double);
    s.min = tmp[0];
    s.med = (n & 1) ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
    s.valid = true;
    return s;
}

const char *bb_fmt_ns(bb_stat s, char *buf, size_t cap)
{
    if (!s.valid)
        snprintf(buf, cap, "-");
    else if (s.med < 100)
        snprintf(buf, cap, "%.2f (%.2f)", s.med, s.min);
    else
        snprintf(buf, cap, "%.0f (%.0f)", s.med, s.min);
    return buf;
}

/* ---- Machine ------------------------------------------------------------------------------ */

#ifdef BB_HAVE_HWLOC
static hwloc_topology_t topo;
static bool topo_ready;
static bool topology(void)
{
    if (!topo_ready) {
        if (hwloc_topology_init(&topo) != 0)
            return false;
        if (hwloc_topology_load(topo) != 0) {
            hwloc_topology_destroy(topo);
            return false;
        }
        topo_ready = true;
    }
    return true;
}
#endif

/* The highest CPU this process may run on (taskset), -1 if the set is unknown. */
static int last_allowed_cpu(const cpu_set_t *allowed)
{
    for (int c = CPU_SETSIZE - 1; c >= 0; c--)
        if (CPU_ISSET(c, allowed))
            return c;
    return -1;
}

static int bind_to_cpu(int cpu)
{
#ifdef BB_HAVE_HWLOC
    if (topology()) {
        hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, (unsigned)cpu);
        if (pu != NULL && hwloc_set_cpubind(topo, pu->cpuset, HWLOC_CPUBIND_THREAD) == 0)
            return cpu;
    }
#endif
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? cpu : -1;
}

int bb_pin_thread(int cpu)
{
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        CPU_SET(0, &allowed);
    /* The last CPU by default; BLOOMLINE_BENCH_CPU picks another, so that two benchmark runs on
     * a shared machine do not end up time-sliced on one core. Numbers are the system's (as
     * taskset and /proc/cpuinfo give them), not hwloc's logical indexes, which may differ. */
    const char *env = getenv("BLOOMLINE_BENCH_CPU");
    if (cpu < 0 && env != NULL && *env != '\0') {
        /* Read whole and among the CPUs this process may use: atoi pinned "abc" to CPU 0. */
        char *end;
        errno = 0;
        const long want = strtol(env, &end, 10);
        if (end == env || *end != '\0' || errno != 0 || want < 0 || want >= CPU_SETSIZE ||
            !CPU_ISSET((int)want, &allowed)) {
            fprintf(stderr, "bench: BLOOMLINE_BENCH_CPU=%s: expected a CPU number this process "
                    "may run on (the last is %d)\n", env, last_allowed_cpu(&allowed));
            exit(2);
        }
        cpu = (int)want;
    }
    if (cpu < 0)
        cpu = last_allowed_cpu(&allowed);
    return cpu < 0 ? -1 : bind_to_cpu(cpu);
}

void bb_pin_core(int core)
{
#ifdef BB_HAVE_HWLOC
    if (topology()) {
        const int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        hwloc_obj_t c = n > 0 ? hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)(core % n))
                              : NULL;
        if (c != NULL && hwloc_set_cpubind(topo, c->cpuset, HWLOC_CPUBIND_THREAD) == 0)
            return;
    }
#endif
    /* Without hwloc: the core-th CPU this process may run on. */
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) == 0)
        return;
    int skip = core % CPU_COUNT(&allowed);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &allowed) && skip-- == 0) {
            bind_to_cpu(c);
            return;
        }
}

int bb_ncores(void)
{
#ifdef BB_HAVE_HWLOC
    if (topology()) {
        int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        if (n > 0)
            return n;
    }
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void bb_print_machine(FILE *out)
{
    char model[256] = "unknown";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f != NULL) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                char *c = strchr(line, ':');
                if (c != NULL) {
                    snprintf(model, sizeof model, "%s", c + 2);
                    model[strcspn(model, "\n")] = 0;
                }
                break;
            }
        }
        fclose(f);
    }
    fprintf(out, "# machine: %s, %d cores", model, bb_ncores());
#ifdef BB_HAVE_HWLOC
    if (topology()) {
        static const hwloc_obj_type_t caches[] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE,
                                                  HWLOC_OBJ_L3CACHE};
        for (int i = 0; i < 3; i++) {
            hwloc_obj_t c = hwloc_get_obj_by_type(topo, caches[i], 0);
            if (c != NULL && c->attr != NULL)
                fprintf(out, ", L%d %llu KiB", i + 1,
                        (unsigned long long)c->attr->cache.size / 1024);
        }
    }
#endif
    fprintf(out, "; bloomline %s, kernel %s\n", BLOOMLINE_VERSION_STRING,
            bl_kernel_name() ? bl_kernel_name() : "?");
}

size_t bb_peak_rss(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL)
        return 0;
    char line[256];
    size_t kb = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0)
            kb = strtoull(line + 6, NULL, 10);
    fclose(f);
    return kb * 1024;
}

/* ---- Keys --------------------------------------------------------------------------------- */

/* Two hex digits per lookup: URL generation is on the billion-key path, so it must stay cheap
 * next to the hashing and probing it feeds. */
static char hex_pairs[256][2];
static void hex_init(void)
{
    static const char d[] = "0123456789abcdef";
    for (int i = 0; i < 256; i++) {
        hex_pairs[i][0] = d[i >> 4];
        hex_pairs[i][1] = d[i & 15];
    }
}

size_t bb_url(uint64_t i, char *out)
{
    /* Four path shapes give lengths 48..53 (about 50 on average), like real crawl lists. */
    static const char paths[4][8] = {"/a/", "/item/", "/page/", "/view/x/"};
    static const size_t plen[4] = {3, 6, 6, 8};
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, hex_init);
    const uint64_t v = bb_mix(i);
    const uint64_t w = bb_mix(v); /* host and path shape, independent of the printed digits */
    char *p = out;
    memcpy(p, "https://www.s", 13);
    p += 13;
    memcpy(p, hex_pairs[(w >> 8) & 255], 2);
    memcpy(p + 2, hex_pairs[w & 255], 2);
    p += 4;
    memcpy(p, ".example.com", 12);
    p += 12;
    const unsigned shape = (unsigned)(w >> 62);
    memcpy(p, paths[shape], 8); /* copies 8, advances by the real length */
    p += plen[shape];
    for (int s = 56; s >= 0; s -= 8, p += 2)
        memcpy(p, hex_pairs[(v >> s) & 255], 2);
    return (size_t)(p - out);
}

/* Inputs of 64 MiB and more (the key arrays at 2^23 keys and up, the URL arenas) go on huge
 * pages, as the filters and the probes' buffers do. On 4 KiB pages this guest made one key array
 * of two cost more to read than the other: bench_ab at 2^27 keys (avx512, the same build on both
 * sides, 2026-12-02 on a Zen 5) read 11.6-16.1 ns/key for hits against 7.8-8.3 for misses, with
 * quartiles of 0.75-1.49; with both arrays on huge pages, 7.5-9.4 for both, quartiles 0.99-1.06.
 * Not a cost of the code measured: no more page faults than the first touches (/usr/bin/time),
 * and a 4 KiB page holds 512 keys, where the gap was 2-4 us a page. */
#define BB_HUGE_MIN_BYTES ((size_t)64 << 20)
#define BB_HUGE_PAGE ((size_t)2 << 20)

void bb_advise_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    /* madvise takes whole pages: advise those inside [p, p + bytes), none outside it. */
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    const uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1);
    const uintptr_t hi = ((uintptr_t)p + bytes) & ~(page - 1);
    if (hi > lo)
        (void)madvise((void *)lo, (size_t)(hi - lo), MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

void *bb_malloc(size_t bytes)
{
    void *p;
    if (bytes >= BB_HUGE_MIN_BYTES && bytes <= SIZE_MAX - BB_HUGE_PAGE) {
        p = aligned_alloc(BB_HUGE_PAGE, (bytes + BB_HUGE_PAGE - 1) & ~(BB_HUGE_PAGE - 1));
        if (p != NULL)
            bb_advise_huge(p, bytes);
    } else {
        p = malloc(bytes);
    }
    if (p == NULL && bytes > 0) {
        fprintf(stderr, "bench: out of memory: %zu bytes (smaller sizes or --sample?)\n", bytes);
        exit(1);
    }
    return p;
}

void bb_urls_make(bb_urls *u, uint64_t first, size_t n)
{
    memset(u, 0, sizeof *u);
    u->arena = bb_malloc(n * BB_URL_MAX + 1);
    u->ptr = bb_malloc((n + 1) * sizeof *u->ptr);
    u->len = bb_malloc((n + 1) * sizeof *u->len);
    bb_urls_fill(u, first, n);
}

void bb_urls_fill(bb_urls *u, uint64_t first, size_t n)
{
    /* Packed back to back like lines read from a file, not one 64-byte slot per key. */
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = bb_url(first + i, u->arena + off);
        u->ptr[i] = u->arena + off;
        u->len[i] = len;
        off += len;
    }
    u->n = n;
    u->bytes = off;
}

void bb_urls_free(bb_urls *u)
{
    free(u->arena);
    free((void *)u->ptr);
    free(u->len);
    memset(u, 0, sizeof *u);
}

void bb_keys_u64(uint64_t *out, uint64_t first, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = bb_key_u64(first + i);
}

void bb_touch(void *p, size_t bytes)
{
    volatile uint8_t *b = p;
    for (size_t i = 0; i < bytes; i += 4096)
        b[i] = b[i];
    if (bytes > 0)
        b[bytes - 1] = b[bytes - 1];
}

void bb_touch_filter(struct bl_filter *f)
{
    bl_filter *payload = f->data != NULL ? f : f->stages[0];
    bb_touch(payload->data, payload->nbytes);
}

/* ---- Arguments ---------------------------------------------------------------------------- */

/* The whole string as a number: strtod alone stops at the first character it cannot read. */
static bool parse_real(const char *s, double *out)
{
    char *end;
    if (s == NULL || *s == 0)
        return false;
    *out = strtod(s, &end);
    return end != s && *end == 0;
}

uint64_t bb_parse_count(const char *s)
{
    if (s == NULL || *s == 0)
        return 0;
    double v;
    const char *caret = strchr(s, '^');
    if (caret != NULL) {
        char base_s[64];
        double base, e;
        if ((size_t)(caret - s) >= sizeof base_s)
            return 0;
        memcpy(base_s, s, (size_t)(caret - s));
        base_s[caret - s] = 0;
        if (!parse_real(base_s, &base) || !parse_real(caret + 1, &e))
            return 0;
        v = pow(base, e);
    } else if (!parse_real(s, &v)) {
        return 0;
    }
    /* A fraction is refused, not rounded: "1.5" keys is a typo, not a request for 2. */
    if (!(v >= 1) || v >= 1.8e19 || v != floor(v))
        return 0;
    return (uint64_t)v;
}

int bb_parse_list(const char *s, uint64_t *out, int cap, bool pow2)
{
    int n = 0;
    for (const char *p = s;; p++) {
        const size_t len = strcspn(p, ",");
        char tok[64];
        if (len == 0 || len >= sizeof tok || n == cap)
            return -1;
        memcpy(tok, p, len);
        tok[len] = 0;
        uint64_t v;
        if (pow2) { /* an exponent: "abc" read as 0 (one key) and "64" shifted past the width */
            const unsigned long e = strtoul(tok, NULL, 10);
            v = strspn(tok, "0123456789") == len && e >= 1 && e <= BB_MAX_LOG2_KEYS
                    ? UINT64_C(1) << e
                    : 0;
        } else {
            v = bb_parse_count(tok);
        }
        if (v == 0)
            return -1;
        out[n++] = v;
        p += len;
        if (*p == 0)
            return n;
    }
}

int bb_arg_error(const char *prog, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (%s --help lists the options)\n", prog);
    va_end(ap);
    return 2;
}

static bool has_value(const char *prog, const char *opt, const char *v)
{
    if (v == NULL)
        bb_arg_error(prog, "%s needs a value", opt);
    return v != NULL;
}

bool bb_arg_count(const char *prog, const char *opt, const char *v, uint64_t lo, uint64_t hi,
                  uint64_t *out)
{
    if (!has_value(prog, opt, v))
        return false;
    const uint64_t x = bb_parse_count(v);
    if (x == 0 || x < lo || x > hi) {
        bb_arg_error(prog, "%s: expected a whole number from %llu to %llu, got '%s'", opt,
                     (unsigned long long)lo, (unsigned long long)hi, v);
        return false;
    }
    *out = x;
    return true;
}

bool bb_arg_int(const char *prog, const char *opt, const char *v, int lo, int hi, int *out)
{
    uint64_t x;
    if (!bb_arg_count(prog, opt, v, (uint64_t)lo, (uint64_t)hi, &x))
        return false;
    *out = (int)x;
    return true;
}

bool bb_arg_real(const char *prog, const char *opt, const char *v, double lo, double hi, bool open,
                 double *out)
{
    if (!has_value(prog, opt, v))
        return false;
    double x;
    if (!parse_real(v, &x) || !(open ? x > lo && x < hi : x >= lo && x <= hi)) {
        bb_arg_error(prog, "%s: expected a number %s %g %s %g, got '%s'", opt,
                     open ? "above" : "from", lo, open ? "and below" : "to", hi, v);
        return false;
    }
    *out = x;
    return true;
}

bool bb_arg_list(const char *prog, const char *opt, const char *v, uint64_t *out, int cap,
                 bool pow2, uint64_t hi, int *n)
{
    if (!has_value(prog, opt, v))
        return false;
    int got = bb_parse_list(v, out, cap, pow2);
    for (int i = 0; i < got; i++)
        if (out[i] > hi)
            got = -1;
    if (got > 0) {
        *n = got;
        return true;
    }
    if (pow2)
        bb_arg_error(prog, "%s: expected up to %d comma-separated exponents from 1 to %d, got '%s'",
                     opt, cap, BB_MAX_LOG2_KEYS, v);
    else
        bb_arg_error(prog, "%s: expected up to %d comma-separated whole numbers from 1 to %llu, "
                     "got '%s'", opt, cap, (unsigned long long)hi, v);
    return false;
}

bool bb_arg_string(const char *prog, const char *opt, const char *v, const char **out)
{
    if (!has_value(prog, opt, v))
        return false;
    *out = v;
    return true;
}

bool bb_arg_clock(const char *prog, const char *opt, const char *v)
{
    if (!has_value(prog, opt, v))
        return false;
    if (!bb_set_clock(v)) {
        bb_arg_error(prog, "%s: expected cpu or wall, got '%s'", opt, v);
        return false;
    }
    return true;
}

bool bb_in_list(const char *list, const char *name)
{
    if (list == NULL)
        return true;
    size_t len = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += len)
        if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == 0))
            return true;
    return false;
}

bool bb_arg_names(const char *prog, const char *opt, const char *list, const char *const *names,
                  int n)
{
    for (const char *p = list;; p++) {
        const size_t len = strcspn(p, ",");
        int i = 0;
        while (i < n && !(strlen(names[i]) == len && strncmp(p, names[i], len) == 0))
            i++;
        if (i == n) {
            char known[256] = "";
            for (int j = 0; j < n; j++)
                snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                         j ? "," : "", names[j]);
            bb_arg_error(prog, "%s: '%.*s' is not one of %s", opt, (int)len, p, known);
            return false;
        }
        p += len;
        if (*p == 0)
            return true;
    }
}

FILE *bb_csv_open(const char *path, const char *header)
{
    if (path == NULL)
        return NULL;
    struct stat st;
    bool fresh = stat(path, &st) != 0 || st.st_size == 0;
    FILE *f = fopen(path, "a");
    if (f == NULL) {
        perror(path);
        return NULL;
    }
    if (fresh)
        fprintf(f, "%s\n", header);
    return f;
}

bool bb_csv_close(FILE *f, const char *path)
{
    if (f == NULL)
        return true;
    const bool failed = ferror(f) != 0;
    if (fclose(f) != 0 || failed) {
        fprintf(stderr, "%s: writing the CSV failed\n", path);
        return false;
    }
    return true;
}

bool bb_layout_works(int layout)
{
    bl_params p;
    bl_params_init(&p);
    p.layout = (bl_layout)layout;
    p.expected_keys = 4096;
    p.fpp = 0.01;
    bl_filter *f = NULL;
    if (bl_create(&f, &p) != BL_OK)
        return false;
    bool ok = true;
    for (uint64_t i = 0; i < 4096 && ok; i++)
        ok = bl_add_u64(f, bb_key_u64(i)) == BL_OK;
    size_t fn = 0, fp = 0;
    for (uint64_t i = 0; i < 4096; i++) {
        fn += !bl_contains_u64(f, bb_key_u64(i));
        fp += bl_contains_u64(f, bb_key_u64(BB_ABSENT + i));
    }
    bl_free(f);
    return ok && fn == 0 && fp < 400;
}
