#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# contrib/crashtest-postgres.sh as a user runs it, under the power-loss
# fault (svd-powerfs over the cluster's directory): PostgreSQL with
# fsync=on loses no acknowledged commit in 5 rounds of seed 11, and with
# fsync=off it loses acknowledged commits within 5 rounds. Skips without
# PostgreSQL (contrib/install-deps.sh --test), root, svd-powerfs or
# /dev/fuse. Not in tests/integration: the lab's image has no PostgreSQL.
# TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || skip_all "PostgreSQL is not installed (contrib/install-deps.sh --test)"
[ "$(id -u)" = 0 ] || skip_all "needs root (PostgreSQL runs as the postgres user)"
SOURCE=${SVD_SOURCE_DIR:-$(dirname "$TESTS_DIR")}
CRASHTEST=${SVD_CRASHTEST:-$(dirname "$SVCTL")/svd-crashtest}
[ -x "$(dirname "$CRASHTEST")/svd-powerfs" ] || skip_all "no svd-powerfs (built with libfuse3)"
[ -c /dev/fuse ] || skip_all "no /dev/fuse"
WRAP=
[ -n "$TEST_CG" ] && WRAP="$SH $T/in-test-cgroup"
# PostgreSQL (the postgres user) must reach its directories below $T.
chmod 0755 "$T"

# shellcheck disable=SC2086
FAULT=power-loss TMPDIR=$T SVD_CRASHTEST=$CRASHTEST $WRAP sh "$SOURCE/contrib/crashtest-postgres.sh" \
        --rounds 5 --seed 11 >"$T/on.out" 2>"$T/on.err"
RC=$?
sed 's/^/#   /' "$T/on.out" | cut -c1-300
expect_eq "fsync=on: power-loss loses no acknowledged commit in 5 rounds" 0 "$RC"
expect_eq "... 5 power-loss rounds, each checked" 5 "$(grep -c '^round [0-9]* ok fault=power-loss .*check=ok' "$T/on.out")"
commits=$(sed -n 's/^crashtest-postgres: \([0-9]*\) acknowledged commits checked$/\1/p' "$T/on.out")
check "... over acknowledged commits ($commits)" test "${commits:-0}" -gt 0

# shellcheck disable=SC2086
FAULT=power-loss FSYNC=off TMPDIR=$T SVD_CRASHTEST=$CRASHTEST $WRAP sh "$SOURCE/contrib/crashtest-postgres.sh" \
        --rounds 5 --seed 11 --stop-on-failure >"$T/off.out" 2>"$T/off.err"
RC=$?
sed 's/^/#   /' "$T/off.out" | cut -c1-300
expect_eq "fsync=off: power-loss loses acknowledged commits within 5 rounds" 1 "$RC"
expect_contains "... found by the check" "$(grep FAIL "$T/off.out")" "the check failed"

done_testing
