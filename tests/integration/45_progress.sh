# roofplan report --progress (issue 19): the progress line's form on
# stderr when asked for off a terminal (a file here): each step (sweep,
# plans.csv, report.xlsx, charts (the PNGs), packing report.xlsx, SVG and
# PDF) rewritten in place with '\r' and ended
# with its total on a line of its own; nothing of it without --progress
# (stderr is not a terminal) and under -q unless asked; stdout the same
# either way. The lines' form only, never their timing. Sourced by
# tests/run_integration.sh.
P=$TMP/progress
SMALL_P=(--set "space.tp=1 2" --set space.pp=1 --set "space.ep=1 8"
    --set "space.zero=1 3" --set space.schedule=1f1b
    --set space.recompute=full --set space.mbs=1)
CHARTS_P=--no-charts
command -v gnuplot >/dev/null && CHARTS_P=

expect 0 "" -- $ROOFPLAN report --progress $CHARTS_P -o "$P/a" "${SMALL_P[@]}"
cp "$TMP/err" "$P.err"
cp "$TMP/out" "$P.out"
check "--progress: every piece of stderr is a progress line or a closing line" \
    $PY - "$P.err" <<'PYEOF'
import re, sys
text = open(sys.argv[1]).read()
n = r"[0-9]{1,3}(,[0-9]{3})*"
t = r"[0-9]+\.[0-9] s"
step = r"(sweep|plans\.csv|report\.xlsx|charts|SVG and PDF)"
going = re.compile(rf"roofplan: {step}: {n}( of {n})? [A-Za-z. ]+?"
                   rf"( \([0-9]+%\))?, {t}(, about [0-9]+(\.[0-9])? s left)? *$")
ended = re.compile(rf"roofplan: {step}: {n} [A-Za-z. ]+ in {t} *$")
bare = re.compile(rf"roofplan: (packing report\.xlsx)(, | in ){t} *$")
closing = re.compile(r"roofplan: ([0-9]+ plans enumerated|[0-9]+ valid plans "
                     r"are not on)")
seen = set()
for line in text.split("\n"):
    pieces = line.split("\r")
    for k, p in enumerate(pieces):
        if p == "" or closing.match(p):
            continue
        m = going.match(p) or ended.match(p) or bare.match(p)
        assert m, repr(p)
        if ended.match(p) or bare.match(p) and " in " in p:
            # a step's last line: the last piece of its line
            assert k == len(pieces) - 1, repr(line)
            seen.add(m.group(1))
want = {"sweep", "plans.csv", "report.xlsx", "packing report.xlsx"}
assert want <= seen, (want, seen)
PYEOF
check "--progress: the sweep's last line counts every combination" \
    grep -qE "sweep: [0-9,]+ combinations in [0-9.]+ s" "$P.err"
check "--progress: the sweep's total is the closing line's" \
    bash -c "a=\$(grep -oE 'sweep: [0-9,]+ combinations in' '$P.err' | tr -dc 0-9); b=\$(grep -oE '[0-9]+ plans enumerated' '$P.err' | tr -dc 0-9); [ \"\$a\" = \"\$b\" ]"
if [ -z "$CHARTS_P" ]; then
    check "--progress: the charts' step" grep -qE "charts: [0-9]+ charts in" "$P.err"
fi

expect 0 "" -- $ROOFPLAN report $CHARTS_P -o "$P/b" "${SMALL_P[@]}"
check "without --progress, stderr not a terminal: no progress line" \
    bash -c "! grep -q \$'\\r' '$TMP/err' && ! grep -q 'combinations in' '$TMP/err'"
check "stdout is the same with and without --progress" cmp "$P.out" "$TMP/out"
expect 0 "" -- $ROOFPLAN report -q --progress --no-charts -o "$P/c" "${SMALL_P[@]}"
check "-q --progress: asked for, shown" grep -q "sweep: " "$TMP/err"
expect 0 "" -- $ROOFPLAN report -q --no-charts -o "$P/d" "${SMALL_P[@]}"
check "-q: nothing on stderr" test ! -s "$TMP/err"
