#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# --main-service NAME, a container's main program: svd starts it (wanted or
# not), and once it has ended for good (not while Restart= brings it back,
# nor through svctl restart) stops the other services and exits with its
# exit status, 128 + the signal when a signal killed it. SIGTERM to svd
# itself is a stop as without the option (status 0 when all stopped
# cleanly). TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

# app.sh DIR: the first run kills itself (SIGUSR2); later runs wait for
# DIR/go and exit with the status written there.
cat >"$T/app.sh" <<'EOF'
if [ ! -e "$1/failed-once" ]; then
        : >"$1/failed-once"
        kill -USR2 $$
fi
while [ ! -e "$1/go" ]; do "$SLEEP" 0.05; done
read -r st <"$1/go"
exit "$st"
EOF

write_unit app <<EOF
[Service]
ExecStart=$SH $T/app.sh $T
Environment=SLEEP=$SLEEP
Restart=on-abnormal
RestartSec=0.1
EOF
write_unit plain <<EOF
[Service]
ExecStart=$SH $T/app.sh $T
Environment=SLEEP=$SLEEP
EOF
write_unit side <<EOF
[Service]
ExecStart=$SLEEP 1000
[Install]
WantedBy=default.target
EOF

# ---- the main service's exit status becomes svd's ----
start_svd --main-service app
both_running() { state_is app running && state_is side running; }
check "app (not WantedBy) and side run" wait_until 10 both_running
check "app's first run was killed (SIGUSR2) and restarted" test -e "$T/failed-once"
expect_eq "... its restart counter" 1 "$(svc_field app restarts)"
check "... svd runs on" pid_alive "$SVD_PID" "$SVD_START"
OLD=$(svc_pid app)
run svctl restart app
expect_rc "svctl restart app" 0
check "... app runs anew" wait_until 10 running_with_new_pid app "$OLD"
check "... svd runs on" pid_alive "$SVD_PID" "$SVD_START"
SIDE=$(svc_pid side)
SIDE_START=$(pid_start "$SIDE")
track_pid "$SIDE"
echo 7 >"$T/go"
check "app exits 7: svd exits" wait_until 10 svd_exited
wait "$SVD_JOB"
expect_eq "... with status 7" 7 "$?"
check "... side is gone" pid_gone "$SIDE" "$SIDE_START"
check "... the log says why" grep -q "Main service app is failed (result exit-code), stopping the other services and exiting with status 7" "$SVD_LOG"

# ---- success ----
echo 0 >"$T/go"
run timeout $((30 * TIMEOUT_FACTOR)) "$SVD" --units "$UNITS" --socket "$SOCK" --main-service app.service
expect_rc "svd exits 0 when app (named app.service) exits 0" 0
expect_contains "... the log says why" "$ERR" "Main service app is inactive (result success)"

# ---- killed by a signal ----
rm -f "$T/go"
start_svd --main-service plain
check "plain runs" wait_until 10 state_is plain running
run svctl kill --signal SIGUSR1 plain
check "plain killed by SIGUSR1: svd exits" wait_until 10 svd_exited
wait "$SVD_JOB"
expect_eq "... with status 128 + 10" 138 "$?"

# ---- svctl stop of the main service ends it for good ----
start_svd --main-service plain
check "plain runs" wait_until 10 state_is plain running
run svctl stop plain
check "svctl stop plain: svd exits" wait_until 10 svd_exited
wait "$SVD_JOB"
expect_eq "... with status 128 + SIGTERM" 143 "$?"

# ---- SIGTERM as usual ----
start_svd --main-service plain
check "plain runs" wait_until 10 state_is plain running
stop_svd
expect_eq "SIGTERM to svd: every service stopped cleanly, status 0 as without --main-service" 0 "$SVD_RC"

# ---- no such unit ----
run "$SVD" --units "$UNITS" --socket "$T/other.sock" --main-service nosuch
expect_rc "--main-service nosuch: svd refuses to start" 1
expect_contains "... saying why" "$ERR" "Main service 'nosuch': no such unit."

# ---- a template: its instance is the main service, as an operator's start makes it ----
printf '%s\n' "[Service]" "ExecStart=$SH -c 'exit %i'" >"$UNITS/inst@.service"
run timeout $((30 * TIMEOUT_FACTOR)) "$SVD" --units "$UNITS" --socket "$T/inst.sock" --main-service inst@5
expect_rc "--main-service inst@5: the instance of inst@.service runs, svd exits with its status" 5
run "$SVD" --units "$UNITS" --socket "$T/tmpl.sock" --main-service inst@
expect_rc "--main-service inst@ (the template itself): svd refuses to start" 1
expect_contains "... saying why" "$ERR" "Main service 'inst@': a template is started as an instance, NAME@INSTANCE."

done_testing
