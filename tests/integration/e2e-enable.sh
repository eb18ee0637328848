#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Enabling, as a systemctl user expects it: `svctl enable` makes the link
# NAME.service -> ../NAME.service in the unit directory's
# default.target.wants/ (multi-user.target.wants/ for that target, the
# template's file for an instance), and the next svd starts the unit;
# `svctl disable` removes it, and holds back a unit whose own file says
# WantedBy=default.target with a link to /dev/null, so that it does not
# start after a restart either; links made by hand count too. --now starts
# and stops; is-enabled prints systemctl's states with its exit codes;
# list-unit-files lists them; a static unit, an unknown name, a template
# and a read-only unit directory each get their message and exit status.
# Last, how enabling meets the operator's starts and stops that a restore
# after a crash uses: disabling a unit that runs keeps it wanted until svd
# stops cleanly. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

unit() { # unit NAME [INSTALL LINE]
        {
                printf '[Service]\nExecStart=%s 1000\n' "$SLEEP"
                [ -z "${2:-}" ] || printf '[Install]\n%s\n' "$2"
        } | write_unit "$1"
}

unit def "WantedBy=default.target"
unit mu "WantedBy=multi-user.target"
unit lone
unit handmade
unit held "WantedBy=default.target"
unit other "WantedBy=graphical.target"
unit extra "WantedBy=multi-user.target"
unit bundle "Also=lone.service extra"
unit web@ "WantedBy=default.target"

WANTS=$UNITS/default.target.wants

# flat TEXT: its words on one line, one space apart (output of several lines compared at once).
flat() {
        printf '%s\n' "$1" | tr -s ' \n' '  ' | sed 's/ $//'
}

# states NAME...: "NAME=STATE ..." for a compact comparison.
states() {
        _o=
        for _n in "$@"; do
                _o="$_o $_n=$(svc_state "$_n")"
        done
        echo "${_o# }"
}

# restart_svd: a clean stop (the wanted file goes: the next svd starts what is enabled) and a start.
restart_svd() {
        TRACKED="$TRACKED $(service_pids)"
        stop_svd
        start_svd
}

# crash: kill -9 svd and wait for it (its services die with it).
crash() {
        TRACKED="$TRACKED $(service_pids)"
        kill -KILL "$SVD_PID"
        wait_until 10 svd_exited
        wait "$SVD_JOB" 2>/dev/null
        SVD_PID=
}

# Links an admin or a package made by hand: one to wherever the unit is, one to /dev/null.
mkdir "$WANTS"
ln -s /somewhere/else/handmade.service "$WANTS/handmade.service"
ln -s /dev/null "$WANTS/held.service"
ln -s /dev/null "$WANTS/extra.service"

start_svd

# ---- what starts with svd, and the states ----
check "WantedBy=default.target starts with svd, as before" wait_until 10 state_is def running
check "... and WantedBy=multi-user.target" wait_until 10 state_is mu running
check "a link made by hand starts a unit without [Install]" wait_until 10 state_is handmade running
expect_eq "a link to /dev/null holds back a unit whose file says WantedBy=; the rest do not start" \
        "held=inactive extra=inactive lone=inactive other=inactive bundle=inactive" \
        "$(states held extra lone other bundle)"

run svctl is-enabled def mu handmade held lone other bundle web@ web@1
expect_rc "is-enabled exits 0 when one is enabled" 0
expect_eq "... one state a line, with systemd's names" \
        "enabled enabled enabled disabled static disabled indirect disabled disabled" "$(flat "$OUT")"
run svctl is-enabled held
expect_rc "is-enabled of a disabled unit exits 1" 1
expect_eq "... and prints disabled" disabled "$OUT"
run svctl is-enabled lone
expect_rc "is-enabled of a static unit exits 0, as systemctl's" 0
run svctl is-enabled -q held other
expect_rc "-q: nothing enabled, exit 1" 1
expect_eq "... and nothing printed" "" "$OUT"
run svctl is-enabled nope
expect_rc "is-enabled of an unknown name exits 4" 4
expect_eq "... and prints not-found" not-found "$OUT"
run svctl is-enabled nope def.service
expect_rc "... 0 when another one is enabled" 0
expect_eq "... each name its line" "not-found enabled" "$(flat "$OUT")"
run svctl --json is-enabled def
expect_eq "--json: the unit file as svd sends it" enabled "$(json_field state "$OUT")"
expect_eq "... with its path" "$UNITS/def.service" "$(json_field path "$OUT")"

run svctl list-unit-files
expect_rc "list-unit-files exits 0" 0
expect_eq "... a header, a line per unit file (templates, no instances), the count" \
        "UNIT FILE STATE bundle.service indirect def.service enabled extra.service disabled handmade.service enabled held.service disabled lone.service static mu.service enabled other.service disabled web@.service disabled 9 unit files listed." \
        "$(flat "$OUT")"
run svctl list-unit-files 'h*' mu.service
expect_eq "... patterns pick files" \
        "UNIT FILE STATE handmade.service enabled held.service disabled mu.service enabled 3 unit files listed." \
        "$(flat "$OUT")"
run svctl --json list-unit-files
expect_eq "--json: one object per unit file" 9 "$(count_lines "$OUT")"
expect_eq "... with the state" "held.service disabled" \
        "$(printf '%s\n' "$OUT" | json_fields name state | grep '^held')"
run svctl status mu
expect_contains "status says whether it is enabled" "$OUT" "Loaded: loaded ($UNITS/mu.service; enabled)"
run svctl show -p UnitFileState lone
expect_eq "show gives the state as UnitFileState=" "UnitFileState=static" "$OUT"

# ---- enable ----
run svctl enable held
expect_rc "enable of a held-back unit exits 0" 0
expect_eq "... the link to /dev/null is replaced by the link to the unit file" \
        ../held.service "$(readlink "$WANTS/held.service")"
expect_contains "... said as systemctl says it" "$ERR" \
        "Created symlink $WANTS/held.service → ../held.service."
expect_eq "... it does not start now" inactive "$(svc_state held)"
expect_eq "... is-enabled says enabled" enabled "$(svctl is-enabled held)"
run svctl enable held
expect_rc "enable again exits 0" 0
expect_eq "... and changes nothing" "" "$ERR"

run svctl enable mu
expect_eq "WantedBy=multi-user.target: the link goes into multi-user.target.wants/" \
        ../mu.service "$(readlink "$UNITS/multi-user.target.wants/mu.service")"

run svctl enable web@8080
expect_rc "enable of an instance exits 0" 0
expect_eq "... linked to its template's file" ../web@.service "$(readlink "$WANTS/web@8080.service")"
expect_eq "... it is known, not started" inactive "$(svc_state web@8080)"
run svctl is-enabled web@ web@8080 web@9090
expect_eq "... the template is indirect, the instance enabled, another disabled" \
        "indirect enabled disabled" "$(flat "$OUT")"

run svctl enable bundle
expect_rc "enable of a unit with Also= only exits 0" 0
expect_eq "... enables what its Also= names" ../extra.service "$(readlink "$UNITS/multi-user.target.wants/extra.service")"
check "... which is held back no more" test ! -e "$WANTS/extra.service"
expect_eq "... and nothing for the static one, nor itself" "indirect static" "$(flat "$(svctl is-enabled bundle lone)")"

run svctl enable lone
expect_rc "enable of a static unit exits 0, as systemctl's" 0
expect_contains "... with systemctl's words" "$ERR" \
        "The unit files have no installation config (WantedBy=, RequiredBy=, Also="
check "... and no link" test ! -e "$WANTS/lone.service"
run svctl enable -q lone
expect_eq "-q: no words" "" "$ERR"

run svctl enable nope
expect_rc "enable of an unknown unit exits 4" 4
expect_contains "... saying so" "$ERR" "Failed to enable 'nope': Unit nope.service not found."
run svctl disable nope
expect_rc "disable of an unknown unit exits 4" 4
run svctl enable web@
expect_rc "enable of a template itself exits 1" 1
expect_contains "... saying why" "$ERR" "Failed to enable 'web@': a template is enabled as an instance"
run svctl enable other
expect_rc "enable of a unit wanted by a target svd does not start exits 1" 1
expect_contains "... saying which" "$ERR" "WantedBy=graphical.target names no target svd starts"

# A unit file added since the last load is known after a reload, as for start.
unit late "WantedBy=multi-user.target"
run svctl enable late
expect_rc "enable of a file svd has not loaded yet: unknown" 4
svctl daemon-reload >/dev/null
run svctl enable late
expect_rc "... known after daemon-reload" 0

# ---- the next svd starts what is enabled ----
restart_svd
check "after a restart, the enabled unit that was held back runs" wait_until 10 state_is held running
check "... and the instance" wait_until 10 state_is web@8080 running
check "... and the unit added by reload" wait_until 10 state_is late running
check "... and the one enabled through Also=" wait_until 10 state_is extra running
expect_eq "... and nothing else" "lone=inactive other=inactive bundle=inactive web@9090=" \
        "$(states lone other bundle web@9090)"

# ---- disable ----
run svctl disable def
expect_rc "disable of a WantedBy=default.target unit exits 0" 0
expect_eq "... holds it back with a link to /dev/null" /dev/null "$(readlink "$WANTS/def.service")"
expect_contains "... said as systemctl says it" "$ERR" "Created symlink $WANTS/def.service → /dev/null."
expect_eq "... it keeps running" running "$(svc_state def)"
run svctl is-enabled def
expect_eq "... is-enabled says disabled" disabled "$OUT"
run svctl disable web@8080 held
expect_rc "disable of two units exits 0" 0
check "... the instance's link is gone" test ! -e "$WANTS/web@8080.service"
expect_contains "... as systemctl says it" "$ERR" "Removed \"$WANTS/web@8080.service\"."
expect_eq "... the other is held back" /dev/null "$(readlink "$WANTS/held.service")"
run svctl disable handmade
expect_rc "disable of a unit a link made by hand enables" 0
check "... removes that link" test ! -e "$WANTS/handmade.service"
run svctl enable --now web@8080 web@9090
expect_rc "enable --now exits 0" 0
check "... both instances run" wait_until 10 sh -c '
        for n in web@8080 web@9090; do
                "$0" --socket "$1" is-active -q "$n" || exit 1
        done' "$SVCTL" "$SOCK"
expect_eq "... and are enabled" "enabled enabled" "$(flat "$(svctl is-enabled web@8080 web@9090)")"
run svctl disable --now late web@9090
expect_rc "disable --now exits 0" 0
expect_eq "... both stopped" "late=inactive web@9090=inactive" "$(states late web@9090)"
expect_eq "... late's link is gone, a link to /dev/null holds it back" "- /dev/null" \
        "$(readlink "$UNITS/multi-user.target.wants/late.service" || echo -) $(readlink "$WANTS/late.service")"

restart_svd
check "after a restart, the enabled instance runs" wait_until 10 state_is web@8080 running
expect_eq "... the disabled units do not, WantedBy=default.target or not" \
        "def=inactive held=inactive late=inactive handmade=inactive web@9090=" \
        "$(states def held late handmade web@9090)"
run svctl enable def
expect_eq "enable undoes the hold" ../def.service "$(readlink "$WANTS/def.service")"

# ---- a unit directory svd cannot write ----
# As root a read-only bind mount (root writes through any mode), else no write permission.
RO=
if [ "$(id -u)" -eq 0 ]; then
        mount --bind "$UNITS" "$UNITS" && RO=mount && mount -o remount,bind,ro "$UNITS"
        WHY="Read-only file system"
else
        chmod a-w "$UNITS" "$WANTS" && RO=chmod
        WHY="Permission denied"
fi
if [ -n "$RO" ] && ! touch "$WANTS/.probe" 2>/dev/null; then
        run svctl enable mu held
        expect_rc "enable in a read-only unit directory exits 1" 1
        expect_contains "... naming the file and the reason" "$ERR" \
                "Failed to enable 'held': cannot write '$WANTS/held.service': $WHY"
        expect_eq "... and changes nothing" /dev/null "$(readlink "$WANTS/held.service")"
        run svctl disable def
        expect_rc "disable too" 1
        expect_contains "... naming the file and the reason" "$ERR" "'$WANTS/def.service': $WHY"
        check "svd's log names the refused call" \
                grep -q "io.svd.Manager.DisableUnitFile {\"name\":\"def\"} by uid" "$SVD_LOG"
else
        skip "enable and disable in a read-only unit directory" "the unit directory could not be made read-only"
fi
case $RO in
mount) umount "$UNITS" ;;
chmod) chmod u+w "$UNITS" "$WANTS" ;;
esac
rm -f "$WANTS/.probe"

# ---- enabling and the restore after a crash ----
# Enabling is about the next clean start: a unit disabled while it was wanted stays wanted for a
# restore, one enabled while it was not stays unwanted; an operator's stop stays as it was.
restart_svd
check "def, enabled again, runs after a restart" wait_until 10 state_is def running
run svctl disable def
check "disable of a running unit keeps it wanted for a restore" grep -qx "start def" "$T/wanted"
run svctl enable held
check "enable of a unit that does not run keeps it unwanted" grep -qx "stop held" "$T/wanted"
run svctl stop mu
run svctl disable mu
check "an operator's stop stays as it was" grep -qx "stop mu" "$T/wanted"
crash
start_svd
check "after a crash, the disabled unit that ran runs again" wait_until 10 state_is def running
expect_eq "... the enabled one that did not run stays down, so does the one stopped by hand" \
        "held=inactive mu=inactive" "$(states held mu)"
restart_svd
check "after a clean restart, what is enabled starts" wait_until 10 state_is held running
expect_eq "... and what is disabled does not" "def=inactive mu=inactive" "$(states def mu)"

done_testing
