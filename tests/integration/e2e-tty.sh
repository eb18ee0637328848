#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# StandardInput=tty, tty-fail, tty-force, TTYPath= and StandardOutput=tty end
# to end, on a pseudo-terminal the ptyhold helper holds (it records what the
# services write to it): the terminal becomes the service's controlling
# terminal and its stdin and stdout; a second service cannot take it while the
# first has it (tty-fail, and svd's tty, which does not wait), tty-force takes it
# away (as root); output only, the terminal is no controlling terminal; a
# missing TTYPath= fails the start. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

PH=$(find_helper ptyhold) || true
[ -n "$PH" ] || skip_all "the ptyhold helper is not built"
[ -c /dev/ptmx ] || skip_all "no /dev/ptmx"

"$PH" "$T/tty.path" "$T/tty.out" &
PH_PID=$!
track_pid "$PH_PID"
wait_until 10 test -s "$T/tty.path" || skip_all "no pseudo-terminal could be made"
TTY=$(cat "$T/tty.path")

# tty_nr PID: field 7 of /proc/PID/stat, the controlling terminal (0: none).
tty_nr() {
        _l=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
        echo "${_l##*) }" | awk '{ print $5 }'
}

# written TEXT: the terminal got TEXT.
written() {
        grep -q "$1" "$T/tty.out" 2>/dev/null
}

for name in first second steal; do
        case $name in
        first | second) input=tty-fail ;;
        steal) input=tty-force ;;
        esac
        write_unit "$name" <<EOF2
[Service]
StandardInput=$input
TTYPath=$TTY
StandardOutput=tty
ExecStart=$SH -c 'echo "$name: stdin=\$\$(tty)"; [ -t 1 ] && echo "$name: stdout is a terminal"; exec $SLEEP 10000'
EOF2
done
write_unit plain-tty <<EOF2
[Service]
StandardInput=tty
TTYPath=$TTY
StandardOutput=tty
ExecStart=$SLEEP 10001
EOF2
write_unit outonly <<EOF2
[Service]
TTYPath=$TTY
StandardOutput=tty
ExecStart=$SH -c 'echo "outonly: hello"; exec $SLEEP 10002'
EOF2
write_unit missing <<EOF2
[Service]
StandardInput=tty-fail
TTYPath=$T/no-such-tty
ExecStart=$SLEEP 10003
EOF2

start_svd

run svctl start first
expect_rc "StandardInput=tty-fail on a free terminal starts" 0
P=$(svc_pid first)
track_pid "$P"
check "its stdin is the terminal" wait_until 10 written "first: stdin=$TTY"
check "its stdout is the terminal (StandardOutput=tty)" wait_until 10 written "first: stdout is a terminal"
expect_ne "the terminal is its controlling terminal" 0 "$(tty_nr "$P")"

run svctl start second
expect_rc "tty-fail on a terminal another service has: the start fails" 1
expect_contains "... at stdin, EPERM" "$ERR" "failed at stdin: Operation not permitted"
run svctl start plain-tty
expect_rc "tty (svd does not wait for the terminal): fails the same" 1

if [ "$(id -u)" = 0 ]; then
        run svctl start steal
        expect_rc "tty-force takes the terminal away" 0
        P2=$(svc_pid steal)
        track_pid "$P2"
        check "... and writes to it" wait_until 10 written "steal: stdin=$TTY"
        expect_eq "the first service lost it" 0 "$(tty_nr "$P")"
        expect_ne "the second has it" 0 "$(tty_nr "$P2")"
        run svctl stop steal
else
        skip "tty-force" "taking a terminal away needs CAP_SYS_ADMIN"
fi
run svctl stop first

run svctl start outonly
expect_rc "StandardOutput=tty with StandardInput=null starts" 0
P=$(svc_pid outonly)
track_pid "$P"
check "its output reaches the terminal" wait_until 10 written "outonly: hello"
expect_eq "... which is not its controlling terminal" 0 "$(tty_nr "$P")"
run svctl stop outonly

run svctl start missing
expect_rc "a missing TTYPath= fails the start" 1
expect_contains "... at stdin, ENOENT" "$ERR" "failed at stdin: No such file or directory"

stop_svd
kill -TERM "$PH_PID"
wait "$PH_PID" 2>/dev/null
done_testing
