#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kselftests.sh: build mainline's own pidfd and clone3 selftests
# (tools/testing/selftests/{pidfd,clone3}) statically from Debian's
# linux-source of the lab's 7.x kernel, and print the directory that holds
# them.
#
# Usage: build-kselftests.sh [--offline] [--force]
#
# The source is the one of the kernel get-kernel.sh picks (get-kernel.sh
# --source: linux-source-<major>.<minor>, same package version), so the
# tests match the lab's Debian kernel. The patches in kernel/patches/upstream/
# (selftest changes carried for upstream) are applied first; mainline's
# pidfd_autoreap_test as it was before them is built too, as
# pidfd/pidfd_autoreap_test.orig, so that its flakiness can still be
# measured.
#
# Output: ${SVD_LAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/svd-lab}/kselftests/
#   <source package>_<version>-<key>/{pidfd,clone3}/   the test binaries
#   (pidfd/pidfd_exec_helper, which pidfd_info_test runs from its working
#   directory, included); <key> is a hash of the upstream patches and of
#   this script. A cached directory is printed without building anything.
#
# Needs gcc, make, patch, xz-utils, libc6-dev (static libc) and libcap-dev
# (static libcap, for clone3_cap_checkpoint_restore); contrib/install-deps.sh
# --lab installs them.
#
# stdout: the absolute path of the directory, nothing else. Progress goes to
# stderr, the build output to build-<key>.log next to it. Exit 1 with one
# line on stderr on failure.

set -euo pipefail

die() { echo "build-kselftests: $*" >&2; exit 1; }
note() { echo "build-kselftests: $*" >&2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src_top=$(cd "$here/../.." && pwd)
upstream_dir=$src_top/kernel/patches/upstream
cache=${SVD_LAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/svd-lab}/kselftests

offline=()
force=0
while [ $# -gt 0 ]; do
        case $1 in
        --offline) offline=(--offline) ;;
        --force) force=1 ;;
        -h|--help) sed -n '3,/^$/s/^# \{0,1\}//p' "$0" >&2; exit 0 ;;
        *) die "unknown argument '$1'" ;;
        esac
        shift
done

tarball=$("$here/get-kernel.sh" --source "${offline[@]}") || die "no linux-source of the lab's kernel"
src_name=$(basename "$tarball" .tar.xz)                        # linux-source-7.3
src_ver=$(basename "$(dirname "$tarball")"); src_ver=${src_ver#"${src_name}_"}

patches=()
for p in "$upstream_dir"/*.patch; do
        [ -e "$p" ] || continue
        case ${p##*/} in 0000-cover-letter.patch) continue ;; esac
        patches+=("$p")
done
key=$(cat "${patches[@]}" "$0" | sha256sum | cut -c1-16)
out=$cache/${src_name}_$src_ver-$key

mkdir -p "$cache" || die "cannot create '$cache'"
if [ "$force" = 0 ] && [ -x "$out/pidfd/pidfd_test" ]; then
        echo "$out"
        exit 0
fi

exec 9>"$cache/.lock"
flock 9
if [ "$force" = 0 ] && [ -x "$out/pidfd/pidfd_test" ]; then
        echo "$out"
        exit 0
fi

tree=$cache/build-$key
log=$cache/build-$key.log
rm -rf "$tree" "$out.tmp"
trap 'rm -rf "$tree" "$out.tmp"' EXIT
mkdir -p "$tree"
: >"$log"
start=$(date +%s)

# What `make headers` and the two test directories need; the rest of the
# tree (drivers, file systems, other architectures) is left in the tarball.
note "extracting $src_name $src_ver"
tar -xf "$tarball" -C "$tree" --wildcards \
        --exclude="$src_name/drivers" --exclude="$src_name/Documentation" \
        --exclude="$src_name/sound" --exclude="$src_name/net" --exclude="$src_name/fs" \
        --exclude="$src_name/rust" --exclude="$src_name/arch/[a-wyz]*" \
        --exclude="$src_name/arch/x[a-z]*" >>"$log" 2>&1 || die "cannot extract '$tarball' (see $log)"
srcdir=$tree/$src_name
st=$srcdir/tools/testing/selftests
[ -d "$st/pidfd" ] && [ -d "$st/clone3" ] || die "$src_name has no tools/testing/selftests/pidfd or clone3"

cp "$st/pidfd/pidfd_autoreap_test.c" "$tree/pidfd_autoreap_test.orig.c" 2>/dev/null || true
for p in "${patches[@]}"; do
        echo "== ${p##*/}" >>"$log"
        patch -d "$srcdir" -p1 --forward --batch <"$p" >>"$log" 2>&1 ||
                die "patch ${p##*/} does not apply to $src_name $src_ver (see $log)"
done

note "building the pidfd and clone3 selftests (log: $log)"
make -C "$srcdir" headers >>"$log" 2>&1 || die "make headers failed (see $log)"
mkdir -p "$out.tmp/pidfd" "$out.tmp/clone3"
for t in pidfd clone3; do
        make -C "$st/$t" CC="gcc -static" KHDR_INCLUDES="-isystem $srcdir/usr/include" \
                OUTPUT="$out.tmp/$t" >>"$log" 2>&1 || die "building the $t selftests failed (see $log)"
done
if [ -f "$tree/pidfd_autoreap_test.orig.c" ]; then
        cp "$tree/pidfd_autoreap_test.orig.c" "$st/pidfd/pidfd_autoreap_test_orig.c"
        (cd "$st/pidfd" && gcc -static -g -Wall -pthread -isystem "$srcdir/usr/include" -I"$st" \
                -I"$srcdir/tools/include" -o "$out.tmp/pidfd/pidfd_autoreap_test.orig" \
                pidfd_autoreap_test_orig.c) >>"$log" 2>&1 ||
                die "building mainline's pidfd_autoreap_test failed (see $log)"
fi
for f in "$out.tmp"/*/*; do
        ! ldd "$f" >/dev/null 2>&1 || die "$f is not linked statically"
done

rm -rf "$out"
mv "$out.tmp" "$out"
note "built in $(($(date +%s) - start)) s"
echo "$out"
