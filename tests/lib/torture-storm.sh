#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# torture-storm.sh SVCTL OPS NAME...: the crash torture's workload (run by
# svd-crashtest, which sets SVD_SOCKET and SVD_CRASHTEST_SEED/_ROUND). A
# storm of start, stop, restart of the named services and daemon-reexec,
# one after the other, as fast as svd answers, in an order drawn from the
# seed and the round. Each operation is written to OPS as "try ID OP NAME"
# before it is sent, "ack ID OP NAME" once svctl reported success (what the
# check may rely on), "skip ID OP NAME" when svctl found no svd to connect
# to (the operation was never sent). In every even round a second loop
# re-executes svd over and over beside the storm, so that the kill often
# lands inside a re-execution. Runs until it is killed (its process group).
svctl=$1
ops=$2
shift 2
n=$#
round=${SVD_CRASHTEST_ROUND:-0}
x=$(((${SVD_CRASHTEST_SEED:-1} % 1000003) * 7919 + round))
if [ $((round % 2)) -eq 0 ]; then
        (
                r=0
                while :; do
                        r=$((r + 1))
                        echo "try $round.r$r daemon-reexec -" >>"$ops"
                        "$svctl" daemon-reexec >/dev/null 2>&1 && echo "ack $round.r$r daemon-reexec -" >>"$ops"
                done
        ) &
fi
i=0
while :; do
        i=$((i + 1))
        x=$(((x * 1103515245 + 12345) % 2147483648))
        k=$((x / 65536 % (n * 3 + 1)))
        if [ "$k" -eq $((n * 3)) ]; then
                op=daemon-reexec
                name=-
        else
                j=$((k / 3 + 1))
                eval "name=\${$j}"
                case $((k % 3)) in
                0) op=start ;;
                1) op=stop ;;
                *) op=restart ;;
                esac
        fi
        echo "try $round.$i $op $name" >>"$ops"
        if [ "$op" = daemon-reexec ]; then
                err=$("$svctl" daemon-reexec 2>&1 >/dev/null)
        else
                err=$("$svctl" "$op" "$name" 2>&1 >/dev/null)
        fi
        rc=$?
        if [ "$rc" -eq 0 ]; then
                echo "ack $round.$i $op $name" >>"$ops"
        else
                # No svd to send it to (killed, not yet restarted): it never happened.
                case $err in *"is not running"*) echo "skip $round.$i $op $name" >>"$ops" ;; esac
        fi
done
