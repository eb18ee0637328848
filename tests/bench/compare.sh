#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# svd against runit (runsvdir), s6 (s6-svscan) and supervisord, side by side
# in one run, plus floors (benchtool floor: clone3()+execve() of the same
# processes, nothing else; "floor" with CLONE_VM | CLONE_VFORK as svd spawns,
# "fork floor" with a copy of the address space per child, "cgroup floor"
# the floor with a cgroup per child made and cloned into as svd does: root
# with a writable cgroup2 only, else the log says why it is left out; and
# benchtool killfloor: N processes in one process group, one kill(-pgid,
# SIGKILL), the time to the last death, against which svd's kill -9 to the
# last death of its services is set). Not a ctest test: it installs
# packages (contrib/install-deps.sh --bench), builds, and runs for minutes.
#
#   tests/bench/compare.sh              # N = 10 100 1000, 3 runs (~15 min)
#   BENCH_QUICK=1 tests/bench/compare.sh    # N = 10 100, 1 run, few samples
#   BENCH_SCALE=1 tests/bench/compare.sh    # svd alone at N = 1000 5000 9000, 1 run
#
# For every N and run, each supervisor in turn is launched with N trivial
# services (bench-svc: one datagram "pid time" at the start of main(), then
# pause()) and measured: start-all (launch until N datagrams), memory of its
# own processes (RSS, PSS from smaps_rollup), a status query's round trip,
# stop-all, and in a second launch kill -9 of its top process (services
# alive 1 s later; relaunch; services running then). At the largest N also
# restart (SIGKILL a service until its successor reports) and idle wake-ups
# (context switches of its processes over a window). Each figure is the
# median over the runs; svd/peer ratios are taken run by run, then the
# median. With svd and runit both measured, at N >= 100 the two also run
# side by side, and `svctl status` and `sv status` are timed in turn (A B B
# A A B ...): the median of those pairs' ratios is the status comparison, as
# the two sessions' own medians are minutes apart. BENCH_SCALE=1 measures
# how svd's figures grow with N: svd alone by default, restart and
# `svctl list` at every N, and a "scale" table of each figure against the
# smallest N with its target (start-all and stop-all at most 5.6 % over
# linear: 9.5 x from 1000 to 9000; `svctl status NAME` at most 1.1 x;
# at most 8 KiB PSS of svd's processes per service), with beside them the
# floors' own growth, start-all against the cgroup floor at each N, and the
# status query timed in turn with `svctl --version` (the same exec without
# the call), so that what the kernel adds as N grows is told apart from
# what svd adds. Output: a markdown
# table on stdout and in $BENCH_OUT/results.md, raw numbers in raw.tsv, a
# chart in compare.png.
#
# Environment:
#   BENCH_N            service counts (default "10 100 1000"; quick "10 100";
#                      scale "1000 5000 9000")
#   BENCH_RUNS         runs (default 3; quick 1; scale 1)
#   BENCH_SUPERVISORS  default "svd runit s6 supervisord"; scale "svd"
#   BENCH_SCALE=1      the scale run (above); BENCH_QUICK=1 beside it takes
#                      the quick sample counts
#   BENCH_LIST=1       also time `svctl list` (svd only; default 1 in the scale
#                      run, else 0)
#   BENCH_RESTARTS     restart samples for svd and runit (default 50; quick 10)
#   BENCH_SLOW_RESTARTS  for s6 and supervisord, ~1 s each (default 10; quick 3)
#   BENCH_CONTROLS     status round trips (default 200; quick 50)
#   BENCH_SLOW_CONTROLS  for supervisorctl, ~1.5 s each at 1000 (default 20; quick 5)
#   BENCH_IDLE_SEC     idle window (default 15; quick 3)
#   BENCH_TIMEOUT_MS   bound of every single wait (default 120000)
#   BENCH_CRASH_WINDOW_MS  how long services are watched after kill -9 of
#                      the supervisor (default 1000; scale 30000: thousands
#                      take longer than a second to die, and the watch ends
#                      when the last has)
#   BENCH_OUT          results directory (default build/bench-results/DATE)
#   BENCH_SUPERVISORS  may also name svd-fallback: svd --mode=fallback
#                      (beside svd on a kernel with CLONE_PIDFD_AUTOKILL), and
#                      svd-base: the svd and svctl of the build directory
#                      BENCH_SVD_BASE (another commit's, to compare a change
#                      with what it changed, in the same runs)
#   BENCH_SVD_UNIT_EXTRA  lines added to svd's [Service] sections, separated by ';'
#                      (a sandboxing set, to measure what it costs)
#   BENCH_SVD_BASE_UNIT_EXTRA  the same for svd-base only (default: as
#                      BENCH_SVD_UNIT_EXTRA); with BENCH_SVD_BASE the same
#                      build, it measures a key against its absence
#   BENCH_TMPDIR       where the service directories go (default /tmp; /run for
#                      units with PrivateTmp=, which hides /tmp)
#   BENCH_NO_INSTALL=1 do not run install-deps.sh; SVD_BUILD build dir (build)
#   BENCH_NO_BUILD=1   use the build directory as it is (the lab's guest)
#   BENCH_ALLOW_SYSTEM_INSTANCES=1  run although a system runsvdir, s6-svscan
#                      or supervisord is up (it is never touched, but adds noise)
#
# Only processes this script started are ever signalled: it runs below
# `benchtool reaper` (a child subreaper), so whatever a crash orphans comes
# back to it, is counted there and is SIGKILLed at the end through pidfds.
# Service directories live on a private tmpfs mounted for the run (root), or
# under /dev/shm.

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${SVD_BUILD:-$SRC/build}
case $BUILD in /*) ;; *) BUILD=$SRC/$BUILD ;; esac
BT=$BUILD/tests/bench/benchtool
SVC=$BUILD/tests/bench/bench-svc
SVD=$BUILD/daemon/svd
SVCTL=$BUILD/ctl/svctl

die() {
        echo "compare.sh: $*" >&2
        exit 1
}

if [ -z "${BENCH_REAPED:-}" ]; then
        set -e
        if [ "${BENCH_NO_INSTALL:-0}" != 1 ]; then
                "$SRC/contrib/install-deps.sh" --bench
        fi
        if [ "${BENCH_NO_BUILD:-0}" != 1 ]; then
                cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
                cmake --build "$BUILD" -j"$(nproc)" --target svd svctl bench-svc benchtool >/dev/null
        fi
        set +e
        if [ "${BENCH_ALLOW_SYSTEM_INSTANCES:-0}" != 1 ]; then
                others=$("$BT" foreign runsvdir runsv s6-svscan s6-supervise supervisord)
                [ -z "$others" ] || die "system instances are running (stop them, e.g. 'systemctl stop runit supervisor',
or set BENCH_ALLOW_SYSTEM_INSTANCES=1; this script never touches them):
$others"
        fi
        BENCH_REAPED=1 exec "$BT" reaper sh "$0" "$@"
fi

REAPER=$PPID
SELF=$$
if [ "${BENCH_QUICK:-0}" = 1 ]; then
        ns_def="10 100" runs_def=1
        RESTARTS=${BENCH_RESTARTS:-10} SLOW_RESTARTS=${BENCH_SLOW_RESTARTS:-3}
        CONTROLS=${BENCH_CONTROLS:-50} SLOW_CONTROLS=${BENCH_SLOW_CONTROLS:-5}
        IDLE_SEC=${BENCH_IDLE_SEC:-3}
else
        ns_def="10 100 1000" runs_def=3
        RESTARTS=${BENCH_RESTARTS:-50} SLOW_RESTARTS=${BENCH_SLOW_RESTARTS:-10}
        CONTROLS=${BENCH_CONTROLS:-200} SLOW_CONTROLS=${BENCH_SLOW_CONTROLS:-20}
        IDLE_SEC=${BENCH_IDLE_SEC:-15}
fi
sups_def="svd runit s6 supervisord" window_def=1000
SCALE=${BENCH_SCALE:-0}
if [ "$SCALE" = 1 ]; then
        ns_def="1000 5000 9000" runs_def=1 sups_def=svd window_def=30000
fi
NS=${BENCH_N:-$ns_def} RUNS=${BENCH_RUNS:-$runs_def}
SUPS=${BENCH_SUPERVISORS:-$sups_def}
LIST=${BENCH_LIST:-$SCALE}
PAIR=0
case " $SUPS " in *" svd "*) case " $SUPS " in *" runit "*) PAIR=1 ;; esac ;; esac
TO=${BENCH_TIMEOUT_MS:-120000}
CRASH_WINDOW_MS=${BENCH_CRASH_WINDOW_MS:-$window_def}
OUT=${BENCH_OUT:-$BUILD/bench-results/$(date -u +%Y%m%dT%H%M%SZ)}
NMAX=$(printf '%s\n' $NS | sort -n | tail -n 1)
S6_MAX=$((NMAX + 100))

for tool in "$BT" "$SVC" "$SVD" "$SVCTL"; do
        [ -x "$tool" ] || die "$tool is not built"
done
for s in $SUPS; do
        case $s in
        svd | svd-fallback) ;;
        svd-base)
                [ -n "${BENCH_SVD_BASE:-}" ] || die "svd-base needs BENCH_SVD_BASE (a build directory)"
                [ -x "$BENCH_SVD_BASE/daemon/svd" ] && [ -x "$BENCH_SVD_BASE/ctl/svctl" ] ||
                        die "$BENCH_SVD_BASE has no daemon/svd and ctl/svctl built"
                ;;
        runit) command -v runsvdir >/dev/null || die "runsvdir not found (apt install runit)" ;;
        s6) command -v s6-svscan >/dev/null || die "s6-svscan not found (apt install s6)" ;;
        supervisord) command -v supervisord >/dev/null || die "supervisord not found (apt install supervisor)" ;;
        *) die "unknown supervisor '$s' (svd svd-fallback svd-base runit s6 supervisord)" ;;
        esac
done

mkdir -p "$OUT" || die "cannot create $OUT"
RAW=$OUT/raw.tsv
: >"$RAW"
W=$(mktemp -d "${BENCH_TMPDIR:-/tmp}/svdbench.XXXXXX") || die "mktemp failed"
MOUNTED=0
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=1g,mode=0755 svdbench "$W" 2>/dev/null; then
        MOUNTED=1
else
        rmdir "$W"
        W=$(mktemp -d /dev/shm/svdbench.XXXXXX) || die "mktemp in /dev/shm failed"
fi
cleanup() {
        "$BT" killorphans "$SELF" 0 10000 >/dev/null # our children (a supervisor, a collector)
        "$BT" killorphans "$REAPER" "$SELF" 10000 >/dev/null
        [ "$MOUNTED" = 0 ] || umount "$W"
        rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

log() {
        echo "compare.sh: $*" >&2
}

# rec RUN N KIND METRIC VALUE
rec() {
        printf '%s\t%s\t%s\t%s\t%s\n' "$@" >>"$RAW"
}

# field NAME LINE: the value of NAME=... in a benchtool result line
field() {
        printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# ---- per supervisor: directory, launch, status query, stop ----

# prepare KIND DIR N
prepare() {
        local _k _d _n _top _i _s
        _k=$1 _d=$2 _n=$3
        case $_k in
        svd | svd-fallback | svd-base)
                mkdir -p "$_d/units"
                _s=${BENCH_SVD_UNIT_EXTRA:-}
                [ "$_k" = svd-base ] && _s=${BENCH_SVD_BASE_UNIT_EXTRA-$_s}
                awk -v n="$_n" -v d="$_d" -v svc="$SVC" -v extra="$_s" 'BEGIN {
                        gsub(/;/, "\n", extra)
                        if (extra != "")
                                extra = extra "\n"
                        for (i = 0; i < n; i++) {
                                f = sprintf("%s/units/bench-%04d.service", d, i)
                                printf "[Unit]\nDescription=bench %d\nStartLimitIntervalSec=0\n[Service]\nExecStart=%s\nEnvironment=BENCH_SOCK=%s/r.sock\nRestart=always\nRestartSec=0\n%s[Install]\nWantedBy=default.target\n", i, svc, d, extra > f
                                close(f)
                        }
                }'
                ;;
        runit | s6)
                _top=$_d/service
                [ "$_k" = s6 ] && _top=$_d/scan
                mkdir -p "$_top"
                _i=0
                while [ "$_i" -lt "$_n" ]; do
                        _s=$(printf '%s/bench-%04d' "$_top" "$_i")
                        mkdir "$_s" && ln -s "$SVC" "$_s/run"
                        _i=$((_i + 1))
                done
                # runsvdir rescans a directory modified in the current second
                touch -d '@0' "$_top"
                ;;
        supervisord)
                mkdir -p "$_d/logs"
                {
                        printf '[supervisord]\nnodaemon=true\nuser=root\nlogfile=%s/supervisord.log\npidfile=%s/supervisord.pid\nchildlogdir=%s/logs\n' "$_d" "$_d" "$_d"
                        printf '[unix_http_server]\nfile=%s/supervisor.sock\n' "$_d"
                        printf '[rpcinterface:supervisor]\nsupervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface\n'
                        printf '[supervisorctl]\nserverurl=unix://%s/supervisor.sock\n' "$_d"
                        awk -v n="$_n" -v svc="$SVC" 'BEGIN {
                                for (i = 0; i < n; i++)
                                        printf "[program:bench-%04d]\ncommand=%s\nautorestart=true\n", i, svc
                        }'
                } >"$_d/supervisord.conf"
                [ "$(id -u)" = 0 ] || sed -i '/^user=root$/d' "$_d/supervisord.conf"
                ;;
        esac
}

# launch_cmd KIND DIR: the supervisor's command line, printed one word a line
launch_cmd() {
        case $1 in
        svd) printf '%s\n' "$SVD" -u "$2/units" -s "$2/svd.sock" ;;
        svd-fallback) printf '%s\n' "$SVD" --mode=fallback -u "$2/units" -s "$2/svd.sock" ;;
        svd-base) printf '%s\n' "$BENCH_SVD_BASE/daemon/svd" -u "$2/units" -s "$2/svd.sock" ;;
        runit) printf '%s\n' runsvdir "$2/service" ;;
        s6) printf '%s\n' s6-svscan -c "$S6_MAX" "$2/scan" ;; # -c: 500 services by default
        supervisord) printf '%s\n' supervisord -n -c "$2/supervisord.conf" ;;
        esac
}

# svctl_of KIND: the svctl that goes with an svd KIND
svctl_of() {
        case $1 in
        svd-base) echo "$BENCH_SVD_BASE/ctl/svctl" ;;
        *) echo "$SVCTL" ;;
        esac
}

# status_cmd KIND DIR: one status query of bench-0000 (set -- style, one word a line)
status_cmd() {
        case $1 in
        svd | svd-fallback | svd-base) printf '%s\n' "$(svctl_of "$1")" --socket="$2/svd.sock" status bench-0000 ;;
        runit) printf '%s\n' sv status "$2/service/bench-0000" ;;
        s6) printf '%s\n' s6-svstat "$2/scan/bench-0000" ;;
        supervisord) printf '%s\n' supervisorctl -c "$2/supervisord.conf" status bench-0000 ;;
        esac
}

# start_all KIND DIR N TIMEOUT_MS: launches; SUP_PID, START_MS, GOT
start_all() {
        local _k _d _n _to _c _l
        _k=$1 _d=$2 _n=$3 _to=$4
        rm -f "$_d/ready" "$_d/stamp"
        mkfifo "$_d/ready" || die "mkfifo $_d/ready failed"
        "$BT" collect "$_d/r.sock" "$_n" "$_to" "$_d/ready" "$_d/stamp" >"$_d/collect.out" &
        _c=$!
        # the collector is bound once it writes "ready"; bounded in case it fails first
        timeout 30 head -n 1 "$_d/ready" >/dev/null || die "collector did not start (see above)"
        IFS='
'
        # shellcheck disable=SC2046 # one word a line
        set -- $(launch_cmd "$_k" "$_d")
        unset IFS
        BENCH_SOCK=$_d/r.sock "$BT" stamp "$_d/stamp" "$@" >>"$_d/sup.log" 2>&1 &
        SUP_PID=$!
        wait "$_c"
        _l=$(cat "$_d/collect.out")
        GOT=$(field got "$_l")
        START_MS=$(field ms "$_l")
}

# stop_sup KIND DIR: stops SUP_PID the supervisor's own way; STOP_LINE
stop_sup() {
        case $1 in
        svd | svd-fallback | svd-base | supervisord) STOP_LINE=$("$BT" stopall "$SUP_PID" "$SVC" "$TO" 15) ;;
        runit) STOP_LINE=$("$BT" stopall "$SUP_PID" "$SVC" "$TO" 1) ;; # SIGHUP: runsvdir TERMs every runsv, exits
        s6) STOP_LINE=$("$BT" stopall "$SUP_PID" "$SVC" "$TO" -- s6-svscanctl -t "$2/scan") ;;
        esac
        if [ "$(field sup_ms "$STOP_LINE")" = "-1.000" ]; then
                log "$1 did not exit after stopping; SIGKILL to $SUP_PID (ours)"
                kill -9 "$SUP_PID"
        fi
        wait "$SUP_PID"
        "$BT" killorphans "$REAPER" "$SELF" "$TO" >/dev/null
}

restart_gap_ms() {
        case $1 in
        svd | svd-fallback | svd-base) echo 0 ;;
        *) echo 1100 ;; # runsv: a run under 1 s is restarted 1 s late; supervisord: startsecs=1
        esac
}

# session RUN KIND N
session() {
        local _run _k _n _l _c _to _left
        _run=$1 _k=$2 _n=$3
        D=$W/r$_run-n$_n-$_k
        mkdir -p "$D"
        prepare "$_k" "$D" "$_n"
        start_all "$_k" "$D" "$_n" "$TO"
        rec "$_run" "$_n" "$_k" start_got "$GOT" # the report names a start that fell short
        if [ "$GOT" != "$_n" ]; then
                log "run $_run: $_k started only $GOT of $_n within $TO ms (log: $OUT/fail-$_k-$_n.log)"
                cp "$D/sup.log" "$OUT/fail-$_k-$_n.log"
                kill -9 "$SUP_PID"
                wait "$SUP_PID"
                "$BT" killorphans "$REAPER" "$SELF" "$TO" >/dev/null
                rm -rf "$D"
                return 1
        fi
        rec "$_run" "$_n" "$_k" start_ms "$START_MS"
        if [ "$_k" = svd ] && [ ! -s "$OUT/svd-info.txt" ]; then
                "$SVCTL" --socket="$D/svd.sock" info >"$OUT/svd-info.txt" 2>&1
        fi
        case $_k in
        svd*)
                # the spawn mode, for the kill -9 figure: its target is autokill's
                case $("$(svctl_of "$_k")" --socket="$D/svd.sock" info 2>/dev/null | sed -n 's/^Mode: *//p') in
                autokill) rec "$_run" "$_n" "$_k" autokill 1 ;;
                fallback) rec "$_run" "$_n" "$_k" autokill 0 ;;
                esac
                ;;
        esac
        _l=$("$BT" mem "$SUP_PID" "$SVC")
        rec "$_run" "$_n" "$_k" procs "$(field procs "$_l")"
        rec "$_run" "$_n" "$_k" rss_kib "$(field rss_kib "$_l")"
        rec "$_run" "$_n" "$_k" pss_kib "$(field pss_kib "$_l")"
        if [ "$_n" = "$NMAX" ]; then
                _l=$("$BT" idle "$SUP_PID" "$SVC" $((IDLE_SEC * 1000)))
                rec "$_run" "$_n" "$_k" idle_per_min "$(field per_min "$_l")"
        fi
        _c=$CONTROLS
        [ "$_k" = supervisord ] && _c=$SLOW_CONTROLS
        IFS='
'
        # shellcheck disable=SC2046
        set -- $(status_cmd "$_k" "$D")
        unset IFS
        _l=$("$BT" lat "$_c" "$TO" "$@")
        [ "$(field rc "$_l")" = 0 ] && [ "$(field rc_other "$_l")" = 0 ] ||
                log "run $_run: $_k status query did not always exit 0: $_l"
        rec "$_run" "$_n" "$_k" ctl_med "$(field median_ms "$_l")"
        rec "$_run" "$_n" "$_k" ctl_p99 "$(field p99_ms "$_l")"
        rec "$_run" "$_n" "$_k" ctl_samples "$(field samples "$_l")"
        case $SCALE:$_k in
        1:svd*)
                # the status query in turn with `svctl --version`, which execs the same binary
                # and makes no call: how much of the query's growth with N is the exec's
                _l=$("$BT" latpair "$CONTROLS" "$TO" "$@" -- "$(svctl_of "$_k")" --version)
                [ "$(field rc "$_l")" = 0 ] && [ "$(field rc_other "$_l")" = 0 ] ||
                        log "run $_run: $_k status query against svctl --version did not always exit 0: $_l"
                rec "$_run" "$_n" "$_k" ctl_vs_exec_a "$(field a_median_ms "$_l")"
                rec "$_run" "$_n" "$_k" ctl_exec_med "$(field b_median_ms "$_l")"
                ;;
        esac
        case $LIST:$_k in
        1:svd*)
                _l=$("$BT" lat "$CONTROLS" "$TO" "$(svctl_of "$_k")" --socket="$D/svd.sock" list)
                if [ "$(field rc "$_l")" != 0 ] || [ "$(field rc_other "$_l")" != 0 ]; then
                        log "run $_run: $_k svctl list did not always exit 0: $_l"
                fi
                rec "$_run" "$_n" "$_k" list_med "$(field median_ms "$_l")"
                rec "$_run" "$_n" "$_k" list_p99 "$(field p99_ms "$_l")"
                ;;
        esac
        if [ "$_n" = "$NMAX" ] || [ "$SCALE" = 1 ]; then
                _c=$RESTARTS
                case $_k in s6 | supervisord) _c=$SLOW_RESTARTS ;; esac
                _l=$("$BT" restart "$D/r.sock" "$SUP_PID" "$SVC" "$_c" "$(restart_gap_ms "$_k")" 10000) ||
                        log "run $_run: $_k restart: $_l"
                rec "$_run" "$_n" "$_k" restart_med "$(field median_ms "$_l")"
                rec "$_run" "$_n" "$_k" restart_p99 "$(field p99_ms "$_l")"
                rec "$_run" "$_n" "$_k" restart_samples "$(field samples "$_l")"
        fi
        stop_sup "$_k" "$D"
        [ "$(field left "$STOP_LINE")" = 0 ] || log "run $_run: $_k stop-all left services: $STOP_LINE"
        rec "$_run" "$_n" "$_k" stop_ms "$(field dead_ms "$STOP_LINE")"
        rm -rf "$D"

        # crash: kill -9 of the top process, then a relaunch over what is left
        mkdir -p "$D"
        prepare "$_k" "$D" "$_n"
        start_all "$_k" "$D" "$_n" "$TO"
        [ "$GOT" = "$_n" ] || log "run $_run: $_k (crash launch) started only $GOT of $_n"
        _l=$("$BT" crash "$SUP_PID" "$SVC" "$CRASH_WINDOW_MS")
        rec "$_run" "$_n" "$_k" crash_window_ms "$CRASH_WINDOW_MS"
        wait "$SUP_PID"
        rec "$_run" "$_n" "$_k" crash_alive "$(field alive "$_l")"
        case $_k in svd*)
                rec "$_run" "$_n" "$_k" crash_last_ms "$(field last_dead_ms "$_l")"
                rec "$_run" "$_n" "$_k" crash_first_ms "$(field first_dead_ms "$_l")"
                rec "$_run" "$_n" "$_k" crash_root_ms "$(field root_dead_ms "$_l")" ;;
        esac
        _to=$(awk -v s="$START_MS" 'BEGIN { t = 3 * s; if (t < 3000) t = 3000; printf "%d", t }')
        start_all "$_k" "$D" "$_n" "$_to"
        rec "$_run" "$_n" "$_k" relaunch_new "$GOT"
        rec "$_run" "$_n" "$_k" relaunch_count "$("$BT" count "$REAPER" "$SVC")"
        stop_sup "$_k" "$D"
        _left=$("$BT" count "$REAPER" "$SVC")
        [ "$_left" = 0 ] || die "$_left service processes left after cleaning up $_k"
        rm -rf "$D"
}

# status_pair RUN N: svd and runit up side by side with N services each,
# `svctl status` and `sv status` run in turn; the median of the pairs'
# ratios is the comparison, free of the drift between two sessions.
status_pair() {
        local _run _n _ds _dr _ps _l _a
        _run=$1 _n=$2
        _ds=$W/r$_run-n$_n-pair-svd _dr=$W/r$_run-n$_n-pair-runit
        mkdir -p "$_ds" "$_dr"
        prepare svd "$_ds" "$_n"
        prepare runit "$_dr" "$_n"
        start_all svd "$_ds" "$_n" "$TO"
        _ps=$SUP_PID
        [ "$GOT" = "$_n" ] || log "run $_run: svd (status pair) started only $GOT of $_n"
        start_all runit "$_dr" "$_n" "$TO"
        [ "$GOT" = "$_n" ] || log "run $_run: runit (status pair) started only $GOT of $_n"
        IFS='
'
        # shellcheck disable=SC2046 # one word a line
        set -- $(status_cmd svd "$_ds") -- $(status_cmd runit "$_dr")
        unset IFS
        _l=$("$BT" latpair "$CONTROLS" "$TO" "$@")
        [ "$(field rc "$_l")" = 0 ] && [ "$(field rc_other "$_l")" = 0 ] ||
                log "run $_run: a paired status query did not exit 0: $_l"
        rec "$_run" "$_n" svd ctl_pair_ratio "$(field ratio_median "$_l")"
        rec "$_run" "$_n" svd ctl_pair_med "$(field a_median_ms "$_l")"
        rec "$_run" "$_n" runit ctl_pair_med "$(field b_median_ms "$_l")"
        stop_sup runit "$_dr"
        SUP_PID=$_ps
        stop_sup svd "$_ds"
        _a=$("$BT" count "$REAPER" "$SVC")
        [ "$_a" = 0 ] || die "$_a service processes left after the status pair"
        rm -rf "$_ds" "$_dr"
}

# cgroup_floor RUN N: the floor with a cgroup per child, where this run may
# make cgroups; where not (not root, no writable cgroup2), the reason goes
# to the log and to cgroupfloor.txt, which the report quotes.
cgroup_floor() {
        _cgl=$("$BT" floor "$W/floor.sock" "$2" "$TO" "$SVC" cgroup)
        case $? in
        0)
                rec "$1" "$2" cgroupfloor start_ms "$(field ms "$_cgl")"
                [ -s "$OUT/cgroupfloor.txt" ] ||
                        echo "a cgroup per child below $(dirname "$(field cgroup "$_cgl")")/svdbench-cgfloor.PID, controllers: $(field controllers "$_cgl")" >"$OUT/cgroupfloor.txt"
                ;;
        3)
                if [ ! -s "$OUT/cgroupfloor.txt" ]; then
                        log "cgroup floor skipped: ${_cgl#skip: }"
                        echo "skipped: ${_cgl#skip: }" >"$OUT/cgroupfloor.txt"
                fi
                ;;
        *) log "run $1: cgroup floor at N=$2 failed: $_cgl" ;;
        esac
}

# kill_floor RUN N killfloor|autokillfloor [cgroup]: one kill floor, recorded as killfloor,
# killcgfloor, autokillfloor or autokillcgfloor; a skip (no flags in the kernel, no cgroup of our
# own) is logged once, at the first run and N.
kill_floor() {
        _kind=$3
        [ -n "${4:-}" ] && _kind=${3%floor}cgfloor
        # shellcheck disable=SC2086 # no word when there is no 4th
        _l=$("$BT" "$3" "$W/floor.sock" "$2" "$TO" "$SVC" ${4:-})
        case $_l in
        skip:*) [ "$1" = 1 ] && [ "$2" = "${NS%% *}" ] && log "$_kind: ${_l#skip: }" ;;
        *) if [ "$(field left "$_l")" = 0 ]; then
                rec "$1" "$2" "$_kind" crash_last_ms "$(field dead_ms "$_l")"
           else
                log "run $1: $_kind at N=$2 did not see every process die: $_l"
           fi ;;
        esac
}

# ---- the run ----

{
        echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
        echo "machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(nproc) cores, $(awk '/MemTotal/ { printf "%d MiB", $2 / 1024 }' /proc/meminfo), kernel $(uname -r)"
        echo "svd: $(git -C "$SRC" describe --always --dirty 2>/dev/null)"
        for p in runit s6 supervisor; do
                echo "$p: $(dpkg-query -W -f='${Version}' "$p" 2>/dev/null)"
        done
        echo "config: N=\"$NS\" runs=$RUNS restarts=$RESTARTS/$SLOW_RESTARTS controls=$CONTROLS/$SLOW_CONTROLS idle=${IDLE_SEC}s crash window=${CRASH_WINDOW_MS}ms scale=$SCALE list=$LIST tmpfs=$W"
        echo "NOFILE: $(awk '/^Max open files/ { print "soft " $4 ", hard " $5 }' /proc/self/limits) (svd and benchtool raise soft to hard)"
} >"$OUT/machine.txt"

t_begin=$(date +%s)
run=1
while [ "$run" -le "$RUNS" ]; do
        for n in $NS; do
                log "run $run/$RUNS, N=$n: floors (vfork, fork, cgroup, kill, autokill)"
                _l=$("$BT" floor "$W/floor.sock" "$n" "$TO" "$SVC" vfork)
                rec "$run" "$n" floor start_ms "$(field ms "$_l")"
                _l=$("$BT" floor "$W/floor.sock" "$n" "$TO" "$SVC" fork)
                rec "$run" "$n" forkfloor start_ms "$(field ms "$_l")"
                cgroup_floor "$run" "$n"
                kill_floor "$run" "$n" killfloor
                # what a cgroup per process adds to the deaths, as svd contains its services
                kill_floor "$run" "$n" killfloor cgroup
                # where the kernel has CLONE_PIDFD_AUTOKILL: the kernel's own time to end N autokilled
                # children of a process that is SIGKILLed (skipped, with the reason, elsewhere)
                kill_floor "$run" "$n" autokillfloor
                kill_floor "$run" "$n" autokillfloor cgroup
                for k in $SUPS; do
                        log "run $run/$RUNS, N=$n: $k"
                        session "$run" "$k" "$n"
                done
                if [ "$PAIR" = 1 ] && [ "$n" -ge 100 ]; then
                        log "run $run/$RUNS, N=$n: svctl status and sv status in turn"
                        status_pair "$run" "$n"
                fi
        done
        run=$((run + 1))
done
log "measured in $(($(date +%s) - t_begin)) s; results in $OUT"

report_mode=
[ "$SCALE" = 1 ] && report_mode=scale
sh "$SRC/tests/bench/report.sh" "$OUT" "$NS" "$SUPS" $report_mode | tee "$OUT/results.md"
