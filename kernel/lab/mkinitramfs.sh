#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh: build the kernel lab's initramfs (gzip'd newc cpio).
#
# Usage: mkinitramfs.sh -o OUT [--manifest FILE]... [--env NAME=VALUE]... [ITEM...]
#
# An ITEM (argument or manifest line; manifest lines may also read
# "SRC DEST", and '#' starts a comment) is SRC or SRC:DEST:
#   - a file:      copied to DEST, default /svd/bin/<basename>;
#   - a directory: copied recursively to DEST, default /svd/<SRC> for a
#                  relative SRC (tests/lib -> /svd/tests/lib), else
#                  /svd/<basename>.
# Every copied ELF file brings its shared libraries and the dynamic loader
# (from ldd), at the paths ldd names, and with libc its libgcc_s (which
# glibc opens at run time for pthread_exit() and pthread_cancel()). Every copied executable file also gets
# a /svd/bin/<basename> symlink, so it is on the guest's PATH.
# --env adds `export NAME='VALUE'` to /svd/env.sh, which /init sources.
#
# The image always holds busybox-static with all its applets as symlinks,
# /init (kernel/lab/init.sh), /etc/passwd and /etc/group with root,
# svdtest (1000:1000) and nobody (65534), and empty /proc /sys /dev /tmp
# /run. boot.sh appends the per-run command as a second archive.

set -euo pipefail

die() { echo "mkinitramfs: $*" >&2; exit 1; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=""
items=()
envs=()

while [ $# -gt 0 ]; do
        case $1 in
        -o) [ $# -ge 2 ] || die "-o needs a file"; out=$2; shift ;;
        --manifest)
                [ $# -ge 2 ] || die "--manifest needs a file"
                [ -r "$2" ] || die "cannot read manifest '$2'"
                while read -r src dest _; do
                        case $src in ''|'#'*) continue ;; esac
                        items+=("$src${dest:+:$dest}")
                done <"$2"
                shift ;;
        --env) [ $# -ge 2 ] || die "--env needs NAME=VALUE"; envs+=("$2"); shift ;;
        -h|--help) sed -n '3,/^$/s/^# \{0,1\}//p' "$0" >&2; exit 0 ;;
        -*) die "unknown option '$1'" ;;
        *) items+=("$1") ;;
        esac
        shift
done
[ -n "$out" ] || die "no output file given (-o OUT)"

busybox=$(command -v busybox || true)
for b in /bin/busybox /usr/bin/busybox "$busybox"; do
        [ -n "$b" ] && [ -x "$b" ] || continue
        # Only a static busybox runs without libraries.
        if ! ldd "$b" >/dev/null 2>&1; then busybox=$b; break; fi
        busybox=""
done
[ -n "$busybox" ] || die "no static busybox found (apt-get install busybox-static)"
command -v cpio >/dev/null || die "cpio not found (apt-get install cpio)"

stage=$(mktemp -d "${TMPDIR:-/tmp}/svd-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,run,root,home/svdtest,svd/bin,var}
ln -s /run "$stage/var/run"
ln -s /tmp "$stage/var/tmp"
chmod 1777 "$stage/tmp"
chmod 0700 "$stage/root"

cp "$busybox" "$stage/bin/busybox"
while read -r applet; do
        [ -e "$stage/$applet" ] || [ -L "$stage/$applet" ] && continue
        mkdir -p "$stage/$(dirname "$applet")"
        ln -s /bin/busybox "$stage/$applet"
done < <("$stage/bin/busybox" --list-full)
# Applets busybox --list-full may not name where scripts look for them.
[ -e "$stage/bin/sh" ] || ln -s /bin/busybox "$stage/bin/sh"
[ -e "$stage/usr/bin/env" ] || ln -s /bin/busybox "$stage/usr/bin/env"

install -m 0755 "$here/init.sh" "$stage/init"

cat >"$stage/etc/passwd" <<'EOT'
root:x:0:0:root:/root:/bin/sh
svdtest:x:1000:1000:svd test user:/home/svdtest:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
EOT
cat >"$stage/etc/group" <<'EOT'
root:x:0:
tty:x:5:
svdtest:x:1000:
nogroup:x:65534:
EOT
cat >"$stage/etc/shadow" <<'EOT'
root:*:1::::::
svdtest:*:1::::::
nobody:*:1::::::
EOT
chmod 0640 "$stage/etc/shadow"
printf 'passwd: files\ngroup: files\nshadow: files\nhosts: files\n' >"$stage/etc/nsswitch.conf"
printf '127.0.0.1 localhost svd-lab\n::1 localhost\n' >"$stage/etc/hosts"

: >"$stage/svd/env.sh"
for e in "${envs[@]}"; do
        name=${e%%=*}
        value=${e#*=}
        [[ $name =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "bad --env '$e'"
        printf "export %s='%s'\n" "$name" "${value//\'/\'\\\'\'}" >>"$stage/svd/env.sh"
done

is_elf() { [ "$(head -c 4 "$1" 2>/dev/null)" = $'\x7fELF' ]; }

declare -A libs_done=()
copy_libs() {
        local f=$1 line lib
        # ldd prints "name => /path (addr)", "/path (addr)" or "not a dynamic executable".
        while read -r line; do
                case $line in
                *"=> not found"*) die "$f: ${line%% *} not found by ldd" ;;
                *"=> /"*) lib=${line#*=> }; lib=${lib%% (*} ;;
                /*) lib=${line%% (*} ;;
                *) continue ;;
                esac
                [ -n "${libs_done[$lib]:-}" ] && continue
                libs_done[$lib]=1
                mkdir -p "$stage$(dirname "$lib")"
                cp -L "$lib" "$stage$lib"
                # glibc loads libgcc_s with dlopen() to unwind the stack in
                # pthread_exit() and pthread_cancel() (and aborts without
                # it), so ldd never lists it: bring it along with libc.
                case $lib in
                */libc.so.6)
                        lib=$(dirname "$lib")/libgcc_s.so.1
                        if [ -e "$lib" ] && [ -z "${libs_done[$lib]:-}" ]; then
                                libs_done[$lib]=1
                                cp -L "$lib" "$stage$lib"
                        fi ;;
                esac
        done < <(ldd "$f" 2>/dev/null || true)
}

add_file() {
        local src=$1 dest=$2
        mkdir -p "$stage$(dirname "$dest")"
        rm -f "$stage$dest"
        cp -L "$src" "$stage$dest"
        if is_elf "$src"; then copy_libs "$src"; fi
        if [ -x "$src" ] && [ "$(dirname "$dest")" != /svd/bin ]; then
                ln -sf "$dest" "$stage/svd/bin/$(basename "$dest")"
        fi
}

for item in "${items[@]}"; do
        src=${item%%:*}
        dest=""
        [ "$src" != "$item" ] && dest=${item#*:}
        [ -e "$src" ] || die "'$src' does not exist"
        if [ -d "$src" ]; then
                if [ -z "$dest" ]; then
                        case $src in
                        /*) dest=/svd/$(basename "$src") ;;
                        *) rel=$(realpath -m --relative-to=. "$src"); dest=/svd/$rel ;;
                        esac
                fi
                mkdir -p "$stage$dest"
                cp -a "$src/." "$stage$dest/"
                while IFS= read -r -d '' f; do
                        is_elf "$f" && copy_libs "$f"
                done < <(find "$src" -type f -print0)
        else
                add_file "$src" "${dest:-/svd/bin/$(basename "$src")}"
        fi
done

mkdir -p "$(dirname "$out")"
tmp_out=$out.tmp.$$
(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
        cpio --null -o -H newc -R 0:0 --quiet | gzip -6 -n) >"$tmp_out"
mv "$tmp_out" "$out"
