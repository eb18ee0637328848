#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Socket activation (systemd.socket(5), Accept=no): a socket unit wanted by sockets.target is
# bound when svd starts; the first connection starts its service, which gets the listening
# sockets as fds 3, 4 with $LISTEN_FDS, $LISTEN_FDNAMES and $LISTEN_PID its own pid (the
# listen-echo helper refuses to serve otherwise); svctl status and list show the socket unit; a
# second socket unit on a taken port fails with the reason and nothing else; the service stopped,
# svd watches again; the socket unit stopped, connections are refused and RemoveOnStop= removes
# the socket file; after kill -9 of svd the next svd binds the sockets again. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

ECHO=$(find_helper listen-echo) || skip_all "the listen-echo helper is not built"

# A TCP port nobody listens on (/proc/net/tcp: the local port in hex).
port_free() {
        _hex=$(printf ':%04X ' "$1")
        ! grep -q "$_hex" /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
PORT=$((20000 + $$ % 20000))
while ! port_free "$PORT"; do
        PORT=$((PORT + 1))
done
# The second address: a TCP port on 127.0.0.1, or, on a kernel without IPv4 (the lab's 6.12 is
# built without it), an abstract socket name, which is taken as a port is.
if [ -e /proc/net/tcp ] && [ -z "${SOCKET_TEST_NO_INET:-}" ]; then
        LISTEN2=127.0.0.1:$PORT
        DIAL2=tcp:127.0.0.1:$PORT
        WHAT2="the TCP port on 127.0.0.1"
else
        LISTEN2=@svd-test-echo-$$
        DIAL2=unix:@svd-test-echo-$$
        WHAT2="the abstract socket (no IPv4 in this kernel)"
        diag "no IPv4 in this kernel: the second address is $LISTEN2"
fi

write_unit echo <<EOF
[Unit]
Description=echo over socket activation
[Service]
ExecStart=$ECHO serve
EOF
cat >"$UNITS/echo.socket" <<EOF
[Unit]
Description=echo's sockets
[Socket]
ListenStream=$T/run/echo.sock
ListenStream=$LISTEN2
SocketMode=0600
RemoveOnStop=yes
[Install]
WantedBy=sockets.target
EOF
# Not wanted at start: svctl start makes it try the port echo.socket holds.
cat >"$UNITS/busy.socket" <<EOF
[Socket]
ListenStream=$LISTEN2
Service=echo.service
EOF

start_svd

socket_state() {
        svctl --json status "$1.socket" 2>/dev/null | _json_field state
}
socket_triggers() {
        svctl --json status "$1.socket" 2>/dev/null | _json_field triggers
}
state_of_socket_is() {
        [ "$(socket_state "$1")" = "$2" ]
}

expect_eq "echo.socket listens once svd has started" listening "$(socket_state echo)"
expect_eq "... its socket file is there, mode 0600 (SocketMode=)" 600 "$(stat -c %a "$T/run/echo.sock")"
expect_eq "... and echo.service has not started" inactive "$(svc_state echo)"

run svctl list
expect_contains "svctl list shows the socket unit beside the services" "$OUT" "echo.socket"
expect_contains "... with its state" "$(echo "$OUT" | grep '^echo.socket')" listening
expect_contains "... and counts the sockets" "$OUT" "2 sockets listed."

run "$ECHO" connect "unix:$T/run/echo.sock" hello
expect_eq "the first connection (the path socket) is answered by the service it started" hello "$OUT"
expect_eq "... echo.service runs" running "$(svc_state echo)"
check "... the socket unit is running (svd does not watch it)" wait_until 10 state_of_socket_is echo running
run "$ECHO" connect "$DIAL2" "over tcp"
expect_eq "$WHAT2 reaches the same service" "over tcp" "$OUT"
run svctl logs echo
expect_contains "the service got both fds, named after the socket unit, and LISTEN_PID was its pid" \
        "$OUT" "listen-echo: pid $(svc_pid echo) fds 2 names echo.socket:echo.socket"

run svctl status echo.socket
expect_rc "svctl status echo.socket exits 0 while it is active" 0
expect_contains "... shows the path it listens on" "$OUT" "Listen: $T/run/echo.sock (Stream)"
expect_contains "... and the second address" "$OUT" "$LISTEN2 (Stream)"
expect_contains "... and the connections that started the service" "$OUT" "Triggers: 1"
expect_contains "... and which service" "$OUT" "Service: echo.service"
expect_eq "svctl --json status echo.socket gives the triggers" 1 "$(socket_triggers echo)"

run svctl start busy.socket
expect_ne "a socket unit on a port that is taken fails its start" 0 "$RC"
expect_contains "... saying which address and why" "$ERR" \
        "Failed to listen on '$LISTEN2': Address already in use"
expect_eq "... and is failed" failed "$(socket_state busy)"
run "$ECHO" connect "$DIAL2" still
expect_eq "... nothing else is affected" still "$OUT"

OLD=$(svc_pid echo)
svctl stop echo >/dev/null 2>&1
check "echo.service stopped, svd watches the socket again" wait_until 10 state_of_socket_is echo listening
run "$ECHO" connect "$DIAL2" again
expect_eq "the next connection starts the service again" again "$OUT"
expect_ne "... a new process" "$OLD" "$(svc_pid echo)"
expect_eq "... and it is the second trigger" 2 "$(socket_triggers echo)"

svctl stop echo >/dev/null 2>&1
run svctl stop echo.socket
expect_rc "svctl stop echo.socket" 0
expect_eq "... it is inactive" inactive "$(socket_state echo)"
run "$ECHO" connect "$DIAL2" closed
expect_rc "... the port refuses connections" 2
check "... and RemoveOnStop= removed the socket file" test ! -e "$T/run/echo.sock"
expect_eq "... its service was not started" inactive "$(svc_state echo)"

run svctl start echo.socket
expect_rc "svctl start echo.socket" 0
expect_eq "... it listens again" listening "$(socket_state echo)"

# Started by hand, the service gets the sockets too.
svctl start echo >/dev/null 2>&1
run "$ECHO" connect "unix:$T/run/echo.sock" manual
expect_eq "a service started by hand gets the sockets as well" manual "$OUT"
expect_eq "... which counts no trigger" 2 "$(socket_triggers echo)"

# A service that fails at once is not started again and again for a connection nobody takes: at
# the trigger limit (20 in 2 s) or its service's start limit, the socket unit fails. Socket
# units added or removed by daemon-reload.
write_unit broken <<EOF
[Unit]
StartLimitBurst=3
StartLimitIntervalSec=60
[Service]
ExecStart=$SH -c 'exit 1'
EOF
cat >"$UNITS/broken.socket" <<EOF
[Socket]
ListenStream=$T/run/broken.sock
EOF
cat >"$UNITS/late.socket" <<EOF
[Socket]
ListenStream=$T/run/late.sock
Service=echo.service
EOF
run svctl daemon-reload
expect_rc "daemon-reload loads the socket units added" 0
expect_eq "... not started" inactive "$(socket_state late)"
run svctl start broken.socket
expect_rc "svctl start broken.socket" 0
run timeout 30 "$ECHO" connect "unix:$T/run/broken.sock" nobody
expect_eq "a connection to a service that keeps failing gets no answer" "" "$OUT"
check "... the socket unit fails at its trigger limit or its service's start limit" \
        wait_until 20 state_of_socket_is broken failed
expect_contains "... and says so" "$(svctl --json status broken.socket)" "limit hit"
rm "$UNITS/late.socket"
svctl daemon-reload >/dev/null 2>&1
run svctl status late.socket
expect_rc "a socket unit whose file is gone is dropped by daemon-reload" 4

# Socket units started and stopped by hand, not by their enabling: hand.socket (not enabled) is
# started, off.socket (enabled, but added after svd started) started and stopped. Each is kept
# so across a re-exec and a crash.
write_unit hand <<EOF
[Service]
ExecStart=$ECHO serve
EOF
cat >"$UNITS/hand.socket" <<EOF
[Socket]
ListenStream=$T/run/hand.sock
EOF
cat >"$UNITS/off.socket" <<EOF
[Socket]
ListenStream=$T/run/off.sock
Service=hand.service
[Install]
WantedBy=sockets.target
EOF
svctl daemon-reload >/dev/null 2>&1
run svctl start hand.socket
expect_rc "svctl start hand.socket (not enabled)" 0
svctl start off.socket >/dev/null 2>&1
run svctl stop off.socket
expect_rc "svctl stop off.socket (enabled)" 0
run "$ECHO" connect "unix:$T/run/hand.sock" first
expect_eq "hand.socket activates hand.service" first "$OUT"
HAND_PID=$(svc_pid hand)

# Re-exec: the listening fds are carried over like the pidfds; a client connecting in a loop all
# along sees no refusal. The service stopped first, so that only svd holds the sockets.
svctl stop echo >/dev/null 2>&1
check "echo.service stopped, the socket unit listens" wait_until 10 state_of_socket_is echo listening
TRIGGERS=$(socket_triggers echo)
"$ECHO" loop "$DIAL2" "$T/stop-loop" >"$T/loop.out" 2>&1 &
LOOP=$!
"$ECHO" loop "unix:$T/run/echo.sock" "$T/stop-loop" >"$T/loop-unix.out" 2>&1 &
LOOP_UNIX=$!
run svctl daemon-reexec
expect_rc "svctl daemon-reexec while clients connect in a loop" 0
run svctl daemon-reexec
expect_rc "... and once more" 0
touch "$T/stop-loop"
wait "$LOOP"
RC=$?
expect_eq "the client of $WHAT2 saw no refusal across the re-execs ($(cat "$T/loop.out") round trips)" 0 "$RC"
wait "$LOOP_UNIX"
RC=$?
expect_eq "... nor did the path client ($(cat "$T/loop-unix.out") round trips)" 0 "$RC"
expect_eq "the socket unit's triggers are carried over" $((TRIGGERS + 1)) "$(socket_triggers echo)"
expect_eq "a socket unit started by hand is running across the re-execs" running "$(socket_state hand)"
expect_eq "... its service is the same process" "$HAND_PID" "$(svc_pid hand)"
expect_eq "... and one stopped by hand stays inactive" inactive "$(socket_state off)"
run "$ECHO" connect "unix:$T/run/hand.sock" reexeced
expect_eq "... the service still answers on it" reexeced "$OUT"
svctl stop echo >/dev/null 2>&1
check "after the re-execs, svd watches the sockets again once the service stopped" \
        wait_until 10 state_of_socket_is echo listening
run "$ECHO" connect "$DIAL2" after
expect_eq "... and starts it at the next connection" after "$OUT"

# The sockets belong to svd: they go with it, and the next svd binds them before the services.
kill -KILL "$SVD_PID"
wait_until 10 svd_exited
wait "$SVD_JOB" 2>/dev/null
run "$ECHO" connect "$DIAL2" dead
expect_rc "kill -9 of svd closes the port" 2
start_svd
run "$ECHO" connect "$DIAL2" back
expect_eq "the next svd binds the sockets again" back "$OUT"
run "$ECHO" connect "unix:$T/run/echo.sock" path
expect_eq "... and replaces the stale socket file" path "$OUT"
expect_eq "the socket unit started by hand listens again" running "$(socket_state hand)"
check "... and the service it had activated is restored" wait_until 10 state_is hand running
expect_ne "... a new process" "$HAND_PID" "$(svc_pid hand)"
run "$ECHO" connect "unix:$T/run/hand.sock" retry
expect_eq "... a client that retries is answered by the restored service" retry "$OUT"
run svctl logs hand
expect_contains "... which got the socket bound before it started" "$OUT" \
        "listen-echo: pid $(svc_pid hand) fds 1 names hand.socket"
expect_eq "the enabled socket unit stopped by hand stays stopped after the crash" inactive "$(socket_state off)"
run "$ECHO" connect "unix:$T/run/off.sock" off
expect_rc "... its socket refuses connections" 2

stop_svd
expect_eq "svd exits cleanly" 0 "$SVD_RC"
check "... its socket units stop with it: RemoveOnStop= removed the socket file" test ! -e "$T/run/echo.sock"

done_testing
