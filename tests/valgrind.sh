#!/bin/bash
# Memcheck over the release build: `roofplan report` on the default inputs
# and the whole bad-input suite, with zero errors and zero leaks (run by
# .ci/run). valgrind's own report goes to files; an error or leak makes
# roofplan exit 99, which fails the run.
set -u
cd "$(dirname "$0")/.."
if ! command -v valgrind >/dev/null; then
    echo "valgrind: not installed (scripts/deps.sh test installs it); skipped"
    exit 0
fi
LOGS=$(mktemp -d)
trap 'rm -rf "$LOGS"' EXIT
WRAP="$LOGS/roofplan"
cat >"$WRAP" <<WRAPEOF
#!/bin/sh
exec valgrind -q --leak-check=full --show-leak-kinds=definite,indirect \
    --errors-for-leak-kinds=definite,indirect --error-exitcode=99 \
    --log-file=$LOGS/vg.%p $PWD/build/roofplan "\$@"
WRAPEOF
chmod +x "$WRAP"
status=0
if ! "$WRAP" report -q -o "$LOGS/out" >/dev/null; then
    echo "valgrind: roofplan report failed or leaked:"
    cat "$LOGS"/vg.* 2>/dev/null | head -60
    status=1
fi
ROOFPLAN="$WRAP" tests/run_integration.sh tests/integration/30_badinput.sh ||
    status=1
if [ "$status" -ne 0 ]; then
    cat "$LOGS"/vg.* 2>/dev/null | grep -v '^==[0-9]*== *$' | head -80
    exit 1
fi
echo "valgrind: report and bad-input suite clean"
