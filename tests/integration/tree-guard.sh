#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Every process a service started dies with svd, with host PIDs: where svd
# has cgroups, svd's guard (`svd --guard`, guard.h) kills the services'
# cgroups when svd dies. Services that are no Type=forking and have no
# PID namespace of their own: one that leaves background jobs, one whose
# helper setsid's and double-forks, a master whose workers ignore its death
# (SIGHUP, SIGTERM), and one that keeps forking (once a second) while svd
# is killed. Their processes are found by their cgroups (cgroup.procs),
# never by name; after kill -9 of svd, none may be alive 2 s later, without
# the next svd's help.
# The guard survives a re-exec (the same process), is started again when
# it is killed (also through its cgroup's cgroup.kill), goes with a clean exit, and `svctl info`/`svctl status`
# say what dies with svd. Without cgroups they say that only main processes
# do. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

SETSID=$(path_of setsid) || SETSID=

write_unit bg <<EOF
[Service]
ExecStart=$SH -c '$SLEEP 10011 & $SLEEP 10012 & $SLEEP 10013'
[Install]
WantedBy=default.target
EOF
write_unit escape <<EOF
[Service]
ExecStart=$SH -c '$SETSID $SH -c "$SLEEP 10021 & $SLEEP 10022 &" ; exec $SLEEP 10023'
[Install]
WantedBy=default.target
EOF
write_unit pool <<EOF
[Service]
ExecStart=$SH -c 'for i in 1 2 3; do ( trap "" HUP TERM; exec $SLEEP 1003\$\$i ) & done; wait'
[Install]
WantedBy=default.target
EOF
write_unit forker <<EOF
[Service]
ExecStart=$SH -c 'while :; do $SLEEP 10041 & $SLEEP 1; done'
[Install]
WantedBy=default.target
EOF

start_svd
info() { svctl --json info | _json_field "$1"; }

if [ "$(info cgroup)" != true ]; then
        expect_eq "no cgroups: info says only main processes die with svd" main-processes "$(info processTrees)"
        expect_eq "no cgroups: ... and names no guard" null "$(info guardPid)"
        expect_eq "no cgroups: status says bg's main process only" main-process "$(svc_field bg diesWithSvd)"
        skip "the guard: svd has no cgroup2 subtree here ($(info cgroupReason))"
        done_testing
        exit 0
fi
CGROOT=$(info cgroupReason | sed -n 's/^services in \([^ ]*\) .*/\1/p')
diag "mode $(svd_mode); services in $CGROOT"

# cg_members: "pid:start" of every process in every service's cgroup.
cg_members() {
        for _f in "$CGROOT"/*/cgroup.procs; do
                [ -r "$_f" ] || continue
                while read -r _p; do
                        proc_stat "$_p" && echo "$_p:$P_START"
                done <"$_f"
        done
}
# cg_count NAME: how many processes NAME's cgroup holds.
cg_count() {
        if [ -r "$CGROOT/$1/cgroup.procs" ]; then
                grep -c . "$CGROOT/$1/cgroup.procs"
        else
                echo 0
        fi
}
# every_tree_up: each service has forked what it forks (its shell may have exec'd its last command).
every_tree_up() {
        [ "$(cg_count bg)" -ge 3 ] && [ "$(cg_count pool)" -ge 3 ] && [ "$(cg_count forker)" -ge 3 ] &&
                { [ -z "$SETSID" ] || [ "$(cg_count escape)" -ge 3 ]; }
}

expect_eq "info: every process of every service dies with svd" whole-trees "$(info processTrees)"
G=$(info guardPid)
expect_ne "info: names the guard" null "$G"
expect_eq "the guard is svd's binary as svd-guard" svd-guard "$(cat "/proc/$G/comm" 2>/dev/null)"
expect_eq "the guard is in a cgroup of its own, beside the services'" "${CGROOT##*/}.guard" \
        "$(sed -n 's|^0::.*/||p' "/proc/$G/cgroup")"
check "the guard ignores SIGTERM (only SIGKILL ends it)" sig_ignored "$G" 15
check "... and SIGUSR1" sig_ignored "$G" 10
expect_eq "status: bg's whole tree dies with svd, by its cgroup" tree-cgroup "$(svc_field bg diesWithSvd)"
run svctl status bg
expect_contains "svctl status tells it" "$OUT" "Dies with svd: every process it started"

check "every service has forked its processes" wait_until 20 every_tree_up ||
        diag "processes: bg $(cg_count bg), escape $(cg_count escape), pool $(cg_count pool), forker $(cg_count forker)"
[ -n "$SETSID" ] || skip "escape: no setsid here"

# A re-exec keeps the guard: the same process watches the same svd.
run svctl daemon-reexec
expect_rc "daemon-reexec" 0
expect_eq "after a re-exec, the same guard" "$G" "$(info guardPid)"

# A guard that is killed is started again.
G_START=$(pid_start "$G")
kill -KILL "$G"
new_guard() {
        _g=$(info guardPid)
        [ -n "$_g" ] && [ "$_g" != null ] && [ "$_g" != "$G" ] && [ "$(cat "/proc/$_g/comm" 2>/dev/null)" = svd-guard ]
}
check "a killed guard is started again" wait_until 10 new_guard
check "... and the old one was reaped" pid_gone "$G" "$G_START"
G=$(info guardPid)
G_START=$(pid_start "$G")

# A guard ended through its cgroup's cgroup.kill is started again too, and runs. A kernel may go on
# killing every child cloned into a cgroup once cgroup.kill was written to it (6.18 does): svd makes
# the guard's cgroup anew before each start, or no guard would get as far as its exec again.
echo 1 >"$CGROOT.guard/cgroup.kill"
check "a guard killed through cgroup.kill is started again, and runs as svd-guard" wait_until 10 new_guard
check "... and the old one was reaped" pid_gone "$G" "$G_START"
G=$(info guardPid)
G_START=$(pid_start "$G")

# kill -9 of svd: the whole of every tree dies, before any next svd.
M=$(cg_members)
TRACKED="$TRACKED $M"
diag "$(count_lines "$M") processes in the services' cgroups"
kill -KILL "$SVD_PID"
wait_until 10 svd_exited
SVD_PID=
check "kill -9 of svd: every process of every service is dead within 2 s" wait_until 2 pids_dead "$M"
check "... the forker forked nothing that lived on" wait_until 2 sh -c \
        "! grep -q . '$CGROOT'/*/cgroup.procs 2>/dev/null"
check "... and the guard exits once done" wait_until 10 pid_gone "$G" "$G_START"
expect_contains "... and says what it did" "$(cat "$SVD_LOG")" "svd-guard: svd is gone; killed every process"

# The next svd starts clean: nothing was left to kill.
start_svd
expect_eq "the next svd found nothing left over" "" "$(sed -n "${SVD_LOG_FROM},\$p" "$SVD_LOG" | grep -e 'left over' -e 'services left')"
check "the next svd restores the services" wait_until 20 every_tree_up ||
        diag "processes: bg $(cg_count bg), escape $(cg_count escape), pool $(cg_count pool), forker $(cg_count forker)"
G2=$(info guardPid)
expect_ne "... with a guard of its own" "$G" "$G2"
G2_START=$(pid_start "$G2")

# A clean exit stops the guard and removes its cgroup.
stop_svd
expect_eq "a clean exit: status 0" 0 "$SVD_RC"
check "... the guard is gone" pid_gone "$G2" "$G2_START"
check "... with its cgroup" test ! -e "$CGROOT.guard"

done_testing
