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

# The power-loss fault (svd-powerfs over redis' directory): appendfsync always still loses
# nothing; appendfsync no replies before the fsync, which a power cut shows.
if [ ! -x "$(dirname "$CRASHTEST")/svd-powerfs" ] || [ ! -c /dev/fuse ] || [ "$(id -u)" != 0 ]; then
        skip "power-loss: appendfsync always loses nothing" "needs svd-powerfs (libfuse3), /dev/fuse and root"
        skip "power-loss: appendfsync no loses acknowledged writes" "needs svd-powerfs (libfuse3), /dev/fuse and root"
else
        # shellcheck disable=SC2086
        POWER_LOSS=1 TMPDIR=$T SVD_CRASHTEST=$CRASHTEST $WRAP sh "$SOURCE/contrib/crashtest-redis.sh" \
                --rounds 5 --seed 23 >"$T/pl.out" 2>"$T/pl.err"
        RC=$?
        sed 's/^/#   /' "$T/pl.out"
        expect_eq "power-loss: appendfsync always loses nothing in 5 rounds" 0 "$RC"
        expect_eq "... each a power-loss round, checked" 5 \
                "$(grep -c '^round [0-9]* ok fault=power-loss .*check=ok' "$T/pl.out")"
        # shellcheck disable=SC2086
        POWER_LOSS=1 APPENDFSYNC=no TMPDIR=$T SVD_CRASHTEST=$CRASHTEST $WRAP sh "$SOURCE/contrib/crashtest-redis.sh" \
                --rounds 5 --seed 23 --stop-on-failure >"$T/plno.out" 2>"$T/plno.err"
        RC=$?
        sed 's/^/#   /' "$T/plno.out" | cut -c1-400
        expect_eq "power-loss: appendfsync no loses acknowledged writes within 5 rounds" 1 "$RC"
        expect_contains "... found by the check" "$(grep FAIL "$T/plno.out")" "the check failed"
        expect_contains "... and the round names the AOF whose writes were dropped" "$(grep FAIL "$T/plno.out")" \
                "dropped-files=appendonlydir/appendonly.aof"
fi

done_testing
