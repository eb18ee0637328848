#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The lab's suite, run inside the guest by kernel/lab/suite.sh:
#
#   vm-suite.sh MODE
#
# MODE is the spawn mode svd must report on this kernel (autokill or
# fallback). In order: the flag selftests (svd-selftests; on a kernel that
# should have the flags every test must pass, on one that should not they
# must all skip), the same rule for the 6.12 series' in-tree selftest
# pidfd_autoreap_test when kernel/lab/suite.sh put it in the image
# (SVD_LAB_KST=1; otherwise SVD_LAB_KST says why not and it is a SKIP),
# mainline's pidfd and clone3 selftests compared with the kernel's known
# failures (kernel/lab/kselftests.sh; SVD_LAB_MAINLINE_KST=1 and
# SVD_LAB_KERNEL, else a SKIP),
# every end-to-end test of tests/integration (but those whose header says
# "lab: host only", and in a sanitizer build "lab: plain build only", named
# with the reason) with
# SVD_EXPECT_MODE=MODE, then crash.sh once more with 100 services
# (CRASH_SERVICES), whose "# crash-kill:" line is the measured time from
# kill -9 of svd to the death of its last service. A test that skips as a
# whole counts as a failure here: the guest is root with cgroup2 and a test
# user, so nothing the tests need is missing. Ends with one summary line;
# exit 0 only if everything passed.
set -u

mode=${1:?usage: vm-suite.sh autokill|fallback}
case $mode in autokill | fallback) ;; *) echo "vm-suite: unknown mode '$mode'" >&2; exit 2 ;; esac

passed=0
failed=0
failures=

result() { # NAME STATUS
        if [ "$2" = 0 ]; then
                passed=$((passed + 1))
                echo "vm-suite: PASS $1"
        else
                failed=$((failed + 1))
                failures="$failures $1"
                echo "vm-suite: FAIL $1 (status $2)"
        fi
}

echo "vm-suite: kernel $(uname -r), expected mode $mode"

st=$(command -v svd-selftests)
if [ -z "$st" ]; then
        result svd-selftests missing
else
        echo "vm-suite: === svd-selftests"
        "$st"
        rc=$?
        # 77: every test skipped, i.e. the kernel lacks the flags.
        if [ "$mode" = fallback ] && [ "$rc" = 77 ]; then rc=0
        elif [ "$rc" = 77 ]; then rc=skipped-all
        fi
        result svd-selftests "$rc"
fi

# kselftest harness output ends with
#   # Totals: pass:N fail:N xfail:N xpass:N skip:N error:N
if [ "${SVD_LAB_KST:-}" = 1 ]; then
        echo "vm-suite: === pidfd_autoreap_test (the selftest of kernel/patches/6.12)"
        out=$(pidfd_autoreap_test 2>&1)
        rc=$?
        echo "$out"
        totals=$(echo "$out" | sed -n 's/^# Totals: //p' | tail -n 1)
        # " pass:", not "xpass:": match after a space.
        num() { echo " $totals" | sed -n "s/.* $1:\([0-9]*\).*/\1/p"; }
        pass=$(num pass); fail=$(num fail); skip=$(num skip); err=$(num error)
        if [ -z "$totals" ]; then
                rc="no-totals-line(exit-$rc)"
        elif [ "$fail" != 0 ] || [ "$err" != 0 ]; then
                rc="fail=$fail,error=$err"
        elif [ "$mode" = autokill ] && { [ "$skip" != 0 ] || [ "$pass" = 0 ]; }; then
                rc="skipped=$skip-on-a-kernel-with-the-flags"
        elif [ "$mode" = fallback ] && [ "$pass" != 0 ]; then
                rc="passed=$pass-on-a-kernel-without-the-flags"
        else
                rc=0
        fi
        echo "pidfd_autoreap_test: $pass passed, $fail failed, $skip skipped"
        result pidfd_autoreap_test "$rc"
else
        echo "vm-suite: SKIP pidfd_autoreap_test (${SVD_LAB_KST:-not in the image})"
fi

# Mainline's pidfd and clone3 selftests, case by case against this
# kernel's known failures (kernel/lab/kselftests.sh).
if [ "${SVD_LAB_MAINLINE_KST:-}" = 1 ]; then
        echo "vm-suite: === mainline's pidfd and clone3 selftests"
        kselftests.sh "${SVD_LAB_KERNEL:?}" /svd/kst /svd/lab/kselftests-known.tsv
        result kselftests $?
else
        echo "vm-suite: SKIP kselftests (${SVD_LAB_MAINLINE_KST:-not in the image})"
fi

run_test() { # NAME [VAR=VALUE...]
        name=$1
        shift
        echo "vm-suite: === $name $*"
        t0=$(date +%s)
        env SVD_EXPECT_MODE="$mode" "$@" sh "/svd/tests/integration/$name.sh"
        rc=$?
        [ "$rc" = 77 ] && rc=skipped
        echo "vm-suite: $name took $(($(date +%s) - t0)) s"
        result "$name${1:+ $*}" "$rc"
}

# A test whose header says "# lab: host only: REASON" needs what only the
# host has (a container engine); one whose header says "# lab: plain build
# only: REASON" tests code that a sanitizer build leaves out, and is not run
# when suite.sh says the build is one (SVD_LAB_BUILD=sanitizer). Either is
# named with the reason and not run.
for t in /svd/tests/integration/*.sh; do
        why=$(sed -n 's/^# lab: host only: //p' "$t" | head -n 1)
        if [ -n "$why" ]; then
                echo "vm-suite: HOST-ONLY $(basename "$t" .sh) ($why)"
                continue
        fi
        why=$(sed -n 's/^# lab: plain build only: //p' "$t" | head -n 1)
        if [ -n "$why" ] && [ "${SVD_LAB_BUILD:-}" = sanitizer ]; then
                echo "vm-suite: PLAIN-BUILD-ONLY $(basename "$t" .sh) ($why)"
                continue
        fi
        run_test "$(basename "$t" .sh)"
done
run_test crash CRASH_SERVICES=100

echo "vm-suite: kernel $(uname -r) mode $mode: $passed passed, $failed failed${failures:+ (failed:$failures)}"
[ "$failed" = 0 ]
