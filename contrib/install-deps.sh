#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs the Debian packages svd needs to build and test (and, with --lab,
# the kernel lab's QEMU tools). Does nothing when they are all present.
set -eu

pkgs="build-essential cmake pkg-config libsystemd-dev libinih-dev libcap-ng-dev check libjansson-dev"
if [ "${1:-}" = "--lab" ]; then
        pkgs="$pkgs qemu-system-x86 busybox-static cpio"
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
# shellcheck disable=SC2086
if ! $sudo apt-get install -y --no-install-recommends $missing; then
        $sudo apt-get update
        $sudo apt-get install -y --no-install-recommends $missing
fi
