#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Benchmark: what the power-loss layer (svd-powerfs) costs.
# - Throughput of writes with and without the layer, BENCH_POWERFS_RUNS
#   (default 3) runs of each, alternated, medians and their ratio: 256 MiB
#   in 64 KiB writes (a bulk writer; into the page cache either way), and
#   2000 writes of 4 KiB each made durable on its own (O_DSYNC: a log that
#   commits every record; the plain directory flushes to the disk, the
#   layer copies into its shadow).
# - The layer's own steps over a directory of 128 MiB in 64 files: the
#   mount (it copies the directory into its shadow first) and the cut.
# - svd-crashtest's rounds a minute, svd-kill against power-loss, with a
#   service that fsyncs a record and renames it into place every 5 ms
#   (BENCH_POWERFS_ROUNDS, default 20, rounds each).
# Prints "# metric" lines; asserts only that everything worked. Needs root
# (or fusermount3) and /dev/fuse. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

RUNS=${BENCH_POWERFS_RUNS:-3}
ROUNDS=${BENCH_POWERFS_ROUNDS:-20}
CRASHTEST=${SVD_CRASHTEST:-$(dirname "$SVCTL")/svd-crashtest}
POWERFS=${SVD_POWERFS:-$(dirname "$CRASHTEST")/svd-powerfs}
[ -x "$POWERFS" ] || skip_all "no svd-powerfs at $POWERFS (built with libfuse3)"
[ -c /dev/fuse ] || skip_all "no /dev/fuse"
[ "$(id -u)" = 0 ] || path_of fusermount3 >/dev/null || skip_all "needs root, or fusermount3"

setup_test

DD=$(path_of dd) || bail_out "no dd"
WRAP=
[ -n "$TEST_CG" ] && WRAP="$SH $T/in-test-cgroup"
STATEFILE=$(find_helper statefile-service)
[ -n "$STATEFILE" ] || bail_out "no statefile-service helper"

# median N...: the middle one of the numbers (the lower of the two middle ones).
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# elapsed_ms CMD...: how long CMD took, in ms.
elapsed_ms() {
        _a=$(now_ms)
        "$@" || return 1
        echo $(($(now_ms) - _a))
}

bulk() { "$DD" if=/dev/zero of="$1/bulk" bs=64k count=4096 status=none && rm -f "$1/bulk"; }
dsync() { "$DD" if=/dev/zero of="$1/log" bs=4k count=2000 oflag=dsync status=none && rm -f "$1/log"; }

mkdir -p "$T/plain" "$T/layered"
"$POWERFS" --log "$T/layer.log" "$T/layered" "$T/shadow" >"$T/layer.out" 2>"$T/layer.err" &
LAYER=$!
TRACKED="$TRACKED $LAYER:$(pid_start $LAYER)"
check "the layer is mounted" wait_until 30 grep -q '^ready$' "$T/layer.out"

b_plain= b_layer= d_plain= d_layer=
i=0
while [ "$i" -lt "$RUNS" ]; do
        i=$((i + 1))
        b_plain="$b_plain $(elapsed_ms bulk "$T/plain")"
        b_layer="$b_layer $(elapsed_ms bulk "$T/layered")"
        d_plain="$d_plain $(elapsed_ms dsync "$T/plain")"
        d_layer="$d_layer $(elapsed_ms dsync "$T/layered")"
done
# shellcheck disable=SC2086
{ bp=$(median $b_plain); bl=$(median $b_layer); dp=$(median $d_plain); dl=$(median $d_layer); }
diag "bulk ms: plain$b_plain; layer$b_layer. O_DSYNC ms: plain$d_plain; layer$d_layer"
check "every write ran" test -n "$bp" -a -n "$bl" -a -n "$dp" -a -n "$dl" -a "${bp:-0}" -gt 0 -a "${dp:-0}" -gt 0
echo "# metric case='256 MiB in 64 KiB writes' plain_mib_s=$((256000 / bp)) layer_mib_s=$((256000 / bl)) layer_over_plain=$(awk "BEGIN { printf \"%.2f\", $bl / $bp }")"
echo "# metric case='2000 O_DSYNC writes of 4 KiB' plain_writes_s=$((2000000 / dp)) layer_writes_s=$((2000000 / dl)) layer_over_plain=$(awk "BEGIN { printf \"%.2f\", $dl / $dp }")"
kill -TERM "$LAYER" && wait "$LAYER"
check "the layer unmounts on SIGTERM" sh -c "! grep -q ' $T/layered ' /proc/self/mountinfo"

# The layer's steps over 128 MiB in 64 files, all durable, then one more unsynced.
mkdir -p "$T/big"
i=0
while [ "$i" -lt 64 ]; do
        i=$((i + 1))
        "$DD" if=/dev/zero of="$T/big/f$i" bs=64k count=32 status=none
done
sync
a=$(now_ms)
"$POWERFS" --log "$T/big.log" "$T/big" "$T/big.shadow" >"$T/big.out" 2>"$T/big.err" &
LAYER=$!
TRACKED="$TRACKED $LAYER:$(pid_start $LAYER)"
check "the layer mounts over 128 MiB" wait_until 120 grep -q '^ready$' "$T/big.out"
mount_ms=$(($(now_ms) - a))
echo x >>"$T/big/f1"
a=$(now_ms)
kill -USR1 "$LAYER" && wait "$LAYER"
cut_ms=$(($(now_ms) - a))
expect_contains "... and cuts" "$(cat "$T/big.out")" "dropped-bytes=2 dropped-files=1"
echo "# metric case='layer over 128 MiB in 64 files' mount_ms=$mount_ms cut_ms=$cut_ms"

# Rounds a minute.
mkdir -p "$T/units" "$T/data"
cat >"$T/units/counter.service" <<EOF
[Service]
Type=notify
ExecStart=$STATEFILE correct $T/data/state $T/journal
[Install]
WantedBy=default.target
EOF
# rate NAME FAULT...: the rounds, and their rate in RATE.
rate() {
        _n=$1
        shift
        # shellcheck disable=SC2086
        $WRAP "$CRASHTEST" --units "$T/units" --svd "$SVD" --powerfs "$POWERFS" --dir "$T/run-$_n" --seed 3 \
                --rounds "$ROUNDS" --at random:100-300 --fault "$@" >"$T/$_n.out" 2>"$T/$_n.err" </dev/null
        expect_eq "$_n: every round passed" 0 "$?"
        RATE=$(sed -n 's/^summary: .*; \([0-9.]*\) rounds\/min$/\1/p' "$T/$_n.out")
}
rate kill svd-kill
k=$RATE
rate power power-loss --data "$T/data"
echo "# metric case='svd-crashtest, $ROUNDS rounds, random:100-300 ms' svd_kill_rounds_min=$k power_loss_rounds_min=$RATE"

done_testing
