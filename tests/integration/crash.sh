#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Crash recovery: svd with CRASH_SERVICES services (default 20) wanted by
# default.target, plus two started by hand; kill -9 svd; within
# CRASH_DEADLINE_MS (default 2000) no service process may be alive, nor
# left as a zombie; svd started again on the same directories brings the
# default.target services and the two started by hand back under new pids
# (the wanted state survives a crash: daemon/wanted.h), marked
# restored.
#
# Services are tracked by the pids svctl reports plus their starttime, and
# timed by pidfds (tests/lib/pidwait: it opens a pidfd for every service
# first, then sends the SIGKILL to svd itself and starts the clock). The mode
# in force (autokill or fallback) is printed; SVD_EXPECT_MODE makes it an
# assertion. SVD_ARGS=--mode=fallback forces fallback on a kernel with the
# flags. TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

N=${CRASH_SERVICES:-20}
DEADLINE_MS=${CRASH_DEADLINE_MS:-2000}
MANUAL=2

setup_test

PIDWAIT=$(find_helper pidwait)
[ -n "$REAPER" ] || diag "no reaper helper: orphaned zombies are left to PID 1, which may reap them late"

# A shell that loops without a child: it blocks opening a FIFO nobody writes.
mkfifo "$T/never.fifo" || bail_out "mkfifo failed"
cat >"$T/loop.sh" <<'EOF'
while :; do
        read -r line <"$1"
done
EOF
cat >"$T/ignore-term.sh" <<'EOF'
trap '' TERM
exec "$SLEEP" 10000
EOF

i=1
while [ "$i" -le $((N + MANUAL)) ]; do
        name=$(printf 'svc-%03d' "$i")
        restart=no
        case $((i % 4)) in
        0) exec_start="$SLEEP 10000" ;;
        1) exec_start="$SH $T/loop.sh $T/never.fifo" ;;
        2) exec_start="$SH $T/ignore-term.sh" ;;
        3)
                exec_start="$SLEEP 10000"
                restart=always
                ;;
        esac
        install=
        if [ "$i" -le "$N" ]; then
                install="[Install]
WantedBy=default.target"
        else
                name=$(printf 'manual-%d' $((i - N)))
        fi
        write_unit "$name" <<EOF
[Unit]
Description=crash test service $i
[Service]
ExecStart=$exec_start
Environment=SLEEP=$SLEEP
Restart=$restart
RestartSec=100ms
TimeoutStopSec=500ms
$install
EOF
        i=$((i + 1))
done

# ---- first life ----

start_svd
MODE=$(svd_mode)
diag "svd mode: $MODE ($(svctl --json info | _json_field modeReason))"
if [ -n "${SVD_EXPECT_MODE:-}" ]; then
        expect_eq "mode is $SVD_EXPECT_MODE" "$SVD_EXPECT_MODE" "$MODE"
fi

check "all $N default.target services are running" wait_until 60 enabled_running
run svctl start manual-1 manual-2
expect_rc "two more services started by hand" 0
check "all $((N + MANUAL)) services are running" all_running

OLD=$(service_pids)
for ps in $OLD; do
        TRACKED="$TRACKED $ps"
done
COUNT=$(echo "$OLD" | grep -c .)
expect_eq "svctl reports a live pid for every service" $((N + MANUAL)) "$COUNT"
NOT_CHILD=
for ps in $OLD; do
        proc_stat "${ps%%:*}"
        [ "$P_PPID" = "$SVD_PID" ] || NOT_CHILD="$NOT_CHILD ${ps%%:*}(ppid $P_PPID)"
done
expect_eq "every service is a child of svd" "" "$NOT_CHILD"

# ---- kill -9 svd ----

PIDS=
for ps in $OLD; do
        PIDS="$PIDS ${ps%%:*}"
done

WAIT_MS=$((DEADLINE_MS * 5))
[ "$WAIT_MS" -ge 10000 ] || WAIT_MS=10000
if [ -n "$PIDWAIT" ]; then
        # shellcheck disable=SC2086
        RESULT=$("$PIDWAIT" --kill "$SVD_PID" --timeout "$WAIT_MS" --reaped $PIDS 2>"$T/pidwait.err")
        PW_RC=$?
        [ -s "$T/pidwait.err" ] && diag "$(cat "$T/pidwait.err")"
        DEAD_MS=$(echo "$RESULT" | sed -n 's/.* dead_ms=\([0-9]*\).*/\1/p')
        DEAD_US=$(echo "$RESULT" | sed -n 's/.* dead_us=\([0-9]*\).*/\1/p')
        REAPED_MS=$(echo "$RESULT" | sed -n 's/.* reaped_ms=\([0-9]*\).*/\1/p')
        [ "$PW_RC" -le 1 ] || bail_out "pidwait failed (status $PW_RC)"
        HOW="by pidfd"
else
        diag "no pidwait helper: timing by /proc polling (10 ms resolution)"
        T0=$(now_ms)
        kill -KILL "$SVD_PID"
        wait_until $((WAIT_MS / 1000)) pids_dead "$OLD"
        DEAD_MS=$(($(now_ms) - T0))
        DEAD_US=$((DEAD_MS * 1000))
        wait_until $((WAIT_MS / 1000)) pids_gone "$OLD"
        REAPED_MS=$(($(now_ms) - T0))
        HOW="by /proc polling"
fi

LEFT=
ZOMBIES=
for ps in $OLD; do
        if pid_alive "${ps%%:*}" "${ps#*:}"; then
                LEFT="$LEFT ${ps%%:*}"
        elif pid_zombie "${ps%%:*}" "${ps#*:}"; then
                ZOMBIES="$ZOMBIES ${ps%%:*}(ppid $P_PPID)"
        fi
done
expect_eq "no service process is alive" "" "$LEFT"
expect_eq "no service process is a zombie" "" "$ZOMBIES"
if [ -n "$DEAD_MS" ] && [ "$DEAD_MS" -le "$DEADLINE_MS" ]; then
        ok "all $COUNT services dead within $DEADLINE_MS ms of kill -9 ($DEAD_MS ms)"
else
        not_ok "all $COUNT services dead within $DEADLINE_MS ms of kill -9 (${DEAD_MS:-?} ms)"
fi
if [ -n "$REAPED_MS" ] && [ "$REAPED_MS" -le "$DEADLINE_MS" ]; then
        ok "... and reaped within $DEADLINE_MS ms ($REAPED_MS ms)"
else
        not_ok "... and reaped within $DEADLINE_MS ms (${REAPED_MS:-?} ms)"
fi
echo "# crash-kill: $COUNT services dead ${DEAD_MS:-?} ms (${DEAD_US:-?} us, reaped ${REAPED_MS:-?} ms) after kill -9 of svd (mode $MODE, timed $HOW)"

wait "$SVD_JOB"
expect_eq "svd died of SIGKILL" 137 "$?"
SVD_PID=

run svctl list
expect_rc "svctl on the stale socket exits 1" 1
expect_contains "... and says svd is not running" "$ERR" "svd is not running at $SOCK"

# ---- second life ----

start_svd
check "svd starts again on the same directories and socket" test -n "$SVD_PID"
check "all $N default.target services are running again" wait_until 60 enabled_running
NEW=$(service_pids)
for ps in $NEW; do
        TRACKED="$TRACKED $ps"
done
check "the two services started by hand are back too" wait_until 30 state_is manual-2 running
check "... manual-1 as well" wait_until 30 state_is manual-1 running
NEW=$(service_pids)
for ps in $NEW; do
        TRACKED="$TRACKED $ps"
done
expect_eq "... with a live pid each" "$((N + 2))" "$(echo "$NEW" | grep -c .)"
SAME=
# shellcheck disable=SC2086,SC2116 # one line of words
OLD_LINE=" $(echo $OLD) "
for ps in $NEW; do
        case $OLD_LINE in
        *" $ps "*) SAME="$SAME $ps" ;;
        esac
done
expect_eq "... all of them new processes" "" "$SAME"
expect_ne "status says manual-1 was restored after svd restarted" null "$(svc_field manual-1 restoredUsec)"

stop_svd
expect_eq "svd exits 1 on SIGTERM: the services ignoring it had to be killed" 1 "$SVD_RC"
LEFT=
for ps in $NEW; do
        pid_gone "${ps%%:*}" "${ps#*:}" || LEFT="$LEFT ${ps%%:*}"
done
expect_eq "no service is left after svd's orderly exit" "" "$LEFT"

done_testing
