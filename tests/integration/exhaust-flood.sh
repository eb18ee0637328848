#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Services that flood their output into svd's log pipes: short lines as
# fast as yes(1) writes them, one endless line without a newline, random
# binary (invalid UTF-8, NUL bytes) on stdout and on stderr. While they
# run: svd answers status (latency sampled and printed), its memory stays
# bounded (VmRSS printed), `Logs` of every flooder answers with valid JSON,
# and the flooders keep running under the same processes. TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"
# shellcheck source=../lib/hostile.sh
. "$TESTS_DIR/lib/hostile.sh"

setup_test
hostile_setup

YES=$(path_of yes) || skip_all "no yes(1)"
CAT=$(path_of cat) || skip_all "no cat(1)"
[ -r /dev/urandom ] && [ -r /dev/zero ] || skip_all "no /dev/urandom or /dev/zero"

write_unit "$TAG-lines" <<EOF
[Service]
ExecStart=$YES 'a short line, again and again'
EOF
write_unit "$TAG-endless" <<EOF
[Service]
ExecStart=$SH -c 'while :; do printf %%01000d 0; done'
EOF
write_unit "$TAG-binary" <<EOF
[Service]
ExecStart=$CAT /dev/urandom
EOF
write_unit "$TAG-zeros-stderr" <<EOF
[Service]
ExecStart=$SH -c 'exec $CAT /dev/zero >&2'
EOF
FLOODERS="$TAG-lines $TAG-endless $TAG-binary $TAG-zeros-stderr"

start_svd
hostile_baseline

rss=$(rss_kb)
pids=
for f in $FLOODERS; do
        run svctl start "$f"
        expect_rc "$f starts" 0
        track_pid "$(svc_pid "$f")"
        pids="$pids $f=$(svc_pid "$f")"
done

cpu_ticks() {
        proc_stat "$SVD_PID" || return 0
        _rest=$(sed 's/.*) //' "/proc/$SVD_PID/stat")
        # shellcheck disable=SC2086
        set -- $_rest
        echo $((${12} + ${13}))
}

ticks0=$(cpu_ticks)
t0=$(now_ms)
max=0
i=0
while [ "$i" -lt 10 ]; do
        sleep 0.3
        measure_latency
        [ "$LAT_REPLY" = ok ] || not_ok "status during the flood (reply: $LAT_REPLY)"
        [ "$LAT_US" -gt "$max" ] && max=$LAT_US
        echo "# metric case='flood' sample=$i status_latency_ms=$(fmt_ms "$LAT_US") rss_kb=$(rss_kb)"
        i=$((i + 1))
done
t1=$(now_ms)
ticks1=$(cpu_ticks)
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
echo "# metric case='flood' max_status_latency_ms=$(fmt_ms "$max") svd_cpu_ms=$(((ticks1 - ticks0) * 1000 / hz)) wall_ms=$((t1 - t0)) rss_kb=$(rss_kb)"
if [ "$max" -lt "$HOSTILE_LATENCY_LIMIT_US" ]; then
        ok "status answered during the flood, at worst in $(fmt_ms "$max") ms"
else
        not_ok "status answered during the flood, at worst in $(fmt_ms "$max") ms"
fi

for f in $FLOODERS; do
        r=$(hostile call "{\"method\":\"io.svd.Manager.Logs\",\"parameters\":{\"name\":\"$f\",\"lines\":5}}")
        case $r in
        '{"parameters":{"lines":'*) ok "Logs of $f answers" ;;
        *)
                not_ok "Logs of $f answers"
                diag "$(printf '%s' "$r" | cut -c1-300)"
                ;;
        esac
done
run svctl logs -n 3 "$TAG-binary"
expect_rc "svctl logs of the binary flood exits 0" 0

now=
for f in $FLOODERS; do
        now="$now $f=$(svc_pid "$f")"
done
expect_eq "the flooders run on under the same processes" "$pids" "$now"
check_svd_unharmed "four services flooding their output" "$rss"

for f in $FLOODERS; do
        svctl stop "$f" >/dev/null 2>&1
done
done_testing
