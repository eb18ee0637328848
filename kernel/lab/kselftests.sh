#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kselftests.sh: run mainline's pidfd and clone3 selftests (built by
# build-kselftests.sh) inside a lab guest and compare every case with the
# list of known failures of this kernel.
#
# Usage: kselftests.sh KERNEL DIR KNOWN
#
#   KERNEL  the lab's name of the running kernel: debian, 6.12 or
#           6.12-unpatched (the first column of KNOWN)
#   DIR     the directory with clone3/ and pidfd/ (the test binaries)
#   KNOWN   the known failures: "KERNEL<TAB>BINARY<TAB>CASE<TAB>REASON" lines,
#           '#' comments; KERNEL may list several, comma-separated, or be *;
#           CASE "(exit)" is the binary's exit status (0 and 4, kselftest's
#           skip, pass)
#
# Each binary runs once, in its own directory, under a 600 s timeout. Cases
# are the TAP lines "ok N NAME" / "not ok N NAME" (with "# SKIP" a skip).
# It fails when a case fails that KNOWN does not list for KERNEL, or when a
# listed case did not fail (it passed, skipped or did not run), and names the
# case either way.
#
# Then the flaky part: mainline's pidfd_autoreap_test as Debian ships it
# (pidfd/pidfd_autoreap_test.orig) runs SVD_LAB_KST_REPEAT times (default
# 20) and its failure rate is reported per run and per case, which does not
# fail the suite; pidfd_autoreap_test with kernel/patches/upstream applied
# runs as often, and a failure of it that KNOWN does not list fails.
#
# pidfd_exit_info_test runs with PIDFD_EXIT_INFO_ROUNDS (default here 1000)
# children per case.
set -u

kernel=${1:?usage: kselftests.sh KERNEL DIR KNOWN}
dir=${2:?usage: kselftests.sh KERNEL DIR KNOWN}
known=${3:?usage: kselftests.sh KERNEL DIR KNOWN}
repeat=${SVD_LAB_KST_REPEAT:-20}
export PIDFD_EXIT_INFO_ROUNDS="${PIDFD_EXIT_INFO_ROUNDS:-1000}"

work=$(mktemp -d /tmp/kselftests.XXXXXX)
results=$work/results   # BINARY<TAB>CASE<TAB>pass|fail|skip

# run BINARY-PATH: one run; appends to $results, prints the output.
run_one() {
        bin=$1
        name=$(basename "$bin")
        t0=$(date +%s)
        (cd "$(dirname "$bin")" && timeout 600 "./$name") >"$work/out" 2>&1
        rc=$?
        cat "$work/out"
        awk -v bin="$name" -v rc="$rc" '
                /^(not )?ok [0-9]+ / {
                        st = ($1 == "not") ? "fail" : "pass"
                        line = $0
                        sub(/^(not )?ok [0-9]+ /, "", line)
                        if (match(line, / # (SKIP|skip)/)) { st = "skip"; line = substr(line, 1, RSTART - 1) }
                        else if (match(line, / # /)) { line = substr(line, 1, RSTART - 1) }
                        gsub(/[ \t]+$/, "", line)
                        print bin "\t" line "\t" st
                }
                END { print bin "\t(exit)\t" ((rc == 0 || rc == 4) ? "pass" : "fail") }
        ' "$work/out" >>"$results"
        echo "kselftests: $name: exit $rc after $(( $(date +%s) - t0 )) s"
}

: >"$results"
echo "kselftests: kernel $(uname -r) ($kernel)"
for bin in "$dir"/clone3/* "$dir"/pidfd/*; do
        case ${bin##*/} in pidfd_exec_helper | *.orig) continue ;; esac
        [ -x "$bin" ] || continue
        echo "kselftests: === ${bin#"$dir"/}"
        run_one "$bin"
done

# Compare with the known failures of this kernel.
awk -F '\t' -v kernel="$kernel" -v report="$work/report" '
        function mine(list,   n, i, k) {
                n = split(list, k, ",")
                for (i = 1; i <= n; i++) if (k[i] == kernel || k[i] == "*") return 1
                return 0
        }
        FNR == NR {
                if ($0 ~ /^#/ || NF < 4 || !mine($1)) next
                known[$2 "\t" $3] = $4
                next
        }
        { st[$1 "\t" $2] = $3; if ($3 == "pass") pass++; else if ($3 == "skip") skip++; else fail++ }
        END {
                bad = 0
                for (c in st) if (st[c] == "fail") {
                        split(c, p, "\t")
                        if (c in known) { kf++; print "kselftests: known failure " p[1] ": " p[2] " (" known[c] ")" }
                        else { bad++; print "kselftests: NEW FAILURE " p[1] ": " p[2] > report }
                }
                for (c in known) if (st[c] != "fail") {
                        split(c, p, "\t")
                        bad++
                        what = !(c in st) ? "DID NOT RUN" : st[c] == "pass" ? "NOW PASSES" : "NOW SKIPS"
                        print "kselftests: KNOWN FAILURE " what " " p[1] ": " p[2] " (listed: " known[c] ")" > report
                }
                printf "kselftests: %d cases passed, %d failed (%d known), %d skipped\n", pass, fail, kf, skip
                exit bad != 0
        }
' "$known" "$results"
status=$?
[ -f "$work/report" ] && sort "$work/report"

# The flaky part: repeat pidfd_autoreap_test, mainline's and ours.
# repeat_test BIN LABEL: prints the rate; returns the number of failing runs
# whose failures KNOWN does not list.
repeat_test() {
        bin=$1
        label=$2
        [ -x "$bin" ] || { echo "kselftests: $label: not built"; return 0; }
        i=0 runs_failed=0 unknown=0
        : >"$work/cases"
        t0=$(date +%s)
        while [ "$i" -lt "$repeat" ]; do
                i=$((i + 1))
                (cd "$(dirname "$bin")" && timeout 300 "./$(basename "$bin")") >"$work/out" 2>&1
                rc=$?
                [ "$rc" = 0 ] || [ "$rc" = 4 ] && continue
                runs_failed=$((runs_failed + 1))
                sed -n 's/^not ok [0-9]* \([^ #]*\).*/\1/p' "$work/out" >"$work/run"
                cat "$work/run" >>"$work/cases"
                while read -r c; do
                        if ! awk -F '\t' -v kernel="$kernel" -v c="$c" '
                                function mine(list,   n, i, k) { n = split(list, k, ","); for (i = 1; i <= n; i++) if (k[i] == kernel || k[i] == "*") return 1; return 0 }
                                $0 !~ /^#/ && mine($1) && $2 == "pidfd_autoreap_test" && $3 == c { f = 1 }
                                END { exit !f }' "$known"; then
                                unknown=$((unknown + 1))
                        fi
                done <"$work/run"
        done
        echo "kselftests: $label: $runs_failed of $repeat runs failed ($(( $(date +%s) - t0 )) s)"
        sort "$work/cases" | uniq -c | while read -r n c; do
                echo "kselftests: $label:   $c failed in $n of $repeat runs"
        done
        return "$unknown"
}

repeat_test "$dir/pidfd/pidfd_autoreap_test.orig" "pidfd_autoreap_test (mainline, unmodified) x$repeat"
repeat_test "$dir/pidfd/pidfd_autoreap_test" "pidfd_autoreap_test (with kernel/patches/upstream) x$repeat" || {
        echo "kselftests: NEW FAILURE pidfd_autoreap_test (with kernel/patches/upstream) failed when repeated"
        status=1
}

rm -rf "$work"
echo "kselftests: kernel $kernel: $([ "$status" = 0 ] && echo PASS || echo FAIL)"
exit "$status"
