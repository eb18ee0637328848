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

stop_svd
expect_eq "svd exits 0" 0 "$SVD_RC"
done_testing
