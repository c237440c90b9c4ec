/* SPDX-License-Identifier: MIT */
/* The progress line: only on a terminal, only for runs long enough to need it. */
#include "cli.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* Quiet for the first second so that short runs never flash a line; then 4 updates a second. */
#define PROGRESS_DELAY 1.0
#define PROGRESS_PERIOD 0.25

/* The progress that last drew its line on stderr and has not cleared it (atomic). */
static cli_progress *drawn;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_progress_init(cli_progress *p, bool quiet, uint64_t total_bytes)
{
    p->on = !quiet && isatty(STDERR_FILENO);
    p->total_bytes = total_bytes;
    p->start = now();
    p->last = p->start;
    p->shown = false;
    p->lines = 0;
}

void cli_progress_lines(cli_progress *p, uint64_t n)
{
    if (p != NULL && p->on)
        __atomic_fetch_add(&p->lines, n, __ATOMIC_RELAXED);
}

void cli_human_bytes(double b, char *out, size_t cap)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    unsigned u = 0;
    while (b >= 1024 && u < 4) {
        b /= 1024;
        u++;
    }
    snprintf(out, cap, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
}

void cli_progress_update(cli_progress *p, uint64_t bytes_done)
{
    if (p == NULL || !p->on)
        return;
    const double t = now();
    if (t - p->start < PROGRESS_DELAY || t - p->last < PROGRESS_PERIOD)
        return;
    p->last = t;
    p->shown = true;
    const double el = t - p->start;
    const uint64_t lines = __atomic_load_n(&p->lines, __ATOMIC_RELAXED);
    char done[32], total[32];
    cli_human_bytes((double)bytes_done, done, sizeof done);
    char line[160];
    int n = snprintf(line, sizeof line, "\r%s", done);
    if (p->total_bytes > 0 && bytes_done <= p->total_bytes) {
        cli_human_bytes((double)p->total_bytes, total, sizeof total);
        n += snprintf(line + n, sizeof line - (size_t)n, " of %s (%.0f%%)", total,
                      100.0 * (double)bytes_done / (double)p->total_bytes);
    }
    n += snprintf(line + n, sizeof line - (size_t)n, ", %.1f M lines, %.1f M lines/s",
                  (double)lines / 1e6, (double)lines / 1e6 / el);
    if (p->total_bytes > 0 && bytes_done > 0 && bytes_done <= p->total_bytes) {
        const double eta = el * (double)(p->total_bytes - bytes_done) / (double)bytes_done;
        if (eta < 100 * 3600) /* (int) of an ETA past INT_MAX seconds would be undefined */
            n += snprintf(line + n, sizeof line - (size_t)n, ", ETA %d:%02d", (int)eta / 60,
                          (int)eta % 60);
        else
            n += snprintf(line + n, sizeof line - (size_t)n, ", ETA over 100 h");
    }
    /* \033[K clears what a longer previous line left behind. */
    fprintf(stderr, "%s\033[K", line);
    fflush(stderr);
    __atomic_store_n(&drawn, p, __ATOMIC_RELEASE);
}

void cli_progress_clear(void)
{
    if (__atomic_exchange_n(&drawn, NULL, __ATOMIC_ACQ_REL) != NULL)
        fputs("\r\033[K", stderr);
}

void cli_progress_end(cli_progress *p)
{
    if (p != NULL && p->on && p->shown) {
        __atomic_store_n(&drawn, NULL, __ATOMIC_RELEASE);
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
}
