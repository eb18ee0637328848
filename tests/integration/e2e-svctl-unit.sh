#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# svctl's systemctl-like verbs and exit codes: status (0 active, a oneshot's
# "exited" included; 3 not active; 4 no such unit), is-active (0/3),
# is-failed (0/1), cat (the file after "# PATH"), show (systemd's property
# names, -p, --value). TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

write_unit long <<EOF
[Unit]
Description=a long-running service
Documentation=man:svd(8) https://example.org/svd
[Service]
ExecStart=$SLEEP 1000
EOF

write_unit once <<EOF
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=$SH -c 'exit 0'
EOF

write_unit once-gone <<EOF
[Service]
Type=oneshot
ExecStart=$SH -c 'exit 0'
EOF

write_unit fails <<EOF
[Service]
ExecStart=$SH -c 'exit 3'
EOF

write_unit idle <<EOF
[Service]
ExecStart=$SLEEP 1000
EOF

write_unit partial <<EOF
[Unit]
After=network.target
[Service]
ExecStart=$SLEEP 1000
Nice=5
IOSchedulingClass=idle
[Install]
WantedBy=graphical.target
EOF

start_svd

# ---- status ----

run svctl start long once once-gone
expect_rc "start of a service and two oneshots exits 0" 0
run svctl status long
expect_rc "status of a running service exits 0" 0
expect_contains "status shows Docs:, the first URI on its line" "$OUT" "Docs: man:svd(8)"
expect_contains "... the next one below it" "$OUT" "             https://example.org/svd"
run svctl status once
expect_rc "status of a oneshot that exited with RemainAfterExit=yes exits 0 (active)" 0
run svctl status once-gone
expect_rc "status of a oneshot without RemainAfterExit= exits 3 (inactive)" 3
run svctl status idle
expect_rc "status of an inactive service exits 3" 3
run svctl status nosuch
expect_rc "status of no such unit exits 4" 4
run svctl status long once
expect_rc "status of two active services exits 0" 0

svctl start fails >/dev/null 2>&1
wait_until 20 state_is fails failed
run svctl status fails
expect_rc "status of a failed service exits 3" 3

# ---- is-active, is-failed ----

run svctl is-active long
expect_rc "is-active of a running service exits 0" 0
expect_eq "... and prints active" active "$OUT"
run svctl is-active once
expect_rc "is-active of an exited oneshot with RemainAfterExit=yes exits 0" 0
expect_eq "... active" active "$OUT"
run svctl is-active idle
expect_rc "is-active of an inactive service exits 3" 3
expect_eq "... inactive" inactive "$OUT"
run svctl is-active fails
expect_rc "is-active of a failed service exits 3" 3
expect_eq "... failed" failed "$OUT"
run svctl is-active nosuch
expect_rc "is-active of no such unit exits 3" 3
expect_eq "... inactive, as systemctl" inactive "$OUT"
run svctl is-active idle long
expect_rc "is-active of an inactive and an active one exits 0" 0
expect_eq "... one line each" "inactive
active" "$OUT"
run svctl is-active -q idle
expect_rc "is-active -q exits 3" 3
expect_eq "... and prints nothing" "" "$OUT"

run svctl is-failed fails
expect_rc "is-failed of a failed service exits 0" 0
expect_eq "... failed" failed "$OUT"
run svctl is-failed long
expect_rc "is-failed of a running service exits 1" 1
expect_eq "... active" active "$OUT"
run svctl is-failed nosuch
expect_rc "is-failed of no such unit exits 1" 1
run svctl is-failed --quiet long fails
expect_rc "is-failed --quiet of a running and a failed one exits 0" 0
expect_eq "... quietly" "" "$OUT"

# ---- cat ----

run svctl cat long
expect_rc "cat exits 0" 0
expect_eq "cat prints '# PATH' and the file" "# $UNITS/long.service
$(cat "$UNITS/long.service")" "$OUT"
run svctl cat nosuch
expect_rc "cat of no such unit exits 1" 1
expect_eq "... with systemctl's words" "No files found for nosuch.service." "$ERR"

# ---- show ----

run svctl show long
expect_rc "show exits 0" 0
expect_contains "show: Id=" "$OUT" "Id=long.service"
expect_contains "show: Description=" "$OUT" "Description=a long-running service"
expect_contains "show: Documentation=" "$OUT" "Documentation=man:svd(8) https://example.org/svd"
expect_contains "show: ActiveState=active" "$OUT" "ActiveState=active"
expect_contains "show: SubState=running" "$OUT" "SubState=running"
expect_contains "show: MainPID= the process" "$OUT" "MainPID=$(svc_pid long)"
expect_contains "show: FragmentPath=" "$OUT" "FragmentPath=$UNITS/long.service"
expect_contains "show: LoadState=loaded" "$OUT" "LoadState=loaded"
run svctl show -p ActiveState,SubState once
expect_eq "show -p A,B: those two, in show's order" "ActiveState=active
SubState=exited" "$OUT"
run svctl show -p Result -p ExecMainCode -p ExecMainStatus --value fails
expect_eq "show --value of a service that exited 3: CLD_EXITED (1), 3, exit-code (show's order)" "1
3
exit-code" "$OUT"
run svctl show -p StatusText long
expect_eq "show -p of an empty property prints it empty" "StatusText=" "$OUT"
run svctl show -p LoadState,ActiveState nosuch
expect_rc "show of no such unit exits 0, as systemctl" 0
expect_eq "... LoadState=not-found, inactive" "LoadState=not-found
ActiveState=inactive" "$OUT"

# ---- what svd does not apply ----

expect_contains "the load warns about an ignored key" "$(cat "$SVD_LOG")" "partial.service:5: Unknown key 'Nice=' in [Service], ignoring."
run svctl status partial
expect_contains "status lists every key and value svd does not apply" "$OUT" \
        "Not applied: After=network.target Nice= IOSchedulingClass= WantedBy=graphical.target (svd ignores these"
run svctl show -p NotApplied --value partial
expect_eq "show: NotApplied=" "After=network.target Nice= IOSchedulingClass= WantedBy=graphical.target" "$OUT"
run svctl status long
expect_not_contains "a unit with nothing ignored has no such line" "$OUT" "Not applied"

done_testing
