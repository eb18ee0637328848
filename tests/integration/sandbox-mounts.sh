#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The mount-namespace and namespace keys of systemd.exec(5), each checked
# from inside the service: PrivateTmp=, ProtectSystem=yes|full|strict,
# ProtectHome=yes|read-only|tmpfs, PrivateDevices=, ProtectKernelTunables=,
# ProtectKernelModules=, ProtectKernelLogs=, ProtectControlGroups=,
# ReadOnlyPaths=, ReadWritePaths=, InaccessiblePaths=, TemporaryFileSystem=,
# BindPaths=, BindReadOnlyPaths=, PrivateNetwork=, ProtectHostname=,
# PrivateIPC=, ProtectProc=, ProcSubset=, PrivateMounts=, MountFlags=,
# ExecPaths=, NoExecPaths=; and that a failed setup names the
# key. Each service is a oneshot that reports what it sees on stdout, read
# back with `svctl logs`. Needs root (mount namespaces). TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root for mount namespaces"
setup_test

# A directory outside /tmp for the path keys.
D=$(dir_outside_tmp) || skip_all "no writable directory outside /tmp (/var/lib, /srv, /opt, SVD_SOURCE_DIR)"
PROBE=$(find_helper sandbox-probe) || true
HOME_MARK=/root/.svd-sandbox-test.$$
trap '_r=$?; rm -rf "$D" "$HOME_MARK"; (exit $_r); cleanup' EXIT
HAVE_ROOT_HOME=0
[ -d /root ] && touch "$HOME_MARK" 2>/dev/null && HAVE_ROOT_HOME=1
mkdir "$D/ro" "$D/rw" "$D/other" "$D/secret" "$D/tfs" "$D/src" "$D/dst" "$D/dst2"
echo secret >"$D/secret.txt"
touch "$D/secret/file" "$D/tfs/mark"
echo bound >"$D/src/file"
echo host >/tmp/svd-sandbox-mark.$$

# sandboxed NAME SCRIPT KEY=VALUE...: a oneshot unit running SCRIPT (sh) with
# the keys; starts it and sets OUT to what it printed.
sandboxed() {
        _name=$1 _script=$2
        shift 2
        {
                echo "[Service]"
                echo "Type=oneshot"
                # "%%" is a literal "%" in a unit file.
                echo "ExecStart=$SH -c '$_script'"
                for _k in "$@"; do echo "$_k"; done
        } >"$UNITS/$_name.service"
        svctl reload >/dev/null 2>&1
        run svctl start "$_name"
        _rc=$RC
        START_ERR=$ERR
        [ "$_rc" = 0 ] || diag "start $_name: $OUT $ERR"
        run svctl logs "$_name"
        LOG=$(printf '%s\n' "$OUT" | sed -n 's/^.*stdout[]:]* //p')
        RC=$_rc
}

# Writable means a file can be made there: `[ -w ]` is access(2) in dash and
# bash (EROFS on a read-only mount, even for root) but busybox's test, the
# lab's shell, answers yes to root without asking. (No variable but $1: svd
# substitutes $NAME in ExecStart=.)
W='w() { if mktemp -p "$1" .svd-w.XXXXXX >/dev/null 2>&1; then rm -f "$1"/.svd-w.??????; echo "$1 rw"; else echo "$1 ro"; fi; }'
CAPBND='sed -n "s/^CapBnd:[[:space:]]*/CapBnd: /p" /proc/self/status'

start_svd

# In a chroot whose root is no mount point the service's mounts cannot be
# kept from the host's mount (no MS_SLAVE on "/"), so svd refuses every
# mount-namespace key there, saying why; the effects are not checked.
if ! awk '$5 == "/" { found = 1 } END { exit !found }' /proc/self/mountinfo; then
        sandboxed chroot-refused "echo ran" PrivateTmp=yes
        expect_contains "\"/\" is no mount point: the start is refused, saying why" "$START_ERR" "is no mount point"
        expect_not_contains "... and the service did not run" "$LOG" "ran"
        skip "the effects of the mount-namespace keys" "\"/\" is no mount point here (a chroot not bind-mounted onto itself)"
        stop_svd
        done_testing
fi

sandboxed ptmp "ls -A /tmp; echo mode=\$(stat -c %%a /tmp); touch /tmp/inside && echo tmp-writable" PrivateTmp=yes
expect_rc "PrivateTmp=yes starts" 0
expect_not_contains "PrivateTmp=: the host's /tmp is not seen" "$LOG" "svd-sandbox-mark"
expect_contains "PrivateTmp=: /tmp is mode 1777" "$LOG" "mode=1777"
expect_contains "PrivateTmp=: /tmp is writable" "$LOG" "tmp-writable"
check "PrivateTmp=: nothing written reaches the host's /tmp" test ! -e /tmp/inside

sandboxed psys-yes "$W; w /usr; w /etc; w $D" ProtectSystem=yes
expect_contains "ProtectSystem=yes: /usr is read-only" "$LOG" "/usr ro"
expect_contains "ProtectSystem=yes: /etc stays writable" "$LOG" "/etc rw"
sandboxed psys-full "$W; w /usr; w /etc; w $D" ProtectSystem=full
expect_contains "ProtectSystem=full: /usr is read-only" "$LOG" "/usr ro"
expect_contains "ProtectSystem=full: /etc is read-only" "$LOG" "/etc ro"
expect_contains "ProtectSystem=full: /var stays writable" "$LOG" "$D rw"
sandboxed psys-strict "$W; w /usr; w /etc; w $D; w /dev/shm; w /proc/self/attr; w /run" ProtectSystem=strict
expect_contains "ProtectSystem=strict: /var is read-only" "$LOG" "$D ro"
expect_contains "ProtectSystem=strict: /run is read-only" "$LOG" "/run ro"
expect_contains "ProtectSystem=strict: /dev stays writable" "$LOG" "/dev/shm rw"

if [ $HAVE_ROOT_HOME = 1 ]; then
        sandboxed phome-yes "ls -A /root; echo listed" ProtectHome=yes
        expect_contains "ProtectHome=yes: the service ran" "$LOG" "listed"
        expect_not_contains "ProtectHome=yes: /root's files are not seen" "$LOG" ".svd-sandbox-test"
        sandboxed phome-ro "$W; ls -A /root; w /root" ProtectHome=read-only
        expect_contains "ProtectHome=read-only: /root's files are seen" "$LOG" ".svd-sandbox-test.$$"
        expect_contains "ProtectHome=read-only: /root is read-only" "$LOG" "/root ro"
        sandboxed phome-tmpfs "$W; ls -A /root; w /root; echo fs=\$(stat -f -c %%T /root)" ProtectHome=tmpfs
        expect_not_contains "ProtectHome=tmpfs: /root's files are not seen" "$LOG" ".svd-sandbox-test"
        expect_contains "ProtectHome=tmpfs: /root is read-only" "$LOG" "/root ro"
        expect_contains "ProtectHome=tmpfs: /root is a tmpfs" "$LOG" "fs=tmpfs"
else
        for _i in 1 2 3 4 5 6 7; do skip "ProtectHome=" "no /root to hide here"; done
fi

sandboxed pdev "[ -e /dev/kmsg ] && echo has-kmsg; echo null=\$(stat -c %%F /dev/null); $CAPBND" PrivateDevices=yes
expect_contains "PrivateDevices=: /dev/null is the device" "$LOG" "null=character special file"
if [ -e /dev/kmsg ]; then
        expect_not_contains "PrivateDevices=: the host's other devices (/dev/kmsg) are not there" "$LOG" "has-kmsg"
else
        skip "PrivateDevices=: /dev/kmsg" "the host has none"
fi
# CAP_MKNOD is 27, CAP_SYS_RAWIO 17.
BND=$(printf '%s\n' "$LOG" | sed -n 's/^CapBnd:[[:space:]]*//p')
check "PrivateDevices=: CAP_MKNOD and CAP_SYS_RAWIO left the bounding set ($BND)" \
        test $((0x${BND:-0} & ((1 << 27) | (1 << 17)))) -eq 0

sandboxed ptun "$W; w /proc/sys/kernel/domainname; w /sys; w /proc/sysrq-trigger; [ -e /proc/kallsyms ] && echo kallsyms=\$(stat -c %%a /proc/kallsyms)" ProtectKernelTunables=yes
expect_rc "ProtectKernelTunables= starts" 0
expect_contains "ProtectKernelTunables=: /proc/sys is read-only" "$LOG" "/proc/sys/kernel/domainname ro"
expect_contains "ProtectKernelTunables=: /sys is read-only" "$LOG" "/sys ro"
expect_contains "ProtectKernelTunables=: /proc/sysrq-trigger is read-only" "$LOG" "/proc/sysrq-trigger ro"
if [ -e /proc/kallsyms ]; then
        expect_contains "ProtectKernelTunables=: /proc/kallsyms is inaccessible" "$LOG" "kallsyms=0"
else
        skip "ProtectKernelTunables=: /proc/kallsyms" "this kernel has none"
fi

sandboxed pmod "ls -A /usr/lib/modules 2>/dev/null | wc -l; $CAPBND" ProtectKernelModules=yes
BND=$(printf '%s\n' "$LOG" | sed -n 's/^CapBnd:[[:space:]]*//p')
check "ProtectKernelModules=: CAP_SYS_MODULE left the bounding set ($BND)" test $((0x${BND:-0} & (1 << 16))) -eq 0
if [ -n "$(ls -A /usr/lib/modules 2>/dev/null)" ]; then
        expect_eq "ProtectKernelModules=: /usr/lib/modules is empty" 0 "$(printf '%s\n' "$LOG" | head -n 1)"
else
        skip "ProtectKernelModules=: /usr/lib/modules" "the host has no kernel modules"
fi

sandboxed plogs "echo kmsg=\$(stat -c %%a /proc/kmsg); $CAPBND" ProtectKernelLogs=yes
expect_rc "ProtectKernelLogs= starts" 0
expect_contains "ProtectKernelLogs=: /proc/kmsg is inaccessible" "$LOG" "kmsg=0"
BND=$(printf '%s\n' "$LOG" | sed -n 's/^CapBnd:[[:space:]]*//p')
check "ProtectKernelLogs=: CAP_SYSLOG left the bounding set ($BND)" test $((0x${BND:-0} & (1 << 34))) -eq 0

sandboxed pcg "$W; w /sys/fs/cgroup" ProtectControlGroups=yes
expect_contains "ProtectControlGroups=: /sys/fs/cgroup is read-only" "$LOG" "/sys/fs/cgroup ro"

sandboxed rop "$W; w $D/ro; w $D/rw" "ReadOnlyPaths=$D/ro -/nonexistent/path"
expect_rc "ReadOnlyPaths=: a missing path with '-' is fine" 0
expect_contains "ReadOnlyPaths=: the path is read-only" "$LOG" "$D/ro ro"
expect_contains "ReadOnlyPaths=: others stay writable" "$LOG" "$D/rw rw"

sandboxed rwp "$W; w $D/rw; w $D/other" ProtectSystem=strict "ReadWritePaths=$D/rw"
expect_contains "ReadWritePaths=: writable under ProtectSystem=strict" "$LOG" "$D/rw rw"
expect_contains "ReadWritePaths=: the rest is read-only" "$LOG" "$D/other ro"

sandboxed inacc "ls -A $D/secret | wc -l; cat $D/secret.txt; echo mode=\$(stat -c %%a $D/secret.txt); [ -d $D/dst2 ] && echo parent-intact" \
        "InaccessiblePaths=$D/secret $D/secret.txt"
expect_rc "InaccessiblePaths= on a directory and a file starts" 0
expect_eq "InaccessiblePaths=: a directory is empty" 0 "$(printf '%s\n' "$LOG" | head -n 1)"
expect_not_contains "InaccessiblePaths=: a file's content is gone" "$LOG" "secret"
expect_contains "InaccessiblePaths=: a file is mode 000" "$LOG" "mode=0"
# The tmpfs that the file is cloned from sits on the file's parent only
# while it is cloned: the service sees that directory as it is.
expect_contains "InaccessiblePaths=: the file's directory is unchanged" "$LOG" "parent-intact"

sandboxed tfs "$W; ls -A $D/tfs; echo mode=\$(stat -c %%a $D/tfs); w $D/tfs" "TemporaryFileSystem=$D/tfs:ro,mode=0700"
expect_not_contains "TemporaryFileSystem=: what was there is hidden" "$LOG" "mark"
expect_contains "TemporaryFileSystem=: mode= applies" "$LOG" "mode=700"
expect_contains "TemporaryFileSystem=: ro applies" "$LOG" "$D/tfs ro"

sandboxed bind "cat $D/dst/file; echo inside >$D/dst/new" "BindPaths=$D/src:$D/dst -/nonexistent:$D/dst2"
expect_contains "BindPaths=: the source is seen at the destination" "$LOG" "bound"
check "BindPaths=: writes go through to the source" grep -q inside "$D/src/new"
sandboxed bindro "$W; cat $D/dst2/file; w $D/dst2" "BindReadOnlyPaths=$D/src:$D/dst2"
expect_contains "BindReadOnlyPaths=: the source is seen" "$LOG" "bound"
expect_contains "BindReadOnlyPaths=: read-only" "$LOG" "$D/dst2 ro"

# A kernel built without a namespace type (the lab's minimal 6.12 has no
# IPC namespaces: no SYSVIPC) has no /proc/self/ns file for it.
HOST_NET=$(readlink /proc/self/ns/net 2>/dev/null)
HOST_UTS=$(readlink /proc/self/ns/uts 2>/dev/null)
HOST_IPC=$(readlink /proc/self/ns/ipc 2>/dev/null)
HOST_NAME=$(cat /proc/sys/kernel/hostname)
if [ -n "$HOST_NET" ]; then
        sandboxed pnet "readlink /proc/self/ns/net; grep -c : /proc/net/dev; grep -o \"^ *lo:\" /proc/net/dev" PrivateNetwork=yes
        expect_not_contains "PrivateNetwork=: a network namespace of its own" "$LOG" "$HOST_NET"
        expect_eq "PrivateNetwork=: one network device" 1 "$(printf '%s\n' "$LOG" | sed -n 2p)"
        expect_contains "PrivateNetwork=: the loopback" "$LOG" "lo:"
else
        for _i in 1 2 3; do skip "PrivateNetwork=" "this kernel has no network namespaces"; done
fi
if [ -n "$HOST_UTS" ]; then
        sandboxed phost "readlink /proc/self/ns/uts; echo svd-sandbox-test >/proc/sys/kernel/hostname && cat /proc/sys/kernel/hostname" ProtectHostname=yes
        expect_not_contains "ProtectHostname=: a UTS namespace of its own" "$LOG" "$HOST_UTS"
        expect_eq "ProtectHostname=: the host's name is unchanged" "$HOST_NAME" "$(cat /proc/sys/kernel/hostname)"
else
        for _i in 1 2; do skip "ProtectHostname=" "this kernel has no UTS namespaces"; done
fi
if [ -n "$HOST_IPC" ]; then
        sandboxed pipc "readlink /proc/self/ns/ipc" PrivateIPC=yes
        expect_contains "PrivateIPC=: the service ran" "$LOG" "ipc:"
        expect_not_contains "PrivateIPC=: an IPC namespace of its own" "$LOG" "$HOST_IPC"
else
        for _i in 1 2; do skip "PrivateIPC=" "this kernel has no IPC namespaces"; done
fi

sandboxed pproc "grep \" /proc proc \" /proc/self/mounts | tail -n 1" ProtectProc=invisible
expect_contains "ProtectProc=invisible: /proc is mounted hidepid=invisible" "$LOG" "hidepid=invisible"
sandboxed psubset "[ -e /proc/sys ] && echo sys-seen; [ -e /proc/self/status ] && echo self-seen" ProcSubset=pid
expect_contains "ProcSubset=pid: the process directories are there" "$LOG" "self-seen"
expect_not_contains "ProcSubset=pid: /proc/sys is not" "$LOG" "sys-seen"

# PrivateMounts=: a mount namespace of its own, whose mounts stay there.
HOST_MNT=$(readlink /proc/self/ns/mnt)
mkdir "$D/pm"
if [ -n "$PROBE" ]; then
        sandboxed pmounts "readlink /proc/self/ns/mnt; $PROBE mount-tmpfs:$D/pm; grep -c \" $D/pm \" /proc/self/mountinfo" \
                PrivateMounts=yes
        expect_rc "PrivateMounts=yes starts" 0
        expect_not_contains "PrivateMounts=: a mount namespace of its own" "$LOG" "$HOST_MNT"
        expect_contains "PrivateMounts=: the service mounts in it" "$LOG" "mount-tmpfs=OK"
        expect_eq "PrivateMounts=: the service sees its mount" 1 "$(printf '%s\n' "$LOG" | tail -n 1)"
        check "PrivateMounts=: the host does not" sh -c "! grep -q ' $D/pm ' /proc/self/mountinfo"
else
        for _i in 1 2 3 4; do skip "PrivateMounts=" "no sandbox-probe helper"; done
fi

# MountFlags=: the propagation of the namespace's mounts, in the optional
# fields of /proc/self/mountinfo (shared:N, master:N, none for private).
# A chroot whose "/" is no mount point has no line for "/" to look at.
# (A script file: a unit's ExecStart= would take its backslashes as escapes.)
cat >"$D/rootprop" <<'EOF2'
awk '$5 == "/" { s = "root:"; for (i = 7; $i != "-"; i++) s = s " " $i; print s }' /proc/self/mountinfo
EOF2
ROOT_LINE="sh $D/rootprop"
if $ROOT_LINE | grep -q '^root:'; then
        sandboxed mflags-private "$ROOT_LINE" MountFlags=private
        expect_rc "MountFlags=private starts" 0
        expect_eq "MountFlags=private: / is private" "root:" "$(printf '%s\n' "$LOG" | tail -n 1)"
        sandboxed mflags-shared "$ROOT_LINE" MountFlags=shared
        expect_contains "MountFlags=shared: / is shared" "$LOG" "shared:"
        sandboxed mflags-slave "$ROOT_LINE" MountFlags=slave
        expect_not_contains "MountFlags=slave: / is not shared" "$LOG" "shared:"
        # A slave needs a master: the host's "/" must be shared for that.
        if $ROOT_LINE | grep -q 'shared:'; then
                expect_contains "MountFlags=slave: / is a slave of the host's" "$LOG" "master:"
        else
                skip "MountFlags=slave: master" "the host's \"/\" is private here: a slave of it is private too"
        fi
else
        for _i in 1 2 3 4 5; do skip "MountFlags=" "\"/\" is no mount point here (a chroot)"; done
fi

# ExecPaths=, NoExecPaths=: noexec below a path, executable again below another.
mkdir -p "$D/ne/ok"
printf '#!/bin/sh\necho ran-%s\n' ne >"$D/ne/run"
printf '#!/bin/sh\necho ran-%s\n' ok >"$D/ne/ok/run"
chmod 0755 "$D/ne/run" "$D/ne/ok/run"
sandboxed nexec "$D/ne/run; $D/ne/ok/run; echo done" "NoExecPaths=$D/ne" "ExecPaths=$D/ne/ok"
expect_rc "NoExecPaths=, ExecPaths= start" 0
expect_contains "NoExecPaths=: the service ran" "$LOG" "done"
expect_not_contains "NoExecPaths=: a program below it cannot be run" "$LOG" "ran-ne"
expect_contains "ExecPaths=: one below an ExecPaths= path can" "$LOG" "ran-ok"
sandboxed nexec-control "$D/ne/run"
expect_contains "without NoExecPaths= the program runs" "$LOG" "ran-ne"

# A failed setup names the key.
sandboxed badbind "echo ran" "BindPaths=/nonexistent/svd-source:$D/dst"
expect_rc "a bind of a missing source fails the start" 1
run svctl status badbind
expect_contains "the error names the key" "$OUT" "failed at BindPaths=: No such file or directory"

stop_svd
done_testing
