#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Socket activation with Accept=yes (systemd.socket(5)): svd accepts each connection and starts an
# instance of NAME@.service for it, named NAME@N-PID-UID (AF_UNIX) or NAME@N-LOCAL-REMOTE (IP); with
# StandardInput=socket the connection is its stdin and stdout, else fd 3 with $LISTEN_FDS=1 and
# $LISTEN_FDNAMES=connection. Two connections at once have two instances; an instance is dropped
# once it has exited; svctl status counts the connections; MaxConnections= and
# MaxConnectionsPerSource= close the connections beyond them at once while the others are served
# (the warnings about them rate-limited); an instance that fails to start closes its connection and
# goes; accept() at EMFILE backs off instead of spinning;
# Accept=yes with a datagram socket or Service= is refused at load with file:line; a missing
# template fails the socket unit; StandardInput=socket with Accept=no takes the one listening
# socket, and fails the start with two; daemon-reexec keeps the running instances and their
# count; kill -9 of svd closes the sockets and ends the instances. The clients hold their
# connections until the test says go (a line on their stdin), so that nothing depends on timing. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

ECHO=$(find_helper listen-echo) || skip_all "the listen-echo helper is not built"

port_free() {
        _hex=$(printf ':%04X ' "$1")
        ! grep -q "$_hex" /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
PORT=$((20000 + ($$ + 7919) % 20000))
while ! port_free "$PORT"; do
        PORT=$((PORT + 1))
done
HAVE_INET=
[ -e /proc/net/tcp ] && [ -z "${SOCKET_TEST_NO_INET:-}" ] && HAVE_INET=1
if [ -n "$HAVE_INET" ]; then
        CONN_LISTEN=127.0.0.1:$PORT
        CONN_DIAL=tcp:127.0.0.1:$PORT
else
        CONN_LISTEN=$T/run/conn.sock
        CONN_DIAL=unix:$T/run/conn.sock
        diag "no IPv4 in this kernel: conn.socket listens on $CONN_LISTEN"
fi
UID_NOW=$(id -u)
PORT2=$((PORT + 1))
while ! port_free "$PORT2"; do
        PORT2=$((PORT2 + 1))
done

cat >"$UNITS/echo.socket" <<EOF
[Unit]
Description=echo, an instance per connection
[Socket]
ListenStream=$T/run/echo.sock
Accept=yes
[Install]
WantedBy=sockets.target
EOF
write_unit echo@ <<EOF
[Service]
ExecStart=$ECHO serve-stdio
StandardInput=socket
EOF
cat >"$UNITS/conn.socket" <<EOF
[Socket]
ListenStream=$CONN_LISTEN
Accept=yes
MaxConnections=1
[Install]
WantedBy=sockets.target
EOF
write_unit conn@ <<EOF
[Service]
ExecStart=$ECHO serve-conn
EOF
# A bare port: [::] taking IPv4 too (or 0.0.0.0 without IPv6); an IPv4 peer, seen as ::ffff:127.0.0.1
# on [::], is named in IPv4 form, as systemd names it.
if [ -n "$HAVE_INET" ]; then
        cat >"$UNITS/dual.socket" <<EOF
[Socket]
ListenStream=$PORT2
Accept=yes
[Install]
WantedBy=sockets.target
EOF
        write_unit dual@ <<EOF
[Service]
ExecStart=$ECHO serve-conn
EOF
fi
cat >"$UNITS/persource.socket" <<EOF
[Socket]
ListenStream=$T/run/persource.sock
Accept=yes
MaxConnectionsPerSource=1
EOF
write_unit persource@ <<EOF
[Service]
ExecStart=$ECHO serve-stdio
StandardInput=socket
EOF
cat >"$UNITS/dgram.socket" <<EOF
[Socket]
ListenStream=$T/run/dgram-stream.sock
Accept=yes
ListenDatagram=$T/run/dgram.sock
EOF
cat >"$UNITS/named.socket" <<EOF
[Socket]
ListenStream=$T/run/named.sock
Accept=yes
Service=echo.service
EOF
# An instance whose start fails (its program is not there).
cat >"$UNITS/broken.socket" <<EOF
[Socket]
ListenStream=$T/run/broken.sock
Accept=yes
EOF
write_unit broken@ <<EOF
[Service]
ExecStart=$T/no-such-program
StandardInput=socket
EOF
# Instances that never get a process: a required unit fails; a condition is not met.
cat >"$UNITS/needy.socket" <<EOF
[Socket]
ListenStream=$T/run/needy.sock
Accept=yes
EOF
write_unit needy@ <<EOF
[Unit]
Requires=fails.service
After=fails.service
[Service]
ExecStart=$ECHO serve-stdio
StandardInput=socket
EOF
write_unit fails <<EOF
[Service]
Type=oneshot
ExecStart=$SH -c 'exit 1'
EOF
cat >"$UNITS/picky.socket" <<EOF
[Socket]
ListenStream=$T/run/picky.sock
Accept=yes
EOF
write_unit picky@ <<EOF
[Unit]
ConditionPathExists=$T/not-there
[Service]
ExecStart=$ECHO serve-stdio
StandardInput=socket
EOF
cat >"$UNITS/orphan.socket" <<EOF
[Socket]
ListenStream=$T/run/orphan.sock
Accept=yes
EOF
# Accept=no with StandardInput=socket: one socket is stdin and stdout, two fail the start.
cat >"$UNITS/single.socket" <<EOF
[Socket]
ListenStream=$T/run/single.sock
EOF
write_unit single <<EOF
[Service]
ExecStart=$ECHO serve-stdio
StandardInput=socket
EOF
cat >"$UNITS/double.socket" <<EOF
[Socket]
ListenStream=$T/run/double-1.sock
ListenStream=$T/run/double-2.sock
EOF
write_unit double <<EOF
[Service]
ExecStart=$ECHO serve-stdio
StandardInput=socket
EOF

start_svd

socket_field() {
        svctl --json status "$1.socket" 2>/dev/null | _json_field "$2"
}
socket_field_is() {
        [ "$(socket_field "$1" "$2")" = "$3" ]
}
# instances NAME: the instances of NAME@.service in the table, one a line.
instances() {
        svctl list 2>/dev/null | awk -v p="$1@" 'index($1, p) == 1 && length($1) > length(p) { print $1 }'
}
n_instances_is() {
        [ "$(instances "$1" | grep -c .)" -eq "$2" ]
}
running_instances_are() {
        [ "$(svctl list 2>/dev/null | awk -v p="$1@" 'index($1, p) == 1 && length($1) > length(p) && $2 == "running"' |
                grep -c .)" -eq "$2" ]
}
# hold NAME ADDR MESSAGE: a client in the background that connects and waits for "go" on the fifo
# $T/NAME.go; its output in $T/NAME.out, its pid in HOLD_PID. Returns once it has connected.
hold() {
        rm -f "$T/$1.go" "$T/$1.out"
        mkfifo "$T/$1.go"
        "$ECHO" hold "$2" "$3" <"$T/$1.go" >"$T/$1.out" 2>&1 &
        HOLD_PID=$!
        # The fifo's writer: opened here (it blocks until the client opened its end), kept on an fd.
        eval "exec ${4:-7}>\"\$T/\$1.go\""
        wait_until 10 grep -q connected "$T/$1.out"
}
# release NAME FD: says go, waits for the client's answer (bounded); the answer in OUT.
release() {
        echo go >&"$2"
        eval "exec $2>&-"
        _pid=$3
        wait_until 20 pid_gone "$_pid" || kill "$_pid" 2>/dev/null
        wait "$_pid" 2>/dev/null
        OUT=$(sed 1d "$T/$1.out")
}

# Another test may take a port between port_free and svd's bind (ctest -j): then the socket unit
# failed, and takes the next free port.
rebind() { # NAME VAR: $VAR is its port
        _try=0
        while [ "$(socket_field "$1" state)" = failed ] && [ "$_try" -lt 20 ]; do
                eval "_p=\$$2"
                _p=$((_p + 2))
                while ! port_free "$_p"; do
                        _p=$((_p + 1))
                done
                diag "$1.socket: port $(eval "echo \$$2") was taken, taking $_p"
                sed -i "s/^ListenStream=\(.*\)$(eval "echo \$$2")\$/ListenStream=\1$_p/" "$UNITS/$1.socket"
                eval "$2=$_p"
                svctl daemon-reload >/dev/null 2>&1
                svctl start "$1.socket" >/dev/null 2>&1
                _try=$((_try + 1))
        done
}
if [ -n "$HAVE_INET" ]; then
        rebind conn PORT
        CONN_LISTEN=127.0.0.1:$PORT
        CONN_DIAL=tcp:127.0.0.1:$PORT
        rebind dual PORT2
fi

expect_eq "echo.socket (Accept=yes) listens once svd has started" listening "$(socket_field echo state)"
run svctl --json status echo.socket
expect_contains "... its status says Accept=yes" "$OUT" '"accept":true'
expect_contains "... and names the template" "$OUT" '"service":"echo@.service"'
expect_contains "... MaxConnections= is 64 by default" "$OUT" '"maxConnections":64'

# Load errors: file:line and why.
run svctl --json status dgram.socket
expect_contains "Accept=yes with a datagram socket does not load, with file:line" "$OUT" \
        "$UNITS/dgram.socket:4: Accept=yes (line 3) takes stream and sequential packet sockets only"
run svctl --json status named.socket
expect_contains "Accept=yes with Service= does not load, with file:line" "$OUT" \
        "$UNITS/named.socket:4: Service= cannot be used with Accept=yes (line 3)"

# Two connections at once: two instances, named after the counter and the peer's pid and uid.
hold a "unix:$T/run/echo.sock" "first" 7
A=$HOLD_PID
check "the first connection's instance runs" wait_until 10 running_instances_are echo 1
hold b "unix:$T/run/echo.sock" "second" 8
B=$HOLD_PID
check "a second connection at the same time has an instance of its own" wait_until 10 running_instances_are echo 2
run instances echo
expect_contains "... the first is echo@0-PID-UID (the client's pid and uid)" "$OUT" "echo@0-$A-$UID_NOW"
expect_contains "... the second echo@1-PID-UID" "$OUT" "echo@1-$B-$UID_NOW"
expect_eq "svctl status counts 2 connections" 2 "$(socket_field echo connections)"
expect_eq "... and 2 accepted" 2 "$(socket_field echo accepted)"
run svctl status echo.socket
expect_contains "... in its text too" "$OUT" "Accepted: 2"
expect_contains "... (connections)" "$OUT" "Connections: 2"
release b 8 "$B"
expect_eq "the second client is answered over the instance's stdin and stdout" second "$OUT"
release a 7 "$A"
expect_eq "... and the first, which waited" first "$OUT"
check "the instances are dropped once they have exited" wait_until 10 n_instances_is echo 0
check "... and the socket unit counts no connection" wait_until 10 socket_field_is echo connections 0
expect_eq "... while its accepted count stays" 2 "$(socket_field echo accepted)"

# Without StandardInput=socket: fd 3, LISTEN_FDS=1, LISTEN_FDNAMES=connection, $REMOTE_ADDR.
run timeout 20 "$ECHO" connect "$CONN_DIAL" hi
if [ -n "$HAVE_INET" ]; then
        expect_eq "an instance without StandardInput=socket gets the connection as fd 3, named 'connection', with \$REMOTE_ADDR" \
                "hi names=connection remote=127.0.0.1 stdin=null" "$OUT"
        check "... its name is conn@0-LOCAL-REMOTE, as systemd's" in_svd_log -q "conn@0-127.0.0.1:$PORT-127.0.0.1:[0-9]*.service"
else
        expect_eq "an instance without StandardInput=socket gets the connection as fd 3, named 'connection'" \
                "hi names=connection remote=(none) stdin=null" "$OUT"
        skip "the IP instance name needs IPv4"
fi

if [ -n "$HAVE_INET" ]; then
        run timeout 20 "$ECHO" connect "tcp:127.0.0.1:$PORT2" mapped
        expect_eq "a bare port: an IPv4 peer's \$REMOTE_ADDR is in IPv4 form" \
                "mapped names=connection remote=127.0.0.1 stdin=null" "$OUT"
        check "... and so is the instance name, dual@0-127.0.0.1:PORT-127.0.0.1:PORT" \
                in_svd_log -q "dual@0-127.0.0.1:$PORT2-127.0.0.1:[0-9]*.service"
else
        skip "a bare port's IPv4 peer: no IPv4 in this kernel"
        skip "a bare port's IPv4 peer: no IPv4 in this kernel"
fi

# MaxConnections=1: a second connection while the first is served is closed at once.
hold c "$CONN_DIAL" "held" 7
C=$HOLD_PID
check "MaxConnections=1: the first connection's instance runs" wait_until 10 running_instances_are conn 1
T_REFUSED=$(now_ms)
run timeout 20 "$ECHO" connect "$CONN_DIAL" refused
expect_eq "... a second connection at the same time is closed without an answer" "" "$OUT"
expect_rc "... at once (not left to time out)" 0
check "... svd says why" in_svd_log -q "conn.socket: Too many connections (1, MaxConnections=1)"
FLOOD=0
_i=0
while [ "$_i" -lt 25 ]; do
        [ -z "$(timeout 20 "$ECHO" connect "$CONN_DIAL" flood 2>/dev/null)" ] && FLOOD=$((FLOOD + 1))
        _i=$((_i + 1))
done
expect_eq "... 25 more connections meanwhile are all closed without an answer" 25 "$FLOOD"
# At most 10 warnings per 10 s: 26 refusals within one window give 10, within two at most 20. On a
# machine so slow (an emulator) that they span more windows, the bound would not tell anything.
_ms=$(($(now_ms) - T_REFUSED))
_windows=$((_ms / 10000 + 1))
if [ "$_windows" -le 2 ]; then
        check "... and svd's warnings about them are rate-limited (at most 10 per 10 s; $_windows window(s) in $_ms ms)" \
                test "$(in_svd_log -c "conn.socket: Too many connections")" -le $((_windows * 10))
else
        skip "the rate limit of the warnings: the 26 refusals took $_ms ms, more than two windows of 10 s"
fi
release c 7 "$C"
expect_contains "... the first connection is still served" "$OUT" "held names=connection"
check "... and its instance goes" wait_until 10 n_instances_is conn 0
run timeout 20 "$ECHO" connect "$CONN_DIAL" again
expect_contains "once it is gone, the next connection is served" "$OUT" "again names=connection"

# MaxConnectionsPerSource=1: a second connection of the same uid is closed.
run svctl start persource.socket
expect_rc "svctl start persource.socket" 0
hold d "unix:$T/run/persource.sock" "one" 7
D=$HOLD_PID
check "MaxConnectionsPerSource=1: the first connection's instance runs" wait_until 10 running_instances_are persource 1
run timeout 20 "$ECHO" connect "unix:$T/run/persource.sock" two
expect_eq "... a second one from the same uid is closed without an answer" "" "$OUT"
check "... svd says why" in_svd_log -q "persource.socket: Too many connections from uid:$UID_NOW"
release d 7 "$D"
expect_eq "... the first is served" one "$OUT"

# An instance that fails to start: its connection closes, the failure is logged, the instance goes,
# and the socket unit listens on.
run svctl start broken.socket
expect_rc "svctl start broken.socket (its template's program is missing)" 0
run timeout 20 "$ECHO" connect "unix:$T/run/broken.sock" lost
expect_eq "an instance whose start fails: its connection is closed without an answer" "" "$OUT"
expect_rc "... at once (not left to time out)" 0
check "... svd logs the failure" in_svd_log -q "broken@0-[0-9]*-$UID_NOW: connection instance failed"
check "... and drops the instance" wait_until 10 n_instances_is broken 0
check "... which the socket unit no longer counts" wait_until 10 socket_field_is broken connections 0
expect_eq "... while it listens on" listening "$(socket_field broken state)"

# Instances whose start ends without a process: no state change of theirs tells it, their start job does.
for _u in needy picky; do
        svctl start "$_u.socket" >/dev/null 2>&1
        run timeout 20 "$ECHO" connect "unix:$T/run/$_u.sock" nothing
        expect_eq "$_u@: an instance that got no process (a required unit failed / a condition not met): its connection is closed" "" "$OUT"
        expect_rc "... at once" 0
        check "... and the instance goes" wait_until 10 n_instances_is "$_u" 0
        check "... which the socket unit no longer counts" wait_until 10 socket_field_is "$_u" connections 0
done

# A template that does not exist: the socket unit fails, saying so.
run svctl start orphan.socket
expect_rc "svctl start orphan.socket (no orphan@.service)" 0
run timeout 20 "$ECHO" connect "unix:$T/run/orphan.sock" nobody
expect_eq "a connection without a template to start is closed" "" "$OUT"
check "... and the socket unit fails" wait_until 10 socket_field_is orphan state failed
expect_contains "... saying why" "$(socket_field orphan lastError)" "orphan@.service"

# Accept=no and StandardInput=socket: the one listening socket is stdin and stdout.
run svctl start single.socket
expect_rc "svctl start single.socket (Accept=no, one socket)" 0
run timeout 20 "$ECHO" connect "unix:$T/run/single.sock" inetd
expect_eq "StandardInput=socket with Accept=no: the service accepts on its stdin" inetd "$OUT"
run svctl start double.socket
expect_rc "svctl start double.socket (Accept=no, two sockets)" 0
run svctl start double
expect_ne "StandardInput=socket with two sockets fails the start" 0 "$RC"
expect_contains "... saying why" "$ERR$OUT" "exactly one socket (2 here)"

# Re-exec: the instance that runs stays, with the counts.
ACCEPTED=$(socket_field echo accepted)
hold e "unix:$T/run/echo.sock" "across" 7
E=$HOLD_PID
check "an instance runs before the re-exec" wait_until 10 running_instances_are echo 1
INSTANCE=$(instances echo)
run svctl daemon-reexec
expect_rc "svctl daemon-reexec" 0
expect_eq "the instance is still there after the re-exec" "$INSTANCE" "$(instances echo)"
expect_eq "... the socket unit still counts its connection" 1 "$(socket_field echo connections)"
expect_eq "... and the accepted ones" $((ACCEPTED + 1)) "$(socket_field echo accepted)"
release e 7 "$E"
expect_eq "... the client is answered by it" across "$OUT"
check "... which is dropped once it has exited" wait_until 10 n_instances_is echo 0
check "... and the count follows" wait_until 10 socket_field_is echo connections 0
run timeout 20 "$ECHO" connect "unix:$T/run/echo.sock" after
expect_eq "the listening socket came through the re-exec" after "$OUT"
check "... that instance is named after the counter carried over" in_svd_log -q "echo@$((ACCEPTED + 1))-[0-9]*-$UID_NOW"

# kill -9 of svd: the sockets close, the instances end.
hold f "unix:$T/run/echo.sock" "orphaned" 7
F=$HOLD_PID
check "an instance runs before svd is killed" wait_until 10 running_instances_are echo 1
IPID=$(svc_pid "$(instances echo)")
kill -KILL "$SVD_PID"
wait_until 10 svd_exited
wait "$SVD_JOB" 2>/dev/null
run timeout 20 "$ECHO" connect "$CONN_DIAL" dead
expect_rc "kill -9 of svd closes the listening sockets" 2
check "... and the instance ends" wait_until 20 pid_gone "$IPID"
release f 7 "$F"
expect_eq "... its client sees the connection end without an answer" "" "$OUT"
start_svd
run timeout 20 "$ECHO" connect "unix:$T/run/echo.sock" back
expect_eq "the next svd accepts again" back "$OUT"

stop_svd
expect_eq "svd exits cleanly" 0 "$SVD_RC"

# accept() at EMFILE: svd, its fds all taken by idle clients of its control socket, cannot accept
# the connection; it stops watching the socket for a while instead of spinning, and serves the
# connection once the fds are back.
HOSTILE=$(find_helper hostile)
if [ -z "$HOSTILE" ]; then
        skip "accept() at EMFILE: the hostile helper is not built"
        done_testing
fi
NOFILE=64
low_nofile_wrapper "$NOFILE"
start_svd
"$HOSTILE" "$SOCK" idle "$NOFILE" 3000 >"$T/idle.out" 2>&1 &
IDLE=$!
check "idle clients of the control socket take every fd svd has" wait_until 20 grep -q '^open=' "$T/idle.out"
cpu_ticks() {
        awk '{ print $14 + $15 }' "/proc/$SVD_PID/stat"
}
T0=$(now_ms)
C0=$(cpu_ticks)
"$ECHO" connect "unix:$T/run/echo.sock" starved >"$T/starved.out" 2>&1 &
STARVED=$!
check "accept() fails for want of fds: svd says so and pauses" \
        wait_until 10 in_svd_log -q "echo.socket: Failed to accept a connection: Too many open files; not accepting for"
wait "$IDLE"
check "once the idle clients left, the waiting connection is served" wait_until 20 pid_gone "$STARVED"
wait "$STARVED"
expect_eq "... by an instance" starved "$(cat "$T/starved.out")"
C1=$(cpu_ticks)
T1=$(now_ms)
diag "svd used $((C1 - C0)) CPU ticks in $((T1 - T0)) ms"
# Each failed accept() is logged: spinning would log thousands; the back-off (10 ms doubled up to
# 1 s) tries at most about a dozen times in the few seconds the fds are taken.
FAILS=$(in_svd_log -c "echo.socket: Failed to accept a connection")
diag "accept() failed $FAILS times"
check "... and svd did not spin on it meanwhile (at most 20 tries, not one per turn of the loop)" \
        test "$FAILS" -le 20
stop_svd
expect_eq "svd exits cleanly" 0 "$SVD_RC"

done_testing
