#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh: run one command in a VM on a Linux >= 7.1 kernel, with this
# tree's build inside. This is how a developer runs anything in the lab.
#
# Usage: run.sh [--kernel PATH] [--timeout SEC] [--build DIR] [--keep-initrd FILE] [--env N=V]...
#               [--add SRC[:DEST]]... [--disk FILE] -- COMMAND [ARG...]
#
#   --kernel PATH   boot this vmlinuz instead of get-kernel.sh's
#   --build DIR     the CMake build directory (default ${SVD_BUILD:-build},
#                   relative to the source tree)
#   --timeout SEC   passed to boot.sh (default 300)
#   --disk FILE     passed to boot.sh: a raw image as the guest's /dev/vda
#   --keep-initrd F also write the image to F (to boot it again by hand)
#   --env N=V       export N=V in the guest (repeatable)
#   --add SRC[:DEST] also put this file or directory in the image (as
#                   mkinitramfs.sh's ITEM: a file goes to /svd/bin/ and is on
#                   PATH, with its libraries; repeatable)
#   --skip-missing  exit 77 (skip) with the reason on stderr when QEMU,
#                   busybox-static, cpio or a kernel >= 7.1 is missing
#                   (for ctest's SKIP_RETURN_CODE; CI should not pass it)
#
# The image (mkinitramfs.sh) holds every ELF executable of the build
# directory under /svd/build/<same relative path> (and on PATH through
# /svd/bin), their libraries, and tests/integration, tests/lib, tests/bench
# (for instance: run.sh -- sh /svd/tests/bench/crashtest.sh) and units/
# under /svd/. The guest environment names them as tests/CMakeLists.txt
# does: SVD, SVCTL, SVD_SOURCE_DIR=/svd, SVD_TESTS=/svd/tests,
# SVD_TEST_HELPERS=/svd/build/tests, TIMEOUT_FACTOR (default 4: TCG is slow).
#
# Exit status: the command's, or boot.sh's failure status (124 timeout, 1).

set -euo pipefail

die() { echo "run: $*" >&2; exit 1; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
kernel=""
build=${SVD_BUILD:-build}
timeout_args=()
keep=""
skip_missing=0
extra_envs=()
extra_items=()

while [ $# -gt 0 ]; do
        case $1 in
        --kernel) [ $# -ge 2 ] || die "--kernel needs a path"; kernel=$2; shift ;;
        --build) [ $# -ge 2 ] || die "--build needs a directory"; build=$2; shift ;;
        --timeout) [ $# -ge 2 ] || die "--timeout needs seconds"; timeout_args+=(--timeout "$2"); shift ;;
        --disk) [ $# -ge 2 ] || die "--disk needs a file"; timeout_args+=(--disk "$2"); shift ;;
        --keep-initrd) [ $# -ge 2 ] || die "--keep-initrd needs a file"; keep=$2; shift ;;
        --skip-missing) skip_missing=1 ;;
        --env) [ $# -ge 2 ] || die "--env needs NAME=VALUE"; extra_envs+=("$2"); shift ;;
        --add) [ $# -ge 2 ] || die "--add needs a path"; [ -e "${2%%:*}" ] || die "--add: '${2%%:*}' does not exist"
               extra_items+=("$2"); shift ;;
        -h|--help) sed -n '3,/^$/s/^# \{0,1\}//p' "$0" >&2; exit 0 ;;
        --) shift; break ;;
        *) die "unknown argument '$1' (the command goes after --)" ;;
        esac
        shift
done
[ $# -ge 1 ] || die "usage: run.sh [--kernel PATH] -- COMMAND..."

missing() {
        if [ "$skip_missing" = 1 ]; then
                echo "SKIP: $*" >&2
                exit 77
        fi
        die "$*"
}
command -v qemu-system-x86_64 >/dev/null || missing "qemu-system-x86_64 not found (apt-get install qemu-system-x86)"
command -v cpio >/dev/null || missing "cpio not found (apt-get install cpio)"
static_busybox() {
        local b
        for b in /bin/busybox /usr/bin/busybox; do
                [ -x "$b" ] && ! ldd "$b" >/dev/null 2>&1 && return 0
        done
        return 1
}
static_busybox || missing "no static busybox (apt-get install busybox-static)"
if [ -z "$kernel" ]; then
        # get-kernel.sh has said why on stderr.
        if ! kernel=$("$here/get-kernel.sh"); then
                [ "$skip_missing" = 1 ] || exit 1
                missing "no kernel >= 7.1"
        fi
fi

case $build in /*) ;; *) build=$src/$build ;; esac

items=()
envs=(SVD_SOURCE_DIR=/svd SVD_TESTS=/svd/tests "TIMEOUT_FACTOR=${TIMEOUT_FACTOR:-4}")
if [ -d "$build" ]; then
        while IFS= read -r -d '' f; do
                [ "$(head -c 4 "$f")" = $'\x7fELF' ] || continue
                rel=${f#"$build"/}
                items+=("$f:/svd/build/$rel")
                case $(basename "$f") in
                svd) envs+=("SVD=/svd/build/$rel") ;;
                svctl) envs+=("SVCTL=/svd/build/$rel") ;;
                esac
        done < <(find "$build" \( -name CMakeFiles -o -name _deps -o -name Testing \) -prune -o \
                -type f -perm -u+x -print0 | sort -z)
        [ -d "$build/tests" ] && envs+=(SVD_TEST_HELPERS=/svd/build/tests)
fi
[ ${#items[@]} -gt 0 ] || echo "run: no executables in '$build'; the image has busybox only" >&2

for d in tests/integration tests/lib tests/bench units; do
        [ -d "$src/$d" ] && items+=("$src/$d:/svd/$d")
done
items+=("${extra_items[@]}")

work=$(mktemp -d "${TMPDIR:-/tmp}/svd-run.XXXXXX")
trap 'rm -rf "$work"' EXIT
env_args=()
envs+=("${extra_envs[@]}")
for e in "${envs[@]}"; do env_args+=(--env "$e"); done

"$here/mkinitramfs.sh" -o "$work/initrd.cpio.gz" "${env_args[@]}" "${items[@]}"
[ -z "$keep" ] || cp "$work/initrd.cpio.gz" "$keep"

set +e
"$here/boot.sh" "${timeout_args[@]}" --initrd "$work/initrd.cpio.gz" "$kernel" -- "$@"
exit $?
