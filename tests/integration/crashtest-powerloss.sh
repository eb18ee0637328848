#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The power-loss fault. First svd-powerfs alone, over a directory: what was
# fsynced (a file's data by fsync of the file, O_DSYNC writes, names by
# fsync of their directory) survives the cut, and nothing else; the torn
# cut keeps a block-aligned prefix of a file's last unsynced write. Then
# through svd-crashtest, the controls (tests/lib/statefile-service.c):
# - a writer that acknowledges after write() without fsync() fails within
#   5 rounds of a fixed seed under power-loss, and passes under svd-kill;
# - a writer that fsyncs a new file and renames it over the old one, but
#   never fsyncs the directory, fails under power-loss;
# - the same writers done right pass every round, power-loss-torn too;
# - a failed round reports what was dropped, and its directory keeps the
#   layer's log of it.
# Needs root (or fusermount3) and /dev/fuse. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

CRASHTEST=${SVD_CRASHTEST:-$(dirname "$SVCTL")/svd-crashtest}
POWERFS=${SVD_POWERFS:-$(dirname "$CRASHTEST")/svd-powerfs}
[ -x "$CRASHTEST" ] || bail_out "no svd-crashtest at $CRASHTEST (SVD_CRASHTEST)"
[ -x "$POWERFS" ] || skip_all "no svd-powerfs at $POWERFS (it is built with libfuse3: apt install libfuse3-dev)"
FUSE_WHY=
[ -c /dev/fuse ] || FUSE_WHY="no /dev/fuse (a kernel without FUSE, or its module not loaded)"
[ -z "$FUSE_WHY" ] && [ "$(id -u)" != 0 ] && ! path_of fusermount3 >/dev/null &&
        FUSE_WHY="needs root, or fusermount3 (apt install fuse3)"

setup_test

# Option checks, which need no layer.
mkdir -p "$T/opt.units"
printf '%s\n' "[Service]" "ExecStart=$SLEEP 1000" "[Install]" "WantedBy=default.target" >"$T/opt.units/plain.service"
"$CRASHTEST" --units "$T/opt.units" --svd "$SVD" --powerfs "$POWERFS" --dir "$T/opt.dir" --fault power-loss \
        >"$T/opt.out" 2>&1
expect_eq "power-loss without --data: an error" 2 "$?"
expect_contains "... that says so" "$(cat "$T/opt.out")" "power-loss needs --data"
expect_contains "... when no service has StateDirectory= either" "$(cat "$T/opt.out")" "no service under test has StateDirectory="
mkdir -p "$T/opt.data"
"$CRASHTEST" --units "$T/opt.units" --data "$T/opt.data" >"$T/opt.out" 2>&1
expect_eq "--data without a power-loss fault: a usage error" 2 "$?"
if [ -n "$FUSE_WHY" ]; then
        skip "the power-loss layer, and the writers under it" "$FUSE_WHY"
        done_testing
fi

STATEFILE=$(find_helper statefile-service)
[ -n "$STATEFILE" ] || bail_out "no statefile-service helper"
AWK=$(path_of awk) || bail_out "no awk"
DD=$(path_of dd) || bail_out "no dd"
WRAP=
[ -n "$TEST_CG" ] && WRAP="$SH $T/in-test-cgroup"

# ---- the layer alone ----

# layer_start NAME: svd-powerfs over $T/NAME.data, until it says it is mounted.
layer_start() {
        "$POWERFS" --seed 5 --log "$T/$1.log" "$T/$1.data" "$T/$1.shadow" >"$T/$1.out" 2>"$T/$1.err" &
        LAYER=$!
        TRACKED="$TRACKED $LAYER:$(pid_start $LAYER)"
        wait_until 30 grep -q '^ready$' "$T/$1.out"
}

# layer_cut NAME SIGNAL: the cut, until the layer has exited.
layer_cut() {
        kill -"$2" "$LAYER"
        wait "$LAYER"
        grep -q '^cut ' "$T/$1.out"
}

mounted() { grep -q " $1 " /proc/self/mountinfo; }

D=$T/alone.data
mkdir -p "$D/sub"
echo old >"$D/kept"
check "svd-powerfs mounts over the directory" layer_start alone
check "... a mount of its own" mounted "$D"
expect_eq "... showing what was there" old "$(cat "$D/kept")"

echo synced >"$D/a" && sync "$D/a"                        # data durable (the name below)
# O_DSYNC: durable as written (busybox's dd has no oflag=dsync: then a durable file by fsync).
DSYNC=1
"$DD" if=/dev/null of=/dev/null oflag=dsync 2>/dev/null || DSYNC=0
if [ "$DSYNC" = 1 ]; then
        echo dsync | "$DD" of="$D/d" oflag=dsync status=none
else
        echo dsync >"$D/d" && sync "$D/d"
fi
echo data-not-durable >"$D/e"                             # data never synced
sync "$D"                                                 # the names of a, d and e durable
echo unsynced >>"$D/kept"                                 # an append never synced
echo name-not-durable >"$D/sub/b" && sync "$D/sub/b"      # data synced, the name not
echo c >"$D/c.tmp" && sync "$D/c.tmp" "$D"                # durable under its first name
mv "$D/c.tmp" "$D/sub/c"                                  # a rename, neither directory synced
expect_eq "before the cut, everything is there" "synced old unsynced name-not-durable c dsync" \
        "$(cat "$D/a" "$D/kept" "$D/sub/b" "$D/sub/c" "$D/d" | tr '\n' ' ' | sed 's/ $//')"

check "SIGUSR1 cuts and the layer exits" layer_cut alone USR1
check "... unmounted" sh -c "! grep -q ' $D ' /proc/self/mountinfo"
diag "$(cat "$T/alone.out")"
expect_eq "fsync of file and directory: kept" synced "$(cat "$D/a")"
expect_eq "an append never fsynced: lost" old "$(cat "$D/kept")"
check "a file fsynced, its directory not: gone" test ! -e "$D/sub/b"
expect_eq "a rename whose directories were not fsynced: undone" c "$(cat "$D/c.tmp")"
check "... and not at the new name" test ! -e "$D/sub/c"
if [ "$DSYNC" = 1 ]; then
        expect_eq "an O_DSYNC write: kept" dsync "$(cat "$D/d")"
else
        skip "an O_DSYNC write: kept" "this dd has no oflag=dsync (busybox)"
fi
check "a durable name whose data were never fsynced: an empty file" test -e "$D/e" -a ! -s "$D/e"
check "the directory itself is intact" test -d "$D/sub"
expect_contains "the summary counts the dropped bytes" "$(cat "$T/alone.out")" "dropped-bytes="
expect_contains "the log names the lost append" "$(cat "$T/alone.log")" "data kept: 9 byte(s)"
expect_contains "... and the rename" "$(cat "$T/alone.log")" "rename c.tmp -> sub/c"
check "the shadow is removed" test ! -e "$T/alone.shadow"

# The torn cut: one write of 10000 bytes over a durable empty file, never synced.
D=$T/torn.data
mkdir -p "$D"
: >"$D/t" && sync "$D/t" "$D"
"$DD" if=/dev/zero bs=10000 count=1 status=none | tr '\0' x >"$T/x10000"
check "a layer for the torn cut" layer_start torn
"$DD" if="$T/x10000" of="$D/t" bs=10000 count=1 conv=notrunc status=none
check "SIGUSR2 cuts, torn" layer_cut torn USR2
size=$(wc -c <"$D/t")
diag "torn: $size of 10000 bytes; $(cat "$T/torn.out")"
case $size in
4096 | 8192) ok "a torn write keeps a prefix that ends at a block boundary inside it ($size bytes)" ;;
*) not_ok "a torn write keeps a prefix that ends at a block boundary inside it ($size bytes)" ;;
esac
expect_eq "... of the data written" 0 "$(tr -d x <"$D/t" | wc -c)"

# ---- through the runner ----

# crashtest NAME MODE ARG...: svd-crashtest on a counter service of MODE with its state in
# $T/NAME.data; output in $T/NAME.out and .err; sets RC.
crashtest() {
        _n=$1 _m=$2
        shift 2
        mkdir -p "$T/$_n.units" "$T/$_n.data"
        cat >"$T/$_n.units/counter.service" <<EOF
[Service]
Type=notify
ExecStart=$STATEFILE $_m $T/$_n.data/state $T/$_n.journal
[Install]
WantedBy=default.target
EOF
        # shellcheck disable=SC2086
        $WRAP "$CRASHTEST" --units "$T/$_n.units" --svd "$SVD" --powerfs "$POWERFS" --dir "$T/$_n.dir" "$@" \
                --check "$SH $T/check-journal.sh $T/$_n.journal" >"$T/$_n.out" 2>"$T/$_n.err" </dev/null
        RC=$?
        sed 's/^/#   /' "$T/$_n.out"
        [ "$RC" -le 1 ] || sed 's/^/#   /' "$T/$_n.err"
}

# The invariant: every "start N" is at least the last "ack" before it.
cat >"$T/check-journal.sh" <<EOF
$AWK '\$1 == "ack" { a = \$2 }
      \$1 == "start" { if (\$2 == "torn" || \$2 + 0 < a + 0) { print "round " ENVIRON["SVD_CRASHTEST_ROUND"] ": start " \$2 " after ack " a; bad = 1 } }
      END { exit bad }' "\$1"
EOF

crashtest nosync append-nosync --seed 7 --rounds 5 --stop-on-failure --at random:100-400 \
        --fault power-loss --data "$T/nosync.data"
expect_eq "acknowledged after write() without fsync(): power-loss fails it within 5 rounds" 1 "$RC"
expect_contains "... by its check" "$(grep FAIL "$T/nosync.out")" "the check failed"
line=$(grep FAIL "$T/nosync.out")
n=$(echo "$line" | sed 's/^round \([0-9]*\) .*/\1/')
expect_contains "... the round says what was dropped" "$line" "dropped-files=state"
check "... and keeps the layer's log" grep -q "^data state: " "$T/nosync.dir/round-$n.powerfs-0.log"
check "the data directory is no longer covered" sh -c "! grep -q ' $T/nosync.data ' /proc/self/mountinfo"

crashtest nosync-kill append-nosync --seed 7 --rounds 5 --at random:100-400 --fault svd-kill
expect_eq "... the same writer passes 5 rounds of svd-kill (the page cache survives)" 0 "$RC"

crashtest rename rename-nodirsync --seed 7 --rounds 5 --stop-on-failure --at random:100-400 \
        --fault power-loss --data "$T/rename.data"
expect_eq "rename over the old file without an fsync of the directory: power-loss fails it" 1 "$RC"
expect_contains "... the layer dropped the rename" "$(cat "$T"/rename.dir/round-*.powerfs-0.log)" "rename state.tmp -> state"

crashtest good-rename correct --seed 7 --rounds 5 --at random:100-400 --fault power-loss,power-loss-torn \
        --data "$T/good-rename.data"
expect_eq "the rename done right passes every round of power-loss and power-loss-torn" 0 "$RC"
expect_eq "... 5 rounds, each checked" 5 "$(grep -c '^round [0-9]* ok .*check=ok' "$T/good-rename.out")"

crashtest good-append append-sync --seed 7 --rounds 5 --at random:100-400 --fault power-loss,power-loss-torn \
        --data "$T/good-append.data"
expect_eq "the append done right (fdatasync before the ack) passes every round" 0 "$RC"
expect_eq "... 5 rounds, each checked" 5 "$(grep -c '^round [0-9]* ok .*check=ok' "$T/good-append.out")"

# Without --data: the StateDirectory= of the services under test (as root: below /var/lib).
if [ "$(id -u)" = 0 ]; then
        sd=svd-test-powerloss-$$
        mkdir -p "$T/sd.units"
        cat >"$T/sd.units/counter.service" <<EOF
[Service]
Type=notify
StateDirectory=$sd
ExecStart=$SH -c 'exec $STATEFILE append-nosync "\$STATE_DIRECTORY/state" $T/sd.journal'
[Install]
WantedBy=default.target
EOF
        # shellcheck disable=SC2086
        $WRAP "$CRASHTEST" --units "$T/sd.units" --svd "$SVD" --powerfs "$POWERFS" --dir "$T/sd.dir" --seed 7 \
                --rounds 5 --stop-on-failure --at random:100-400 --fault power-loss \
                --check "$SH $T/check-journal.sh $T/sd.journal" >"$T/sd.out" 2>"$T/sd.err" </dev/null
        RC=$?
        sed 's/^/#   /' "$T/sd.out" | cut -c1-250
        expect_eq "no --data: the services' StateDirectory= is cut, and the writer without fsync fails" 1 "$RC"
        expect_contains "... the runner says which directory" "$(cat "$T/sd.err")" \
                "power-loss cuts /var/lib/$sd (StateDirectory=)"
        check "... unmounted at the end" sh -c "! grep -q ' /var/lib/$sd ' /proc/self/mountinfo"
        rm -rf "/var/lib/$sd"
else
        skip "no --data: the services' StateDirectory= is cut" "needs root (StateDirectory= below /var/lib)"
fi

done_testing
