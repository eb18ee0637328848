#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A unit directory that disappears or turns unreadable under a running svd,
# then a reload: the directory removed, replaced by a file, a symlink loop,
# unreadable (svd as an unprivileged user), a unit file turned into a FIFO,
# a directory or an unreadable file. Each reload fails with a clear error or
# marks just that unit; svd keeps running, answers status, and the running
# services keep their processes. Once the directory is back, a reload finds
# nothing changed. TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"
# shellcheck source=../lib/hostile.sh
. "$TESTS_DIR/lib/hostile.sh"

setup_test
hostile_setup

# after_reload CASE: the usual checks, and the services still loaded.
after_reload() {
        check_svd_unharmed "$1" "$(rss_kb)"
        run svctl status "$S1"
        expect_rc "$1: svctl status $S1 exits 0" 0
}

# reload_fails CASE NEEDLE: svctl reload exits 1 and says NEEDLE.
reload_fails() {
        t0=$(now_ms)
        run svctl reload
        t1=$(now_ms)
        expect_rc "$1: svctl reload exits 1" 1
        expect_contains "$1: ... saying why" "$ERR" "$2"
        echo "# metric case='reload: $1' reload_ms=$((t1 - t0))"
}

reload_unchanged() {
        run svctl --json reload
        expect_rc "$1: svctl reload exits 0" 0
        expect_contains "$1: ... nothing changed" "$OUT" '"added":[],"changed":[],"removed":[]'
}

start_svd
hostile_baseline

mv "$UNITS" "$T/units.away"
reload_fails "directory removed" "No such file or directory"
after_reload "directory removed"
mv "$T/units.away" "$UNITS"
reload_unchanged "directory back"

mv "$UNITS" "$T/units.away"
echo "not a directory" >"$UNITS"
reload_fails "directory replaced by a file" "Not a directory"
after_reload "directory replaced by a file"
rm "$UNITS"

ln -s "$T/loop" "$UNITS"
ln -s "$UNITS" "$T/loop"
reload_fails "directory a symlink loop" "Too many levels of symbolic links"
after_reload "directory a symlink loop"
rm "$UNITS" "$T/loop"
mv "$T/units.away" "$UNITS"
reload_unchanged "directory back again"

# A unit file of a running service replaced by something that is not a
# file: the running process stays; the new (broken) definition waits.
for kind in fifo dir; do
        mv "$UNITS/$S2.service" "$T/s2.away"
        if [ "$kind" = fifo ]; then
                mkfifo "$UNITS/$S2.service" || { skip "unit file turned into a FIFO" "no mkfifo"; continue; }
        else
                mkdir "$UNITS/$S2.service"
        fi
        t0=$(now_ms)
        run svctl --json reload
        t1=$(now_ms)
        expect_rc "unit file turned into a $kind: svctl reload exits 0 (without blocking)" 0
        expect_contains "unit file turned into a $kind: ... $S2 changed" "$OUT" "\"changed\":[\"$S2\"]"
        echo "# metric case='reload: unit file a $kind' reload_ms=$((t1 - t0))"
        after_reload "unit file turned into a $kind"
        rm -rf "$UNITS/$S2.service"
        mv "$T/s2.away" "$UNITS/$S2.service"
        run svctl --json reload
        expect_rc "unit file back: svctl reload exits 0" 0
done

# ---- svd as an unprivileged user: an unreadable directory and file ----

if [ "$(id -u)" -eq 0 ] && as_user 65534 65534 true 2>/dev/null; then
        stop_svd
        reach_binaries 65534 65534 || bail_out "uid 65534 cannot run svd, even from a copy"
        chmod 0755 "$T" "$UNITS"
        chmod 0644 "$UNITS"/*.service
        # The socket's directory must be the user's (svd writes its wanted-state file there too).
        mkdir "$T/user"
        chown 65534:65534 "$T/user"
        SOCK=$T/user/svd.sock
        SVD_WRAPPER=$(as_user_prefix 65534 65534)
        start_svd
        hostile_baseline
        chmod 0000 "$UNITS"
        reload_fails "directory unreadable" "Permission denied"
        after_reload "directory unreadable"
        chmod 0755 "$UNITS"
        reload_unchanged "directory readable again"
        chmod 0000 "$UNITS/$S3.service"
        run svctl --json reload
        expect_rc "unit file unreadable: svctl reload exits 0" 0
        expect_contains "unit file unreadable: ... $S3 changed" "$OUT" "\"changed\":[\"$S3\"]"
        after_reload "unit file unreadable"
        run svctl --json status "$S3"
        expect_contains "unit file unreadable: the running $S3 shows the pending error" "$OUT" '"reloadPending":true'
        chmod 0644 "$UNITS/$S3.service"
        stop_svd
else
        skip "unreadable directory and file" "needs root and the runas helper"
fi

done_testing
