#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Re-exec (daemon/reexec.h): 50 services in mixed states (running
# simple/exec/notify, PrivatePIDs=yes, a dependency pair, a log file,
# oneshot exited, failed, inactive, waiting to restart, flapping through
# restarts, stuck starting, stuck stopping). svd is re-executed REEXECS
# times in a row (default 20; `svctl daemon-reexec` and SIGHUP in turn),
# the second half into a newer build (tests/lib svd-next: another version
# string, the next state version). After every re-exec: every service has
# the same pid (and starttime) and state, none was signalled or re-parented
# or lost its stdout (tests/lib/sigrecord.c records that), and the logs go
# on. Then the failure cases (binary gone, a binary that reads only an
# older state version, a binary that is no svd) leave svd running with
# everything intact, and after one more re-exec a kill -9 of svd kills every
# service. Runs in the mode the kernel gives: fallback on the host, autokill
# in the lab (SVD_EXPECT_MODE).

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

REEXECS=${REEXECS:-20}

setup_test
SIGRECORD=$(find_helper sigrecord) || skip_all "the sigrecord helper (tests/lib/sigrecord.c) is not built"
SVD_NEXT=$(find_helper svd-next) || skip_all "svd-next (tests/lib/CMakeLists.txt) is not built"
PIDWAIT=$(find_helper pidwait)
FALSE=$(path_of false) || bail_out "no false in PATH"
TRUE=$(path_of true) || bail_out "no true in PATH"

# svd runs from a copy that the test replaces as a package upgrade does:
# the new file is renamed over the old one.
mkdir -p "$T/bin" "$T/rec" || bail_out "mkdir failed"
cp "$SVD" "$T/bin/svd" || bail_out "cp svd failed"
install_binary() {
        cp "$1" "$T/bin/svd.new" && mv -f "$T/bin/svd.new" "$T/bin/svd"
}
SVD_ORIG=$SVD
SVD=$T/bin/svd

# ---- 50 services ----

# rec NAME: the service's record file (must stay empty).
unit_rec() {
        write_unit "$1" <<EOF
[Unit]
Description=re-exec test $1
$3
[Service]
ExecStart=$SIGRECORD $2 $T/rec/$1
$4
Restart=always
RestartSec=100ms
[Install]
WantedBy=default.target
EOF
        : >"$T/rec/$1"
}

RECS=
i=1
while [ "$i" -le 36 ]; do
        n=$(printf 'rec-%02d' "$i")
        case $((i % 8)) in
        0) unit_rec "$n" "" "" "Type=exec" ;;
        1) unit_rec "$n" "--notify" "" "Type=notify" ;;
        2) unit_rec "$n" "" "" "PrivatePIDs=yes" ;;
        *) unit_rec "$n" "" "" "" ;;
        esac
        RECS="$RECS $n"
        i=$((i + 1))
done
unit_rec dep-base "" "" ""
unit_rec dep-top "" "Requires=dep-base.service
After=dep-base.service" ""
unit_rec logfile "" "" "StandardOutput=file:$T/logfile.out"
RECS="$RECS dep-base dep-top logfile"
# stuck in "starting": never sends READY=1.
unit_rec starting "--never-ready" "" "Type=notify
TimeoutStartSec=1h"
sed -i '/^WantedBy/d' "$UNITS/starting.service"
# stuck in "stopping": ignores SIGTERM (recorded once, by the stop).
unit_rec stopping "--ignore-term" "" "TimeoutStopSec=1h"

oneshot() {
        write_unit "$1" <<EOF
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=$TRUE
[Install]
WantedBy=default.target
EOF
}
oneshot exited-1
oneshot exited-2
for n in failed-1 failed-2; do
        write_unit "$n" <<EOF
[Service]
ExecStart=$FALSE
Restart=no
[Install]
WantedBy=default.target
EOF
done
for n in inactive-1 inactive-2; do
        write_unit "$n" <<EOF
[Service]
ExecStart=$SIGRECORD $T/rec/$n
EOF
done
for n in waiting-1 waiting-2; do
        write_unit "$n" <<EOF
[Service]
ExecStart=$FALSE
Restart=always
RestartSec=1h
[Install]
WantedBy=default.target
EOF
done
# Exits after a moment and is restarted 200 ms later, all along: re-execs
# catch it running, exiting and waiting to restart.
write_unit flapping <<EOF
[Service]
ExecStart=$SH -c 'exec $SLEEP 0.3'
Restart=always
RestartSec=200ms
StartLimitIntervalSec=0
[Install]
WantedBy=default.target
EOF
COUNT=$(ls "$UNITS" | grep -c '\.service$')
expect_eq "50 unit files" 50 "$COUNT"

start_svd
MODE=$(svd_mode)
diag "svd mode: $MODE"
[ -z "${SVD_EXPECT_MODE:-}" ] || expect_eq "mode is $SVD_EXPECT_MODE" "$SVD_EXPECT_MODE" "$MODE"

settled() {
        for _n in $RECS stopping; do
                state_is "$_n" running || return 1
        done
        state_is exited-1 exited && state_is failed-1 failed && state_is waiting-1 auto-restart
}
# Everything below starts from these states: without them it would only
# wait out its timeouts.
check "services settle in their states" wait_until 60 settled ||
        bail_out "the services did not settle: $(svctl list 2>&1 | tr '\n' ';')"
# Stuck in starting and stopping: the clients' calls end with the re-exec.
svctl --timeout=0 start starting >/dev/null 2>&1 &
START_JOB=$!
svctl --timeout=0 stop stopping >/dev/null 2>&1 &
STOP_JOB=$!
check "one service starting, one stopping" wait_until 20 sh -c "
        '$SVCTL' --socket '$SOCK' --json status starting | grep -q '\"state\":\"starting\"' &&
        '$SVCTL' --socket '$SOCK' --json status stopping | grep -q '\"state\":\"stopping\"'"
check "the stop's SIGTERM is recorded" wait_until 10 grep -q '^signal 15$' "$T/rec/stopping"

# A reload that waits for running services: rec-04's unit changed (applies
# at its next start), rec-06's removed (dropped once it stops).
sed -i 's/^Description=.*/Description=re-exec test rec-04, second edition/' "$UNITS/rec-04.service"
mv "$UNITS/rec-06.service" "$T/rec-06.service.removed"
run svctl reload
expect_contains "reload: rec-04 changed" "$OUT" "Changed: rec-04"
expect_contains "reload: rec-06 removed" "$OUT" "Removed: rec-06"

# ---- what must not change ----

# snapshot: "NAME STATE PID:STARTTIME" of every service but the flapping one.
snapshot() {
        svctl --json status 2>/dev/null | json_fields name state pid | while read -r _n _st _p; do
                [ "$_n" = flapping ] && continue
                P_START=
                [ "$_p" = null ] || proc_stat "$_p" || P_START=
                echo "$_n $_st $_p:$P_START"
        done
}

# records_clean: every record file empty, but stopping's single SIGTERM.
records_clean() {
        _bad=
        for _f in "$T"/rec/*; do
                _n=${_f##*/}
                if [ "$_n" = stopping ]; then
                        [ "$(cat "$_f")" = "signal 15" ] || _bad="$_bad $_n:$(tr '\n' ',' <"$_f")"
                elif [ -s "$_f" ]; then
                        _bad="$_bad $_n:$(tr '\n' ',' <"$_f")"
                fi
        done
        echo "$_bad"
}

# seq_ok NAME MIN: the service's log holds "seq K".."seq N" in order, each
# once and whole (no gap, no partial line), N >= MIN; K is 1 unless the
# ring has let older lines go (the log file is checked from 1 below).
# Prints what is wrong.
seq_ok() {
        svctl --json logs "$1" 2>/dev/null | awk -v min="$2" '
        { line = $0
          while ((i = index(line, "\"message\":\"")) > 0) {
                line = substr(line, i + 11)
                msg = substr(line, 1, index(line, "\"") - 1)
                if (msg !~ /^seq [0-9]+$/) { print "odd line: " msg; bad = 1; exit }
                n = substr(msg, 5) + 0
                if (!seen++ && n > 1) last = n - 1 # the ring (1000 lines) let older ones go
                if (n != last + 1) { print "after seq " last " came seq " n; bad = 1; exit }
                last = n
          }
          if (index($0, "\"partial\":true")) { print "a partial line"; bad = 1; exit } }
        END { if (!bad && last < min) print "only up to seq " last ", expected " min }'
}

last_seq() {
        svctl --json logs -n 1 "$1" 2>/dev/null | sed -n 's/.*"message":"seq \([0-9]*\)".*/\1/p'
}

seq_beyond() {
        _l=$(last_seq "$1")
        [ -n "$_l" ] && [ "$_l" -gt "$2" ]
}

BEFORE=$(snapshot)
expect_eq "50 services seen (flapping aside)" 49 "$(echo "$BEFORE" | grep -c .)"
diag "states: $(echo "$BEFORE" | awk '{print $2}' | sort | uniq -c | tr -s ' \n' ' ')"
PARENT_BAD=
for n in $RECS; do
        # (rec-06's unit file is gone since the reload above)
        grep -qs PrivatePIDs=yes "$UNITS/$n.service" "$T/$n.service.removed" && continue
        proc_stat "$(svc_pid "$n")"
        [ "$P_PPID" = "$SVD_PID" ] || PARENT_BAD="$PARENT_BAD $n"
done
expect_eq "the services are svd's children" "" "$PARENT_BAD"

reexec_count() {
        grep -c 'Re-executed from state' "$SVD_LOG"
}

NEXT_VERSION=$("$SVD_NEXT" --version | awk '{print $2}')
OLD_VERSION=$(svctl --json info | _json_field version)
FLAP_RESTARTS=$(svc_field flapping restarts)
PROBLEMS=
round=1
while [ "$round" -le "$REEXECS" ]; do
        if [ "$round" -eq $((REEXECS / 2 + 1)) ]; then
                install_binary "$SVD_NEXT" || bail_out "installing svd-next failed"
                diag "round $round: svd-next installed over the running binary"
        fi
        seq0=$(last_seq rec-03)
        n0=$(reexec_count)
        if [ $((round % 4)) -eq 0 ]; then
                kill -HUP "$SVD_PID"
                if ! wait_until 30 sh -c "[ \$(grep -c 'Re-executed from state' '$SVD_LOG') -gt $n0 ]"; then
                        PROBLEMS="$PROBLEMS round$round:SIGHUP-no-reexec"
                        diag "round $round: svd's log since the SIGHUP:" "$(grep -n 'Received SIGHUP' "$SVD_LOG" | tail -n 1)" \
                                "$(tail -n 8 "$SVD_LOG")"
                fi
                wait_until 10 _svd_ready_or_dead
        else
                run svctl daemon-reexec
                [ "$RC" = 0 ] || PROBLEMS="$PROBLEMS round$round:rc=$RC($ERR)"
        fi
        pid_alive "$SVD_PID" "$SVD_START" || bail_out "svd is gone after re-exec $round"
        [ "$(reexec_count)" -eq $((n0 + 1)) ] || PROBLEMS="$PROBLEMS round$round:count"
        NOW=$(snapshot)
        [ "$NOW" = "$BEFORE" ] || PROBLEMS="$PROBLEMS round$round:changed[$(echo "$NOW" | grep -vxF "$BEFORE" | tr '\n' ';')]"
        bad=$(records_clean)
        [ -z "$bad" ] || PROBLEMS="$PROBLEMS round$round:signalled[$bad]"
        wait_until 10 seq_beyond rec-03 "${seq0:-0}" || PROBLEMS="$PROBLEMS round$round:log-stalled"
        round=$((round + 1))
done
expect_eq "$REEXECS re-execs: same pids and states, no signal, no new parent, logs go on" "" "$PROBLEMS"
expect_eq "svd kept its pid through every re-exec" "$SVD_PID" "$(svctl --json info | _json_field pid)"
expect_eq "svd now runs the newer build" "$NEXT_VERSION" "$(svctl --json info | _json_field version)"
expect_ne "which has another version string" "$OLD_VERSION" "$NEXT_VERSION"
FIRST_NEXT=$(awk -v v="svd $NEXT_VERSION:" 'index($0, v) { seen = 1 } seen && /Re-executed from state/ { print; exit }' "$SVD_LOG")
expect_contains "the newer build read the older build's state" "$FIRST_NEXT" "state version 1 of svd $OLD_VERSION:"

wait "$START_JOB" 2>/dev/null
wait "$STOP_JOB" 2>/dev/null

LOGBAD=
for n in $RECS; do
        w=$(seq_ok "$n" 5)
        [ -z "$w" ] || LOGBAD="$LOGBAD $n($w)"
done
expect_eq "every service's log holds every line, in order, whole" "" "$LOGBAD"
FILE_LAST=$(sed -n '$p' "$T/logfile.out")
FILE_BAD=$(awk '$0 != "seq " NR { print "line " NR ": " $0; exit }' "$T/logfile.out")
expect_eq "StandardOutput=file: got every line too ($FILE_LAST)" "" "$FILE_BAD"
check "the flapping service restarts on" wait_until 20 sh -c "
        [ \$('$SVCTL' --socket '$SOCK' --json status flapping | sed -n 's/.*\"restarts\":\([0-9]*\).*/\1/p') -gt $((FLAP_RESTARTS + 2)) ]"

expect_eq "rec-04's reloaded unit is still pending" true "$(svc_field rec-04 reloadPending)"
expect_eq "rec-04 still runs the first edition" "re-exec test rec-04" "$(svc_field rec-04 description)"
expect_eq "rec-06 is still marked removed" removed "$(svc_field rec-06 loadState)"

# ---- failure cases: svd carries on unchanged ----

reexec_fails() {
        run svctl daemon-reexec
        expect_ne "$1: daemon-reexec fails" 0 "$RC"
        expect_contains "$1: the error says why" "$ERR" "$2"
        expect_eq "$1: svd runs on, same pid" "$SVD_PID" "$(svctl --json info | _json_field pid)"
        expect_eq "$1: every service as it was" "$BEFORE" "$(snapshot)"
        expect_eq "$1: no service signalled" "" "$(records_clean)"
}
rm -f "$T/bin/svd"
reexec_fails "binary gone" "No such file or directory"
install_binary "$SVD_ORIG"
reexec_fails "binary that reads state version 1 only (svd writes 2)" "up to version 1"
install_binary "$TRUE"
reexec_fails "binary that is not svd" "not an svd"
N0=$(reexec_count)
kill -HUP "$SVD_PID"
check "SIGHUP with the binary not svd: svd says so and carries on" wait_until 20 \
        grep -q 'Re-exec failed, carrying on' "$SVD_LOG"
expect_eq "... and did not re-exec" "$N0" "$(reexec_count)"

# The operator still controls everything after all that.
install_binary "$SVD_NEXT"
run svctl daemon-reexec
expect_rc "one more re-exec (the last)" 0
run svctl kill --signal KILL stopping
expect_rc "kill the stuck stopping service" 0
check "which ends stopped" wait_until 20 state_is stopping inactive
# rec-02 has PrivatePIDs=yes: svd's init there reports the command's exit
# through the spawn-report pipe, which the re-execs handed over.
OLD_PID=$(svc_pid rec-02)
run svctl restart rec-02
expect_rc "restart after re-execs (PrivatePIDs=yes)" 0
check "rec-02 runs again with a new pid" wait_until 20 running_with_new_pid rec-02 "$OLD_PID"
expect_eq "its last exit is the command's, reported by its init: SIGTERM recorded, then exit 0" \
        "exited 0" "$(svc_json rec-02 | _json_field lastExit | sed 's/.*"code":"\([a-z]*\)","status":\([0-9]*\).*/\1 \2/')"
expect_eq "... and the SIGTERM of that restart is the only signal it got" "signal 15" "$(cat "$T/rec/rec-02")"
: >"$T/rec/rec-02"
expect_eq "reload after re-execs reports nothing changed" "No changes." "$(svctl reload 2>&1)"
run svctl restart rec-04
expect_rc "rec-04 restarted" 0
expect_eq "rec-04 took its pending unit at that start" "re-exec test rec-04, second edition" \
        "$(svc_field rec-04 description)"
run svctl stop rec-06
expect_rc "rec-06 stopped" 0
check "the removed rec-06 is dropped once stopped" wait_until 20 sh -c "! '$SVCTL' --socket '$SOCK' status rec-06 >/dev/null 2>&1"
: >"$T/rec/rec-04"
: >"$T/rec/rec-06"

# ---- a crash after the last re-exec kills everything ----

# The flapping service's pid changes every half second: a pid that is gone
# before pidwait opens its pidfd makes pidwait refuse to start. It stops first.
run svctl stop flapping
expect_rc "flapping stopped before the crash" 0
OLD=$(service_pids)
PIDS=
for ps in $OLD; do
        PIDS="$PIDS ${ps%%:*}"
        TRACKED="$TRACKED $ps"
done
NPIDS=$(echo "$PIDS" | wc -w)
if [ -n "$PIDWAIT" ]; then
        # shellcheck disable=SC2086
        RESULT=$("$PIDWAIT" --kill "$SVD_PID" --timeout $((10000 * TIMEOUT_FACTOR)) $PIDS 2>"$T/pidwait.err")
        PW_RC=$?
        diag "kill -9 after $((REEXECS + 1)) re-execs: $RESULT"
        expect_eq "kill -9 of svd: pidwait saw all $NPIDS service processes die" 0 "$PW_RC"
else
        kill -KILL "$SVD_PID"
fi
check "kill -9 of svd: no service process is left" wait_until 10 pids_dead "$OLD"
kill -KILL "$SVD_PID" 2>/dev/null # (had pidwait failed to, the wait below would hang)
wait "$SVD_JOB" 2>/dev/null
SVD_PID=

done_testing
