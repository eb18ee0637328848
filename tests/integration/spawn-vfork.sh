#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The vfork spawn path under load: the path that svd's plain builds ship for
# every service without PrivatePIDs= (CLONE_VM | CLONE_VFORK | CLONE_FILES on
# svd's own memory and fd table, daemon/spawn.c). The sanitizer build does
# not compile it and valgrind has no clone3(), so this test, run by the plain
# build on the host and in the lab, is where that path is exercised as
# shipped. svd says at debug level which path it took; where the path is not
# built in, the test skips with that reason.
#
# VFORK_SERVICES services (default 32), started and stopped VFORK_ROUNDS
# times (default 4, every other round by one restart of all): each time every
# service runs with a pid of its own whose parent is svd, holds exactly fds
# 0, 1 and 2 (none of svd's pidfds, pipes or reserved slots), and (first and
# last round) its stdout and stderr lines arrive through the slots; an exec failure and a chdir
# failure are reported with their stage; afterwards svd holds as many fds as
# before (the slots hold /dev/null again). TAP output.
#
# lab: plain build only: the sanitizer build does not compile the vfork path

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

N=${VFORK_SERVICES:-32}
ROUNDS=${VFORK_ROUNDS:-4}

NAMES=
i=1
while [ "$i" -le "$N" ]; do
        write_unit "v$i" <<EOF
[Service]
ExecStart=$SH -c "echo out-v$i; echo err-v$i >&2; exec $SLEEP 1000"
EOF
        NAMES="$NAMES v$i"
        i=$((i + 1))
done
write_unit noexec <<EOF
[Service]
ExecStart=$T/does-not-exist
EOF
write_unit nodir <<EOF
[Service]
ExecStart=$SLEEP 1000
WorkingDirectory=$T/no-such-directory
EOF

start_svd -v

# fd_count PID: PID's fds but sockets. svctl's connections to svd come and go (one may still be open
# when the count is first taken, just after svd came up); what a spawn could leak are pidfds, pipes
# and /dev/null.
fd_count() {
        # shellcheck disable=SC2012 # the link targets are what is wanted, and ls -l prints them
        ls -l "/proc/$1/fd" 2>/dev/null | grep -- '->' | grep -vc 'socket:'
}

# services_ok: every service of $NAMES runs, as svd's child, with fds 0-2 only.
# Sets BAD to what is wrong.
services_ok() {
        BAD=
        svctl --json status $NAMES >"$T/.st" 2>/dev/null || { BAD="status failed"; return 1; }
        while read -r _l; do
                _n=$(json_field name "$_l")
                [ "$(json_field state "$_l")" = running ] || { BAD="$BAD $_n:not-running"; continue; }
                _p=$(json_field pid "$_l")
                proc_stat "$_p" || { BAD="$BAD $_n:no-process"; continue; }
                [ "$P_PPID" = "$SVD_PID" ] || BAD="$BAD $_n:parent=$P_PPID"
                _fds=$(ls "/proc/$_p/fd" 2>/dev/null | sort -n | tr '\n' ' ')
                [ "$_fds" = "0 1 2 " ] || BAD="$BAD $_n:fds=[$_fds]"
        done <"$T/.st"
        [ "$(grep -c . "$T/.st")" -eq "$N" ] || BAD="$BAD count=$(grep -c . "$T/.st")"
        [ -z "$BAD" ]
}

all_running_n() {
        [ "$(svctl --json status $NAMES 2>/dev/null | grep -c '"state":"running"')" -eq "$N" ]
}

all_inactive_n() {
        [ "$(svctl --json status $NAMES 2>/dev/null | grep -c '"state":"inactive"')" -eq "$N" ]
}

# The output of every service reached svd through the stdout and stderr slots.
output_ok() {
        BAD=
        for _n in $NAMES; do
                _o=$(svctl logs "$_n" 2>/dev/null)
                case $_o in *"out-$_n"*) ;; *) BAD="$BAD $_n:stdout" ;; esac
                case $_o in *"err-$_n"*) ;; *) BAD="$BAD $_n:stderr" ;; esac
        done
        [ -z "$BAD" ]
}

FDS0=$(fd_count "$SVD_PID")

# shellcheck disable=SC2086
run svctl start $NAMES
expect_rc "svctl start of $N services" 0

if grep -q "Spawning fork-like, not on the vfork path: not built in" "$SVD_LOG"; then
        stop_svd
        skip_all "the vfork path is not built into this svd ($(grep -o 'not built in ([^)]*)' "$SVD_LOG" | head -n 1))"
fi
check "svd spawned on the vfork path" grep -q "Spawning on the vfork path" "$SVD_LOG"
FORKLIKE=$(grep -o 'Spawning fork-like.*' "$SVD_LOG" | head -n 1)
[ -z "$FORKLIKE" ] || diag "also: $FORKLIKE"

round=1
PROBLEMS=
while [ "$round" -le "$ROUNDS" ]; do
        wait_until 30 all_running_n || PROBLEMS="$PROBLEMS round$round:not-all-running"
        services_ok || PROBLEMS="$PROBLEMS round$round:[$BAD]"
        if [ "$round" -eq 1 ] || [ "$round" -eq "$ROUNDS" ]; then
                wait_until 10 output_ok || PROBLEMS="$PROBLEMS round$round:output[$BAD]"
        fi
        if [ $((round % 2)) -eq 0 ]; then
                # shellcheck disable=SC2086
                svctl restart $NAMES >/dev/null 2>&1 || PROBLEMS="$PROBLEMS round$round:restart-rc"
                wait_until 30 all_running_n || PROBLEMS="$PROBLEMS round$round:not-running-after-restart"
                services_ok || PROBLEMS="$PROBLEMS round$round:after-restart[$BAD]"
        fi
        # shellcheck disable=SC2086
        svctl stop $NAMES >/dev/null 2>&1 || PROBLEMS="$PROBLEMS round$round:stop-rc"
        wait_until 30 all_inactive_n || PROBLEMS="$PROBLEMS round$round:not-all-inactive"
        round=$((round + 1))
        if [ "$round" -le "$ROUNDS" ]; then
                # shellcheck disable=SC2086
                svctl start $NAMES >/dev/null 2>&1 || PROBLEMS="$PROBLEMS round$round:start-rc"
        fi
done
expect_eq "$ROUNDS rounds of $N starts, restarts and stops on the vfork path" "" "$PROBLEMS"

run svctl start noexec
expect_rc "an exec failure fails the start" 1
expect_contains "... reported from the child as the exec stage" "$ERR" "exec"
expect_contains "... with its errno" "$ERR" "No such file or directory"
run svctl start nodir
expect_rc "a chdir failure fails the start" 1
expect_contains "... reported from the child as the chdir stage" "$ERR" "chdir"

fds_back() {
        [ "$(fd_count "$SVD_PID")" -eq "$FDS0" ]
}
check "svd holds as many fds as before, sockets aside ($FDS0)" wait_until 10 fds_back

stop_svd
expect_eq "svd exits 0 on SIGTERM" 0 "$SVD_RC"
done_testing
