#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The man pages cannot drift from the code: every command and option that
# `svctl --help` and `svd --help` print, every key of the unit parser's
# table (printed by svd-unit-keys from the table itself) and every key of
# svd.conf (svd-conf-keys, in svd.8), must have an entry
# in the pages' sources (contrib/man/*.scd): a line that starts with a bold
# term, holds it in bold ("*start*", "*--socket*", "*ExecStart=*") and is
# followed by an indented description. Keys
# the table marks as not supported yet must be listed under "KEYS NOT
# SUPPORTED YET" and the others above it; a key the page lists that the
# table lacks fails as well. Last, the same check against pages with one
# entry taken out must fail, so that the test can fail.
#
# TAP output. Needs SVD, SVCTL, SVD_UNIT_KEYS, SVD_CONF_KEYS and SVD_SOURCE_DIR (ctest sets them).
set -u
: "${SVD:?}" "${SVCTL:?}" "${SVD_UNIT_KEYS:?}" "${SVD_CONF_KEYS:?}" "${SVD_SOURCE_DIR:?}"

T=$(mktemp -d "${TMPDIR:-/tmp}/svd-man.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }

"$SVCTL" --help >"$T/svctl.help" || { echo "Bail out! svctl --help failed"; exit 1; }
"$SVD" --help >"$T/svd.help" || { echo "Bail out! svd --help failed"; exit 1; }
"$SVD_UNIT_KEYS" >"$T/keys" || { echo "Bail out! svd-unit-keys failed"; exit 1; }
"$SVD_CONF_KEYS" | sed 's/$/=/' >"$T/svd.conf.keys" || { echo "Bail out! svd-conf-keys failed"; exit 1; }

# The commands: the first word of each line of the "Commands:" block.
awk '/^Commands:/ { on = 1; next } on && /^$/ { on = 0 } on && /^  [a-z]/ { print $1 }' \
        "$T/svctl.help" >"$T/svctl.verbs"
# The options: the leading words of a line that starts with an option ("-s --signal=SIGNAL").
options() {
        awk '/^ +-/ { for (i = 1; i <= NF && substr($i, 1, 1) == "-"; i++) { sub(/=.*/, "", $i); print $i } }' "$1"
}
options "$T/svctl.help" >"$T/svctl.options"
options "$T/svd.help" >"$T/svd.options"

# The entries of a page: a line that begins with a bold term and is followed
# by an indented description.
terms() { awk 'prev ~ /^\*/ && /^\t/ { print prev } { prev = $0 }' "$1"; }

# check DIR: prints one line per missing or stray entry; fails if there is any.
check() {
        dir=$1
        bad=0
        for pair in "svctl.verbs svctl.1" "svctl.options svctl.1" "svd.options svd.8" "svd.conf.keys svd.8"; do
                set -- $pair
                terms "$dir/$2.scd" >"$T/terms"
                while read -r w; do
                        grep -qF "*$w*" "$T/terms" || { echo "$2: no entry for '$w' ($1)"; bad=1; }
                done <"$T/$1"
        done

        page=$dir/svd.unit.5.scd
        # Entries above "# KEYS NOT SUPPORTED YET" and below it.
        terms "$page" >"$T/page.terms"
        awk '/^# KEYS NOT SUPPORTED YET/ { exit } { print }' "$page" >"$T/page.done"
        terms "$T/page.done" >"$T/keys.done"
        grep -vxF -f "$T/keys.done" "$T/page.terms" >"$T/keys.notyet"
        while read -r section key state; do
                if [ "$state" = implemented ]; then
                        grep -qF "*$key=*" "$T/keys.done" ||
                                { echo "svd.unit.5: no entry for '$key=' ([$section])"; bad=1; }
                else
                        grep -qF "*$key=*" "$T/keys.notyet" ||
                                { echo "svd.unit.5: '$key=' ([$section]) not under KEYS NOT SUPPORTED YET"; bad=1; }
                fi
        done <"$T/keys"
        grep -o '\*[A-Za-z]*=\*' "$T/page.terms" | tr -d '*=' | sort -u >"$T/page.keys"
        while read -r key; do
                awk -v k="$key" '$2 == k { found = 1 } END { exit !found }' "$T/keys" ||
                        { echo "svd.unit.5: '$key=' is not a key of the unit parser"; bad=1; }
        done <"$T/page.keys"
        return $bad
}

man=$SVD_SOURCE_DIR/contrib/man
for f in svctl.verbs svctl.options svd.options svd.conf.keys keys; do
        [ -s "$T/$f" ] || { echo "Bail out! nothing read for $f"; exit 1; }
done
if check "$man" >"$T/out"; then
        ok "svctl.1, svd.8 and svd.unit.5 document $(wc -l <"$T/svctl.verbs") commands," \
                "$(sort -u "$T/svctl.options" "$T/svd.options" | wc -l) options, $(wc -l <"$T/svd.conf.keys") keys of" \
                "svd.conf and $(wc -l <"$T/keys") rows of the unit key table"
else
        sed 's/^/# /' "$T/out"
        not_ok "the man pages document every command, option and key"
fi

# The check fails on pages that miss one entry of each kind.
mkdir "$T/broken"
cp "$man"/*.scd "$T/broken/"
sed -i '/^\*daemon-reexec\*$/d' "$T/broken/svctl.1.scd"
sed -i '/^\*--state-version\*$/d; /^\*DefaultTimeoutStopSec=\*$/d' "$T/broken/svd.8.scd"
# A key the table does not support yet, taken out of its entry (first, middle or last of a list).
notyet=$(awk '$3 != "implemented" { print $2; exit }' "$T/keys")
sed -i "/^\*ExecStart=\*\$/d; s/^\*$notyet=\*, //; s/, \*$notyet=\*//; /^\*$notyet=\*\$/d" \
        "$T/broken/svd.unit.5.scd"
printf '*NoSuchKey=*\n\tNot a key.\n' >>"$T/broken/svd.unit.5.scd"
check "$T/broken" >"$T/out.broken"
for want in "no entry for 'daemon-reexec'" "no entry for '--state-version'" "no entry for 'ExecStart='" \
        "no entry for 'DefaultTimeoutStopSec='" \
        "'$notyet=' (" "'NoSuchKey=' is not a key"; do
        if grep -qF "$want" "$T/out.broken"; then
                ok "a page without its entry fails: $want"
        else
                not_ok "a page without its entry fails: $want"
        fi
done

# The bash completion offers every command and every long option of `svctl --help`.
# complete_check FILE: one line per command or option FILE's lists lack.
complete_check() {
        awk '/local commands=/ { on = 1 } on { print } on && /\x27$/ && !/=\x27[^\x27]*$/ { on = 0 }' "$1" |
                tr -s " '\t" '\n' >"$T/words"
        awk '/local options=/ { on = 1 } on { print } on && /\x27$/ && !/=\x27[^\x27]*$/ { on = 0 }' "$1" |
                tr -s " '\t" '\n' >>"$T/words"
        while read -r w; do
                case $w in --*) ;; -*) continue ;; esac
                grep -qxF -- "$w" "$T/words" || echo "completion: no '$w'"
        done <"$T/svctl.verbs" 2>/dev/null
        grep -h -- '^--' "$T/svctl.options" | while read -r w; do
                grep -qxF -- "$w" "$T/words" || echo "completion: no '$w'"
        done
}
completion=$SVD_SOURCE_DIR/contrib/svctl.bash-completion
complete_check "$completion" >"$T/out.complete"
if [ ! -s "$T/out.complete" ]; then
        ok "the bash completion offers every command and long option of svctl --help"
else
        sed 's/^/# /' "$T/out.complete"
        not_ok "the bash completion offers every command and long option of svctl --help"
fi
sed -e 's/ daemon-reexec//' -e 's/ --follow//' "$completion" >"$T/broken.completion"
complete_check "$T/broken.completion" >"$T/out.complete.broken"
for want in "no 'daemon-reexec'" "no '--follow'"; do
        if grep -qF "$want" "$T/out.complete.broken"; then
                ok "a completion without it fails: $want"
        else
                not_ok "a completion without it fails: $want"
        fi
done

echo "1..$n"
[ "$failed" = 0 ]
