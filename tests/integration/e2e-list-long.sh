#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A list longer than one chunk (100 services): svd sends the first chunk at
# once and each further one from its event loop, so that other calls are
# answered between chunks. `svctl list` and `svctl --json list` show every
# service once; a client that asks with "more" gets one reply per chunk and
# a final one; a slow reader still gets them all, and while it holds a long
# list a Status call on another connection is answered; a client that asks
# and leaves at once leaves svd unharmed (tests/lib/hostile.sh). TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"
# shellcheck source=../lib/hostile.sh
. "$TESTS_DIR/lib/hostile.sh"

setup_test
hostile_setup

N=1200
awk -v n="$N" -v dir="$UNITS" -v tag="$TAG" -v sleep="$SLEEP" 'BEGIN {
        for (i = 0; i < n; i++) {
                f = sprintf("%s/%s-%04d.service", dir, tag, i)
                printf "[Unit]\nDescription=listed %d\n[Service]\nExecStart=%s 1000\n", i, sleep > f
                close(f)
        }
}'
TOTAL=$((N + 3)) # and hostile_setup's three
CHUNKS=$(((TOTAL + 99) / 100))

start_svd
hostile_baseline

run svctl list
expect_rc "svctl list exits 0" 0
expect_contains "svctl list counts every service" "$OUT" "$TOTAL services listed."
run svctl --json list
expect_rc "svctl --json list exits 0" 0
names=$(printf '%s\n' "$OUT" | grep -o '"name":"[^"]*"')
expect_eq "svctl --json list has every service" "$TOTAL" "$(printf '%s\n' "$names" | wc -l)"
expect_eq "svctl --json list has each one once" "$TOTAL" "$(printf '%s\n' "$names" | sort -u | wc -l)"

LIST='{"method":"io.svd.Manager.List","parameters":{},"more":true}'
READ_MS=$((20000 * TIMEOUT_FACTOR))
l=$(hostile stream 0 "$READ_MS" "$LIST")
diag "List with more: $l"
expect_contains "List with more: one reply per chunk of 100, then the end" "$l" "replies=$CHUNKS "
expect_contains "List with more: the last reply ends the call" "$l" "final=yes"

# A slow reader: nothing read for 2 s, while svd has the list under way.
hostile stream 2000 "$READ_MS" "$LIST" >"$T/slow.out" &
slow=$!
measure_latency
expect_eq "Status on another connection while a slow reader holds a list" ok "$LAT_REPLY"
wait "$slow"
l=$(cat "$T/slow.out")
diag "slow reader: $l"
expect_contains "the slow reader gets every chunk" "$l" "replies=$CHUNKS "
expect_contains "the slow reader gets the end" "$l" "final=yes"
check_svd_unharmed "List with more, slow reader" "$RSS_START"

# Asked for and gone: the rest of the list has nobody to go to.
i=0
while [ "$i" -lt 20 ]; do
        hostile send "$LIST"
        i=$((i + 1))
done
ok "List with more: 20 callers gone at once"
check_svd_unharmed "List with more, callers gone" "$RSS_START"

stop_svd
expect_eq "svd exits 0" 0 "$SVD_RC"
done_testing
