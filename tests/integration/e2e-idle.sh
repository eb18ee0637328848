#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Type=idle end to end: the command starts only once the other starts under
# way have been dispatched, and at the latest after 5 s when one never ends;
# otherwise it is Type=simple. The job that holds it up is a Type=oneshot
# start that waits on a FIFO the test writes. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

mkfifo "$T/hold.fifo" || bail_out "mkfifo failed"
write_unit hold <<EOF2
[Service]
Type=oneshot
ExecStart=$SH -c 'read x <$T/hold.fifo'
TimeoutStartSec=60
EOF2
write_unit stuck <<EOF2
[Service]
Type=oneshot
ExecStart=$SLEEP 10000
TimeoutStartSec=120
EOF2
write_unit idler <<EOF2
[Service]
Type=idle
ExecStart=$SLEEP 10001
EOF2

not_running() {
        [ "$(svc_state "$1")" != running ]
}

start_svd

run svctl start idler
expect_rc "with no other job, Type=idle starts at once" 0
expect_eq "running" running "$(svc_state idler)"
P=$(svc_pid idler)
track_pid "$P"
run svctl stop idler
expect_rc "stop idler" 0

bg_start hold
check "hold's start is under way" wait_until 10 state_is hold starting
bg_start idler
check "idler waits while hold's start is under way" stays_for 2 not_running idler
check "hold takes its line" poke "$T/hold.fifo"
check "hold's start completes" wait_until 10 start_returned hold
check "then idler's start completes" wait_until 10 start_returned idler
expect_eq "idler's start succeeded" 0 "$(cat "$T/idler.rc")"
expect_eq "idler is running" running "$(svc_state idler)"
track_pid "$(svc_pid idler)"
run svctl stop idler
expect_rc "stop idler again" 0

bg_start stuck
check "stuck's start is under way" wait_until 10 state_is stuck starting
track_pid "$(svc_pid stuck)"
bg_start idler
check "with a start that does not end, idler still starts (after at most 5 s)" wait_until 20 start_returned idler
expect_eq "idler's start succeeded" 0 "$(cat "$T/idler.rc")"
expect_eq "stuck is still starting meanwhile" starting "$(svc_state stuck)"
track_pid "$(svc_pid idler)"

done_testing
