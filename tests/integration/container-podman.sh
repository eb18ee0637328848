#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# svd as the init of a real container: Debian's podman with runc, a root
# filesystem from contrib/container/mkrootfs.sh, the example units. svctl
# reaches svd through the socket on a volume and through podman exec;
# `podman stop` ends it in time with status 0 and nothing left; svd killed
# inside ends the container with every service, and --restart=on-failure
# brings the set back as the operator left it (the wanted state is on the
# volume). Needs root, podman and runc, and a static busybox; SKIP with the
# reason where the engine cannot run. TAP output.
#
# lab: host only: podman and runc run on the host, not in the lab's guest

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

[ "$(id -u)" -eq 0 ] || skip_all "needs root (podman with runc and cgroupfs)"
PODMAN=$(path_of podman) || skip_all "no podman (apt install podman runc)"
path_of runc >/dev/null || skip_all "no runc (crun refuses cgroups in hybrid mode)"

NAME=svd-test-$$
STATE=$T/state
mkdir "$STATE"
# Debian 12's podman 4.3: crun refuses hybrid cgroups, the default ulimits
# exceed some hosts' hard limits.
pod() {
        "$PODMAN" --runtime runc --cgroup-manager=cgroupfs "$@"
}
podman_cleanup() {
        pod rm -f -t 0 "$NAME" >/dev/null 2>&1 || :
}
trap '_prc=$?; podman_cleanup; (exit $_prc); cleanup' EXIT

SVD=$SVD SVCTL=$SVCTL sh "$TESTS_DIR/../contrib/container/mkrootfs.sh" "$T/rootfs" >"$T/mkrootfs.log" 2>&1 ||
        skip_all "cannot build the root filesystem: $(tail -n 1 "$T/mkrootfs.log")"

# run_ctr [PODMAN-RUN-OPTION...]: starts the container, detached.
run_ctr() {
        pod run -d --name "$NAME" --network none --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
                -v "$STATE:/run/svd" "$@" --rootfs "$T/rootfs" /usr/sbin/svd-container >"$T/run.out" 2>&1
}
ctr_field() {
        pod inspect "$NAME" --format "$1" 2>/dev/null
}
SOCK=$STATE/svd.sock
examples_running() {
        state_is hello-env running && state_is ticker running && state_is webserver running
}
# host_pids PID: "PID:STARTTIME" of PID and of every child of it, as the host sees them.
host_pids() {
        _hp="$1:$(pid_start "$1")"
        for _st in /proc/[0-9]*/stat; do
                _p=${_st#/proc/}
                _p=${_p%/stat}
                proc_stat "$_p" && [ "$P_PPID" = "$1" ] && _hp="$_hp $_p:$P_START"
        done
        echo "$_hp"
}

if ! run_ctr; then
        skip_all "podman cannot run a container here: $(tail -n 1 "$T/run.out")"
fi

# ---- up: the example units, svctl from outside and inside ----
check "svd answers on the socket in the volume" wait_until 30 examples_running
expect_eq "svd is PID 1 in the container" 1 "$(svctl --json info | _json_field pid)"
run svctl info
expect_contains "svctl info says whether services got cgroups" "$OUT" "Cgroups:"
diag "$(echo "$OUT" | grep Cgroups:)"
run pod exec "$NAME" /usr/bin/svctl --socket /run/svd/svd.sock status webserver
expect_rc "podman exec svctl status webserver" 0
expect_contains "... running" "$OUT" "running"
check "podman logs has the services' lines, prefixed" wait_until 10 sh -c \
        '"$1" --runtime runc --cgroup-manager=cgroupfs logs "$2" 2>&1 | grep -q "^ticker: tick 1 "' sh "$PODMAN" "$NAME"

# ---- podman stop: in time, status 0, nothing left ----
INIT=$(ctr_field '{{.State.Pid}}')
PIDS=$(host_pids "$INIT")
diag "svd is host pid $INIT; with its services: $PIDS"
T0=$(now_ms)
run pod stop "$NAME"
ELAPSED=$(($(now_ms) - T0))
expect_rc "podman stop" 0
check "... took less than its 10 s grace period ($ELAPSED ms)" test "$ELAPSED" -lt 10000
expect_eq "... the container exited 0" 0 "$(ctr_field '{{.State.ExitCode}}')"
check "... svd and every service are gone" pids_gone "$PIDS"
check "... a clean stop removed the wanted state" test ! -e "$STATE/wanted"
pod rm -f "$NAME" >/dev/null 2>&1

# ---- svd killed inside: the container ends with every service, the engine restarts it ----
run_ctr --restart=on-failure || bail_out "podman run --restart=on-failure: $(cat "$T/run.out")"
check "up again" wait_until 30 examples_running
run svctl stop ticker
expect_rc "an operator stops ticker" 0
INIT=$(ctr_field '{{.State.Pid}}')
PIDS=$(host_pids "$INIT")
kill -KILL "$INIT"
check "svd SIGKILLed: it and every service are gone" wait_until 10 pids_gone "$PIDS"
examples_running_but_ticker() {
        state_is hello-env running && state_is webserver running
}
restarted() {
        _p=$(ctr_field '{{.State.Pid}}')
        [ -n "$_p" ] && [ "$_p" != 0 ] && [ "$_p" != "$INIT" ] && state_is hello-env running
}
check "--restart=on-failure starts the container again" wait_until 60 restarted
expect_eq "... restart count 1" 1 "$(ctr_field '{{.RestartCount}}')"
check "... the services wanted come back" wait_until 30 examples_running_but_ticker
expect_eq "... ticker, stopped by the operator, stays stopped" inactive "$(svc_state ticker)"
expect_contains "... and svd says it restored them" "$(svctl status hello-env)" "Restored: yes"
run pod stop "$NAME"
expect_eq "podman stop after the restart: exit 0" 0 "$(ctr_field '{{.State.ExitCode}}')"

done_testing
