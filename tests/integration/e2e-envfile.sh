#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# EnvironmentFile= (several files, '-' for optional ones, systemd's quoting,
# comments and continuations; read again at every start), variables in
# ExecStart= ("$NAME" split into words, "${NAME}" kept whole, "$$" a
# literal '$'), and specifiers of the unit name, as systemd runs them. TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

# argv.sh OUT ARG...: writes its arguments, each in <>, and then the
# variables named in $SHOW, one a line; then sleeps.
cat >"$T/argv.sh" <<'EOF'
out=$1
shift
{
        for a in "$@"; do printf '<%s>' "$a"; done
        echo
        for v in $SHOW; do eval "echo \"$v=\${$v-unset}\""; done
} >"$out.tmp"
mv "$out.tmp" "$out"
exec "$SLEEP" 1000
EOF

# The way Debian packages ship them: /etc/default/NAME with comments and quoting.
cat >"$T/default" <<'EOF'
# Options for the daemon
OPTS="-a 'b c' -d"
; also a comment
  SPACED  =  value with spaces  
SINGLE='$HOME stays'
CONT=one\
two
EOF
cat >"$T/override" <<'EOF'
SPACED=overridden
EOF

write_unit envd <<EOF
[Service]
Environment=SHOW="OPTS SPACED SINGLE CONT FROMUNIT" FROMUNIT=unit SPACED=unit SLEEP=$SLEEP
EnvironmentFile=$T/default -$T/missing
EnvironmentFile=-$T/override
ExecStart=$SH $T/argv.sh $T/envd.out \$OPTS \${OPTS} x\${SINGLE}y \$UNSET "\${UNSET}" \$\$OPTS end
EOF

write_unit needsfile <<EOF
[Service]
EnvironmentFile=$T/absent
ExecStart=$SLEEP 1001
EOF

write_unit spec-x@a\\x2db <<EOF
[Unit]
Description=unit %n
[Service]
Environment=SHOW= SLEEP=$SLEEP
ExecStart=$SH $T/argv.sh $T/spec.out %n %N %p %i %I %%
EOF

# A template: each instance its own environment file and arguments.
write_unit tpl@ <<EOF
[Unit]
Description=instance %i
[Service]
Environment=SHOW=PORT SLEEP=$SLEEP
EnvironmentFile=-$T/tpl-%i.env
ExecStart=$SH $T/argv.sh $T/tpl-%i.out %i %I \$PORT
EOF
echo PORT=8001 >"$T/tpl-one.env"
echo PORT=8002 >"$T/tpl-a\x2db.env"

start_svd

# ---- EnvironmentFile= and variables ----

run svctl start envd
expect_rc "start of a service with environment files exits 0" 0
check "... it ran" wait_until 20 test -s "$T/envd.out"
expect_eq "\$OPTS is split into words, quotes group; \${OPTS} is one word; \$UNSET no word, \${UNSET} empty; \$\$ a '\$'" \
        "<-a><b c><-d><-a 'b c' -d><x\$HOME staysy><><\$OPTS><end>" "$(sed -n 1p "$T/envd.out")"
expect_eq "quoted value from the file" "OPTS=-a 'b c' -d" "$(grep '^OPTS=' "$T/envd.out")"
expect_eq "a later file overrides Environment= and earlier files" "SPACED=overridden" \
        "$(grep '^SPACED=' "$T/envd.out")"
expect_eq "single quotes keep '\$'" "SINGLE=\$HOME stays" "$(grep '^SINGLE=' "$T/envd.out")"
expect_eq "a backslash continues a line" "CONT=onetwo" "$(grep '^CONT=' "$T/envd.out")"
expect_eq "Environment= is kept when no file sets it" "FROMUNIT=unit" "$(grep '^FROMUNIT=' "$T/envd.out")"

# Read again at the next start, as systemd does.
echo 'OPTS=--new' >"$T/override"
rm -f "$T/envd.out"
run svctl restart envd
expect_rc "restart exits 0" 0
check "... it ran again" wait_until 20 test -s "$T/envd.out"
expect_eq "the changed file applies at the next start" "<--new><--new><x\$HOME staysy><><\$OPTS><end>" \
        "$(sed -n 1p "$T/envd.out")"

run svctl start needsfile
expect_rc "start with a missing EnvironmentFile= (no '-') exits 1" 1
expect_contains "... saying which file" "$ERR" "Failed to load environment file '$T/absent'"
expect_eq "... the service is failed" failed "$(svc_state needsfile)"
run svctl status needsfile
expect_contains "status shows why" "$OUT" "Failed to load environment file '$T/absent': No such file or directory"

# ---- specifiers ----

run svctl start 'spec-x@a\x2db'
expect_rc "start of a unit with specifiers exits 0" 0
check "... it ran" wait_until 20 test -s "$T/spec.out"
expect_eq "%n %N %p %i %I %% are the unit's name's parts" \
        "<spec-x@a\\x2db.service><spec-x@a\\x2db><spec-x><a\\x2db><a-b><%>" "$(sed -n 1p "$T/spec.out")"
run svctl status 'spec-x@a\x2db'
expect_contains "Description= has %n resolved" "$OUT" "unit spec-x@a\\x2db.service"

# ---- templates ----

expect_eq "a template is loaded but not started" inactive "$(svc_state 'tpl@')"
run svctl start 'tpl@'
expect_rc "start of the template itself exits 1" 1
expect_contains "... saying to start an instance" "$ERR" "NAME@INSTANCE"
run svctl start nosuch@x
expect_rc "start of an instance of a missing template exits 4" 4

run svctl start tpl@one 'tpl@a\x2db.service'
expect_rc "start of two instances exits 0" 0
check "... the first ran" wait_until 20 test -s "$T/tpl-one.out"
check "... the second ran" wait_until 20 test -s "$T/tpl-a\x2db.out"
expect_eq "the first instance has its %i, %I and environment file" "<one><one><8001>" "$(sed -n 1p "$T/tpl-one.out")"
expect_eq "the second has its own" "<a\x2db><a-b><8002>" "$(sed -n 1p "$T/tpl-a\x2db.out")"
expect_eq "both run" "running running" "$(svc_state tpl@one) $(svc_state 'tpl@a\x2db')"
run svctl status tpl@one
expect_contains "status shows the instance's description" "$OUT" "instance one"
run svctl list
expect_contains "list shows the instances" "$OUT" "tpl@one"

# A changed template reaches its instances at a reload, applied at their next start.
sed -i 's/%I/%I changed/' "$UNITS/tpl@.service"
run svctl reload
expect_rc "reload exits 0" 0
expect_contains "... reports the instances as changed" "$OUT" "tpl@one"
rm -f "$T/tpl-one.out"
run svctl restart tpl@one
expect_rc "restart of the instance exits 0" 0
check "... it ran again" wait_until 20 test -s "$T/tpl-one.out"
expect_eq "... with the template's new definition" "<one><one><changed><8001>" "$(sed -n 1p "$T/tpl-one.out")"

# After a crash of svd, an instance started by hand is started again.
TRACKED="$TRACKED $(service_pids)"
kill -KILL "$SVD_PID"
wait_until 10 svd_exited
wait "$SVD_JOB" 2>/dev/null
SVD_PID=
rm -f "$T/tpl-one.out"
start_svd
check "after kill -9 of svd and a new svd, the instance runs again" wait_until 20 state_is tpl@one running
check "... it ran" wait_until 20 test -s "$T/tpl-one.out"

# Removing the template removes its instances once they have stopped.
rm "$UNITS/tpl@.service"
run svctl reload
expect_rc "reload without the template exits 0" 0
run svctl stop tpl@one
check "after the stop the instance is gone" wait_until 20 sh -c '! "$0" --socket "$1" status tpl@one >/dev/null 2>&1' "$SVCTL" "$SOCK"

stop_svd
expect_eq "svd exits 0" 0 "$SVD_RC"
done_testing
