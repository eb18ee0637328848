#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# workload.sh SOCKDIR ACKS: inserts rows into PostgreSQL one transaction at
# a time, through one psql that reads its commands from a pipe, and appends
# "KEY" to ACKS once the commit has been answered (with fsync=on and
# synchronous_commit=on the answer comes after the commit is on disk). A
# commit that got no answer is not recorded: it may or may not survive.
# While PostgreSQL is down it retries with a new psql. Runs until
# svd-crashtest ends it.
sockdir=$1
acks=$2
round=${SVD_CRASHTEST_ROUND:-0}
i=0
while :; do
        # One psql per connection: each INSERT is echoed back by a SELECT of its key once it
        # committed (autocommit), and only then recorded.
        {
                while :; do
                        i=$((i + 1))
                        echo "INSERT INTO acked VALUES ('r$round:$i:$$'); SELECT 'ok r$round:$i:$$';"
                        sleep 0.01
                done
        } | psql -h "$sockdir" -U postgres -d postgres -X -q -A -t -v ON_ERROR_STOP=1 2>/dev/null |
                while read -r word key; do
                        [ "$word" = ok ] && echo "$key" >>"$acks"
                done
        sleep 0.1
done
