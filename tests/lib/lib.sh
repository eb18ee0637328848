# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Shared helpers for tests/integration/*.sh. Sourced, never run.
#
# Plain POSIX sh: the scripts run under dash on Debian and under busybox sh
# inside the kernel lab's initramfs, so no bashisms, no python, no jq, and
# only what busybox has (awk, sed, grep, cat, mktemp, kill, sleep). Processes
# are looked at through /proc and identified by pid + starttime (field 22 of
# /proc/PID/stat), never by name.
#
# Environment (set by tests/CMakeLists.txt, or by the lab):
#   SVD, SVCTL         paths of the binaries under test (required)
#   SVD_TESTS          the tests/ source directory
#   SVD_TEST_HELPERS   the tests/ build directory; helpers are in its lib/
#   SVD_ARGS           extra arguments for every svd started (e.g. --mode=fallback)
#   TIMEOUT_FACTOR     an integer that multiplies every wait_until timeout and the
#                      timing slack of e2e-stop-timeout (slow emulators); default 1
#   SVD_TEST_KEEP      when 1, keep the temporary directory
#   SVD_EXPECT_MODE    autokill or fallback: e2e-basic and crash assert the mode
#   SVD_VALGRIND       a directory: svd runs under valgrind, logs there (tests/valgrind.sh)
#   TMPDIR             where the temporary directories go (default /tmp)
# crash.sh also reads CRASH_SERVICES and CRASH_DEADLINE_MS; e2e-permissions
# SVD_TEST_UID and SVD_TEST_GID (the throwaway ids, default 65534).
#
# After setup_test: $T (temporary directory), $UNITS, $SOCK, $SVD_LOG.
# After start_svd: $SVD_PID (svd itself) and $SVD_JOB (the shell's job:
# svd, or the reaper helper that runs it).
#
# shellcheck shell=sh disable=SC2034 # the variables set here are for the scripts

TAP_N=0
TAP_FAILED=0
T=
SVD_PID=
SVD_START=
SVD_JOB=
SVD_WRAPPER=
TRACKED=
POLL_SLEEP=0.05
: "${TIMEOUT_FACTOR:=1}"

# ---- TAP ----

diag() {
        printf '%s\n' "$*" | sed 's/^/# /'
}

ok() {
        TAP_N=$((TAP_N + 1))
        echo "ok $TAP_N - $*"
}

not_ok() {
        TAP_N=$((TAP_N + 1))
        TAP_FAILED=$((TAP_FAILED + 1))
        echo "not ok $TAP_N - $*"
}

# skip DESCRIPTION REASON
skip() {
        TAP_N=$((TAP_N + 1))
        echo "ok $TAP_N - $1 # SKIP $2"
}

# check DESCRIPTION COMMAND...: ok when COMMAND succeeds.
check() {
        _desc=$1
        shift
        if "$@"; then
                ok "$_desc"
        else
                not_ok "$_desc"
                return 1
        fi
}

# expect_eq DESCRIPTION EXPECTED ACTUAL
expect_eq() {
        if [ "$2" = "$3" ]; then
                ok "$1"
        else
                not_ok "$1"
                diag "expected '$2'" "     got '$3'"
                return 1
        fi
}

# expect_ne DESCRIPTION UNEXPECTED ACTUAL
expect_ne() {
        if [ "$2" != "$3" ]; then
                ok "$1"
        else
                not_ok "$1"
                diag "expected anything but '$2'"
                return 1
        fi
}

# expect_contains DESCRIPTION HAYSTACK NEEDLE
expect_contains() {
        case $2 in
        *"$3"*)
                ok "$1"
                ;;
        *)
                not_ok "$1"
                diag "expected to find '$3' in:" "$2"
                return 1
                ;;
        esac
}

# expect_not_contains DESCRIPTION HAYSTACK NEEDLE
expect_not_contains() {
        case $2 in
        *"$3"*)
                not_ok "$1"
                diag "did not expect '$3' in:" "$2"
                return 1
                ;;
        *)
                ok "$1"
                ;;
        esac
}

# expect_rc DESCRIPTION EXPECTED: checks $RC of the last run().
expect_rc() {
        if [ "$RC" = "$2" ]; then
                ok "$1"
        else
                not_ok "$1"
                diag "command: $RUN_CMD" "expected exit status $2, got $RC" "stdout: $OUT" "stderr: $ERR"
                return 1
        fi
}

# Prints the plan and exits 0, or 1 when a test failed. The EXIT trap cleans up.
done_testing() {
        echo "1..$TAP_N"
        [ "$TAP_FAILED" -eq 0 ] || exit 1
        exit 0
}

# skip_all REASON: nothing here can run on this system (exit 77).
skip_all() {
        echo "1..0 # SKIP $*"
        exit 77
}

bail_out() {
        echo "Bail out! $*"
        TAP_FAILED=$((TAP_FAILED + 1))
        exit 1
}

# ---- running commands ----

# run COMMAND...: runs it with stdout in $OUT, stderr in $ERR, exit status in $RC.
run() {
        RUN_CMD=$*
        "$@" >"$T/.out" 2>"$T/.err"
        RC=$?
        OUT=$(cat "$T/.out")
        ERR=$(cat "$T/.err")
        return 0
}

svctl() {
        "$SVCTL" --socket "$SOCK" "$@"
}

# ---- JSON (svctl --json prints one compact object per line) ----

# json_field KEY [JSON]: the value of the first "KEY": in JSON (or stdin),
# at any depth. Strings are printed unquoted and unescaped; numbers, true,
# false and null as they are; objects and arrays as their JSON text. Exit
# status 1 when KEY is not there. Enough for svctl's output, not a parser.
json_field() {
        if [ $# -ge 2 ]; then
                printf '%s\n' "$2" | _json_field "$1"
        else
                _json_field "$1"
        fi
}

_json_field() {
        awk -v key="$1" '
        function emit(s) { printf "%s\n", s; found = 1; exit }
        !found {
                pat = "\"" key "\":"
                i = index($0, pat)
                if (i == 0)
                        next
                s = substr($0, i + length(pat))
                sub(/^[ \t]+/, "", s)
                c = substr(s, 1, 1)
                n = length(s)
                if (c == "\"") {
                        out = ""
                        for (j = 2; j <= n; j++) {
                                ch = substr(s, j, 1)
                                if (ch == "\\") {
                                        nx = substr(s, j + 1, 1)
                                        if (nx == "n") out = out "\n"
                                        else if (nx == "t") out = out "\t"
                                        else if (nx == "u") { out = out "?"; j += 4 }
                                        else out = out nx
                                        j++
                                        continue
                                }
                                if (ch == "\"")
                                        break
                                out = out ch
                        }
                        emit(out)
                }
                if (c == "{" || c == "[") {
                        depth = 0; instr = 0
                        for (j = 1; j <= n; j++) {
                                ch = substr(s, j, 1)
                                if (instr) {
                                        if (ch == "\\") j++
                                        else if (ch == "\"") instr = 0
                                } else if (ch == "\"") instr = 1
                                else if (ch == "{" || ch == "[") depth++
                                else if (ch == "}" || ch == "]") { if (--depth == 0) break }
                        }
                        emit(substr(s, 1, j))
                }
                if (match(s, /^[^],}]*/))
                        emit(substr(s, 1, RLENGTH))
        }
        END { exit found ? 0 : 1 }'
}

# json_fields KEY...: for every JSON line on stdin, the first value of each
# KEY (at any depth; strings unquoted, numbers, true, false, null as they
# are; "-" when the key is missing), separated by spaces. One awk for the
# whole input, where json_field costs one per value: for the scalar fields
# of svctl's one-line-per-service output.
json_fields() {
        awk -v keys="$*" '
        function get(line, key,    pat, i, s, c, n, j, ch, out) {
                pat = "\"" key "\":"
                i = index(line, pat)
                if (i == 0)
                        return "-"
                s = substr(line, i + length(pat))
                sub(/^[ \t]+/, "", s)
                c = substr(s, 1, 1)
                n = length(s)
                if (c == "\"") {
                        out = ""
                        for (j = 2; j <= n; j++) {
                                ch = substr(s, j, 1)
                                if (ch == "\\") { out = out substr(s, j + 1, 1); j++; continue }
                                if (ch == "\"")
                                        break
                                out = out ch
                        }
                        return out
                }
                if (match(s, /^[^],}]*/))
                        return substr(s, 1, RLENGTH)
                return "-"
        }
        BEGIN { nk = split(keys, k, " ") }
        NF { out = get($0, k[1]); for (x = 2; x <= nk; x++) out = out " " get($0, k[x]); print out }'
}

# ---- services, through svctl ----

# svc_json NAME: the service's JSON line (empty when svctl fails).
svc_json() {
        svctl --json status "$1" 2>/dev/null
        return 0
}

# svc_field NAME KEY
svc_field() {
        svc_json "$1" | _json_field "$2"
}

svc_state() {
        svc_field "$1" state
}

svc_pid() {
        svc_field "$1" pid
}

# state_is NAME STATE
state_is() {
        [ "$(svc_state "$1")" = "$2" ]
}

# running_with_new_pid NAME OLD_PID: running under another main process.
running_with_new_pid() {
        _j=$(svc_json "$1")
        [ "$(json_field state "$_j")" = running ] || return 1
        _p=$(json_field pid "$_j")
        [ -n "$_p" ] && [ "$_p" != null ] && [ "$_p" != "$2" ]
}

# all_running: every loaded service is running (there is at least one).
all_running() {
        svctl --json status >"$T/.all" 2>/dev/null || return 1
        [ -s "$T/.all" ] || return 1
        ! grep -v '"state":"running"' "$T/.all" >/dev/null
}

# enabled_running: every service wanted by default.target is running.
enabled_running() {
        svctl --json status >"$T/.all" 2>/dev/null || return 1
        ! grep '"enabled":true' "$T/.all" | grep -v '"state":"running"' >/dev/null
}

# ---- processes, through /proc ----

# proc_stat PID: sets P_STATE, P_PPID and P_START from /proc/PID/stat;
# status 1 when there is no such process.
proc_stat() {
        P_STATE='' P_PPID='' P_START='' _line=''
        { read -r _line <"/proc/$1/stat"; } 2>/dev/null || return 1
        [ -n "$_line" ] || return 1
        # comm is in parentheses and may hold anything: fields follow the last ") ".
        _rest=${_line##*) }
        # shellcheck disable=SC2086
        set -- $_rest
        [ $# -ge 20 ] || return 1
        P_STATE=$1
        P_PPID=$2
        eval "P_START=\${20}"
        return 0
}

# pid_start PID: prints the starttime of PID (nothing when it is gone).
pid_start() {
        proc_stat "$1" && echo "$P_START"
        return 0
}

# pid_alive PID [STARTTIME]: running, not a zombie, and (if given) the same process.
pid_alive() {
        proc_stat "$1" || return 1
        [ "$P_STATE" != Z ] || return 1
        [ -z "${2:-}" ] || [ "$P_START" = "$2" ]
}

# pid_dead PID [STARTTIME]: not alive; a zombie counts as dead.
pid_dead() {
        ! pid_alive "$@"
}

# pid_zombie PID [STARTTIME]
pid_zombie() {
        proc_stat "$1" || return 1
        [ "$P_STATE" = Z ] || return 1
        [ -z "${2:-}" ] || [ "$P_START" = "$2" ]
}

# pid_gone PID [STARTTIME]: not alive and not a zombie (reaped, or the pid was reused).
pid_gone() {
        proc_stat "$1" || return 0
        [ -n "${2:-}" ] && [ "$P_START" != "$2" ]
}

# pids_dead "PID:STARTTIME ...": none of them is alive (a zombie counts as dead).
pids_dead() {
        for _ps in $1; do
                pid_alive "${_ps%%:*}" "${_ps#*:}" && return 1
        done
        return 0
}

# pids_gone "PID:STARTTIME ...": none of them is in /proc any more, not even as a zombie.
pids_gone() {
        for _ps in $1; do
                pid_gone "${_ps%%:*}" "${_ps#*:}" || return 1
        done
        return 0
}

# sig_ignored PID SIGNUM: the process ignores signal SIGNUM (1..32), from SigIgn: in /proc/PID/status.
sig_ignored() {
        _m=$(sed -n 's/^SigIgn:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
        [ -n "$_m" ] || return 1
        _m=${_m#????????}
        [ $(((0x$_m >> ($2 - 1)) & 1)) -eq 1 ]
}

# track_pid PID: remember a service process, so that cleanup kills it should it outlive the test.
track_pid() {
        _s=$(pid_start "$1")
        [ -n "$_s" ] && TRACKED="$TRACKED $1:$_s"
        return 0
}

# ---- time and waiting ----

# now_ms: milliseconds since boot (/proc/uptime has centiseconds).
now_ms() {
        read -r _up _ </proc/uptime
        _s=${_up%.*}
        _c=${_up#*.}
        _c=${_c#0}
        echo $((_s * 1000 + ${_c:-0} * 10))
}

# wait_until SECONDS COMMAND...: polls COMMAND (every $POLL_SLEEP s) until it
# succeeds (status 0) or SECONDS * TIMEOUT_FACTOR have passed (status 1).
wait_until() {
        _deadline=$(($(now_ms) + $1 * 1000 * TIMEOUT_FACTOR))
        shift
        while :; do
                "$@" && return 0
                [ "$(now_ms)" -lt "$_deadline" ] || return 1
                sleep "$POLL_SLEEP"
        done
}

# ns_members PID: "pid:start" of every process in PID's PID namespace. One ls for all of /proc: a
# readlink per process costs a fork each, which on a busy machine with a thousand processes takes
# longer than the waits.
ns_members() {
        _ns=$(readlink "/proc/$1/ns/pid" 2>/dev/null) || return 0
        # shellcheck disable=SC2012 # the link targets are what is wanted, and ls -l prints them
        for _p in $(ls -l /proc/[0-9]*/ns/pid 2>/dev/null |
                awk -v ns="$_ns" '$NF == ns { split($(NF - 2), a, "/"); print a[3] }'); do
                proc_stat "$_p" && echo "$_p:$P_START"
        done
        return 0
}

# none_left "pid:start...": no process of the list is alive or a zombie.
none_left() {
        for _ps in $1; do
                pid_alive "${_ps%%:*}" "${_ps#*:}" && return 1
                pid_zombie "${_ps%%:*}" "${_ps#*:}" && return 1
        done
        return 0
}

# count_lines TEXT: how many non-empty lines TEXT has.
count_lines() {
        echo "$1" | grep -c .
}

# poke FIFO: one line into FIFO, a test's gate for a service, waited for (bounded: the reader may be
# gone).
poke() {
        (echo go >"$1") &
        _poker=$!
        if ! wait_until 10 pid_dead "$_poker"; then
                kill -KILL "$_poker" 2>/dev/null
                wait "$_poker"
                return 1
        fi
        wait "$_poker"
}

# bg_start NAME: `svctl start NAME` in the background (its pid in BG); its output lands in
# $T/NAME.out, its exit status in $T/NAME.rc once it returned (start_returned NAME).
bg_start() {
        rm -f "$T/$1.rc"
        (
                svctl start "$1" >"$T/$1.out" 2>&1
                echo $? >"$T/$1.rc"
        ) &
        BG=$!
}

start_returned() {
        [ -s "$T/$1.rc" ]
}

# start_rc NAME: the exit status of the last bg_start, once it returned.
start_rc() {
        wait "$BG"
        cat "$T/$1.rc"
}

# stays_for SECONDS COMMAND...: COMMAND keeps succeeding for SECONDS (status 0),
# or fails at some point (status 1). For checking that something does NOT happen.
stays_for() {
        _deadline=$(($(now_ms) + $1 * 1000))
        shift
        while :; do
                "$@" || return 1
                [ "$(now_ms)" -lt "$_deadline" ] || return 0
                sleep "$POLL_SLEEP"
        done
}

# ---- programs and helpers ----

# path_of NAME: absolute path of a program in $PATH, or "BUSYBOX NAME" for a
# busybox applet that has no link. ExecStart= has no shell and wants a path.
path_of() {
        _save_ifs=$IFS
        IFS=:
        for _d in $PATH; do
                if [ -n "$_d" ] && [ -f "$_d/$1" ] && [ -x "$_d/$1" ]; then
                        IFS=$_save_ifs
                        echo "$_d/$1"
                        return 0
                fi
        done
        IFS=$_save_ifs
        for _b in /bin/busybox /usr/bin/busybox /sbin/busybox; do
                if [ -x "$_b" ]; then
                        echo "$_b $1"
                        return 0
                fi
        done
        return 1
}

# find_helper NAME: a helper built from tests/lib/NAME.c.
find_helper() {
        for _h in "${SVD_TEST_HELPERS:-}/lib/$1" "${SVD_TEST_HELPERS:-}/$1"; do
                if [ -n "${SVD_TEST_HELPERS:-}" ] && [ -f "$_h" ] && [ -x "$_h" ]; then
                        echo "$_h"
                        return 0
                fi
        done
        command -v "svd-test-$1" 2>/dev/null
}

# as_user UID GID[,GROUP...] COMMAND...: runs COMMAND with those ids and no
# supplementary groups but those listed (needs root): through the runas
# helper, else util-linux setpriv.
as_user() {
        _ru=$(find_helper runas)
        if [ -n "$_ru" ]; then
                "$_ru" "$@"
        elif command -v setpriv >/dev/null 2>&1 && setpriv --help 2>&1 | grep -q -- --reuid; then
                _u=$1 _g=${2%%,*} _sg=${2#"${2%%,*}"}
                shift 2
                if [ -n "$_sg" ]; then
                        setpriv --reuid="$_u" --regid="$_g" --groups="${_sg#,}" -- "$@"
                else
                        setpriv --reuid="$_u" --regid="$_g" --clear-groups -- "$@"
                fi
        else
                echo "as_user: neither the runas helper nor setpriv --reuid is available" >&2
                return 125
        fi
}

# low_nofile_wrapper N: sets SVD_WRAPPER to a script that runs svd with RLIMIT_NOFILE N, soft and
# hard (svd raises its soft limit to the hard one, so the hard one is what counts).
low_nofile_wrapper() {
        printf '%s\n' '#!/bin/sh' "ulimit -n $1 || exit 125" 'exec "$@"' >"$T/lowfd"
        chmod +x "$T/lowfd"
        SVD_WRAPPER=$T/lowfd
}

# as_user_prefix: the command words that as_user would put in front (for SVD_WRAPPER).
as_user_prefix() {
        _ru=$(find_helper runas)
        if [ -n "$_ru" ]; then
                echo "$_ru $1 $2"
        elif command -v setpriv >/dev/null 2>&1 && setpriv --help 2>&1 | grep -q -- --reuid; then
                echo "setpriv --reuid=$1 --regid=$2 --clear-groups --"
        else
                return 1
        fi
}

# reach_binaries UID GID: makes svd, svctl and the test helpers runnable by
# that uid. Where the build tree is not (a checkout in root's 0700 home), they
# are copied into $T/bin, which everybody may enter, and SVD, SVCTL and
# SVD_TEST_HELPERS name the copies. Call after setup_test; fails when even
# the copies cannot be run.
reach_binaries() {
        as_user "$1" "$2" "$SVCTL" --version >/dev/null 2>&1 && return 0
        chmod 0755 "$T" && mkdir -p "$T/bin/lib" && cp "$SVD" "$SVCTL" "$T/bin/" || return 1
        for _h in "${SVD_TEST_HELPERS:-}"/lib/*; do
                if [ -f "$_h" ] && [ -x "$_h" ]; then
                        cp "$_h" "$T/bin/lib/" || return 1
                fi
        done
        chmod -R a+rX "$T/bin" || return 1
        SVD=$T/bin/${SVD##*/}
        SVCTL=$T/bin/${SVCTL##*/}
        SVD_TEST_HELPERS=$T/bin
        diag "the build tree is out of uid $1's reach: svd, svctl and the helpers run from copies in $T/bin"
        as_user "$1" "$2" "$SVCTL" --version >/dev/null 2>&1
}

# ---- the test's world: a directory, units, a socket, an svd ----

# setup_test: checks the environment, creates $T and installs the cleanup trap.
setup_test() {
        if [ -z "${SVD:-}" ] || [ -z "${SVCTL:-}" ]; then
                echo "Bail out! SVD and SVCTL must name the svd and svctl binaries to test"
                exit 1
        fi
        [ -x "$SVD" ] || { echo "Bail out! SVD=$SVD is not executable"; exit 1; }
        [ -x "$SVCTL" ] || { echo "Bail out! SVCTL=$SVCTL is not executable"; exit 1; }
        [ -r /proc/self/stat ] || skip_all "/proc is not mounted"

        sleep "$POLL_SLEEP" 2>/dev/null || POLL_SLEEP=1

        T=$(mktemp -d "${TMPDIR:-/tmp}/svd-test.XXXXXX") || bail_out "mktemp -d failed"
        UNITS=$T/units
        SOCK=$T/svd.sock
        SVD_LOG=$T/svd.log
        mkdir "$UNITS" || bail_out "mkdir $UNITS failed"
        : >"$SVD_LOG"

        trap cleanup EXIT
        trap 'exit 129' HUP
        trap 'exit 130' INT
        trap 'exit 143' TERM

        REAPER=$(find_helper reaper)
        SH=$(path_of sh) || bail_out "no sh in PATH"
        SLEEP=$(path_of sleep) || bail_out "no sleep in PATH"
        setup_test_cgroup
}

# setup_test_cgroup: where the test may write cgroup2 (root), a cgroup of its
# own, $TEST_CG, that start_svd moves svd into (its leaf "supervisor"). svd then keeps its services
# below it, so that tests running at the same time (ctest -j) never see, or
# kill as "left over", each other's services of the same name.
TEST_CG=
setup_test_cgroup() {
        [ "$(id -u)" -eq 0 ] || return 0
        _mnt=$(grep ' - cgroup2 ' /proc/self/mountinfo 2>/dev/null | head -n 1 | cut -d' ' -f5)
        _own=$(sed -n 's/^0:://p' /proc/self/cgroup 2>/dev/null)
        [ -n "$_mnt" ] && [ -n "$_own" ] || return 0
        [ "$_own" = / ] && _own=
        _parent=$_mnt$_own
        [ -w "$_parent/cgroup.procs" ] || return 0
        for _c in memory pids cpu; do
                echo "+$_c" >"$_parent/cgroup.subtree_control" 2>/dev/null || :
        done
        mkdir "$_parent/svd-test.$$" 2>/dev/null || return 0
        TEST_CG=$_parent/svd-test.$$
        # svd goes into the leaf "supervisor", as systemd's
        # DelegateSubgroup=supervisor would put it: the test cgroup itself
        # may hold no process once svd has enabled controllers in it, and
        # svd must find the same services' cgroups at every start.
        mkdir "$TEST_CG/supervisor" || bail_out "mkdir $TEST_CG/supervisor failed"
        printf 'echo 0 >"%s/supervisor/cgroup.procs" && exec "$@"\n' "$TEST_CG" >"$T/in-test-cgroup"
}

# _cg_kill_rm DIR: kills everything in the cgroup DIR and below, removes it.
_cg_kill_rm() {
        [ -d "$1" ] || return 0
        for _d in "$1"/*/; do
                [ -d "$_d" ] && _cg_kill_rm "${_d%/}"
        done
        if grep -q '^populated 1' "$1/cgroup.events" 2>/dev/null; then
                echo 1 >"$1/cgroup.kill" 2>/dev/null || :
                wait_until 10 sh -c '! grep -q "^populated 1" "$1/cgroup.events"' sh "$1" ||
                        echo "# cleanup: $1 still populated"
        fi
        rmdir "$1" 2>/dev/null || echo "# cleanup: cannot remove $1"
}

cleanup() {
        _rc=$?
        trap - EXIT HUP INT TERM
        if [ -n "$SVD_PID" ] && pid_alive "$SVD_PID" "$SVD_START"; then
                # Know every service before svd goes, in case its stop fails.
                TRACKED="$TRACKED $(service_pids)"
                kill -TERM "$SVD_PID" 2>/dev/null
                wait_until 10 svd_exited || kill -KILL "$SVD_PID" 2>/dev/null
        fi
        for _ps in $TRACKED; do
                if pid_alive "${_ps%%:*}" "${_ps#*:}"; then
                        echo "# cleanup: killing left-over process ${_ps%%:*}"
                        kill -KILL "${_ps%%:*}" 2>/dev/null
                fi
        done
        [ -n "$TEST_CG" ] && _cg_kill_rm "$TEST_CG"
        # What a test mounted below $T (a layer that did not unmount), deepest first.
        if [ -n "$T" ]; then
                for _m in $(awk -v t="$T/" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo | sort -r); do
                        umount -l "$_m" 2>/dev/null
                done
        fi
        if [ "$_rc" -ne 0 ] && [ "$_rc" -ne 77 ] && [ -n "$T" ] && [ -s "$T/svd.log" ]; then
                echo "# --- last lines of svd's log ($SVD_LOG) ---"
                tail -n 60 "$T/svd.log" | sed 's/^/#   /'
        fi
        if [ -n "$T" ] && [ "${SVD_TEST_KEEP:-0}" != 1 ]; then
                rm -rf "$T"
        elif [ -n "$T" ]; then
                echo "# kept $T"
        fi
        exit "$_rc"
}

# write_unit NAME: the unit file NAME.service from stdin.
write_unit() {
        cat >"$UNITS/$1.service"
}

svd_exited() {
        ! pid_alive "$SVD_PID" "$SVD_START"
}

_svd_ready_or_dead() {
        svd_exited && return 0
        [ -S "$SOCK" ] && svctl info >/dev/null 2>&1
}

# dir_outside_tmp: a new directory outside /tmp (PrivateTmp= hides $T and a
# tree built there), printed; the lab's guest has none of the usual ones,
# but the tree's own (/svd). Fails when there is none. The caller removes it.
dir_outside_tmp() {
        for _p in /var/lib /srv /opt "${SVD_SOURCE_DIR:-}"; do
                [ -n "$_p" ] && [ -d "$_p" ] && mktemp -d "$_p/svd-sandbox-test.XXXXXX" 2>/dev/null && return 0
        done
        return 1
}

# in_svd_log GREP_ARGS...: grep in the lines of svd's log since the latest
# start_svd (the log keeps those of every start before).
in_svd_log() {
        tail -n "+${SVD_LOG_FROM:-1}" "$SVD_LOG" | grep "$@"
}

# start_svd [ARG...]: starts svd in the background (as $SVD_WRAPPER, if set,
# e.g. "runas 65534 65534") and waits until it answers on $SOCK. svd reads no
# configuration file (--no-config) unless ARG says --config=FILE. svd runs under
# the reaper helper when there is one: a child subreaper that reaps at once
# whatever is orphaned below it (see tests/lib/reaper.c for why).
# shellcheck disable=SC2120 # the arguments are optional
start_svd() {
        _cgwrap=
        [ -n "$TEST_CG" ] && _cgwrap="$SH $T/in-test-cgroup"
        _vg=
        # SVD_VALGRIND=DIR: svd runs under valgrind's memcheck, one log per
        # process in DIR (tests/valgrind.sh reads them).
        [ -n "${SVD_VALGRIND:-}" ] && _vg="valgrind --log-file=$SVD_VALGRIND/vg.%p.log --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect --child-silent-after-fork=yes"
        rm -f "$T/svd.pid"
        SVD_LOG_FROM=$(($(wc -l <"$SVD_LOG") + 1))
        echo "--- svd $SVD_WRAPPER ${SVD_ARGS:-} $* ---" >>"$SVD_LOG"
        if [ -n "$REAPER" ]; then
                # shellcheck disable=SC2086
                "$REAPER" "$T/svd.pid" $_cgwrap $SVD_WRAPPER $_vg "$SVD" --no-config --units "$UNITS" \
                        --socket "$SOCK" ${SVD_ARGS:-} "$@" </dev/null >>"$SVD_LOG" 2>&1 &
                SVD_JOB=$!
                wait_until 10 test -s "$T/svd.pid" || bail_out "reaper did not start svd"
                read -r SVD_PID <"$T/svd.pid"
        else
                # shellcheck disable=SC2086
                $_cgwrap $SVD_WRAPPER $_vg "$SVD" --no-config --units "$UNITS" --socket "$SOCK" ${SVD_ARGS:-} \
                        "$@" </dev/null >>"$SVD_LOG" 2>&1 &
                SVD_JOB=$!
                SVD_PID=$SVD_JOB
        fi
        SVD_START=$(pid_start "$SVD_PID")
        [ -n "$SVD_START" ] || SVD_START=gone
        wait_until 20 _svd_ready_or_dead
        if svd_exited; then
                wait "$SVD_JOB"
                bail_out "svd exited at start-up with status $?"
        fi
        [ -S "$SOCK" ] || bail_out "svd did not answer on $SOCK within 20 s"
}

# stop_svd: SIGTERM, wait for the exit (bounded); sets SVD_RC.
stop_svd() {
        kill -TERM "$SVD_PID" 2>/dev/null
        if ! wait_until 30 svd_exited; then
                kill -KILL "$SVD_PID" 2>/dev/null
                wait "$SVD_JOB"
                SVD_RC=timeout
                SVD_PID=
                return 1
        fi
        wait "$SVD_JOB"
        SVD_RC=$?
        SVD_PID=
        return 0
}

# svd_mode: "autokill" or "fallback", from svctl --json info.
svd_mode() {
        svctl --json info 2>/dev/null | _json_field mode
}

# service_pids: "PID:STARTTIME" of every service's main process, one a line.
service_pids() {
        svctl --json status 2>/dev/null | while read -r _l; do
                _p=$(json_field pid "$_l")
                case $_p in
                '' | null) continue ;;
                esac
                _s=$(pid_start "$_p")
                [ -n "$_s" ] && echo "$_p:$_s"
        done
}
