#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Socket units as systemctl handles them beyond activation itself: `svctl enable NAME.socket` links
# it into sockets.target.wants/ (where systemctl links WantedBy=sockets.target), the next svd binds
# it; `svctl disable` removes the link (and holds back one whose own file wants it); is-enabled and
# list-unit-files show socket units; Also=NAME.socket of a service enables the socket with it.
# A service's Requires=, Wants= and After= of a socket unit: starting the service binds the socket
# first; a required socket that fails fails the start with its reason. A socket unit's
# ExecStartPre= runs before the bind, ExecStartPost= after, ExecStopPre= before the close and
# ExecStopPost= after it, with its User=; a failing one fails the start with its exit status;
# TimeoutSec= bounds them; After= waits for them. The socket options are on the sockets the service
# gets (read back with getsockopt(2)); Symlinks= point to the socket file; FlushPending= drops what
# the service left queued. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

ECHO=$(find_helper listen-echo) || skip_all "the listen-echo helper is not built"
DUMP=$(find_helper sockopt-dump) || skip_all "the sockopt-dump helper is not built"

socket_state() {
        svctl --json status "$1.socket" 2>/dev/null | _json_field state
}
state_of_socket_is() {
        [ "$(socket_state "$1")" = "$2" ]
}

write_unit echo <<EOF
[Service]
ExecStart=$ECHO serve
[Install]
Also=en.socket
EOF
# Not bound at start-up unless enabled.
cat >"$UNITS/en.socket" <<EOF
[Socket]
ListenStream=$T/run/en.sock
Service=echo.service
[Install]
WantedBy=sockets.target
EOF
# Its own file wants it: bound unless held back.
cat >"$UNITS/own.socket" <<EOF
[Socket]
ListenStream=$T/run/own.sock
Service=echo.service
[Install]
WantedBy=sockets.target
EOF
cat >"$UNITS/static.socket" <<EOF
[Socket]
ListenStream=$T/run/static.sock
Service=echo.service
EOF
cat >"$UNITS/elsewhere.socket" <<EOF
[Socket]
ListenStream=$T/run/elsewhere.sock
Service=echo.service
[Install]
WantedBy=graphical.target
EOF

# ---- dependencies ----
write_unit needs <<EOF
[Unit]
Requires=need.socket
After=need.socket
[Service]
ExecStart=$ECHO serve
EOF
cat >"$UNITS/need.socket" <<EOF
[Socket]
ListenStream=$T/run/need.sock
Service=needs.service
EOF
write_unit wantsgone <<EOF
[Unit]
Wants=gone.socket
[Service]
ExecStart=$SLEEP 1000
EOF
write_unit reqgone <<EOF
[Unit]
Requires=gone.socket
[Service]
ExecStart=$SLEEP 1000
EOF
cat >"$UNITS/holder.socket" <<EOF
[Socket]
ListenStream=@svd-test-holder-$$
Service=echo.service
[Install]
WantedBy=sockets.target
EOF
cat >"$UNITS/taken.socket" <<EOF
[Socket]
ListenStream=@svd-test-holder-$$
Service=reqtaken.service
EOF
write_unit reqtaken <<EOF
[Unit]
Requires=taken.socket
After=taken.socket
[Service]
ExecStart=$SLEEP 1000
EOF

# ---- commands ----
LOG=$T/cmd.log
cat >"$UNITS/cmd.socket" <<EOF
[Socket]
ListenStream=$T/run/cmd.sock
Service=echo.service
RemoveOnStop=yes
ExecStartPre=$SH -c 'test -e $T/run/cmd.sock && echo pre-bound >>$LOG || echo pre-unbound >>$LOG'
ExecStartPost=$SH -c 'test -S $T/run/cmd.sock && echo post-bound >>$LOG'
ExecStopPre=$SH -c 'test -S $T/run/cmd.sock && echo stoppre-open >>$LOG'
ExecStopPost=$SH -c 'test -e $T/run/cmd.sock && echo stoppost-open >>$LOG || echo stoppost-closed >>$LOG'
EOF
cat >"$UNITS/failpre.socket" <<EOF
[Socket]
ListenStream=$T/run/failpre.sock
Service=echo.service
ExecStartPre=-$SH -c 'exit 4'
ExecStartPre=$SH -c 'exit 3'
ExecStopPost=$SH -c 'echo failpre-stoppost >>$LOG'
EOF
cat >"$UNITS/slowpre.socket" <<EOF
[Socket]
ListenStream=$T/run/slowpre.sock
Service=echo.service
TimeoutSec=1
ExecStartPre=$SLEEP 100
EOF
cat >"$UNITS/asuser.socket" <<EOF
[Socket]
ListenStream=$T/run/asuser.sock
Service=echo.service
User=nobody
ExecStartPre=$SH -c 'test "\$(id -u)" = "$(id -u nobody)"'
ExecStartPost=+$SH -c 'test "\$(id -u)" = 0'
EOF
cat >"$UNITS/slow.socket" <<EOF
[Socket]
ListenStream=$T/run/slow.sock
Service=ordered.service
ExecStartPre=$SLEEP 1
EOF
write_unit ordered <<EOF
[Unit]
Requires=slow.socket
After=slow.socket
[Service]
ExecStart=$SH -c 'test -S $T/run/slow.sock && test -n "\$LISTEN_FDS" && exec $SLEEP 1000'
EOF
write_unit reqfailpre <<EOF
[Unit]
Requires=failpre.socket
After=failpre.socket
[Service]
ExecStart=$SLEEP 1000
EOF

# ---- socket options ----
cat >"$UNITS/opts.socket" <<EOF
[Socket]
ListenStream=$T/run/opts.sock
Service=dump.service
Priority=6
ReceiveBuffer=256K
SendBuffer=128K
Mark=7
PassCredentials=yes
Timestamping=ns
Symlinks=$T/run/opts-link.sock
RemoveOnStop=yes
EOF
write_unit dump <<EOF
[Service]
ExecStart=$DUMP
EOF
if [ -e /proc/net/tcp ]; then
        PORT=$((20000 + $$ % 20000))
        while grep -q "$(printf ':%04X ' "$PORT")" /proc/net/tcp /proc/net/tcp6 2>/dev/null; do
                PORT=$((PORT + 1))
        done
        cat >"$UNITS/tcpopts.socket" <<EOF
[Socket]
ListenStream=127.0.0.1:$PORT
Service=tcpdump.service
KeepAlive=yes
KeepAliveTimeSec=1min
KeepAliveIntervalSec=10s
KeepAliveProbes=5
NoDelay=yes
DeferAcceptSec=1s
IPTOS=low-delay
IPTTL=42
EOF
        write_unit tcpdump <<EOF
[Service]
ExecStart=$DUMP
EOF
fi
cat >"$UNITS/flush.socket" <<EOF
[Socket]
ListenStream=$T/run/flush.sock
Service=flushsvc.service
FlushPending=yes
EOF
# Takes nothing from its socket: exits at once, leaving what is queued.
write_unit flushsvc <<EOF
[Service]
Type=oneshot
ExecStart=$SH -c 'echo ran >>$T/flush.log'
EOF

restart_svd() {
        stop_svd
        start_svd
}

# ---- enabling ----
# en.socket's own WantedBy= would bind it: held back by a link to /dev/null, as after a disable.
mkdir -p "$UNITS/sockets.target.wants"
ln -s /dev/null "$UNITS/sockets.target.wants/en.socket"
start_svd

run svctl is-enabled en.socket
expect_eq "svctl is-enabled of a socket unit held back" disabled "$OUT"
expect_rc "... exits 1" 1
expect_eq "... it is not bound at start-up" inactive "$(socket_state en)"
run svctl is-enabled own.socket
expect_eq "a socket unit whose own file says WantedBy=sockets.target is enabled" enabled "$OUT"
expect_eq "... and bound at start-up" listening "$(socket_state own)"
run svctl is-enabled static.socket
expect_eq "one without [Install] is static" static "$OUT"
run svctl is-enabled nosuch.socket
expect_rc "is-enabled of no such socket unit exits 4" 4

run svctl enable en.socket
expect_rc "svctl enable en.socket" 0
expect_contains "... creates the link systemctl creates" "$ERR" \
        "Created symlink $UNITS/sockets.target.wants/en.socket"
expect_eq "... to its file" "../en.socket" "$(readlink "$UNITS/sockets.target.wants/en.socket")"
run svctl is-enabled en.socket
expect_eq "... it is enabled" enabled "$OUT"
expect_eq "... and not bound yet (enable is about the next start)" inactive "$(socket_state en)"

run svctl disable own.socket
expect_rc "svctl disable own.socket" 0
expect_eq "... holds it back with a link to /dev/null" /dev/null \
        "$(readlink "$UNITS/sockets.target.wants/own.socket")"
expect_eq "... it is disabled" disabled "$(svctl is-enabled own.socket 2>/dev/null)"
expect_eq "... and still listens until svd stops" listening "$(socket_state own)"

run svctl enable elsewhere.socket
expect_ne "enabling a socket unit for a target svd does not start is refused" 0 "$RC"
expect_contains "... saying why" "$ERR" "names no target svd starts"

run svctl list-unit-files
expect_contains "list-unit-files shows the socket units" "$(echo "$OUT" | grep '^en.socket')" enabled
expect_contains "... each with its state" "$(echo "$OUT" | grep '^own.socket')" disabled
expect_contains "... a static one too" "$(echo "$OUT" | grep '^static.socket')" static
expect_contains "... beside the services" "$OUT" "echo.service"
run svctl list-unit-files '*.socket'
expect_not_contains "... and a pattern selects them" "$OUT" "echo.service"

restart_svd
expect_eq "after a clean restart, the enabled socket unit is bound" listening "$(socket_state en)"
expect_eq "... and the one disabled is not" inactive "$(socket_state own)"
run "$ECHO" connect "unix:$T/run/en.sock" enabled
expect_eq "... the enabled one activates its service" enabled "$OUT"
svctl stop echo >/dev/null 2>&1

run svctl disable echo
expect_rc "disabling a service with Also=en.socket" 0
expect_contains "... removes the socket unit's link too" "$ERR" "Removed \"$UNITS/sockets.target.wants/en.socket\""
expect_eq "... which is disabled" disabled "$(svctl is-enabled en.socket 2>/dev/null)"
run svctl enable echo
expect_rc "enabling the service" 0
expect_eq "... enables the socket unit of its Also=" enabled "$(svctl is-enabled en.socket 2>/dev/null)"

# Enabling meets the wanted state: disabled while it listens, kept listening across a crash.
svctl disable en.socket >/dev/null 2>&1
kill -KILL "$SVD_PID"
wait_until 10 svd_exited
wait "$SVD_JOB" 2>/dev/null
start_svd
expect_eq "a socket unit disabled while it listened listens again after a crash" listening "$(socket_state en)"
restart_svd
expect_eq "... and not after a clean restart" inactive "$(socket_state en)"

expect_eq "need.socket is not bound at start-up" inactive "$(socket_state need)"
run svctl start needs
expect_rc "svctl start needs (Requires=need.socket, After=need.socket)" 0
expect_eq "... binds need.socket first" running "$(socket_state need)"
run "$ECHO" connect "unix:$T/run/need.sock" needed
expect_eq "... and the service got its socket" needed "$OUT"
run svctl logs needs
expect_contains "... as fd 3, named after it" "$OUT" "listen-echo: pid $(svc_pid needs) fds 1 names need.socket"
run svctl show needs
expect_contains "svctl show names the socket unit in Requires=" "$OUT" "Requires=need.socket"
svctl stop needs >/dev/null 2>&1
check "the service stopped, the socket unit it started listens" wait_until 10 state_of_socket_is need listening

run svctl start wantsgone
expect_rc "Wants= of a socket unit that does not exist: the service starts all the same" 0
expect_eq "... it runs" running "$(svc_state wantsgone)"
run svctl start reqgone
expect_ne "Requires= of a socket unit that does not exist fails the start" 0 "$RC"
expect_contains "... naming it" "$ERR" "gone.socket"
expect_contains "... and why" "$ERR" "no such unit"

expect_eq "holder.socket listens on the abstract name" listening "$(socket_state holder)"
run svctl start reqtaken
expect_ne "Requires= of a socket unit that cannot bind fails the start" 0 "$RC"
expect_contains "... with the socket unit's reason" "$ERR" "Address already in use"
expect_contains "... naming it" "$ERR" "taken.socket"
expect_eq "... the service did not start" inactive "$(svc_state reqtaken)"
expect_eq "... and the socket unit is failed" failed "$(socket_state taken)"

# ---- commands ----
run svctl start cmd.socket
expect_rc "svctl start cmd.socket (ExecStartPre=, ExecStartPost=)" 0
expect_eq "... it listens once its commands have run" listening "$(socket_state cmd)"
expect_eq "... ExecStartPre= ran before the bind, ExecStartPost= after" "pre-unbound post-bound" \
        "$(tr '\n' ' ' <"$LOG" | sed 's/ $//')"
run svctl stop cmd.socket
expect_rc "svctl stop cmd.socket" 0
expect_eq "... ExecStopPre= ran while it was open, ExecStopPost= once closed" \
        "pre-unbound post-bound stoppre-open stoppost-closed" "$(tr '\n' ' ' <"$LOG" | sed 's/ $//')"
expect_eq "... it is inactive" inactive "$(socket_state cmd)"
: >"$LOG"

run svctl start failpre.socket
expect_ne "a failing ExecStartPre= fails the start" 0 "$RC"
expect_contains "... with its exit status" "$ERR" "ExecStartPre= '$SH' exited with status 3"
expect_eq "... the socket unit is failed" failed "$(socket_state failpre)"
check "... nothing was bound" test ! -e "$T/run/failpre.sock"
expect_eq "... its ExecStopPost= ran (a '-' command's failure was ignored)" failpre-stoppost "$(cat "$LOG")"

run svctl start reqfailpre
expect_ne "Requires= and After= of a socket unit whose ExecStartPre= fails: the start fails" 0 "$RC"
expect_contains "... with the socket unit's reason" "$ERR" "exited with status 3"
expect_eq "... and the service did not start" inactive "$(svc_state reqfailpre)"

START=$(now_ms)
run svctl start slowpre.socket
expect_ne "an ExecStartPre= longer than TimeoutSec= fails the start" 0 "$RC"
expect_contains "... saying so" "$ERR" "did not finish within TimeoutSec="
END=$(now_ms)
check "... after about TimeoutSec=1 ($((END - START)) ms)" test $((END - START)) -lt 10000

run svctl start asuser.socket
expect_rc "the commands run as User= ('+': as root)" 0
expect_eq "... and it listens" listening "$(socket_state asuser)"

run svctl start ordered
expect_rc "a service After= a socket unit whose ExecStartPre= takes 1 s starts once it listens" 0
expect_eq "... it runs (it exits unless the socket is bound and passed)" running "$(svc_state ordered)"
expect_eq "... and the socket unit's start is done" running "$(socket_state slow)"

# ---- socket options ----
dump_line() { # dump_line SERVICE: the helper's line for fd 3
        svctl logs "$1" 2>/dev/null | grep -o 'sockopt-dump: fd 3 .*'
}
has_dump() {
        [ -n "$(dump_line "$1")" ]
}
run svctl start opts.socket
expect_rc "svctl start opts.socket (socket options)" 0
svctl start dump >/dev/null 2>&1
check "... its service reads the options of the socket it got" wait_until 10 has_dump dump
LINE="$(dump_line dump) "
expect_contains "Priority=6 is SO_PRIORITY" "$LINE" " priority=6 "
expect_contains "ReceiveBuffer=256K is SO_RCVBUF (the kernel doubles it)" "$LINE" " rcvbuf=524288 "
expect_contains "SendBuffer=128K is SO_SNDBUF" "$LINE" " sndbuf=262144 "
expect_contains "Mark=7 is SO_MARK" "$LINE" " mark=7 "
expect_contains "PassCredentials=yes is SO_PASSCRED" "$LINE" " passcred=1 "
expect_contains "Timestamping=ns is SO_TIMESTAMPNS" "$LINE" " timestampns=1 "
expect_contains "... and not SO_TIMESTAMP" "$LINE" " timestamp=0 "
expect_eq "Symlinks= points to the socket file" "$T/run/opts.sock" "$(readlink "$T/run/opts-link.sock")"
svctl stop dump >/dev/null 2>&1
svctl stop opts.socket >/dev/null 2>&1
check "... and goes with it (RemoveOnStop=)" test ! -L "$T/run/opts-link.sock"

if [ -e /proc/net/tcp ]; then
        svctl start tcpopts.socket >/dev/null 2>&1
        svctl start tcpdump >/dev/null 2>&1
        check "a TCP socket unit's service reads its options" wait_until 10 has_dump tcpdump
        LINE="$(dump_line tcpdump) "
        expect_contains "KeepAlive=yes is SO_KEEPALIVE" "$LINE" " keepalive=1 "
        expect_contains "KeepAliveTimeSec=1min is TCP_KEEPIDLE 60" "$LINE" " keepidle=60 "
        expect_contains "KeepAliveIntervalSec=10s is TCP_KEEPINTVL 10" "$LINE" " keepintvl=10 "
        expect_contains "KeepAliveProbes=5 is TCP_KEEPCNT 5" "$LINE" " keepcnt=5 "
        expect_contains "NoDelay=yes is TCP_NODELAY" "$LINE" " nodelay=1 "
        expect_not_contains "DeferAcceptSec=1s is TCP_DEFER_ACCEPT" "$LINE" " deferaccept=0 "
        expect_contains "IPTOS=low-delay is IP_TOS 0x10" "$LINE" " tos=16 "
        expect_contains "IPTTL=42 is IP_TTL" "$LINE" " ttl=42 "
        svctl stop tcpdump >/dev/null 2>&1
else
        skip "the TCP socket options" "no IPv4 in this kernel"
fi

svctl start flush.socket >/dev/null 2>&1
"$ECHO" connect "unix:$T/run/flush.sock" queued >/dev/null 2>&1 &
CLIENT=$!
check "a connection starts the service, which leaves it queued" wait_until 10 test -s "$T/flush.log"
check "FlushPending=: once the service has stopped, the queued connection is dropped (its client ends)" \
        wait_until 10 pid_dead "$CLIENT"
check "... and svd watches the socket again" wait_until 10 state_of_socket_is flush listening
expect_eq "... the connection started the service once (it was not left to start it again)" 1 \
        "$(svctl --json status flush.socket 2>/dev/null | _json_field triggers)"

stop_svd
expect_eq "svd exits cleanly" 0 "$SVD_RC"

done_testing
