#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# report.sh OUT "NS" "SUPERVISORS": turns OUT/raw.tsv (run, N, supervisor,
# metric, value; written by compare.sh) into the markdown table (stdout),
# svd's targets met/missed, and OUT/compare.png (gnuplot). Medians over the
# runs; svd/peer ratios are computed run by run, then their median.
# Can be rerun on an old results directory.

OUT=$1
NS=$2
SUPS=$3
RAW=$OUT/raw.tsv
[ -s "$RAW" ] || { echo "report.sh: no $RAW" >&2; exit 1; }

awk -F '\t' -v ns="$NS" -v sups="$SUPS" -v out="$OUT" '
function median(key,    n, a, i, j, t) {
        n = split(vals[key], a, " ")
        if (n == 0 || vals[key] == "")
                return ""
        for (i = 2; i <= n; i++) {
                t = a[i] + 0
                for (j = i - 1; j >= 1 && a[j] + 0 > t; j--)
                        a[j + 1] = a[j]
                a[j + 1] = t
        }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function add(run, n, k, m, v) {
        if (v == "")
                return
        val[run, n, k, m] = v
        vals[n, k, m] = vals[n, k, m] (vals[n, k, m] == "" ? "" : " ") v
        runs[run] = 1
}
function fmt(v, m) {
        if (v == "")
                return "–"
        if (m ~ /_kib$/ || m == "start_rate" || m == "procs" || m ~ /^relaunch/ || m == "crash_alive")
                return sprintf("%d", v + 0.5)
        if (v >= 100)
                return sprintf("%.0f", v)
        if (v >= 10)
                return sprintf("%.1f", v)
        if (v >= 1)
                return sprintf("%.2f", v)
        return sprintf("%.3f", v)
}
function ratio(n, k, m,    r, key, c, i, rs) {
        key = n SUBSEP k SUBSEP m
        delete rv
        c = 0
        for (r in runs)
                if ((r, n, "svd", m) in val && (r, n, k, m) in val && val[r, n, k, m] + 0 != 0) {
                        rv[++c] = val[r, n, "svd", m] / val[r, n, k, m]
                }
        if (c == 0)
                return ""
        rs = ""
        for (i = 1; i <= c; i++)
                rs = rs (i > 1 ? " " : "") rv[i]
        vals["ratio", key] = rs
        return median("ratio" SUBSEP key)
}
{ add($1, $2, $3, $4, $5) }
END {
        nn = split(ns, N, " ")
        ns_ = split(sups, S, " ")
        nmin = N[1]; nmax = N[1]
        for (i = 1; i <= nn; i++) {
                if (N[i] + 0 < nmin + 0) nmin = N[i]
                if (N[i] + 0 > nmax + 0) nmax = N[i]
        }
        # derived figures, run by run
        for (r in runs)
                for (i = 1; i <= nn; i++) {
                        n = N[i]
                        for (j = -1; j <= ns_; j++) {
                                k = j > 0 ? S[j] : j == 0 ? "floor" : "forkfloor"
                                if ((r, n, k, "start_ms") in val && val[r, n, k, "start_ms"] > 0)
                                        add(r, n, k, "start_rate", n * 1000 / val[r, n, k, "start_ms"])
                                if (n + 0 > nmin + 0 && (r, n, k, "pss_kib") in val && (r, nmin, k, "pss_kib") in val) {
                                        add(r, n, k, "pss_per_svc", (val[r, n, k, "pss_kib"] - val[r, nmin, k, "pss_kib"]) / (n - nmin))
                                        add(r, n, k, "rss_per_svc", (val[r, n, k, "rss_kib"] - val[r, nmin, k, "rss_kib"]) / (n - nmin))
                                }
                        }
                        if ((r, n, "svd", "start_ms") in val && (r, n, "floor", "start_ms") in val)
                                add(r, n, "svd", "vs_floor", val[r, n, "svd", "start_ms"] / val[r, n, "floor", "start_ms"])
                        if ((r, n, "svd", "start_ms") in val && (r, n, "forkfloor", "start_ms") in val)
                                add(r, n, "svd", "vs_forkfloor", val[r, n, "svd", "start_ms"] / val[r, n, "forkfloor", "start_ms"])
                }
        nm = split("start_ms start_rate vs_floor vs_forkfloor rss_kib pss_kib procs rss_per_svc pss_per_svc ctl_med ctl_p99 ctl_pair_med restart_med restart_p99 stop_ms crash_alive crash_last_ms relaunch_count idle_per_min", M, " ")
        L["start_ms"] = "start-all, ms"
        L["start_rate"] = "start-all, services/s"
        L["vs_floor"] = "start-all / floor"
        L["vs_forkfloor"] = "start-all / fork floor"
        L["rss_kib"] = "RSS of the supervisor, KiB"
        L["pss_kib"] = "PSS of the supervisor, KiB"
        L["procs"] = "supervisor processes"
        L["rss_per_svc"] = "RSS per service over N=" nmin ", KiB"
        L["pss_per_svc"] = "PSS per service over N=" nmin ", KiB"
        L["ctl_med"] = "status query, median ms"
        L["ctl_p99"] = "status query, p99 ms"
        L["ctl_pair_med"] = "status query, svd and runit side by side, median ms"
        L["restart_med"] = "restart after SIGKILL, median ms"
        L["restart_p99"] = "restart after SIGKILL, p99 ms"
        L["stop_ms"] = "stop-all, ms"
        cw = median(nmax SUBSEP "svd" SUBSEP "crash_window_ms")
        L["crash_alive"] = "services alive " (cw == "" || cw == 1000 ? "1 s" : cw " ms") " after kill -9"
        L["crash_last_ms"] = "last service dead after kill -9, ms"
        L["relaunch_count"] = "services running after relaunch"
        L["idle_per_min"] = "idle wake-ups per minute"
        hdr = "| figure | N | floor | fork floor"
        sep = "| --- | ---: | ---: | ---:"
        for (j = 1; j <= ns_; j++) { hdr = hdr " | " S[j]; sep = sep " | ---:" }
        for (j = 1; j <= ns_; j++) if (S[j] != "svd") { hdr = hdr " | svd/" S[j]; sep = sep " | ---:" }
        print hdr " |"
        print sep " |"
        for (m = 1; m <= nm; m++)
                for (i = 1; i <= nn; i++) {
                        n = N[i]
                        any = 0
                        line = "| " L[M[m]] " | " n " | " fmt(median(n SUBSEP "floor" SUBSEP M[m]), M[m]) " | " fmt(median(n SUBSEP "forkfloor" SUBSEP M[m]), M[m])
                        for (j = 1; j <= ns_; j++) {
                                v = median(n SUBSEP S[j] SUBSEP M[m])
                                if (v != "") any = 1
                                line = line " | " fmt(v, M[m])
                        }
                        for (j = 1; j <= ns_; j++)
                                if (S[j] != "svd") {
                                        rr = M[m] ~ /^(crash|relaunch|procs|vs_)/ ? "" : ratio(n, S[j], M[m])
                                        line = line " | " (rr == "" ? "–" : sprintf("%.2f", rr))
                                }
                        if (any)
                                print line " |"
                }
        # samples behind the percentiles
        printf "\nSamples per run at N=%s: restart", nmax
        for (j = 1; j <= ns_; j++) printf " %s %s", S[j], fmt(median(nmax SUBSEP S[j] SUBSEP "restart_samples"), "procs")
        printf "; status query"
        for (j = 1; j <= ns_; j++) printf " %s %s", S[j], fmt(median(nmax SUBSEP S[j] SUBSEP "ctl_samples"), "procs")
        printf ".\n"

        # svd targets at the largest N
        n = nmax
        print "\n### svd targets (N=" n ")\n"
        v = median(n SUBSEP "svd" SUBSEP "vs_floor")
        t("start-all ≤ 1.25 × the floor (clone3 with CLONE_VM | CLONE_VFORK)", v != "" && v <= 1.25, sprintf("%.2f × (%s ms vs %s ms; fork floor %s ms)", v, fmt(median(n SUBSEP "svd" SUBSEP "start_ms")), fmt(median(n SUBSEP "floor" SUBSEP "start_ms")), fmt(median(n SUBSEP "forkfloor" SUBSEP "start_ms"))))
        v = median(n SUBSEP "svd" SUBSEP "pss_per_svc")
        t_if(v != "", "≤ 8 KiB PSS per service over idle", v <= 8, sprintf("%.1f KiB", v))
        paired = 0
        for (i = 1; i <= nn; i++) {
                v = median(N[i] SUBSEP "svd" SUBSEP "ctl_pair_ratio")
                if (v == "")
                        continue
                paired = 1
                t("`svctl status` no slower than `sv status` at N=" N[i], v <= 1,
                  sprintf("%.2f × (median of the per-pair ratios, the two run in turn; %s ms vs %s ms)", v,
                          fmt(median(N[i] SUBSEP "svd" SUBSEP "ctl_pair_med")), fmt(median(N[i] SUBSEP "runit" SUBSEP "ctl_pair_med"))))
        }
        a = median(n SUBSEP "svd" SUBSEP "ctl_med"); b = median(n SUBSEP "runit" SUBSEP "ctl_med")
        if (!paired)
                t_if(a != "" && b != "", "`svctl status` no slower than `sv status`", a <= b, sprintf("%s ms vs %s ms (median)", fmt(a), fmt(b)))
        a = median(n SUBSEP "svd" SUBSEP "restart_med"); b = median(n SUBSEP "runit" SUBSEP "restart_med")
        t_if(a != "" && b != "", "restart (RestartSec=0) no slower than runit", a <= b, sprintf("%s ms vs %s ms (median)", fmt(a), fmt(b)))
        v = median(n SUBSEP "svd" SUBSEP "stop_ms")
        t("stop-all ≤ 100 ms", v != "" && v <= 100, sprintf("%s ms", fmt(v)))
        a = median(n SUBSEP "svd" SUBSEP "crash_alive"); b = median(n SUBSEP "svd" SUBSEP "relaunch_count")
        t("crash: 0 alive after kill -9, exactly N after relaunch", a == 0 && b == n, sprintf("%s alive, %s after relaunch; all dead %s ms after the kill", fmt(a, "procs"), fmt(b, "procs"), fmt(median(n SUBSEP "svd" SUBSEP "crash_last_ms"))))
        v = median(n SUBSEP "svd" SUBSEP "idle_per_min")
        t("zero periodic wake-ups when idle", v != "" && v == 0, sprintf("%s per minute", fmt(v)))

        # chart data
        for (f = 1; f <= 2; f++) {
                m = f == 1 ? "start_ms" : "pss_kib"
                file = out "/" m ".dat"
                printf "# N forkfloor floor" > file
                for (j = 1; j <= ns_; j++) printf " %s", S[j] > file
                printf "\n" > file
                for (i = 1; i <= nn; i++) {
                        printf "%s", N[i] > file
                        for (j = -1; j <= ns_; j++) {
                                v = median(N[i] SUBSEP (j > 0 ? S[j] : j == 0 ? "floor" : "forkfloor") SUBSEP m)
                                printf " %s", v == "" ? "?" : v > file
                        }
                        printf "\n" > file
                }
                close(file)
        }
}
function t(what, met, value) {
        printf "- %s: **%s**, %s\n", what, met ? "met" : "missed", value
}
# A target whose figures this run did not take (a peer or N = 10 left out, as in the lab).
function t_if(have, what, met, value) {
        if (have)
                t(what, met, value)
        else
                printf "- %s: not measured in this run\n", what
}
' "$RAW"

if command -v gnuplot >/dev/null 2>&1; then
        {
                echo 'set terminal pngcairo size 1200,480 font ",10"'
                echo "set output '$OUT/compare.png'"
                echo 'set datafile missing "?"'
                echo 'set logscale xy; set grid; set key top left; set xlabel "services (N)"'
                echo 'set multiplot layout 1,2'
                printf 'set title "start-all (launch until all N reported)"; set ylabel "ms"\nplot'
                i=2
                for s in fork-floor floor $SUPS; do
                        printf " '%s' using 1:%d with linespoints linetype %d title '%s'," "$OUT/start_ms.dat" "$i" $((i - 1)) "$(echo "$s" | tr - ' ')"
                        i=$((i + 1))
                done | sed 's/,$//'
                echo
                printf 'set title "memory of the supervisor'"'"'s processes (PSS)"; set ylabel "KiB"\nplot'
                i=4
                for s in $SUPS; do
                        printf " '%s' using 1:%d with linespoints linetype %d title '%s'," "$OUT/pss_kib.dat" "$i" $((i - 1)) "$s"
                        i=$((i + 1))
                done | sed 's/,$//'
                echo
                echo 'unset multiplot'
        } >"$OUT/compare.gp"
        if gnuplot "$OUT/compare.gp" 2>"$OUT/gnuplot.err"; then
                echo
                echo "Chart: $OUT/compare.png"
        else
                echo "report.sh: gnuplot failed: $(cat "$OUT/gnuplot.err")" >&2
        fi
fi
