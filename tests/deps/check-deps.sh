#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every program the tree runs comes from a package that
# contrib/install-deps.sh installs (or that every Debian system has).
#
# 1. Each shell script of the tree is parsed with shfmt; every word in
#    command position (following exec, timeout, env, sudo, ...) that is not
#    a function of the scripts, a shell builtin or a path into the tree must
#    be listed in tests/deps/commands.txt. So are the first words of the
#    example units' ExecStart=. A program named only inside a string
#    (sh -c '...', a unit written by a test) is not seen: the table lists
#    those by hand, like the kernel build's own needs.
# 2. Each package of the table is one that `install-deps.sh --lab --test
#    --bench` installs, or has Priority "required" (what debootstrap's
#    minbase variant installs, so every Debian system has it).
# 3. Where the package is installed, the command resolves through PATH to
#    a file of that package (alternatives and the merged /usr followed).
# 4. The same check against a copy of install-deps.sh without rsync must
#    fail: the test can fail.
#
# TAP output; exit 77 without shfmt or jq (install-deps.sh --test brings
# them).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
table=$here/commands.txt

for tool in shfmt jq dpkg-query; do
        if ! command -v "$tool" >/dev/null 2>&1; then
                echo "1..0 # SKIP $tool is not installed (contrib/install-deps.sh --test)"
                exit 77
        fi
done

T=$(mktemp -d "${TMPDIR:-/tmp}/svd-deps.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }

# The shell scripts of the tree (not build trees), with their dialect.
cd "$top" || exit 1
if [ -d .git ] && command -v git >/dev/null 2>&1; then
        git ls-files -- '*.sh' .ci/run >"$T/scripts"
else
        find . -path './build*' -prune -o \( -name '*.sh' -o -path ./.ci/run \) -type f -print |
                sed 's|^\./||' | sort >"$T/scripts"
fi
: >"$T/found"
: >"$T/funcs"
parse_fail=0
while read -r f; do
        lang=posix
        head -n 1 "$f" | grep -q bash && lang=bash
        if ! shfmt -ln "$lang" --tojson <"$f" >"$T/ast" 2>"$T/err"; then
                not_ok "shfmt parses $f: $(head -n 1 "$T/err")"
                parse_fail=1
                continue
        fi
        jq -r -f "$here/commands.jq" "$T/ast" >"$T/words"
        sed -n 's/^F //p' "$T/words" >>"$T/funcs"
        sed -n "s|^C |$f:|p" "$T/words" >>"$T/found"
done <"$T/scripts"
[ "$parse_fail" = 0 ] && ok "shfmt parses all $(wc -l <"$T/scripts") scripts"
for u in units/*.service; do
        sed -n 's/^ExecStart=[-@:+!]*\([^ ]*\).*/\1/p' "$u" | sed "s|^|$u:0 |; s| /.*/| |" >>"$T/found"
done

awk '!/^#/ && NF >= 2 { print $1 }' "$table" | sort -u >"$T/listed"
sort -u "$T/funcs" >"$T/funcs.sorted"
# Command names: not a function, not a builtin or keyword, not a path in the tree.
awk '{ print $2 }' "$T/found" | sort -u | while read -r c; do
        case $c in */*) continue ;; esac
        grep -qxF "$c" "$T/funcs.sorted" && continue
        case $(bash -c "type -t -- '$c'" 2>/dev/null) in builtin | keyword) continue ;; esac
        echo "$c"
done >"$T/commands"
missing=0
while read -r c; do
        if ! grep -qxF "$c" "$T/listed"; then
                where=$(awk -v c="$c" '$2 == c { print $1 }' "$T/found" | head -n 3 | tr '\n' ' ')
                not_ok "'$c' ($where) is listed in tests/deps/commands.txt with its package"
                missing=1
        fi
done <"$T/commands"
[ "$missing" = 0 ] && ok "each of the $(wc -l <"$T/commands") commands the scripts and units run is in the table"

# check_packages INSTALL_DEPS: every package of the table is installed by
# INSTALL_DEPS, is a dependency (Depends, Pre-Depends, recursively) of one
# it installs, or is required; prints the offending rows.
check_packages() {
        sh "$1" --print --lab --test --bench >"$T/pkgs" || return 2
        # shellcheck disable=SC2046
        apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
                --no-enhances $(cat "$T/pkgs") 2>/dev/null | grep -v '^ ' >>"$T/pkgs"
        awk '!/^#/ && NF >= 2 { print $1, $2 }' "$table" | while read -r c p; do
                case $p in
                built) continue ;;
                guest) p=busybox-static ;;
                esac
                grep -qxF "$p" "$T/pkgs" && continue
                prio=$(dpkg-query -W -f='${Priority}' "$p" 2>/dev/null)
                [ "$prio" = required ] && continue
                echo "$c: package $p is neither installed by install-deps.sh nor of Priority required${prio:+ (it is $prio)}"
        done
}
check_packages contrib/install-deps.sh >"$T/bad"
if [ -s "$T/bad" ]; then
        not_ok "every package of the table comes from install-deps.sh or is required"
        sed 's/^/# /' "$T/bad"
else
        ok "every package of the table comes from install-deps.sh or is required"
fi

# The package of each installed command provides it: some executable of
# that name in PATH belongs to it, where symbolic links are followed one at a
# time to the first path a package owns (/usr/bin/cc -> /etc/alternatives/cc
# -> /usr/bin/gcc: gcc), also under the other name of the merged /usr. The
# owners of all those paths come from one dpkg-query call.
IFS=:
# shellcheck disable=SC2086
set -- $PATH
unset IFS
awk '!/^#/ && NF >= 2 { print $1, $2 }' "$table" | while read -r c p; do
        case $p in built | guest) continue ;; esac
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
                echo "$c $p - - -"
                continue
        fi
        for dir; do
                path=$dir/$c
                [ -x "$path" ] || continue
                hops=0
                while [ "$hops" -lt 8 ]; do
                        echo "$c $p $dir $hops $path"
                        next=$(readlink "$path") || break
                        case $next in /*) path=$next ;; *) path=$(dirname "$path")/$next ;; esac
                        hops=$((hops + 1))
                done
        done
        echo "$c $p + - -"
done >"$T/chains"
awk '$5 != "-" { p = $5; print p; if (p ~ /^\/usr\//) print substr(p, 5); else print "/usr" p }' "$T/chains" |
        sort -u | xargs -r dpkg-query -S 2>/dev/null | grep -v '^diversion by' >"$T/owners.all" || :
awk '
FNR == NR {
        i = index($0, ": "); if (!i) next
        pkgs = substr($0, 1, i - 1); path = substr($0, i + 2); sub(/,.*/, "", pkgs); sub(/:.*/, "", pkgs)
        owner[path] = pkgs
        next
}
function owner_of(p,   q) {
        if (p in owner) return owner[p]
        q = (p ~ /^\/usr\//) ? substr(p, 5) : "/usr" p
        return (q in owner) ? owner[q] : ""
}
$3 == "-" { print "ok - " $1 " from " $2 " # SKIP " $2 " is not installed here"; next }
$3 == "+" {
        if (good[$1]) print "ok - " $1 " from " $2
        else if (seen[$1] != "") print "not ok - " $1 " comes from " seen[$1] "but the table says " $2
        else print "not ok - " $1 " is not found in PATH although " $2 " is installed"
        next
}
{
        key = $1 SUBSEP $3
        if (done[key]) next
        o = owner_of($5)
        if (o == "") next
        done[key] = 1
        if (o == $2) good[$1] = 1
        else seen[$1] = seen[$1] $5 ":" o " "
}' "$T/owners.all" "$T/chains" >"$T/provides"
grep '^not ok' "$T/provides" | sed 's/^not ok - //' >"$T/wrong"
if [ -s "$T/wrong" ]; then
        not_ok "each installed package provides its command"
        sed 's/^/# /' "$T/wrong"
else
        ok "each installed package provides its command ($(grep -c '^ok - .*[^P]$' "$T/provides" || :) checked, $(grep -c 'SKIP' "$T/provides" || :) not installed)"
fi

# The check can fail: without rsync in install-deps.sh, the kernel build's
# headers_install has no provider.
sed 's/ rsync"/"/; s/ rsync / /' contrib/install-deps.sh >"$T/install-deps-without-rsync.sh"
check_packages "$T/install-deps-without-rsync.sh" >"$T/bad2"
if grep -q '^rsync: package rsync' "$T/bad2"; then
        ok "an install-deps.sh without rsync fails the check"
else
        not_ok "an install-deps.sh without rsync fails the check"
fi

echo "1..$n"
[ "$failed" = 0 ]
