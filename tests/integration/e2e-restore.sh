#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Restore after a crash: svd keeps the wanted state (WantedBy=default.target
# plus operator starts, minus operator stops) in the file "wanted" next to
# its socket. After kill -9 of svd, the next svd starts exactly what was
# wanted, and nothing else, and marks it restored; svd is killed during a
# start (Type=notify without READY=1), with a restart pending (auto-restart)
# and right after a reload. A clean exit (SIGTERM) removes the file: the
# next svd starts the default set only, as systemd does at boot. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

unit() { # unit NAME [wanted] [EXTRA SERVICE LINES]
        {
                printf '[Service]\nExecStart=%s 1000\n' "$SLEEP"
                [ -z "${3:-}" ] || printf '%s\n' "$3"
                [ "${2:-}" != wanted ] || printf '[Install]\nWantedBy=default.target\n'
        } | write_unit "$1"
}

unit def1 wanted
unit def2 wanted
unit man1
unit man2
# Never ready: its start stays pending until svd dies.
unit slowstart "" "Type=notify
TimeoutStartSec=300"
write_unit flaky <<UNIT
[Service]
ExecStart=$SH -c 'exit 1'
Restart=always
RestartSec=300
UNIT

WANTED=$T/wanted # next to $SOCK

# crash: kill -9 svd and wait for it (its services die with it).
crash() {
        TRACKED="$TRACKED $(service_pids)"
        kill -KILL "$SVD_PID"
        wait_until 10 svd_exited
        wait "$SVD_JOB" 2>/dev/null
        SVD_PID=
}

# states NAME...: "NAME=STATE ..." for a compact comparison.
states() {
        _o=
        for _n in "$@"; do
                _o="$_o $_n=$(svc_state "$_n")"
        done
        echo "${_o# }"
}

start_svd
check "svd writes the wanted file at start-up" test -f "$WANTED"
check "default.target services run" wait_until 10 state_is def2 running
run svctl stop def2
expect_rc "operator stops def2" 0
run svctl start man1
expect_rc "operator starts man1" 0
check "the wanted file records both" grep -q "^stop def2$" "$WANTED"
check "... man1 too" grep -q "^start man1$" "$WANTED"

# ---- crash 1: a start pending (Type=notify, no READY=1) ----
"$SVCTL" --socket "$SOCK" start slowstart >/dev/null 2>&1 &
check "slowstart is starting" wait_until 10 state_is slowstart starting
crash
check "svd is gone, and so are its services" wait_until 10 pids_dead "$TRACKED"

start_svd
check "def1 is back" wait_until 10 state_is def1 running
check "man1, started by hand, is back" wait_until 10 state_is man1 running
check "slowstart, whose start was pending, is starting again" wait_until 10 state_is slowstart starting
expect_eq "def2, stopped by hand, stays stopped; man2 was never wanted" "def2=inactive man2=inactive" \
        "$(states def2 man2)"
expect_ne "def1 is marked restored" null "$(svc_field def1 restoredUsec)"
run svctl status man1
expect_contains "status says man1 was restored after svd restarted" "$OUT" "Restored: yes"
expect_eq "a service that was not started is not marked" null "$(svc_field man2 restoredUsec)"

# ---- crash 2: a restart pending ----
run svctl stop slowstart
run svctl start flaky
check "flaky waits for its restart" wait_until 10 state_is flaky auto-restart
crash
start_svd
check "flaky, whose restart was pending, is started again" wait_until 10 sh -c '
        s=$("$0" --socket "$1" --json status flaky | sed -n "s/.*\"state\":\"\([a-z-]*\)\".*/\1/p")
        [ "$s" = auto-restart ] || [ "$s" = running ]' "$SVCTL" "$SOCK"
expect_ne "... marked restored" null "$(svc_field flaky restoredUsec)"
expect_eq "slowstart, stopped by hand, stays stopped" inactive "$(svc_state slowstart)"
expect_eq "the rest as before" "def1=running def2=inactive man1=running man2=inactive" \
        "$(states def1 def2 man1 man2)"

# ---- crash 3: right after a reload ----
run svctl stop flaky
unit late wanted
rm "$UNITS/man1.service"
"$SVCTL" --socket "$SOCK" reload >/dev/null 2>&1 &
RELOAD=$!
crash
wait $RELOAD 2>/dev/null
start_svd
check "a unit added before the crash, wanted by default.target, runs" wait_until 10 state_is late running
run svctl status man1
expect_rc "a unit whose file was removed is gone, though it was wanted" 4
expect_eq "the rest as before" "def1=running def2=inactive man2=inactive flaky=inactive" \
        "$(states def1 def2 man2 flaky)"

# ---- crash 4: a corrupt wanted file ----
# Good lines are honoured, the rest is told once (file, first bad line, reason, count), the bad
# file is kept as wanted.corrupt and a good one written.
crash
{
        echo "# a comment"
        echo "start man2"          # 2: good
        echo "frobnicate def1"     # 3: unknown verb, the first bad line
        printf 'start %0200000d\n' 0 # 4: a 200 kB line
        printf '\001\377\000\376garbage\n' # 5: binary
        echo "start no-such-unit"  # 6: well-formed, no such unit
        echo "start a;b"           # 7: invalid name
        printf 'stop de'           # 8: half a line
} >"$WANTED"
cp "$WANTED" "$T/wanted.bad"
start_svd
check "a good line of a corrupt file is honoured" wait_until 10 state_is man2 running
expect_eq "... and the half line 'stop de' is not taken for anything" running "$(svc_state def1)"
check "svd tells the first bad line, the reason and how many" \
        in_svd_log -q "$WANTED:3: unknown verb (not \"start\" or \"stop\"); 5 bad lines in all, ignored; a copy of the file is kept as '$WANTED.corrupt', writing a good file."
expect_eq "... once" 1 "$(in_svd_log -c "bad lines in all")"
check "... and the unit it does not know" in_svd_log -q "$WANTED:6: no unit 'no-such-unit' (1 lines name units svd does not have), ignoring."
check "the bad file is kept for the operator" cmp -s "$T/wanted.bad" "$WANTED.corrupt"
check "a good file replaces it" sh -c '! grep -qv -e "^#" -e "^start [a-z0-9-]*\$" -e "^stop [a-z0-9-]*\$" "$1" &&
        grep -qx "start man2" "$1"' sh "$WANTED"
for cut in "stop de" "$(printf 'start man2\nsto')"; do
        crash
        printf '%s' "$cut" >"$WANTED"
        start_svd
        check "a file cut short ($(printf '%s' "$cut" | wc -c) bytes) is told as such" \
                in_svd_log -q "the last line has no newline (the file is cut short)"
done
run svctl stop man2

# ---- crash 5: a directory where the wanted file goes ----
crash
rm -f "$WANTED"
mkdir "$WANTED"
start_svd
check "a directory in the file's place is told at start-up" \
        in_svd_log -q "The wanted-state file '$WANTED' is a directory: svd cannot keep what is wanted"
check "... and svd works on: the default set starts" wait_until 10 state_is def1 running
run svctl start man2
expect_rc "... and starts units" 0
run svctl stop man2
expect_eq "a write that keeps failing is told once" 1 "$(in_svd_log -c "Failed to write the wanted-state file")"
rmdir "$WANTED"
run svctl start man2
check "once the directory is gone, the file is written again" grep -qx "start man2" "$WANTED"
check "... and svd says so" in_svd_log -q "is written again"
run svctl stop man2

# ---- a clean exit ----
stop_svd
expect_eq "svd exits 0 on SIGTERM" 0 "$SVD_RC"
check "a clean exit removes the wanted file" test ! -e "$WANTED"
start_svd
check "after a clean exit, the default set starts" wait_until 10 state_is def2 running
expect_eq "... and nothing started by hand" "man2=inactive flaky=inactive slowstart=inactive" \
        "$(states man2 flaky slowstart)"
expect_eq "... and nothing is marked restored" null "$(svc_field def1 restoredUsec)"

done_testing
