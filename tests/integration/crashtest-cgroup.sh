#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# svd-crashtest's cgroup faults, end to end (root, a writable cgroup2
# hierarchy):
# - service-stop by the freezer stops the service's whole tree: a child of
#   its main process writes no tick while the cgroup is frozen; stopped by
#   SIGSTOP (--stop-by signal) only the main process stops, and the child
#   keeps ticking;
# - svd-stop by the freezer: svd's own cgroup says "frozen 1" while svd is
#   not in the stopped state T, and a call to svd waits for the thaw; by
#   SIGSTOP, svd is in state T and its cgroup is not frozen;
# - svd-oom: the kernel's OOM killer kills svd through memory.max of svd's
#   own cgroup (memory.events counts it), nothing of svd's tree survives
#   and the services come back; skipped where the cgroup2 hierarchy has no
#   memory controller (a cgroup v1 hierarchy holds it);
# - the runner leaves no cgroup of its own behind.
# Each stop round is timed from a marker line of the workload: the fault
# follows the marker (the runner reads it from a pipe), and the stop lasts
# 4 s from the fault, so the window (marker + 1 s, marker + 3.5 s) lies
# inside it with a second of slack at each end. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

[ -n "$TEST_CG" ] || skip_all "needs root and a writable cgroup2 hierarchy (svd's own cgroup for the faults)"
CRASHTEST=${SVD_CRASHTEST:-$(dirname "$SVCTL")/svd-crashtest}
[ -x "$CRASHTEST" ] || bail_out "no svd-crashtest at $CRASHTEST (SVD_CRASHTEST)"
AWK=$(path_of awk) || bail_out "no awk"
CG_MNT=$(grep ' - cgroup2 ' /proc/self/mountinfo | head -n 1 | cut -d' ' -f5)

# crashtest NAME ARG...: runs svd-crashtest in the test's cgroup on
# $T/NAME.units, output in $T/NAME.out and $T/NAME.err; sets RC.
crashtest() {
        _n=$1
        shift
        "$SH" "$T/in-test-cgroup" "$CRASHTEST" --units "$T/$_n.units" --svd "$SVD" --dir "$T/$_n.dir" "$@" \
                >"$T/$_n.out" 2>"$T/$_n.err" </dev/null
        RC=$?
        sed 's/^/#   /' "$T/$_n.out"
        [ "$RC" = 0 ] || diag "stderr:" "$(tail -n 5 "$T/$_n.err")"
}

# The time now, in seconds since boot with hundredths: what both the
# service's ticks and the workload's marks are written in.
cat >"$T/uptime.sh" <<'EOF'
read -r up _ </proc/uptime
echo "$up"
EOF

# ---- service-stop: the freezer stops the whole tree, SIGSTOP the main process ----

# ticker NAME: a unit whose main process (sh, waiting) has a child that
# writes a tick every 100 ms to $T/NAME.ticks.
ticker() {
        mkdir -p "$T/$1.units"
        cat >"$T/$1.ticker.sh" <<EOF
( while :; do $SH $T/uptime.sh >>"$T/$1.ticks"; $SLEEP 0.1; done ) &
wait
EOF
        printf '%s\n' "[Service]" "ExecStart=$SH $T/$1.ticker.sh" "[Install]" "WantedBy=default.target" \
                >"$T/$1.units/ticker.service"
}
# The workload: the mark (the time), then the marker line; it idles on.
mark_workload() {
        echo "$SH $T/uptime.sh >$T/$1.mark; echo STOP-NOW; exec $SLEEP 1000"
}
# ticks_in NAME: ticks written between mark + 1 s and mark + 3.5 s.
ticks_in() {
        $AWK -v m="$(cat "$T/$1.mark")" '$1 > m + 1.0 && $1 < m + 3.5 { n++ } END { print n + 0 }' "$T/$1.ticks"
}

# The check, after the thaw: a tick newer than the last one there is now
# (looked for every 50 ms, for up to 10 s).
cat >"$T/new-tick.sh" <<EOF
n=\$(wc -l <"\$1")
i=0
while [ "\$(wc -l <"\$1")" -le "\$n" ]; do
        i=\$((i + 1))
        [ "\$i" -le 200 ] || exit 1
        $SLEEP 0.05
done
EOF
ticker sfreeze
crashtest sfreeze --seed 1 --rounds 1 --fault service-stop --stop-by freeze --stop-time 4000 \
        --at 'marker:^STOP-NOW$' --workload "$(mark_workload sfreeze)" \
        --check "$SH $T/new-tick.sh $T/sfreeze.ticks"
expect_eq "service-stop by the freezer passes" 0 "$RC"
check "... says it froze (via=freeze)" grep -q '^round 1 ok .* via=freeze ' "$T/sfreeze.out"
expect_eq "... and the service's child wrote no tick while its cgroup was frozen" 0 "$(ticks_in sfreeze)"
check "... the child ticked again after the thaw (the check saw a new tick)" \
        grep -q '^round 1 ok .* check=ok' "$T/sfreeze.out"

ticker ssig
crashtest ssig --seed 1 --rounds 1 --fault service-stop --stop-by signal --stop-time 4000 \
        --at 'marker:^STOP-NOW$' --workload "$(mark_workload ssig)"
expect_eq "service-stop by SIGSTOP passes" 0 "$RC"
check "... says it used SIGSTOP (via=sigstop)" grep -q '^round 1 ok .* via=sigstop ' "$T/ssig.out"
n=$(ticks_in ssig)
diag "ticks of the child while the main process was stopped: $n"
check "... which stops the main process only: the child kept ticking" test "$n" -gt 5

# ---- svd-stop: svd's own cgroup frozen, or svd in state T ----

# The workload: the mark, the marker; 1.5 s into the stop, svd's state
# (field 3 of /proc/PID/stat) and whether its cgroup says frozen; then one
# call to svd, and the time it came back. The runner stops the workload
# (SIGTERM) as soon as the stop is over, when that call may still be on its
# way back: the workload ignores SIGTERM and ends by itself.
svd_workload() {
        cat >"$T/$1.workload.sh" <<EOF
trap '' TERM
$SH $T/uptime.sh >$T/$1.mark
echo STOP-NOW
$SLEEP 1.5
cg=\$(sed -n 's/^0:://p' /proc/\$SVD_CRASHTEST_SVD_PID/cgroup)
frozen=\$(sed -n 's/^frozen //p' "$CG_MNT\$cg/cgroup.events")
state=\$(sed 's/.*) //' /proc/\$SVD_CRASHTEST_SVD_PID/stat | cut -d' ' -f1)
echo "\$state \${frozen:-none} \$cg" >$T/$1.sample
$SVCTL list >/dev/null
echo \$? >$T/$1.rc
$SH $T/uptime.sh >$T/$1.answered
EOF
        echo "exec $SH $T/$1.workload.sh"
}
mkdir -p "$T/dfreeze.units" "$T/dsig.units"
for d in dfreeze dsig; do
        printf '%s\n' "[Service]" "ExecStart=$SLEEP 10000" "[Install]" "WantedBy=default.target" \
                >"$T/$d.units/anchor.service"
done

crashtest dfreeze --seed 1 --rounds 1 --fault svd-stop --stop-by freeze --stop-time 4000 \
        --at 'marker:^STOP-NOW$' --workload "$(svd_workload dfreeze)"
expect_eq "svd-stop by the freezer passes" 0 "$RC"
check "... says it froze (via=freeze)" grep -q '^round 1 ok .* via=freeze ' "$T/dfreeze.out"
check "... svd ran in a cgroup of the runner's" grep -q "svd runs in the cgroup $TEST_CG/crashtest-" "$T/dfreeze.err"
read -r state frozen cg <"$T/dfreeze.sample"
diag "svd 1.5 s into the stop: state $state, frozen $frozen, cgroup $cg"
expect_eq "... whose cgroup.events said frozen 1" 1 "$frozen"
expect_ne "... and svd was not in state T (no signal stopped it)" T "$state"
late=$($AWK -v m="$(cat "$T/dfreeze.mark")" '{ print ($1 > m + 3.5) ? "after" : "before" }' "$T/dfreeze.answered")
expect_eq "... a call to svd was answered only after the thaw" after "$late"
expect_eq "... and answered" 0 "$(cat "$T/dfreeze.rc")"

crashtest dsig --seed 1 --rounds 1 --fault svd-stop --stop-by signal --stop-time 4000 \
        --at 'marker:^STOP-NOW$' --workload "$(svd_workload dsig)"
expect_eq "svd-stop by SIGSTOP passes" 0 "$RC"
check "... says it used SIGSTOP (via=sigstop)" grep -q '^round 1 ok .* via=sigstop ' "$T/dsig.out"
read -r state frozen cg <"$T/dsig.sample"
diag "svd 1.5 s into the stop: state $state, frozen $frozen, cgroup $cg"
expect_eq "... svd was in state T" T "$state"
expect_ne "... and its cgroup was not frozen" 1 "$frozen"

# ---- svd-oom: the kernel's OOM killer ----

mkdir -p "$T/oom.units"
for i in 1 2 3; do
        printf '%s\n' "[Service]" "ExecStart=$SLEEP 1000$i" "[Install]" "WantedBy=default.target" \
                >"$T/oom.units/s$i.service"
done
crashtest oom --seed 7 --rounds 3 --fault svd-oom --at random:50-300 --json
if [ "$RC" = 2 ] && grep -q "svd-oom needs" "$T/oom.err"; then
        why=$(grep "svd-oom needs" "$T/oom.err" | sed 's/^svd-crashtest: //')
        diag "$why"
        skip "svd-oom: the OOM killer kills svd" "$why"
else
        expect_eq "svd-oom: every round passes (no survivor, every service back)" 0 "$RC"
        # oom_kill counts each task the OOM killer killed: svd, and with
        # memory.oom.group=1 whatever else was in svd's leaf at that moment.
        expect_eq "... each of the 3 rounds by the OOM killer (memory.events oom_kill grew)" 3 \
                "$(grep -c '^round [0-9] ok fault=svd-oom .* via=oom-killer(+[1-9][0-9]*) ' "$T/oom.err")"
        check "... svd's tree was tracked (svd and the three services)" \
                grep -q '^round 1 ok .* tracked=[4-9] ' "$T/oom.err"
        expect_contains "... the JSON gives the count" "$(cat "$T/oom.out")" '"oomKills":'
fi

# ---- nothing left ----

left=$(find "$TEST_CG" -maxdepth 1 -name 'crashtest-*' | wc -l)
expect_eq "the runner removed its cgroups" 0 "$left"

done_testing
