#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# ExecStart= prefixes as systemd runs them: "-" (a failed exit counts as
# success), "@" (argv[0] of one's own), ":" (no variable substitution) and,
# as root, "+" (full privileges) and "!" (no user change). TAP output.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test

write_unit fails <<EOF
[Service]
Type=oneshot
ExecStart=$SH -c 'exit 3'
EOF

write_unit fails-ignored <<EOF
[Service]
Type=oneshot
ExecStart=-$SH -c 'exit 3'
EOF

# argv[0] ends in "sh": busybox, the lab's shell, picks its applet by it.
write_unit argv0 <<EOF
[Service]
Type=oneshot
ExecStart=@$SH /my-name/sh -c 'echo "\$\$0" >$T/argv0.out'
EOF

write_unit noexpand <<EOF
[Service]
Type=oneshot
Environment=X=value
ExecStart=:$SH -c 'echo "\$1" >$T/noexpand.out' sh \${X}
EOF

write_unit expand <<EOF
[Service]
Type=oneshot
Environment=X=value
ExecStart=$SH -c 'echo "\$\$1" >$T/expand.out' sh \${X}
EOF

ROOT=0
[ "$(id -u)" = 0 ] && ROOT=1
if [ "$ROOT" = 1 ]; then
        if grep -q '^svdtest:' /etc/passwd; then USER_NAME=svdtest; else USER_NAME=nobody; fi
        for p in plain + !; do
                case $p in plain) n=user-plain pre= ;; +) n=user-plus pre=+ ;; !) n=user-bang pre=! ;; esac
                write_unit "$n" <<EOF
[Service]
Type=oneshot
User=$USER_NAME
CapabilityBoundingSet=CAP_CHOWN
NoNewPrivileges=yes
ExecStart=$pre$SH -c 'echo "uid=\$\$(id -u)"; grep -E "^(CapBnd|NoNewPrivs)" /proc/self/status'
StandardOutput=file:$T/$n.out
EOF
        done
fi

start_svd

run svctl start fails
expect_rc "a oneshot that exits 3 fails to start" 1
expect_eq "... and is failed" failed "$(svc_state fails)"

run svctl start fails-ignored
expect_rc "with '-' the same exit is a successful start" 0
expect_eq "... and the service is inactive, not failed" inactive "$(svc_state fails-ignored)"
expect_contains "... svd's log says the failure was ignored" "$(cat "$SVD_LOG")" "fails-ignored: exited 3, ignored ('-' prefix)."

run svctl start argv0
expect_rc "'@' start exits 0" 0
expect_eq "'@': the word after the path is argv[0]" /my-name/sh "$(cat "$T/argv0.out")"

run svctl start noexpand expand
expect_rc "':' start exits 0" 0
expect_eq "':': \${X} is passed as written" "\${X}" "$(cat "$T/noexpand.out")"
expect_eq "without ':' it is substituted" value "$(cat "$T/expand.out")"

if [ "$ROOT" = 1 ]; then
        run svctl start user-plain user-plus user-bang
        expect_rc "the User= services run" 0
        check "... their output is there" wait_until 20 sh -c "grep -q NoNewPrivs '$T/user-plain.out' && grep -q NoNewPrivs '$T/user-plus.out' && grep -q NoNewPrivs '$T/user-bang.out'"
        UID_USER=$(id -u "$USER_NAME")
        expect_eq "without a prefix: User= applies" "uid=$UID_USER" "$(grep '^uid=' "$T/user-plain.out")"
        expect_eq "... the bounding set is CAP_CHOWN alone" "0000000000000001" "$(awk '/^CapBnd/ {print $2}' "$T/user-plain.out")"
        expect_eq "'+': root" "uid=0" "$(grep '^uid=' "$T/user-plus.out")"
        expect_ne "'+': the bounding set is not reduced" "0000000000000001" \
                "$(awk '/^CapBnd/ {print $2}' "$T/user-plus.out")"
        expect_eq "'+': no no_new_privs" 0 "$(awk '/^NoNewPrivs/ {print $2}' "$T/user-plus.out")"
        expect_eq "'!': root" "uid=0" "$(grep '^uid=' "$T/user-bang.out")"
        expect_eq "'!': the bounding set is still reduced" "0000000000000001" \
                "$(awk '/^CapBnd/ {print $2}' "$T/user-bang.out")"
        expect_eq "'!': no_new_privs still set" 1 "$(awk '/^NoNewPrivs/ {print $2}' "$T/user-bang.out")"
else
        skip "'+' and '!' need root to run a service as another user"
fi

stop_svd
expect_eq "svd exits 0" 0 "$SVD_RC"
done_testing
