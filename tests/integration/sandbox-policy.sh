#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A sandboxing key svd does not enforce is never dropped silently: the unit
# that sets it fails to load, naming the key, and the other units are not
# affected; a value that asks for nothing ("no") is fine; with
# `svd --allow-unsandboxed` the unit loads and `svctl status` names what is
# not applied. Needs no root. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

write_unit clock <<EOF2
[Service]
ExecStart=$SLEEP 10000
SocketBindDeny=any
RestrictFileSystems=ext4
EOF2
write_unit clock-off <<EOF2
[Service]
ExecStart=$SLEEP 10000
MemoryKSM=no
SocketBindDeny=any
SocketBindDeny=
EOF2
write_unit plain <<EOF2
[Service]
ExecStart=$SLEEP 10000
EOF2

start_svd
run svctl status clock
expect_contains "the unit with an unenforced sandboxing key failed to load" "$OUT" "Loaded: error ("
expect_contains "the load error names the key" "$OUT" "SocketBindDeny="
expect_contains "the load error names every such key" "$OUT" "RestrictFileSystems="
expect_contains "the load error has file and line" "$OUT" "clock.service:3:"
run svctl start clock
expect_rc "starting it fails" 1
run svctl start plain
expect_rc "a unit without sandboxing keys starts" 0
run svctl start clock-off
expect_rc "a sandboxing key set to 'no' (or reset) asks for nothing: the unit starts" 0
check "svd warned about nothing for clock-off" sh -c "! grep -q 'clock-off.*[Ss]andbox' '$SVD_LOG'"
stop_svd

start_svd --allow-unsandboxed
run svctl start clock
expect_rc "with --allow-unsandboxed the unit starts" 0
run svctl status clock
expect_contains "svctl status shows the keys not applied" "$OUT" "Not applied: SocketBindDeny= RestrictFileSystems="
check "svd warned about the unit" grep -q "clock.service:3: Sandboxing not enforced by svd: SocketBindDeny= RestrictFileSystems=" "$SVD_LOG"
run svctl --json status clock
expect_contains "the JSON status lists them" "$OUT" '"sandboxNotApplied"'
run svctl status plain
expect_not_contains "a plain unit shows nothing of it" "$OUT" "Not applied"
stop_svd

done_testing
