#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Logs: stdout and stderr of services reach svd through one pipe (two
# where the unit sends them to different places, with the stream kept),
# land in the ring buffer with time and stream (svctl logs, -n, --json, the tail of
# svctl status), in files with StandardOutput=file:/append: and size-based
# rotation, nowhere with null; long lines are split, a partial last line is
# kept, a flood is cut by the rate limit and counted; svctl logs -f streams
# new lines until SIGINT (exit 0). TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

cat >"$T/talk.sh" <<'SCRIPT'
echo "hello out"
echo "hello err" >&2
printf 'no newline at the end'
exec sleep 1000 >/dev/null 2>&1
SCRIPT
write_unit talk <<UNIT
[Service]
ExecStart=$SH $T/talk.sh
UNIT

# Every 0.2 s a numbered line, for -f.
cat >"$T/tick.sh" <<SCRIPT
i=0
while :; do echo "tick \$i"; i=\$((i + 1)); $SLEEP 0.2; done
SCRIPT
write_unit tick <<UNIT
[Service]
ExecStart=$SH $T/tick.sh
UNIT

cat >"$T/lines.sh" <<'SCRIPT'
i=0
while [ $i -lt 100 ]; do echo "line $i of 100 0123456789012345678901234567890123456789"; i=$((i + 1)); done
echo "to stderr" >&2
echo "the end"
SCRIPT
write_unit tofile <<UNIT
[Service]
ExecStart=$SH $T/lines.sh
StandardOutput=file:$T/out.log
LogRotateSize=1K
LogRotateKeep=2
UNIT
write_unit apart <<UNIT
[Service]
ExecStart=$SH -c 'echo apart out; echo apart err >&2; exec $SLEEP 1000'
StandardOutput=file:$T/apart.log
StandardError=journal
UNIT
write_unit both <<UNIT
[Service]
ExecStart=$SH -c 'echo to stdout; echo to stderr >&2'
StandardOutput=file:$T/both.log
UNIT
write_unit toappend <<UNIT
[Service]
ExecStart=$SH -c 'echo appended'
StandardOutput=append:$T/append.log
StandardError=null
UNIT
write_unit quiet <<UNIT
[Service]
ExecStart=$SH -c 'echo you cannot see me; echo nor me >&2'
StandardOutput=null
UNIT
write_unit long <<UNIT
[Service]
ExecStart=$SH -c 'i=0; while [ \$\$i -lt 450 ]; do printf 0123456789; i=\$\$((i + 1)); done; echo'
UNIT
SEQ=$(path_of seq) || bail_out "no seq"
write_unit flood <<UNIT
[Service]
ExecStart=$SH -c '$SEQ 1 30000; $SLEEP 1.5; echo after the flood'
UNIT
write_unit badfile <<UNIT
[Service]
ExecStart=$SH -c 'echo x'
StandardOutput=file:$T/no/such/dir/x.log
UNIT

start_svd

has_line() {
        svctl logs "$1" 2>/dev/null | grep -q -- "$2"
}

# count_is_at_least N FILE PATTERN
count_is_at_least() {
        [ "$(grep -c -- "$3" "$2" 2>/dev/null)" -ge "$1" ]
}

log_count_is() {
        [ "$(svctl logs "$1" 2>/dev/null | grep -c -- "$3")" -eq "$2" ]
}

# ---- the ring buffer ----
run svctl start talk
expect_rc "start talk" 0
check "stdout reaches the log" wait_until 10 has_line talk "stdout: hello out"
check "stderr too, in the one stream of both (as systemd's journal takes them)" \
        wait_until 10 has_line talk "stdout: hello err"
expect_eq "... in the order they were written" "hello out,hello err" \
        "$(svctl logs talk | sed -n 's/.*stdout: \(hello .*\)/\1/p' | paste -sd, -)"
run svctl logs talk
expect_contains "lines carry a date and time" "$OUT" "$(date +%Y-)"
check "a last line without newline is kept" wait_until 10 has_line talk "stdout: no newline at the end"
run svctl logs -n 1 talk
expect_eq "-n 1 shows one line" 1 "$(printf '%s\n' "$OUT" | grep -c .)"
run svctl --json logs talk -n 3
expect_contains "--json: one object a line, with the stream" "$OUT" '"stream":"stdout"'
expect_contains "--json: ... and the time" "$OUT" '"timeUsec":'
run svctl status talk
expect_contains "status ends with the log's last lines" "$OUT" "stdout: hello err"
run svctl logs nosuch
expect_rc "logs of an unknown service exits 4" 4

# ---- files ----
run svctl start tofile
expect_rc "start tofile" 0
check "tofile ran to the end" wait_until 10 state_is tofile inactive
check "file: rotated at LogRotateSize=1K: out.log.1" test -s "$T/out.log.1"
check "... and out.log.2" test -s "$T/out.log.2"
check "... and no more than LogRotateKeep=2" test ! -e "$T/out.log.3"
check "the last line is in the files" grep -q "the end" "$T/out.log" "$T/out.log.1" "$T/out.log.2"
check "the lines are also in the ring" has_line tofile "line 99 of 100"
check "the file holds the lines as written, without time" \
        grep -q "^line 9[0-9] of 100 0123" "$T/out.log" "$T/out.log.1" "$T/out.log.2"
run svctl start tofile
check "tofile ran again" wait_until 10 log_count_is tofile 2 "the end"
check "... and is done" wait_until 10 state_is tofile inactive
expect_eq "file: truncates at each start: no line twice in the files" 1 \
        "$(cat "$T/out.log" "$T/out.log.1" "$T/out.log.2" 2>/dev/null | grep -c '^the end')"

run svctl start both
check "stderr follows StandardOutput= into the file" wait_until 10 grep -q "to stderr" "$T/both.log"
expect_eq "... after stdout, in the order written (one pipe)" "to stdout,to stderr" \
        "$(paste -sd, "$T/both.log")"

run svctl start apart
expect_rc "start apart" 0
check "StandardError=journal apart from a file: stderr in the log as stderr" \
        wait_until 10 has_line apart "stderr: apart err"
check "... stdout in the file" wait_until 10 grep -q "apart out" "$T/apart.log"
expect_not_contains "... and not stderr" "$(cat "$T/apart.log")" "apart err"

run svctl start toappend
check "append: writes" wait_until 10 grep -q appended "$T/append.log"
check "toappend is done" wait_until 10 state_is toappend inactive
run svctl start toappend
check "append: keeps what was there" wait_until 10 count_is_at_least 2 "$T/append.log" appended

run svctl start quiet
check "quiet ran" wait_until 10 state_is quiet inactive
run svctl logs quiet
expect_eq "StandardOutput=null: nothing in the log (stderr follows stdout)" "" "$OUT"

run svctl start badfile
expect_rc "an output file that cannot be opened fails the start" 1

# ---- long lines and floods ----
run svctl start long
check "long ran" wait_until 10 state_is long inactive
run svctl --json logs long
expect_eq "a 4500-byte line is split at 4096 bytes into two" 2 "$(printf '%s\n' "$OUT" | grep -c .)"
expect_contains "... the first piece is flagged split" "$OUT" '"split":true'

run svctl start flood
check "after a flood of 30000 lines the service goes on" wait_until 20 has_line flood "after the flood"
check "the rate limit says how many lines it dropped" has_line flood "svd: .* lines dropped"
DROPPED=$(svc_field flood logDropped)
check "... and status counts them ($DROPPED)" test "${DROPPED:-0}" -gt 0
check "svd kept at most 1000 lines" test "$(svctl logs flood | grep -c .)" -le 1000

# ---- follow ----
run svctl start tick
# Not through the svctl function: a background function is a subshell, which ignores SIGINT.
"$SVCTL" --socket "$SOCK" logs -f -n 1 tick >"$T/follow.out" 2>"$T/follow.err" &
FOLLOW=$!
check "logs -f prints the backlog" wait_until 10 grep -q "tick" "$T/follow.out"
FIRST=$(grep -c tick "$T/follow.out")
check "logs -f prints new lines as they come" wait_until 10 count_is_at_least "$((FIRST + 3))" "$T/follow.out" tick
kill -INT $FOLLOW
wait $FOLLOW
expect_eq "logs -f exits 0 on SIGINT" 0 "$?"

# ---- descriptors ----
TICK=$(svc_pid tick)
expect_eq "tick's stdout and stderr are one pipe" "$(readlink "/proc/$TICK/fd/1")" "$(readlink "/proc/$TICK/fd/2")"
APART=$(svc_pid apart)
expect_ne "apart's are two" "$(readlink "/proc/$APART/fd/1")" "$(readlink "/proc/$APART/fd/2")"
# svd's own ends of tick's pipe: one.
PIPE=$(readlink "/proc/$TICK/fd/1")
N=0
for f in /proc/"$SVD_PID"/fd/*; do
        [ "$(readlink "$f" 2>/dev/null)" = "$PIPE" ] && N=$((N + 1))
done
expect_eq "svd holds one fd of tick's pipe" 1 "$N"

done_testing
