#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The README's crash-recovery example, as a user runs it:
# contrib/crashtest-redis.sh (redis-server with appendfsync always under
# svd, a workload that records every acknowledged SET, kill -9 of svd at
# random moments, a check that every acknowledged write is there after each
# recovery) passes 5 rounds of seed 23 and checks a non-zero number of
# writes. Skips without redis-server (contrib/install-deps.sh --test). Not
# in tests/integration: the kernel lab runs every test there, and its image
# has neither contrib/ nor redis-server. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

command -v redis-server >/dev/null 2>&1 || skip_all "redis-server is not installed (contrib/install-deps.sh --test)"
SOURCE=${SVD_SOURCE_DIR:-$(dirname "$TESTS_DIR")}
CRASHTEST=${SVD_CRASHTEST:-$(dirname "$SVCTL")/svd-crashtest}
WRAP=
[ -n "$TEST_CG" ] && WRAP="$SH $T/in-test-cgroup"

# shellcheck disable=SC2086
TMPDIR=$T SVD_CRASHTEST=$CRASHTEST $WRAP sh "$SOURCE/contrib/crashtest-redis.sh" --rounds 5 --seed 23 \
        >"$T/out" 2>"$T/err"
RC=$?
sed 's/^/#   /' "$T/out"
expect_eq "the example passes" 0 "$RC"
expect_eq "... 5 rounds, each checked" 5 "$(grep -c '^round [0-9]* ok .*survivors=0 .*check=ok' "$T/out")"
writes=$(sed -n 's/^crashtest-redis: \([0-9]*\) acknowledged writes checked$/\1/p' "$T/out")
check "... over acknowledged writes ($writes)" test "${writes:-0}" -gt 0
expect_eq "... and says 'kept' of no directory it then removed" "" \
        "$(grep 'kept' "$T/out" "$T/err")"

done_testing
