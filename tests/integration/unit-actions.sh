#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# SuccessAction=, FailureAction=, StartLimitAction= and their exit
# statuses: exit stops every service and exits with the action's status (or
# the unit's main process's), exit-force kills them at once; a unit without
# ExecStart= that has SuccessAction= (systemd-exit.service) is a oneshot
# whose start is the action; reboot/poweroff are refused at load unless svd
# is PID 1, and as PID 1 of a PID namespace (root) they end the namespace as
# reboot(2) does: svd killed by SIGHUP or SIGINT. TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test
FALSE=$(path_of false) || bail_out "no false"
TRUE=$(path_of true) || bail_out "no true"

# svd_ends_with TIMEOUT: waits for svd to exit by itself; sets SVD_RC.
svd_ends() {
        if wait_until "$1" svd_exited; then
                wait "$SVD_JOB"
                SVD_RC=$?
                SVD_PID=
                return 0
        fi
        SVD_RC=timeout
        return 1
}

write_unit side <<EOF2
[Service]
ExecStart=$SLEEP 1000
[Install]
WantedBy=default.target
EOF2
write_unit done7 <<EOF2
[Unit]
SuccessAction=exit
SuccessActionExitStatus=7
[Service]
Type=oneshot
ExecStart=$TRUE
EOF2
write_unit fails <<EOF2
[Unit]
FailureAction=exit-force
[Service]
ExecStart=$SH -c 'exit 3'
EOF2
# As systemd-exit.service: no [Service] at all.
write_unit leave <<EOF2
[Unit]
Description=Exit the container
SuccessAction=exit-force
EOF2
write_unit flaps <<EOF2
[Unit]
StartLimitBurst=2
StartLimitIntervalSec=60
StartLimitAction=exit
FailureActionExitStatus=9
[Service]
ExecStart=$FALSE
Restart=always
RestartSec=0
EOF2
write_unit reboots <<EOF2
[Unit]
SuccessAction=reboot
[Service]
ExecStart=$TRUE
EOF2
write_unit nokexec <<EOF2
[Unit]
FailureAction=kexec
[Service]
ExecStart=$TRUE
EOF2
write_unit noexec <<EOF2
[Unit]
Description=nothing to do
EOF2

# ---- load ----
start_svd
expect_eq "a unit with SuccessAction= and no ExecStart= loads" loaded "$(svc_field leave loadState)"
expect_eq "... as a oneshot" oneshot "$(svc_field leave type)"
expect_eq "without ExecStart=, ExecStop= or SuccessAction=: a load error" error "$(svc_field noexec loadState)"
expect_contains "... naming what is missing" "$(svc_field noexec loadError)" "Missing ExecStart="
expect_eq "SuccessAction=reboot when svd is not PID 1: a load error" error "$(svc_field reboots loadState)"
expect_contains "... saying why" "$(svc_field reboots loadError)" "needs svd to run as PID 1"
expect_contains "FailureAction=kexec: not supported" "$(svc_field nokexec loadError)" "not supported"
check "side runs" wait_until 10 state_is side running
SIDE=$(svc_pid side)
SIDE_START=$(pid_start "$SIDE")
track_pid "$SIDE"

# ---- SuccessAction=exit with its exit status ----
run svctl start done7
check "done7 ends inactive: SuccessAction=exit stops everything and svd exits" svd_ends 30
expect_eq "... with SuccessActionExitStatus=7" 7 "$SVD_RC"
check "... side was stopped" pid_gone "$SIDE" "$SIDE_START"
check "... the log says why" grep -q "done7: SuccessAction=exit: stopping every service and exiting, exit status 7" "$SVD_LOG"

# ---- FailureAction=exit-force, the main process's status ----
start_svd
check "side runs" wait_until 10 state_is side running
SIDE=$(svc_pid side)
SIDE_START=$(pid_start "$SIDE")
track_pid "$SIDE"
run svctl start fails
check "fails fails: FailureAction=exit-force, svd exits" svd_ends 30
expect_eq "... with its main process's exit status" 3 "$SVD_RC"
check "... side was killed" pid_gone "$SIDE" "$SIDE_START"
check "... killed at once, not stopped" grep -q "Killed [0-9]* services at once (exit-force)" "$SVD_LOG"

# ---- no ExecStart=, SuccessAction=exit-force ----
start_svd
run svctl start leave
check "starting leave (no ExecStart=) is its action: svd exits" svd_ends 30
expect_eq "... with status 0" 0 "$SVD_RC"

# ---- StartLimitAction= with FailureActionExitStatus= ----
start_svd
run svctl start flaps
check "flaps hits its start limit: StartLimitAction=exit, svd exits" svd_ends 30
expect_eq "... with FailureActionExitStatus=9" 9 "$SVD_RC"
check "... the log names the key" grep -q "flaps: StartLimitAction=exit" "$SVD_LOG"

# ---- as PID 1 of a PID namespace ----
UNSHARE=$(path_of unshare)
if [ "$(id -u)" -ne 0 ] || [ -z "$UNSHARE" ] || ! "$UNSHARE" --pid --fork --mount-proc true 2>/dev/null; then
        skip "SuccessAction=reboot as PID 1 ends the PID namespace with SIGHUP" "needs root and unshare --pid"
        skip "SuccessAction=poweroff ... with SIGINT" "needs root and unshare --pid"
else
        rm -f "$UNITS"/*.service
        write_unit reboots <<EOF2
[Unit]
SuccessAction=reboot
[Service]
Type=oneshot
ExecStart=$TRUE
[Install]
WantedBy=default.target
EOF2
        run timeout 60 "$UNSHARE" --pid --fork --mount-proc "$SVD" --units "$UNITS" --socket "$T/pid1.sock"
        expect_eq "SuccessAction=reboot as PID 1 ends the PID namespace with SIGHUP" 129 "$RC"
        sed -i 's/^SuccessAction=reboot$/SuccessAction=poweroff-force/' "$UNITS/reboots.service"
        run timeout 60 "$UNSHARE" --pid --fork --mount-proc "$SVD" --units "$UNITS" --socket "$T/pid1.sock"
        expect_eq "SuccessAction=poweroff-force ... with SIGINT" 130 "$RC"
fi

done_testing
