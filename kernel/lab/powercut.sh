#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# powercut.sh: the power-loss fault's cross-check against a real power cut.
# The writers that tests/integration/crashtest-powerloss.sh runs under
# svd-powerfs (tests/lib/statefile-service.c: append-nosync, rename-nodirsync,
# correct, append-sync) run here in a lab VM on an ext4 data disk (a raw image,
# the guest's /dev/vda), and QEMU is killed with SIGKILL after a seeded number
# of acknowledged records: what the guest kept in its page cache is lost, what
# it wrote to the disk is not. A second boot mounts the disk (ext4 replays its
# journal) and the writer recovers its count. A round fails when the count is
# smaller than the last acknowledged one, or torn. The verdicts must be the
# layer's: append-nosync and rename-nodirsync fail (within the rounds),
# correct and append-sync pass every round.
#
# Usage: powercut.sh [--build DIR] [--rounds N] [--seed N]
#
#   --build DIR   the CMake build directory (default ${SVD_BUILD:-build})
#   --rounds N    rounds per writer (default ${POWERCUT_ROUNDS:-3}); a writer
#                 expected to fail gets up to twice as many, and stops at its
#                 first failed round
#   --seed N      the seed of the moments of the cuts (default 1)
#
# Needs what the lab needs, a kernel with its modules for virtio_blk
# (get-kernel.sh keeps them) and ext4, and mkfs.ext4 (e2fsprogs). Exit 77
# with the reason when one is missing (1 with SVD_LAB_REQUIRED=1); 0 when
# every verdict is the layer's.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${SVD_BUILD:-build}
rounds=${POWERCUT_ROUNDS:-3}
seed=1

die() { echo "powercut: $*" >&2; exit 1; }
# Without what it needs: a skip, or a failure where the lab is required (SVD_LAB_REQUIRED=1).
skip() {
        [ "${SVD_LAB_REQUIRED:-0}" = 1 ] && die "$* (SVD_LAB_REQUIRED=1)"
        echo "1..0 # SKIP $*"
        exit 77
}

while [ $# -gt 0 ]; do
        case $1 in
        --build) [ $# -ge 2 ] || die "--build needs a directory"; build=$2; shift ;;
        --rounds) [ $# -ge 2 ] || die "--rounds needs a number"; rounds=$2; shift ;;
        --seed) [ $# -ge 2 ] || die "--seed needs a number"; seed=$2; shift ;;
        -h|--help) sed -n '3,/^$/s/^# \{0,1\}//p' "$0" >&2; exit 0 ;;
        *) die "unknown argument '$1'" ;;
        esac
        shift
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "bad --rounds '$rounds'"
[[ $seed =~ ^[0-9]+$ ]] || die "bad --seed '$seed'"
case $build in /*) ;; *) build=$src/$build ;; esac

command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is missing (contrib/install-deps.sh --lab)"
command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 is missing (e2fsprogs)"
[ -x "$build/tests/lib/statefile-service" ] || skip "no $build/tests/lib/statefile-service (build first)"
kernel=$("$here/get-kernel.sh" 2>/dev/null) || skip "no lab kernel (kernel/lab/get-kernel.sh)"
modules=$(dirname "$kernel")/modules
[ -f "$modules/order" ] || skip "the lab kernel's modules are not cached (get-kernel.sh --refresh)"

# kill_qemu PATTERN: SIGKILL to each QEMU whose command line holds PATTERN (its disk); 1 when none.
kill_qemu() {
        local f pid found=1
        for f in $(grep -lsaF -- "$1" /proc/[0-9]*/cmdline); do
                pid=${f#/proc/}
                pid=${pid%/cmdline}
                grep -qaF qemu-system "$f" 2>/dev/null || continue
                kill -KILL "$pid" 2>/dev/null && found=0
        done
        return "$found"
}

work=$(mktemp -d "${TMPDIR:-/tmp}/svd-powercut.XXXXXX")
trap 'kill_qemu "file=$work/" || true; rm -rf "$work"' EXIT

# One image for every boot: the build's binaries, the modules.
"$here/run.sh" --build "$build" --timeout 120 --keep-initrd "$work/initrd" --add "$modules:/svd/modules" -- true \
        >"$work/image.log" 2>&1 || { tail -n 20 "$work/image.log" >&2; die "the lab image could not be made"; }

# The guest's preamble: the modules, the data disk at /mnt/d.
prepare='while read -r m; do insmod /svd/modules/$m || exit 1; done </svd/modules/order
mkdir -p /mnt/d && mount -t ext4 /dev/vda /mnt/d || exit 1
echo POWERCUT-MOUNTED'

# The moments of the cuts: the number of acknowledged records before each, from a seeded LCG.
rng=$seed

# round MODE N: one cut and one recovery; "ack K start S" in $result; status 1 when the round fails.
result=""
round() {
        local mode=$1 n=$2 img=$work/disk-$1-$2.img want
        truncate -s 64M "$img"
        mkfs.ext4 -q -F "$img"
        rng=$(( (rng * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff ))
        want=$(( 5 + (rng >> 33) % 40 ))
        # Boot 1: the writer, its journal on the console, until QEMU is killed.
        "$here/boot.sh" --timeout 300 --initrd "$work/initrd" --disk "$img" "$kernel" -- \
                sh -c "$prepare
exec statefile-service $mode /mnt/d/state /proc/self/fd/1" >"$work/$mode-$n.write.log" 2>&1 &
        local boot=$! waited=0
        while [ "$(grep -c '^ack [0-9]*$' "$work/$mode-$n.write.log" 2>/dev/null)" -lt "$want" ]; do
                kill -0 "$boot" 2>/dev/null || { tail -n 20 "$work/$mode-$n.write.log" >&2; die "$mode round $n: the VM ended before $want acks"; }
                sleep 0.05
                waited=$((waited + 1))
                [ "$waited" -lt 6000 ] || die "$mode round $n: no $want acks within 300 s"
        done
        # The power cut: QEMU killed, the guest's page cache gone with it.
        kill_qemu "file=$img," || die "$mode round $n: no QEMU to kill"
        wait "$boot" 2>/dev/null || true
        local ack
        ack=$(grep '^ack [0-9]*$' "$work/$mode-$n.write.log" | tail -n 1 | cut -d' ' -f2)
        # Boot 2: ext4 replays its journal; the writer says what it recovered.
        "$here/boot.sh" --timeout 300 --initrd "$work/initrd" --disk "$img" "$kernel" -- \
                sh -c "$prepare
statefile-service $mode /mnt/d/state /tmp/journal & p=\$!
i=0
until grep -q '^start' /tmp/journal 2>/dev/null; do i=\$((i + 1)); [ \$i -lt 600 ] || exit 1; sleep 0.1; done
kill \$p
grep '^start' /tmp/journal" >"$work/$mode-$n.recover.log" 2>&1 ||
                { tail -n 20 "$work/$mode-$n.recover.log" >&2; die "$mode round $n: the recovery boot failed"; }
        local start
        start=$(sed -n 's/^start \([0-9a-z]*\)$/\1/p' "$work/$mode-$n.recover.log" | tail -n 1)
        rm -f "$img"
        result="ack $ack start $start"
        [ "$start" != torn ] && [ -n "$start" ] && [ "$start" -ge "$ack" ]
}

failed=0
t=0
echo "1..4"
# The layer's verdicts (tests/integration/crashtest-powerloss.sh).
for spec in append-nosync:fail rename-nodirsync:fail correct:pass append-sync:pass; do
        mode=${spec%%:*}
        expect=${spec#*:}
        verdict=pass
        n=0
        # A writer the layer fails may survive a real cut that lands outside its window (ext4
        # commits a rename with the next fsync of anything): it gets twice the rounds to fail.
        max=$rounds
        [ "$expect" = fail ] && max=$((rounds * 2))
        while [ "$n" -lt "$max" ]; do
                n=$((n + 1))
                if round "$mode" "$n"; then
                        echo "# $mode round $n: ok ($result)"
                else
                        echo "# $mode round $n: FAIL ($result)"
                        verdict=fail
                        break
                fi
        done
        t=$((t + 1))
        if [ "$verdict" = "$expect" ]; then
                echo "ok $t - $mode: $verdict under a real power cut, as under the layer ($n round(s))"
        else
                echo "not ok $t - $mode: $verdict under a real power cut, $expect under the layer ($n round(s))"
                failed=$((failed + 1))
        fi
done
[ "$failed" = 0 ]
