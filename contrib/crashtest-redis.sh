#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The crash-recovery example: redis-server (appendonly, appendfsync always)
# under svd, a workload that records every write redis acknowledged, kill -9
# of svd at a random moment, and after each recovery a check that every
# acknowledged write is still there. One command:
#
#     contrib/crashtest-redis.sh [svd-crashtest options, e.g. --rounds 50 --seed 7]
#
# POWER_LOSS=1 deals the power-loss fault instead (svd-crashtest --fault
# power-loss --data on redis' directory): what redis did not fsync is lost
# too. APPENDFSYNC=no (default always) makes redis reply before it fsyncs,
# which a power cut shows and kill -9 does not.
#
# Builds svd, svd-crashtest and svd-powerfs into build/ (BUILD) when they are
# missing (SVD, SVD_CRASHTEST and SVD_POWERFS name other binaries);
# redis-server comes from contrib/install-deps.sh --test. The data, svd's
# log, the workload's log and the acknowledged writes stay in the directory
# it prints (removed when every round passed, unless KEEP=1).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=${BUILD:-$top/build}

command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1 || {
        echo "crashtest-redis: redis-server is missing: run contrib/install-deps.sh --test" >&2
        exit 77
}
svd=${SVD:-$build/daemon/svd}
crashtest=${SVD_CRASHTEST:-$build/ctl/svd-crashtest}
powerfs=${SVD_POWERFS:-$(dirname "$crashtest")/svd-powerfs}
appendfsync=${APPENDFSYNC:-always}
case $appendfsync in
always | everysec | no) ;;
*) echo "crashtest-redis: APPENDFSYNC=$appendfsync: always, everysec or no" >&2; exit 2 ;;
esac
if [ ! -x "$crashtest" ] || [ ! -x "$svd" ] || { [ "${POWER_LOSS:-0}" = 1 ] && [ ! -x "$powerfs" ]; }; then
        cmake -S "$top" -B "$build" >/dev/null
        cmake --build "$build" -j2 --target svd svd-crashtest >/dev/null
        [ "${POWER_LOSS:-0}" = 1 ] && cmake --build "$build" -j2 --target svd-powerfs >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/svd-crashtest-redis.XXXXXX")
mkdir "$work/units" "$work/data" "$work/sock"
sock=$work/sock/redis.sock
sed -e "s|@DATA@|$work/data|g" -e "s|@SOCK@|$sock|g" -e "s|@APPENDFSYNC@|$appendfsync|g" \
        "$here/crashtest-redis/redis.service.in" >"$work/units/redis.service"
acks=$work/acks
if [ "${POWER_LOSS:-0}" = 1 ]; then
        # redis makes its appendonlydir at its first start and never fsyncs the directory that
        # holds it: a power cut right after a first start loses the whole AOF, every write
        # acknowledged. That first start is made here, outside the rounds and synced, as a
        # package's first start would be long before a power cut: the rounds test the steady state.
        redis-server --port 0 --unixsocket "$sock" --dir "$work/data" --appendonly yes --save "" \
                --daemonize no --logfile "$work/first-start.log" &
        first=$!
        n=0
        until redis-cli -s "$sock" ping >/dev/null 2>&1; do
                n=$((n + 1))
                [ "$n" -lt 200 ] && kill -0 "$first" 2>/dev/null || { echo "crashtest-redis: redis did not start" >&2; exit 1; }
                sleep 0.05
        done
        redis-cli -s "$sock" shutdown nosave >/dev/null 2>&1
        wait "$first"
        sync
        set -- --fault power-loss --data "$work/data" --powerfs "$powerfs" "$@"
fi

echo "crashtest-redis: in $work"
rc=0
"$crashtest" --units "$work/units" --svd "$svd" --dir "$work/run" \
        --probe "redis-cli -s $sock ping" \
        --workload "sh $here/crashtest-redis/workload.sh $sock $acks" \
        --check "sh $here/crashtest-redis/check.sh $sock $acks" \
        --at random:200-1500 --rounds 10 "$@" || rc=$?
echo "crashtest-redis: $(wc -l <"$acks" 2>/dev/null || echo 0) acknowledged writes checked"
if [ "$rc" -eq 0 ] && [ "${KEEP:-0}" != 1 ]; then
        rm -rf "$work"
else
        echo "crashtest-redis: kept $work"
fi
exit "$rc"
