#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Who may change state (SO_PEERCRED): root and svd's own user may start,
# stop and restart; anybody else gets org.varlink.service.PermissionDenied
# (svctl: "Permission denied", exit 1) but may still read (status, list,
# info). As root, throwaway uids play the other peers (runas helper, or
# util-linux setpriv); otherwise only the owner's side can be checked and
# the refusals are skipped. TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

OTHER_UID=${SVD_TEST_UID:-65534}
OTHER_GID=${SVD_TEST_GID:-65534}
THIRD_UID=$((OTHER_UID - 1))
THIRD_GID=$((OTHER_GID - 1))

write_unit enabled <<EOF
[Service]
ExecStart=$SLEEP 1001
[Install]
WantedBy=default.target
EOF

write_unit manual <<EOF
[Service]
ExecStart=$SLEEP 1002
EOF

# svctl_as UID GID ARGS...: svctl as another user, into run().
svctl_as() {
        _u=$1 _g=$2
        shift 2
        run as_user "$_u" "$_g" "$SVCTL" --socket "$SOCK" "$@"
}

# may_change WHO UID GID: WHO may read and change state.
may_change() {
        _who=$1
        shift
        svctl_as "$@" status enabled
        expect_rc "$_who: status exits 0" 0
        svctl_as "$@" start manual
        expect_rc "$_who: start exits 0" 0
        track_pid "$(svc_pid manual)"
        expect_eq "$_who: ... manual runs" running "$(svc_state manual)"
        svctl_as "$@" restart manual
        expect_rc "$_who: restart exits 0" 0
        track_pid "$(svc_pid manual)"
        svctl_as "$@" stop manual
        expect_rc "$_who: stop exits 0" 0
        expect_eq "$_who: ... manual is stopped" inactive "$(svc_state manual)"
}

# may_only_read WHO UID GID: WHO may read but not change state.
may_only_read() {
        _who=$1
        shift
        _epid=$(svc_pid enabled)
        svctl_as "$@" status enabled
        expect_rc "$_who: status exits 0" 0
        expect_contains "$_who: ... and shows the service" "$OUT" "Active: running"
        svctl_as "$@" list
        expect_rc "$_who: list exits 0" 0
        expect_contains "$_who: ... and lists the services" "$OUT" "2 services listed."
        svctl_as "$@" --json info
        expect_rc "$_who: info exits 0" 0
        svctl_as "$@" start manual
        expect_rc "$_who: start is refused with exit 1" 1
        expect_contains "$_who: ... Permission denied" "$ERR" "Failed to start 'manual': Permission denied"
        expect_eq "$_who: ... manual did not start" inactive "$(svc_state manual)"
        svctl_as "$@" stop enabled
        expect_rc "$_who: stop is refused with exit 1" 1
        expect_contains "$_who: ... Permission denied" "$ERR" "Failed to stop 'enabled': Permission denied"
        svctl_as "$@" restart enabled
        expect_rc "$_who: restart is refused with exit 1" 1
        expect_contains "$_who: ... Permission denied" "$ERR" "Permission denied"
        expect_eq "$_who: ... enabled still runs under the same pid" "running $_epid" \
                "$(svc_state enabled) $(svc_pid enabled)"
}

if [ "$(id -u)" -ne 0 ]; then
        start_svd
        ME="uid $(id -u) (svd's own user)"
        # as_user needs root; the owner goes straight through svctl.
        svctl_as() {
                shift 2
                run svctl "$@"
        }
        may_change "$ME" "$(id -u)" "$(id -g)"
        skip "another user is refused Start/Stop/Restart" "not root: cannot act as another uid"
        skip "root may change state of an unprivileged svd" "not root"
        stop_svd
        expect_eq "svd exits 0 on SIGTERM" 0 "$SVD_RC"
        done_testing
fi

# ---- as root ----

if ! reach_binaries "$OTHER_UID" "$OTHER_GID"; then
        skip_all "uid $OTHER_UID cannot run $SVCTL (no runas helper, or the binary is not reachable)"
fi
# Let the other users reach the socket: mktemp -d makes $T 0700.
chmod 0755 "$T" "$UNITS"
if ! as_user "$OTHER_UID" "$OTHER_GID" test -r "$UNITS/enabled.service"; then
        skip_all "uid $OTHER_UID cannot reach $T (set TMPDIR to a directory others may enter)"
fi

start_svd
# shellcheck disable=SC2016 # expanded by the inner shell
check "the socket may be connected to by anybody (mode 0666)" \
        sh -c 'ls -l "$1" | grep -q "^srw-rw-rw-"' sh "$SOCK"

# root's svd: root may, uid OTHER_UID may only read.
may_change "root" 0 0
may_only_read "uid $OTHER_UID" "$OTHER_UID" "$OTHER_GID"
stop_svd
expect_eq "svd exits 0 on SIGTERM" 0 "$SVD_RC"

# An unprivileged svd: its own user and root may, a third uid may only read.
PREFIX=$(as_user_prefix "$OTHER_UID" "$OTHER_GID") || bail_out "as_user_prefix failed"
mkdir "$T/user"
chown "$OTHER_UID:$OTHER_GID" "$T/user"
SOCK=$T/user/svd.sock
SVD_WRAPPER=$PREFIX
start_svd
SVD_WRAPPER=
UID_LINE=$(grep '^Uid:' "/proc/$SVD_PID/status")
expect_contains "svd runs as uid $OTHER_UID" "$UID_LINE" "	$OTHER_UID	$OTHER_UID	$OTHER_UID	"
EPID=$(svc_pid enabled)
track_pid "$EPID"
expect_contains "... and so do its services" "$(grep '^Uid:' "/proc/$EPID/status" 2>/dev/null)" \
        "	$OTHER_UID	$OTHER_UID	$OTHER_UID	"

may_change "uid $OTHER_UID (svd's own user)" "$OTHER_UID" "$OTHER_GID"
may_change "root, to an unprivileged svd" 0 0
may_only_read "uid $THIRD_UID" "$THIRD_UID" "$THIRD_GID"

stop_svd
expect_eq "unprivileged svd exits 0 on SIGTERM" 0 "$SVD_RC"

done_testing
