#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# svd as PID 1 of a PID namespace (unshare --pid --fork --mount-proc), the way
# a container runs it: a service that leaves an orphan every 0.1 s leaves no
# zombie behind, services' own exit statuses are still reported exactly, and
# SIGTERM stops everything. Needs root and unshare. TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

[ "$(id -u)" -eq 0 ] || skip_all "needs root for a PID namespace"
UNSHARE=$(path_of unshare) || skip_all "no unshare"
$UNSHARE --pid --fork --mount-proc true 2>/dev/null || skip_all "unshare --pid --fork --mount-proc fails here"

# zombies_of PID: how many zombie children PID has (fields after the last ") ": state, ppid).
zombies_of() {
        cat /proc/[0-9]*/stat 2>/dev/null |
                awk -v pp="$1" '{ s = $0; sub(/.*\) /, "", s); split(s, f, " "); if (f[1] == "Z" && f[2] == pp) n++ } END { print n + 0 }'
}

# child_of PID: the first child of PID.
child_of() {
        for _st in /proc/[0-9]*/stat; do
                _p=${_st#/proc/}
                _p=${_p%/stat}
                proc_stat "$_p" && [ "$P_PPID" = "$1" ] && { echo "$_p"; return 0; }
        done
        return 1
}

cat >"$T/die.sh" <<'EOF'
kill -USR1 $$
exec sleep 5
EOF

write_unit orphans <<EOF
[Service]
ExecStart=$SH -c 'while :; do ($SLEEP 0.05 &); $SLEEP 0.1; done'
[Install]
WantedBy=default.target
EOF
write_unit exit3 <<EOF
[Service]
ExecStart=$SH -c 'exit 3'
EOF
write_unit usr1 <<EOF
[Service]
ExecStart=$SH $T/die.sh
EOF

SVD_WRAPPER="$UNSHARE --pid --fork --mount-proc"
start_svd
# SVD_PID is unshare; svd is its child, PID 1 inside.
wait_until 10 child_of "$SVD_PID" >/dev/null || bail_out "no svd under unshare"
INIT=$(child_of "$SVD_PID")
expect_eq "svd is PID 1 of its namespace" 1 "$(sed -n 's/^NSpid:.*[[:space:]]\([0-9]*\)$/\1/p' "/proc/$INIT/status")"
check "it says it reaps orphans" grep -q "Running as PID 1: orphaned processes are reaped" "$SVD_LOG"
wait_until 10 state_is orphans running || diag "orphans: $(svc_state orphans)"

# At most a few zombies at any moment (each lives until svd's next SIGCHLD),
# for 10 s; unreaped there would be ~100 by then.
few_zombies() {
        _z=$(zombies_of "$INIT")
        [ "$_z" -le 5 ] || { diag "$_z zombies under svd"; return 1; }
}
check "no zombies pile up under svd in 10 s" stays_for 10 few_zombies
check "the orphan maker is still running" state_is orphans running

# exit_of NAME: "CODE STATUS" of lastExit.
exit_of() {
        _e=$(svc_field "$1" lastExit)
        echo "$(json_field code "$_e") $(json_field status "$_e")"
}
ok_exit3=0 ok_usr1=0
for _i in 1 2 3 4 5; do
        svctl start exit3 >/dev/null 2>&1
        svctl start usr1 >/dev/null 2>&1
        wait_until 10 state_is exit3 failed && [ "$(exit_of exit3)" = "exited 3" ] &&
                [ "$(svc_field exit3 result)" = exit-code ] && ok_exit3=$((ok_exit3 + 1))
        wait_until 10 state_is usr1 failed && [ "$(exit_of usr1)" = "killed 10" ] &&
                [ "$(svc_field usr1 result)" = signal ] && ok_usr1=$((ok_usr1 + 1))
        svctl reset-failed exit3 usr1 >/dev/null 2>&1
done
expect_eq "exit 3 reported exactly (result exit-code), 5 times out of 5" 5 "$ok_exit3"
expect_eq "SIGUSR1 reported exactly (result signal), 5 times out of 5" 5 "$ok_usr1"

kill -TERM "$INIT"
check "SIGTERM: svd exits within 10 s" wait_until 10 svd_exited
wait "$SVD_JOB"
expect_eq "... with status 0 (every service stopped cleanly)" 0 "$?"
check "... and nothing of the namespace is left" wait_until 10 pid_gone "$INIT"
SVD_PID=

done_testing
