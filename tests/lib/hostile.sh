# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Shared by tests/integration/hostile-*.sh and exhaust-*.sh; sourced after
# lib.sh, never run. POSIX sh, like lib.sh.
#
# After each hostile case, check_svd_unharmed asserts that one client's
# misbehaviour costs the others nothing: svd still answers `status` (measured with the hostile helper on a fresh
# connection and printed; asserted only against a loose bound, since tests
# avoid timing asserts), its memory stays bounded (VmRSS before and after,
# printed; asserted against a generous absolute bound), its fds come back to
# where they were (no connection leaks), and the services are untouched
# (same main pids and start times).
#
# Every measurement is also printed as one "# metric ..." line, so that a
# run's numbers can be collected with grep.
#
# shellcheck shell=sh disable=SC2034

# A loose bound for "answers status within 100 ms": generous, because a
# loaded CI machine or an emulator must not fail the suite on timing.
: "${HOSTILE_LATENCY_LIMIT_US:=$((1000000 * TIMEOUT_FACTOR))}"

# hostile_setup: finds the helper (skips everything without it), writes the
# services every hostile test keeps running ($S1 $S2 $S3), and sets
# RSS_LIMIT_KB. The names carry the script's name: svd instances share the
# cgroup tree (svd/NAME), so tests running side by side must not reuse a
# service name.
hostile_setup() {
        HOSTILE=$(find_helper hostile) || skip_all "the hostile helper (tests/lib/hostile.c) is not built"
        TAG=$(basename "$0" .sh)
        S1=$TAG-s1
        S2=$TAG-s2
        S3=$TAG-s3
        for _i in 1 2 3; do
                write_unit "$TAG-s$_i" <<EOF
[Unit]
Description=sleeper $_i, must survive every hostile client
[Service]
ExecStart=$SLEEP 1000$_i
[Install]
WantedBy=default.target
EOF
        done
        # ASan keeps freed memory in quarantine (256 MiB by default) and adds
        # shadow memory: the absolute bound has to know.
        if grep -q __asan_init "$SVD" 2>/dev/null; then
                RSS_LIMIT_KB=$((1024 * 1024))
                SVD_ASAN=1
        else
                RSS_LIMIT_KB=$((256 * 1024))
                SVD_ASAN=0
        fi
}

hostile() {
        "$HOSTILE" "$SOCK" "$@"
}

# rss_kb: svd's resident set, in KiB.
rss_kb() {
        sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$SVD_PID/status" 2>/dev/null
}

# fd_count: svd's open fds.
fd_count() {
        ls "/proc/$SVD_PID/fd" 2>/dev/null | wc -l
}

# socket_count: svd's open sockets: the listening and notify sockets plus
# one per client connection (services started meanwhile add pidfds and
# pipes, not sockets).
socket_count() {
        ls -l "/proc/$SVD_PID/fd" 2>/dev/null | grep -c 'socket:'
}

_fds_back() {
        [ "$(socket_count)" -le "$BASE_SOCKETS" ]
}

# core_pids: "NAME=PID:STARTTIME" of $S1..$S3; the services no hostile
# client may touch.
core_pids() {
        for _s in "$S1" "$S2" "$S3"; do
                _p=$(svc_pid "$_s")
                echo "$_s=$_p:$(pid_start "$_p")"
        done
}

# hostile_baseline: what check_svd_unharmed compares against. Call once the
# services run and svd has settled.
hostile_baseline() {
        wait_until 10 all_core_running || bail_out "$S1 $S2 $S3 did not start"
        BASE_PIDS=$(core_pids)
        BASE_FDS=$(fd_count)
        BASE_SOCKETS=$(socket_count)
        RSS_START=$(rss_kb)
        diag "baseline: svd pid $SVD_PID, $BASE_FDS fds ($BASE_SOCKETS sockets), VmRSS ${RSS_START} kB"
}

all_core_running() {
        state_is "$S1" running && state_is "$S2" running && state_is "$S3" running
}

# measure_latency: one Status call on a fresh connection; sets LAT_US and LAT_REPLY.
measure_latency() {
        _l=$(hostile latency "$S1")
        LAT_US=$(printf '%s\n' "$_l" | sed -n 's/^latency_us=\([0-9]*\).*/\1/p')
        LAT_REPLY=$(printf '%s\n' "$_l" | sed -n 's/.*reply=\([a-z]*\).*/\1/p')
        : "${LAT_US:=-1}"
}

# fmt_ms MICROSECONDS: "12.345"
fmt_ms() {
        printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000))
}

# check_svd_unharmed CASE RSS_BEFORE_KB: the checks after one hostile case.
check_svd_unharmed() {
        _case=$1
        _before=$2
        if ! pid_alive "$SVD_PID" "$SVD_START"; then
                not_ok "$_case: svd is still alive"
                bail_out "svd died during '$_case'"
        fi
        ok "$_case: svd is still alive"
        # Right after the case svd may still be closing what the client left
        # (sd-event dispatches one source per loop iteration, so n connections
        # hung up at once take O(n) iterations); printed, not asserted.
        measure_latency
        _first_us=$LAT_US
        _first_reply=$LAT_REPLY
        if wait_until 10 _fds_back; then
                ok "$_case: every connection closed (sockets back to $BASE_SOCKETS)"
        else
                not_ok "$_case: every connection closed (sockets back to $BASE_SOCKETS)"
                diag "svd has $(fd_count) fds:" "$(ls -l "/proc/$SVD_PID/fd" 2>&1)"
        fi
        measure_latency
        _after=$(rss_kb)
        echo "# metric case='$_case' status_latency_ms=$(fmt_ms "$LAT_US") first_status_latency_ms=$(fmt_ms "$_first_us") rss_before_kb=$_before rss_after_kb=$_after"
        [ "$_first_reply" = ok ] || not_ok "$_case: status right after the case (reply: $_first_reply)"
        if [ "$LAT_REPLY" = ok ] && [ "$LAT_US" -ge 0 ] && [ "$LAT_US" -lt "$HOSTILE_LATENCY_LIMIT_US" ]; then
                ok "$_case: status answered in $(fmt_ms "$LAT_US") ms ($(fmt_ms "$_first_us") ms right after the case)"
        else
                not_ok "$_case: status answered in $(fmt_ms "$LAT_US") ms (reply: $LAT_REPLY)"
        fi
        if [ -n "$_after" ] && [ "$_after" -lt "$RSS_LIMIT_KB" ]; then
                ok "$_case: VmRSS $_before kB before, $_after kB after (bound $RSS_LIMIT_KB kB)"
        else
                not_ok "$_case: VmRSS $_before kB before, $_after kB after (bound $RSS_LIMIT_KB kB)"
        fi
        expect_eq "$_case: $S1 $S2 $S3 untouched (same main processes)" "$BASE_PIDS" "$(core_pids)"
}

# json_error REPLY: the error name of a reply line ("" for a success, the
# line itself for "closed"/"timeout").
json_error() {
        case $1 in
        closed | timeout) echo "$1" ;;
        *) json_field error "$1" || true ;;
        esac
}
