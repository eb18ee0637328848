#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Condition*= and Assert*= as systemd.unit(5) describes them: checked at each
# start (automatic restarts included); a condition not met skips the start and
# leaves the unit inactive, not failed, and a unit that Requires= it still
# starts; an assertion not met fails the start; '!' negates, '|' makes a
# triggering condition, an empty assignment resets. TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

# mark.sh NAME: records that NAME ran, then stays.
cat >"$T/mark.sh" <<EOF
echo ran >>"$T/\$1.ran"
exec $SLEEP 1000
EOF

unit_with() {
        _name=$1
        shift
        {
                echo "[Unit]"
                for _l in "$@"; do echo "$_l"; done
                echo "[Service]"
                echo "ExecStart=$SH $T/mark.sh $_name"
        } | write_unit "$_name"
}

unit_with cond-path "ConditionPathExists=$T/flag"
unit_with cond-neg "ConditionPathExists=!$T/flag"
unit_with cond-trig "ConditionPathExists=|$T/nope1" "ConditionPathExists=|$T/flag" "ConditionPathIsDirectory=$T"
unit_with cond-trig-none "ConditionPathExists=|$T/nope1" "ConditionPathExists=|$T/nope2"
unit_with cond-reset "ConditionPathExists=$T/nope1" "ConditionHost=no-such-host-name" "ConditionPathExists="
unit_with assert-path "AssertPathExists=$T/nope1"
unit_with needs-skipped "Requires=cond-neg" "After=cond-neg"
unit_with needs-asserted "Requires=assert-path" "After=assert-path"
unit_with cond-kinds "ConditionPathIsDirectory=$T" "ConditionPathIsSymbolicLink=$T/link" \
        "ConditionFileIsExecutable=$T/exe" "ConditionFileNotEmpty=$T/exe" "ConditionDirectoryNotEmpty=$T" \
        "ConditionPathExistsGlob=$T/ex*" "ConditionPathIsReadWrite=$T" "ConditionUser=$(id -u)" \
        "ConditionGroup=$(id -g)" "ConditionEnvironment=SVD_E2E_COND=on" "ConditionHost=$(cat /proc/sys/kernel/hostname)" "ConditionSecurity=!no-such-module" "ConditionCPUs=>=1"
unit_with cond-env-off "ConditionEnvironment=SVD_E2E_COND=off"
unit_with cond-virt-yes "ConditionVirtualization=yes"
unit_with cond-virt-no "ConditionVirtualization=no"
unit_with cond-ac-yes "ConditionACPower=yes"
unit_with cond-ac-no "ConditionACPower=no"
{
        echo "[Unit]"
        echo "ConditionPathExists=$T/flag"
        echo "[Service]"
        echo "ExecStart=$SH $T/mark.sh cond-restart"
        echo "Restart=always"
        echo "RestartSec=100ms"
} | write_unit cond-restart

# What this machine is, found the way systemd-detect-virt documents it: a
# container's marker file, else a hypervisor's DMI vendor.
VIRT=
if [ -e /.dockerenv ]; then
        VIRT=docker
elif [ -e /run/.containerenv ]; then
        VIRT=podman
elif grep -qs '^QEMU' /sys/class/dmi/id/sys_vendor /sys/class/dmi/id/product_name; then
        VIRT=vm
fi
[ -n "$VIRT" ] && unit_with cond-virt-known "ConditionVirtualization=$VIRT"
# The kernel command line as systemd reads it (in a container, that of PID 1): its first word.
IN_CONTAINER=
case $VIRT in docker | podman) IN_CONTAINER=1 ;; esac
[ -s /run/systemd/container ] && IN_CONTAINER=1
tr '\0' '\n' </proc/1/environ 2>/dev/null | grep -qs '^container=.' && IN_CONTAINER=1
if [ -n "$IN_CONTAINER" ]; then
        KWORD=$(tr '\0' '\n' </proc/1/cmdline 2>/dev/null | sed -n 1p)
else
        KWORD=$(sed 's/ .*//' /proc/cmdline 2>/dev/null)
fi
KWORD=${KWORD%%=*}
case $KWORD in
*[!A-Za-z0-9_./-]* | '') KWORD= ;;
esac
[ -n "$KWORD" ] && unit_with cond-cmdline "ConditionKernelCommandLine=$KWORD" \
        "ConditionKernelCommandLine=!svd.no-such-option"

printf '#!/bin/sh\n' >"$T/exe"
chmod 755 "$T/exe"
ln -s "$T/exe" "$T/link"

SVD_E2E_COND=on
export SVD_E2E_COND
start_svd

ran() {
        test -s "$T/$1.ran"
}

# ---- a condition not met ----

run svctl start cond-path
expect_rc "start with a condition not met exits 0, as systemctl start" 0
expect_eq "... the unit is inactive, not failed" inactive "$(svc_state cond-path)"
check "... its command did not run" test ! -e "$T/cond-path.ran"
run svctl status cond-path
expect_rc "status of the skipped unit exits 3" 3
expect_contains "status says a start condition was unmet" "$OUT" "Condition: start condition unmet at"
expect_contains "... and names it" "$OUT" "ConditionPathExists=$T/flag was not met"
run svctl show -p ConditionResult --value cond-path
expect_eq "show: ConditionResult=no" no "$OUT"

run svctl start cond-neg
expect_rc "a negated condition that holds: start exits 0" 0
check "... it runs" wait_until 20 ran cond-neg
expect_eq "... running" running "$(svc_state cond-neg)"

: >"$T/flag"
run svctl start cond-path
expect_rc "the same unit once the path exists: start exits 0" 0
check "... it runs (checked at each start)" wait_until 20 ran cond-path
run svctl status cond-path
expect_rc "... status exits 0" 0
expect_not_contains "... and shows no unmet condition" "$OUT" "Condition:"
run svctl show -p ConditionResult --value cond-path
expect_eq "show: ConditionResult=yes" yes "$OUT"

run svctl stop cond-neg
run svctl start cond-neg
expect_rc "a negated condition that no longer holds: start exits 0" 0
expect_eq "... inactive" inactive "$(svc_state cond-neg)"
run svctl status cond-neg
expect_contains "... status names the negated condition" "$OUT" "ConditionPathExists=!$T/flag was not met"

# ---- triggering conditions, reset ----

run svctl start cond-trig
expect_rc "one of two triggering conditions holds, and the plain one: start exits 0" 0
check "... it runs" wait_until 20 ran cond-trig
run svctl start cond-trig-none
expect_rc "no triggering condition holds: start exits 0" 0
expect_eq "... inactive" inactive "$(svc_state cond-trig-none)"
run svctl status cond-trig-none
expect_contains "... status names the triggering conditions" "$OUT" \
        "ConditionPathExists=|$T/nope1 and the 1 other triggering ones was not met"
run svctl start cond-reset
expect_rc "an empty Condition*= drops the earlier ones of every kind: start exits 0" 0
check "... it runs" wait_until 20 ran cond-reset

# ---- assertions ----

run svctl start assert-path
expect_rc "start with an assertion not met exits 1" 1
expect_contains "... saying which" "$ERR" "Failed to start 'assert-path': assertion not met: AssertPathExists=$T/nope1"
expect_eq "... the unit is inactive (an assertion changes no state)" inactive "$(svc_state assert-path)"
check "... its command did not run" test ! -e "$T/assert-path.ran"
run svctl status assert-path
expect_contains "status says a start assertion was unmet" "$OUT" "Assert: start assertion unmet at"
expect_contains "... and names it" "$OUT" "AssertPathExists=$T/nope1 was not met"
run svctl is-failed assert-path
expect_rc "is-failed: not failed (exit 1)" 1

# ---- dependencies ----

run svctl start needs-skipped
expect_rc "Requires= a unit whose condition is not met: start exits 0" 0
check "... it runs anyway, as in systemd" wait_until 20 ran needs-skipped
expect_eq "... the required unit stayed inactive" inactive "$(svc_state cond-neg)"
run svctl start needs-asserted
expect_rc "Requires= a unit whose assertion fails: start exits 1" 1
expect_contains "... the dependency is named" "$ERR" "assert-path"
check "... it did not run" test ! -e "$T/needs-asserted.ran"

# ---- the kinds ----

run svctl start cond-kinds
expect_rc "paths, user, group, environment, host, security, CPUs that hold: start exits 0" 0
check "... it runs" wait_until 20 ran cond-kinds
if ! ran cond-kinds; then
        svctl status cond-kinds | sed 's/^/# /'
fi
run svctl start cond-env-off
expect_eq "ConditionEnvironment= compares svd's environment" inactive "$(svc_state cond-env-off)"
svctl start cond-virt-yes cond-virt-no cond-ac-yes cond-ac-no >/dev/null 2>&1
wait_until 20 sh -c 'test -s "$1/cond-virt-yes.ran" || test -s "$1/cond-virt-no.ran"' sh "$T"
_v=$(svc_state cond-virt-yes)/$(svc_state cond-virt-no)
case $_v in
running/inactive | inactive/running) ok "ConditionVirtualization=yes and =no: exactly one holds ($_v)" ;;
*) not_ok "ConditionVirtualization=yes and =no: exactly one holds ($_v)" ;;
esac
wait_until 20 sh -c 'test -s "$1/cond-ac-yes.ran" || test -s "$1/cond-ac-no.ran"' sh "$T"
_v=$(svc_state cond-ac-yes)/$(svc_state cond-ac-no)
case $_v in
running/inactive | inactive/running) ok "ConditionACPower=yes and =no: exactly one holds ($_v)" ;;
*) not_ok "ConditionACPower=yes and =no: exactly one holds ($_v)" ;;
esac

if [ -n "$VIRT" ]; then
        svctl start cond-virt-known >/dev/null 2>&1
        check "ConditionVirtualization=$VIRT holds here" wait_until 20 ran cond-virt-known
else
        skip "ConditionVirtualization= of a known kind" "neither a container marker nor a QEMU DMI vendor here"
fi
if [ -n "$KWORD" ]; then
        svctl start cond-cmdline >/dev/null 2>&1
        check "ConditionKernelCommandLine=$KWORD (a word of the command line) holds" wait_until 20 ran cond-cmdline
else
        skip "ConditionKernelCommandLine= of a word of the command line" "no plain first word"
fi

# ---- automatic restarts check the conditions again ----

run svctl start cond-restart
expect_rc "a Restart=always unit whose condition holds: start exits 0" 0
check "... it runs" wait_until 20 ran cond-restart
rm -f "$T/flag"
_pid=$(svc_pid cond-restart)
kill -TERM "$_pid" 2>/dev/null
check "after its process ends, the restart meets the unmet condition: inactive" \
        wait_until 20 state_is cond-restart inactive
expect_eq "... it ran once" 1 "$(wc -l <"$T/cond-restart.ran" | tr -d ' ')"
run svctl status cond-restart
expect_contains "... status names the condition" "$OUT" "ConditionPathExists=$T/flag was not met"

# ---- a bad parameter fails the unit's load ----

unit_with cond-bad "ConditionPathExists=relative"
run svctl reload
run svctl status cond-bad
expect_contains "a relative path in a path condition fails the load, with file and line" "$OUT" \
        "cond-bad.service:2: Invalid value 'relative' for ConditionPathExists=: expected an absolute path"

done_testing
