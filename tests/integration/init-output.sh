#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# --forward-output: services' lines on svd's own stdout (their one stream
# of stdout and stderr) and stderr (a stderr of its own), as a
# container engine collects them ("NAME: LINE", with =time the time first),
# with the log ring's line cut and rate limit; a stdout that nobody reads
# never stops svd. TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

AWK=$(path_of awk) || skip_all "no awk"
MKFIFO=$(path_of mkfifo) || skip_all "no mkfifo"

# svd's stdout goes to $T/out, its stderr to its log as usual.
printf 'exec "$@" >"%s/out"\n' "$T" >"$T/to-out"
# svd's stdout is a FIFO that is open for reading (so no EOF) but never read.
printf 'exec 3<>"%s/fifo"; exec "$@" >"%s/fifo"\n' "$T" "$T" >"$T/to-fifo"
$MKFIFO "$T/fifo" || bail_out "mkfifo failed"

# chatty: a line on stdout, one on stderr, one of 10000 bytes, then waits.
cat >"$T/chatty.sh" <<'EOF'
echo "hello out"
echo "hello err" >&2
"$AWK" 'BEGIN { s = ""; for (i = 0; i < 10000; i++) s = s "x"; print s }'
echo "done"
exec "$SLEEP" 1000
EOF
write_unit chatty <<EOF
[Service]
ExecStart=$SH $T/chatty.sh
Environment=SLEEP=$SLEEP AWK=$AWK
[Install]
WantedBy=default.target
EOF
# apart: stderr to the log, stdout nowhere: a stream of its own, "stderr".
write_unit apart <<EOF
[Service]
ExecStart=$SH -c 'echo apart out; echo apart err >&2; exec $SLEEP 1000'
StandardOutput=null
StandardError=journal
[Install]
WantedBy=default.target
EOF

SVD_WRAPPER="$SH $T/to-out"
start_svd --forward-output
check "stdout lines reach svd's stdout, prefixed" wait_until 10 grep -qx "chatty: done" "$T/out"
check "... 'hello out' too" grep -qx "chatty: hello out" "$T/out"
check "stderr lines, one stream with stdout, reach svd's stdout" grep -qx "chatty: hello err" "$T/out"
check "a stderr of its own reaches svd's stderr" wait_until 10 grep -qx "apart: apart err" "$SVD_LOG"
check "... and not its stdout" sh -c '! grep -q "apart" "$1"' sh "$T/out"
# 10000 bytes: cut at 4096 as in the ring, every piece on a line of its own.
expect_eq "the long line in pieces of 4096, 4096 and 1808 bytes" "4104 4104 1816" \
        "$($AWK '/^chatty: xxx/ { printf "%s%d", sep, length($0); sep = " " }' "$T/out")"
expect_eq "svctl logs has the same lines" 6 "$(svctl logs chatty -n 100 | grep -c 'hello\|xxx\|done')"
stop_svd

# ---- with the time ----
: >"$T/out"
start_svd --forward-output=time
check "=time: an ISO 8601 UTC time first" wait_until 10 grep -qE \
        '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z chatty: done$' "$T/out"
stop_svd
run "$SVD" --forward-output=bogus
expect_rc "--forward-output=bogus is refused" 1

# ---- the rate limit, and a stdout nobody reads ----
rm "$UNITS/chatty.service" "$UNITS/apart.service"
cat >"$T/flood.sh" <<'EOF'
"$AWK" 'BEGIN { for (i = 0; i < 30000; i++) print "line " i }'
# The next rate-limit interval: this line passes.
"$SLEEP" 1.5
echo "flood done"
exec "$SLEEP" 1000
EOF
write_unit flood <<EOF
[Service]
ExecStart=$SH $T/flood.sh
Environment=SLEEP=$SLEEP AWK=$AWK
[Install]
WantedBy=default.target
EOF
SVD_WRAPPER="$SH $T/to-out"
: >"$T/out"
start_svd --forward-output
check "flood: its last line comes" wait_until 30 grep -qx "flood: flood done" "$T/out"
N=$(grep -c '^flood: line ' "$T/out")
diag "$N of 30000 lines forwarded; logDropped $(svc_field flood logDropped)"
check "at most the rate limit (10000 lines a second) passes" test "$N" -le 30000
check "... and lines were dropped and counted" test "$(svc_field flood logDropped)" -gt 0
expect_eq "forwarded lines plus dropped ones make 30000" 30000 "$((N + $(svc_field flood logDropped)))"
stop_svd

SVD_WRAPPER="$SH $T/to-fifo"
start_svd --forward-output
check "stdout a full FIFO: the flood is read to its end all the same" wait_until 30 sh -c \
        '"$1" --socket "$2" logs flood | grep -q "flood done"' sh "$SVCTL" "$SOCK"
check "... svd answers" svctl status flood
check "... and says lines are not written" in_svd_log -q "svd's stdout is full: services' lines are not written there"
stop_svd
expect_eq "... and exits 0 on SIGTERM" 0 "$SVD_RC"

done_testing
