#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Who may see and change what on the control socket. A service's output
# (Logs, the lines of Status) goes to root, svd's own user, the user the
# service runs as (its own service only) and members of --log-group
# (primary or supplementary group, as SO_PEERCRED/SO_PEERGROUPS recorded
# them at connect); others get the status without lines plus a hint, and
# `svctl logs` says Permission denied with the reason. Members of
# --manage-group may start, stop, restart, kill, reset-failed, reload,
# enable and disable, not re-exec. Every state-changing call is in svd's log with uid, pid,
# parameters and outcome.
# As root, throwaway uids and gids play the peers; otherwise only the
# owner's side and the path checks that need no second user run. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

OTHER_UID=${SVD_TEST_UID:-65534}
OTHER_GID=${SVD_TEST_GID:-65534}
THIRD_UID=$((OTHER_UID - 1))
THIRD_GID=$((OTHER_GID - 1))
# Groups that name nobody on an ordinary system: numbers need no NSS.
LOG_GID=${SVD_TEST_LOG_GID:-64101}
MANAGE_GID=${SVD_TEST_MANAGE_GID:-64102}

# The secret is in the output only, not in the command line that status shows.
cat >"$T/say.sh" <<EOF
echo "SECRET_\$1"
exec $SLEEP 1000
EOF

write_unit sys <<EOF
[Service]
ExecStart=$SH $T/say.sh SYS=abc123
[Install]
WantedBy=default.target
EOF

write_unit broken <<EOF
[Service]
ExecStart=$T/no-such-program
EOF

# svctl_as UID GID[,GROUP...] ARGS...: svctl as another user, into run().
svctl_as() {
        _u=$1 _g=$2
        shift 2
        run as_user "$_u" "$_g" "$SVCTL" --socket "$SOCK" "$@"
}

# shows_output NAME: svd's own user sees NAME's first line (it is written at start).
shows_output() {
        svctl logs "$1" 2>/dev/null | grep -q SECRET_
}

# ---- svd's own user ----

SOCK=$T/run/svd.sock
start_svd

wait_until 20 shows_output sys
run svctl logs sys
expect_contains "svd's own user reads the output" "$OUT" "SECRET_SYS=abc123"
run svctl status sys
expect_contains "... and sees it in status" "$OUT" "SECRET_SYS=abc123"
expect_not_contains "... with no hint" "$ERR" "Hint"
# shellcheck disable=SC2016 # expanded by the inner shell
run sh -c 'echo $$ >"$1"; exec "$2" --socket "$3" reset-failed' sh "$T/caller.pid" "$SVCTL" "$SOCK"
expect_rc "svd's own user calls ResetFailed" 0
expect_contains "svd logs the call with uid, pid, parameters and outcome" "$(cat "$SVD_LOG")" \
        "io.svd.Manager.ResetFailed {} by uid $(id -u) (pid $(cat "$T/caller.pid")): done."
run svctl start broken
expect_rc "a start that fails exits 1" 1
check "... and svd logs the failure with its reason" \
        grep -q "io.svd.Manager.Start {\"name\":\"broken\"} by uid $(id -u) (pid [0-9]*): failed: io.svd.Manager.ExecFailed (" "$SVD_LOG"
stop_svd
expect_eq "svd exits 0 on SIGTERM" 0 "$SVD_RC"

if [ "$(id -u)" -ne 0 ]; then
        skip "the output rules for other users, the groups and the foreign-owned paths" "not root: cannot act as another uid"
        done_testing
fi

# ---- as root: other users ----

if ! reach_binaries "$OTHER_UID" "$OTHER_GID"; then
        skip_all "uid $OTHER_UID cannot run $SVCTL (no runas helper, or the binary is not reachable)"
fi
chmod 0755 "$T" "$UNITS"
if ! as_user "$OTHER_UID" "$OTHER_GID" test -r "$UNITS/sys.service"; then
        skip_all "uid $OTHER_UID cannot reach $T (set TMPDIR to a directory others may enter)"
fi

run timeout 30 "$SVD" --units "$UNITS" --socket "$T/x/svd.sock" --log-group no-such-group-here
expect_rc "an unknown --log-group: svd exits 1" 1
expect_contains "... and says which" "$ERR" "Unknown group 'no-such-group-here' for --log-group (LogGroup= in svd.conf)."

# uid OTHER runs one service; THIRD is anybody else.
write_unit own <<EOF
[Service]
User=$OTHER_UID
Group=$OTHER_GID
ExecStart=$SH $T/say.sh OWN=def456
[Install]
WantedBy=default.target
EOF

start_svd --log-group "$LOG_GID" --manage-group "$MANAGE_GID"
wait_until 20 shows_output sys
wait_until 20 shows_output own

# Nobody special: status without lines and a hint; logs refused with the reason.
svctl_as "$THIRD_UID" "$THIRD_GID" status sys
expect_rc "uid $THIRD_UID: status sys exits 0" 0
expect_contains "... shows the state" "$OUT" "Active: running"
expect_not_contains "... but not the output" "$OUT$ERR" "SECRET"
expect_contains "... and says who may see it" "$ERR" \
        "Hint: the output of 'sys' is shown only to root and members of group $LOG_GID."
svctl_as "$THIRD_UID" "$THIRD_GID" logs sys
expect_rc "uid $THIRD_UID: logs sys is refused with exit 1" 1
expect_contains "... Permission denied, with the reason" "$ERR" \
        "Failed to get logs of 'sys': Permission denied (the output of 'sys' is shown only to root"
expect_not_contains "... and no line" "$OUT" "SECRET"
svctl_as "$THIRD_UID" "$THIRD_GID" logs own
expect_rc "uid $THIRD_UID: logs of another user's service is refused" 1
expect_contains "... naming that user" "$ERR" \
        "the output of 'own' is shown only to root, the service's user (uid $OTHER_UID) and members of group $LOG_GID)"
svctl_as "$THIRD_UID" "$THIRD_GID" list
expect_rc "uid $THIRD_UID: list exits 0" 0
svctl_as "$THIRD_UID" "$THIRD_GID" stop sys
expect_contains "uid $THIRD_UID: stop is refused" "$ERR" "Failed to stop 'sys': Permission denied"
check "... and svd logs the refusal with uid and pid" \
        grep -q "io.svd.Manager.Stop {\"name\":\"sys\"} by uid $THIRD_UID (pid [0-9]*): refused: Permission denied." \
        "$SVD_LOG"

# The service's own user: its own service only.
svctl_as "$OTHER_UID" "$OTHER_GID" logs own
expect_rc "uid $OTHER_UID: logs of its own service exits 0" 0
expect_contains "... with the line" "$OUT" "SECRET_OWN=def456"
svctl_as "$OTHER_UID" "$OTHER_GID" status own
expect_contains "... and in status" "$OUT" "SECRET_OWN=def456"
svctl_as "$OTHER_UID" "$OTHER_GID" logs sys
expect_rc "uid $OTHER_UID: logs of root's service is refused" 1
svctl_as "$OTHER_UID" "$OTHER_GID" stop own
expect_contains "uid $OTHER_UID: may not stop its own service either" "$ERR" "Permission denied"

# The log group, as a supplementary and as the primary group.
svctl_as "$THIRD_UID" "$THIRD_GID,$LOG_GID" logs sys
expect_rc "log group (supplementary): logs sys exits 0" 0
expect_contains "... with the line" "$OUT" "SECRET_SYS=abc123"
svctl_as "$THIRD_UID" "$THIRD_GID,$LOG_GID" logs own
expect_contains "... and another user's service too" "$OUT" "SECRET_OWN=def456"
svctl_as "$THIRD_UID" "$THIRD_GID,$LOG_GID" status sys
expect_contains "... and the lines in status" "$OUT" "SECRET_SYS=abc123"
expect_not_contains "... with no hint" "$ERR" "Hint"
svctl_as "$THIRD_UID" "$LOG_GID" logs sys
expect_contains "log group (primary): logs sys shows the line" "$OUT" "SECRET_SYS=abc123"
svctl_as "$THIRD_UID" "$THIRD_GID,$LOG_GID" stop sys
expect_contains "log group: may not stop" "$ERR" "Failed to stop 'sys': Permission denied"

# The manage group.
MG=$THIRD_GID,$MANAGE_GID
svctl_as "$THIRD_UID" "$MG" stop sys
expect_rc "manage group: stop exits 0" 0
expect_eq "... sys is stopped" inactive "$(svc_state sys)"
svctl_as "$THIRD_UID" "$MG" start sys
expect_rc "manage group: start exits 0" 0
track_pid "$(svc_pid sys)"
svctl_as "$THIRD_UID" "$MG" restart sys
expect_rc "manage group: restart exits 0" 0
track_pid "$(svc_pid sys)"
svctl_as "$THIRD_UID" "$MG" kill --signal SIGCONT sys
expect_rc "manage group: kill exits 0" 0
svctl_as "$THIRD_UID" "$MG" reset-failed
expect_rc "manage group: reset-failed exits 0" 0
svctl_as "$THIRD_UID" "$MG" reload
expect_rc "manage group: reload exits 0" 0
svctl_as "$THIRD_UID" "$MG" daemon-reexec
expect_rc "manage group: daemon-reexec is refused (root and svd's user only)" 1
expect_contains "... Permission denied" "$ERR" "Permission denied"
svctl_as "$THIRD_UID" "$MG" logs sys
expect_rc "manage group: the output is not part of managing" 1
# Enabling changes what starts with svd: managing; asking about it is for everybody.
svctl_as "$THIRD_UID" "$THIRD_GID" disable sys
expect_rc "uid $THIRD_UID: disable is refused with exit 1" 1
expect_contains "... Permission denied" "$ERR" "Failed to disable 'sys': Permission denied"
check "... and changes nothing" test ! -e "$UNITS/default.target.wants/sys.service"
svctl_as "$THIRD_UID" "$THIRD_GID" is-enabled sys
expect_eq "uid $THIRD_UID: is-enabled answers" enabled "$OUT"
svctl_as "$THIRD_UID" "$MG" disable sys
expect_rc "manage group: disable exits 0" 0
svctl_as "$THIRD_UID" "$MG" enable sys
expect_rc "manage group: enable exits 0" 0
check "svd logs the manage group's disable with uid, pid and outcome" \
        grep -q "io.svd.Manager.DisableUnitFile {\"name\":\"sys\"} by uid $THIRD_UID (pid [0-9]*): done." "$SVD_LOG"
svctl_as "$THIRD_UID" "$MANAGE_GID" stop sys
expect_rc "manage group (primary): stop exits 0" 0
check "svd logs the manage group's stop with uid, pid and outcome" \
        grep -q "io.svd.Manager.Stop {\"name\":\"sys\"} by uid $THIRD_UID (pid [0-9]*): done." "$SVD_LOG"
check "... and its kill with the signal" \
        grep -q "io.svd.Manager.Kill {\"name\":\"sys\",\"signal\":18} by uid $THIRD_UID (pid [0-9]*): done." "$SVD_LOG"
check "... and its reload" grep -q "io.svd.Manager.Reload {} by uid $THIRD_UID (pid [0-9]*): done." "$SVD_LOG"
check "... and the refused re-exec" \
        grep -q "io.svd.Manager.Reexec {} by uid $THIRD_UID (pid [0-9]*): refused: Permission denied." "$SVD_LOG"

# The groups come from svd's options, which a re-exec passes on; handed-over
# and new connections get their rights from the same credentials.
run svctl daemon-reexec
expect_rc "root re-executes svd" 0
svctl_as "$THIRD_UID" "$MG" start sys
expect_rc "... the manage group may still start" 0
track_pid "$(svc_pid sys)"
wait_until 20 shows_output sys
svctl_as "$THIRD_UID" "$THIRD_GID,$LOG_GID" logs sys
expect_contains "... the log group still reads the output" "$OUT" "SECRET_SYS=abc123"
svctl_as "$THIRD_UID" "$THIRD_GID" logs sys
expect_rc "... and others still may not" 1
stop_svd
expect_eq "svd exits 0 on SIGTERM" 0 "$SVD_RC"

# An empty --log-group: nobody but root, svd's user and the service's user.
start_svd --log-group ""
wait_until 20 shows_output sys
svctl_as "$THIRD_UID" "$THIRD_GID,$LOG_GID" logs sys
expect_rc "--log-group '': a former member is refused" 1
stop_svd

# The default: adm, where it exists.
ADM_GID=$(awk -F: '$1 == "adm" { print $3 }' /etc/group 2>/dev/null)
if [ -n "$ADM_GID" ]; then
        start_svd
        wait_until 20 shows_output sys
        svctl_as "$THIRD_UID" "$THIRD_GID,$ADM_GID" logs sys
        expect_contains "by default, members of adm read the output" "$OUT" "SECRET_SYS=abc123"
        svctl_as "$THIRD_UID" "$THIRD_GID" status sys
        expect_contains "... and the hint names adm" "$ERR" "members of group 'adm' (gid $ADM_GID)"
        stop_svd
else
        skip "by default, members of adm read the output" "no group adm in /etc/group"
fi

done_testing
