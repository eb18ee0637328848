#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The sandboxing keys of systemd.exec(5) that change the service's process
# rather than its namespaces, checked from inside the service: KeyringMode=
# (inherit, private, shared: which session keyring the service has, and
# whether the user's keyring is linked into it) and SecureBits= (noroot: root
# gets no capabilities from exec), RemoveIPC= (the System V and POSIX IPC
# objects of the service's user are gone once it stopped, unless a process
# of that user still runs). Keyrings work as any user; SecureBits= and
# RemoveIPC= need root. TAP.

TESTS_DIR=${SVD_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../lib/lib.sh
. "$TESTS_DIR/lib/lib.sh"

setup_test
PROBE=$(find_helper sandbox-probe) || true
[ -n "$PROBE" ] || skip_all "no sandbox-probe helper (SVD_TEST_HELPERS)"

# probed NAME "COMMAND" KEY=VALUE...: a oneshot unit running COMMAND (sh -c)
# with the keys; starts it, sets RC and LOG (what it printed).
probed() {
        _name=$1 _cmd=$2
        shift 2
        {
                echo "[Service]"
                echo "Type=oneshot"
                echo "ExecStart=$SH -c '$_cmd'"
                for _k in "$@"; do echo "$_k"; done
        } >"$UNITS/$_name.service"
        svctl reload >/dev/null 2>&1
        run svctl start "$_name"
        _rc=$RC
        [ "$_rc" = 0 ] || diag "start $_name: $OUT $ERR"
        run svctl logs "$_name"
        LOG=$(printf '%s\n' "$OUT" | sed -n 's/^.*stdout[]:]* //p')
        RC=$_rc
}

start_svd

# svd's session keyring is the one this script has (svd inherits it).
HOST_KEYRING=$("$PROBE" keyring-session)
case $HOST_KEYRING in
keyring-session=[0-9]*)
        probed kr-inherit "$PROBE keyring-session" KeyringMode=inherit
        expect_rc "KeyringMode=inherit starts" 0
        expect_eq "KeyringMode=inherit: svd's session keyring" "$HOST_KEYRING" "$LOG"
        probed kr-private "$PROBE keyring-session keyring-user-linked" KeyringMode=private
        expect_rc "KeyringMode=private starts" 0
        expect_contains "KeyringMode=private: a session keyring" "$LOG" "keyring-session="
        expect_not_contains "KeyringMode=private: not svd's" "$LOG" "$HOST_KEYRING"
        expect_contains "KeyringMode=private: the user's keyring is not in it" "$LOG" "keyring-user-linked=ENOENT"
        probed kr-shared "$PROBE keyring-session keyring-user-linked" KeyringMode=shared
        expect_rc "KeyringMode=shared starts" 0
        expect_not_contains "KeyringMode=shared: a session keyring not svd's" "$LOG" "$HOST_KEYRING"
        expect_contains "KeyringMode=shared: the user's keyring is linked into it" "$LOG" "keyring-user-linked=OK"
        ;;
*)
        for _i in 1 2 3 4 5 6 7 8 9; do skip "KeyringMode=" "no keyrings here ($HOST_KEYRING)"; done
        ;;
esac

if [ "$(id -u)" = 0 ]; then
        CAPEFF='sed -n "s/^CapEff:[[:space:]]*/eff=/p" /proc/self/status'
        probed sb-control "$CAPEFF"
        expect_not_contains "without SecureBits= root has capabilities" "$LOG" "eff=0000000000000000"
        probed sb-noroot "$CAPEFF" "SecureBits=noroot" "SecureBits=noroot-locked"
        expect_rc "SecureBits=noroot noroot-locked starts" 0
        expect_contains "SecureBits=noroot: root gets no capabilities from exec" "$LOG" "eff=0000000000000000"
        probed sb-reset "$CAPEFF" "SecureBits=noroot" "SecureBits="
        expect_not_contains "SecureBits= (empty) resets" "$LOG" "eff=0000000000000000"
else
        for _i in 1 2 3 4; do skip "SecureBits=" "needs root (CAP_SETPCAP)"; done
fi

# RemoveIPC=: objects of uid IPC_UID, made by a service that runs as it.
# ipc_left KIND: how many objects of that uid are left (awk's columns of
# /proc/sysvipc: shm uid 8, sem 5, msg 8; the POSIX ones by name).
IPC_UID=4245 IPC_NAME=svd-ipc-test-$$
ipc_left() {
        case $1 in
        shm) awk -v u=$IPC_UID 'NR > 1 && $8 == u' /proc/sysvipc/shm | grep -c . ;;
        sem) awk -v u=$IPC_UID 'NR > 1 && $5 == u' /proc/sysvipc/sem | grep -c . ;;
        msg) awk -v u=$IPC_UID 'NR > 1 && $8 == u' /proc/sysvipc/msg | grep -c . ;;
        posix) ls /dev/shm/$IPC_NAME /dev/mqueue/$IPC_NAME 2>/dev/null | grep -c . ;;
        esac
}
if [ "$(id -u)" != 0 ]; then
        for _i in 1 2 3 4 5 6 7 8; do skip "RemoveIPC=" "needs root (services of another user)"; done
elif [ ! -r /proc/sysvipc/shm ] || [ ! -d /dev/shm ]; then
        for _i in 1 2 3 4 5 6 7 8; do skip "RemoveIPC=" "no System V IPC or no /dev/shm in this system"; done
elif ! reach_binaries "$IPC_UID" "$IPC_UID"; then
        for _i in 1 2 3 4 5 6 7 8; do skip "RemoveIPC=" "uid $IPC_UID cannot run the probe here"; done
else
        PROBE=$(find_helper sandbox-probe)
        MAKE="$PROBE shmget semget msgget shm-open:/$IPC_NAME mq-open:/$IPC_NAME"
        POSIX=1
        [ -d /dev/mqueue ] && POSIX=2
        probed ipc-keep "$MAKE" "User=$IPC_UID" "Group=$IPC_UID"
        expect_contains "a service of uid $IPC_UID makes IPC objects" "$LOG" "shmget=OK"
        expect_eq "without RemoveIPC= they stay (shm sem msg posix)" "1 1 1 $POSIX" \
                "$(ipc_left shm) $(ipc_left sem) $(ipc_left msg) $(ipc_left posix)"
        # Something else of that uid still runs: RemoveIPC= keeps them.
        write_unit ipc-sleeper <<EOF2
[Service]
ExecStart=$SLEEP 10000
User=$IPC_UID
Group=$IPC_UID
EOF2
        svctl reload >/dev/null 2>&1
        run svctl start ipc-sleeper
        probed ipc-busy "true" "User=$IPC_UID" "Group=$IPC_UID" RemoveIPC=yes
        expect_rc "RemoveIPC= with a process of the uid left: the service ran" 0
        check "... svd saw the process left" wait_until 20 grep -q "ipc-busy: RemoveIPC=: processes of uid $IPC_UID" "$SVD_LOG"
        expect_eq "... and the objects stay" "1 1 1 $POSIX" \
                "$(ipc_left shm) $(ipc_left sem) $(ipc_left msg) $(ipc_left posix)"
        run svctl stop ipc-sleeper
        probed ipc-clean "true" "User=$IPC_UID" "Group=$IPC_UID" RemoveIPC=yes
        expect_rc "RemoveIPC=yes: the service ran" 0
        check "RemoveIPC=yes: once it stopped, its user's objects are gone (shm sem msg posix)" \
                wait_until 20 sh -c "[ \"\$(awk -v u=$IPC_UID 'NR > 1 && (\$8 == u)' /proc/sysvipc/shm /proc/sysvipc/msg; awk -v u=$IPC_UID 'NR > 1 && \$5 == u' /proc/sysvipc/sem; ls /dev/shm/$IPC_NAME /dev/mqueue/$IPC_NAME 2>/dev/null)\" = '' ]"
        expect_eq "... all of them" "0 0 0 0" "$(ipc_left shm) $(ipc_left sem) $(ipc_left msg) $(ipc_left posix)"
        check "svd said so" grep -q "ipc-clean: RemoveIPC=: removed" "$SVD_LOG"
fi

stop_svd
done_testing
