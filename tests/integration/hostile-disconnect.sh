#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Clients that leave in the middle: a call sent and the connection closed at
# once, for every method; half a message and gone; a Start that is pending
# (the service is still stopping) whose caller disappears, alone and two
# hundred at a time; a Stop whose caller disappears; slow and vanishing
# readers of streams (Subscribe, Logs with follow) of a service that floods
# its output. The operation itself still completes; svd answers status
# (latency printed), VmRSS stays bounded (printed), no connection leaks, and
# the services not involved keep their main processes
# (tests/lib/hostile.sh). TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"
# shellcheck source=../lib/hostile.sh
. "$TESTS_DIR/lib/hostile.sh"

setup_test
hostile_setup

MANUAL=$TAG-manual
STUBBORN=$TAG-stubborn
FLOOD=$TAG-flood
write_unit "$MANUAL" <<EOF
[Service]
ExecStart=$SLEEP 1004
EOF
# Ignores SIGTERM: a Stop stays pending for TimeoutStopSec=, and a Start
# meanwhile waits behind it.
write_unit "$STUBBORN" <<EOF
[Service]
ExecStart=$SH -c 'trap "" TERM; while :; do $SLEEP 1; done'
TimeoutStopSec=3
EOF
# Writes as fast as it can into svd's log pipe.
YES=$(path_of yes) || YES=
if [ -n "$YES" ]; then
        write_unit "$FLOOD" <<EOF
[Service]
ExecStart=$YES 'flooding svd with one line after another'
EOF
fi
start_svd
hostile_baseline

call_json() { # METHOD [PARAMETERS]
        if [ -n "${2:-}" ]; then
                printf '{"method":"%s","parameters":%s}' "$1" "$2"
        else
                printf '{"method":"%s"}' "$1"
        fi
}

# ---- every method, the caller gone at once ----

rss=$(rss_kb)
# shellcheck disable=SC2089,SC2090 # each word is "METHOD [PARAMETERS]", split on purpose
for m in org.varlink.service.GetInfo io.svd.Manager.Info io.svd.Manager.List \
        'org.varlink.service.GetInterfaceDescription {"interface":"io.svd.Manager"}' \
        "io.svd.Manager.Status {\"name\":\"$S1\"}" "io.svd.Manager.Logs {\"name\":\"$S1\",\"lines\":100}" \
        'io.svd.Manager.ResetFailed' "io.svd.Manager.Kill {\"name\":\"$MANUAL\",\"signal\":15}" \
        'io.svd.Manager.Reload' 'io.svd.Manager.Nope' 'x.y.Z'; do
        # shellcheck disable=SC2086,SC2090 # method and parameters are two words
        msg=$(call_json $m)
        i=0
        while [ "$i" -lt 20 ]; do
                hostile send "$msg"
                hostile half "$msg"
                i=$((i + 1))
        done
        ok "20 times sent and gone, 20 times half sent: ${m%% *}"
done
check_svd_unharmed "read methods, caller gone" "$rss"

rss=$(rss_kb)
hostile send "$(call_json io.svd.Manager.Start "{\"name\":\"$MANUAL\"}")"
wait_until 10 state_is "$MANUAL" running
expect_eq "Start, caller gone at once: the service starts anyway" running "$(svc_state "$MANUAL")"
track_pid "$(svc_pid "$MANUAL")"
old=$(svc_pid "$MANUAL")
hostile send "$(call_json io.svd.Manager.Restart "{\"name\":\"$MANUAL\"}")"
wait_until 10 running_with_new_pid "$MANUAL" "$old"
check "Restart, caller gone at once: the service restarts anyway" running_with_new_pid "$MANUAL" "$old"
track_pid "$(svc_pid "$MANUAL")"
hostile send "$(call_json io.svd.Manager.Stop "{\"name\":\"$MANUAL\"}")"
wait_until 10 state_is "$MANUAL" inactive
expect_eq "Stop, caller gone at once: the service stops anyway" inactive "$(svc_state "$MANUAL")"
i=0
while [ "$i" -lt 20 ]; do
        hostile half "$(call_json io.svd.Manager.Start "{\"name\":\"$MANUAL\"}")"
        i=$((i + 1))
done
expect_eq "half a Start, 20 times: nothing starts" inactive "$(svc_state "$MANUAL")"
check_svd_unharmed "write methods, caller gone" "$rss"

# ---- a pending Start whose caller leaves ----

rss=$(rss_kb)
svctl start "$STUBBORN" >/dev/null 2>&1
track_pid "$(svc_pid "$STUBBORN")"
old=$(svc_pid "$STUBBORN")
expect_eq "stubborn runs" running "$(svc_state "$STUBBORN")"
# The Stop stays pending for TimeoutStopSec=3 (the service ignores SIGTERM).
svctl stop "$STUBBORN" >"$T/stop.out" 2>&1 &
stop_job=$!
wait_until 10 state_is "$STUBBORN" stopping
expect_eq "stubborn is stopping (SIGTERM ignored)" stopping "$(svc_state "$STUBBORN")"
# A Start now waits behind the Stop (and cancels the Stop's waiter); its
# caller disappears while it is pending.
hostile send "$(call_json io.svd.Manager.Start "{\"name\":\"$STUBBORN\"}")"
measure_latency
echo "# metric case='pending Start, caller gone (while stopping)' status_latency_ms=$(fmt_ms "$LAT_US") rss_kb=$(rss_kb)"
expect_eq "status answered while the Start is pending" ok "$LAT_REPLY"
wait "$stop_job"
stop_rc=$?
diag "svctl stop (overtaken by the Start): exit $stop_rc: $(cat "$T/stop.out")"
wait_until 15 running_with_new_pid "$STUBBORN" "$old"
check "the pending Start completes without its caller: stubborn runs again" running_with_new_pid "$STUBBORN" "$old"
track_pid "$(svc_pid "$STUBBORN")"
check_svd_unharmed "pending Start, caller gone" "$rss"

# Two hundred callers of the same pending Start, all gone.
rss=$(rss_kb)
old=$(svc_pid "$STUBBORN")
hostile send "$(call_json io.svd.Manager.Stop "{\"name\":\"$STUBBORN\"}")"
wait_until 10 state_is "$STUBBORN" stopping
start=$(call_json io.svd.Manager.Start "{\"name\":\"$STUBBORN\"}")
bg=
i=0
while [ "$i" -lt 200 ]; do
        hostile call "$start" >/dev/null 2>&1 &
        bg="$bg $!"
        i=$((i + 1))
done
sleep 1
# shellcheck disable=SC2086
kill $bg 2>/dev/null
for p in $bg; do
        wait "$p" 2>/dev/null
done
measure_latency
echo "# metric case='200 pending Starts, callers killed' status_latency_ms=$(fmt_ms "$LAT_US") rss_kb=$(rss_kb)"
wait_until 15 running_with_new_pid "$STUBBORN" "$old"
check "200 pending Starts whose callers were killed: stubborn runs again" running_with_new_pid "$STUBBORN" "$old"
track_pid "$(svc_pid "$STUBBORN")"
check_svd_unharmed "200 pending Starts, callers gone" "$rss"

# A pending Stop whose caller leaves: the service still stops.
rss=$(rss_kb)
hostile send "$(call_json io.svd.Manager.Stop "{\"name\":\"$STUBBORN\"}")"
wait_until 10 state_is "$STUBBORN" stopping
stopped() {
        case $(svc_state "$1") in inactive | failed) return 0 ;; esac
        return 1
}
wait_until 15 stopped "$STUBBORN"
check "pending Stop, caller gone: stubborn is stopped (SIGKILL after 3 s)" stopped "$STUBBORN"
check_svd_unharmed "pending Stop, caller gone" "$rss"

# ---- streams: slow readers and readers that vanish ----

rss=$(rss_kb)
sub='{"method":"io.svd.Manager.Subscribe","more":true}'
hostile stream 0 200 "$sub" >"$T/sub0"
expect_contains "Subscribe: the stream opens" "$(cat "$T/sub0")" "closed=no"
# A subscriber that never reads while states change under it.
hostile stream 4000 1000 "$sub" >"$T/sub1" &
sub_job=$!
i=0
while [ "$i" -lt 10 ]; do
        svctl start "$MANUAL" >/dev/null 2>&1
        track_pid "$(svc_pid "$MANUAL")"
        svctl stop "$MANUAL" >/dev/null 2>&1
        i=$((i + 1))
done
wait "$sub_job"
diag "slow subscriber: $(cat "$T/sub1")"
expect_contains "Subscribe: a reader that waits 4 s still gets its events" "$(cat "$T/sub1")" "closed=no"
i=0
while [ "$i" -lt 50 ]; do
        hostile send "$sub"
        i=$((i + 1))
done
ok "Subscribe: 50 subscribers gone at once"
check_svd_unharmed "Subscribe, slow and vanishing readers" "$rss"

if [ -n "$YES" ]; then
        rss=$(rss_kb)
        svctl start "$FLOOD" >/dev/null 2>&1
        track_pid "$(svc_pid "$FLOOD")"
        flood_pid=$(svc_pid "$FLOOD")
        follow="{\"method\":\"io.svd.Manager.Logs\",\"parameters\":{\"name\":\"$FLOOD\",\"lines\":10,\"follow\":true},\"more\":true}"
        hostile stream 0 1000 "$follow" >"$T/follow0"
        diag "fast follower of the flood, 1 s: $(cat "$T/follow0")"
        expect_contains "Logs -f of the flood: lines come" "$(cat "$T/follow0")" "closed=no"
        # A follower that does not read for 3 s: svd skips lines for it
        # (and says how many) instead of queueing without end. It reads
        # until svd's report of the skipped lines comes (bounded: 20 s, for
        # an svd slowed down by valgrind).
        hostile stream 3000 $((20000 * TIMEOUT_FACTOR)) "$follow" >"$T/follow1" &
        f_job=$!
        sleep 1
        rss_held=$(rss_kb)
        measure_latency
        echo "# metric case='flood + Logs -f reader not reading (held)' status_latency_ms=$(fmt_ms "$LAT_US") rss_kb=$rss_held"
        expect_eq "status answered while the flood goes on and a follower stalls" ok "$LAT_REPLY"
        wait "$f_job"
        diag "slow follower of the flood: $(cat "$T/follow1")"
        dropped=$(sed -n 's/.*dropped=\([0-9]*\).*/\1/p' "$T/follow1")
        if [ "${dropped:-0}" -gt 0 ]; then
                ok "Logs -f slow reader: svd reported $dropped lines skipped for it"
        else
                not_ok "Logs -f slow reader: svd reported lines skipped for it"
        fi
        i=0
        while [ "$i" -lt 50 ]; do
                hostile send "$follow"
                i=$((i + 1))
        done
        ok "Logs -f: 50 followers gone at once"
        expect_eq "the flood is still running under the same process" "$flood_pid" "$(svc_pid "$FLOOD")"
        check_svd_unharmed "Logs -f of a flood, slow and vanishing readers" "$rss"
        svctl stop "$FLOOD" >/dev/null 2>&1
else
        skip "Logs -f of a service that floods its output" "no yes(1)"
fi

echo "# metric case='hostile-disconnect total' rss_start_kb=$RSS_START rss_end_kb=$(rss_kb)"
done_testing
