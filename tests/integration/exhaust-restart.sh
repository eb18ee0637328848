#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# svd out of descriptors while services ask to be restarted at once: 40
# services with Restart=always, RestartSec=0 and no start limit, wanted at
# start-up, under an RLIMIT_NOFILE that fits only some of them. The starts
# that fail say why (Too many open files) in the service's status; svd
# retries them with a back-off of its own (100 ms, doubled up to 6.4 s)
# instead of at once, and says so in its log once a second at most; the
# services that run keep running; once some stop, the others start. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test
N=40
NOFILE=${EXHAUST_NOFILE:-96}
i=0
while [ "$i" -lt "$N" ]; do
        i=$((i + 1))
        write_unit "flood-$i" <<EOF
[Service]
ExecStart=$SLEEP 10000
Restart=always
RestartSec=0
StartLimitIntervalSec=0
[Install]
WantedBy=default.target
EOF
done
low_nofile_wrapper "$NOFILE"
start_svd
t0=$(now_ms)

# running: how many of the flood run now (one List).
running() {
        svctl list --json 2>/dev/null | tr '{' '\n' | grep '"name":"flood-' | grep -c '"state":"running"'
}
# Until the first start that failed for want of descriptors has been logged, and a few seconds more.
check "some starts fail for want of descriptors" wait_until 20 grep -q 'Too many open files (retrying with a back-off' "$SVD_LOG"
sleep 4
t1=$(now_ms)
lines=$(wc -l <"$SVD_LOG")
said=$(grep -c 'retrying with a back-off' "$SVD_LOG")
secs=$(((t1 - t0) / 1000 + 1))
diag "in ${secs} s svd logged $lines lines, $said of them about failed starts"
check "svd says it once a second at most ($said times in ${secs} s)" test "$said" -le "$((secs + 1))"
expect_contains "... with a count of what it did not say" "$(cat "$SVD_LOG")" "in the last second, not logged"
check "svd's log does not flood ($lines lines in ${secs} s)" test "$lines" -lt 400
up=$(running)
diag "$up of $N running under RLIMIT_NOFILE $NOFILE"
check "some services run ($up)" test "$up" -gt 0
check "... not all ($up of $N)" test "$up" -lt "$N"

# A service that could not start says why in its status.
down=""
i=0
while [ "$i" -lt "$N" ] && [ -z "$down" ]; do
        i=$((i + 1))
        [ "$(svc_state "flood-$i")" = running ] || down=flood-$i
done
run svctl status "$down"
expect_contains "a service that could not start: its status says why ($down)" "$OUT" "Too many open files"
pids_before=""
i=0
while [ "$i" -lt "$N" ]; do
        i=$((i + 1))
        [ "$(svc_state "flood-$i")" = running ] && pids_before="$pids_before flood-$i:$(svc_pid "flood-$i")"
done

# Room made: ten of the running ones stop, and the back-off starts others in their place.
stopped=0
for e in $pids_before; do
        [ "$stopped" -lt 10 ] || break
        run svctl stop "${e%%:*}"
        [ "$RC" = 0 ] && stopped=$((stopped + 1))
done
started_more() { [ "$(running)" -gt "$((up - stopped))" ]; }
check "once ten stop, the back-off starts others within 15 s" wait_until 15 started_more
kept=0
for e in $pids_before; do
        n=${e%%:*}
        [ "$(svc_state "$n")" = running ] && [ "$(svc_pid "$n")" = "${e#*:}" ] && kept=$((kept + 1))
done
expect_eq "the services that ran and were not stopped kept running, the same processes" \
        "$(($(echo "$pids_before" | wc -w) - stopped))" "$kept"

done_testing
