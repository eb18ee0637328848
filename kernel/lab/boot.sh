#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# boot.sh: run one command in a QEMU (TCG) VM and exit with its status.
#
# Usage: boot.sh [--timeout SEC] [--initrd FILE] [--mem MB] [--smp N]
#                [--append ARGS] [--disk FILE] KERNEL -- COMMAND [ARG...]
#
# QEMU runs with -accel ${SVD_LAB_ACCEL:-tcg,thread=single} -m ${SVD_LAB_MEM:-4096} -smp 2
# -nographic -no-reboot -nic none and the kernel command line
# "console=ttyS0 rdinit=/init panic=-1 quiet" (plus --append). --disk FILE
# attaches a raw image as a virtio disk (the guest's /dev/vda; QEMU writes
# it through the host's page cache, so what the guest wrote to it survives a
# kill -9 of QEMU, and what the guest kept in its own page cache does not).
# 4 GiB because the guest's root is a tmpfs and the ASan suite's 200
# concurrent hostile clients alone take ~2.5 GiB (1 GiB OOM-killed svd);
# QEMU backs only the pages the guest touches.
#
# COMMAND runs as root under the initramfs's /init (kernel/lab/init.sh),
# in /svd, with stdout and stderr on the serial console, which is streamed
# to this script's stdout. Without --initrd a busybox-only image is built
# on the fly (kernel/lab/mkinitramfs.sh). The command is appended to the
# initrd as a second, tiny cpio archive holding /svd/cmd and a random token,
# so one image serves every run.
#
# Exit status: the guest command's, read from the line
#   SVD-LAB-RESULT: token=<token> exit=<N>
# 124 on timeout (default 300 s, SVD_LAB_TIMEOUT); 1 when the kernel
# panicked, QEMU failed or the result line is missing. Each failure has
# one line on stderr.

set -euo pipefail

die() { echo "boot: $*" >&2; exit 1; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
timeout_sec=${SVD_LAB_TIMEOUT:-300}
initrd=""
mem=${SVD_LAB_MEM:-4096}
smp=2
accel=${SVD_LAB_ACCEL:-tcg,thread=single}
append=""
disk=""

while [ $# -gt 0 ]; do
        case $1 in
        --timeout) [ $# -ge 2 ] || die "--timeout needs seconds"; timeout_sec=$2; shift ;;
        --initrd) [ $# -ge 2 ] || die "--initrd needs a file"; initrd=$2; shift ;;
        --mem) [ $# -ge 2 ] || die "--mem needs MB"; mem=$2; shift ;;
        --smp) [ $# -ge 2 ] || die "--smp needs a count"; smp=$2; shift ;;
        --append) [ $# -ge 2 ] || die "--append needs arguments"; append=$2; shift ;;
        --disk) [ $# -ge 2 ] || die "--disk needs a file"; disk=$2; shift ;;
        -h|--help) sed -n '3,/^$/s/^# \{0,1\}//p' "$0" >&2; exit 0 ;;
        --) die "no KERNEL given before --" ;;
        -*) die "unknown option '$1'" ;;
        *) break ;;
        esac
        shift
done
[ $# -ge 1 ] || die "usage: boot.sh [--timeout SEC] [--initrd FILE] KERNEL -- COMMAND..."
kernel=$1
shift
[ "${1:-}" = "--" ] && shift
[ $# -ge 1 ] || die "no COMMAND given after --"
[ -r "$kernel" ] || die "cannot read kernel '$kernel'"
[[ $timeout_sec =~ ^[0-9]+$ ]] || die "bad --timeout '$timeout_sec'"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found (apt-get install qemu-system-x86)"

work=$(mktemp -d "${TMPDIR:-/tmp}/svd-boot.XXXXXX")
qemu_pid=""
cleanup() {
        # timeout(1) passes the signal on to QEMU.
        if [ -n "$qemu_pid" ]; then
                kill "$qemu_pid" 2>/dev/null
                wait "$qemu_pid" 2>/dev/null
        fi
        rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -z "$initrd" ]; then
        initrd=$work/base.cpio.gz
        "$here/mkinitramfs.sh" -o "$initrd"
fi
[ -r "$initrd" ] || die "cannot read initrd '$initrd'"

# The per-run archive: /svd/cmd is `set -- 'ARG' ...` in POSIX sh quoting.
token=$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')
mkdir -p "$work/run/svd"
{
        printf 'set --'
        for a in "$@"; do printf " '%s'" "${a//\'/\'\\\'\'}"; done
        printf '\n'
} >"$work/run/svd/cmd"
echo "$token" >"$work/run/svd/token"

# Concatenated archives are fine for the kernel, but each must start on a
# 4-byte boundary; zeros between them are skipped.
cp "$initrd" "$work/initrd"
size=$(stat -c %s "$work/initrd")
pad=$(( (512 - size % 512) % 512 ))
[ "$pad" -gt 0 ] && head -c "$pad" /dev/zero >>"$work/initrd"
(cd "$work/run" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc -R 0:0 --quiet) >>"$work/initrd"

log=$work/console.log
start=$(date +%s.%N)
set +e
# stdin from /dev/null: no interaction, and the terminal is never left in
# raw mode. The console goes to stdout and to the log parsed below, without
# the firmware's terminal escapes (SeaBIOS clears the screen) and CRs.
# thread=single: with one host thread per vCPU (MTTCG), about 1 boot in 100
# of Debian's 7.3 kernel died with "Oops: int3" in enqueue_timer, a static
# branch one vCPU was patching while the other still ran a stale
# translation of it; round-robin vCPUs on one thread never showed it.
# QEMU (under timeout) and the console reader run in the background, joined
# by a FIFO, so that a signal to this script can stop QEMU (cleanup()).
mkfifo "$work/console"
sed -u -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1bc//g' -e 's/\r$//' <"$work/console" | tee "$log" &
reader_pid=$!
timeout -k 10 "$timeout_sec" \
        qemu-system-x86_64 -accel "$accel" -m "$mem" -smp "$smp" -nographic -no-reboot -nic none \
        -kernel "$kernel" -initrd "$work/initrd" \
        ${disk:+-drive "file=$disk,if=virtio,format=raw,cache=writeback"} \
        -append "console=ttyS0 rdinit=/init panic=-1 quiet${append:+ $append}" \
        </dev/null 2>"$work/qemu.err" >"$work/console" &
qemu_pid=$!
wait "$qemu_pid"
qemu_rc=$?
qemu_pid=""
wait "$reader_pid"
set -e
end=$(date +%s.%N)
elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')

result=$(sed -n "s/.*SVD-LAB-RESULT: token=$token exit=\([0-9]\{1,\}\).*/\1/p" "$log" | tail -n 1)

if [ -n "$result" ]; then
        echo "boot: guest command exited $result (${elapsed}s wall)" >&2
        exit "$result"
fi
if [ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ]; then
        echo "boot: timed out after ${timeout_sec}s without a result line" >&2
        exit 124
fi
panic=$(grep -a -m 1 'Kernel panic' "$log" || true)
if [ -n "$panic" ]; then
        echo "boot: kernel panic: ${panic#*Kernel panic - }" >&2
        exit 1
fi
if [ "$qemu_rc" != 0 ]; then
        echo "boot: qemu exited $qemu_rc: $(head -c 300 "$work/qemu.err" | tr '\n' ' ')" >&2
        exit 1
fi
echo "boot: the guest powered off without a result line (${elapsed}s wall)" >&2
exit 1
