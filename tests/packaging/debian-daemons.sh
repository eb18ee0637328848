#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Real Debian daemons under svd, from the units their packages ship, unchanged:
# openssh-server, cron, nginx, redis-server and php8.2-fpm (and uuid-runtime, whose uuidd is
# started by its uuidd.socket: a client's connection starts it) are installed with apt into a
# fresh `debootstrap --variant=minbase bookworm` root together with svd's own
# .deb (policy-rc.d forbids the packages to start anything), their units are
# copied from /lib/systemd/system into /etc/svd/units as they are, and svd runs
# in that root as on a machine: a mount namespace whose root is the fresh tree
# (pivot_root), and a network namespace of its own, so that the daemons'
# ports are not the host's. Then, for each daemon, as under systemd:
#   start      svctl start, the unit's state
#   serve      ssh logs in with a key; nginx answers HTTP; redis keeps a
#              value; cron runs a job from /etc/cron.d
#   reload     sshd re-executes (new listening sockets), nginx starts new
#              workers (its ExecReload= reads the PID file); a unit without
#              ExecReload= refuses the reload and keeps running
#   stop       svctl stop, no process of the daemon left
# Then the package's sshd -i under an inetd-style pair, sshd.socket (ListenStream=22,
# Accept=yes) and sshd@.service (StandardInput=socket): ssh logs in through an
# instance of sshd@.service per connection, which is gone once it has ended.
# php-fpm is a master (Type=notify) with a pool of workers that outlive
# their master: it must run with host PIDs (its PID file holds the main
# PID svctl shows). At the end kill -9 of svd with all five running: none
# of their processes survives it; then svd-crashtest, the package's own,
# deals seeded kill -9 rounds to an svd that runs php-fpm alone, and counts
# every process of its tree after each (goal: none left, the pool back).
#
# Needs root, debootstrap, cpack and the Debian archive; SKIP otherwise, and
# for a sanitizer build (its binaries are not what a package ships). TAP.
# Environment (set by ctest): SVD_BUILD_DIR, SVD_SOURCE_DIR, SVD_VERSION.
set -u
: "${SVD_BUILD_DIR:?}" "${SVD_SOURCE_DIR:?}" "${SVD_VERSION:?}"
# shellcheck source=../lib/lib.sh
. "$SVD_SOURCE_DIR/tests/lib/lib.sh"
# shellcheck source=fresh-root.sh
. "$SVD_SOURCE_DIR/tests/packaging/fresh-root.sh"

fresh_root_require "namespaces"

DAEMONS="cron ssh nginx redis-server php8.2-fpm"
cache=${SVD_PKG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/svd-pkg}
mkdir -p "$cache" || bail_out "cannot create $cache"
W=$(mktemp -d "$cache/daemons.XXXXXX") || bail_out "mktemp in $cache"
R=$W/root
svd_pid=
NETNS=

# Processes in the test's network namespace: svd and everything it started.
ns_procs() {
        [ -n "$NETNS" ] || return 0
        # shellcheck disable=SC2012 # the link targets are what is wanted, and ls -l prints them
        ls -l /proc/[0-9]*/ns/net 2>/dev/null | awk -v ns="$NETNS" '$NF == ns { split($(NF - 2), a, "/"); print a[3] }'
}
cleanup() {
        # shellcheck disable=SC2046 # one pid a word
        fresh_root_cleanup $(ns_procs)
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the root: svd's package and the daemons' ----
build_deb "$W/deb"
fresh_root "$R"
forbid_starts "$R"
cp "$deb" "$R/tmp/"
if in_root apt-get -q update >"$W/apt.log" 2>&1 &&
        in_root apt-get -q install -y --no-install-recommends "/tmp/$(basename "$deb")" \
                openssh-server cron nginx redis-server php8.2-fpm iproute2 curl >>"$W/apt.log" 2>&1; then
        ok "apt install svd openssh-server cron nginx redis-server php8.2-fpm in a fresh bookworm root"
else
        diag "$(tail -n 30 "$W/apt.log")"
        bail_out "apt-get in the root failed (network to the Debian archive?)"
fi
# uuid-runtime: uuidd.socket and uuidd.service, socket activation with Accept=no.
if in_root apt-get -q install -y --no-install-recommends uuid-runtime >>"$W/apt.log" 2>&1; then
        ok "apt install uuid-runtime"
else
        diag "$(tail -n 30 "$W/apt.log")"
        not_ok "apt install uuid-runtime"
fi
expect_eq "the packages' maintainer scripts started nothing" "" "$(root_procs)"
unmount_all || bail_out "cannot unmount the root's /proc, /sys and /dev"
for pkg in openssh-server cron nginx redis-server php8.2-fpm; do
        diag "$pkg $(in_root dpkg-query -W -f '${Version}' "$pkg")"
done

for d in $DAEMONS; do
        if cp "$R/lib/systemd/system/$d.service" "$R/etc/svd/units/$d.service"; then
                ok "$d.service as the package ships it, into /etc/svd/units"
        else
                not_ok "$d.service as the package ships it, into /etc/svd/units"
        fi
done
for u in uuidd.socket uuidd.service; do
        if cp "$R/lib/systemd/system/$u" "$R/etc/svd/units/$u"; then
                ok "$u as the package ships it, into /etc/svd/units"
        else
                not_ok "$u as the package ships it, into /etc/svd/units"
        fi
done
# A job for cron, and a key that root may log in with over ssh.
echo '* * * * * root date +\%s >>/var/tmp/cron-ran' >"$R/etc/cron.d/svd-acceptance"
in_root sh -c 'mkdir -p -m 700 /root/.ssh && ssh-keygen -q -t ed25519 -N "" -f /root/.ssh/id_ed25519 &&
        cp /root/.ssh/id_ed25519.pub /root/.ssh/authorized_keys' || bail_out "ssh-keygen in the root failed"

# ---- svd, as on a machine: the root is "/" of a mount namespace, with its own network ----
# as_machine COMMAND ARG...: COMMAND in the root as on a machine: "/" of a
# mount namespace of its own, with a network of its own, an empty
# environment but PATH and LC_ALL. It execs: run it in a subshell (or in
# the background, where $! is then the command's pid).
as_machine() {
        exec unshare --mount --net --propagation=private sh -c '
                set -e
                r=$1
                shift
                mount --bind "$r" "$r"
                mount -t proc proc "$r/proc"
                mount --rbind /sys "$r/sys"
                mount --rbind /dev "$r/dev"
                cd "$r"
                mkdir -p .oldroot
                pivot_root . .oldroot
                umount -l /.oldroot
                rmdir /.oldroot
                ip link set lo up
                exec /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 "$@"' sh "$R" "$@"
}
as_machine /usr/sbin/svd >"$W/svd.log" 2>&1 &
svd_pid=$!
in_ns() { nsenter -t "$svd_pid" -m -n -r -w /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
        LC_ALL=C.UTF-8 "$@"; }
svd_up() { in_ns svctl list >/dev/null 2>&1; }
if wait_until 30 svd_up; then
        ok "svd runs in the root"
else
        diag "$(cat "$W/svd.log")"
        bail_out "svd did not come up in the root"
fi
NETNS=$(readlink "/proc/$svd_pid/ns/net")
expect_ne "... in a network namespace of its own" "$(readlink /proc/$$/ns/net)" "$NETNS"

# state NAME: the unit's state as svctl reports it.
state() {
        in_ns svctl --json status "$1" 2>/dev/null | json_field state
}
main_pid() {
        in_ns svctl --json status "$1" 2>/dev/null | json_field pid
}
state_of() {
        [ "$(state "$1")" = "$2" ]
}
# children PID: the pids of PID's children, sorted.
children() {
        tr ' ' '\n' <"/proc/$1/task/$1/children" 2>/dev/null | grep . | sort
}
# sockets PID: the socket inodes PID holds, sorted.
sockets() {
        ls -l "/proc/$1/fd" 2>/dev/null | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p' | sort
}
changed_from() {
        _now=$("$1" "$2")
        [ -n "$_now" ] && [ "$_now" != "$3" ]
}
# cgroup_of PID: PID's cgroup directory (svd's cgroup of the unit, for a main process).
cgroup_of() {
        _cg=$(sed -n 's/^0:://p' "/proc/$1/cgroup" 2>/dev/null)
        [ -n "$_cg" ] && echo "/sys/fs/cgroup$_cg"
}
start_daemon() {
        out=$(in_ns svctl start "$1" 2>&1)
        rc=$?
        expect_eq "svctl start $1" 0 "$rc"
        [ "$rc" = 0 ] || diag "$out"
        check "$1 is running" wait_until 30 state_of "$1" running
        in_ns svctl status "$1" 2>&1 | grep -e 'Not applied' -e 'Active' | sed "s/^/$1: /" | while read -r l; do diag "$l"; done
}
stop_daemon() {
        _pid=$(main_pid "$1")
        _dir=$(cgroup_of "$_pid")
        out=$(in_ns svctl stop "$1" 2>&1)
        rc=$?
        expect_eq "svctl stop $1" 0 "$rc"
        [ "$rc" = 0 ] || diag "$out"
        check "$1 is inactive" wait_until 30 state_of "$1" inactive
        check "$1's main process is gone" wait_until 10 pid_dead "$_pid"
        expect_eq "nothing of $1 is left in its cgroup" "" "$(cat "$_dir/cgroup.procs" 2>/dev/null)"
}

# ---- start ----
for d in $DAEMONS; do
        start_daemon "$d"
done

# ---- ssh ----
ssh_login() {
        in_ns ssh -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR \
                -o ConnectTimeout=10 -i /root/.ssh/id_ed25519 root@127.0.0.1 'echo "served as $(id -un)"' 2>&1
}
expect_eq "ssh: root logs in with a key and runs a command" "served as root" "$(ssh_login)"
P=$(main_pid ssh)
S=$(sockets "$P")
out=$(in_ns svctl reload ssh 2>&1)
expect_eq "svctl reload ssh (ExecReload=: sshd -t, kill -HUP \$MAINPID)" 0 "$?"
[ -n "$out" ] && diag "$out"
check "sshd re-executed on SIGHUP: its listening sockets are new" wait_until 10 changed_from sockets "$P" "$S"
expect_eq "ssh: the same main process after the reload" "$P" "$(main_pid ssh)"
ssh_serves() {
        [ "$(ssh_login)" = "served as root" ]
}
check "ssh: a login after the reload" wait_until 10 ssh_serves

# ---- nginx ----
http() {
        in_ns curl -sS -m 10 -o /dev/null -w '%{http_code}' http://127.0.0.1/ 2>&1
}
expect_eq "nginx: GET / answers 200" 200 "$(http)"
expect_contains "nginx: its welcome page" "$(in_ns curl -sS -m 10 http://127.0.0.1/ 2>&1)" "Welcome to nginx"
P=$(main_pid nginx)
expect_ne "nginx: the main process is the master (the PID file's), not svd's init" "" "$(children "$P")"
K=$(children "$P")
out=$(in_ns svctl reload nginx 2>&1)
expect_eq "svctl reload nginx (ExecReload=: nginx -s reload, which reads the PID file)" 0 "$?"
[ -n "$out" ] && diag "$out"
check "nginx: the master started new workers" wait_until 10 changed_from children "$P" "$K"
expect_eq "nginx: GET / after the reload" 200 "$(http)"

# ---- redis ----
expect_eq "redis: PING" PONG "$(in_ns redis-cli ping 2>&1)"
expect_eq "redis: SET" OK "$(in_ns redis-cli set svd-acceptance kept 2>&1)"
expect_eq "redis: GET" kept "$(in_ns redis-cli get svd-acceptance 2>&1)"
out=$(in_ns svctl reload redis-server 2>&1)
expect_ne "svctl reload redis-server fails: the unit has no ExecReload=" 0 "$?"
diag "$out"
expect_eq "redis: still running after the refused reload" running "$(state redis-server)"

# ---- cron ----
check "cron: the job of /etc/cron.d ran (within its minute)" wait_until 75 test -s "$R/var/tmp/cron-ran"
run_check_reload_refused() {
        ! in_ns svctl reload cron >/dev/null 2>&1
}
check "svctl reload cron fails: the unit has no ExecReload=" run_check_reload_refused

# ---- php-fpm ----
# pool_workers PID: how many of PID's children are php-fpm's pool workers.
pool_workers() {
        _n=0
        for _c in $(children "$1"); do
                case $(tr '\0' ' ' <"/proc/$_c/cmdline" 2>/dev/null) in "php-fpm: pool "*) _n=$((_n + 1)) ;; esac
        done
        echo "$_n"
}
pool_up() {
        [ "$(pool_workers "$1")" -ge 2 ]
}
P=$(main_pid php8.2-fpm)
check "php-fpm: the master has its pool of workers (pm.start_servers = 2)" wait_until 10 pool_up "$P"
expect_eq "php-fpm: its PID file holds the host PID that svctl shows" "$P" "$(cat "$R/run/php/php8.2-fpm.pid" 2>/dev/null)"
expect_eq "php-fpm: ... which is the master, php-fpm: master process" "php-fpm: master process" \
        "$(tr '\0' ' ' <"/proc/$P/cmdline" 2>/dev/null | cut -c1-23)"
check "php-fpm: its FastCGI socket is there" test -S "$R/run/php/php8.2-fpm.sock"

# ---- uuidd, started by its socket ----
check "uuidd.socket listens from svd's start (WantedBy=sockets.target)" wait_until 10 state_of uuidd.socket listening
expect_eq "uuidd.service has not started yet" inactive "$(state uuidd)"
out=$(in_ns uuidd -d -t 2>&1)
rc=$?
diag "$(echo "$out" | tr '\n' ' ')"
expect_eq "uuidd -t: a client asks uuidd for a time-based UUID" 0 "$rc"
check "... and gets one (version 1)" sh -c 'echo "$1" | grep -Eq "[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}"' sh "$out"
expect_eq "... from uuidd.service, which the connection started" running "$(state uuidd)"
expect_eq "... its first trigger" 1 "$(in_ns svctl --json status uuidd.socket 2>/dev/null | json_field triggers)"
in_ns svctl logs uuidd 2>&1 | tail -n 5 | sed 's/^/uuidd: /' | while read -r l; do diag "$l"; done
out=$(in_ns svctl stop uuidd 2>&1)
expect_eq "svctl stop uuidd" 0 "$?"
check "uuidd.socket listens again once uuidd has stopped" wait_until 10 state_of uuidd.socket listening
check "... and the next client starts uuidd again" sh -c 'out=$("$@" 2>&1) && echo "$out" | grep -Eq "[0-9a-f]{8}-[0-9a-f]{4}-1"' \
        sh nsenter -t "$svd_pid" -m -n -r -w /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin uuidd -t
in_ns svctl stop uuidd >/dev/null 2>&1

# ---- stop ----
for d in $DAEMONS; do
        stop_daemon "$d"
done
check "nginx's ExecStop= (start-stop-daemon --pidfile) removed the PID file" test ! -e "$R/run/nginx.pid"

# ---- sshd -i for each connection (Accept=yes, StandardInput=socket) ----
# bookworm's ssh.socket is Accept=no (it activates ssh.service) and the package has no ssh@.service;
# the package's sshd -i runs here under the classic inetd-style pair instead. Added now, with port 22
# free: wanted by sockets.target, the socket unit would have taken the port from ssh.service.
diag "the package's ssh.socket: $(grep -e '^Listen' -e '^Accept' "$R/lib/systemd/system/ssh.socket" 2>/dev/null | tr '\n' ' ')"
cat >"$R/etc/svd/units/sshd.socket" <<'EOF'
[Unit]
Description=OpenBSD Secure Shell server socket, a server per connection
Before=sockets.target

[Socket]
ListenStream=22
Accept=yes

[Install]
WantedBy=sockets.target
EOF
cat >"$R/etc/svd/units/sshd@.service" <<'EOF'
[Unit]
Description=OpenBSD Secure Shell server per-connection daemon
After=auditd.service

[Service]
EnvironmentFile=-/etc/default/ssh
ExecStart=-/usr/sbin/sshd -i $SSHD_OPTS
StandardInput=socket
RuntimeDirectory=sshd
RuntimeDirectoryMode=0755
EOF
out=$(in_ns svctl daemon-reload 2>&1)
expect_eq "svctl daemon-reload loads sshd.socket (Accept=yes) and sshd@.service (sshd -i)" 0 "$?"
[ -n "$out" ] && diag "$out"
out=$(in_ns svctl start sshd.socket 2>&1)
expect_eq "svctl start sshd.socket" 0 "$?"
[ -n "$out" ] && diag "$out"
check "sshd.socket listens" wait_until 10 state_of sshd.socket listening
expect_eq "ssh through sshd.socket: root logs in, served by an sshd -i started for the connection" "served as root" \
        "$(ssh_login)"
expect_eq "... one connection accepted" 1 "$(in_ns svctl --json status sshd.socket 2>/dev/null | json_field accepted)"
sshd_instances() {
        in_ns svctl list 2>/dev/null | awk 'index($1, "sshd@") == 1 && length($1) > 5 { print $1 }'
}
no_sshd_instance() {
        [ -z "$(sshd_instances)" ]
}
check "... its instance is gone once the login has ended" wait_until 10 no_sshd_instance
check "... svd named it as systemd does (sshd@0-LOCAL:22-REMOTE:PORT)" \
        grep -q "sshd@0-127.0.0.1:22-127.0.0.1:[0-9]*" "$W/svd.log"
expect_eq "ssh through sshd.socket: a second login" "served as root" "$(ssh_login)"
out=$(in_ns svctl stop sshd.socket 2>&1)
expect_eq "svctl stop sshd.socket (port 22 free for ssh.service again)" 0 "$?"
rm -f "$R/etc/svd/units/sshd.socket" "$R/etc/svd/units/sshd@.service"

# ---- kill -9 of svd with all five running ----
for d in $DAEMONS; do
        start_daemon "$d"
done
ALL=$(ns_procs)
diag "$(echo "$ALL" | wc -l) processes in the namespace before kill -9 of svd"
kill -KILL "$svd_pid"
wait "$svd_pid"
svd_pid=
none_left() {
        [ -z "$(ns_procs)" ]
}
check "kill -9 of svd: no process of the five daemons survives it" wait_until 10 none_left
[ -z "$(ns_procs)" ] || diag "left: $(for p in $(ns_procs); do printf '%s ' "$p:$(cat "/proc/$p/comm")"; done)"

# ---- svd-crashtest on php-fpm's pool ----
# A private svd with php-fpm's unit alone, in the same kind of namespace;
# the runner holds a pidfd of the master and every worker before each kill.
mkdir -p "$R/var/tmp/ct-units" && cp "$R/lib/systemd/system/php8.2-fpm.service" "$R/var/tmp/ct-units/"
(as_machine /usr/bin/svd-crashtest --units /var/tmp/ct-units --services php8.2-fpm --dir /var/tmp/ct-run \
        --seed 8282 --rounds 5 --fault svd-kill --at random:100-1000 --death-timeout 2000) >"$W/ct.out" 2>"$W/ct.err"
RC=$?
sed 's/^/#   /' "$W/ct.out"
[ "$RC" = 0 ] || diag "$(tail -n 20 "$W/ct.err")"
expect_eq "svd-crashtest, 5 kill -9 rounds with php-fpm: every one passes" 0 "$RC"
expect_eq "... with 0 survivors in each" 5 "$(grep -c '^round [0-9]* ok .* survivors=0 zombies=0 ' "$W/ct.out")"
least=$(sed -n 's/^round .* tracked=\([0-9]*\) .*/\1/p' "$W/ct.out" | sort -n | head -n 1)
check "... each tracked the master and its workers (at least 3 processes)" test "${least:-0}" -ge 3

done_testing
