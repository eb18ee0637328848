#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# PrivateUsers= (systemd.exec(5)), checked from inside the service: a user
# namespace of its own whose maps are root and the service's own user and
# group onto themselves (yes, self) or ids 0-65535 (identity), everything
# else showing as the overflow id (nobody); full capabilities in it, none in
# the host's namespaces, so that the service's root cannot take the mounts
# of its other sandboxing keys apart; with PrivatePIDs=; and an unprivileged
# svd, whose services have a user namespace mapping svd's own ids already.
# Needs root. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root (maps of ids other than svd's own)"
[ -e /proc/self/ns/user ] || skip_all "this kernel has no user namespaces"
setup_test
PROBE=$(find_helper sandbox-probe) || true
[ -n "$PROBE" ] || skip_all "no sandbox-probe helper (SVD_TEST_HELPERS)"
# A User= service runs sh and the probe from here; others may enter, never write.
chmod 0755 "$T"
# The PrivateTmp= units do not see /tmp: a tree built there lends them a copy of the probe.
TPROBE=$PROBE
case $PROBE in
/tmp/*)
        PD=$(dir_outside_tmp) || skip_all "the probe is under /tmp, which PrivateTmp= hides, and no directory outside it is writable"
        trap '_r=$?; rm -rf "$PD"; (exit $_r); cleanup' EXIT
        chmod 0755 "$PD" && cp "$PROBE" "$PD/" || bail_out "cannot copy the probe to $PD"
        TPROBE=$PD/sandbox-probe
        ;;
esac

SVC_UID=4242
OVERFLOW=$(cat /proc/sys/kernel/overflowuid 2>/dev/null || echo 65534)
HOST_USERNS=$(readlink /proc/self/ns/user)
mkdir "$T/files"
for _u in 0 "$SVC_UID" 12345 70000; do
        touch "$T/files/$_u"
        chown "$_u:$_u" "$T/files/$_u"
done
chmod -R a+rX "$T/files"

# sandboxed NAME SCRIPT KEY=VALUE...: a oneshot unit running SCRIPT (sh) with
# the keys; starts it and sets LOG to what it printed.
sandboxed() {
        _name=$1 _script=$2
        shift 2
        {
                echo "[Service]"
                echo "Type=oneshot"
                echo "ExecStart=$SH -c '$_script'"
                for _k in "$@"; do echo "$_k"; done
        } >"$UNITS/$_name.service"
        svctl reload >/dev/null 2>&1
        run svctl start "$_name"
        _rc=$RC
        [ "$_rc" = 0 ] || diag "start $_name: $OUT $ERR"
        run svctl logs "$_name"
        LOG=$(printf '%s\n' "$OUT" | sed -n 's/^.*stdout[]:]* //p')
        RC=$_rc
}

# What the service prints of its namespace: the maps as "uid_map A B C"
# lines, setgroups, its user namespace, the owners of the files, its uid.
SHOW="sed \"s/^ */uid_map /; s/  */ /g\" /proc/self/uid_map; sed \"s/^ */gid_map /; s/  */ /g\" /proc/self/gid_map; echo setgroups=\$(cat /proc/self/setgroups); echo userns=\$(readlink /proc/self/ns/user); for f in $T/files/*; do echo owner-\$(basename \$f)=\$(stat -c %%u \$f); done; echo uid=\$(id -u)"

start_svd

# umount(2) of a directory that is no mount point: EINVAL with the
# capability over the mount namespace, EPERM without; harmless either way.
sandboxed users-root "$SHOW; $PROBE umount:$T unshare-uts" PrivateUsers=yes
expect_rc "PrivateUsers=yes starts" 0
expect_eq "PrivateUsers=yes, root: uid_map is root alone" "uid_map 0 0 1" "$(printf '%s\n' "$LOG" | grep '^uid_map')"
expect_eq "PrivateUsers=yes, root: gid_map is root alone" "gid_map 0 0 1" "$(printf '%s\n' "$LOG" | grep '^gid_map')"
expect_contains "PrivateUsers=: setgroups() is denied in it" "$LOG" "setgroups=deny"
expect_contains "PrivateUsers=: a user namespace of its own" "$LOG" "userns=user:"
expect_not_contains "PrivateUsers=: not the host's" "$LOG" "userns=$HOST_USERNS"
expect_contains "PrivateUsers=: a file of root is root's" "$LOG" "owner-0=0"
expect_contains "PrivateUsers=: a file of another uid is nobody's" "$LOG" "owner-12345=$OVERFLOW"
expect_contains "PrivateUsers=: root has no capability in the host's mount namespace" "$LOG" "umount=EPERM"
expect_contains "PrivateUsers=: all of them in its own (a new UTS namespace)" "$LOG" "unshare-uts=OK"

sandboxed users-uid "$SHOW" PrivateUsers=self "User=$SVC_UID" "Group=$SVC_UID"
expect_rc "PrivateUsers=self with User= starts" 0
expect_eq "PrivateUsers=self, User=: uid_map is root and the user" "uid_map 0 0 1
uid_map $SVC_UID $SVC_UID 1" "$(printf '%s\n' "$LOG" | grep '^uid_map')"
expect_eq "PrivateUsers=self, User=: gid_map is root and the group" "gid_map 0 0 1
gid_map $SVC_UID $SVC_UID 1" "$(printf '%s\n' "$LOG" | grep '^gid_map')"
expect_contains "PrivateUsers=self, User=: it runs as the user" "$LOG" "uid=$SVC_UID"
expect_contains "PrivateUsers=self, User=: the user's file is the user's" "$LOG" "owner-$SVC_UID=$SVC_UID"
expect_contains "PrivateUsers=self, User=: another's is nobody's" "$LOG" "owner-12345=$OVERFLOW"

sandboxed users-identity "$SHOW" PrivateUsers=identity
expect_rc "PrivateUsers=identity starts" 0
expect_eq "PrivateUsers=identity: ids 0-65535 onto themselves" "uid_map 0 0 65536" \
        "$(printf '%s\n' "$LOG" | grep '^uid_map')"
expect_contains "PrivateUsers=identity: a file of uid 12345 is 12345's" "$LOG" "owner-12345=12345"
expect_contains "PrivateUsers=identity: a file of uid 70000 is nobody's" "$LOG" "owner-70000=$OVERFLOW"

# The mounts of the other keys belong to the host's user namespace: the
# service's root cannot undo them.
W='w() { if mktemp -p "$1" .svd-w.XXXXXX >/dev/null 2>&1; then rm -f "$1"/.svd-w.??????; echo "$1 rw"; else echo "$1 ro"; fi; }'
sandboxed users-strict "$W; w /usr; $TPROBE umount:/tmp" PrivateUsers=yes ProtectSystem=strict PrivateTmp=yes
expect_rc "PrivateUsers= with ProtectSystem=strict and PrivateTmp= starts" 0
expect_contains "... /usr is read-only" "$LOG" "/usr ro"
expect_contains "... and root cannot unmount its private /tmp" "$LOG" "umount=EPERM"
# The same without PrivateUsers=: root may (in the service's own namespace).
sandboxed users-strict-control "$TPROBE umount:/tmp" ProtectSystem=strict PrivateTmp=yes
expect_contains "without PrivateUsers= root may unmount it" "$LOG" "umount=OK"

sandboxed users-pids "$SHOW; echo pid=\$\$\$\$" PrivateUsers=yes PrivatePIDs=yes
expect_rc "PrivateUsers= with PrivatePIDs= starts" 0
expect_eq "... uid_map is root alone" "uid_map 0 0 1" "$(printf '%s\n' "$LOG" | grep '^uid_map')"
expect_contains "... in a PID namespace of its own" "$LOG" "pid=2"

# Without the key: the host's user namespace, and the capabilities in it.
sandboxed users-none "$SHOW; $PROBE umount:$T"
expect_contains "without PrivateUsers= the service is in the host's user namespace" "$LOG" "userns=$HOST_USERNS"
expect_contains "without PrivateUsers= root has the capability (EINVAL: no mount point)" "$LOG" "umount=EINVAL"
stop_svd

# An unprivileged svd: its services' user namespace maps svd's own ids, which
# is what PrivateUsers= means for a per-user manager (root is not mapped).
OTHER_UID=${SVD_TEST_OTHER_UID:-4243}
if ! reach_binaries "$OTHER_UID" "$OTHER_UID"; then
        for _i in 1 2 3; do skip "PrivateUsers= under an unprivileged svd" "uid $OTHER_UID cannot run svd here"; done
        done_testing
fi
PROBE=$(find_helper sandbox-probe)
PREFIX=$(as_user_prefix "$OTHER_UID" "$OTHER_UID") || bail_out "as_user_prefix failed"
mkdir "$T/user"
chown "$OTHER_UID:$OTHER_UID" "$T/user" "$UNITS"
SOCK=$T/user/svd.sock
SVD_WRAPPER=$PREFIX
start_svd
SVD_WRAPPER=
sandboxed users-unpriv "$SHOW" PrivateUsers=yes
expect_rc "PrivateUsers=yes under an unprivileged svd starts" 0
expect_eq "... uid_map is svd's own uid alone" "uid_map $OTHER_UID $OTHER_UID 1" \
        "$(printf '%s\n' "$LOG" | grep '^uid_map')"
expect_not_contains "... in a user namespace of its own" "$LOG" "userns=$HOST_USERNS"
stop_svd

done_testing
