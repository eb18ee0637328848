#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs the Debian packages svd needs to build. With --lab also the
# kernel lab's (QEMU, busybox, cpio, and Debian's linux-source-6.12 with what
# building it needs); with --test also clang with libFuzzer and valgrind.
# Does nothing when they are all present.
set -eu

pkgs="build-essential cmake pkg-config libsystemd-dev libinih-dev libcap-ng-dev check libjansson-dev"
for arg in "$@"; do
        case $arg in
        --lab) pkgs="$pkgs qemu-system-x86 busybox-static cpio linux-source-6.12 flex bison bc libelf-dev libssl-dev patch xz-utils" ;;
        --test) pkgs="$pkgs clang libclang-rt-dev valgrind" ;;
        *) echo "install-deps: unknown option '$arg' (--lab, --test)" >&2; exit 2 ;;
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
# shellcheck disable=SC2086
if ! $sudo apt-get install -y --no-install-recommends $missing; then
        $sudo apt-get update
        $sudo apt-get install -y --no-install-recommends $missing
fi
