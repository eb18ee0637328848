#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# report.sh OUT "NS" "SUPERVISORS" [scale]: turns OUT/raw.tsv (run, N,
# supervisor, metric, value; written by compare.sh) into the markdown table
# (stdout), svd's targets met/missed, svd against the floors (start-all
# against the floor and the cgroup floor, kill -9 to the last death against
# the kill floor, PASS/MISS at every N), with "scale" the scale table (each
# figure of every svd against its value at the smallest N, PASS/MISS), and
# OUT/compare.png (gnuplot). Medians over the runs; svd/peer and svd/floor
# ratios are computed run by run, then their median. Can be rerun on an old
# results directory.

OUT=$1
NS=$2
SUPS=$3
MODE=${4:-}
CGNOTE=
[ -s "$OUT/cgroupfloor.txt" ] && CGNOTE=$(head -n 1 "$OUT/cgroupfloor.txt")
RAW=$OUT/raw.tsv
[ -s "$RAW" ] || { echo "report.sh: no $RAW" >&2; exit 1; }

awk -F '\t' -v ns="$NS" -v sups="$SUPS" -v out="$OUT" -v mode="$MODE" -v cgnote="$CGNOTE" '
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
        kinds[k] = 1
}
function fmt(v, m) {
        if (v == "")
                return "–"
        if (m ~ /_kib$/ || m == "start_rate" || m == "procs" || m ~ /^relaunch/ || m == "crash_alive" || m == "autokill")
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
        # the floors this run measured, in this order
        nf0 = split("floor forkfloor cgroupfloor killfloor killcgfloor autokillfloor autokillcgfloor", F0, " ")
        FN["floor"] = "floor"; FN["forkfloor"] = "fork floor"; FN["cgroupfloor"] = "cgroup floor"; FN["killfloor"] = "kill floor"; FN["killcgfloor"] = "kill floor, a cgroup each"; FN["autokillfloor"] = "autokill floor"; FN["autokillcgfloor"] = "autokill floor, a cgroup each"
        KF["killfloor"]; KF["killcgfloor"]; KF["autokillfloor"]; KF["autokillcgfloor"]
        nf = 0
        for (f = 1; f <= nf0; f++)
                if (F0[f] in kinds)
                        F[++nf] = F0[f]
        # derived figures, run by run
        for (r in runs)
                for (i = 1; i <= nn; i++) {
                        n = N[i]
                        for (j = 1 - nf; j <= ns_; j++) {
                                k = j > 0 ? S[j] : F[1 - j]
                                if ((r, n, k, "start_ms") in val && val[r, n, k, "start_ms"] > 0)
                                        add(r, n, k, "start_rate", n * 1000 / val[r, n, k, "start_ms"])
                                if (n + 0 > nmin + 0 && (r, n, k, "pss_kib") in val && (r, nmin, k, "pss_kib") in val) {
                                        add(r, n, k, "pss_per_svc", (val[r, n, k, "pss_kib"] - val[r, nmin, k, "pss_kib"]) / (n - nmin))
                                        add(r, n, k, "rss_per_svc", (val[r, n, k, "rss_kib"] - val[r, nmin, k, "rss_kib"]) / (n - nmin))
                                }
                        }
                        # every svd (svd-fallback, svd-base too) against the floors
                        for (j = 1; j <= ns_; j++) {
                                k = S[j]
                                if (k !~ /^svd/)
                                        continue
                                if ((r, n, k, "pss_kib") in val)
                                        add(r, n, k, "pss_each", val[r, n, k, "pss_kib"] / n)
                                if ((r, n, k, "ctl_vs_exec_a") in val && (r, n, k, "ctl_exec_med") in val)
                                        add(r, n, k, "ctl_call", val[r, n, k, "ctl_vs_exec_a"] - val[r, n, k, "ctl_exec_med"])
                                if (!((r, n, k, "start_ms") in val))
                                        continue
                                if ((r, n, "floor", "start_ms") in val)
                                        add(r, n, k, "vs_floor", val[r, n, k, "start_ms"] / val[r, n, "floor", "start_ms"])
                                if ((r, n, "forkfloor", "start_ms") in val)
                                        add(r, n, k, "vs_forkfloor", val[r, n, k, "start_ms"] / val[r, n, "forkfloor", "start_ms"])
                                if ((r, n, "cgroupfloor", "start_ms") in val)
                                        add(r, n, k, "vs_cgroupfloor", val[r, n, k, "start_ms"] / val[r, n, "cgroupfloor", "start_ms"])
                                for (f in KF)
                                        if ((r, n, k, "crash_last_ms") in val && val[r, n, k, "crash_last_ms"] > 0 && (r, n, f, "crash_last_ms") in val && val[r, n, f, "crash_last_ms"] > 0)
                                                add(r, n, k, "vs_" f, val[r, n, k, "crash_last_ms"] / val[r, n, f, "crash_last_ms"])
                        }
                }
        nm = split("start_ms start_rate vs_floor vs_forkfloor vs_cgroupfloor rss_kib pss_kib procs rss_per_svc pss_per_svc ctl_med ctl_p99 ctl_pair_med list_med list_p99 restart_med restart_p99 stop_ms crash_alive crash_last_ms vs_killfloor vs_killcgfloor vs_autokillfloor vs_autokillcgfloor relaunch_count idle_per_min", M, " ")
        L["start_ms"] = "start-all, ms"
        L["start_rate"] = "start-all, services/s"
        L["vs_floor"] = "start-all / floor"
        L["vs_forkfloor"] = "start-all / fork floor"
        L["vs_cgroupfloor"] = "start-all / cgroup floor"
        L["list_med"] = "`svctl list`, median ms"
        L["list_p99"] = "`svctl list`, p99 ms"
        L["vs_killfloor"] = "last service dead after kill -9 / kill floor"
        L["vs_autokillfloor"] = "last service dead after kill -9 / autokill floor"
        L["vs_killcgfloor"] = "last service dead after kill -9 / kill floor, a cgroup each"
        L["vs_autokillcgfloor"] = "last service dead after kill -9 / autokill floor, a cgroup each"
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
        cw = ""
        for (i = nn; i >= 1 && cw == ""; i--) # the largest N whose crash was measured
                for (j = 1; j <= ns_ && cw == ""; j++)
                        cw = median(N[i] SUBSEP S[j] SUBSEP "crash_window_ms")
        L["crash_alive"] = "services alive " (cw == "" || cw == 1000 ? "1 s" : cw " ms") " after kill -9"
        L["crash_last_ms"] = "last service dead after kill -9, ms"
        L["relaunch_count"] = "services running after relaunch"
        L["idle_per_min"] = "idle wake-ups per minute"
        hdr = "| figure | N"
        sep = "| --- | ---:"
        for (f = 1; f <= nf; f++) { hdr = hdr " | " FN[F[f]]; sep = sep " | ---:" }
        for (j = 1; j <= ns_; j++) { hdr = hdr " | " S[j]; sep = sep " | ---:" }
        for (j = 1; j <= ns_; j++) if (S[j] != "svd") { hdr = hdr " | svd/" S[j]; sep = sep " | ---:" }
        print hdr " |"
        print sep " |"
        for (m = 1; m <= nm; m++)
                for (i = 1; i <= nn; i++) {
                        n = N[i]
                        any = 0
                        line = "| " L[M[m]] " | " n
                        for (f = 1; f <= nf; f++)
                                line = line " | " fmt(median(n SUBSEP F[f] SUBSEP M[m]), M[m])
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
        short = shortfall(n, "svd")
        if (short != "")
                print "- svd " short ": every figure below that needs all N running is missing"
        v = median(n SUBSEP "svd" SUBSEP "vs_floor")
        t("start-all ≤ 1.4 × the floor (clone3 with CLONE_VM | CLONE_VFORK)", v != "" && v <= 1.4, v == "" ? "no start-all" : sprintf("%.2f × (%s ms vs %s ms; fork floor %s ms)", v, fmt(median(n SUBSEP "svd" SUBSEP "start_ms")), fmt(median(n SUBSEP "floor" SUBSEP "start_ms")), fmt(median(n SUBSEP "forkfloor" SUBSEP "start_ms"))))
        v = median(n SUBSEP "svd" SUBSEP "vs_cgroupfloor")
        if (v == "" && short != "" && "cgroupfloor" in kinds)
                t("start-all ≤ 1.25 × the cgroup floor (the floor with a cgroup per child)", 0, "no start-all")
        else
                t_if(v != "", "start-all ≤ 1.25 × the cgroup floor (the floor with a cgroup per child)", v <= 1.25, sprintf("%.2f × (%s ms vs %s ms)", v, fmt(median(n SUBSEP "svd" SUBSEP "start_ms")), fmt(median(n SUBSEP "cgroupfloor" SUBSEP "start_ms"))))
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

        floors()
        if (mode == "scale")
                for (j = 1; j <= ns_; j++)
                        if (S[j] ~ /^svd/)
                                scale(S[j])

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
# "started only K of N" when a run of svd kind k at N fell short of N services, else "".
function shortfall(n, k,    g) {
        g = median(n SUBSEP k SUBSEP "start_got")
        return g != "" && g + 0 < n + 0 ? sprintf("started only %d of %d services", g, n) : ""
}
function pm(ok) {
        return ok ? "PASS" : "MISS"
}
# The spawn mode of svd kind k at N n (else at any N), from `svctl info` (1: autokill).
function spawn_mode(n, k,    a, i) {
        a = median(n SUBSEP k SUBSEP "autokill")
        for (i = 1; i <= nn && a == ""; i++)
                a = median(N[i] SUBSEP k SUBSEP "autokill")
        return a == "" ? (k == "svd-fallback" ? "fallback" : "mode unknown") : a + 0 >= 0.5 ? "autokill" : "fallback"
}
# "floor ms | ratio" cells of svd kind k at N n against the kill floor f.
function kill_vs(n, k, f,    y) {
        y = median(n SUBSEP k SUBSEP "vs_" f)
        return fmt(median(n SUBSEP f SUBSEP "crash_last_ms")) " | " (y == "" ? "–" : sprintf("%.2f", y))
}
# Every svd at every N against the floors, PASS/MISS.
function floors(    i, j, n, k, a, b, c, d, x, y) {
        print "\n### svd against the floors\n"
        if (cgnote != "")
                print "Cgroup floor: " cgnote ".\n"
        else if (!("cgroupfloor" in kinds))
                print "Cgroup floor: not measured in this run.\n"
        print "| N | supervisor | start-all, ms | floor, ms | / floor | ≤ 1.4 × | cgroup floor, ms | / cgroup floor | ≤ 1.25 × |"
        print "| ---: | --- | ---: | ---: | ---: | --- | ---: | ---: | --- |"
        for (i = 1; i <= nn; i++)
                for (j = 1; j <= ns_; j++) {
                        n = N[i]; k = S[j]
                        if (k ~ /^svd/ && median(n SUBSEP k SUBSEP "start_ms") == "" && shortfall(n, k) != "") {
                                printf "| %s | %s | %s | %s | – | MISS | %s | – | %s |\n", n, k, shortfall(n, k), fmt(median(n SUBSEP "floor" SUBSEP "start_ms")),
                                       fmt(median(n SUBSEP "cgroupfloor" SUBSEP "start_ms")), "cgroupfloor" in kinds ? "MISS" : "–"
                                continue
                        }
                        if (k !~ /^svd/ || median(n SUBSEP k SUBSEP "start_ms") == "")
                                continue
                        x = median(n SUBSEP k SUBSEP "vs_floor"); y = median(n SUBSEP k SUBSEP "vs_cgroupfloor")
                        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", n, k, fmt(median(n SUBSEP k SUBSEP "start_ms")),
                               fmt(median(n SUBSEP "floor" SUBSEP "start_ms")), x == "" ? "–" : sprintf("%.2f", x), x == "" ? "–" : pm(x <= 1.4),
                               fmt(median(n SUBSEP "cgroupfloor" SUBSEP "start_ms")), y == "" ? "–" : sprintf("%.2f", y), y == "" ? "–" : pm(y <= 1.25)
                }
        print "\nkill -9 of svd to the last death of its services, against the kill floor (N processes in one process group, one kill(-pgid, SIGKILL), to the last death; the target is for autokill mode) and, where the kernel has the flags, the autokill floor (N children of one holder started with CLONE_PIDFD_AUTOKILL, the holder SIGKILLed: what the kernel itself takes for what a kill -9 of svd sets off); \"cg\": the same floor with a cgroup per process, as svd contains its services:\n"
        print "| N | supervisor, spawn mode | last death after kill -9, ms | kill floor, ms | / kill floor | ≤ 1.2 × | kill floor cg, ms | / kill floor cg | autokill floor, ms | / autokill floor | autokill floor cg, ms | / autokill floor cg |"
        print "| ---: | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
        for (i = 1; i <= nn; i++)
                for (j = 1; j <= ns_; j++) {
                        n = N[i]; k = S[j]
                        a = median(n SUBSEP k SUBSEP "crash_last_ms")
                        if (k ~ /^svd/ && a == "" && shortfall(n, k) != "") {
                                printf "| %s | %s, %s | %s | %s | – | %s | %s | – | %s | – | %s | – |\n", n, k, spawn_mode(n, k), shortfall(n, k), fmt(median(n SUBSEP "killfloor" SUBSEP "crash_last_ms")),
                                       spawn_mode(n, k) == "autokill" ? "MISS" : "–", fmt(median(n SUBSEP "killcgfloor" SUBSEP "crash_last_ms")),
                                       fmt(median(n SUBSEP "autokillfloor" SUBSEP "crash_last_ms")), fmt(median(n SUBSEP "autokillcgfloor" SUBSEP "crash_last_ms"))
                                continue
                        }
                        if (k !~ /^svd/ || a == "")
                                continue
                        d = spawn_mode(n, k)
                        x = median(n SUBSEP k SUBSEP "vs_killfloor")
                        b = x == "" ? "–" : sprintf("%.2f", x)
                        c = x == "" ? "–" : d == "autokill" ? pm(x <= 1.2) : "– (" d ")"
                        printf "| %s | %s, %s | %s | %s | %s | %s | %s | %s | %s |\n", n, k, d, a + 0 < 0 ? "not all died" : fmt(a),
                               fmt(median(n SUBSEP "killfloor" SUBSEP "crash_last_ms")), b, c,
                               kill_vs(n, k, "killcgfloor"), kill_vs(n, k, "autokillfloor"), kill_vs(n, k, "autokillcgfloor")
                }
}
# svd kind k at every N against its figures at the smallest N. Targets: start-all and stop-all at most
# 5.6 % over linear (9.5 × from 1000 to 9000: N / Nmin × 19/18), `svctl status NAME` at most 1.1 ×,
# PSS of svd and its guard per service at most 8 KiB at every N. Then, without targets, the same
# growth of what the kernel does in those figures: the floors, and the exec of svctl.
function scale(k,    nsm, SM, SL, m, i, n, v, v0, r, tg, ok, b, miss, nc, CK, CM, CL) {
        nsm = split("start_ms stop_ms restart_med ctl_med list_med pss_each crash_last_ms", SM, " ")
        SL["start_ms"] = "start-all, ms"
        SL["stop_ms"] = "stop-all, ms"
        SL["restart_med"] = "restart after SIGKILL, median ms"
        SL["ctl_med"] = "`svctl status NAME`, median ms"
        SL["list_med"] = "`svctl list`, median ms"
        SL["pss_each"] = "PSS of svd and its guard / N, KiB"
        SL["crash_last_ms"] = "kill -9 to last death, ms"
        printf "\n### Scale: %s, N = %s (against N = %s)\n\n", k, ns, nmin
        print "| figure | N | value | / value at N=" nmin " | target | |"
        print "| --- | ---: | ---: | ---: | --- | --- |"
        for (m = 1; m <= nsm; m++)
                for (i = 1; i <= nn; i++) {
                        n = N[i]
                        v = median(n SUBSEP k SUBSEP SM[m])
                        v0 = median(nmin SUBSEP k SUBSEP SM[m])
                        if (SM[m] == "crash_last_ms" && v != "" && v + 0 < 0)
                                v = ""
                        if (SM[m] == "crash_last_ms" && v0 != "" && v0 + 0 < 0)
                                v0 = ""
                        r = v != "" && v0 != "" && v0 + 0 > 0 ? v / v0 : ""
                        tg = "–"; ok = ""
                        miss = shortfall(n, k) != "" ? "MISS (" shortfall(n, k) ")" : "MISS (not measured)"
                        if (SM[m] == "pss_each") {
                                tg = "≤ 8 KiB"
                                ok = v == "" ? miss : pm(v <= 8)
                        } else if ((SM[m] == "start_ms" || SM[m] == "stop_ms") && n + 0 > nmin + 0) {
                                b = n / nmin * 19 / 18
                                tg = sprintf("≤ %.2f ×", b)
                                ok = r == "" ? miss : pm(r <= b)
                        } else if (SM[m] == "ctl_med" && n + 0 > nmin + 0) {
                                tg = "≤ 1.10 ×"
                                ok = r == "" ? miss : pm(r <= 1.1)
                        }
                        if (v == "" && ok == "" && shortfall(n, k) != "")
                                ok = "(" shortfall(n, k) ")"
                        if (v == "" && ok == "")
                                continue
                        printf "| %s | %s | %s | %s | %s | %s |\n", SL[SM[m]], n, v == "" ? "–" : SM[m] == "pss_each" ? sprintf("%.2f", v) : fmt(v),
                               r == "" ? "–" : sprintf("%.2f", r), tg, ok
                }
        nc = split("floor:start_ms cgroupfloor:start_ms " k ":vs_cgroupfloor killcgfloor:crash_last_ms " k ":ctl_exec_med " k ":ctl_call", CK, " ")
        CL["floor:start_ms"] = "floor (clone3 with CLONE_VM and CLONE_VFORK), ms"
        CL["cgroupfloor:start_ms"] = "cgroup floor (a cgroup per child), ms"
        CL[k ":vs_cgroupfloor"] = "start-all / cgroup floor, run by run"
        CL["killcgfloor:crash_last_ms"] = "kill floor, a cgroup each, ms"
        CL[k ":ctl_exec_med"] = "`svctl --version` in turn with the status query, median ms"
        CL[k ":ctl_call"] = "status query − `svctl --version` (what the call adds), ms"
        printf "\nWhat the kernel does in those figures, at the same N (no targets; \"/ value\" as above):\n\n"
        print "| figure | N | value | / value at N=" nmin " |"
        print "| --- | ---: | ---: | ---: |"
        for (m = 1; m <= nc; m++) {
                split(CK[m], CM, ":")
                for (i = 1; i <= nn; i++) {
                        n = N[i]
                        v = median(n SUBSEP CM[1] SUBSEP CM[2])
                        v0 = median(nmin SUBSEP CM[1] SUBSEP CM[2])
                        if (v == "" || v + 0 < 0)
                                continue
                        r = v0 != "" && v0 + 0 > 0 ? v / v0 : ""
                        printf "| %s | %s | %s | %s |\n", CL[CK[m]], n, CM[2] ~ /^vs_/ ? sprintf("%.2f", v) : fmt(v), r == "" ? "–" : sprintf("%.2f", r)
                }
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
