#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Events: svctl watch (varlink Subscribe with "more") prints every state
# change live, one line each, or JSON lines with --json; it says on stderr
# once the subscription is in place, and exits 0 on SIGINT. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

write_unit web <<UNIT
[Service]
ExecStart=$SLEEP 1000
UNIT
write_unit oops <<UNIT
[Service]
ExecStart=$SH -c 'exit 3'
UNIT

start_svd

# watch_start FILE [--json]: a watcher writing to FILE, in the background
# (run directly, not through the svctl function: a background function is
# a subshell, which ignores SIGINT); waits until it is subscribed.
watch_start() {
        # shellcheck disable=SC2086
        "$SVCTL" --socket "$SOCK" ${2:-} watch >"$1" 2>"$1.err" &
        WATCH=$!
        wait_until 10 grep -q Watching "$1.err" 2>/dev/null
}

check "watch subscribes" watch_start "$T/watch.out"
run svctl start web
check "it prints the start: inactive → running" wait_until 10 grep -q "web: inactive → running" "$T/watch.out"
expect_contains "... with the pid" "$(cat "$T/watch.out")" "pid $(svc_pid web)"
run svctl stop web
check "it prints running → stopping" wait_until 10 grep -q "web: running → stopping" "$T/watch.out"
check "... and stopping → inactive" wait_until 10 grep -q "web: stopping → inactive" "$T/watch.out"
run svctl start oops
check "a failure shows with its result" wait_until 10 grep -q "oops: running → failed (result exit-code" "$T/watch.out"
kill -INT $WATCH
wait $WATCH
expect_eq "watch exits 0 on SIGINT" 0 "$?"

check "watch --json subscribes" watch_start "$T/watch.json" --json
run svctl start web
check "--json: one object per change" wait_until 10 grep -q '"name":"web","state":"running","previousState":"inactive"' "$T/watch.json"
LINE=$(grep '"state":"running"' "$T/watch.json")
expect_contains "--json: result" "$LINE" '"result":"success"'
expect_contains "--json: time" "$LINE" '"timeUsec":'
expect_contains "--json: pid" "$LINE" "\"pid\":$(svc_pid web)"
kill -INT $WATCH
wait $WATCH

# Two watchers see the same changes; a watcher that went away is no trouble.
check "two watchers" watch_start "$T/w1"
W1=$WATCH
check "... second" watch_start "$T/w2"
W2=$WATCH
kill -KILL $W1
wait $W1 2>/dev/null
run svctl restart web
check "the remaining watcher sees the restart" wait_until 10 grep -q "web: running → stopping" "$T/w2"
check "... and the new start" wait_until 10 grep -q "web: stopping → running" "$T/w2"
run svctl status web
expect_rc "svd is fine after a watcher vanished" 0
kill -INT $W2
wait $W2

done_testing
