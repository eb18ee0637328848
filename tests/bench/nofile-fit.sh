#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Benchmark: how many running services fit in svd's RLIMIT_NOFILE. svd holds
# a pidfd and one output pipe per running service, so with a hard limit of
# 20 000 (BENCH_NOFILE), 9 900 services (BENCH_SERVICES) run with room to
# spare. svd is started under that hard limit (it raises its soft limit to
# it) with that many Restart=always services, all wanted by default.target.
# Asserts that all of them run, none failed, and svd holds two fds per
# service and a few of its own; prints
# svd's fds, fds per service, start-all and stop-all times and svd's PSS as
# "# metric" lines. Root can only lower its hard limit here; a hard limit
# below the figure asked for is a SKIP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

N=${BENCH_SERVICES:-9900}
NOFILE=${BENCH_NOFILE:-20000}

if [ "$(date +%N 2>/dev/null | tr -d 0-9)" = "" ] && [ -n "$(date +%N 2>/dev/null)" ]; then
        now_ms() {
                _ns=$(date +%s%N)
                echo $((_ns / 1000000))
        }
fi

setup_test
HARD=$(ulimit -Hn)
[ "$HARD" = unlimited ] || [ "$HARD" -ge "$NOFILE" ] || skip_all "the hard RLIMIT_NOFILE is $HARD, below $NOFILE"
# pid_max and threads-max bound the processes, not svd.
PIDMAX=$(cat /proc/sys/kernel/pid_max)
[ "$PIDMAX" -gt $((N + 1000)) ] || skip_all "kernel.pid_max is $PIDMAX, too few for $N services"

awk -v n="$N" -v dir="$UNITS" -v sleep="$SLEEP" 'BEGIN {
        for (i = 0; i < n; i++) {
                f = sprintf("%s/fit-%05d.service", dir, i)
                printf "[Unit]\nStartLimitIntervalSec=0\n[Service]\nExecStart=%s 100000\nRestart=always\nRestartSec=0\n[Install]\nWantedBy=default.target\n", sleep > f
                close(f)
        }
}'
printf 'ulimit -n %s && exec "$@"\n' "$NOFILE" >"$T/nofile"
SVD_WRAPPER="$SH $T/nofile"

n_running() {
        svctl --json list | grep -o '"state":"running"' | wc -l
}
all_running() {
        [ "$(n_running)" -ge "$N" ]
}

t0=$(now_ms)
start_svd
# The last unit in name order starts last.
LAST=$(printf 'fit-%05d' $((N - 1)))
wait_until 600 state_is "$LAST" running
t1=$(now_ms)
check "all $N services run under a hard RLIMIT_NOFILE of $NOFILE" wait_until 120 all_running
FDS=$(find "/proc/$SVD_PID/fd" -mindepth 1 -maxdepth 1 | wc -l)
LIMIT=$(awk '/^Max open files/ { print $4 " " $5 }' "/proc/$SVD_PID/limits")
expect_eq "svd's soft limit is its hard one" "$NOFILE $NOFILE" "$LIMIT"
check "svd holds at most two fds per service beyond 64 of its own ($FDS)" test "$FDS" -le $((2 * N + 64))
check "no service failed" sh -c '! grep -q "→ failed" "$1"' sh "$SVD_LOG"
# Within a few dozen fds of the limit, a start can meet EMFILE while others are being set up; svd
# retries it with its back-off (and says so once a second): counted here, not a failure.
EXHAUSTED=$(grep -c "Too many open files" "$SVD_LOG")
diag "starts that met EMFILE and were retried: $EXHAUSTED log lines"
echo "# metric services=$N emfile_log_lines=$EXHAUSTED"
PSS=$(awk '/^Pss:/ { print $2 }' "/proc/$SVD_PID/smaps_rollup")
echo "# metric services=$N start_all_ms=$((t1 - t0)) svd_fds=$FDS fds_per_service=$(awk -v f="$FDS" -v n="$N" 'BEGIN { printf "%.3f", f / n }') svd_pss_kb=$PSS pss_per_service_kb=$(awk -v p="$PSS" -v n="$N" 'BEGIN { printf "%.2f", p / n }')"
t0=$(now_ms)
stop_svd
t1=$(now_ms)
echo "# metric services=$N stop_all_ms=$((t1 - t0))"
expect_eq "svd exits 0 after stopping them all" 0 "$SVD_RC"
done_testing
