#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The sandboxing keys of systemd.exec(5) that change the service's process
# rather than its namespaces, checked from inside the service: KeyringMode=
# (inherit, private, shared: which session keyring the service has, and
# whether the user's keyring is linked into it) and SecureBits= (noroot: root
# gets no capabilities from exec). Keyrings work as any user; SecureBits=
# needs root. TAP.

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

stop_svd
done_testing
