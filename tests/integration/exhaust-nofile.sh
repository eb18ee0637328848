#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# svd under a low RLIMIT_NOFILE. svd raises its soft limit to
# the hard limit at start-up, so the hard limit is lowered (ulimit -n sets
# both) in a wrapper that then execs svd. Clients take every fd svd has left:
# accept() fails with EMFILE and svd says so, pauses accepting, and keeps
# serving the connections it has; a Start then fails to create the process's
# pipes/pidfd with EMFILE and answers io.svd.Manager.SpawnFailed with the
# reason, svd running on; once the clients leave, svd accepts again and
# starts services again. The services running before are untouched.
# TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"
# shellcheck source=../lib/hostile.sh
. "$TESTS_DIR/lib/hostile.sh"

setup_test
hostile_setup
MANUAL=$TAG-manual
write_unit "$MANUAL" <<EOF
[Service]
ExecStart=$SLEEP 1004
EOF

NOFILE=${EXHAUST_NOFILE:-64}
low_nofile_wrapper "$NOFILE"
start_svd
hostile_baseline

limit=$(sed -n 's/^Max open files[[:space:]]*\([0-9]*\)[[:space:]]*\([0-9]*\).*/\1 \2/p' "/proc/$SVD_PID/limits")
expect_eq "svd runs with RLIMIT_NOFILE $NOFILE (soft and hard)" "$NOFILE $NOFILE" "$limit"
diag "svd uses $(fd_count) of its $NOFILE fds with three services running"

# ---- every fd taken by connections ----

rss=$(rss_kb)
start_call="{\"method\":\"io.svd.Manager.Start\",\"parameters\":{\"name\":\"$MANUAL\"}}"
status_call="{\"method\":\"io.svd.Manager.Status\",\"parameters\":{\"name\":\"$S1\"}}"
hostile idle "$NOFILE" 3000 "$status_call" "$start_call" "$status_call" >"$T/idle" 2>&1 &
job=$!
wait_until 30 grep -q "^first:.*$S1.*" "$T/idle"
sleep 0.5
held_fds=$(fd_count)
diag "svd holds $held_fds fds (limit $NOFILE)"
wait "$job"
diag "$(cat "$T/idle")"
first=$(sed -n 's/^first: latency_us=[0-9]* //p' "$T/idle")
echo "# metric case='RLIMIT_NOFILE=$NOFILE, all fds taken' fds_held=$held_fds first_connection_status_latency_ms=$(fmt_ms "$(sed -n '2s/^first: latency_us=\([0-9]*\).*/\1/p' "$T/idle")")"
# (>=: an fd inherited above the limit, as some CI runners leave, counts too)
check "at the limit: svd holds all its fds ($held_fds)" test "$held_fds" -ge "$NOFILE"
expect_contains "accept() failing: svd says so" "$(cat "$SVD_LOG")" "Failed to accept connection, pausing: Too many open files"
expect_eq "an accepted connection is still served" "$S1" "$(printf '%s\n' "$first" | sed -n 1p | _json_field name)"
start_reply=$(printf '%s\n' "$first" | sed -n 2p)
expect_eq "Start without fds: SpawnFailed" io.svd.Manager.SpawnFailed "$(json_error "$start_reply")"
expect_contains "... saying why" "$(json_field message "$start_reply")" "Too many open files"
expect_eq "... and the same connection still answers after it" "$S1" \
        "$(printf '%s\n' "$first" | sed -n 3p | _json_field name)"
expect_ne "... and the service did not start" running "$(svc_state "$MANUAL")"
check_svd_unharmed "every fd taken" "$rss"

# ---- recovered ----

run svctl start "$MANUAL"
expect_rc "fds free again: svctl start works" 0
track_pid "$(svc_pid "$MANUAL")"
expect_eq "... and the service runs" running "$(svc_state "$MANUAL")"
run svctl stop "$MANUAL"
expect_rc "... and stops" 0

# ---- again, while a second client waits in the backlog ----

hostile idle "$NOFILE" 2000 >"$T/idle2" 2>&1 &
job=$!
wait_until 30 grep -q '^open=' "$T/idle2"
t0=$(now_ms)
run svctl status "$S2"
t1=$(now_ms)
wait "$job"
expect_rc "a client that connects while no fd is left is served once fds are free" 0
diag "that status took $((t1 - t0)) ms (the first client held every fd for 2 s)"
echo "# metric case='status queued behind fd exhaustion' wait_ms=$((t1 - t0))"
check_svd_unharmed "backlog served after fd exhaustion" "$(rss_kb)"

done_testing
