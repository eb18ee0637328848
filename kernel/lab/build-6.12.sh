#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-6.12.sh: build the lab's Linux 6.12 kernel from Debian's
# linux-source-6.12 with this tree's patch series (kernel/patches/6.12/)
# and print the path of its bzImage.
#
# Usage: build-6.12.sh [--unpatched | --selftest] [--force] [--keep-tree]
#
#   --unpatched  the same kernel without the series (for svd's fallback mode)
#   --selftest   instead of a kernel: build the series' own selftest,
#                tools/testing/selftests/pidfd/pidfd_autoreap_test, against
#                the patched tree's UAPI headers and print its path (no
#                kernel build: extract, patch, `make headers`, ~20 s)
#   --force      rebuild even if a cached bzImage exists
#   --keep-tree  keep the source and build tree of this build in the cache
#                (default: removed when the script ends, whether the build
#                worked or not; it is ~2 GB); also SVD_LAB_KEEP_TREE=1
#
# Steps: install the packages the build needs when they are missing
# (linux-source-6.12 flex bison bc libelf-dev libssl-dev make gcc patch
# xz-utils; as root, or through sudo), extract /usr/src/linux-source-6.12.tar.xz,
# apply the series with patch(1) one patch at a time, `make tinyconfig`,
# merge kernel/config/lab-6.12.config (scripts/kconfig/merge_config.sh),
# `make olddefconfig`, check that every option of the fragment survived,
# `make bzImage` with -j$(nproc) under `nice -n 10`.
#
# Cache: ${SVD_LAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/svd-lab}/linux-6.12/
#   bzImage-<source version>-<series>-<config>  the kernels; <series> is the
#       first 16 hex digits of the sha256 of the patches (the cover letter
#       left out) or "unpatched", <config> likewise of the config fragment
#   build-<same key>/   the tree of a build in progress (or kept)
#   build-<same key>.log  the log of the last build of that key
#   pidfd_autoreap_test-<source version>-<series>  the selftest (--selftest)
# A cached kernel is printed without building anything.
#
# stdout: the absolute path of the bzImage, nothing else. Progress goes to
# stderr, the build output to the log. Exit 1 with one line on stderr on
# failure; a patch that does not apply is named: "build-6.12: patch
# 0003-....patch does not apply to linux-source-6.12 <version>".

set -euo pipefail

die() { echo "build-6.12: $*" >&2; exit 1; }
note() { echo "build-6.12: $*" >&2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src_top=$(cd "$here/../.." && pwd)
series_dir=$src_top/kernel/patches/6.12
fragment=$src_top/kernel/config/lab-6.12.config
tarball=/usr/src/linux-source-6.12.tar.xz
cache=${SVD_LAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/svd-lab}/linux-6.12

unpatched=0
selftest=0
force=0
keep_tree=${SVD_LAB_KEEP_TREE:-0}

while [ $# -gt 0 ]; do
        case $1 in
        --unpatched) unpatched=1 ;;
        --selftest) selftest=1 ;;
        --force) force=1 ;;
        --keep-tree) keep_tree=1 ;;
        -h|--help) sed -n '3,/^$/s/^# \{0,1\}//p' "$0" >&2; exit 0 ;;
        *) die "unknown argument '$1'" ;;
        esac
        shift
done

[ "$unpatched" = 1 ] && [ "$selftest" = 1 ] && die "--selftest is built from the patched tree; drop --unpatched"
[ -r "$fragment" ] || die "cannot read the config fragment '$fragment'"

# --- packages ---------------------------------------------------------------

missing=()
for pkg in linux-source-6.12 flex bison bc libelf-dev libssl-dev make gcc patch xz-utils; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
                missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
        note "installing ${missing[*]}"
        if [ "$(id -u)" = 0 ]; then
                sudo=()
        elif command -v sudo >/dev/null; then
                sudo=(sudo -n)
        else
                die "missing packages (${missing[*]}) and not root: apt-get install ${missing[*]}"
        fi
        if ! "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >&2; then
                "${sudo[@]}" apt-get update >&2 || true
                "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >&2 ||
                        die "cannot install ${missing[*]}"
        fi
fi
[ -r "$tarball" ] || die "linux-source-6.12 is installed but '$tarball' is missing"
version=$(dpkg-query -W -f='${Version}' linux-source-6.12) ||
        die "cannot read the version of linux-source-6.12"

# --- cache key --------------------------------------------------------------

patches=()
if [ "$unpatched" = 0 ]; then
        for p in "$series_dir"/*.patch; do
                [ -e "$p" ] || continue
                case ${p##*/} in 0000-cover-letter.patch) continue ;; esac
                patches+=("$p")
        done
        [ ${#patches[@]} -gt 0 ] || die "no patches in '$series_dir'"
        series_key=$(cat "${patches[@]}" | sha256sum | cut -c1-16)
else
        series_key=unpatched
fi
config_key=$(sha256sum <"$fragment" | cut -c1-16)
key=$version-$series_key-$config_key
image=$cache/bzImage-$key
if [ "$selftest" = 1 ]; then
        key=kst-$version-$series_key
        image=$cache/pidfd_autoreap_test-$version-$series_key
fi

mkdir -p "$cache" || die "cannot create the cache directory '$cache'"
if [ "$force" = 0 ] && [ -s "$image" ]; then
        echo "$image"
        exit 0
fi

# One build at a time per cache; a build of the same key done meanwhile is
# taken as it is.
exec 9>"$cache/.lock"
flock 9
if [ "$force" = 0 ] && [ -s "$image" ]; then
        echo "$image"
        exit 0
fi

# --- source tree --------------------------------------------------------------

tree=$cache/build-$key
log=$cache/build-$key.log
rm -rf "$tree"
# The tree is removed however the build ends, unless it is to be kept.
[ "$keep_tree" = 1 ] || trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/obj"
: >"$log"
start=$(date +%s)

note "extracting linux-source-6.12 $version"
tar -xf "$tarball" -C "$tree" || die "cannot extract '$tarball'"
srcdir=$tree/linux-source-6.12
[ -f "$srcdir/Makefile" ] || die "'$tarball' has no linux-source-6.12/Makefile"

for p in "${patches[@]}"; do
        name=${p##*/}
        echo "== $name" >>"$log"
        if ! patch -d "$srcdir" -p1 --forward --batch --dry-run <"$p" >>"$log" 2>&1; then
                die "patch $name does not apply to linux-source-6.12 $version (see $log)"
        fi
        patch -d "$srcdir" -p1 --forward --batch --quiet <"$p" >>"$log" 2>&1 ||
                die "patch $name does not apply to linux-source-6.12 $version (see $log)"
done
if [ ${#patches[@]} -gt 0 ]; then
        note "applied ${#patches[@]} patches"
fi

if [ "$selftest" = 1 ]; then
        note "building pidfd_autoreap_test (log: $log)"
        # `make headers` leaves them in usr/include; headers_install would
        # copy them elsewhere with rsync, which the lab does not need.
        make -C "$srcdir" headers >>"$log" 2>&1 ||
                die "make headers failed (see $log)"
        mkdir -p "$tree/kst"
        make -C "$srcdir/tools/testing/selftests/pidfd" KHDR_INCLUDES="-isystem $srcdir/usr/include" \
                OUTPUT="$tree/kst" "$tree/kst/pidfd_autoreap_test" >>"$log" 2>&1 ||
                die "building pidfd_autoreap_test failed (see $log)"
        cp "$tree/kst/pidfd_autoreap_test" "$image.tmp" && mv "$image.tmp" "$image" ||
                die "cannot store '$image'"
        note "built in $(($(date +%s) - start)) s"
        echo "$image"
        exit 0
fi

# --- configuration ------------------------------------------------------------

mk() { nice -n 10 make -C "$srcdir" O="$tree/obj" "$@" >>"$log" 2>&1; }

mk tinyconfig || die "make tinyconfig failed (see $log)"
(cd "$srcdir" && scripts/kconfig/merge_config.sh -m -O "$tree/obj" \
        "$tree/obj/.config" "$fragment") >>"$log" 2>&1 ||
        die "merging '$fragment' failed (see $log)"
mk olddefconfig || die "make olddefconfig failed (see $log)"

lost=()
while IFS= read -r line; do
        case $line in
        CONFIG_*=*) grep -qxF "$line" "$tree/obj/.config" || lost+=("$line") ;;
        "# CONFIG_"*" is not set")
                opt=${line#\# }; opt=${opt%% *}
                if grep -q "^$opt=" "$tree/obj/.config"; then lost+=("$line"); fi ;;
        esac
done <"$fragment"
[ ${#lost[@]} -eq 0 ] || die "olddefconfig dropped ${lost[*]} (dependencies missing from '$fragment')"

# --- build --------------------------------------------------------------------

note "building bzImage ($(nproc) jobs; log: $log)"
if ! mk -j"$(nproc)" bzImage; then
        tail -n 20 "$log" >&2
        die "the kernel build failed (see $log)"
fi
built=$tree/obj/arch/x86/boot/bzImage
[ -s "$built" ] || die "the build left no '$built'"
cp "$built" "$image.tmp" && mv "$image.tmp" "$image" || die "cannot store '$image'"
cp "$tree/obj/.config" "$image.config" 2>/dev/null || true

note "built in $(($(date +%s) - start)) s"
echo "$image"
