#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# svd under valgrind's memcheck through the end-to-end tests: each test of
# the list runs with SVD_VALGRIND set (tests/lib/lib.sh puts valgrind in
# front of every svd it starts) and TIMEOUT_FACTOR=10, then every log must
# say "ERROR SUMMARY: 0 errors" and lose nothing definitely or indirectly.
# Tests that end svd with kill -9 (crash, contain, e2e-restore) leave no
# summary and are not in the list; neither are creds (valgrind keeps fds
# of its own and refuses a service's LimitNOFILE= raise: EPERM) nor
# e2e-restart-policy (it measures back-off delays, which valgrind's
# slowness skews). Logs of processes that only forked and
# exec'd a service have no summary either (--child-silent-after-fork).
#
# Usage: valgrind.sh [TEST...]   (default: the list below). Exit 77 (skip)
# without valgrind. TAP.
set -u

if ! command -v valgrind >/dev/null 2>&1; then
        echo "1..0 # SKIP valgrind is not installed (apt-get install valgrind)"
        exit 77
fi
: "${SVD_TESTS:?SVD_TESTS must name the tests/ source directory}"

[ $# -gt 0 ] || set -- e2e-basic e2e-restart e2e-stop-timeout e2e-kill e2e-notify e2e-deps \
        e2e-logs e2e-events e2e-reload hostile-input hostile-disconnect exhaust-flood

work=$(mktemp -d "${TMPDIR:-/tmp}/svd-valgrind.XXXXXX") || exit 1
n=0
failed=0
echo "1..$#"
for t in "$@"; do
        n=$((n + 1))
        dir=$work/$t
        mkdir "$dir"
        TIMEOUT_FACTOR=10 SVD_VALGRIND=$dir sh "$SVD_TESTS/integration/$t.sh" >"$dir/test.out" 2>&1
        rc=$?
        summaries=$(cat "$dir"/vg.*.log 2>/dev/null | grep -c "ERROR SUMMARY:")
        bad=$(grep -l -E "ERROR SUMMARY: [1-9]|(definitely|indirectly) lost: [1-9]" "$dir"/vg.*.log 2>/dev/null)
        if [ "$rc" != 0 ]; then
                echo "not ok $n - $t under valgrind: the test failed (status $rc)"
                sed 's/^/# /' "$dir/test.out" | grep -E "^# (not ok|Bail)" | head -n 20
                failed=$((failed + 1))
        elif [ -n "$bad" ]; then
                echo "not ok $n - $t under valgrind: memcheck reports"
                for f in $bad; do
                        sed 's/^/# /' "$f" | head -n 80
                done
                failed=$((failed + 1))
        elif [ "$summaries" -eq 0 ]; then
                echo "not ok $n - $t under valgrind: no svd exited with a memcheck summary"
                failed=$((failed + 1))
        else
                echo "ok $n - $t under valgrind: $summaries svd runs, 0 errors, no leaks"
        fi
done
if [ "$failed" -eq 0 ]; then
        rm -rf "$work"
else
        echo "# logs kept in $work"
fi
[ "$failed" -eq 0 ]
