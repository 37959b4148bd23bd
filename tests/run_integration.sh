#!/bin/bash
# Integration tests of the roofplan command line: exit codes, messages,
# JSON members. Run by `make test` with ROOFPLAN pointing at the
# sanitizer build. Each tests/integration/*.sh file is sourced in turn, or
# only the files given as arguments.
set -u
cd "$(dirname "$0")/.."
: "${ROOFPLAN:=build/debug/roofplan}"
export ROOFPLAN
export ASAN_OPTIONS=detect_leaks=1
PY=/usr/bin/python3
export PY
pass=0
fail=0
TMP=$(mktemp -d)
export TMP
# what roofplan keeps in $TMPDIR (a failed gnuplot's scripts) goes away
# with the rest
TMPDIR=$TMP
export TMPDIR
trap 'rm -rf "$TMP"' EXIT

# expect STATUS FRAGMENT -- command...: exit status and a stderr fragment
expect() {
    local want=$1 frag=$2
    shift 3
    "$@" >"$TMP/out" 2>"$TMP/err"
    local got=$?
    if [ "$got" -ne "$want" ] ||
        { [ -n "$frag" ] && ! grep -qF -- "$frag" "$TMP/err" "$TMP/out"; }; then
        echo "FAIL: $* -> exit $got (want $want), output lacks: $frag"
        sed 's/^/    /' "$TMP/err" | head -20
        fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
}

# check NAME COMMAND...: passes when the command succeeds
check() {
    local name=$1
    shift
    if "$@" >"$TMP/check.out" 2>&1; then
        pass=$((pass + 1))
    else
        echo "FAIL: $name"
        sed 's/^/    /' "$TMP/check.out" | head -30
        fail=$((fail + 1))
    fi
}

# mark_stage DIR PID SINCE: writes the mark a run (PID, SINCE) puts into
# its staging directory DIR (src/common/out_dir_stale.h): the clean-up
# removes a stale staging directory only with it
mark_stage() {
    printf 'roofplan staging directory: dev %s ino %s pid %s since %s\n' \
        $(stat -c '%d %i' "$1") "$2" "$3" >"$1/.roofplan-stage"
}

if [ $# -gt 0 ]; then files=("$@"); else files=(tests/integration/*.sh); fi
for f in "${files[@]}"; do
    # shellcheck source=/dev/null
    . "$f"
done

echo "integration: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
