#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The control socket's path: svd refuses one that another user could
# replace or intercept, rather than follow or unlink it: a directory that
# is a symbolic link, owned by someone else or writable by others, a
# directory above it that another user owns or may write without the
# sticky bit, something other than a socket at the path (a symbolic link
# is not followed, a file not removed). The directory it creates is its
# own, mode 0755; a stale socket of its own is replaced. As root, a second
# uid owns the foreign paths; otherwise those checks are skipped. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

OTHER_UID=${SVD_TEST_UID:-65534}
OTHER_GID=${SVD_TEST_GID:-65534}

write_unit sleeper <<EOF
[Service]
ExecStart=$SLEEP 1000
EOF

# refuses PATH DESCRIPTION WHAT: svd exits at once on socket PATH, saying WHAT.
refuses() {
        run timeout 30 "$SVD" --units "$UNITS" --socket "$1"
        expect_rc "$2: svd refuses to start (exit 1)" 1
        expect_contains "$2: ... and says why" "$ERR" "Refusing to listen on '$1': $3"
}

mkdir "$T/wide"
chmod 0777 "$T/wide"
refuses "$T/wide/svd.sock" "directory writable by others" "'$T/wide' is writable by group or others (mode 0777)"
mkdir "$T/real"
ln -s "$T/real" "$T/link"
refuses "$T/link/svd.sock" "directory is a symbolic link" "'$T/link' is a symbolic link"
echo precious >"$T/target"
ln -s "$T/target" "$T/real/svd.sock"
refuses "$T/real/svd.sock" "socket path is a symbolic link" "'$T/real/svd.sock' exists and is not a socket"
expect_eq "... the link's target is untouched" precious "$(cat "$T/target")"
check "... and so is the link" test -L "$T/real/svd.sock"
rm "$T/real/svd.sock"
echo precious >"$T/real/svd.sock"
refuses "$T/real/svd.sock" "a regular file at the socket path" "'$T/real/svd.sock' exists and is not a socket"
expect_eq "... the file is untouched" precious "$(cat "$T/real/svd.sock")"
mkdir -p "$T/group/sub"
chmod 0775 "$T/group"
refuses "$T/group/sub/svd.sock" "an ancestor writable by its group" \
        "'$T/group' is writable by group or others without the sticky bit (mode 0775)"

# A directory svd creates: its own, 0755.
SOCK=$T/fresh/svd.sock
start_svd
expect_eq "svd creates the socket's directory, owned by its user, mode 755" "$(id -u) 755" \
        "$(stat -c '%u %a' "$T/fresh")"
# shellcheck disable=SC2016 # expanded by the inner shell
check "the socket may be connected to by anybody (mode 0666)" \
        sh -c 'ls -l "$1" | grep -q "^srw-rw-rw-"' sh "$SOCK"
# svd killed: its socket is left behind, nobody answers on it.
kill -KILL "$SVD_PID"
wait_until 20 svd_exited
wait "$SVD_JOB"
check "a killed svd leaves its socket" test -S "$SOCK"
start_svd
run svctl info
expect_rc "... which the next svd replaces" 0

stop_svd
expect_eq "svd exits 0 on SIGTERM" 0 "$SVD_RC"

if [ "$(id -u)" -ne 0 ]; then
        skip "paths owned by another user" "not root: cannot make a path another uid owns"
        done_testing
fi

# Paths another user controls.
mkdir "$T/theirs" "$T/above"
chown "$OTHER_UID:$OTHER_GID" "$T/theirs" "$T/above"
refuses "$T/theirs/svd.sock" "directory owned by uid $OTHER_UID" "'$T/theirs' is owned by uid $OTHER_UID"
check "... and nothing was created in it" test ! -e "$T/theirs/svd.sock"
mkdir "$T/above/mine"
refuses "$T/above/mine/svd.sock" "an ancestor owned by uid $OTHER_UID" "'$T/above' is owned by uid $OTHER_UID"

done_testing
