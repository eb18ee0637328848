#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The .deb on a fresh Debian 12: builds it from the build tree with CPack,
# runs lintian on it (no errors allowed), installs it with apt into a
# `debootstrap --variant=minbase bookworm` root, runs svd from the installed
# path with a unit in /etc/svd/units and the default /etc/svd/svd.conf (a
# conffile), checks `svctl status`, the versions and `man -w`, then purges
# the package and compares the root's files with those before the install.
#
# The maintainer scripts run as on a machine with systemd (the root has
# /run/systemd/system) whose policy-rc.d forbids starting services (exit
# 101), as in an image build: the unit must be enabled and svd not started.
# minbase has no systemctl; a stand-in (/usr/bin/systemctl, where dpkg's
# maintainer scripts find it) records what is asked of it.
#
# The freshly bootstrapped root is cached in ~/.cache/svd-pkg (or
# $SVD_PKG_CACHE, fresh-root.sh); apt inside the root still fetches the
# package's dependencies and man-db. Each run unpacks it anew under the
# cache directory.
#
# Needs root, debootstrap and the Debian archive; SKIP otherwise, and for a
# sanitizer build (its binaries are not what a package ships). TAP output.
# Environment (set by ctest): SVD_BUILD_DIR, SVD_SOURCE_DIR, SVD_VERSION.
set -u
: "${SVD_BUILD_DIR:?}" "${SVD_SOURCE_DIR:?}" "${SVD_VERSION:?}"
# shellcheck source=../lib/lib.sh
. "$SVD_SOURCE_DIR/tests/lib/lib.sh"
# shellcheck source=fresh-root.sh
. "$SVD_SOURCE_DIR/tests/packaging/fresh-root.sh"

fresh_root_require "chroot"

cache=${SVD_PKG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/svd-pkg}
mkdir -p "$cache" || bail_out "cannot create $cache"
W=$(mktemp -d "$cache/run.XXXXXX") || bail_out "mktemp in $cache"
R=$W/root
svd_pid=

trap fresh_root_cleanup EXIT
trap 'exit 130' INT TERM

# ---- the package ----
build_deb "$W/deb"
ok "cpack built $(basename "$deb")"

if command -v lintian >/dev/null 2>&1; then
        lintian --fail-on error --display-info --pedantic "$deb" >"$W/lintian.log" 2>&1
        rc=$?
        grep -v 'running with root privileges' "$W/lintian.log" | sed 's/^/# lintian: /'
        if [ "$rc" = 0 ] && ! grep -q '^E:' "$W/lintian.log"; then
                ok "lintian finds no error"
        else
                not_ok "lintian finds no error (exit $rc)"
        fi
else
        skip "lintian finds no error" "lintian is not installed (contrib/install-deps.sh --test)"
fi

# ---- a fresh bookworm root ----
fresh_root "$R"

if ! in_root apt-get -q update >"$W/apt.log" 2>&1 ||
        ! in_root apt-get -q install -y --no-install-recommends man-db >>"$W/apt.log" 2>&1; then
        diag "$(tail -n 20 "$W/apt.log")"
        bail_out "apt-get in the root failed (network to the Debian archive?)"
fi

forbid_starts "$R"

# Every file of the root that a package may leave or change: what apt and
# dpkg keep about packages, logs and caches are left out.
snapshot() {
        (cd "$R" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./tmp \
                -o -path ./var/lib/dpkg -o -path ./var/lib/apt -o -path ./var/cache -o -path ./var/log \) -prune \
                -o -print) | sort
}
snapshot >"$W/before"

# ---- install ----
cp "$deb" "$R/tmp/"
if in_root apt-get -q install -y --no-install-recommends "/tmp/$(basename "$deb")" >"$W/install.log" 2>&1; then
        ok "apt install ./$(basename "$deb") in a fresh bookworm root"
else
        diag "$(tail -n 30 "$W/install.log")"
        bail_out "apt install ./$(basename "$deb") failed"
fi

expect_eq "dpkg knows version $SVD_VERSION" "$SVD_VERSION" "$(in_root dpkg-query -W -f '${Version}' svd)"
expect_eq "svd --version is the package's" "svd $SVD_VERSION" "$(in_root svd --version)"
expect_eq "svctl --version is the package's" "svctl $SVD_VERSION" "$(in_root svctl --version)"
for f in /usr/sbin/svd /usr/bin/svctl /lib/systemd/system/svd.service /usr/share/varlink/io.svd.Manager.varlink \
        /usr/share/bash-completion/completions/svctl; do
        check "installed: $f" test -f "$R$f"
done
check "/etc/svd/units exists and is empty" sh -c '[ -d "$1" ] && [ -z "$(ls -A "$1")" ]' sh "$R/etc/svd/units"
check "installed: /etc/svd/svd.conf, the default configuration" cmp -s "$SVD_SOURCE_DIR/contrib/svd.conf" \
        "$R/etc/svd/svd.conf"
expect_contains "... a conffile" "$(in_root dpkg-query -W -f '${Conffiles}' svd)" "/etc/svd/svd.conf"
expect_contains "svd.service runs /usr/sbin/svd" "$(cat "$R/lib/systemd/system/svd.service")" \
        "ExecStart=/usr/sbin/svd"
for page in svctl svd svd.unit; do
        expect_contains "man -w $page" "$(in_root man -w "$page" 2>&1)" /usr/share/man/man
done
# deb-systemd-helper enables a unit through `systemctl preset` where
# systemctl exists (here the stand-in, which makes no link).
expect_contains "svd.service enabled (systemctl preset)" "$(cat "$R/var/log/systemctl.log" 2>&1)" \
        "preset svd.service"
expect_contains "postinst asked policy-rc.d to start svd.service" "$(cat "$R/var/log/policy-rc.d.log" 2>&1)" \
        "svd.service start"
check "postinst did not ask systemctl to start anything" sh -c '! grep -q start "$1"' sh "$R/var/log/systemctl.log"
expect_contains "postinst asked systemctl to daemon-reload" "$(cat "$R/var/log/systemctl.log" 2>&1)" \
        "--system daemon-reload"

# None may run after the install.
expect_eq "the install started no process in the root" "" "$(root_procs)"

# ---- run svd from the installed path ----
cat >"$R/etc/svd/units/hello.service" <<'UNIT'
[Unit]
Description=Hello from the package test

[Service]
ExecStart=/bin/sleep infinity

[Install]
WantedBy=default.target
UNIT
# Not through in_root: $! must be svd itself (chroot and env exec it).
chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin /usr/sbin/svd >"$W/svd.log" 2>&1 &
svd_pid=$!
svctl_status() { in_root svctl status hello >"$W/status" 2>&1; }
if wait_until 30 svctl_status; then
        ok "svctl status hello: exit 0"
else
        diag "$(cat "$W/status" "$W/svd.log")"
        not_ok "svctl status hello: exit 0"
fi
expect_contains "hello runs" "$(cat "$W/status")" "Active: running"
expect_not_contains "svd read /etc/svd/svd.conf without a word" "$(cat "$W/svd.log")" "svd.conf"
expect_contains "svctl list shows it" "$(in_root svctl list 2>&1)" "hello"

# ---- upgrade: the same tree as a newer version ----
# The postinst re-executes the running svd instead of restarting it: svd
# keeps its pid, runs the new file, and hello keeps its process.
up_version=$SVD_VERSION+upgrade
if (cd "$SVD_BUILD_DIR" && cpack -G DEB -B "$W/deb-up" -D CPACK_DEBIAN_PACKAGE_VERSION="$up_version") \
        >"$W/cpack-up.log" 2>&1 && up_deb=$(ls "$W/deb-up/svd_${up_version}_"*.deb) && cp "$up_deb" "$R/tmp/"; then
        procs_before=$(root_procs)
        hello_pid=$(sed -n 's/^ *Main PID: *//p' "$W/status")
        if in_root apt-get -q install -y --no-install-recommends "/tmp/$(basename "$up_deb")" >"$W/upgrade.log" 2>&1; then
                ok "apt install of version $up_version over the running svd"
        else
                diag "$(tail -n 30 "$W/upgrade.log")"
                not_ok "apt install of version $up_version over the running svd"
        fi
        expect_eq "dpkg knows version $up_version" "$up_version" "$(in_root dpkg-query -W -f '${Version}' svd)"
        expect_eq "svd and hello run on as the same processes" "$procs_before" "$(root_procs)"
        expect_eq "svd runs the new /usr/sbin/svd" "$R/usr/sbin/svd" "$(readlink "/proc/$svd_pid/exe")"
        svctl_status
        expect_contains "hello still runs with main pid $hello_pid" "$(cat "$W/status")" "Main PID: $hello_pid"
        expect_contains "the upgrade re-executed svd" "$(cat "$W/svd.log")" "Re-executed from state version"
else
        diag "$(tail -n 20 "$W/cpack-up.log")"
        not_ok "cpack built svd_${up_version}_*.deb"
fi
kill -TERM "$svd_pid"
svd_gone() { ! kill -0 "$svd_pid" 2>/dev/null; }
if wait_until 30 svd_gone; then
        wait "$svd_pid"
        expect_eq "svd exits 0 on SIGTERM" 0 "$?"
else
        not_ok "svd exits on SIGTERM"
fi
svd_pid=
expect_eq "nothing of svd's runs in the root" "" "$(root_procs)"

# ---- purge ----
if in_root apt-get -q purge -y --autoremove svd >"$W/purge.log" 2>&1; then
        ok "apt purge svd"
else
        diag "$(tail -n 30 "$W/purge.log")"
        not_ok "apt purge svd"
fi
snapshot >"$W/after"
# What the admin put there stays: dpkg keeps a directory that is not empty.
printf '%s\n' ./etc/svd ./etc/svd/units ./etc/svd/units/hello.service >"$W/allowed"
comm -13 "$W/before" "$W/after" >"$W/added"
comm -23 "$W/before" "$W/after" >"$W/removed"
expect_eq "purge leaves only the admin's unit file" "$(cat "$W/allowed")" "$(cat "$W/added")"
expect_eq "purge removed nothing that was there before" "" "$(cat "$W/removed")"

done_testing
