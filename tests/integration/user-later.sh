#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A unit whose User= does not exist yet (a package's postinst makes the
# user after it installs the unit): svd loads it, as systemd does, and
# fails each start with the reason ("User 'NAME' does not exist") and no
# process; once the user exists, the next start runs the service as that
# user, without a reload. The user appears in a private /etc/passwd that
# only svd's mount namespace sees (a bind mount): the host's stays as it
# is. Needs root. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root (a private /etc/passwd in a mount namespace of svd's own)"
UNSHARE=$(path_of unshare) || skip_all "no unshare"
setup_test

NAME=svdlater$$
LATER_UID=64123
cp /etc/passwd "$T/passwd"
cp /etc/group "$T/group"
cat >"$T/private-passwd" <<EOF
#!/bin/sh
mount -o bind $T/passwd /etc/passwd && mount -o bind $T/group /etc/group || exit 125
exec "\$@"
EOF
cat >"$T/wrap" <<EOF
#!/bin/sh
exec $UNSHARE -m $SH $T/private-passwd "\$@"
EOF
chmod +x "$T/wrap" "$T/private-passwd"
SVD_WRAPPER=$T/wrap

write_unit later <<EOF
[Service]
User=$NAME
ExecStart=$SH -c 'echo "uid \$(id -u)"; exec $SLEEP 10000'
EOF
start_svd

run svctl status later
expect_contains "a unit whose User= does not exist yet is loaded" "$OUT" "later"
expect_not_contains "... not as a unit that failed to load" "$OUT$ERR" "not loaded"
run svctl start later
expect_rc "its start fails" 1
expect_contains "... saying why" "$ERR" "User '$NAME' does not exist"
run svctl logs later
expect_not_contains "... and nothing ran" "$OUT" "uid "
run svctl status later
expect_contains "its status says why" "$OUT" "User '$NAME' does not exist"

# The package's postinst makes the user.
echo "$NAME:x:$LATER_UID:$LATER_UID::/nonexistent:/usr/sbin/nologin" >>"$T/passwd"
echo "$NAME:x:$LATER_UID:" >>"$T/group"
run svctl start later
expect_rc "once the user exists, the next start works, without a reload" 0
ran_as() { svctl logs later 2>/dev/null | grep -q "uid $LATER_UID\$"; }
check "... as that user" wait_until 10 ran_as
track_pid "$(svc_pid later)"
run svctl stop later
expect_rc "... and it stops" 0
check "the host's /etc/passwd does not have the user" sh -c "! grep -q '^$NAME:' /etc/passwd"

done_testing
