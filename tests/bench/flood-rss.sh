#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Benchmark: svd's resident memory across floods of half-sent calls. Each
# of BENCH_FLOOD_ROUNDS (default 4) rounds opens 900 connections that each
# send 60 kB of a message that never ends and hold them for a second, then
# close them all. Prints VmRSS at the start, while the connections are held
# and after they are gone (once svd has given the buffers back, waited for
# up to 10 s), as "# metric" lines; asserts only that svd answers after
# every round. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"
# shellcheck source=../lib/hostile.sh
. "$TESTS_DIR/lib/hostile.sh"

setup_test
hostile_setup
start_svd
hostile_baseline

START=$(rss_kb)
# back_to START_KB: svd's RSS is within 4 MiB of where it started.
back_to() {
        [ "$(rss_kb)" -le $(($1 + 4096)) ]
}
r=1
while [ "$r" -le "${BENCH_FLOOD_ROUNDS:-4}" ]; do
        hostile partial 900 60000 1000 >"$T/partial" &
        H=$!
        wait_until 10 grep -q '^connections=' "$T/partial"
        held=$(rss_kb)
        wait "$H"
        run svctl status "$S1"
        expect_rc "round $r: svd answers after the flood" 0
        wait_until 10 back_to "$START"
        echo "# metric case='flood round $r' rss_start_kb=$START rss_held_kb=$held rss_after_kb=$(rss_kb)"
        r=$((r + 1))
done
done_testing
