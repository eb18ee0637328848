#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs the Debian packages svd needs to build and run its example units.
# With --lab also the kernel lab's (QEMU, busybox, cpio, and Debian's
# linux-source-6.12 with everything building it needs); with --test also
# clang with libFuzzer, valgrind, and shfmt and jq (tests/deps/check-deps.sh
# parses the scripts with them), podman with runc and a static busybox (svd
# as a container's init, tests/integration/container-podman.sh); with --bench the supervisors
# tests/bench/compare.sh measures svd against (runit, s6, supervisor),
# gnuplot-nox for its chart and git. tests/deps/commands.txt lists every
# program the tree runs and its package; tests/deps/check-deps.sh keeps that
# table and these lists in step.
#
# --print prints the packages of the given groups, one a line, and installs
# nothing.
#
# The bench packages would start system-wide instances (runsvdir,
# supervisord) from their maintainer scripts: while they are installed, a
# temporary policy-rc.d (unless one is already there) tells invoke-rc.d and
# deb-systemd-invoke not to start anything. A package manager that is busy
# (unattended upgrades at boot) is waited for, up to SVD_DPKG_LOCK_TIMEOUT
# seconds (default 1800), instead of failing. Does nothing when every
# package is present.
set -eu

pkgs="build-essential cmake pkg-config libsystemd-dev libcap-ng-dev libinih-dev check libjansson-dev libseccomp-dev libfuse3-dev python3 scdoc"
print=0
for arg in "$@"; do
        case $arg in
        --lab) pkgs="$pkgs qemu-system-x86 busybox-static cpio linux-source-6.12 flex bison bc libelf-dev libssl-dev patch xz-utils rsync libcap-dev" ;;
        --test) pkgs="$pkgs clang libclang-rt-dev valgrind shfmt jq debootstrap lintian redis-server redis-tools podman runc busybox-static dbus-daemon fuse3 postgresql-15 postgresql-client-common" ;;
        --bench) pkgs="$pkgs runit s6 supervisor gnuplot-nox git" ;;
        --print) print=1 ;;
        *) echo "install-deps: unknown option '$arg' (--lab, --test, --bench, --print)" >&2; exit 2 ;;
        esac
done
if [ "$print" = 1 ]; then
        printf '%s\n' $pkgs
        exit 0
fi

missing=""
for p in $pkgs; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
                missing="$missing $p"
        fi
done
[ -z "$missing" ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || { echo "install-deps: need root or sudo to install:$missing" >&2; exit 1; }
        sudo="sudo"
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
        # exit 101: "action forbidden by policy" (invoke-rc.d(8)); removed again on exit.
        $sudo sh -c "printf '#!/bin/sh\\n# install-deps.sh: start no service while installing\\nexit 101\\n' >$policy && chmod 755 $policy"
        trap '$sudo rm -f "$policy"' EXIT
        trap 'exit 130' INT TERM
fi

# apt-get install waits for the dpkg frontend lock up to DPkg::Lock::Timeout
# seconds while another apt or unattended-upgrades holds it; apt-get update
# fails at once on a held lists lock, so it is tried again every 5 s until
# the same deadline.
lock_timeout=${SVD_DPKG_LOCK_TIMEOUT:-1800}
apt_install() {
        # shellcheck disable=SC2086
        $sudo apt-get -o DPkg::Lock::Timeout="$lock_timeout" install -y --no-install-recommends $missing
}
apt_update() {
        waited=0
        while :; do
                if out=$($sudo apt-get -o DPkg::Lock::Timeout="$lock_timeout" update 2>&1); then
                        return 0
                fi
                case $out in
                *"Could not get lock"*)
                        if [ "$waited" -ge "$lock_timeout" ]; then
                                printf '%s\n' "$out" >&2
                                return 1
                        fi
                        [ "$waited" = 0 ] && echo "install-deps: apt's package lists are locked by another process; waiting"
                        sleep 5
                        waited=$((waited + 5))
                        ;;
                *)
                        printf '%s\n' "$out" >&2
                        return 1
                        ;;
                esac
        done
}

# A machine whose package lists are missing or older than its archive's
# packages fails the install: update once, then try again.
if ! apt_install; then
        apt_update
        apt_install
fi
