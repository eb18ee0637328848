#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Credentials and sandboxing keys, each checked from inside the service:
# User=, Group=, SupplementaryGroups=, NoNewPrivileges=,
# CapabilityBoundingSet=, AmbientCapabilities=, UMask=, LimitNOFILE= (above svd's hard limit too),
# LimitNPROC=, LimitCORE=, and that the service gets exactly fds 0, 1, 2.
# The service writes what it sees to a file. Needs root (svd must be able to
# change to an unprivileged user); SVD_TEST_USER (default: svdtest if it
# exists, else nobody) is that user. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root to run a service as another user"
setup_test

USER_NAME=${SVD_TEST_USER:-}
if [ -z "$USER_NAME" ]; then
        if grep -q '^svdtest:' /etc/passwd; then USER_NAME=svdtest; else USER_NAME=nobody; fi
fi
TUID=$(sed -n "s/^$USER_NAME:[^:]*:\([0-9]*\):.*/\1/p" /etc/passwd)
TGID=$(sed -n "s/^$USER_NAME:[^:]*:[0-9]*:\([0-9]*\):.*/\1/p" /etc/passwd)
[ -n "$TUID" ] || bail_out "no user $USER_NAME"
# The service writes its report into a directory of its own: svd refuses a
# control socket in a directory that others may write, such as a 0777 $T.
chmod 0755 "$T"
mkdir "$T/report"
chown "$TUID" "$T/report"

# The report runs in the service's own shell: `exec >FILE` redirects without
# keeping a copy of the old fd, so /proc/$$/fd shows exactly what svd gave.
cat >"$T/unit.in" <<'EOF'
[Service]
ExecStart=@SH@ -c 'exec >@OUT@ 2>&1; echo "uid=$(id -u) gid=$(id -g) groups=$(id -G)"; grep -E "^(Cap|NoNewPrivs|Umask|SigIgn)" /proc/self/status; grep -E "^Max (open files|processes|core file size)" /proc/self/limits; echo fds:; ls /proc/$$$$/fd; echo fds-end; exec @SLEEP@ 10000'
User=@USER@
Group=@GID@
SupplementaryGroups=4242 4243
NoNewPrivileges=yes
CapabilityBoundingSet=CAP_NET_BIND_SERVICE CAP_CHOWN
AmbientCapabilities=CAP_NET_BIND_SERVICE
UMask=0027
LimitNOFILE=123:456
LimitNPROC=77
LimitCORE=0
EOF
sed -e "s|@SH@|$SH|" -e "s|@OUT@|$T/report/out|" -e "s|@SLEEP@|$SLEEP|" -e "s|@USER@|$USER_NAME|" -e "s|@GID@|$TGID|" \
        "$T/unit.in" | write_unit creds

start_svd
run svctl start creds
expect_rc "start a service with every credential key" 0
check "the service wrote its report" wait_until 10 grep -q '^fds-end' "$T/report/out"
R=$(cat "$T/report/out")
diag "report: $(echo "$R" | tr '\n' ';')"

field() {
        echo "$R" | sed -n "s/^$1:[[:space:]]*//p"
}

expect_contains "User= (uid $TUID)" "$R" "uid=$TUID "
expect_contains "Group= (gid $TGID)" "$R" "gid=$TGID "
G=$(echo "$R" | sed -n 's/.*groups=//p')
expect_contains "SupplementaryGroups= 4242" " $G" " 4242"
expect_contains "SupplementaryGroups= 4243" " $G" " 4243"
expect_eq "NoNewPrivileges=yes" 1 "$(field NoNewPrivs)"
# CAP_CHOWN is 0, CAP_NET_BIND_SERVICE 10.
expect_eq "CapabilityBoundingSet= keeps exactly CHOWN and NET_BIND_SERVICE" 0000000000000401 "$(field CapBnd)"
expect_eq "AmbientCapabilities= raises NET_BIND_SERVICE" 0000000000000400 "$(field CapAmb)"
expect_eq "the ambient capability is effective after exec" 0000000000000400 "$(field CapEff)"
expect_eq "UMask=0027" 0027 "$(field Umask)"
# SIGPIPE is signal 13: bit 0x1000 of SigIgn.
SIGIGN=$(field SigIgn)
check "IgnoreSIGPIPE= by default: SIGPIPE is ignored (SigIgn $SIGIGN)" sh -c '[ $((0x$1 & 0x1000)) -ne 0 ]' sh "$SIGIGN"
expect_eq "LimitNOFILE=123:456" "123 456" "$(echo "$R" | sed -n 's/^Max open files *\([0-9]*\) *\([0-9]*\).*/\1 \2/p')"
expect_eq "LimitNPROC=77" "77 77" "$(echo "$R" | sed -n 's/^Max processes *\([0-9]*\) *\([0-9]*\).*/\1 \2/p')"
expect_eq "LimitCORE=0" "0 0" "$(echo "$R" | sed -n 's/^Max core file size *\([0-9]*\) *\([0-9]*\).*/\1 \2/p')"
expect_eq "the service has exactly fds 0, 1 and 2" "0 1 2 " "$(echo "$R" | sed -n '/^fds:/,/^fds-end/p' | grep -v fds | tr '\n' ' ')"

# Without LimitNOFILE=: systemd's default, soft 1024 (or the hard limit where lower), hard as svd's.
write_unit deflimit <<EOF
[Service]
ExecStart=$SH -c 'grep "^Max open files" /proc/self/limits >$T/report/default; exec $SLEEP 10000'
EOF
HARD0=$(ulimit -Hn)
[ "$HARD0" = unlimited ] && HARD0=$(cat /proc/sys/fs/nr_open)
SOFT0=1024
[ "$HARD0" -lt 1024 ] && SOFT0=$HARD0

# A hard limit above svd's own: set where svd may raise it (CAP_SYS_RESOURCE), else clamped to svd's
# hard limit (as systemd does; many containers lack the capability), never a failed start.
HARD=$(ulimit -Hn)
WANT=$((HARD + 1000))
if (ulimit -Hn "$WANT") 2>/dev/null; then GOT="$WANT $WANT"; else GOT="$HARD $HARD"; fi
write_unit biglimit <<EOF
[Service]
ExecStart=$SH -c 'grep -e "^Max open files" -e "^SigIgn" /proc/self/limits /proc/self/status >$T/report/big; exec $SLEEP 10000'
LimitNOFILE=$WANT
IgnoreSIGPIPE=no
EOF

# A bounding set that forbids what User= needs: a clear stage in the error.
write_unit badcaps <<EOF
[Service]
ExecStart=$SLEEP 10000
User=$USER_NAME
AmbientCapabilities=CAP_NET_ADMIN
CapabilityBoundingSet=CAP_CHOWN
EOF
run svctl stop creds
stop_svd # no reload yet: a new svd picks up the new unit
start_svd
run svctl start badcaps
expect_rc "an ambient capability outside the bounding set fails" 1
expect_contains "the error names the step" "$ERR" "capabilities"

run svctl start deflimit
expect_rc "a service without LimitNOFILE= starts" 0
check "... and reports its limits" wait_until 10 test -s "$T/report/default"
expect_eq "... systemd's default: soft $SOFT0, hard as svd's" "$SOFT0 $HARD0" \
        "$(sed -n 's/^Max open files *\([0-9]*\) *\([0-9]*\).*/\1 \2/p' "$T/report/default")"

run svctl start biglimit
expect_rc "LimitNOFILE= above svd's hard limit ($HARD) starts" 0
check "... and the service reports its limits" wait_until 10 test -s "$T/report/big"
expect_eq "... set, or clamped to svd's hard limit where svd may not raise it" "$GOT" \
        "$(sed -n 's/^.*:Max open files *\([0-9]*\) *\([0-9]*\).*/\1 \2/p' "$T/report/big")"
check "IgnoreSIGPIPE=no: SIGPIPE has its default action" \
        sh -c '[ $((0x$1 & 0x1000)) -eq 0 ]' sh "$(sed -n 's/^.*:SigIgn:[[:space:]]*//p' "$T/report/big")"

done_testing
