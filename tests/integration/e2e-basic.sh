#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# svd + svctl end to end: start, stop, restart, status, list and info in human
# and JSON form; exit codes; an exec failure's message; WantedBy=default.target
# at start-up; a unit that fails to load next to units that run; svctl without
# svd. TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

# ---- svctl without svd ----

run "$SVCTL" --socket "$T/nothing.sock" list
expect_rc "svctl list without svd exits 1" 1
expect_contains "... and says svd is not running at the socket" "$ERR" "svd is not running at $T/nothing.sock"

# ---- units ----

# args.sh shows what it got: argv (without a shell in between), environment, cwd.
cat >"$T/args.sh" <<'EOF'
out=$1
shift
{
        for a in "$@"; do printf '<%s>' "$a"; done
        echo
        echo "FOO=$FOO"
        echo "BAR=$BAR"
        pwd
} >"$out.tmp"
mv "$out.tmp" "$out"
exec "$SLEEP" 1000
EOF
mkdir "$T/work"

write_unit enabled <<EOF
[Unit]
Description=Enabled sleeper
[Service]
ExecStart=$SLEEP 1001
Foo=bar
[Install]
WantedBy=default.target
EOF

write_unit manual <<EOF
[Unit]
Description=Manual sleeper
[Service]
ExecStart=$SLEEP 1002
EOF

write_unit args <<EOF
[Service]
ExecStart=$SH $T/args.sh $T/args.out "two words" 'single quoted' back\\\\slash "" end
Environment=FOO=foo "BAR=bar baz" SLEEP=$SLEEP
WorkingDirectory=$T/work
EOF

write_unit execfail <<EOF
[Service]
ExecStart=/nonexistent/x --flag
EOF

write_unit badvalue <<EOF
[Unit]
Description=Broken
[Service]
ExecStart=$SLEEP 1003
Restart=sometimes
[Install]
WantedBy=default.target
EOF

# ---- start-up ----

start_svd
ok "svd answers on its socket"

run svctl info
expect_rc "info exits 0" 0
expect_contains "info shows the mode" "$OUT" "Mode: "
MODE=$(svd_mode)
case $MODE in
autokill | fallback) ok "info --json: mode is '$MODE'" ;;
*) not_ok "info --json: mode is autokill or fallback (got '$MODE')" ;;
esac
run svctl --json info
expect_contains "info --json has the kernel release" "$OUT" "\"kernel\":\"$(uname -r)\""
expect_eq "info --json: pid is svd's" "$SVD_PID" "$(json_field pid "$OUT")"
if [ -n "${SVD_EXPECT_MODE:-}" ]; then
        expect_eq "mode is the expected one" "$SVD_EXPECT_MODE" "$MODE"
fi

check "WantedBy=default.target service is running after start-up" wait_until 10 state_is enabled running
J=$(svc_json enabled)
EPID=$(json_field pid "$J")
track_pid "$EPID"
check "... its pid $EPID is alive" pid_alive "$EPID"
proc_stat "$EPID"
expect_eq "... and a child of svd" "$SVD_PID" "$P_PPID"
expect_eq "... enabled is true" true "$(json_field enabled "$J")"
expect_eq "service without WantedBy= is inactive after start-up" inactive "$(svc_state manual)"
grep -q "enabled.service:5: Unknown key 'Foo='" "$SVD_LOG"
check "unknown key is a warning with file and line" test $? -eq 0

# ---- status ----

run svctl status enabled
expect_rc "status of a running service exits 0" 0
expect_contains "status shows the state" "$OUT" "Active: running"
expect_contains "status shows the main pid" "$OUT" "Main PID: $EPID"
expect_contains "status shows the description" "$OUT" "enabled.service - Enabled sleeper"
run svctl status enabled.service
expect_rc "status accepts NAME.service" 0

run svctl status manual
expect_rc "status of a stopped service exits 3" 3
expect_contains "status shows inactive" "$OUT" "Active: inactive"
run svctl --json status manual
expect_rc "status --json of a stopped service exits 3" 3
expect_eq "status --json: state inactive" inactive "$(json_field state "$OUT")"
expect_eq "status --json: pid null" null "$(json_field pid "$OUT")"
expect_eq "status --json: name" manual "$(json_field name "$OUT")"

run svctl status nosuch
expect_rc "status of a missing service exits 4" 4
expect_contains "... with systemctl's message" "$ERR" "Unit nosuch.service could not be found."

run svctl status enabled manual
expect_rc "status of a running and a stopped service exits 3" 3

# ---- start, stop, restart ----

run svctl start manual
expect_rc "start exits 0" 0
# Start replies once the service has exec'd: no waiting here.
J=$(svc_json manual)
MPID=$(json_field pid "$J")
track_pid "$MPID"
expect_eq "running right after start returns" running "$(json_field state "$J")"
check "... its pid is alive" pid_alive "$MPID"
grep -q '1002' "/proc/$MPID/cmdline" 2>/dev/null
check "... and has exec'd the command" test $? -eq 0
MSTART=$(pid_start "$MPID")

run svctl start manual
expect_rc "starting a running service exits 0" 0
expect_eq "... and keeps its process" "$MPID" "$(svc_pid manual)"

run svctl stop manual
expect_rc "stop exits 0" 0
# Stop replies once the process is gone: no waiting here either.
check "process is gone right after stop returns" pid_gone "$MPID" "$MSTART"
expect_eq "state inactive after stop" inactive "$(svc_state manual)"
run svctl stop manual
expect_rc "stopping a stopped service exits 0" 0

run svctl --json start manual
expect_rc "start --json exits 0" 0
expect_eq "start --json prints the running service" running "$(json_field state "$OUT")"
MPID=$(json_field pid "$OUT")
track_pid "$MPID"
MSTART=$(pid_start "$MPID")
check "start --json prints the live pid" pid_alive "$MPID" "$MSTART"

run svctl --json restart manual
expect_rc "restart exits 0" 0
NPID=$(json_field pid "$OUT")
track_pid "$NPID"
expect_ne "restart gives a new pid" "$MPID" "$NPID"
check "... the old process is gone" pid_gone "$MPID" "$MSTART"
check "... the new one is alive" pid_alive "$NPID"
expect_eq "... restarts counter stays 0 (not an automatic restart)" 0 "$(json_field restarts "$OUT")"

run svctl --json stop manual
expect_rc "stop --json exits 0" 0
expect_eq "stop --json prints the inactive service" inactive "$(json_field state "$OUT")"
run svctl restart manual
expect_rc "restart of a stopped service exits 0" 0
expect_eq "... and starts it" running "$(svc_state manual)"
track_pid "$(svc_pid manual)"

run svctl start nosuch
case $RC in
0) not_ok "start of a missing service fails (exit $RC)" ;;
*) ok "start of a missing service fails (exit $RC)" ;;
esac
expect_contains "... naming it" "$ERR" "nosuch"
expect_contains "... as not found" "$ERR" "not found"

# ---- argv, environment, working directory ----

run svctl start args
expect_rc "start of a service with quoting, Environment=, WorkingDirectory= exits 0" 0
track_pid "$(svc_pid args)"
wait_until 10 test -f "$T/args.out"
ARGS_OUT=$(cat "$T/args.out" 2>/dev/null)
expect_eq "ExecStart= quoting reaches argv unchanged" \
        "<two words><single quoted><back\\slash><><end>" "$(echo "$ARGS_OUT" | sed -n 1p)"
expect_eq "Environment= sets FOO" "FOO=foo" "$(echo "$ARGS_OUT" | sed -n 2p)"
expect_eq "Environment= sets a quoted assignment" "BAR=bar baz" "$(echo "$ARGS_OUT" | sed -n 3p)"
expect_eq "WorkingDirectory= is the cwd" "$T/work" "$(echo "$ARGS_OUT" | sed -n 4p)"

# ---- exec failure ----

run svctl start execfail
expect_rc "start of a service whose binary is missing exits 1" 1
expect_contains "... with the exec error" "$ERR" "exec /nonexistent/x: No such file or directory"
expect_contains "... naming the service" "$ERR" "Failed to start 'execfail'"
J=$(svc_json execfail)
expect_eq "... the service is failed" failed "$(json_field state "$J")"
expect_eq "... without a pid" null "$(json_field pid "$J")"
run svctl status execfail
expect_rc "status of the failed service exits 3" 3
expect_contains "status shows the error" "$OUT" "No such file or directory"

# ---- a unit that fails to load ----

run svctl list
expect_rc "list exits 0 with a broken unit" 0
expect_contains "list shows the load error with file and line" "$OUT" \
        "Failed to load 'badvalue': $UNITS/badvalue.service:5:"
expect_contains "list has a header" "$OUT" "NAME"
expect_contains "list shows the running service" "$(echo "$OUT" | grep '^enabled ')" "running"
expect_contains "list counts the services" "$OUT" "5 services listed."
J=$(svc_json badvalue)
expect_eq "status --json: loadState error" error "$(json_field loadState "$J")"
expect_contains "status --json: loadError names file:line" "$(json_field loadError "$J")" "badvalue.service:5"
expect_eq "broken WantedBy=default.target unit is not running" inactive "$(json_field state "$J")"
run svctl start badvalue
expect_rc "start of the broken unit exits 1" 1
expect_contains "... and says why" "$ERR" "badvalue"
check "the other WantedBy=default.target service still runs" pid_alive "$EPID"

run svctl --json list
expect_rc "list --json exits 0" 0
N=$(echo "$OUT" | grep -o '"name":"[^"]*"' | wc -l)
expect_eq "list --json has every service" 5 "$N"
expect_contains "list --json is one object with services" "$OUT" '{"services":['

run svctl --json status
expect_rc "status --json without names exits 0" 0
expect_eq "... prints one line per service" 5 "$(echo "$OUT" | wc -l)"

# ---- SIGTERM stops svd and its services ----

PIDS=$(service_pids)
stop_svd
expect_eq "svd exits 0 on SIGTERM" 0 "$SVD_RC"
LEFT=
for ps in $PIDS; do
        pid_gone "${ps%%:*}" "${ps#*:}" || LEFT="$LEFT ${ps%%:*}"
done
expect_eq "no service process is left after svd's exit" "" "$LEFT"

run svctl status enabled
expect_rc "svctl after svd's exit exits 1" 1
expect_contains "... and says svd is not running" "$ERR" "svd is not running at $SOCK"

done_testing
