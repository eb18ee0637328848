#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Signals as a container's init gets them: SIGTERM (and SIGINT) stop every
# service in dependency order and svd exits 0 when all stopped cleanly; a
# second SIGTERM or SIGINT during the stop SIGKILLs what is left at once and
# svd exits 1, as it does when a stop timed out. TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

# web stops slowly; db records whether web had finished when db was told to stop.
cat >"$T/web.sh" <<'EOF'
trap '"$SLEEP" 0.5; : >"$1/web.stopped"; exit 0' TERM
"$SLEEP" 1000 &
wait
EOF
cat >"$T/db.sh" <<'EOF'
trap 'if [ -e "$1/web.stopped" ]; then echo after >"$1/db.mark"; else echo before >"$1/db.mark"; fi; exit 0' TERM
"$SLEEP" 1000 &
wait
EOF
cat >"$T/ignore-term.sh" <<'EOF'
trap '' TERM INT
exec "$SLEEP" 1000
EOF

write_unit db <<EOF
[Service]
ExecStart=$SH $T/db.sh $T
Environment=SLEEP=$SLEEP
[Install]
WantedBy=default.target
EOF
write_unit web <<EOF
[Unit]
Requires=db
After=db
[Service]
ExecStart=$SH $T/web.sh $T
Environment=SLEEP=$SLEEP
[Install]
WantedBy=default.target
EOF

# ---- SIGTERM: dependency order, exit 0 ----
start_svd
check "db and web run" wait_until 10 all_running
TRACKED="$TRACKED $(service_pids)"
T0=$(now_ms)
kill -TERM "$SVD_PID"
check "SIGTERM: svd exits within 10 s" wait_until 10 svd_exited
ELAPSED=$(($(now_ms) - T0))
wait "$SVD_JOB"
expect_eq "... with status 0: every service stopped cleanly" 0 "$?"
diag "shutdown took $ELAPSED ms (web takes 500 ms to stop)"
expect_eq "... web (After=db) stopped before db was told to stop" after "$(cat "$T/db.mark" 2>/dev/null)"
check "... every service process is gone" pids_dead "$TRACKED"

# ---- SIGINT likewise ----
rm -f "$T/db.mark" "$T/web.stopped"
start_svd
check "db and web run again" wait_until 10 all_running
TRACKED="$TRACKED $(service_pids)"
kill -INT "$SVD_PID"
check "SIGINT: svd exits within 10 s" wait_until 10 svd_exited
wait "$SVD_JOB"
expect_eq "... with status 0" 0 "$?"
expect_eq "... in dependency order" after "$(cat "$T/db.mark" 2>/dev/null)"

# ---- a second signal kills what is left ----
write_unit stubborn <<EOF
[Service]
ExecStart=$SH $T/ignore-term.sh
Environment=SLEEP=$SLEEP
TimeoutStopSec=300
[Install]
WantedBy=default.target
EOF
start_svd
check "db, web and stubborn run" wait_until 10 all_running
PID=$(svc_pid stubborn)
PSTART=$(pid_start "$PID")
track_pid "$PID"
check "stubborn ignores SIGTERM" wait_until 10 sig_ignored "$PID" 15
kill -TERM "$SVD_PID"
check "first SIGTERM: stubborn is stopping" wait_until 10 state_is stubborn stopping
check "... and stays so (TimeoutStopSec=300)" stays_for 1 pid_alive "$PID" "$PSTART"
T0=$(now_ms)
kill -TERM "$SVD_PID"
check "second SIGTERM: svd exits within 10 s" wait_until 10 svd_exited
ELAPSED=$(($(now_ms) - T0))
wait "$SVD_JOB"
expect_eq "... with status 1: a service had to be killed" 1 "$?"
diag "second SIGTERM to exit: $ELAPSED ms"
check "... stubborn is gone" pid_gone "$PID" "$PSTART"
check "svd's log says so" grep -q "killed 1 that had not stopped" "$SVD_LOG"
check "... and why it exits 1" grep -q "Not every service stopped cleanly" "$SVD_LOG"

done_testing
