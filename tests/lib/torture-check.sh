#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# torture-check.sh SVCTL OPS NAME:MARKER:COUNT...: the crash torture's
# check, run by svd-crashtest after each recovery. From OPS (torture-
# storm.sh) each service's wanted state: that of its last acknowledged
# start/restart (runs) or stop (does not run). An operation that was sent
# and neither acknowledged nor refused for want of an svd (it may have
# happened before svd died) leaves it open, until a later acknowledged
# one. With no operation yet a service is stopped. Waits (30 s at most)
# until svd shows every service as wanted, then counts the processes whose
# command line is MARKER (its arguments joined with "+"): COUNT for one
# that runs (at most N for a flapping one: COUNT "maxN"), 0 for one that
# does not. A service may be running before its shell has forked what it
# forks: a count short of COUNT is looked at again (every 0.1 s, 5 s at
# most); any other difference fails at once. One line per service; exit 1
# on any difference.
svctl=$1
ops=$2
shift 2
spec="$*"

# Every service's wanted state, one pass over OPS: "NAME run|stop|any".
awk '
        $4 == "-" { next }
        $1 == "try" { if (tried[$4] != "") open[$4] = 1; tried[$4] = $2; seen[$4] = 1 }
        $1 == "ack" && $2 == tried[$4] { st[$4] = ($3 == "stop") ? "stop" : "run"; open[$4] = 0; tried[$4] = "" }
        $1 == "skip" && $2 == tried[$4] { tried[$4] = "" }
        END {
                for (s in seen)
                        print s, (open[s] || tried[s] != "") ? "any" : (st[s] == "" ? "stop" : st[s])
        }' "$ops" >"$ops.want"

# Every service's state from one List: "NAME STATE" lines.
states() {
        "$svctl" --json list 2>/dev/null | tr '{},' '\n\n\n' |
                sed -n 's/^ *"name": *"\([^"]*\)".*/N \1/p; s/^ *"state": *"\([^"]*\)".*/S \1/p' |
                awk '$1 == "N" { n = $2 } $1 == "S" && n != "" { print n, $2; n = "" }' >"$ops.states"
}

# verdict FINAL: 0 when every service is as wanted (FINAL=1: and has its
# processes, one line each).
verdict() {
        awk -v spec="$spec" -v final="$1" '
                FILENAME == ARGV[1] { want[$1] = $2; next }
                FILENAME == ARGV[2] { state[$1] = $2; next }
                FILENAME == ARGV[3] { cmd[$0]++; next }
                END {
                        n = split(spec, a, " ")
                        bad = 0
                        for (i = 1; i <= n; i++) {
                                split(a[i], f, ":")
                                name = f[1]; m = f[2]; c = f[3]
                                gsub(/\+/, "", m)
                                flap = c ~ /^max/
                                max = c; sub(/^max/, "", max); max += 0
                                w = (name in want) ? want[name] : "stop"
                                s = state[name]
                                have = cmd[m] + 0
                                if (w == "run")
                                        sok = s == "running" || (flap && (s == "starting" || s == "auto-restart" || s == "failed"))
                                else if (w == "stop")
                                        sok = s == "inactive" || s == "failed"
                                else
                                        sok = 1
                                if (!final) {
                                        if (!sok) bad = 1
                                        continue
                                }
                                if (w == "run")
                                        pok = flap ? have <= max : have == max
                                else if (w == "stop")
                                        pok = have == 0
                                else
                                        pok = have <= max
                                ok = sok && pok
                                printf "%s %s: wanted %s, state %s, %d processes (want %s)\n", ok ? "ok" : "WRONG", name, w, s, have, c
                                if (!ok) {
                                        bad = 1
                                        if (!(sok && w == "run" && !flap && have < max))
                                                other = 1
                                }
                        }
                        # 3: only processes not forked yet; 1: anything else.
                        exit bad ? (other ? 1 : 3) : 0
                }' "$ops.want" "$ops.states" "$ops.cmdlines"
}

: >"$ops.cmdlines"
start=$(date +%s)
while states && ! verdict 0; do
        if [ "$(date +%s)" -ge $((start + 30)) ]; then
                echo "not settled after 30 s"
                break
        fi
        sleep 0.1
done
echo "settled after $(($(date +%s) - start)) s"

# One pass over /proc: every process's command line, read by the shell,
# which drops the NUL bytes between the arguments ("sleep\0" "5" → "sleep5").
# A process with its parent's command line is a child between fork and exec
# (a flapping service's shell about to run sleep), not a second instance:
# it is left out.
cmdlines() {
        for d in /proc/[0-9]*; do
                c=
                { read -r c <"$d/cmdline"; } 2>/dev/null || :
                [ -n "$c" ] || continue
                s=
                { read -r s <"$d/stat"; } 2>/dev/null || :
                s=${s##*) }
                s=${s#* }
                pc=
                { read -r pc <"/proc/${s%% *}/cmdline"; } 2>/dev/null || :
                [ "$c" = "$pc" ] || printf '%s\n' "$c"
        done >"$ops.cmdlines"
}

tries=0
while :; do
        cmdlines
        states
        verdict 1 >"$ops.verdict"
        rc=$?
        tries=$((tries + 1))
        [ "$rc" = 3 ] && [ "$tries" -lt 50 ] || break
        sleep 0.1
done
[ "$tries" -gt 1 ] && echo "counted $tries times (a service's processes not forked yet)"
cat "$ops.verdict"
[ "$rc" = 0 ]
