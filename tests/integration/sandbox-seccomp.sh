#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The seccomp keys of systemd.exec(5), each checked from inside the service
# with the sandbox-probe helper (it makes one system call per probe and prints
# PROBE=OK or PROBE=ERRNO): SystemCallFilter= (allow and deny lists, @groups,
# later assignments in order), SystemCallErrorNumber=, the SIGSYS kill,
# SystemCallArchitectures=native, RestrictAddressFamilies=,
# RestrictNamespaces=, RestrictRealtime=, LockPersonality=,
# MemoryDenyWriteExecute=, RestrictSUIDSGID=, ProtectClock=, ProtectHostname='s system
# calls, and no_new_privs implied for a filtered service that gives up root.
# Runs as any user; the checks that need root to tell the filter's EPERM from
# the kernel's say SKIP otherwise. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test
PROBE=$(find_helper sandbox-probe) || true
[ -n "$PROBE" ] || skip_all "no sandbox-probe helper (SVD_TEST_HELPERS)"
ROOT=0
[ "$(id -u)" = 0 ] && ROOT=1
# Others may enter $T (a User= service runs helpers copied there), never
# write it: svd refuses a control socket in a directory others may write.
chmod 0755 "$T"

# probed NAME "PROBES" KEY=VALUE...: a oneshot unit running sandbox-probe
# PROBES with the keys; starts it, sets RC and LOG (what it printed).
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

start_svd

# Never sethostname() here: without ProtectHostname= it would rename the host.
probed control "uname mount sched-fifo personality mmap-wx socket-inet"
diag "without keys: $(echo "$LOG" | tr '\n' ' ')"
expect_contains "without keys uname() works" "$LOG" "uname=OK"
CONTROL=$LOG
# A kernel without i386 emulation answers int $0x80 with SIGSEGV: a unit of its own.
probed control-i386 "i386-getpid"
CONTROL_I386=$LOG

probed deny-errno "uname socket-unix" "SystemCallFilter=~uname" "SystemCallErrorNumber=EPERM"
expect_contains "SystemCallFilter=~uname with SystemCallErrorNumber=EPERM: uname() fails EPERM" "$LOG" "uname=EPERM"
expect_contains "SystemCallFilter=~uname: other calls pass" "$LOG" "socket-unix=OK"

probed deny-kill "socket-unix uname socket-inet" "SystemCallFilter=~uname"
expect_rc "SystemCallFilter=~uname without an error number: the start fails" 1
expect_contains "the calls before ran" "$LOG" "socket-unix=OK"
expect_not_contains "the process died in uname()" "$LOG" "uname="
run svctl status deny-kill
expect_contains "killed by SIGSYS" "$OUT" "SIGSYS"

probed allow "uname socket-unix mount" "SystemCallFilter=@system-service" "SystemCallErrorNumber=EACCES"
expect_contains "SystemCallFilter=@system-service: uname() is in it" "$LOG" "uname=OK"
expect_contains "SystemCallFilter=@system-service: mount() is not (EACCES)" "$LOG" "mount=EACCES"

probed allow-then-deny "uname socket-unix" "SystemCallFilter=@system-service" "SystemCallFilter=~uname" \
        "SystemCallErrorNumber=EPERM"
expect_contains "a later ~ assignment takes uname() out of the allow list" "$LOG" "uname=EPERM"
expect_contains "the rest of the allow list stays" "$LOG" "socket-unix=OK"

probed deny-group "mount uname" "SystemCallFilter=~@mount" "SystemCallErrorNumber=13"
expect_contains "SystemCallFilter=~@mount: mount() fails with error number 13 (EACCES)" "$LOG" "mount=EACCES"
expect_contains "SystemCallFilter=~@mount: uname() passes" "$LOG" "uname=OK"

probed arch-native "uname socket-unix" SystemCallArchitectures=native
expect_contains "SystemCallArchitectures=native: native calls pass" "$LOG" "socket-unix=OK"
if printf '%s\n' "$CONTROL_I386" | grep -q "i386-getpid=OK"; then
        probed arch "uname i386-getpid socket-unix" SystemCallArchitectures=native
        expect_rc "SystemCallArchitectures=native: the start fails" 1
        expect_contains "native calls pass" "$LOG" "uname=OK"
        expect_not_contains "an i386 call kills the process" "$LOG" "i386-getpid="
        run svctl status arch
        expect_contains "killed by SIGSYS" "$OUT" "SIGSYS"
else
        skip "SystemCallArchitectures=native" "this kernel runs no i386 system calls"
fi

probed af-allow "socket-unix socket-inet socket-inet6" RestrictAddressFamilies=AF_UNIX
expect_contains "RestrictAddressFamilies=AF_UNIX: AF_UNIX sockets work" "$LOG" "socket-unix=OK"
expect_contains "RestrictAddressFamilies=AF_UNIX: AF_INET fails EAFNOSUPPORT" "$LOG" "socket-inet=EAFNOSUPPORT"
probed af-deny "socket-unix socket-inet6" "RestrictAddressFamilies=~AF_INET6"
expect_contains "RestrictAddressFamilies=~AF_INET6: AF_INET6 fails" "$LOG" "socket-inet6=EAFNOSUPPORT"
expect_contains "RestrictAddressFamilies=~AF_INET6: AF_UNIX works" "$LOG" "socket-unix=OK"
probed af-none "socket-unix" RestrictAddressFamilies=none
expect_contains "RestrictAddressFamilies=none: no family at all" "$LOG" "socket-unix=EAFNOSUPPORT"

probed ns-all "unshare-uts clone3 uname" RestrictNamespaces=yes
expect_contains "RestrictNamespaces=yes: unshare(CLONE_NEWUTS) fails EPERM" "$LOG" "unshare-uts=EPERM"
expect_contains "RestrictNamespaces=: clone3() says ENOSYS (libc falls back to clone)" "$LOG" "clone3=ENOSYS"
probed ns-uts "unshare-uts unshare-net" RestrictNamespaces=uts
expect_contains "RestrictNamespaces=uts: a net namespace is refused" "$LOG" "unshare-net=EPERM"
if [ $ROOT = 1 ]; then
        expect_contains "RestrictNamespaces=uts: a UTS namespace is allowed" "$LOG" "unshare-uts=OK"
else
        skip "RestrictNamespaces=uts allows CLONE_NEWUTS" "unprivileged, the kernel refuses it anyway"
fi

probed rt "sched-fifo sched-batch sched-setattr-fifo sched-setattr-other" RestrictRealtime=yes
expect_contains "RestrictRealtime=: SCHED_FIFO is refused" "$LOG" "sched-fifo=EPERM"
expect_contains "RestrictRealtime=: SCHED_BATCH is fine" "$LOG" "sched-batch=OK"
expect_contains "RestrictRealtime=: sched_setattr() to SCHED_FIFO is refused" "$LOG" "sched-setattr-fifo=EPERM"
# Its policy is in memory, out of the filter's reach: refused whole.
probed control-setattr "sched-setattr-other"
if printf '%s\n' "$LOG" | grep -q "sched-setattr-other=OK"; then
        expect_contains "RestrictRealtime=: sched_setattr() is refused whole (without the key it works)" \
                "$(printf '%s\n' "$LOG"; probed rt2 "sched-setattr-other" RestrictRealtime=yes; printf '%s\n' "$LOG")" \
                "sched-setattr-other=EPERM"
else
        skip "RestrictRealtime= and sched_setattr(SCHED_OTHER)" "sched_setattr() fails here without the key too"
fi

probed pers "personality-query personality-linux personality-norandom personality uname" LockPersonality=yes
expect_contains "LockPersonality=: personality(PER_LINUX32) is refused" "$LOG" "personality=EPERM"
expect_contains "LockPersonality=: the query (0xffffffff) is allowed" "$LOG" "personality-query=OK"
expect_contains "LockPersonality=: setting the current personality is allowed" "$LOG" "personality-linux=OK"
expect_contains "LockPersonality=: adding a flag (ADDR_NO_RANDOMIZE) is refused" "$LOG" "personality-norandom=EPERM"
if printf '%s\n' "$CONTROL" | grep -q "personality=OK"; then
        ok "LockPersonality=: without it the same call works"
else
        skip "LockPersonality= control" "personality() fails here without the key too"
fi

probed wx "mmap-w mmap-wx mprotect-x" MemoryDenyWriteExecute=yes
expect_contains "MemoryDenyWriteExecute=: writable memory is fine" "$LOG" "mmap-w=OK"
expect_contains "MemoryDenyWriteExecute=: writable and executable is refused" "$LOG" "mmap-wx=EPERM"
expect_contains "MemoryDenyWriteExecute=: making memory executable is refused" "$LOG" "mprotect-x=EPERM"

touch "$T/suid-file"
chmod 0666 "$T/suid-file"
probed suid "chmod-plain:$T/suid-file chmod-suid:$T/suid-file chmod-sgid:$T/suid-file create-suid:$T/suid-new" \
        RestrictSUIDSGID=yes
expect_contains "RestrictSUIDSGID=: a plain chmod works" "$LOG" "chmod-plain=OK"
expect_contains "RestrictSUIDSGID=: setting the set-user-ID bit is refused" "$LOG" "chmod-suid=EPERM"
expect_contains "RestrictSUIDSGID=: setting the set-group-ID bit is refused" "$LOG" "chmod-sgid=EPERM"
expect_contains "RestrictSUIDSGID=: creating a set-user-ID file is refused" "$LOG" "create-suid=EPERM"
# openat2() takes its flags and mode in memory: refused whole, as in systemd.
probed control-openat2 "openat2"
if printf '%s\n' "$LOG" | grep -q "openat2=OK"; then
        probed suid2 "openat2" RestrictSUIDSGID=yes
        expect_contains "RestrictSUIDSGID=: openat2() is refused (without the key it works)" "$LOG" "openat2=EPERM"
else
        skip "RestrictSUIDSGID= and openat2()" "openat2() fails here without the key too"
fi

# ProtectClock=: the @clock calls fail with EPERM, even those that only read
# (as in systemd); CAP_SYS_TIME and CAP_WAKE_ALARM leave the bounding set.
# clock_settime(CLOCK_MONOTONIC) never sets anything (EINVAL when allowed).
probed clock-control "clock-settime-monotonic adjtimex-read"
CLOCK_CONTROL=$LOG
probed clock "clock-settime-monotonic adjtimex-read" ProtectClock=yes
expect_contains "ProtectClock=: clock_settime() fails EPERM" "$LOG" "clock-settime-monotonic=EPERM"
expect_contains "ProtectClock=: adjtimex() fails EPERM" "$LOG" "adjtimex-read=EPERM"
expect_contains "without it clock_settime(CLOCK_MONOTONIC) is the kernel's EINVAL" "$CLOCK_CONTROL" \
        "clock-settime-monotonic=EINVAL"
write_unit clock-caps <<EOF2
[Service]
Type=oneshot
ExecStart=$SH -c 'sed -n "s/^CapBnd:[[:space:]]*/bnd=/p" /proc/self/status'
ProtectClock=yes
EOF2
svctl reload >/dev/null 2>&1
run svctl start clock-caps
run svctl logs clock-caps
BND=$(printf '%s\n' "$OUT" | sed -n 's/^.*bnd=//p')
# CAP_SYS_TIME is 25, CAP_WAKE_ALARM 35.
check "ProtectClock=: CAP_SYS_TIME and CAP_WAKE_ALARM left the bounding set ($BND)" \
        test $((0x${BND:-ffffffffff} & ((1 << 25) | (1 << 35)))) -eq 0

if [ $ROOT = 1 ]; then
        probed host "sethostname uname" ProtectHostname=yes
        expect_contains "ProtectHostname=: sethostname() is refused even in its own UTS namespace" "$LOG" \
                "sethostname=EPERM"

        NOBODY=nobody
        grep -q '^svdtest:' /etc/passwd && NOBODY=svdtest
        write_unit nnp <<EOF2
[Service]
Type=oneshot
ExecStart=$SH -c 'sed -n "s/^NoNewPrivs:[[:space:]]*/nnp=/p" /proc/self/status'
User=$NOBODY
SystemCallFilter=@system-service
EOF2
        svctl reload >/dev/null 2>&1
        run svctl start nnp
        expect_rc "a filtered service that gives up root starts" 0
        run svctl logs nnp
        expect_contains "no_new_privs is implied for it" "$OUT" "nnp=1"
else
        skip "ProtectHostname= system calls" "needs root (a UTS namespace of its own)"
        skip "no_new_privs implied with User=" "needs root"
        skip "no_new_privs is 1" "needs root"
fi

stop_svd
done_testing
