#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# svd.conf end to end (svd(8), CONFIGURATION): a file named by --config gives
# the units its defaults (DefaultTimeoutStopSec=1s: a service that ignores
# SIGTERM is killed after about a second, not 90; DefaultLimitNOFILE=) and
# turns on ForwardOutput=; an unknown key warns with file and line; options
# override the file (--units, --forward-output=no); a re-exec reads the file
# again, and a file in error refuses the re-exec while svd runs on; a bad
# value or a syntax error refuses the start, naming file, line and reason;
# --config naming a missing file is an error. TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

CONF=$T/svd.conf

# SIG_IGN survives exec: sleep itself ignores SIGTERM, and there is no shell left.
cat >"$T/ignore-term.sh" <<'EOF'
trap '' TERM
exec "$SLEEP" 1000
EOF
# No TimeoutStopSec=: the configuration's default applies.
write_unit stubborn <<EOF
[Service]
ExecStart=$SH $T/ignore-term.sh
Environment=SLEEP=$SLEEP
EOF
write_unit polite <<EOF
[Service]
ExecStart=$SLEEP 1000
EOF
write_unit chatty <<EOF
[Service]
ExecStart=$SH -c 'echo hello from chatty; exec $SLEEP 1000'
[Install]
WantedBy=default.target
EOF
# The directory the file names, which --units overrides.
mkdir "$T/elsewhere" || bail_out "mkdir failed"
cat >"$T/elsewhere/other.service" <<EOF
[Service]
ExecStart=$SLEEP 1000
EOF

# write_conf NOFILE: the file, with DefaultLimitNOFILE=NOFILE.
write_conf() {
        cat >"$CONF" <<EOF
# svd-conf.sh
[Manager]
UnitDirectory=$T/elsewhere
DefaultTimeoutStopSec=1s
DefaultLimitNOFILE=$1
ForwardOutput=yes
NoSuchKey=1
X-Local=ignored silently
EOF
}

# svd's stdout goes to $T/out.
printf 'exec "$@" >"%s/out"\n' "$T" >"$T/to-out"
SVD_WRAPPER="$SH $T/to-out"

# nofile_of PID: "SOFT HARD" of the process's open files limit.
nofile_of() {
        awk '/^Max open files/ { print $4, $5 }' "/proc/$1/limits" 2>/dev/null
}

# bg_stop NAME: `svctl stop NAME` in the background; stop_returned NAME once it has.
bg_stop() {
        rm -f "$T/$1.stop.rc"
        (
                svctl stop "$1" >"$T/$1.stop.out" 2>&1
                echo $? >"$T/$1.stop.rc"
        ) &
        BG=$!
}
stop_returned() {
        [ -s "$T/$1.stop.rc" ]
}

# ---- the file's settings ----

write_conf 256:512
start_svd --config "$CONF"
check "an unknown key warns with file and line" \
        in_svd_log -qF "$CONF:7: Unknown key 'NoSuchKey=' in [Manager], ignoring."
check "... and an X- key does not" sh -c '! grep -q "X-Local" "$1"' sh "$SVD_LOG"
check "--units overrides UnitDirectory=: chatty is a unit" state_is chatty running
run svctl status other
expect_rc "... and the directory the file names is not read" 4

check "ForwardOutput=yes: chatty's line is on svd's stdout" wait_until 10 grep -qx "chatty: hello from chatty" "$T/out"

run svctl --json start stubborn
expect_rc "start stubborn" 0
PID=$(json_field pid "$OUT")
PSTART=$(pid_start "$PID")
track_pid "$PID"
check "stubborn's main process ignores SIGTERM" sig_ignored "$PID" 15
expect_eq "DefaultLimitNOFILE=256:512 is the service's limit" "256 512" "$(nofile_of "$PID")"

T0=$(now_ms)
bg_stop stubborn
# The built-in TimeoutStopSec= is 90 s: a stop over within 30 s is the file's 1 s, whatever the load.
check "a stop of a service ignoring SIGTERM returns within 30 s" wait_until 30 stop_returned stubborn
ELAPSED=$(($(now_ms) - T0))
wait "$BG"
diag "the stop took $ELAPSED ms (DefaultTimeoutStopSec=1s)"
expect_eq "... svctl stop exits 0" 0 "$(cat "$T/stubborn.stop.rc" 2>/dev/null)"
check "... the process is gone" pid_gone "$PID" "$PSTART"
J=$(svc_json stubborn)
expect_eq "... result timeout" timeout "$(json_field result "$J")"
L=$(json_field lastExit "$J")
expect_eq "... killed by SIGKILL" "killed 9" "$(json_field code "$L") $(json_field status "$L")"
stop_svd

# ---- an option over the file ----

: >"$T/out"
start_svd --config "$CONF" --forward-output=no
check "chatty runs" wait_until 10 state_is chatty running
check "... its line is in its log" wait_until 10 sh -c '"$1" --socket "$2" logs chatty | grep -q "hello from chatty"' \
        sh "$SVCTL" "$SOCK"
check "--forward-output=no overrides ForwardOutput=yes: nothing on svd's stdout" \
        sh -c '! grep -q "chatty:" "$1"' sh "$T/out"

# ---- a re-exec reads the file again ----

run svctl --json start polite
expect_rc "start polite" 0
PID=$(json_field pid "$OUT")
track_pid "$PID"
expect_eq "polite has the file's open files limit" "256 512" "$(nofile_of "$PID")"
write_conf 300:600
run svctl daemon-reexec
expect_rc "daemon-reexec with a changed file" 0
run svctl --json restart polite
expect_rc "restart polite" 0
PID=$(json_field pid "$OUT")
track_pid "$PID"
expect_eq "... the restarted polite has the new DefaultLimitNOFILE=300:600" "300 600" "$(nofile_of "$PID")"
check "... svd still does not forward (the option holds across the re-exec)" \
        sh -c '! grep -q "chatty:" "$1"' sh "$T/out"

# A file that would not load: the re-exec is refused and svd runs on as it was.
printf '[Manager]\nDefaultTimeoutStopSec=1s\nDefaultRestartSec=soon\n' >"$CONF"
run svctl daemon-reexec
expect_ne "daemon-reexec with a bad line fails" 0 "$RC"
expect_contains "... naming file, line and reason" "$ERR" \
        "$CONF:3: Invalid value 'soon' for DefaultRestartSec=: expected a time span"
check "... svd runs on" test "$(pid_start "$SVD_PID")" = "$SVD_START"
check "... and so does polite" pid_alive "$PID" "$(pid_start "$PID")"
expect_eq "... with the same main process" "$PID" "$(svc_pid polite)"
stop_svd

# ---- files that refuse the start ----

printf '[Manager]\n# the next line is wrong\nDefaultTimeoutStopSec=soon\nNoSuchKey=1\n' >"$T/bad.conf"
run "$SVD" --config "$T/bad.conf" --units "$UNITS" --socket "$T/bad.sock"
expect_rc "a bad value refuses the start" 1
expect_contains "... naming file, line and reason" "$ERR" \
        "$T/bad.conf:3: Invalid value 'soon' for DefaultTimeoutStopSec=: expected a time span such as '90s' or '5min', or 'infinity'"
expect_contains "... the unknown key on the next line is warned about too" "$ERR" \
        "$T/bad.conf:4: Unknown key 'NoSuchKey=' in [Manager], ignoring."
expect_contains "... and svd says why it stops" "$ERR" "Refusing to start"
check "... before it made its socket" test ! -e "$T/bad.sock"

printf '[Manager]\nDefaultTimeoutStopSec\n' >"$T/syntax.conf"
run "$SVD" --config "$T/syntax.conf" --units "$UNITS" --socket "$T/bad.sock"
expect_rc "a line that is no assignment refuses the start" 1
expect_contains "... naming file and line" "$ERR" "$T/syntax.conf:2: Expected '[Section]' or 'Key=Value'"

run "$SVD" --config "$T/missing.conf" --units "$UNITS" --socket "$T/bad.sock"
expect_rc "--config naming a missing file refuses the start" 1
expect_contains "... and says so" "$ERR" "Failed to read '$T/missing.conf': No such file or directory"

done_testing
