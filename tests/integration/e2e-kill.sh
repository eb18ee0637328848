#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# svctl kill: the signal reaches the main process (directly, or through
# svd's init with PrivatePIDs=yes), errors for unknown and stopped
# services, and svd's exit status bookkeeping of the signal. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

# The service records the signal it gets and exits 0 on it.
cat >"$T/trap.sh" <<EOF
trap 'echo usr1 >"$T/got.\$1"; exit 0' USR1
echo ready >"$T/ready.\$1"
while :; do $SLEEP 1; done
EOF
write_unit plain <<EOF
[Service]
ExecStart=$SH $T/trap.sh plain
EOF
write_unit ns <<EOF
[Service]
ExecStart=$SH $T/trap.sh ns
PrivatePIDs=yes
EOF

start_svd
run svctl kill plain
expect_rc "kill of a stopped service fails" 1
expect_contains "and says why" "$ERR" "no process"
run svctl kill nosuch
expect_rc "kill of an unknown service exits 4" 4
run svctl --signal BOGUS kill plain
expect_rc "an unknown signal is a usage error" 1

for name in plain ns; do
        run svctl start $name
        if [ $name = ns ] && [ "$RC" -ne 0 ]; then
                skip "PrivatePIDs=yes unavailable here: $ERR"
                continue
        fi
        expect_rc "start $name" 0
        check "$name is ready" wait_until 10 test -e "$T/ready.$name"
        run svctl --signal SIGUSR1 kill $name
        expect_rc "kill --signal SIGUSR1 $name" 0
        check "$name got SIGUSR1" wait_until 10 test -e "$T/got.$name"
        check "$name exited on it" wait_until 10 state_is $name inactive
done

done_testing
