#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# DynamicUser= and the keys that change what a service may do, checked from
# inside the service (id, /proc/self/status): a uid/gid pair of 61184-65519,
# never root; the keys it implies; StateDirectory= in /var/lib/private with
# /var/lib/NAME a link, and the same uid while it exists; two services at
# once never share a uid; the uid is given back when the service stops and
# kept across a re-exec; a static user of the name is used instead;
# NoNewPrivileges= implied for a User= service by ProtectKernelTunables=;
# PAMName= with User= and a security label are load errors. Needs root. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root (DynamicUser= changes to users svd allocates)"
setup_test
chmod 0755 "$T"
LOCKS=/run/svd/dynamic-uid
# Names of this run's own, in the machine's /var/lib.
N=svdtest-dyn-$$
trap '_r=$?; rm -rf "/var/lib/$N" "/var/lib/private/$N" "/var/cache/$N" "/var/cache/private/$N"; (exit $_r); cleanup' EXIT

# unit NAME KEY=VALUE...: a service running SCRIPT (sh) with the keys.
unit() {
        _name=$1 _script=$2
        shift 2
        {
                echo "[Service]"
                echo "ExecStart=$SH -c '$_script'"
                for _k in "$@"; do echo "$_k"; done
        } >"$UNITS/$_name.service"
}
# logged NAME: what NAME printed, without svctl's time and stream.
logged() {
        run svctl logs "$1"
        printf '%s\n' "$OUT" | sed -n 's/^.*stdout[]:]* //p'
}
has_line() {
        logged "$1" | grep -q "$2"
}
field() {
        logged "$1" | sed -n "s/^$2=//p" | tail -n 1
}

SHOW='echo uid=$(id -u); echo gid=$(id -g); echo groups=$(id -G); grep -E "^NoNewPrivs" /proc/self/status | tr -d "\t"; echo state=$STATE_DIRECTORY; echo user=$USER'
unit dyn "$SHOW; touch \$STATE_DIRECTORY/f && echo wrote-state; touch /etc/svd-dyn-test 2>/dev/null || echo etc-ro; touch /tmp/x && echo tmp-ok; echo tmpfiles=\$(ls /tmp | wc -l); ls /var/lib/private; echo ready; exec $SLEEP 1000" \
        DynamicUser=yes "StateDirectory=$N" "CacheDirectory=$N"
unit dyn2 "$SHOW; echo ready; exec $SLEEP 1000" DynamicUser=yes
unit dynstatic "$SHOW; echo ready; exec $SLEEP 1000" DynamicUser=yes User=nobody
unit nnp "$SHOW; echo ready; exec $SLEEP 1000" User=nobody ProtectKernelTunables=yes
unit nnp-root "$SHOW; echo ready; exec $SLEEP 1000" CapabilityBoundingSet=~CAP_SYS_ADMIN ProtectKernelTunables=yes
unit pam "$SHOW" User=nobody PAMName=login
unit label "$SHOW" AppArmorProfile=svd-test
start_svd

run svctl start dyn
expect_rc "DynamicUser=yes starts" 0
wait_until 10 has_line dyn '^ready' || diag "dyn: $(logged dyn)"
U1=$(field dyn uid)
check "DynamicUser=yes: a uid of 61184-65519, not root ($U1)" [ "${U1:-0}" -ge 61184 ] && [ "${U1:-0}" -le 65519 ]
expect_eq "DynamicUser=yes: the gid is the same number" "$U1" "$(field dyn gid)"
expect_eq "DynamicUser=yes: no other group" "$U1" "$(field dyn groups)"
expect_eq "DynamicUser=yes: NoNewPrivileges= implied" "NoNewPrivs:1" "$(logged dyn | grep NoNewPrivs)"
expect_eq "DynamicUser=yes: \$USER is the unit's name" "dyn" "$(field dyn user)"
expect_eq "DynamicUser=yes: \$STATE_DIRECTORY is /var/lib/NAME" "/var/lib/$N" "$(field dyn state)"
check "DynamicUser=yes: the state directory is writable" has_line dyn '^wrote-state'
check "DynamicUser=yes: ProtectSystem=strict implied" has_line dyn '^etc-ro'
check "DynamicUser=yes: PrivateTmp= implied (an empty /tmp of its own)" has_line dyn '^tmpfiles=1$'
check "DynamicUser=yes: /var/lib/private shows its own directory alone" [ "$(logged dyn | grep -c "^svdtest-dyn-")" = 1 ]
expect_eq "DynamicUser=yes: /var/lib/NAME is a link to private/NAME" "private/$N" "$(readlink "/var/lib/$N")"
expect_eq "DynamicUser=yes: the private directory is the uid's" "$U1:$U1" "$(stat -c %u:%g "/var/lib/private/$N")"
expect_eq "DynamicUser=yes: a file it wrote is the uid's" "$U1" "$(stat -c %u "/var/lib/private/$N/f")"
expect_eq "DynamicUser=yes: /var/lib/private is root's, 0700" "0:700" "$(stat -c %u:%a /var/lib/private)"
check "DynamicUser=yes: the uid is held in $LOCKS" [ -e "$LOCKS/$U1" ]

run svctl start dyn2
wait_until 10 has_line dyn2 '^ready' || diag "dyn2: $(logged dyn2)"
U2=$(field dyn2 uid)
check "two DynamicUser= services at once: two uids ($U1, $U2)" [ -n "$U2" ] && [ "$U2" != "$U1" ] && [ "$U2" -ge 61184 ]

run svctl daemon-reexec
expect_rc "re-exec" 0
check "a re-exec keeps the uid held" [ -e "$LOCKS/$U1" ]
run svctl stop dyn
expect_rc "stop" 0
check "the uid is given back when the service stops" [ ! -e "$LOCKS/$U1" ]
run svctl start dyn
wait_until 10 has_line dyn '^ready'
expect_eq "the same uid again while the state directory exists" "$U1" "$(field dyn uid)"

run svctl start dynstatic
wait_until 10 has_line dynstatic '^ready' || diag "dynstatic: $(logged dynstatic)"
expect_eq "DynamicUser= with a static User=: that user" "$(id -u nobody)" "$(field dynstatic uid)"

run svctl start nnp
wait_until 10 has_line nnp '^ready' || diag "nnp: $(logged nnp)"
expect_eq "User= with ProtectKernelTunables=: NoNewPrivileges= implied" "NoNewPrivs:1" "$(logged nnp | grep NoNewPrivs)"
run svctl start nnp-root
wait_until 10 has_line nnp-root '^ready' || diag "nnp-root: $(logged nnp-root)"
expect_eq "root without CAP_SYS_ADMIN, ProtectKernelTunables=: NoNewPrivileges= implied" "NoNewPrivs:1" \
        "$(logged nnp-root | grep NoNewPrivs)"

run svctl start pam
check "PAMName= with User=: the unit does not start" [ "$RC" != 0 ]
run svctl status pam
expect_contains "PAMName= with User=: a load error saying why" "$OUT$ERR" "PAMName= asks for a PAM session"
run svctl start label
check "AppArmorProfile=: the unit does not start" [ "$RC" != 0 ]
run svctl status label
expect_contains "AppArmorProfile=: a load error saying why" "$OUT$ERR" "AppArmorProfile= asks for a security label"

done_testing
