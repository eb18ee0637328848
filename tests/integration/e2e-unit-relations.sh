#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The [Unit] relations with systemd.unit(5)'s meanings: PartOf= (stops and
# restarts reach the part), BindsTo= (the bound unit going down stops this
# one), Conflicts= (either start stops the other), Requisite= (must be
# active already), OnFailure= (started when the unit fails); [Install]
# Alias= names that Requires= and svctl take, RequiredBy=, Also=,
# DefaultDependencies= accepted. TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

# mark.sh NAME: records each run of NAME, then stays.
cat >"$T/mark.sh" <<EOF
echo ran >>"$T/\$1.ran"
exec $SLEEP 1000
EOF

svc() {
        _name=$1
        shift
        {
                echo "[Unit]"
                for _l in "$@"; do echo "$_l"; done
                echo "[Service]"
                echo "ExecStart=$SH $T/mark.sh $_name"
        } | write_unit "$_name"
}

svc parent
svc part "PartOf=parent"
svc bound-to
svc bound "BindsTo=bound-to" "After=bound-to"
svc conflict-a "Conflicts=conflict-b"
svc conflict-b
svc base
svc needs-base "Requisite=base" "After=base"
svc needs-missing "Requisite=no-such-unit"
svc handler
write_unit failing <<EOF
[Unit]
OnFailure=handler.service
[Service]
ExecStart=$SH -c 'exit 1'
EOF
write_unit aliased <<EOF
[Unit]
DefaultDependencies=no
Conflicts=shutdown.target
Before=shutdown.target
[Service]
ExecStart=$SH $T/mark.sh aliased
[Install]
Alias=other-name.service
Also=part.service
EOF
svc via-alias "Requires=other-name.service" "After=other-name.service"
write_unit required-by <<EOF
[Service]
ExecStart=$SH $T/mark.sh required-by
[Install]
RequiredBy=multi-user.target
EOF

start_svd

ran() {
        test -s "$T/$1.ran"
}

runs() {
        wc -l <"$T/$1.ran" | tr -d ' '
}

# ---- [Install] ----

check "RequiredBy=multi-user.target starts the unit with svd, as WantedBy= does" wait_until 20 ran required-by
run svctl status aliased
expect_not_contains "DefaultDependencies=, Conflicts=/Before=shutdown.target, Alias=, Also= apply: nothing listed" \
        "$OUT" "Not applied"
expect_not_contains "... and no warning about them" "$(cat "$SVD_LOG")" "aliased.service:"

# ---- PartOf= ----

run svctl start parent part
expect_rc "start of a unit and its part exits 0" 0
check "... both run" wait_until 20 sh -c 'test -s "$1/parent.ran" && test -s "$1/part.ran"' sh "$T"
_pid=$(svc_pid part)
run svctl restart parent
expect_rc "restart of the unit exits 0" 0
check "the part is restarted with it (a new process)" wait_until 20 running_with_new_pid part "$_pid"
run svctl stop parent
expect_rc "stop of the unit exits 0" 0
check "the part stops with it" wait_until 20 state_is part inactive
run svctl start parent part
run svctl stop part
check "a stop of the part leaves the unit running" stays_for 1 state_is parent running

# ---- BindsTo= ----

run svctl start bound
expect_rc "start of a unit with BindsTo= exits 0" 0
check "... it pulled in the unit it is bound to, as Requires= does" wait_until 20 state_is bound-to running
kill -TERM "$(svc_pid bound-to)"
check "the bound-to unit's process ends: it is inactive" wait_until 20 state_is bound-to inactive
check "... and the unit bound to it stops, not asked to (unlike Requires=)" wait_until 20 state_is bound inactive

# ---- Conflicts= ----

run svctl start conflict-b
check "conflict-b runs" wait_until 20 state_is conflict-b running
run svctl start conflict-a
expect_rc "start of a unit with Conflicts= exits 0" 0
check "... the conflicting unit is stopped" wait_until 20 state_is conflict-b inactive
expect_eq "... and it runs" running "$(svc_state conflict-a)"
run svctl start conflict-b
check "the other way round too: starting conflict-b stops conflict-a" wait_until 20 state_is conflict-a inactive
expect_eq "... conflict-b runs" running "$(svc_state conflict-b)"

# ---- Requisite= ----

run svctl start needs-base
expect_rc "Requisite= a unit that is not active: start exits 1" 1
expect_contains "... naming it" "$ERR" "Requisite= unit 'base' is inactive"
expect_eq "... the requisite unit was not started" inactive "$(svc_state base)"
check "... nor the unit" test ! -e "$T/needs-base.ran"
run svctl start base
run svctl start needs-base
expect_rc "once it is active: start exits 0" 0
check "... it runs" wait_until 20 ran needs-base
run svctl start needs-missing
expect_rc "Requisite= a unit that does not exist: start exits 1" 1
expect_contains "... naming it" "$ERR" "Requisite= unit 'no-such-unit' is not loaded"

# ---- OnFailure= ----

svctl start failing >/dev/null 2>&1
check "a unit that fails" wait_until 20 state_is failing failed
check "... starts its OnFailure= unit" wait_until 20 ran handler
expect_eq "... which runs" running "$(svc_state handler)"

# ---- Alias= ----

run svctl start via-alias
expect_rc "Requires= naming another unit's Alias= resolves: start exits 0" 0
check "... the aliased unit runs" wait_until 20 ran aliased
run svctl status other-name
expect_rc "status takes the alias" 0
expect_contains "... and shows the unit" "$OUT" "aliased.service"
run svctl show -p Names --value other-name.service
expect_eq "show: Names= lists the unit's names" "aliased.service other-name.service" "$OUT"
run svctl stop other-name
expect_rc "stop takes the alias" 0
expect_eq "... the unit stopped" inactive "$(svc_state aliased)"

done_testing
