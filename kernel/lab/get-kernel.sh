#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# get-kernel.sh: print the path of a Debian cloud kernel (vmlinuz) that has
# CLONE_AUTOREAP, CLONE_NNP and CLONE_PIDFD_AUTOKILL (Linux >= 7.1).
#
# Usage: get-kernel.sh [--offline] [--refresh] [--package NAME] [--source]
#
# --package pins one linux-binary-<ver>-cloud-amd64 instead of the newest
# (e.g. to compare sid's 7.2 with trixie-backports' 7.3); it too must be
# >= 7.1.
#
# The newest linux-binary-<ver>-cloud-amd64 of version >= 7.1 is resolved from
# Debian sid and trixie-backports through a private apt configuration: the
# system's sources, lists, package cache and dpkg status are never touched.
# The mirror is the one the system's own apt sources name (SVD_LAB_MIRROR
# overrides it); no host is written here.
#
# Cache: ${SVD_LAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/svd-lab}
#   apt/                      private apt state (sources.list, lists, pkgcache)
#   kernels/<pkg>_<version>/  vmlinuz and kernel.release, one per package version,
#                             and modules/: the modules of LAB_MODULES (virtio_blk
#                             and ext4: a data disk for the power-cut test; from
#                             linux-modules-<flavour>, those not built in) with
#                             what they depend on, uncompressed (busybox's insmod
#                             reads them as they are), and modules/order, the
#                             order to load them in
#
# Network use: `apt-get update` runs only when the private lists are missing,
# older than SVD_LAB_REFRESH_SEC (default 86400) or --refresh is given; the
# .deb is downloaded only when its version is not cached yet. So a second run
# touches no network. If the update fails (offline) and a kernel is cached,
# the newest cached one is used with a note on stderr. --offline never
# touches the network and uses the newest cached kernel.
#
# --source prints, instead of the kernel, the path of the source tarball of
# that same kernel version: linux-source-<major>.<minor> (the .deb is
# downloaded once through the same private apt, its linux-source-*.tar.xz
# kept under sources/<package>_<version>/). kernel/lab/build-kselftests.sh
# builds mainline's selftests from it.
#
# stdout: the absolute path of vmlinuz (or of the tarball with --source),
# nothing else. Exit 1 with one line on stderr when no kernel >= 7.1 can be
# had.

set -euo pipefail

readonly MIN_VERSION=7.1
readonly SUITES="sid trixie-backports"
readonly KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

cache=${SVD_LAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/svd-lab}
refresh_sec=${SVD_LAB_REFRESH_SEC:-86400}
offline=0
force_refresh=0
want_pkg=""
want_source=0

die() { echo "get-kernel: $*" >&2; exit 1; }
note() { echo "get-kernel: $*" >&2; }

while [ $# -gt 0 ]; do
        case $1 in
        --offline) offline=1 ;;
        --refresh) force_refresh=1 ;;
        --package) [ $# -ge 2 ] || die "--package needs a name"; want_pkg=$2; shift ;;
        --source) want_source=1 ;;
        -h|--help) sed -n '3,/^$/s/^# \{0,1\}//p' "$0" >&2; exit 0 ;;
        *) die "unknown argument '$1'" ;;
        esac
        shift
done

apt_dir=$cache/apt
kernels_dir=$cache/kernels
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/pkgcache" "$kernels_dir" ||
        die "cannot create cache directory '$cache'"

# --source: the kernel first (a run of this script without --source, which
# takes the lock itself), then the source package of its version.
if [ "$want_source" = 1 ]; then
        args=()
        [ "$offline" = 0 ] || args+=(--offline)
        [ "$force_refresh" = 0 ] || args+=(--refresh)
        [ -z "$want_pkg" ] || args+=(--package "$want_pkg")
        k=$("$0" "${args[@]}") || exit 1
        kdir=$(dirname "$k")
        src_ver=$(cat "$kdir/version")
        src_pkg=linux-source-$(sed -n 's/^\([0-9]\{1,\}\.[0-9]\{1,\}\).*/\1/p' "$kdir/kernel.release")
        [ "$src_pkg" != linux-source- ] || die "cannot tell the version of '$kdir/kernel.release'"
        src_dir=$cache/sources/${src_pkg}_$src_ver
        if [ -f "$src_dir/$src_pkg.tar.xz" ]; then
                echo "$src_dir/$src_pkg.tar.xz"
                exit 0
        fi
        [ "$offline" = 0 ] || die "--offline given, and $src_pkg $src_ver is not cached"
fi

# One run at a time per cache: ctest may start several.
exec 9>"$cache/.lock"
flock 9

# Newest cached kernel (by package version), or nothing.
newest_cached() {
        local d best="" best_ver="" ver
        for d in "$kernels_dir"/*/; do
                [ -f "$d/vmlinuz" ] && [ -f "$d/version" ] || continue
                ver=$(cat "$d/version")
                if [ -z "$best" ] || dpkg --compare-versions "$ver" gt "$best_ver"; then
                        best=${d%/}; best_ver=$ver
                fi
        done
        [ -n "$best" ] && echo "$best/vmlinuz"
}

use_cached_or_die() {
        local k d
        if [ -n "$want_pkg" ]; then
                for d in "$kernels_dir/${want_pkg}"_*/; do
                        [ -f "$d/vmlinuz" ] || continue
                        note "$1; using cached $want_pkg"
                        echo "${d%/}/vmlinuz"
                        exit 0
                done
                die "$1, and $want_pkg is not cached"
        fi
        k=$(newest_cached) || true
        [ -n "$k" ] || die "$1, and no kernel is cached in '$kernels_dir'"
        note "$1; using cached $(cat "$(dirname "$k")/kernel.release")"
        echo "$k"
        exit 0
}

if [ "$offline" = 1 ]; then
        use_cached_or_die "--offline given"
fi

# The Debian mirror the system already uses: a source of type deb whose
# suites include this system's release (or a Debian suite name), read from
# deb822 .sources files and one-line .list files.
system_mirror() {
        local codename f
        codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
        {
                for f in /etc/apt/sources.list.d/*.sources; do
                        [ -r "$f" ] || continue
                        # Print "URI SUITE..." per deb822 stanza.
                        awk 'function flush() { if (types ~ /(^| )deb( |$)/ && uris != "") print uris "\t" suites;
                                                types = ""; uris = ""; suites = "" }
                             /^[ \t]*#/ { next }
                             /^[ \t]*$/ { flush(); next }
                             tolower($1) == "types:"  { $1 = ""; types = $0 }
                             tolower($1) == "uris:"   { uris = $2 }
                             tolower($1) == "suites:" { $1 = ""; suites = $0 }
                             END { flush() }' "$f"
                done
                for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
                        [ -r "$f" ] || continue
                        # deb [opts] URI SUITE COMPONENTS...
                        sed -n 's/^[ \t]*deb[ \t]\+\(\[[^]]*\][ \t]\+\)\{0,1\}\([^ \t]\+\)[ \t]\+\([^ \t]\+\).*/\2\t\3/p' "$f"
                done
        } | while IFS=$'\t' read -r uri suites; do
                for s in $suites; do
                        case $s in
                        "$codename"|"$codename"-updates|"$codename"-backports|\
                        stable|testing|unstable|sid|bookworm|trixie|forky|duke)
                                echo "${uri%/}"; break ;;
                        esac
                done
        done | awk 'NR == 1' # not head: it would leave the loop a SIGPIPE, which pipefail makes fatal
}

mirror=${SVD_LAB_MIRROR:-$(system_mirror)}
[ -n "$mirror" ] || use_cached_or_die "no Debian mirror found in /etc/apt/sources* (set SVD_LAB_MIRROR)"
[ -r "$KEYRING" ] || use_cached_or_die "$KEYRING missing (apt-get install debian-archive-keyring)"

sources=$apt_dir/sources.list
want_sources=$(for s in $SUITES; do echo "deb [signed-by=$KEYRING] $mirror $s main"; done)
if [ ! -f "$sources" ] || [ "$(cat "$sources")" != "$want_sources" ]; then
        echo "$want_sources" >"$sources"
        rm -f "$apt_dir/lists/"*_Packages* "$apt_dir/lists/"*Release* "$apt_dir/lists/.updated" \
                "$apt_dir/resolved" 2>/dev/null || true
fi
: >"$apt_dir/status" # an empty dpkg status: nothing "installed" as far as this apt knows

apt_opts=(
        -o "Dir::Etc::sourcelist=$sources"
        -o "Dir::Etc::sourceparts=-"
        -o "Dir::Etc::preferencesparts=-"
        -o "Dir::State::Lists=$apt_dir/lists"
        -o "Dir::State::status=$apt_dir/status"
        -o "Dir::Cache=$apt_dir/pkgcache"
        -o "Dir::Cache::archives=$apt_dir/archives"
        -o "APT::Architecture=amd64"
        -o "APT::Architectures=amd64"
        -o "Acquire::Languages=none"
        -o "Acquire::Retries=0"
        -o "Acquire::http::Timeout=20"
        # sid's Release files are valid for a week only; a mirror that serves
        # a snapshot older than that (as this project's machines get) makes
        # apt refuse them as expired on a machine without a cached kernel.
        # The signatures are still checked; only the freshness window is not.
        -o "Acquire::Check-Valid-Until=false"
)

if [ "$want_source" = 1 ]; then
        note "downloading $src_pkg $src_ver"
        work=$(mktemp -d "$cache/.src.XXXXXX")
        trap 'rm -rf "$work"' EXIT
        (cd "$work" && apt-get "${apt_opts[@]}" -q download "$src_pkg=$src_ver" >"$work/download.log" 2>&1) ||
                die "apt-get download $src_pkg=$src_ver failed: $(tail -n 1 "$work/download.log")"
        deb=$(echo "$work"/*.deb)
        [ -f "$deb" ] || die "apt-get download left no .deb for $src_pkg"
        mkdir "$work/x"
        dpkg-deb -x "$deb" "$work/x"
        [ -f "$work/x/usr/src/$src_pkg.tar.xz" ] || die "no usr/src/$src_pkg.tar.xz in $src_pkg $src_ver"
        mkdir -p "$work/s" "$cache/sources"
        mv "$work/x/usr/src/$src_pkg.tar.xz" "$work/s/"
        rm -rf "$src_dir"
        mv "$work/s" "$src_dir"
        echo "$src_dir/$src_pkg.tar.xz"
        exit 0
fi

stamp=$apt_dir/lists/.updated
need_update=$force_refresh
if [ ! -f "$stamp" ] || ! compgen -G "$apt_dir/lists/*_Packages*" >/dev/null; then
        need_update=1
elif [ $(( $(date +%s) - $(stat -c %Y "$stamp") )) -ge "$refresh_sec" ]; then
        need_update=1
fi

if [ "$need_update" = 1 ]; then
        if apt-get "${apt_opts[@]}" --error-on=any -q update >"$apt_dir/update.log" 2>&1; then
                touch "$stamp"
        else
                use_cached_or_die "apt-get update failed (see $apt_dir/update.log)"
        fi
fi

# The resolution below reads ~10 MB of lists; remember its answer until the
# lists change.
resolved=$apt_dir/resolved
if [ -z "$want_pkg" ] && [ "$need_update" = 0 ] && [ -f "$resolved" ] && [ "$resolved" -nt "$stamp" ]; then
        read -r best_pkg best_ver <"$resolved" || true
        dir=$kernels_dir/${best_pkg:-none}_${best_ver:-none}
        if [ -f "$dir/vmlinuz" ] && [ -f "$dir/modules/order" ]; then
                echo "$dir/vmlinuz"
                exit 0
        fi
fi

# "PACKAGE VERSION" for every linux-binary-<ver>-cloud-amd64 (not -unsigned).
candidates=$(apt-cache "${apt_opts[@]}" pkgnames linux-binary- 2>/dev/null |
        grep -E '^linux-binary-[0-9][^ ]*-cloud-amd64$' | sort) || true
if [ -n "$want_pkg" ]; then
        echo "$candidates" | grep -qxF -- "$want_pkg" || die "no package '$want_pkg' in $SUITES at $mirror"
        candidates=$want_pkg
fi
[ -n "$candidates" ] || use_cached_or_die "no linux-binary-*-cloud-amd64 in $SUITES at $mirror"

best_pkg="" best_ver=""
while read -r pkg ver; do
        dpkg --compare-versions "$ver" ge "$MIN_VERSION" || continue
        if [ -z "$best_pkg" ] || dpkg --compare-versions "$ver" gt "$best_ver"; then
                best_pkg=$pkg; best_ver=$ver
        fi
done < <(apt-cache "${apt_opts[@]}" show --no-all-versions $candidates 2>/dev/null |
        awk '/^Package: / { p = $2 } /^Version: / { print p, $2 }')

[ -n "$best_pkg" ] || [ -z "$want_pkg" ] || die "$want_pkg is older than $MIN_VERSION"
[ -n "$best_pkg" ] || use_cached_or_die "no linux-binary-*-cloud-amd64 >= $MIN_VERSION in $SUITES at $mirror"

[ -n "$want_pkg" ] || echo "$best_pkg $best_ver" >"$resolved"
dir=$kernels_dir/${best_pkg}_$best_ver
if [ -f "$dir/vmlinuz" ] && [ -f "$dir/modules/order" ]; then
        echo "$dir/vmlinuz"
        exit 0
fi

note "downloading $best_pkg $best_ver"
work=$(mktemp -d "$kernels_dir/.tmp.XXXXXX")
trap 'rm -rf "$work"' EXIT
if ! (cd "$work" && apt-get "${apt_opts[@]}" -q download "$best_pkg=$best_ver" >"$work/download.log" 2>&1); then
        cp "$work/download.log" "$apt_dir/download.log" 2>/dev/null || true
        use_cached_or_die "apt-get download $best_pkg=$best_ver failed (see $apt_dir/download.log)"
fi
deb=$(echo "$work"/*.deb)
[ -f "$deb" ] || die "apt-get download left no .deb for $best_pkg"
mkdir "$work/x"
dpkg-deb -x "$deb" "$work/x"
# The modules are a package of their own, of the same version.
modules_pkg=linux-modules-${best_pkg#linux-binary-}
mkdir "$work/m"
if ! (cd "$work/m" && apt-get "${apt_opts[@]}" -q download "$modules_pkg=$best_ver" >"$work/download.log" 2>&1); then
        cp "$work/download.log" "$apt_dir/download.log" 2>/dev/null || true
        use_cached_or_die "apt-get download $modules_pkg=$best_ver failed (see $apt_dir/download.log)"
fi
dpkg-deb -x "$(echo "$work"/m/*.deb)" "$work/x"
vmlinuz=$(find "$work/x" \( -path '*/lib/modules/*/vmlinuz' -o -name 'vmlinuz-*' \) -type f | head -n 1)
[ -n "$vmlinuz" ] || die "no vmlinuz in $best_pkg $best_ver"

mkdir "$work/k"
mv "$vmlinuz" "$work/k/vmlinuz"
case $vmlinuz in
*/lib/modules/*/vmlinuz) release=$(basename "$(dirname "$vmlinuz")") ;;
*) release=${vmlinuz##*/vmlinuz-} ;;
esac
echo "$release" >"$work/k/kernel.release"
moddir=$(find "$work/x" -path "*/lib/modules/$release" -type d | head -n 1)
[ -n "$moddir" ] || die "no lib/modules/$release in $best_pkg $best_ver"
mkdir "$work/k/modules"
# Every module by its name ("-" as "_"). The package ships no modules.dep (its postinst runs
# depmod): what a module depends on is read from its own .modinfo ("depends=a,b").
declare -A module_path=() loaded=()
while IFS= read -r -d '' f; do
        n=$(basename "$f")
        n=${n%%.ko*}
        module_path[${n//-/_}]=$f
done < <(find "$moddir" -name '*.ko*' -print0)
uncompressed() {
        case $1 in
        *.xz) xz -dc "$1" ;;
        *.gz) gzip -dc "$1" ;;
        *) cat "$1" ;;
        esac
}
# load NAME: its dependencies first, then itself, each once, uncompressed into modules/ and
# named in modules/order.
load() {
        local name=${1//-/_} path dep
        [ -z "${loaded[$name]:-}" ] || return 0
        loaded[$name]=1
        path=${module_path[$name]:-}
        [ -n "$path" ] || die "no module $name in $best_pkg $best_ver"
        uncompressed "$path" >"$work/k/modules/$name.ko"
        for dep in $(tr '\0' '\n' <"$work/k/modules/$name.ko" | sed -n 's/^depends=//p' | head -n 1 | tr ',' ' '); do
                load "$dep"
        done
        echo "$name.ko" >>"$work/k/modules/order"
}
# One that is no module is built in, or not there at all: the guest finds out.
for m in ${LAB_MODULES:-virtio_blk ext4}; do
        [ -z "${module_path[$m]:-}" ] || load "$m"
done
touch "$work/k/modules/order"
echo "$best_ver" >"$work/k/version"
echo "$best_pkg" >"$work/k/package"
rm -rf "$dir"
mv "$work/k" "$dir"
echo "$dir/vmlinuz"
