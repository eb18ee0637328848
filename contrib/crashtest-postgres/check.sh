#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# check.sh SOCKDIR ACKS: every acknowledged row is there after recovery.
sockdir=$1
acks=$2
[ -s "$acks" ] || { echo "no acknowledged commit yet"; exit 0; }
cp "$acks" "$acks.now"
psql -h "$sockdir" -U postgres -d postgres -X -q -A -t -c "SELECT k FROM acked" >"$acks.got" ||
        { echo "psql failed"; exit 1; }
sort -u "$acks.got" >"$acks.got.sorted"
sort -u "$acks.now" | comm -23 - "$acks.got.sorted" >"$acks.lost"
lost=$(wc -l <"$acks.lost")
head -n 5 "$acks.lost" | sed 's/^/lost: /'
echo "round ${SVD_CRASHTEST_ROUND:-?}: $(wc -l <"$acks.now") acknowledged commits, $lost lost"
[ "$lost" -eq 0 ]
