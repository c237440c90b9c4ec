/* SPDX-License-Identifier: MIT */
/* bench_probe: the memory limit of one-line-per-key filters, per buffer size and prefetch window. */
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "probe.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: bench_probe [--sizes 16,20,24,27] [--bits-per-key 10] [--dist 64[,..]]\n"
                 "                   [--reps 5] [--sample 2^21] [--clock cpu|wall] [--csv FILE]\n"
                 "                   [--quick]\n"
                 "Buffers are sized like a filter of 2^s keys at the given bits per key.\n"
                 "Up to 16 sizes (s from 1 to %d) and windows D (1 to %u lines); reps 1 to %d;\n"
                 "sample (keys per repetition) at most 2^30; bits per key above 0, below %d.\n",
            BB_MAX_LOG2_KEYS, BB_MAX_DIST, BB_MAX_REPS, BB_MAX_BITS_PER_KEY);
}

int main(int argc, char **argv)
{
    const char *prog = "bench_probe";
    uint64_t sizes[16] = {1u << 16, 1u << 20, 1u << 24, 1u << 27};
    int nsizes = 4;
    uint64_t dists[16] = {64};
    int ndists = 1;
    int reps = 5;
    double bpk = 10;
    uint64_t sample = 1u << 21;
    const char *csv_path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--quick")) {
            sizes[0] = 1u << 10, sizes[1] = 1u << 14, nsizes = 2;
            reps = 3;
            sample = 1u << 14;
            continue;
        }
        bool ok;
        if (!strcmp(a, "--sizes"))
            ok = bb_arg_list(prog, a, v, sizes, 16, true, UINT64_MAX, &nsizes);
        else if (!strcmp(a, "--dist"))
            ok = bb_arg_list(prog, a, v, dists, 16, false, BB_MAX_DIST, &ndists);
        else if (!strcmp(a, "--reps"))
            ok = bb_arg_int(prog, a, v, 1, BB_MAX_REPS, &reps);
        else if (!strcmp(a, "--bits-per-key"))
            ok = bb_arg_real(prog, a, v, 0, BB_MAX_BITS_PER_KEY, true, &bpk);
        else if (!strcmp(a, "--sample"))
            ok = bb_arg_count(prog, a, v, 1, BB_MAX_SAMPLE, &sample);
        else if (!strcmp(a, "--clock"))
            ok = bb_arg_clock(prog, a, v);
        else if (!strcmp(a, "--csv"))
            ok = bb_arg_string(prog, a, v, &csv_path);
        else
            return bb_arg_error(prog, "unknown option '%s'", a);
        if (!ok)
            return 2;
        i++;
    }
    FILE *csv = bb_csv_open(csv_path, "n,bytes,mode,dist,read_med,read_min,rmw_med,rmw_min");
    if (csv_path != NULL && csv == NULL)
        return 1;
    int cpu = bb_pin_thread(-1);
    bb_print_machine(stdout);
    printf("# pinned to cpu %d; %d reps timed with %s, median (min) ns per key\n\n", cpu, reps,
           bb_clock_name());
    printf("| keys | buffer | mode | D | read ns/key | read-modify-write ns/key |\n");
    printf("|---:|---:|---|---:|---:|---:|\n");
    for (int si = 0; si < nsizes; si++) {
        const uint64_t n = sizes[si];
        const size_t s = (size_t)(n < sample ? n : sample);
        bb_buffer buf;
        if (bb_buffer_alloc(&buf, (size_t)((double)n * bpk / 8)) != 0) {
            fprintf(stderr, "bench_probe: cannot allocate the buffer for %llu keys\n",
                    (unsigned long long)n);
            return 1;
        }
        uint64_t *keys = bb_malloc(s * sizeof *keys);
        bb_keys_u64(keys, 0, s);
        for (int m = 0; m < 3; m++) {
            for (int di = 0; di < (m == BB_PROBE_PLAIN ? 1 : ndists); di++) {
                unsigned d = m == BB_PROBE_PLAIN ? 0 : (unsigned)dists[di];
                bb_stat rd, rmw;
                const uint64_t lp = s >= sample ? 1 : (sample + s - 1) / s; /* ms-long reps */
                BB_TIME_LOOPS(reps, s, lp, rd, bb_sink += bb_probe_read(&buf, keys, s, m, d));
                BB_TIME_LOOPS(reps, s, lp, rmw, bb_probe_rmw(&buf, keys, s, m, d));
                char c1[64], c2[64];
                printf("| 2^%d | %.1f MiB | %s | %u | %s | %s |\n", __builtin_ctzll(n),
                       buf.bytes / 1048576.0, bb_probe_mode_name[m], d, bb_fmt_ns(rd, c1, 64),
                       bb_fmt_ns(rmw, c2, 64));
                if (csv)
                    fprintf(csv, "%llu,%zu,%s,%u,%.4f,%.4f,%.4f,%.4f\n", (unsigned long long)n,
                            buf.bytes, bb_probe_mode_name[m], d, rd.med, rd.min, rmw.med, rmw.min);
                fflush(stdout);
            }
        }
        free(keys);
        bb_buffer_free(&buf);
    }
    return bb_csv_close(csv, csv_path) ? 0 : 1;
}
