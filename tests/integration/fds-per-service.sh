#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# What svd holds per running service: its pidfd and one pipe for stdout and
# stderr together (systemd's journal takes them as one stream), no cgroup
# directory; a unit that sends stderr to a place of its own adds the one
# pipe of it. Counted in /proc/SVD/fd with 100 services running, and again
# after they all stopped (nothing left behind). TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

N=100
i=0
while [ $i -lt $N ]; do
        write_unit "many$i" <<UNIT
[Service]
ExecStart=$SLEEP 1000
UNIT
        i=$((i + 1))
done
write_unit apart <<UNIT
[Service]
ExecStart=$SLEEP 1000
StandardOutput=file:$T/apart.log
StandardError=journal
UNIT

svd_fds() {
        find "/proc/$SVD_PID/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l
}

n_running() {
        [ "$(svctl list | grep -c ' running')" -eq "$1" ]
}

start_svd
BASE=$(svd_fds)
i=0
while [ $i -lt $N ]; do
        svctl start "many$i" || break
        i=$((i + 1))
done
check "$N services running" wait_until 30 n_running $N
FDS=$(svd_fds)
diag "svd's fds: $BASE with none running, $FDS with $N"
check "at most two fds per running service ($(((FDS - BASE) * 10 / N / 10)).$(((FDS - BASE) * 10 / N % 10)))" \
        test $((FDS - BASE)) -le $((2 * N))
# Each service's cgroup directory is opened only while it is needed.
if [ "$(svctl --json info | json_field cgroup)" = true ]; then
        CG=$(find "/proc/$SVD_PID/fd" -mindepth 1 -maxdepth 1 -exec readlink {} \; 2>/dev/null | grep -c '/many[0-9]*$')
        expect_eq "no service's cgroup directory is held open" 0 "$CG"
else
        skip "no service's cgroup directory is held open" "svd has no cgroup here (not root, or no cgroup2)"
fi

run svctl start apart
expect_rc "start apart (stdout to a file, stderr to the log)" 0
check "apart runs" wait_until 10 state_is apart running
APART=$(svd_fds)
# Its pidfd, the two pipes and the file.
expect_eq "a stderr of its own adds its pipe: pidfd, two pipes, the file" 4 $((APART - FDS))

i=0
while [ $i -lt $N ]; do
        svctl stop "many$i" >/dev/null || break
        i=$((i + 1))
done
svctl stop apart >/dev/null
check "all stopped" wait_until 30 n_running 0
expect_eq "svd is back to its fds with none running" "$BASE" "$(svd_fds)"

done_testing
