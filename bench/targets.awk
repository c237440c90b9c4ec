# SPDX-License-Identifier: MIT
# Checks the benchmark targets (issues 3 and 7) against the CSVs of one bench/run; prints a
# markdown table: target, required, measured, verdict, margin.
# usage: awk -F, -f bench/targets.awk filters.csv fpr_bpk.csv fpr_p.csv fpr_space.csv \
#            [cli.csv] [scale.csv]
function base(p) { sub(/.*\//, "", p); return p }
function row(name, req, got, ok, margin) {
    printf "| %s | %s | %s | %s | %s |\n", name, req, got, ok == "" ? "not measured" : (ok ? "**met**" : "**missed**"), margin
    if (ok != "") { total++; met += ok }
}
# Whether x is a measured value: a positive decimal number. C prints a failed division as "nan"
# or "-nan" (gawk reads "-nan" as NaN, mawk both), which is neither above nor below a limit, and
# which made the best-kernel searches keep or drop a kernel by the order of their loop.
function num(x) { return x ~ /^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/ && x + 0 > 0 }
# ratio target: value v must be <= lim (lower is better)
function le(name, req, v, lim, unit, detail) {
    if (!num(v)) { row(name, req, "-", "", ""); return }
    row(name, req, sprintf("%.2f%s%s", v, unit, detail), v <= lim,
        v <= lim ? sprintf("%.1f%% under", 100 * (1 - v / lim)) : sprintf("%.1f%% over", 100 * (v / lim - 1)))
}
function ge(name, req, v, lim, unit, detail) {
    if (!num(v)) { row(name, req, "-", "", ""); return }
    row(name, req, sprintf("%.2f%s%s", v, unit, detail), v >= lim,
        v >= lim ? sprintf("%.0f%% above", 100 * (v / lim - 1)) : sprintf("%.0f%% short", 100 * (1 - v / lim)))
}
# best (lowest) sum of a blocked kernel's columns c1 and c2, both from one kernel (the query mix
# of a run on one machine), each divided by its probe column when pc1 / pc2 > 0 (pair_val, below;
# no fallback probe); sets BK to the kernel and, per side i, SUMV[i] and SUMP[i] (value and probe)
function best_sum(kind, n, c1, pc1, c2, pc2,    k, a, b, va, pa, bs) {
    bs = ""; BK = ""
    for (k in KERN) {
        a = pair_val(k, kind, n, c1, pc1, ""); va = PVT; pa = PPT
        if (a == "") continue
        b = pair_val(k, kind, n, c2, pc2, "")
        if (b == "") continue
        if (bs == "" || a + b < bs) {
            bs = a + b; BK = k; SUMV[1] = va; SUMP[1] = pa; SUMV[2] = PVT; SUMP[2] = PPT
        }
    }
    return bs
}
# best (lowest) ratio of column c to the probe timed beside it (column pc; the size's own probe
# `alone` for rows without one); sets BK, BV (the value) and BP (the probe)
function best_ratio(kind, n, lay, c, pc, alone,    k, v, p, r, b) {
    b = ""; BK = ""
    for (k in KERN) {
        v = V[kind, n, "bloomline", lay, k, c]; p = V[kind, n, "bloomline", lay, k, pc]
        if (p == "") p = alone
        if (!num(v) || !num(p)) continue
        r = v / p
        if (b == "" || r < b) { b = r; BK = k; BV = v; BP = p }
    }
    return b
}
function ratio_row(name, req, kind, n, c, pc, alone, lim) {
    v = best_ratio(kind, n, "blocked", c, pc, alone)
    le(name, req, v, lim, "x", sprintf(" (%.2f ns %s vs %.2f ns)", BV, BK, BP))
}
# A target on hit and miss queries (the issue's "batched query (hit and miss)") is met by a
# kernel only when both of its rows are: the kernel is the one whose worse value of the two is
# lowest, and both rows come from it. Taking the best hit of one kernel and the best miss of
# another reported the recorded 2^27 miss at 1.06x (avx2) where avx512, whose hit row was shown,
# read 1.11x; that pair is no query any run does (as for libbloom below). pc1/pc2 > 0: columns
# c1/c2 are divided by the probe timed beside them (the size's probe `alone` without one).
# pair_val: kernel k's value of column c (a ratio when pc > 0), "" if missing; PVT, PPT: the
# value and the probe. best_pair sets BK and, per side i, PR[i] (ratio or value), PV[i], PP[i].
function pair_val(k, kind, n, c, pc, alone,    v, p) {
    v = V[kind, n, "bloomline", "blocked", k, c]
    if (!num(v)) return ""
    if (!pc) { PVT = v; PPT = ""; return v + 0 }
    p = V[kind, n, "bloomline", "blocked", k, pc]
    if (p == "") p = alone
    if (!num(p)) return ""
    PVT = v; PPT = p
    return v / p
}
function best_pair(kind, n, c1, pc1, c2, pc2, alone,    k, a, b, va, pa, w, bw) {
    BK = ""; bw = ""
    for (k in KERN) {
        a = pair_val(k, kind, n, c1, pc1, alone); va = PVT; pa = PPT
        if (a == "") continue
        b = pair_val(k, kind, n, c2, pc2, alone)
        if (b == "") continue
        w = a > b ? a : b
        if (bw == "" || w < bw) {
            bw = w; BK = k; PR[1] = a; PV[1] = va; PP[1] = pa; PR[2] = b; PV[2] = PVT; PP[2] = PPT
        }
    }
    if (BK == "") { PR[1] = PR[2] = ""; PV[1] = PV[2] = PP[1] = PP[2] = "" }
}
# Two rows (hit, miss) of one target from best_pair.
function pair_rows(name, req, kind, n, c1, pc1, c2, pc2, alone, lim, unit, extra,    i, d) {
    best_pair(kind, n, c1, pc1, c2, pc2, alone)
    for (i = 1; i <= 2; i++) {
        if (pc1) d = sprintf(" (%.2f ns %s vs %.2f ns)", PV[i], BK, PP[i])
        else d = " (" BK extra ")"
        le(name (i == 1 ? ", hit" : ", miss"), req, PR[i], lim, unit, d)
    }
}
# bloomline against libbloom at 2^27. The two rows are timed minutes apart, and this host's memory
# speed moves within a run: in the twenty-first Zen 5 run (2026-12-02) the probe timed beside
# libbloom read 13.7 ns and the one beside bloomline 5.2, and the plain ratio of the rows read
# 44x where the twentieth read 18x. So bench_filters also times the two in alternation (columns
# 27-33 of libbloom's row: bloomline's kernel, libbloom's and bloomline's ns per key, the median
# and lowest of the repetitions' ratios), and the verdict is that median: the same queries under
# one load. The host's load still moves it from run to run (16.8x to 29.6x on the Zen 5 in one
# afternoon: bloomline read 9.8 to 5.0 ns, libbloom 187 to 149), and the line says so.
# Without those columns (CSVs before 2026-12-02) each side's time is divided by the probe timed
# beside it (columns 21 and 23 of either row), hits and misses of one kernel (the best hit of
# one and the best miss of another is no query any run does: it made the ratio up to 7% higher
# on results-epyc). That division is shown beside the alternation but does not judge where the
# alternation ran: libbloom, bound by latency, does not scale with the probe, bound by
# throughput (in the twenty-third run it cost 18.4 probes a key at a busy moment and about 29
# at a quiet one). It also assumes both arrays on pages of one size, as bench_filters has given them
# since 2026-11-25: libbloom's on 4 KiB pages (the run in bench/results) made its probe,
# prefetches that wait on TLB walks, slower than libbloom's own loads, and its divided ratio too
# low. Rows with neither (older CSVs) are judged on the plain ratio, and say so.
function libbloom_row(    lh, lm, lph, lpm, raw, rk, b, eq, name, req, L, vk, vr) {
    name = "2^27 u64 query vs libbloom"; req = ">= 20x faster"
    L = "u64" SUBSEP N27 SUBSEP "libbloom" SUBSEP "classic" SUBSEP "-"
    lh = V[L, 13]; lm = V[L, 17]; lph = V[L, 21]; lpm = V[L, 23]; vk = V[L, 27]; vr = V[L, 32]
    raw = best_sum("u64", N27, 15, 0, 19, 0); rk = BK
    b = best_sum("u64", N27, 15, 21, 19, 23)
    eq = num(lh) && num(lm) && num(lph) && num(lpm) && b != "" ? (lh / lph + lm / lpm) / b : ""
    if (vk != "" && num(vr) && num(V[L, 28]) && num(V[L, 30]) && num(V[L, 33])) {
        ge(name, req, vr, 20, "x",
           sprintf(" timed in alternation (libbloom %.1f ns, bloomline %.2f ns %s batched; median of the repetitions' ratios, lowest %.2fx%s; one run's load)",
                   V[L, 28], V[L, 30], vk, V[L, 33],
                   eq != "" ? sprintf("; the rows apart, at equal memory speed: %.2fx", eq) : ""))
        return
    }
    if (!num(lh) || !num(lm) || !num(raw)) { row(name, req, "-", "", ""); return }
    if (eq != "")
        ge(name, req, eq, 20, "x",
           sprintf(" at equal memory speed (libbloom %.1f ns beside a probe of %.2f; %.2f ns %s beside %.2f; plain ratio %.2fx)",
                   (lh + lm) / 2, (lph + lpm) / 2, (SUMV[1] + SUMV[2]) / 2, BK, (SUMP[1] + SUMP[2]) / 2, (lh + lm) / raw))
    else
        ge(name, req, (lh + lm) / raw, 20, "x",
           sprintf(" (libbloom %.1f ns vs %.2f ns %s; no paired probes: the plain ratio)", (lh + lm) / 2, raw / 2, rk))
}
FNR == 1 { f = base(FILENAME); next }
# The programs append to an existing CSV (bb_csv_open), so rows of two runs (another machine, a
# rerun of one size) can share a file with no header between them, and the last row of a key
# silently won. A repeated row voids its file's targets (DUP, reported in END).
function seen(key) {
    if ((f, key) in SEEN) { DUP[f]++; return 1 }
    SEEN[f, key] = 1
    return 0
}
f == "filters.csv" {
    # kind,n,impl,layout,kernel,bytes,bpk,fpr,ins1 med/min,insb,hit1,hitb,miss1,missb,
    # then the rolling probes timed beside hitb, missb (read) and insb (RMW): columns 21, 23, 25;
    # libbloom's row: 27-33, its head-to-head with bloomline (libbloom_row)
    seen($1 SUBSEP $2 SUBSEP $3 SUBSEP $4 SUBSEP $5)
    for (c = 6; c <= 33; c++) V[$1, $2, $3, $4, $5, c] = $c
    if ($3 == "bloomline") KERN[$5] = 1
    next
}
f == "fpr_bpk.csv" {
    seen($1 SUBSEP $2)
    if ($1 == "blocked" && $2 == 10) { BPK10 = $7; BPK10SE = $8 }
    next
}
# layout,p,bits_per_key,k,queries,fp,measured,se,bound,pass. The verdict is recomputed from the
# counts (fp / queries <= p + 3 SE at p, the issue's rule), not read from the pass column.
f == "fpr_p.csv" {
    seen($1 SUBSEP ($2 + 0))
    PQ[$1, $2 + 0] = ($5 > 0 && $6 / $5 <= $2 + 3 * sqrt($2 * (1 - $2) / $5)) ? 1 : 0
    next
}
f == "fpr_space.csv" { seen($1 + 0); SPACE[$1 + 0] = $6; next }
f == "cli.csv" {
    CLI[$1, $2] = $4; CLIRATE[$1, $2] = $5; CLIRSS[$1, $2] = $6; CLIRC[$1, $2] = $7
    CLISEL[$1, $2] = $8; CLILINES = $3; next
}
# A CLI speed target counts only when the runs it times did the job: a bloomline run that failed
# or missed present keys (bad) makes it missed; a peer run that failed or selected a wrong count
# (peer) leaves the comparison not measured.
# The targets are for 10^7 lines: a run of another size (--cli-lines) is shown, not counted.
function cli_ge(name, req, v, lim, unit, bad, peer) {
    if (bad != "") row(name, req, "invalid: " bad, 0, "")
    else if (peer != "") row(name, req, "invalid: " peer, "", "")
    else if (CLILINES != 10000000)
        row(name, req, sprintf("%.2f%s on %d lines", v, unit, CLILINES), "", "target is for 10^7")
    else ge(name, req, v, lim, unit, "")
}
# Why a peer's build+query row (mawk, gawk) cannot be compared: a failed run or a wrong count.
function peer_bad(t) {
    if (CLIRC[t, "build+query"] != 0) return t " exit " CLIRC[t, "build+query"]
    if (CLISEL[t, "build+query"] != EXPECT) return t " selected " CLISEL[t, "build+query"] " of " EXPECT
    return ""
}
f == "scale.csv" { SK = $1; SB = $7; SP = $8; SFN = $9; SABS = $10; SFPR = $12; SRSS = $13; SBYTES = $4; SFPP = $3; next }
END {
    N27 = 134217728; N24 = 16777216; N16 = 65536; N20 = 1048576
    print "| target | required | measured | verdict | margin |"
    print "|---|---|---|---|---|"
    # A file with repeated rows mixes runs: its targets are not measured, and the mix is a miss.
    for (g in DUP)
        row(g " holds one run", "each row once", DUP[g] " repeated rows (runs appended?)", 0, "")
    if ("filters.csv" in DUP) { delete V; delete KERN }
    if ("fpr_bpk.csv" in DUP) BPK10 = ""
    if ("fpr_p.csv" in DUP) delete PQ
    if ("fpr_space.csv" in DUP) delete SPACE
    # Targets whose rows are missing are listed as not measured, never left out: "N of M met"
    # counted only the targets printed, and a missing 2^24 size or AVX2 row made its targets vanish.
    pr = V["u64", N27, "probe", "rolling", "-", 15]; pw = V["u64", N27, "probe", "rolling", "-", 11]
    if (pr != "") {
        pair_rows("2^27 u64 batched query", "<= 1.15 x rolling read probe", "u64", N27,
                  15, 21, 19, 23, pr, 1.15, "x", "")
        ratio_row("2^27 u64 batched insert", "<= 1.15 x rolling RMW probe", "u64", N27, 11, 25, pw, 1.15)
    } else row("2^27 targets", "", "not run", "", "")
    pr = V["u64", N24, "probe", "rolling", "-", 15]
    if (pr != "")
        pair_rows("2^24 u64 batched query", "<= 1.2 x rolling read probe", "u64", N24,
                  15, 21, 19, 23, pr, 1.2, "x", "")
    else row("2^24 targets", "", "not run", "", "")
    # "with the best kernel": the fastest kernel that meets it on hits and misses both
    pair_rows("2^16 u64 batched query", "<= 1.0 ns/key", "u64", N16, 15, 0, 19, 0, "", 1.0,
              " ns", "")
    pair_rows("2^16 u64 single query", "<= 1.8 ns/key", "u64", N16, 13, 0, 17, 0, "", 1.8,
              " ns", "")
    for (c = 15; c <= 19; c += 4) {
        t = "2^16 AVX2 vs scalar, batched query " (c == 15 ? "hit" : "miss")
        s = V["u64", N16, "bloomline", "blocked", "scalar", c]
        a = V["u64", N16, "bloomline", "blocked", "avx2", c]
        if (num(s) && num(a))
            ge(t, ">= 1.5x", s / a, 1.5, "x", sprintf(" (%.2f vs %.2f ns)", s, a))
        else row(t, ">= 1.5x", "-", "", "")
    }
    xx = V["url", N20, "XXH3 alone", "-", "-", 13]; xs = xx != "" ? sprintf("; XXH3 alone %.2f ns", xx) : ""
    pair_rows("2^20 URL batched query", "<= 5.5 ns/key", "url", N20, 15, 0, 19, 0, "", 5.5,
              " ns", xs)
    libbloom_row()
    if (BPK10 != "") le("blocked FPR at 10 bits/key", "<= 1.0%", 100 * BPK10, 1.0, "%", sprintf(" (+-%.3f%%)", 100 * BPK10SE))
    else row("blocked FPR at 10 bits/key", "<= 1.0%", "-", "", "")
    # Every layout at every p: a row missing (a layout skipped, a run cut short) is no pass. The
    # count of the rows present made 6 of 6 rows "met" for a run that measured one layout.
    np = split("blocked sbbf classic counting scalable", lays, " ")
    split("0.1 0.01 0.001 0.0001 0.00001 0.000001", ps, " ")
    NP = NPASS = 0; FAILS = MISS = ""
    for (i = 1; i <= np; i++)
        for (j = 1; j <= 6; j++) {
            NP++
            if (!((lays[i], ps[j] + 0) in PQ)) MISS = MISS " " lays[i] "@" (ps[j] + 0)
            else if (PQ[lays[i], ps[j] + 0]) NPASS++
            else FAILS = FAILS " " lays[i] "@" (ps[j] + 0)
        }
    t = "honest sizing, p = 1e-1..1e-6, every layout"
    if (NPASS == 0 && FAILS == "") row(t, "measured <= p + 3 SE", "-", "", "")
    else row(t, "measured <= p + 3 SE", NPASS "/" NP " pass" (FAILS ? "; fail:" FAILS : "") \
             (MISS ? "; missing:" MISS : ""), NPASS == NP, NP - NPASS " failing or missing")
    if (SPACE[0.01] != "") le("blocked vs classic bits at p = 1%", "<= 1.15x", SPACE[0.01], 1.15, "x", "")
    else row("blocked vs classic bits at p = 1%", "<= 1.15x", "-", "", "")
    if (SPACE[0.0001] != "") le("blocked vs classic bits at p = 0.01%", "<= 1.25x", SPACE[0.0001], 1.25, "x", "")
    else row("blocked vs classic bits at p = 0.01%", "<= 1.25x", "-", "", "")
    if (CLI["bloomline", "build"] != "") {
        # bench/cli.sh's queries: the even lines of the query file are present keys, so an exact
        # tool selects (lines + 1) / 2 of them and a filter at least that many. A bloomline
        # exit other than 0 (an error: 2) or fewer lines (false negatives) voids its timings.
        EXPECT = int((CLILINES + 1) / 2); CLIBAD = ""
        if (CLIRC["bloomline", "build"] != 0) CLIBAD = "bloomline build exit " CLIRC["bloomline", "build"]
        else if (CLIRC["bloomline", "query"] != 0) CLIBAD = "bloomline query exit " CLIRC["bloomline", "query"]
        else if (CLISEL["bloomline", "query"] < EXPECT) CLIBAD = "bloomline query selected " CLISEL["bloomline", "query"] " of " EXPECT " present (false negatives)"
        ln = CLILINES == 10000000 ? "10^7" : CLILINES
        cli_ge("CLI build, " ln " URL lines, -t 2", ">= 15 M lines/s", CLIRATE["bloomline", "build"] / 1e6, 15, " M/s", CLIBAD)
        cli_ge("CLI query, " ln " URL lines, -t 2", ">= 15 M lines/s", CLIRATE["bloomline", "query"] / 1e6, 15, " M/s", CLIBAD)
        bt = CLI["bloomline", "build"] + CLI["bloomline", "query"]
        br = CLIRSS["bloomline", "build"] > CLIRSS["bloomline", "query"] ? CLIRSS["bloomline", "build"] : CLIRSS["bloomline", "query"]
        if (bt > 0) cli_ge("CLI build+query vs awk, time", ">= 10x faster", CLI["awk", "build+query"] / bt, 10, "x", CLIBAD, peer_bad("awk"))
        if (br > 0) cli_ge("CLI build+query vs awk, peak memory", ">= 20x less", CLIRSS["awk", "build+query"] / br, 20, "x", CLIBAD, peer_bad("awk"))
        if (bt > 0 && CLI["gawk", "build+query"] != "") cli_ge("CLI build+query vs gawk, time", ">= 10x faster", CLI["gawk", "build+query"] / bt, 10, "x", CLIBAD, peer_bad("gawk"))
        if (br > 0 && CLI["gawk", "build+query"] != "") cli_ge("CLI build+query vs gawk, peak memory", ">= 20x less", CLIRSS["gawk", "build+query"] / br, 20, "x", CLIBAD, peer_bad("gawk"))
    } else row("CLI targets", "", "not run", "", "")
    if (SK != "") {
        tag = sprintf(" (%.0e keys)", SK)
        # The targets are for 10^9 keys at p = 1e-4: a smaller run projected linearly (its filter
        # far more cache-resident) or a run at another p is shown, not counted. Its rate was
        # checked against the run's own p, so --fpp 0.01 met "<= 1e-4".
        if (SK < 1e9 || SFPP != 0.0001) {
            why = SK < 1e9 ? "target is for 1e9 keys" : "target is for p = 1e-4, run at " SFPP
            row("scale build" tag, "<= 60 s for 1e9", sprintf("%.1f s (p = %g)", SB, SFPP), "", why)
            row("scale probe" tag, "<= 60 s for 1e9", sprintf("%.1f s (p = %g)", SP, SFPP), "", why)
            row("scale peak memory" tag, "<= 1.1 x filter", sprintf("%.2fx", SRSS / SBYTES), "",
                why)
            row("scale measured rate" tag, "<= 1e-4", sprintf("%.4g", SFPR), "", why)
        } else {
            le("scale build" tag, "<= 60 s for 1e9", SB * 1e9 / SK, 60, " s", "")
            le("scale probe" tag, "<= 60 s for 1e9", SP * 1e9 / SK, 60, " s", "")
            le("scale peak memory" tag, "<= 1.1 x filter", SRSS / SBYTES, 1.1, "x",
               sprintf(" (%.2f GB)", SRSS / 1e9))
            # as for honest sizing: the rate may exceed p by sampling error only (3 SE at p)
            sse = sqrt(SFPP * (1 - SFPP) / SABS)
            row("scale measured rate" tag, "<= 1e-4 (+3 SE = " sprintf("%.3g", SFPP + 3 * sse) ")",
                sprintf("%.4g +- %.2g", SFPR, sse), SFPR <= SFPP + 3 * sse,
                sprintf("%+.1f SE from p", (SFPR - SFPP) / sse))
        }
        if (SFN != 0) row("scale false negatives", "0", SFN, 0, "")
    } else row("billion-URL targets", "", "bench/scale not run", "", "")
    printf "\n%d of %d measured targets met.\n", met, total
}
