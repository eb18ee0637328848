#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Hostile bytes on the control socket, end to end against a real svd: random
# bytes, a message that never ends, deeply nested JSON, every method called
# with every wrong parameter type, broken envelopes, and a valid call
# pipelined in front of garbage. After each: svd answers status (latency
# printed), VmRSS stays bounded (printed), no connection leaks, s1..s3 keep
# their main processes (tests/lib/hostile.sh). TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"
# shellcheck source=../lib/hostile.sh
. "$TESTS_DIR/lib/hostile.sh"

setup_test
hostile_setup
MANUAL=$TAG-manual
write_unit "$MANUAL" <<EOF
[Service]
ExecStart=$SLEEP 1004
EOF
start_svd
hostile_baseline

# ---- random bytes ----

rss=$(rss_kb)
closed=0
i=1
while [ "$i" -le 64 ]; do
        out=$(hostile random 65536 "$i")
        case $out in *closed=yes*) closed=$((closed + 1)) ;; esac
        i=$((i + 1))
done
expect_eq "random: 64 connections of 64 KiB random bytes each closed by svd" 64 "$closed"
out=$(hostile random 4194304 4242)
expect_contains "random: 4 MiB of random bytes: closed" "$out" "closed=yes"
diag "$out"
check_svd_unharmed "random bytes" "$rss"

# ---- a message that never ends ----

rss=$(rss_kb)
out=$(hostile endless 4194304)
expect_contains "endless: a 4 MiB message without NUL is cut off (limit 1 MiB)" "$out" "closed=yes"
sent=$(printf '%s\n' "$out" | sed -n 's/^sent=\([0-9]*\).*/\1/p')
# svd stops at the 1 MiB message limit; what the kernel's socket buffers
# take on top of that is not svd's memory.
diag "endless: svd closed after the client got $sent bytes out"
echo "# metric case='endless' bytes_sent_before_close=$sent"
check_svd_unharmed "endless message" "$rss"

# The same from ten clients at once.
rss=$(rss_kb)
pids=
i=0
while [ "$i" -lt 10 ]; do
        hostile endless 2097152 >"$T/endless.$i" &
        pids="$pids $!"
        i=$((i + 1))
done
failed=0
for p in $pids; do
        wait "$p" || failed=$((failed + 1))
done
expect_eq "endless: ten clients at once all cut off" 0 "$failed"
check_svd_unharmed "ten endless messages" "$rss"

# ---- deeply nested JSON ----

rss=$(rss_kb)
# Info takes no parameter: nesting within the limit gets InvalidParameter,
# beyond it the connection closes before jansson sees it.
out=$(hostile nested 16)
expect_eq "nested 16 deep: InvalidParameter" org.varlink.service.InvalidParameter "$(json_error "$out")"
out=$(hostile nested 62)
expect_eq "nested 64 deep (the limit): InvalidParameter" org.varlink.service.InvalidParameter "$(json_error "$out")"
out=$(hostile nested 63)
expect_eq "nested 65 deep: connection closed" closed "$out"
out=$(hostile nested 200000)
expect_eq "nested 200000 deep: connection closed" closed "$out"
check_svd_unharmed "deeply nested JSON" "$rss"

# ---- wrong types for every parameter of every method ----

rss=$(rss_kb)
# expect_invalid METHOD PARAMETERS FIELD
expect_invalid() {
        _r=$(hostile call "{\"method\":\"$1\",\"parameters\":$2}")
        _e=$(json_error "$_r")
        _p=$(json_field parameter "$_r" 2>/dev/null || true)
        if [ "$_e" = org.varlink.service.InvalidParameter ] && [ "$_p" = "$3" ]; then
                ok "$1 $2: InvalidParameter '$3'"
        else
                not_ok "$1 $2: InvalidParameter '$3'"
                diag "got: $_r"
        fi
}

wrong_values="5 -1 1.5 true false null [] [\"$S1\"] {} {\"name\":\"$S1\"}"
for m in Status Start Stop Restart; do
        for v in $wrong_values; do
                expect_invalid "io.svd.Manager.$m" "{\"name\":$v}" name
        done
        expect_invalid "io.svd.Manager.$m" '{}' name
        expect_invalid "io.svd.Manager.$m" "{\"name\":\"$S1\",\"extra\":1}" extra
        expect_invalid "io.svd.Manager.$m" "{\"Name\":\"$S1\"}" Name
done
for m in io.svd.Manager.Info io.svd.Manager.List org.varlink.service.GetInfo; do
        for v in $wrong_values '"x"'; do
                expect_invalid "$m" "{\"x\":$v}" x
        done
done
for v in $wrong_values; do
        expect_invalid org.varlink.service.GetInterfaceDescription "{\"interface\":$v}" interface
done
expect_invalid org.varlink.service.GetInterfaceDescription '{}' interface
expect_eq "after all that, 'manual' never started" inactive "$(svc_state "$MANUAL")"

# Strings that are the right type but no service: NoSuchService, naming it.
for name in '' ' ' "../$S1" "$S1/" "$S1.service.service" '\u00e9' "$S1\\n"; do
        r=$(hostile call "{\"method\":\"io.svd.Manager.Status\",\"parameters\":{\"name\":\"$name\"}}")
        # (dash's echo would turn the backslashes of the name into control characters)
        expect_eq "Status name '$(printf '%s' "$name" | tr '\\' '/')': NoSuchService" \
                io.svd.Manager.NoSuchService "$(json_error "$r")"
done
long=$(printf '%65536s' '' | tr ' ' x)
r=$(hostile call "{\"method\":\"io.svd.Manager.Start\",\"parameters\":{\"name\":\"$long\"}}")
expect_eq "Start of a 64 KiB name: NoSuchService" io.svd.Manager.NoSuchService "$(json_error "$r")"
check_svd_unharmed "wrong parameter types" "$rss"

# ---- broken envelopes: the connection is closed (as sd-varlink does) ----

rss=$(rss_kb)
for msg in \
        '{"method":5}' '{"method":null}' '{"method":["io.svd.Manager.Info"]}' \
        '{"method":"io.svd.Manager.Info","parameters":5}' \
        '{"method":"io.svd.Manager.Info","parameters":"x"}' \
        '{"method":"io.svd.Manager.Info","parameters":[]}' \
        '{"method":"io.svd.Manager.Info","more":"yes"}' '{"method":"io.svd.Manager.Info","oneway":1}' \
        '{"method":"io.svd.Manager.Info","more":true,"oneway":true}' \
        '{"method":"io.svd.Manager.Info","upgrade":null}' \
        '{"method":"io.svd.Manager.Info","bogus":1}' \
        '{"method":"io.svd.Manager.Info","method":"io.svd.Manager.List"}' \
        '{"parameters":{}}' '[]' '"io.svd.Manager.Info"' '42' 'null' '{' '' \
        '{"method":"io.svd.Manager.Status","parameters":{"name":1e400}}' \
        "$(printf '{"method":"io.svd.Manager.Status","parameters":{"name":"\377"}}')"; do
        r=$(hostile call "$msg")
        expect_eq "envelope $msg: connection closed" closed "$r"
done
check_svd_unharmed "broken envelopes" "$rss"

# ---- a call whose method is no method name, or whose parameter holds a NUL: an error, as for any
# other call that names no method or has a bad parameter, and the connection stays open ----

rss=$(rss_kb)
for m in '' 'Info' '.Info' 'io.svd.Manager.' 'io.svd.Manager.info' 'io.svd.Manager.St\u0000atus' '\u0000' 'io.svd.Manager.Info\u0000'; do
        out=$(hostile call "{\"method\":\"$m\"}" '{"method":"org.varlink.service.GetInfo"}')
        expect_eq "method '$(printf '%s' "$m" | tr '\\' '/')': MethodNotFound" org.varlink.service.MethodNotFound \
                "$(json_error "$(printf '%s\n' "$out" | sed -n 1p)")"
        expect_contains "... and the connection serves the next call" "$(printf '%s\n' "$out" | sed -n 2p)" '"vendor"'
done
# The log of misbehaving clients is rate-limited per window, and the cases above may have used
# this window up: a second svd, whose first call this is, shows the line.
NUL_SOCK=$T/nul.sock
"$SVD" --units "$UNITS" --socket "$NUL_SOCK" </dev/null >"$T/nul.log" 2>&1 &
NUL_SVD=$!
wait_until 20 test -S "$NUL_SOCK"
"$HOSTILE" "$NUL_SOCK" call '{"method":"io.svd.Manager.St\u0000atus"}' >/dev/null
kill -TERM "$NUL_SVD"
wait "$NUL_SVD"
check "a method name with a NUL is logged, escaped" grep -qF 'varlink: call of "io.svd.Manager.St\u0000atus" from uid' "$T/nul.log"
for p in '{"name":"\u0000"}' "{\"name\":\"$S1\\u0000x\"}"; do
        r=$(hostile call "{\"method\":\"io.svd.Manager.Status\",\"parameters\":$p}")
        expect_eq "Status $(printf '%s' "$p" | tr '\\' '/'): InvalidParameter" org.varlink.service.InvalidParameter \
                "$(json_error "$r")"
        expect_eq "... naming it" name "$(json_field parameter "$r")"
done
r=$(hostile call "{\"method\":\"io.svd.Manager.Start\",\"parameters\":{\"name\":\"$MANUAL\\u0000\"}}")
expect_eq "Start of a name with a NUL: InvalidParameter" org.varlink.service.InvalidParameter "$(json_error "$r")"
expect_eq "... and it did not start" inactive "$(svc_state "$MANUAL")"
check_svd_unharmed "NUL bytes in calls" "$rss"

# ---- a valid call pipelined in front of garbage still gets its reply ----

rss=$(rss_kb)
out=$(hostile batch "{\"method\":\"io.svd.Manager.Status\",\"parameters\":{\"name\":\"$S2\"}}" 'garbage' \
        '{"method":"io.svd.Manager.Info"}')
first=$(printf '%s\n' "$out" | sed -n 1p)
expect_eq "batch: the call before the garbage is answered" "$S2" "$(json_field name "$first")"
expect_eq "batch: ... then the connection closes, the call after it is not run" closed \
        "$(printf '%s\n' "$out" | sed -n 2p)"
out=$(hostile batch '{"method":"io.svd.Manager.Info","oneway":true}' \
        "{\"method\":\"io.svd.Manager.Status\",\"parameters\":{\"name\":\"$S3\"}}")
expect_eq "batch: a oneway call gets no reply, the next one does" "$S3" \
        "$(json_field name "$(printf '%s\n' "$out" | sed -n 1p)")"
check_svd_unharmed "garbage after a valid call" "$rss"

echo "# metric case='hostile-input total' rss_start_kb=$RSS_START rss_end_kb=$(rss_kb)"
done_testing
