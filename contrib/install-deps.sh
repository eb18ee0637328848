#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs the Debian packages svd needs to build. With --lab also the
# kernel lab's (QEMU, busybox, cpio, and Debian's linux-source-6.12 with what
# building it needs); with --test also clang with libFuzzer and valgrind;
# with --bench the supervisors tests/bench/compare.sh measures svd against
# (runit, s6, supervisor) and gnuplot-nox for its chart. Their packages
# would start system-wide instances (runsvdir, supervisord) from their
# maintainer scripts: while they are installed, a temporary policy-rc.d
# (unless one is already there) tells invoke-rc.d and deb-systemd-invoke not
# to start anything. Does nothing when they are all present.
set -eu

pkgs="build-essential cmake pkg-config libsystemd-dev libinih-dev libcap-ng-dev check libjansson-dev"
for arg in "$@"; do
        case $arg in
        --lab) pkgs="$pkgs qemu-system-x86 busybox-static cpio linux-source-6.12 flex bison bc libelf-dev libssl-dev patch xz-utils libcap-dev" ;;
        --test) pkgs="$pkgs clang libclang-rt-dev valgrind" ;;
        --bench) pkgs="$pkgs runit s6 supervisor gnuplot-nox" ;;
        *) echo "install-deps: unknown option '$arg' (--lab, --test, --bench)" >&2; exit 2 ;;
        esac
done

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
# shellcheck disable=SC2086
if ! $sudo apt-get install -y --no-install-recommends $missing; then
        $sudo apt-get update
        $sudo apt-get install -y --no-install-recommends $missing
fi
