#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Type=forking end to end, with a daemon that starts as nginx does (the
# forking-service helper: the command forks, the child forks the daemon and
# exits, the daemon forks workers): PIDFile= written before the command exits
# and after it (the nginx race), no PIDFile= (the main process guessed: the one
# process left), a failing command, the daemon dying by itself, a reload
# signal reaching the daemon, a re-exec of svd in between, the commands around
# the main one reading the PID file as nginx's do (in the daemon's namespace,
# with its $MAINPID), PrivatePIDs=no, and
# kill -9 of svd: every process of every forking service is gone after it.
# A service's processes are found by their PID namespace (/proc/PID/ns/pid),
# never by name; waits are bounded polls of svctl and /proc. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

FS=$(find_helper forking-service) || true
[ -n "$FS" ] || skip_all "the forking-service helper is not built"
mkdir "$T/run" || bail_out "mkdir failed"

# nspid PID: the pid of PID in its own namespace (the last field of NSpid:).
nspid() {
        sed -n 's/^NSpid:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null | awk '{ print $NF }'
}

# recorded FILE WORD: FILE has a line starting with WORD.
recorded() {
        grep -q "^$2" "$1" 2>/dev/null
}

# ns_up NAME N: NAME's main process is known and its namespace holds at least N processes.
ns_up() {
        _pid=$(svc_pid "$1")
        [ -n "$_pid" ] && [ "$_pid" != null ] && [ "$(count_lines "$(ns_members "$_pid")")" -ge "$2" ]
}

write_unit pidfile <<EOF2
[Service]
Type=forking
PIDFile=$T/run/pidfile.pid
ExecStart=$FS --pidfile $T/run/pidfile.pid --record $T/pidfile.rec
TimeoutStopSec=10
EOF2
write_unit late <<EOF2
[Service]
Type=forking
PIDFile=$T/run/late.pid
ExecStart=$FS --late --gate $T/late.gate --pidfile $T/run/late.pid --record $T/late.rec --workers 1
TimeoutStartSec=30
EOF2
write_unit guess <<EOF2
[Service]
Type=forking
ExecStart=$FS --record $T/guess.rec --workers 3
EOF2
write_unit fails <<EOF2
[Service]
Type=forking
PIDFile=$T/run/fails.pid
ExecStart=$FS --exit 3
EOF2
write_unit dies <<EOF2
[Service]
Type=forking
PIDFile=$T/run/dies.pid
ExecStart=$FS --pidfile $T/run/dies.pid --record $T/dies.rec
EOF2
write_unit rclocal <<EOF2
[Service]
Type=forking
RemainAfterExit=yes
ExecStart=$SH -c 'exit 0'
EOF2
# nginx's own unit: the reload and stop commands read the PID file, which holds the daemon's pid in
# its namespace; each command records its PID namespace and what it was given.
NS='readlink /proc/self/ns/pid'
write_unit ngx <<EOF2
[Service]
Type=forking
PIDFile=$T/run/ngx.pid
ExecStartPre=$SH -c 'echo "pre \$($NS)" >>$T/ngx.cmds'
ExecStart=$FS --pidfile $T/run/ngx.pid --record $T/ngx.rec --workers 1
ExecStartPost=$SH -c 'echo "post \$($NS) \$MAINPID \$(cat $T/run/ngx.pid)" >>$T/ngx.cmds'
ExecReload=$SH -c 'echo "reload \$($NS) \$MAINPID" >>$T/ngx.cmds; kill -HUP \$(cat $T/run/ngx.pid)'
ExecStop=$SH -c 'echo "stop \$($NS)" >>$T/ngx.cmds; kill -TERM \$(cat $T/run/ngx.pid)'
ExecStopPost=$SH -c 'echo "stoppost \$($NS)" >>$T/ngx.cmds'
TimeoutStopSec=10
EOF2
write_unit nons <<EOF2
[Service]
Type=forking
PrivatePIDs=no
PIDFile=$T/run/nons.pid
ExecStart=$FS --pidfile $T/run/nons.pid --record $T/nons.rec --workers 0
EOF2

start_svd
diag "mode $(svd_mode)"

# ---- PIDFile= written before the command exits ----
run svctl start pidfile
if [ "$RC" -ne 0 ] && echo "$ERR" | grep -q -e "mount-proc" -e "user-namespace" -e "pid1-fork"; then
        skip_all "this environment cannot create PID namespaces ($ERR)"
fi
expect_rc "start of a forking service with PIDFile= succeeds" 0
expect_eq "it is running" running "$(svc_state pidfile)"
P=$(svc_pid pidfile)
M=$(ns_members "$P")
TRACKED="$TRACKED $M"
expect_eq "its main process is the daemon the PID file names (pid in its namespace)" \
        "$(cat "$T/run/pidfile.pid" 2>/dev/null)" "$(nspid "$P")"
check "the daemon is the master that forked the workers" recorded "$T/pidfile.rec" "master $(nspid "$P")"
expect_ne "the daemon is not the namespace's init" 1 "$(nspid "$P")"
check "init, the daemon and its 2 workers share the service's PID namespace" wait_until 10 ns_up pidfile 4
check "the PID file names a process of the namespace, not svd's pid of it" \
        test "$(cat "$T/run/pidfile.pid")" != "$P"

run svctl --signal SIGHUP kill pidfile
expect_rc "a reload signal (svctl kill --signal SIGHUP) is accepted" 0
check "... and reaches the daemon" wait_until 10 recorded "$T/pidfile.rec" hup

run svctl daemon-reexec
expect_rc "svd re-executes with the forking service running" 0
expect_eq "after the re-exec: still running" running "$(svc_state pidfile)"
expect_eq "after the re-exec: the same main process" "$P" "$(svc_pid pidfile)"

run svctl stop pidfile
expect_rc "stop" 0
expect_eq "inactive after the stop" inactive "$(svc_state pidfile)"
check "the daemon got the stop signal" recorded "$T/pidfile.rec" term
check "every process of its namespace is gone" wait_until 10 none_left "$M"
check "the PID file is removed after the stop" test ! -e "$T/run/pidfile.pid"

# ---- PIDFile= written after the command exited ----
mkfifo "$T/late.gate" || bail_out "mkfifo failed"
rm -f "$T/late.rc"
(
        svctl start late >"$T/late.out" 2>&1
        echo $? >"$T/late.rc"
) &
check "late: svd waits for the PID file after the command exited" \
        wait_until 10 grep -q "late: PID file .* does not name a process of the service yet, waiting" "$SVD_LOG"
expect_eq "late: still starting meanwhile" starting "$(svc_state late)"
check "late: the daemon takes the gate line" poke "$T/late.gate"
check "late: once the daemon wrote it, the start completes" wait_until 10 test -s "$T/late.rc"
expect_eq "late: the start succeeded" 0 "$(cat "$T/late.rc")"
P=$(svc_pid late)
M=$(ns_members "$P")
TRACKED="$TRACKED $M"
expect_eq "main process: the one the late PID file names" "$(cat "$T/run/late.pid" 2>/dev/null)" "$(nspid "$P")"
run svctl stop late
expect_rc "stop late" 0
check "late: every process is gone" wait_until 10 none_left "$M"

# ---- no PIDFile=: the only process left ----
run svctl start guess
expect_rc "start without PIDFile=" 0
P=$(svc_pid guess)
M=$(ns_members "$P")
TRACKED="$TRACKED $M"
check "main process guessed: the master (the one process the command left)" \
        recorded "$T/guess.rec" "master $(nspid "$P")"
check "guess: the master's 3 workers run" wait_until 10 ns_up guess 5
run svctl stop guess
expect_rc "stop guess" 0
check "guess: every process is gone" wait_until 10 none_left "$M"

# ---- a failing command ----
run svctl start fails
expect_rc "a command that exits 3 fails the start" 1
expect_contains "the error names the command's exit" "$ERR" "status 3"
expect_eq "failed" failed "$(svc_state fails)"
expect_eq "result exit-code" exit-code "$(svc_field fails result)"

# ---- the daemon dies by itself ----
run svctl start dies
expect_rc "start dies" 0
P=$(svc_pid dies)
M=$(ns_members "$P")
TRACKED="$TRACKED $M"
check "dies: workers up" wait_until 10 ns_up dies 4
kill -KILL "$P"
check "SIGKILL of the daemon: the service fails" wait_until 10 state_is dies failed
expect_eq "result signal" signal "$(svc_field dies result)"
check "its workers went with it" wait_until 10 none_left "$M"

# ---- RemainAfterExit= (rc-local.service: Type=forking whose command leaves nothing behind) ----
run svctl start rclocal
expect_rc "forking with RemainAfterExit=yes and nothing left: the start succeeds" 0
check "... and it stays exited (active) once its processes are gone" wait_until 10 state_is rclocal exited
run svctl stop rclocal
expect_rc "stop of an exited service" 0
expect_eq "... inactive" inactive "$(svc_state rclocal)"

# ---- the commands around the main one and the PID file (nginx -s reload, start-stop-daemon) ----
# cmd_field WORD N: field N of the line WORD in ngx.cmds.
cmd_field() {
        awk -v w="$1" -v n="$2" '$1 == w { print $n; exit }' "$T/ngx.cmds" 2>/dev/null
}
if [ "$(id -u)" -ne 0 ]; then
        skip "the commands of a forking service in its PID namespace" "svd is unprivileged: they run outside"
else
        run svctl start ngx
        expect_rc "nginx-like: start" 0
        P=$(svc_pid ngx)
        M=$(ns_members "$P")
        TRACKED="$TRACKED $M"
        OWN=$(readlink /proc/$$/ns/pid)
        DNS=$(readlink "/proc/$P/ns/pid")
        expect_ne "nginx-like: the daemon runs in a namespace of its own" "$OWN" "$DNS"
        expect_eq "ExecStartPre= runs outside it (it does not exist yet)" "$OWN" "$(cmd_field pre 2)"
        expect_eq "ExecStartPost= runs in the daemon's namespace" "$DNS" "$(cmd_field post 2)"
        expect_eq "... where \$MAINPID is the pid the PID file holds" "$(cmd_field post 4)" "$(cmd_field post 3)"
        expect_eq "... the daemon's pid in that namespace" "$(nspid "$P")" "$(cmd_field post 3)"
        run svctl reload ngx
        expect_rc "svctl reload runs ExecReload=" 0
        expect_eq "ExecReload= runs in the daemon's namespace" "$DNS" "$(cmd_field reload 2)"
        expect_eq "... with the namespace's \$MAINPID" "$(nspid "$P")" "$(cmd_field reload 3)"
        check "... and the signal sent to the PID file's pid reaches the daemon" \
                wait_until 10 recorded "$T/ngx.rec" hup
        expect_eq "the reload left the daemon running" running "$(svc_state ngx)"
        run svctl stop ngx
        expect_rc "nginx-like: stop" 0
        expect_eq "ExecStop= runs in the daemon's namespace" "$DNS" "$(cmd_field stop 2)"
        check "... and its signal to the PID file's pid reaches the daemon" recorded "$T/ngx.rec" term
        expect_eq "ExecStopPost= runs outside (the namespace is gone)" "$OWN" "$(cmd_field stoppost 2)"
        check "nginx-like: every process of its namespace is gone" wait_until 10 none_left "$M"
fi

# ---- PrivatePIDs=no ----
run svctl start nons
expect_rc "start with PrivatePIDs=no" 0
P=$(svc_pid nons)
track_pid "$P"
expect_eq "PrivatePIDs=no: the main process is the daemon, by its pid in svd's namespace" \
        "$(cat "$T/run/nons.pid" 2>/dev/null)" "$P"
expect_eq "PrivatePIDs=no: it shares svd's PID namespace" "$(readlink /proc/self/ns/pid)" "$(readlink "/proc/$P/ns/pid")"
run svctl stop nons
expect_rc "stop nons" 0
check "PrivatePIDs=no: the daemon got the stop signal" recorded "$T/nons.rec" term
check "PrivatePIDs=no: the daemon is gone" wait_until 10 pid_dead "$P"
expect_eq "PrivatePIDs=no: inactive" inactive "$(svc_state nons)"

# ---- kill -9 of svd: every forking tree dies ----
run svctl start pidfile
expect_rc "start pidfile again" 0
run svctl start guess
expect_rc "start guess again" 0
check "both trees are up" wait_until 10 ns_up guess 5
A=$(ns_members "$(svc_pid pidfile)")
B=$(ns_members "$(svc_pid guess)")
TRACKED="$TRACKED $A $B"
diag "$(count_lines "$A") + $(count_lines "$B") processes in the two namespaces"
kill -KILL "$SVD_PID"
wait "$SVD_JOB" 2>/dev/null
SVD_PID=
check "kill -9 svd: every process of both forking services is gone" wait_until 10 none_left "$A $B"

done_testing
