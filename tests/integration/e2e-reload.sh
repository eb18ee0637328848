#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Reload: svctl reload re-reads the unit directory and says what was added,
# changed and removed. A running service keeps its process; its new
# definition applies at its next start. A removed unit that runs keeps
# running, marked "removed", and disappears once stopped; a removed unit
# that is stopped disappears at once. Added units are not started. An
# unreadable unit directory is an error that changes nothing. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

unit() { # unit NAME DESCRIPTION [WANTEDBY]
        {
                printf '[Unit]\nDescription=%s\n[Service]\nExecStart=%s 1000\n' "$2" "$SLEEP"
                [ -z "${3:-}" ] || printf '[Install]\nWantedBy=default.target\n'
        } | write_unit "$1"
}

unit keep "keep v1"
unit run "run v1"
unit idle "idle v1"
unit gone-running "gone-running v1"
unit gone-idle "gone-idle v1"
# Names svd cannot use: each is told, with the reason, at start-up and at every reload.
unit "with space" "bad name"
unit "$(printf '\303\274n\303\257\342\202\254')" "bad name" # ünï€
unit "$(printf 'new\nline')" "bad name"
unit "a;b" "bad name"
unit ".hidden" "a hidden file, passed over in silence"
# bad_names_told N: svd's log tells each bad name N times, and the hidden file never.
bad_names_told() {
        [ "$(grep -c "'$UNITS/with space.service' has a name svd cannot use: the name contains whitespace" \
                "$SVD_LOG")" = "$1" ] &&
                [ "$(grep -c "'$UNITS/$(printf '\303\274n\303\257\342\202\254').service' has a name svd cannot use: the name contains a non-ASCII character" \
                        "$SVD_LOG")" = "$1" ] &&
                [ "$(grep -cF "'$UNITS/new\\nline.service' has a name svd cannot use: the name contains a control character" \
                        "$SVD_LOG")" = "$1" ] &&
                [ "$(grep -c "'$UNITS/a;b.service' has a name svd cannot use: the name contains a character other than" \
                        "$SVD_LOG")" = "$1" ] &&
                ! grep -q "hidden" "$SVD_LOG"
}

start_svd
check "start-up tells each unit file whose name svd cannot use, with the reason" bad_names_told 1
run svctl start run gone-running keep
expect_rc "start run, gone-running, keep" 0
RUN_PID=$(svc_pid run)

run svctl reload
expect_rc "reload without changes" 0
expect_eq "... says so" "No changes." "$OUT"
check "... and tells the bad names again" bad_names_told 2

unit run "run v2"
unit idle "idle v2"
unit new "new v1" wanted
rm "$UNITS/gone-running.service" "$UNITS/gone-idle.service"
run svctl reload
expect_rc "reload after changes" 0
expect_contains "added: new" "$OUT" "Added: new"
expect_contains "changed: idle run" "$OUT" "Changed: idle run"
expect_contains "removed: gone-idle gone-running" "$OUT" "Removed: gone-idle gone-running"
run svctl --json reload
expect_eq "--json, again: nothing new" '{"added":[],"changed":[],"removed":[]}' "$OUT"

expect_eq "the changed running service keeps its process" "$RUN_PID" "$(svc_pid run)"
expect_eq "... and its definition until it restarts" "run v1" "$(svc_field run description)"
expect_eq "... with the change pending" true "$(svc_field run reloadPending)"
expect_eq "the stopped one takes the change at once" "idle v2" "$(svc_field idle description)"
expect_eq "an added unit is loaded" "new v1" "$(svc_field new description)"
expect_eq "... but not started, even if wanted by default.target" inactive "$(svc_state new)"
expect_eq "a removed running unit keeps running" running "$(svc_state gone-running)"
expect_eq "... marked removed" removed "$(svc_field gone-running loadState)"
run svctl status gone-idle
expect_rc "a removed stopped unit is gone at once" 4
run svctl start gone-running
expect_rc "a removed unit cannot be started again" 1

run svctl restart run
expect_rc "restart run" 0
expect_eq "the restart brings the new definition" "run v2" "$(svc_field run description)"
expect_ne "... with a new process" "$RUN_PID" "$(svc_pid run)"

run svctl stop gone-running
expect_rc "stop the removed unit" 0
check "once stopped, it disappears" wait_until 10 sh -c '! "$0" --socket "$1" status gone-running >/dev/null 2>&1' \
        "$SVCTL" "$SOCK"

mv "$UNITS" "$T/units.away"
run svctl reload
expect_rc "reload of a missing unit directory fails" 1
expect_contains "... and says why" "$ERR" "Failed to reload units"
run svctl --json list
expect_contains "... and nothing was lost" "$OUT" '"name":"keep"'
expect_eq "... keep still runs" running "$(svc_state keep)"
mv "$T/units.away" "$UNITS"
run svctl reload
expect_rc "reload works again" 0
expect_eq "... with nothing to report" "No changes." "$OUT"

done_testing
