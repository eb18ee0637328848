#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# check.sh SOCKET ACKS: every acknowledged write is there after recovery:
# one GET per line of ACKS, through one redis-cli, each answer compared
# with the value that was acknowledged.
sock=$1
acks=$2
[ -s "$acks" ] || { echo "no acknowledged write yet"; exit 0; }
# One copy, read twice: a line added in between must not shift the pairs.
cp "$acks" "$acks.now"
awk '{ print "GET " $1 }' "$acks.now" | redis-cli -s "$sock" >"$acks.got" || { echo "redis-cli failed"; exit 1; }
paste -d' ' "$acks.now" "$acks.got" | awk -v round="${SVD_CRASHTEST_ROUND:-?}" '
        $2 != $3 { lost++; if (lost <= 5) print "lost: " $1 " acknowledged as " $2 ", now \"" $3 "\"" }
        END { printf "round %s: %d acknowledged writes, %d lost\n", round, NR, lost; exit lost > 0 }'
