#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Builds a root filesystem that runs svd as a container's init, for
# `podman run --rootfs DIR` (or `podman import`, `docker import` of a tar of
# it): svd and svctl from a build tree with the shared libraries they load,
# a static busybox for the services' shell and tools, and the example units.
#
#   contrib/container/mkrootfs.sh DIR [BUILD]     (BUILD defaults to ./build;
#                                                  $SVD and $SVCTL name other binaries)
#
# The entrypoint is /usr/sbin/svd-container (below): svd as PID 1 with its
# socket and state in /run/svd (make that a volume to keep the wanted state
# across a restart of the container) and, as /etc/svd/svd.conf says
# (ForwardOutput=yes), the services' output on its own stdout/stderr, so
# that `podman logs` shows it. Extra arguments of
# `podman run` go to svd (--main-service NAME, for example).
set -eu

[ $# -ge 1 ] || { echo "usage: $0 DIR [BUILD]" >&2; exit 2; }
DIR=$1
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${2:-$SRC/build}
SVD=${SVD:-$BUILD/daemon/svd}
SVCTL=${SVCTL:-$BUILD/ctl/svctl}
[ -x "$SVD" ] && [ -x "$SVCTL" ] || { echo "$0: no svd/svctl in $BUILD (cmake --build $BUILD)" >&2; exit 1; }
BUSYBOX=
for b in /bin/busybox /usr/bin/busybox; do
        if [ -x "$b" ] && ! ldd "$b" >/dev/null 2>&1; then # static: ldd fails
                BUSYBOX=$b
                break
        fi
done
[ -n "$BUSYBOX" ] || { echo "$0: needs a static busybox (apt install busybox-static)" >&2; exit 1; }

mkdir -p "$DIR"
for d in bin sbin usr/bin usr/sbin etc/svd/units lib lib64 tmp proc sys dev run/svd var/www; do
        mkdir -p "$DIR/$d"
done
chmod 1777 "$DIR/tmp"

# copy_bin FILE DEST: FILE at DEST, with every shared library it loads at its own path.
copy_bin() {
        cp -L "$1" "$DIR$2"
        ldd "$1" | awk '/=> \// { print $3 } /^[[:space:]]*\/[^ ]*ld-linux/ { print $1 }' | while read -r lib; do
                mkdir -p "$DIR$(dirname "$lib")"
                cp -L "$lib" "$DIR$lib"
        done
}
copy_bin "$SVD" /usr/sbin/svd
copy_bin "$SVCTL" /usr/bin/svctl

cp "$BUSYBOX" "$DIR/bin/busybox"
for applet in $("$BUSYBOX" --list); do
        [ -e "$DIR/bin/$applet" ] || ln -s busybox "$DIR/bin/$applet"
done
[ -e "$DIR/usr/bin/env" ] || ln -s /bin/env "$DIR/usr/bin/env"

printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$DIR/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$DIR/etc/group"

# The example units; the web server is busybox httpd here (no python3).
for u in ticker hello-env flaky; do
        cp "$SRC/units/$u.service" "$DIR/etc/svd/units/"
done
echo "served by busybox httpd under svd" >"$DIR/var/www/index.html"
cat >"$DIR/etc/svd/units/webserver.service" <<'EOF'
[Unit]
Description=Web server (busybox httpd on 127.0.0.1:8080)

[Service]
ExecStart=/bin/httpd -f -p 127.0.0.1:8080 -h /var/www
Restart=on-failure
TimeoutStopSec=5

[Install]
WantedBy=default.target
EOF

# What a container wants of svd, in its configuration file rather than in the entrypoint, so that
# an image can change it and `podman run IMAGE --forward-output=time` still overrides it.
sed 's/^#ForwardOutput=no$/ForwardOutput=yes/' "$SRC/contrib/svd.conf" >"$DIR/etc/svd/svd.conf"
grep -qx 'ForwardOutput=yes' "$DIR/etc/svd/svd.conf" || { echo "$0: no ForwardOutput= in contrib/svd.conf" >&2; exit 1; }

cat >"$DIR/usr/sbin/svd-container" <<'EOF'
#!/bin/sh
exec /usr/sbin/svd --units /etc/svd/units --socket /run/svd/svd.sock "$@"
EOF
chmod 755 "$DIR/usr/sbin/svd-container"
echo "$DIR: svd $("$SVD" --version | cut -d' ' -f2) with $(ls "$DIR/etc/svd/units" | wc -l) units"
