#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The access lists of systemd.resource-control(5), enforced by BPF programs on
# the service's cgroup and checked from inside the service with the
# sandbox-probe helper: DevicePolicy=closed|strict|auto with DeviceAllow=
# (paths, char-/block- groups, r/w/m), IPAddressAllow=/IPAddressDeny= (any,
# localhost, prefixes; allow wins; egress and ingress; IPv4 and IPv6), the
# programs on every command of a start, the programs of an earlier start
# replaced in a cgroup that is still in use, and an unprivileged svd (no
# cgroup) refusing such a unit with the reason. Needs root and cgroup2, and a
# kernel that loads cgroup BPF programs; says SKIP otherwise. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "needs root: svd attaches the programs to its services' cgroups"
grep -q ' - cgroup2 ' /proc/self/mountinfo || skip_all "no cgroup2 hierarchy mounted"
setup_test
PROBE=$(find_helper sandbox-probe) || true
[ -n "$PROBE" ] || skip_all "no sandbox-probe helper (SVD_TEST_HELPERS)"
chmod 0755 "$T"

start_svd
if grep -q 'cgroup BPF: not usable' "$SVD_LOG"; then
        # A kernel without cgroup BPF (the lab's 6.12 is built without it): such a unit is refused, with
        # the reason; that much is checked, the rest is a skip.
        WHY=$(sed -n 's/^.*cgroup BPF: not usable: //p' "$SVD_LOG" | head -n 1)
        write_unit refused <<EOF
[Service]
ExecStart=$SLEEP 1
DevicePolicy=closed
EOF
        run svctl reload
        expect_eq "without cgroup BPF, a unit with DevicePolicy= is refused" error "$(svc_field refused loadState)"
        expect_contains "... saying why" "$(svc_field refused loadError)" "cannot be enforced here"
        run svctl info
        expect_contains "svctl info says the access lists are not enforced" "$OUT" "Access lists: no"
        skip "the access lists, from inside the service" "svd cannot use cgroup BPF here: $WHY"
        done_testing
fi
run svctl info
expect_contains "svctl info: the access lists are enforced" "$OUT" "Access lists: yes"

# probed NAME "PROBES" KEY=VALUE...: a oneshot unit running sandbox-probe PROBES with the keys;
# starts it, sets RC and LOG (what it printed, one "PROBE=RESULT" a line).
probed() {
        _name=$1 _probes=$2
        shift 2
        {
                echo "[Service]"
                echo "Type=oneshot"
                echo "ExecStart=$PROBE $_probes"
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

# ---- devices ----

# The host's /dev/kmsg (1:11) is what a policy denies; without one, every device check is moot.
[ -c /dev/kmsg ] || skip_all "no /dev/kmsg to be denied"

probed control "open-read:/dev/kmsg open-write:/dev/null"
expect_eq "without a policy /dev/kmsg opens" "open-read=OK
open-write=OK" "$LOG"

probed closed "open-read:/dev/null open-write:/dev/null open-read:/dev/zero open-read:/dev/urandom open-read:/dev/kmsg" \
        "DevicePolicy=closed"
expect_rc "DevicePolicy=closed: the service runs" 0
expect_eq "DevicePolicy=closed: /dev/null, zero, urandom open; /dev/kmsg is EPERM" "open-read=OK
open-write=OK
open-read=OK
open-read=OK
open-read=EPERM" "$LOG"

probed strict "open-read:/dev/null open-write:/dev/null open-read:/dev/zero mknod:$T/null:1:3" \
        "DevicePolicy=strict" "DeviceAllow=/dev/null r"
expect_eq "DevicePolicy=strict, DeviceAllow=/dev/null r: read only, nothing else, no mknod" "open-read=OK
open-write=EPERM
open-read=EPERM
mknod=EPERM" "$LOG"

probed strict-rwm "open-write:/dev/null mknod:$T/null:1:3 open-read:/dev/kmsg" \
        "DevicePolicy=strict" "DeviceAllow=/dev/null"
expect_eq "DeviceAllow=/dev/null without an access string: r, w and m" "open-write=OK
mknod=OK
open-read=EPERM" "$LOG"

probed auto-list "open-read:/dev/kmsg open-write:/dev/kmsg open-read:/dev/zero" "DeviceAllow=/dev/kmsg r"
expect_eq "DevicePolicy=auto with a DeviceAllow=: the entry, read only, and the standard devices" "open-read=OK
open-write=EPERM
open-read=OK" "$LOG"

probed group "open-read:/dev/kmsg open-read:/dev/zero open-write:/dev/zero open-read:/dev/ptmx" \
        "DevicePolicy=strict" "DeviceAllow=char-m?m r" "DeviceAllow=char-nosuchgroup rw" \
        "DeviceAllow=/dev/nosuchdevice rw"
expect_rc "a group and a path that do not exist allow nothing and fail nothing" 0
expect_eq "DeviceAllow=char-m?m r: every minor of the group mem, read only, nothing of another group" \
        "open-read=OK
open-read=OK
open-write=EPERM
open-read=EPERM" "$LOG"

probed pre "open-read:/dev/kmsg" "DevicePolicy=closed" "ExecStartPre=$PROBE open-read:/dev/kmsg" \
        "ExecStartPost=+$PROBE open-read:/dev/kmsg"
expect_eq "the programs hold for every command of a start, '+' ones too" "open-read=EPERM
open-read=EPERM
open-read=EPERM" "$LOG"

# ---- IP addresses ----

probed ip-control "tcp-connect:127.0.0.2 udp-send:127.0.0.2"
expect_eq "without lists 127.0.0.2 is reachable" "tcp-connect=OK
udp-send=OK" "$LOG"

probed ip-host "tcp-connect:127.0.0.1 udp-send:127.0.0.1 tcp-connect:127.0.0.2 udp-send:127.0.0.2 \
udp-recv:127.0.0.2,127.0.0.1 udp-recv:127.0.0.1,127.0.0.1" "IPAddressDeny=any" "IPAddressAllow=127.0.0.1"
expect_eq "IPAddressDeny=any, IPAddressAllow=127.0.0.1: 127.0.0.1 yes; 127.0.0.2 no connection, EPERM on send; \
nothing received from it" "tcp-connect=OK
udp-send=OK
tcp-connect=ETIMEDOUT
udp-send=EPERM
udp-recv=ETIMEDOUT
udp-recv=OK" "$LOG"

probed ip-localhost "tcp-connect:127.0.0.2 udp-send:127.0.0.9" "IPAddressDeny=any 127.0.0.2" \
        "IPAddressAllow=localhost"
expect_eq "IPAddressAllow=localhost wins over IPAddressDeny=127.0.0.2 and any" "tcp-connect=OK
udp-send=OK" "$LOG"

probed ip-prefix "udp-send:127.1.2.3 udp-send:127.2.0.1 udp-send:127.1.0.1" "IPAddressDeny=127.0.0.0/8" \
        "IPAddressAllow=127.1.0.0/16" "IPAddressDeny=127.1.2.0/24"
expect_eq "prefixes: a longer deny inside an allow denies nothing" "udp-send=OK
udp-send=EPERM
udp-send=OK" "$LOG"

probed ip-reset "udp-send:127.0.0.2" "IPAddressDeny=any" "IPAddressDeny="
expect_eq "an empty IPAddressDeny= takes the list back" "udp-send=OK" "$LOG"

if grep -q ' lo$' /proc/net/if_inet6 2>/dev/null && grep -q '^0*1 ' /proc/net/if_inet6; then
        probed ip6 "udp-send:::1 tcp-connect:::1 udp-send:127.0.0.1" "IPAddressDeny=::1/128"
        expect_eq "IPv6: IPAddressDeny=::1 denies ::1, and IPv4 not" "udp-send=EPERM
tcp-connect=ETIMEDOUT
udp-send=OK" "$LOG"
else
        skip "IPv6" "no ::1 on lo"
fi

# ---- svd holds nothing of the programs: the attachment does ----

svd_fds() {
        find "/proc/$SVD_PID/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l
}

write_unit held <<EOF
[Service]
ExecStart=$SLEEP 1000
DevicePolicy=closed
IPAddressDeny=any
EOF
svctl reload >/dev/null 2>&1
BASE=$(svd_fds)
run svctl start held
expect_rc "a running service with both lists starts" 0
check "... and runs" wait_until 10 state_is held running
track_pid "$(svc_pid held)"
expect_eq "... while svd holds its pidfd and output pipe only" 2 $(($(svd_fds) - BASE))
# A program or a map is an "anon_inode:bpf-prog" or "anon_inode:bpf-map".
BPF_FDS=$(find "/proc/$SVD_PID/fd" -mindepth 1 -maxdepth 1 -exec readlink {} \; 2>/dev/null | grep 'anon_inode:bpf')
expect_eq "... no program or map fd among them" "" "$BPF_FDS"
run svctl stop held
expect_rc "... and stops" 0

# ---- a cgroup still in use: the programs of the earlier start are replaced ----

# KillMode=none leaves the background sleep in the cgroup when the oneshot ends, so the next start
# finds it in use. The first start's DevicePolicy=closed must not outlive the second's unit.
write_unit kept <<EOF
[Service]
Type=oneshot
KillMode=none
ExecStart=$SH -c '$SLEEP 600 & exec $PROBE open-read:/dev/kmsg'
DevicePolicy=closed
EOF
svctl reload >/dev/null 2>&1
run svctl start kept
run svctl logs kept
expect_contains "kept: the first start is denied /dev/kmsg" "$OUT" "open-read=EPERM"
write_unit kept <<EOF
[Service]
Type=oneshot
KillMode=none
ExecStart=$PROBE open-read:/dev/kmsg
DeviceAllow=/dev/kmsg r
EOF
svctl reload >/dev/null 2>&1
run svctl start kept
run svctl logs kept
LAST=$(printf '%s\n' "$OUT" | sed -n 's/^.*stdout[]:]* //p' | tail -n 1)
expect_eq "kept: the second start in the same cgroup has its own programs, not the first one's" \
        "open-read=OK" "$LAST"

stop_svd

# ---- an svd without cgroups refuses such a unit ----

if as_user 65534 65534 true 2>/dev/null && reach_binaries 65534 65534; then
        chmod 0755 "$UNITS"
        chmod 0644 "$UNITS"/*.service
        mkdir "$T/user"
        chown 65534:65534 "$T/user"
        SOCK=$T/user/svd.sock
        SVD_WRAPPER=$(as_user_prefix 65534 65534)
        start_svd
        SVD_WRAPPER=
        run svctl info
        expect_contains "unprivileged svd: svctl info says the access lists are not enforced" "$OUT" \
                "Access lists: no: svd's cgroup"
        run svctl status closed
        expect_contains "unprivileged svd: the unit fails to load" "$OUT" "Loaded: error ("
        expect_contains "... naming the keys and why" "$OUT" "closed.service:4: DevicePolicy=/DeviceAllow= cannot be enforced here"
        run svctl start closed
        expect_rc "... and does not start" 1
        run svctl start control
        expect_rc "... while a unit without the lists does" 0
        stop_svd
else
        skip "an svd without cgroups" "uid 65534 cannot run svd"
fi

done_testing
