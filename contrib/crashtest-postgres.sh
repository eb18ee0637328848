#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The crash-recovery example for PostgreSQL (Debian's postgresql-15): the
# server under svd, a workload that records every commit it saw answered,
# a fault at a random moment, and after each recovery a check that every
# acknowledged commit is still there. One command, as root:
#
#     contrib/crashtest-postgres.sh [svd-crashtest options, e.g. --rounds 50 --seed 7]
#
# FAULT (default svd-kill) is svd-crashtest's --fault: power-loss deals the
# power cut to the cluster's directory (--data). FSYNC=off (default on)
# runs PostgreSQL with fsync=off, which acknowledges commits that a power
# cut loses. The cluster is made by initdb and started once outside the
# rounds, as a package's first start would be.
#
# Builds svd, svd-crashtest and svd-powerfs into build/ (BUILD) when they are
# missing. The cluster, svd's log, the workload's log and the acknowledged
# commits stay in the directory it prints (removed when every round passed,
# unless KEEP=1).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=${BUILD:-$top/build}
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
version=$(basename "$(dirname "$bindir")")

[ -n "$bindir" ] && [ -x "$bindir/postgres" ] && command -v psql >/dev/null 2>&1 || {
        echo "crashtest-postgres: PostgreSQL is missing: apt install postgresql-15" >&2
        exit 77
}
[ "$(id -u)" = 0 ] || { echo "crashtest-postgres: run it as root (PostgreSQL runs as the postgres user)" >&2; exit 77; }
svd=${SVD:-$build/daemon/svd}
crashtest=${SVD_CRASHTEST:-$build/ctl/svd-crashtest}
powerfs=${SVD_POWERFS:-$(dirname "$crashtest")/svd-powerfs}
fsync=${FSYNC:-on}
fault=${FAULT:-svd-kill}
case $fsync in
on | off) ;;
*) echo "crashtest-postgres: FSYNC=$fsync: on or off" >&2; exit 2 ;;
esac
if [ ! -x "$crashtest" ] || [ ! -x "$svd" ] || [ ! -x "$powerfs" ]; then
        cmake -S "$top" -B "$build" >/dev/null
        cmake --build "$build" -j2 --target svd svd-crashtest svd-powerfs >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/svd-crashtest-postgres.XXXXXX")
chmod 0755 "$work"
mkdir "$work/units" "$work/data" "$work/sock"
chown postgres:postgres "$work/data" "$work/sock"
chmod 0700 "$work/data"
runuser -u postgres -- "$bindir/initdb" -D "$work/data" -U postgres -A trust --no-instructions >"$work/initdb.log"

# The first start, outside the rounds: the table, then a clean stop and a sync.
runuser -u postgres -- "$bindir/pg_ctl" -D "$work/data" -o "-k $work/sock -c listen_addresses=" -w -l "$work/sock/first-start.log" start >/dev/null
psql -h "$work/sock" -U postgres -d postgres -X -q -c "CREATE TABLE acked (k text PRIMARY KEY)"
runuser -u postgres -- "$bindir/pg_ctl" -D "$work/data" -w -m fast stop >/dev/null
sync

sed -e "s|@DATA@|$work/data|g" -e "s|@SOCKDIR@|$work/sock|g" -e "s|@FSYNC@|$fsync|g" -e "s|@BINDIR@|$bindir|g" \
        -e "s|@VERSION@|$version|g" "$here/crashtest-postgres/postgres.service.in" >"$work/units/postgres.service"
acks=$work/acks
case $fault in
*power-loss*) set -- --data "$work/data" --powerfs "$powerfs" "$@" ;;
esac

echo "crashtest-postgres: in $work (PostgreSQL $version, fsync=$fsync, --fault $fault)"
rc=0
"$crashtest" --units "$work/units" --svd "$svd" --dir "$work/run" --fault "$fault" \
        --probe "psql -h $work/sock -U postgres -d postgres -X -q -c 'SELECT 1'" \
        --workload "sh $here/crashtest-postgres/workload.sh $work/sock $acks" \
        --check "sh $here/crashtest-postgres/check.sh $work/sock $acks" \
        --at random:500-2000 --rounds 10 "$@" || rc=$?
echo "crashtest-postgres: $(wc -l <"$acks" 2>/dev/null || echo 0) acknowledged commits checked"
if [ "$rc" -eq 0 ] && [ "${KEEP:-0}" != 1 ]; then
        rm -rf "$work"
else
        echo "crashtest-postgres: kept $work"
fi
exit "$rc"
