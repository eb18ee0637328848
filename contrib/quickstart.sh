#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what is missing, builds, and runs svd in the foreground on the
# example units in units/. Works as root and as an ordinary user.
set -eu
cd "$(dirname "$0")/.."

contrib/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null

# The socket: svd's default for this user, unless that directory cannot be
# made (an ordinary user without $XDG_RUNTIME_DIR): then one in build/.
set --
if [ "$(id -u)" -ne 0 ]; then
        if [ -z "${XDG_RUNTIME_DIR:-}" ] || [ ! -w "${XDG_RUNTIME_DIR}" ]; then
                sock="$PWD/build/svd.sock"
                set -- --socket "$sock"
                hint="SVD_SOCKET=$sock $PWD/build/ctl/svctl list"
        fi
fi
: "${hint:=$PWD/build/ctl/svctl list}"

cat <<MSG

svd is starting in the foreground with the units in $PWD/units.
In another terminal, run:

    $hint

Stop svd with Ctrl-C: it stops every service first.

MSG
exec build/daemon/svd --units "$PWD/units" "$@"
