#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the kernel lab's initramfs (busybox sh, PID 1).
#
# Mounts the usual file systems, runs the command that boot.sh put in
# /svd/cmd (a `set -- ARG...` line, appended to the initrd as a second cpio
# archive), prints one result line and powers the VM off:
#
#   SVD-LAB-RESULT: token=<token from /svd/token> exit=<status>
#
# Orphans: as PID 1 this shell inherits every orphaned process. busybox ash's
# `wait` calls waitpid(-1), so any child of PID 1, adopted or not, is reaped
# while the command runs (tested by `boot.sh K -- sh -c '(sleep 1 &); ...'`,
# see kernel/README.md). After the command ends nothing else is waited for:
# the VM goes down.

export PATH=/svd/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root
export TERM=linux

mount -t devtmpfs -o mode=0755 devtmpfs /dev 2>/dev/null
# The kernel found no /dev/console in the archive; take the console now.
exec </dev/console >/dev/console 2>&1

warn() { echo "SVD-LAB: init: $*"; }

mount -t proc -o nosuid,nodev,noexec proc /proc || warn "cannot mount /proc"
mount -t sysfs -o nosuid,nodev,noexec sysfs /sys || warn "cannot mount /sys"
mount -t cgroup2 -o nosuid,nodev,noexec,nsdelegate cgroup2 /sys/fs/cgroup || warn "cannot mount cgroup2"
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /tmp || warn "cannot mount /tmp"
mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /run || warn "cannot mount /run"
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=0666 devpts /dev/pts 2>/dev/null
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /dev/shm 2>/dev/null
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
hostname svd-lab
ip link set lo up 2>/dev/null
chown 1000:1000 /home/svdtest 2>/dev/null

[ -r /svd/env.sh ] && . /svd/env.sh

token=$(cat /svd/token 2>/dev/null)
echo "SVD-LAB: kernel $(uname -r) $(uname -v)"

if [ -r /svd/cmd ]; then
        . /svd/cmd
else
        warn "no /svd/cmd, starting a shell"
        set -- sh
fi

cd /svd 2>/dev/null || cd /
"$@" &
pid=$!
# `wait PID` returns early only when a trapped signal arrives; loop until
# the command itself is gone.
while :; do
        wait "$pid"
        rc=$?
        kill -0 "$pid" 2>/dev/null || break
done

echo "SVD-LAB-RESULT: token=$token exit=$rc"

# ACPI power-off where the kernel has it; otherwise reboot, which QEMU's
# -no-reboot turns into an exit.
if [ -d /sys/firmware/acpi ]; then
        poweroff -f
fi
reboot -f
