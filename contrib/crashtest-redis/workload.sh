#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# workload.sh SOCKET ACKS: writes keys to redis one SET at a time and
# appends "KEY VALUE" to ACKS once redis has answered OK (with appendfsync
# always, OK comes after the write is on disk). A write that got no answer
# is not recorded: it may or may not survive. Runs until svd-crashtest ends
# it; while redis is down it retries.
sock=$1
acks=$2
round=${SVD_CRASHTEST_ROUND:-0}
i=0
while :; do
        i=$((i + 1))
        key="r$round:$i"
        value="v$round.$i.$$"
        if [ "$(redis-cli -s "$sock" SET "$key" "$value" 2>/dev/null)" = OK ]; then
                echo "$key $value" >>"$acks"
        else
                sleep 0.05
        fi
done
