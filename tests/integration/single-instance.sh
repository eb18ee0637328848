#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# One svd per control socket (daemon/manager.h): a second svd on the same
# socket exits 1 naming the running one's pid, having changed nothing (no
# service killed or restarted, no cgroup emptied, the wanted file as it
# was). Tried while svd serves a storm of starts, stops and restarts, at
# start-up (two svds started at once, many times: one wins, each service
# runs once), during a re-exec (intruders started back to back while the
# exec is under way), during a stop (svd waiting for a service that
# ignores SIGTERM), and after a kill -9, where the second svd must take
# over. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test
LOCK=${SOCK%.sock}.lock
WANTED=$(dirname "$SOCK")/wanted
U=$$

printf '%s\n' "trap '' TERM" "exec $SLEEP \$1" >"$T/ignore-term.sh"
printf '%s\n' "[Service]" "ExecStart=$SLEEP 411$U" "[Install]" "WantedBy=default.target" >"$UNITS/x.service"
printf '%s\n' "[Service]" "ExecStart=$SLEEP 412$U" "[Install]" "WantedBy=default.target" >"$UNITS/y.service"
# Started and stopped by the storm.
for i in 1 2 3; do
        printf '%s\n' "[Service]" "ExecStart=$SLEEP 420$i$U" "TimeoutStopSec=2s" >"$UNITS/storm-$i.service"
done
printf '%s\n' "[Service]" "ExecStart=$SH $T/ignore-term.sh 4300$U" "TimeoutStopSec=120s" \
        "[Install]" "WantedBy=default.target" >"$UNITS/stubborn.service"

_cgwrap=
[ -n "$TEST_CG" ] && _cgwrap="$SH $T/in-test-cgroup"

# intrude OUT: a second svd on the same socket and units; its status in
# INTRUDER_RC, its log in OUT. Bounded: one that took over is killed.
intrude() {
        # shellcheck disable=SC2086
        $_cgwrap "$SVD_REAL" --units "$UNITS" --socket "$SOCK" </dev/null >"$1" 2>&1 &
        _ip=$!
        if ! wait_until 20 pid_dead "$_ip"; then
                kill -KILL "$_ip" 2>/dev/null
                diag "an intruding svd was still running after 20 s"
        fi
        wait "$_ip"
        INTRUDER_RC=$?
}

# refused OUT HOLDER: the intruder exited 1, named HOLDER's pid and touched no service.
refused() {
        [ "$INTRUDER_RC" = 1 ] || { diag "intruder exited $INTRUDER_RC:" "$(cat "$1")"; return 1; }
        grep -q "Another svd (pid $2) is running on '$SOCK'" "$1" || { diag "$(cat "$1")"; return 1; }
        if grep -q "left over\|Listening\|Started\|Loaded" "$1"; then
                diag "the intruder went on:" "$(cat "$1")"
                return 1
        fi
}

# snapshot: the main pid of x, y and stubborn, in SNAP.
snapshot() {
        SNAP="$(svc_pid x) $(svc_pid y) $(svc_pid stubborn)"
}

# ---- 1. while svd runs, under a storm ----

# svd runs from a copy (the re-execs below replace it); intruders run the build's binary.
SVD_REAL=$SVD
mkdir "$T/bin" || bail_out "mkdir failed"
cp "$SVD_REAL" "$T/bin/a" || bail_out "cp failed"
SVD=$T/bin/a
start_svd
wait_until 20 enabled_running || bail_out "the default services did not start"
snapshot
for p in $SNAP; do track_pid "$p"; done
expect_eq "the lock file names svd's pid" "$SVD_PID" "$(cat "$LOCK")"
sum_before=$(cksum <"$WANTED")

intrude "$T/i1"
check "a second svd is refused and names the running one's pid" refused "$T/i1" "$SVD_PID"
old=$SNAP
snapshot
expect_eq "no service was touched" "$old" "$SNAP"
expect_eq "the wanted file is unchanged" "$sum_before" "$(cksum <"$WANTED")"
expect_eq "the lock file still names svd's pid" "$SVD_PID" "$(cat "$LOCK")"

# The storm: starts, stops and restarts as fast as svd answers.
(
        i=0
        while [ ! -e "$T/storm.stop" ]; do
                i=$((i + 1))
                n=storm-$((i % 3 + 1))
                case $((i % 4)) in
                0 | 1) "$SVCTL" --socket "$SOCK" start "$n" ;;
                2) "$SVCTL" --socket "$SOCK" restart "$n" ;;
                *) "$SVCTL" --socket "$SOCK" stop "$n" ;;
                esac >/dev/null 2>&1
        done
) &
STORM=$!
fails=0
i=0
while [ $i -lt 10 ]; do
        i=$((i + 1))
        intrude "$T/storm-i$i"
        refused "$T/storm-i$i" "$SVD_PID" || fails=$((fails + 1))
done
: >"$T/storm.stop"
wait "$STORM"
expect_eq "10 svds started during a storm were all refused" 0 "$fails"
snapshot
expect_eq "no service outside the storm was touched" "$old" "$SNAP"
check "svd logged no left-over processes" sh -c '! grep -q "left over" "$1"' sh "$SVD_LOG"

# ---- 2. during a re-exec ----

# Each re-exec goes through a script that waits a second before it runs
# svd's binary: the window in which svd is between two images is long
# enough for intruders to be started inside it. svd runs its binary under
# two names in turn; before a re-exec the running one's file is replaced by
# that script, which execs the other.
cur=a
slow_next() {
        other=b
        [ "$cur" = b ] && other=a
        cp "$SVD_REAL" "$T/bin/$other.new" && mv -f "$T/bin/$other.new" "$T/bin/$other"
        printf '%s\n' '#!/bin/sh' 'case " $* " in *" --state-version "*) ;; *) sleep 1 ;; esac' \
                "exec $T/bin/$other \"\$@\"" >"$T/bin/$cur.new"
        chmod 755 "$T/bin/$cur.new" && mv -f "$T/bin/$cur.new" "$T/bin/$cur"
        cur=$other
}
fails=0
tries=0
during=0
for k in 1 2 3 4 5; do
        slow_next
        if [ $((k % 2)) = 1 ]; then
                (svctl daemon-reexec >"$T/reexec.out" 2>&1) &
                RX=$!
        else
                kill -HUP "$SVD_PID"
                RX=
        fi
        # Intruders back to back for as long as the re-exec takes.
        n=0
        while [ $n -lt 100 ]; do
                n=$((n + 1))
                if [ -n "$RX" ]; then
                        pid_alive "$RX" || break
                else
                        [ "$(in_svd_log -c "Re-executed from state")" -ge "$k" ] && break
                fi
                tries=$((tries + 1))
                intrude "$T/reexec-i"
                refused "$T/reexec-i" "$SVD_PID" || fails=$((fails + 1))
        done
        [ -n "$RX" ] && wait "$RX"
        wait_until 20 sh -c '[ "$(tail -n "+$1" "$2" | grep -c "Re-executed from state")" -ge "$3" ]' sh \
                "$SVD_LOG_FROM" "$SVD_LOG" "$k"
done
check "svd re-executed 5 times" sh -c '[ "$(tail -n "+$1" "$2" | grep -c "Re-executed from state")" = 5 ]' sh \
        "$SVD_LOG_FROM" "$SVD_LOG"
check "intruders ran while svd was between two images ($tries)" test "$tries" -ge 5
expect_eq "$tries svds started during 5 re-execs were all refused" 0 "$fails"
snapshot
expect_eq "the re-execs and intruders touched no service" "$old" "$SNAP"
expect_eq "after re-execs the lock file still names svd's pid" "$SVD_PID" "$(cat "$LOCK")"

# ---- 3. after a kill -9: the next svd takes over ----

kill -KILL "$SVD_PID"
wait "$SVD_JOB"
TRACKED="$TRACKED $(for p in $old; do echo "$p:$(pid_start "$p")"; done)"
start_svd
check "the svd started after a kill -9 took over" in_svd_log -q "Restored .* services wanted before"
wait_until 20 enabled_running
check "its services run again" enabled_running
expect_eq "the lock file names the new svd" "$SVD_PID" "$(cat "$LOCK")"
for p in $old; do
        check "the old service process $p is gone" wait_until 10 pid_dead "$p"
done
snapshot
for p in $SNAP; do track_pid "$p"; done

# ---- 4. during a stop ----

old=$SNAP
stub=$(svc_pid stubborn)
kill -TERM "$SVD_PID"
wait_until 20 state_is stubborn stopping
check "svd is stopping and waits for the service that ignores SIGTERM" state_is stubborn stopping
intrude "$T/stop-i"
check "a second svd during the stop is refused" refused "$T/stop-i" "$SVD_PID"
check "the service svd waits for was left alone" pid_alive "$stub"
check "svd is still stopping" state_is stubborn stopping
kill -TERM "$SVD_PID" # the second request kills what has not stopped
check "svd exits once the service is killed" wait_until 20 svd_exited
wait "$SVD_JOB"
SVD_PID=
check "a clean exit removes the wanted file" test ! -e "$WANTED"

# ---- 5. at start-up: two at once ----

count() {
        # The marker is an argument of its own: count it across every command line.
        cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\0' '\n' | grep -cx "41[1]$U" # (not grep's own argument)
}
fails=0
for k in 1 2 3 4 5; do
        # shellcheck disable=SC2086
        $_cgwrap "$SVD" --units "$UNITS" --socket "$SOCK" </dev/null >"$T/a.out" 2>&1 &
        A=$!
        # shellcheck disable=SC2086
        $_cgwrap "$SVD" --units "$UNITS" --socket "$SOCK" </dev/null >"$T/b.out" 2>&1 &
        B=$!
        # The loser exits at once; the winner serves.
        wait_until 20 sh -c 'test -S "$1" && "$2" --socket "$1" info >/dev/null 2>&1' sh "$SOCK" "$SVCTL"
        wait_until 20 sh -c '! kill -0 "$1" 2>/dev/null || ! kill -0 "$2" 2>/dev/null' sh "$A" "$B"
        if pid_alive "$A"; then
                W=$A L=$B LO=$T/b.out
        else
                W=$B L=$A LO=$T/a.out
        fi
        SVD_PID=$W SVD_START=$(pid_start "$W")
        wait "$L"
        INTRUDER_RC=$?
        refused "$LO" "$W" || fails=$((fails + 1))
        if ! pid_alive "$W"; then
                diag "neither svd runs"
                fails=$((fails + 1))
        fi
        wait_until 20 enabled_running
        [ "$(count)" = 1 ] || { diag "x runs $(count) times"; fails=$((fails + 1)); }
        svctl kill stubborn --signal=KILL >/dev/null 2>&1
        kill -TERM "$W"
        wait_until 30 svd_exited || { kill -KILL "$W"; fails=$((fails + 1)); }
        wait "$W"
        SVD_PID=
done
expect_eq "of two svds started at once, one ran every service once, the other was refused (5 times)" 0 "$fails"

done_testing
