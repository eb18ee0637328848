# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the tests that work in a fresh Debian 12 root (after lib.sh, with
# $W a work directory of the run, $R the root and $cache the cache directory).
#
# The root is `debootstrap --variant=minbase bookworm`, cached as a tarball in
# $cache, one per day, so that the archive is downloaded once a day per
# machine; each run unpacks it anew.

# fresh_root_require WHAT: SKIP unless root (debootstrap, WHAT, mounts), with
# debootstrap and cpack, and for a sanitizer build (its binaries are not what a
# package ships).
fresh_root_require() {
        [ "$(id -u)" = 0 ] || skip_all "needs root (debootstrap, $1, mounts)"
        command -v debootstrap >/dev/null 2>&1 || skip_all "debootstrap is not installed (contrib/install-deps.sh --test)"
        command -v cpack >/dev/null 2>&1 || skip_all "cpack is not installed"
        if grep -q '^SVD_SANITIZE:BOOL=ON' "$SVD_BUILD_DIR/CMakeCache.txt" 2>/dev/null; then
                skip_all "a sanitizer build is not packaged"
        fi
}

# Processes whose root is the chroot's (started by the test in its root).
root_procs() {
        for p in /proc/[0-9]*; do
                [ "$(readlink "$p/root" 2>/dev/null)" = "$R" ] && echo "${p#/proc/}"
        done
        return 0
}

# Unmounts the root's /dev, /sys and /proc; fails if one stays.
unmount_all() {
        for m in dev sys proc; do
                if mountpoint -q "$R/$m" 2>/dev/null; then
                        umount "$R/$m" 2>/dev/null || umount -l "$R/$m" || return 1
                fi
        done
        return 0
}

# fresh_root_cleanup [PID...]: at the test's exit, kills svd ($svd_pid), the
# root's processes and the PIDs given, and removes $W once nothing is mounted
# there any more (never across file systems).
fresh_root_cleanup() {
        [ -n "$svd_pid" ] && kill -KILL "$svd_pid" 2>/dev/null && wait "$svd_pid"
        for p in "$@" $(root_procs); do
                kill -KILL "$p" 2>/dev/null
        done
        if unmount_all; then
                rm -rf --one-file-system "$W"
        else
                echo "# left $W: a mount under it would not go" >&2
        fi
}

# fresh_root DIR: today's root, unpacked into DIR (created here), with /proc, /sys, /dev and the
# host's resolv.conf for apt.
fresh_root() {
        _tarball=$cache/bookworm-minbase-$(date -u +%Y%m%d).tar
        exec 9>"$cache/lock"
        flock 9
        if [ ! -s "$_tarball" ]; then
                rm -rf --one-file-system "$cache/bootstrap"
                if ! debootstrap --variant=minbase bookworm "$cache/bootstrap" >"$W/debootstrap.log" 2>&1; then
                        diag "$(tail -n 20 "$W/debootstrap.log")"
                        rm -rf --one-file-system "$cache/bootstrap"
                        bail_out "debootstrap --variant=minbase bookworm failed (network to the Debian archive?)"
                fi
                tar -C "$cache/bootstrap" -cf "$_tarball.tmp" . && mv "$_tarball.tmp" "$_tarball" ||
                        bail_out "cannot write $_tarball"
                rm -rf --one-file-system "$cache/bootstrap"
                find "$cache" -maxdepth 1 -name 'bookworm-minbase-*.tar' ! -name "$(basename "$_tarball")" -delete
        fi
        flock -u 9
        exec 9>&-
        mkdir "$1" && tar -C "$1" -xf "$_tarball" || bail_out "cannot unpack $_tarball"
        mount -t proc proc "$1/proc" && mount -t sysfs sysfs "$1/sys" && mount --bind /dev "$1/dev" ||
                bail_out "cannot mount /proc, /sys and /dev in the root"
        cp /etc/resolv.conf "$1/etc/resolv.conf"
}

# in_root COMMAND...: COMMAND in the root ($R), with a clean environment for apt and dpkg.
in_root() {
        chroot "$R" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
                HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

# forbid_starts DIR: the root is a machine with systemd whose policy forbids
# starting services (policy-rc.d exits 101), as in an image build. minbase has
# no systemctl; a stand-in (/usr/bin/systemctl, where dpkg's maintainer scripts
# find it) records what is asked of it. Both log to DIR/var/log.
forbid_starts() {
        mkdir -p "$1/run/systemd/system"
        cat >"$1/usr/sbin/policy-rc.d" <<'POLICY'
#!/bin/sh
echo "$*" >>/var/log/policy-rc.d.log
exit 101
POLICY
        cat >"$1/usr/bin/systemctl" <<'SYSTEMCTL'
#!/bin/sh
echo "$*" >>/var/log/systemctl.log
exit 0
SYSTEMCTL
        chmod 755 "$1/usr/sbin/policy-rc.d" "$1/usr/bin/systemctl"
}

# build_deb DIR: svd's .deb of the build tree, built by CPack into DIR; its path in $deb.
build_deb() {
        if ! (cd "$SVD_BUILD_DIR" && cpack -G DEB -B "$1") >"$1.log" 2>&1; then
                diag "$(tail -n 20 "$1.log")"
                bail_out "cpack failed"
        fi
        deb=$(ls "$1"/svd_"$SVD_VERSION"_*.deb 2>/dev/null)
        [ -f "$deb" ] || bail_out "cpack wrote no svd_${SVD_VERSION}_*.deb"
}
