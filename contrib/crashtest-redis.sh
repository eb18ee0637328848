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
# Builds svd and svd-crashtest into build/ (BUILD) when they are missing
# (SVD and SVD_CRASHTEST name other binaries);
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
if [ ! -x "$crashtest" ] || [ ! -x "$svd" ]; then
        cmake -S "$top" -B "$build" >/dev/null
        cmake --build "$build" -j2 --target svd svd-crashtest >/dev/null
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/svd-crashtest-redis.XXXXXX")
mkdir "$work/units" "$work/data"
sed "s|@DATA@|$work/data|g" "$here/crashtest-redis/redis.service.in" >"$work/units/redis.service"
sock=$work/data/redis.sock
acks=$work/acks

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
