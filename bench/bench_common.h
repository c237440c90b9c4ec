/* SPDX-License-Identifier: MIT */
/* Shared benchmark helpers: timing and statistics, pinning, key and URL generators, arguments. */
#ifndef BB_COMMON_H
#define BB_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BB_MAX_REPS 64

/* ---- Time and statistics ------------------------------------------------------------------- */

uint64_t bb_now_ns(void);

/* The clock BB_TIME uses: the calling thread's CPU time by default, so that time slices given
 * to other processes on a shared machine are not charged to the code measured (cache and
 * memory-bandwidth interference still are); "wall" for CLOCK_MONOTONIC. */
extern int bb_timing_clock;
uint64_t bb_timer_ns(void);
/* Parse "cpu" or "wall" into bb_timing_clock; false if neither. */
bool bb_set_clock(const char *name);
const char *bb_clock_name(void);

/* Median and minimum of a set of repetitions (ns per key). */
typedef struct bb_stat {
    double med;
    double min;
    bool valid;
} bb_stat;
bb_stat bb_stat_of(const double *v, int n);

/* "12.3" / "12.3 (11.9)" cells for the tables; "-" when invalid. */
const char *bb_fmt_ns(bb_stat s, char *buf, size_t cap);

/* Run `body` reps times, timing each run; stat = ns per key over nkeys keys per run. */
#define BB_TIME(reps, nkeys, stat, body)                                                        \
    do {                                                                                        \
        double bb_v_[BB_MAX_REPS];                                                              \
        int bb_r_n_ = (reps) < BB_MAX_REPS ? (reps) : BB_MAX_REPS;                             \
        for (int bb_r_ = 0; bb_r_ < bb_r_n_; bb_r_++) {                                         \
            uint64_t bb_t0_ = bb_timer_ns();                                                    \
            body;                                                                               \
            bb_v_[bb_r_] = (double)(bb_timer_ns() - bb_t0_) / (double)(nkeys);                  \
        }                                                                                       \
        (stat) = bb_stat_of(bb_v_, bb_r_n_);                                                    \
    } while (0)

/* The same, running body `loops` times per repetition (stat still per key: nkeys x loops). Small
 * filters are timed this way so that each repetition lasts milliseconds: a context switch of
 * the shared machine then costs a cache refill of a few percent of one repetition, not most of
 * a 0.1 ms one. */
#define BB_TIME_LOOPS(reps, nkeys, loops, stat, body)                                           \
    BB_TIME(reps, (double)(nkeys) * (double)(loops), stat,                                      \
            for (uint64_t bb_l_ = 0; bb_l_ < (uint64_t)(loops); bb_l_++) { body; })

/* Two bodies timed in alternation, repetition by repetition (a, b, a, b, ...): on a shared
 * machine both then see the same background load, so their ratio is steadier than the ratio of
 * two runs timed minutes apart. Used to pair each filter measurement with its memory probe.
 * BB_TIME_LOOPS_VS times nkeys_a keys in a and nkeys_b in b, and keeps the ratio of their ns per
 * key in each repetition: the median of those is a head-to-head figure, each repetition's ratio
 * taken under one load (bench_filters: libbloom against bloomline). */
#define BB_TIME_LOOPS_VS(reps, nkeys_a, nkeys_b, loops, stat_a, body_a, stat_b, body_b,             \
                         stat_ratio)                                                                \
    do {                                                                                            \
        double bb_va_[BB_MAX_REPS], bb_vb_[BB_MAX_REPS], bb_vr_[BB_MAX_REPS];                       \
        const int bb_n_ = (reps) < BB_MAX_REPS ? (reps) : BB_MAX_REPS;                              \
        const double bb_ka_ = (double)(nkeys_a) * (double)(loops);                                  \
        const double bb_kb_ = (double)(nkeys_b) * (double)(loops);                                  \
        for (int bb_r_ = 0; bb_r_ < bb_n_; bb_r_++) {                                               \
            uint64_t bb_t0_ = bb_timer_ns();                                                        \
            for (uint64_t bb_l_ = 0; bb_l_ < (uint64_t)(loops); bb_l_++) { body_a; }                \
            bb_va_[bb_r_] = (double)(bb_timer_ns() - bb_t0_) / bb_ka_;                              \
            bb_t0_ = bb_timer_ns();                                                                 \
            for (uint64_t bb_l_ = 0; bb_l_ < (uint64_t)(loops); bb_l_++) { body_b; }                \
            bb_vb_[bb_r_] = (double)(bb_timer_ns() - bb_t0_) / bb_kb_;                              \
            bb_vr_[bb_r_] = bb_va_[bb_r_] / bb_vb_[bb_r_];                                          \
        }                                                                                           \
        (stat_a) = bb_stat_of(bb_va_, bb_n_);                                                       \
        (stat_b) = bb_stat_of(bb_vb_, bb_n_);                                                       \
        (stat_ratio) = bb_stat_of(bb_vr_, bb_n_);                                                   \
    } while (0)
#define BB_TIME_LOOPS_PAIRED(reps, nkeys, loops, stat_a, body_a, stat_b, body_b)                    \
    do {                                                                                            \
        bb_stat bb_ratio_unused_;                                                                   \
        BB_TIME_LOOPS_VS(reps, nkeys, nkeys, loops, stat_a, body_a, stat_b, body_b,                 \
                         bb_ratio_unused_);                                                         \
        (void)bb_ratio_unused_;                                                                     \
    } while (0)

/* Anything a timed loop computes goes here so the compiler cannot drop the loop. */
extern volatile uint64_t bb_sink;

/* ---- Machine ---------------------------------------------------------------------------------- */

/* Pin the calling thread to one CPU, by its system number (hwloc when built with it, else
 * sched_setaffinity). Returns the CPU used or -1. cpu < 0: BLOOMLINE_BENCH_CPU (a number not
 * among this process's CPUs ends the program with status 2), else the last CPU it may use. */
int bb_pin_thread(int cpu);
/* Bind the calling thread to core number `core` (modulo the cores), any of its hardware
 * threads: workers pinned so never share a core while another idles. */
void bb_pin_core(int core);
/* Physical cores (hwloc) or online CPUs. */
int bb_ncores(void);
/* One line describing the CPU and caches ("# machine: ..."), for every program's header. */
void bb_print_machine(FILE *out);
/* Peak resident set size of this process in bytes (VmHWM), 0 if unknown. */
size_t bb_peak_rss(void);

/* ---- Keys ------------------------------------------------------------------------------------- */

/* A bijection on 64-bit values (the splitmix64 finalizer): distinct indexes give distinct keys. */
static inline uint64_t bb_mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/* Key spaces: the present keys of a run are indexes [0, n); absent keys start at BB_ABSENT. */
#define BB_ABSENT (UINT64_C(1) << 62)

/* uint64 key number i. */
static inline uint64_t bb_key_u64(uint64_t i) { return bb_mix(i); }

/* URL number i: ~50 bytes (48..53), distinct for distinct i (the 16 hex digits of bb_mix(i)
 * are in it). out needs BB_URL_MAX bytes. Returns the length; no terminating NUL. */
#define BB_URL_MAX 64
size_t bb_url(uint64_t i, char *out);

/* A materialised set of URL keys: arena + pointer and length arrays, for the batch APIs. */
typedef struct bb_urls {
    char *arena;
    const void **ptr;
    size_t *len;
    size_t n;
    size_t bytes; /* arena bytes used */
} bb_urls;
/* Keys [first, first + n) in a new set (out of memory: bb_malloc's message and exit). */
void bb_urls_make(bb_urls *u, uint64_t first, size_t n);
/* Refill an already allocated set (capacity n) with keys [first, first + n). */
void bb_urls_fill(bb_urls *u, uint64_t first, size_t n);
void bb_urls_free(bb_urls *u);

/* uint64 keys [first, first + n) into out. */
void bb_keys_u64(uint64_t *out, uint64_t first, size_t n);

/* malloc, or a message and exit status 1: a run short of memory has nothing to measure, and
 * several programs went on with a NULL buffer or stopped with status 1 and no word. */
void *bb_malloc(size_t bytes);

/* Ask for transparent huge pages over the whole pages of [p, p + bytes): a hint, so nothing to
 * check (without THP, or where MADV_HUGEPAGE is unknown, the pages stay 4 KiB). Call it before the
 * first write, which is when the kernel picks the page size. */
void bb_advise_huge(void *p, size_t bytes);

/* Write to every page so the timed loops never take a first-touch fault. */
void bb_touch(void *p, size_t bytes);
/* bb_touch over a new filter's payload (a scalable chain's: its one stage). Not bl_clear: that
 * gives an anonymous payload's pages back rather than writing them. */
struct bl_filter;
void bb_touch_filter(struct bl_filter *f);

/* ---- Arguments ----------------------------------------------------------------------------- */

/* "1000000", "1e9", "2^27" -> value; 0 on error: not a whole number, anything after it, a
 * negative or a value past 1.8e19. */
uint64_t bb_parse_count(const char *s);
/* A comma-separated list of counts ("16,20" as powers of two when pow2 is true, exponents 1 to
 * BB_MAX_LOG2_KEYS); -1 if an item is not one, an item is empty or there are more than cap. */
#define BB_MAX_LOG2_KEYS 40
int bb_parse_list(const char *s, uint64_t *out, int cap, bool pow2);

/* Option values, checked whole and against their range. On a missing or bad value these print
 * "prog: opt: ..." naming the value and what is accepted, and return false: the programs then
 * exit with status 2 rather than run with a value atoi or atof made up (1e12 read as 1, 5x as
 * 5) or one the casts that follow would wrap. v is the next argument, NULL if there is none. */
bool bb_arg_count(const char *prog, const char *opt, const char *v, uint64_t lo, uint64_t hi,
                  uint64_t *out);
bool bb_arg_int(const char *prog, const char *opt, const char *v, int lo, int hi, int *out);
/* A number in [lo, hi], or in (lo, hi) when open. */
bool bb_arg_real(const char *prog, const char *opt, const char *v, double lo, double hi, bool open,
                 double *out);
/* bb_parse_list with the message; every item also at most hi. */
bool bb_arg_list(const char *prog, const char *opt, const char *v, uint64_t *out, int cap,
                 bool pow2, uint64_t hi, int *n);
/* Any string (a file name, a list checked later). */
bool bb_arg_string(const char *prog, const char *opt, const char *v, const char **out);
/* "cpu" or "wall" (bb_set_clock). */
bool bb_arg_clock(const char *prog, const char *opt, const char *v);
/* Whether a comma-separated list names only names[0..n): an unknown name would otherwise select
 * nothing and the run would print empty tables and succeed. */
bool bb_arg_names(const char *prog, const char *opt, const char *list, const char *const *names,
                  int n);
/* Whether name is an item of a comma-separated list (NULL: every name is). */
bool bb_in_list(const char *list, const char *name);
/* "prog: <message>" and where the options are listed, on stderr; returns 2 (the exit status). */
int bb_arg_error(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Bounds of the common options. Reps: BB_MAX_REPS. A larger sample only repeats small filters'
 * keys more often: 2^30 keys already take seconds a repetition, 2^40 took hours. Bits per key
 * and the prefetch window are kept where the buffer sizes and the unsigned window cannot wrap. */
#define BB_MAX_SAMPLE (UINT64_C(1) << 30)
#define BB_MAX_BITS_PER_KEY 1024
#define BB_MAX_DIST (1u << 20)

/* Open a CSV for writing; writes the header if the file is new/empty. NULL path gives NULL; so
 * does a failure, with a message: callers given a path then stop before the run, whose results
 * would otherwise be printed, lost and reported as a success (status 0). */
FILE *bb_csv_open(const char *path, const char *header);
/* Close a CSV (NULL: nothing to do); false, with a message, if a write failed (a full disk would
 * leave a truncated file behind a status 0). */
bool bb_csv_close(FILE *f, const char *path);

/* Whether a layout is really implemented here (creates a small filter and checks it answers
 * like a Bloom filter: every added key present, most others absent). */
bool bb_layout_works(int layout);

#endif
