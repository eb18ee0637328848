#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Whole process trees: a service that forks, double-forks and starts a
# grandchild that forks again leaves nothing behind
#   A. after `svctl stop`,
#   B. after its main process dies,
#   C. after `kill -9` of svd,
# with PrivatePIDs=yes (svd's init is PID 1 of the service's PID namespace;
# its death takes the namespace down) and, where svd has a cgroup2 subtree,
# with the service's cgroup (cgroup.kill; after a crash, by svd's guard).
# A service's processes are found by their PID namespace (/proc/PID/ns/pid)
# or by their cgroup (cgroup.procs), never by name. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

cat >"$T/tree.sh" <<EOF
$SLEEP 10000 &
( $SLEEP 10001 & )
$SH -c '$SLEEP 10003 & wait' &
exec $SLEEP 10002
EOF
# lone: no children at all, so nothing is ever left in its cgroup.
write_unit lone <<EOF
[Service]
ExecStart=$SLEEP 10004
EOF
for name in tree cgtree; do
        pp=yes
        [ $name = cgtree ] && pp=no
        write_unit $name <<EOF
[Service]
ExecStart=$SH $T/tree.sh
PrivatePIDs=$pp
TimeoutStopSec=5
EOF
done

# cg_members NAME: "pid:start" of every process in the service's cgroup.
cg_members() {
        [ -r "$CGROOT/$1/cgroup.procs" ] || return 0
        while read -r _p; do
                proc_stat "$_p" && echo "$_p:$P_START"
        done <"$CGROOT/$1/cgroup.procs"
}

# The main process and its sleeps (and the inner sh) exist.
ns_tree_up() {
        _pid=$(svc_pid tree)
        [ -n "$_pid" ] && [ "$(count_lines "$(ns_members "$_pid")")" -ge 6 ]
}
cg_tree_up() {
        [ "$(count_lines "$(cg_members cgtree)")" -ge 5 ]
}

# ns_command "pid:start...": the host pid of the namespace's PID 2 (the command).
ns_command() {
        for _ps in $1; do
                _nspid=$(sed -n 's/^NSpid:[[:space:]]*//p' "/proc/${_ps%%:*}/status" 2>/dev/null)
                case "$_nspid" in
                *[[:space:]]2)
                        echo "${_ps%%:*}"
                        return
                        ;;
                esac
        done
}

start_svd
CGROOT=
if [ "$(svctl --json info | _json_field cgroup)" = true ]; then
        CGROOT=$(svctl --json info | _json_field cgroupReason | sed -n 's/^services in \([^ ]*\) .*/\1/p')
fi
diag "mode $(svd_mode); cgroup: $(svctl --json info | _json_field cgroupReason)"

# ---- PrivatePIDs=yes ----
NS=yes
run svctl start tree
if [ "$RC" -ne 0 ] && echo "$ERR" | grep -q -e "mount-proc" -e "user-namespace" -e "pid1-fork"; then
        skip "PrivatePIDs=yes: this environment cannot create the namespaces ($ERR)"
        NS=no
else
        expect_rc "A: start tree (PrivatePIDs=yes)" 0
fi

if [ $NS = yes ]; then
        check "A: tree has forked its processes" wait_until 10 ns_tree_up
        M=$(ns_members "$(svc_pid tree)")
        TRACKED="$TRACKED $M"
        diag "A: $(count_lines "$M") processes in the namespace"
        run svctl stop tree
        expect_rc "A: stop tree" 0
        check "A: nothing of the tree is left once stop returns" none_left "$M"

        run svctl start tree
        check "B: tree has forked its processes" wait_until 10 ns_tree_up
        M=$(ns_members "$(svc_pid tree)")
        TRACKED="$TRACKED $M"
        CMD=$(ns_command "$M")
        expect_ne "B: the command is PID 2 in the namespace" "" "$CMD"
        [ -n "$CMD" ] && kill -KILL "$CMD"
        check "B: the service notices its main process died" wait_until 10 state_is tree failed
        check "B: nothing of the tree is left" none_left "$M"
        expect_eq "B: last exit is the command's (SIGKILL)" '{"code":"killed","status":9}' \
                "$(svc_json tree | _json_field lastExit)"

        run svctl start tree
        check "C: tree has forked its processes" wait_until 10 ns_tree_up
        M=$(ns_members "$(svc_pid tree)")
        TRACKED="$TRACKED $M"
fi

# ---- the service's cgroup ----
if [ -n "$CGROOT" ]; then
        run svctl start cgtree
        expect_rc "A: start cgtree (PrivatePIDs=no, cgroup)" 0
        check "A: cgtree has forked its processes" wait_until 10 cg_tree_up
        CM=$(cg_members cgtree)
        TRACKED="$TRACKED $CM"
        run svctl stop cgtree
        expect_rc "A: stop cgtree" 0
        check "A: nothing of cgtree is alive once stop returns" pids_dead "$CM"

        run svctl start cgtree
        check "B: cgtree has forked its processes" wait_until 10 cg_tree_up
        CM=$(cg_members cgtree)
        TRACKED="$TRACKED $CM"
        kill -KILL "$(svc_pid cgtree)"
        check "B: cgtree's main process death is noticed" wait_until 10 state_is cgtree failed
        check "B: nothing of cgtree is alive" pids_dead "$CM"

        run svctl start cgtree
        check "C: cgtree has forked its processes" wait_until 10 cg_tree_up
        CM=$(cg_members cgtree)
        TRACKED="$TRACKED $CM"
else
        skip "cgroup cases: svd has no cgroup2 subtree here ($(svctl --json info | _json_field cgroupReason))"
fi

# ---- C: kill -9 svd ----
kill -KILL "$SVD_PID"
wait_until 10 svd_exited
SVD_PID=
if [ $NS = yes ]; then
        check "C: the whole PrivatePIDs tree dies with svd (2 s)" wait_until 2 none_left "$M"
fi
if [ -n "$CGROOT" ]; then
        # Without a PID namespace, svd's guard kills the service's cgroup
        # when svd dies (guard.h): nothing waits for the next svd.
        check "C: the whole cgtree dies with svd, by svd's guard (2 s)" wait_until 2 pids_dead "$CM"
        start_svd
        check "C: nothing of cgtree is alive after the next svd's start" wait_until 5 pids_dead "$CM"
        # Started by hand before the crash, so wanted: the next svd restores it (wanted.h).
        check "C: cgtree, started by hand, is restored after the restart" wait_until 10 state_is cgtree running
        expect_ne "C: ... and marked restored" null "$(svc_field cgtree restoredUsec)"

        # A main process that exits is released (its pidfd hangs up) a
        # moment before it leaves its cgroup on 7.x: ~1% of exits still see
        # the cgroup populated, by a process cgroup.procs no longer lists.
        # That is no leftover: no cgroup.kill, no "killing" state.
        i=0
        while [ $i -lt 50 ]; do
                "$SVCTL" --socket "$SOCK" restart lone >/dev/null 2>&1 || break
                i=$((i + 1))
        done
        expect_eq "D: 50 restarts of a service without children" 50 "$i"
        expect_eq "D: ... never pass through 'killing'" "" "$(grep 'lone: .*→ killing' "$SVD_LOG")"
        expect_eq "D: ... and never kill leftovers" "" "$(grep 'lone: killing the processes' "$SVD_LOG")"

        # E: a second svd (its own socket) in the same cgroup, with a unit of
        # the same name: each keeps its own service cgroups; neither takes
        # the other's cgroup away or its services for a crashed predecessor's.
        mkdir -p "$T/units2" || bail_out "mkdir failed"
        cp "$UNITS/lone.service" "$T/units2/lone.service"
        printf '[Install]\nWantedBy=default.target\n' >>"$T/units2/lone.service"
        LONE1=$(svc_pid lone)
        _cgw=
        [ -n "$TEST_CG" ] && _cgw="$SH $T/in-test-cgroup"
        $_cgw "$SVD" --units "$T/units2" --socket "$T/svd2.sock" </dev/null >"$T/svd2.log" 2>&1 &
        SVD2=$!
        svd2() { "$SVCTL" --socket "$T/svd2.sock" "$@"; }
        check "E: a second svd in the same cgroup starts its lone" wait_until 20 sh -c \
                "'$SVCTL' --socket '$T/svd2.sock' --json status lone 2>/dev/null | grep -q '\"state\":\"running\"'"
        CGROOT2=$(svd2 --json info | _json_field cgroupReason | sed -n 's/^services in \([^ ]*\) .*/\1/p')
        expect_ne "E: ... with service cgroups of its own" "$CGROOT" "$CGROOT2"
        expect_eq "E: ... and killed nothing of the first svd's" "" "$(grep 'left over from a previous svd' "$T/svd2.log")"
        expect_eq "E: the first svd's lone runs on" "running $LONE1" "$(svc_state lone) $(svc_pid lone)"
        run svctl restart lone
        expect_rc "E: the first svd restarts its lone" 0
        P2=$(svd2 --json status lone | _json_field pid)
        expect_eq "E: the second svd's lone runs on in its own cgroup" "${CGROOT2##*/}/lone" \
                "$(sed -n 's|^0::.*/\([^/]*/[^/]*\)$|\1|p' "/proc/$P2/cgroup")"
        kill -TERM "$SVD2"
        wait_until 20 sh -c "! kill -0 $SVD2 2>/dev/null" || kill -KILL "$SVD2"
        wait "$SVD2" 2>/dev/null
        expect_eq "E: the second svd exits cleanly on SIGTERM" 0 "$?"
        check "E: ... and removes its subtree $CGROOT2" test ! -e "$CGROOT2"
        check "E: ... and leaves the first svd's alone" test -d "$CGROOT"

        # F: a clean exit removes the subtree svd made for its services.
        stop_svd
        expect_eq "F: svd exits cleanly on SIGTERM" 0 "$SVD_RC"
        check "F: ... and removes its subtree $CGROOT" test ! -e "$CGROOT"
fi

done_testing
