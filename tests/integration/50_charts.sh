# Charts (DESIGN §6, issue 4): written with the report, gnuplot run safely;
# missing, failing and hanging gnuplots; names that try to run commands.
NARROW="--set space.tp=1 --set space.pp=1,16 --set space.ep=1,64 --set space.zero=1,3 --set space.schedule=1f1b,dualpipe --set space.precision=fp8 --set space.recompute=selective --set space.mbs=1"
CHARTS="roofline-ib roofline-nvlink step-breakdown memory sensitivity-ib sensitivity-nvlink waterfall summary"

# every chart's script, data and images
if command -v gnuplot >/dev/null 2>&1; then
    expect 0 "" -- $ROOFPLAN report -q -o "$TMP/c1" $NARROW
    check "the summary card's PDF is one landscape page" bash -c "pdfinfo '$TMP/c1/summary.pdf' | grep -q '^Pages: *1\$' && pdfinfo '$TMP/c1/summary.pdf' | awk '/^Page size/ { exit !(\$3 > \$5) }'"
    for c in $CHARTS; do
        check "$c: .gp .dat .png .svg .pdf written" \
            test -s "$TMP/c1/$c.gp" -a -s "$TMP/c1/$c.dat" -a -s "$TMP/c1/$c.png" \
            -a -s "$TMP/c1/$c.svg" -a -s "$TMP/c1/$c.pdf"
        size='1600 x 900'
        [ "$c" = summary ] && size='1600 x 1000' # the card: a taller page
        check "$c.png is $size" bash -c "file '$TMP/c1/$c.png' | grep -q '$size'"
        check "$c.svg parses" $PY -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$TMP/c1/$c.svg"
    done
    # the kept scripts re-run by hand, as the warning says
    check "scripts re-run with gnuplot in the output directory" \
        bash -c "cd '$TMP/c1' && rm -f roofline-ib.png && gnuplot roofline-ib.gp && test -s roofline-ib.png"
    check "make plots draws out/*.gp" bash -c "rm -rf '$TMP/mp' && mkdir -p '$TMP/mp' && cp -r Makefile '$TMP/mp/' && mkdir '$TMP/mp/out' && cp '$TMP/c1/memory.gp' '$TMP/c1/memory.dat' '$TMP/mp/out/' && make -s -C '$TMP/mp' plots && test -s '$TMP/mp/out/memory.png'"
fi

# --no-charts: no scripts at all
expect 0 "" -- $ROOFPLAN report -q --no-charts -o "$TMP/c2" $NARROW
check "--no-charts writes no chart" test ! -e "$TMP/c2/roofline-ib.gp"

# no gnuplot on PATH: exit 1 with the hint, the earlier report kept
mkdir -p "$TMP/nognuplot"
cp -r "$TMP/c2" "$TMP/c3"
expect 1 "gnuplot not found on PATH: the charts cannot be drawn" -- env PATH="$TMP/nognuplot" $ROOFPLAN report -q -o "$TMP/c3" $NARROW --set space.mbs=2
check "the message says --no-charts" grep -qF -- "--no-charts" "$TMP/err"
check "without gnuplot the earlier report stays as it was" cmp "$TMP/c2/report.xlsx" "$TMP/c3/report.xlsx"
check "without gnuplot nothing is left behind" bash -c "test \$(ls -A '$TMP/c3' | wc -l) -eq \$(ls -A '$TMP/c2' | wc -l)"

# a gnuplot that fails: exit 1, its stderr in the message, the earlier
# report as it was (here: none, so nothing written)
mkdir -p "$TMP/failing"
printf '#!/bin/sh\necho "fake gnuplot: cannot open terminal" >&2\nexit 1\n' >"$TMP/failing/gnuplot"
chmod +x "$TMP/failing/gnuplot"
expect 1 "memory.gp: gnuplot failed (exit status 1): fake gnuplot: cannot open terminal" -- env PATH="$TMP/failing:$PATH" $ROOFPLAN report -q -o "$TMP/c4" $NARROW
check "a failed gnuplot writes no part of the report" bash -c "test -z \"\$(ls -A '$TMP/c4')\""
check "a failed gnuplot still prints the summary" grep -q "ZeRO-1+PP+EP" "$TMP/out"
# the scripts are named where they are (issue 34: the messages named
# $TMP/c4/memory.gp, which the failed report never wrote): kept in a new
# directory under $TMPDIR, each beside its data, which it re-runs on
kept=$(sed -n 's/^roofplan: the charts.* are kept in \(.*\) (the report was not written).*/\1/p' "$TMP/err")
check "a failed gnuplot's message says where the scripts are kept" test -n "$kept"
check "the kept directory is under TMPDIR" test "${kept#"$TMP"/roofplan-charts.}" != "$kept"
check "each script a message names is there" bash -c "
    grep -o '^roofplan: [^ ]*\.gp: gnuplot failed' '$TMP/err' | cut -d' ' -f2 | tr -d : |
    while read -r f; do test -s \"\$f\" -a -s \"\${f%.gp}.dat\" || exit 1; n=1; done"
check "every message names a kept script" test "$(grep -c "^roofplan: $kept/[a-z-]*\.gp: gnuplot failed" "$TMP/err")" -eq "$(grep -c 'gnuplot failed' "$TMP/err")"
if command -v gnuplot >/dev/null 2>&1 && [ -n "$kept" ]; then
    check "a kept script re-runs with gnuplot where it is kept" \
        bash -c "cd '$kept' && gnuplot memory.gp && test -s memory.png"
fi

# a gnuplot that hangs: killed at the deadline, exit 1
mkdir -p "$TMP/hanging"
printf '#!/bin/sh\nsleep 117\n' >"$TMP/hanging/gnuplot"
chmod +x "$TMP/hanging/gnuplot"
start=$(date +%s)
expect 1 "roofline-ib.gp: gnuplot did not finish within 1 s and was killed" -- env ROOFPLAN_GNUPLOT_TIMEOUT=1 PATH="$TMP/hanging:$PATH" $ROOFPLAN report -q -o "$TMP/c5" $NARROW
check "the hanging gnuplot was stopped in time" test $(($(date +%s) - start)) -lt 20
check "the hanging gnuplot's process group was killed" bash -c "! pgrep -f '^(/bin/sh .*/hanging/gnuplot|sleep 117)' >/dev/null"

# a deadline that is not a number was ignored (issue 34 item 13d): bad
# input, exit 2, nothing written
expect 2 "ROOFPLAN_GNUPLOT_TIMEOUT (environment): expected seconds, a number above 0, got \"abc\"" -- env ROOFPLAN_GNUPLOT_TIMEOUT=abc $ROOFPLAN report -q -o "$TMP/c7" $NARROW
check "a bad ROOFPLAN_GNUPLOT_TIMEOUT writes nothing" test ! -e "$TMP/c7"
expect 2 "got \"0\"" -- env ROOFPLAN_GNUPLOT_TIMEOUT=0 $ROOFPLAN report -q -o "$TMP/c7" $NARROW

# PATH with an empty entry (read by POSIX as the working directory): a
# `gnuplot` in the working or output directory is not found, not run
mkdir -p "$TMP/evil"
printf '#!/bin/sh\n: >"%s/ran"\n' "$TMP/evil" >"$TMP/evil/gnuplot" # no PATH needed
chmod +x "$TMP/evil/gnuplot"
expect 1 "gnuplot not found on PATH" -- bash -c "cd '$TMP/evil' && PATH=':$TMP/nognuplot' exec $ROOFPLAN report -q -o . $NARROW"
check "an empty PATH entry ran nothing from the working directory" test ! -e "$TMP/evil/ran"
expect 1 "gnuplot not found on PATH" -- bash -c "cd '$TMP/evil' && PATH='.:evil' exec $ROOFPLAN report -q -o '$TMP/evil' $NARROW"
check "a relative PATH entry ran nothing" test ! -e "$TMP/evil/ran"

# names from data files that try to run commands are shown, not run
if command -v gnuplot >/dev/null 2>&1; then
    hostile='`touch pwned1` system("touch pwned2") @macro it'"'"'s'
    # (a GPU renamed is another GPU: its calibration is renamed with it)
    expect 0 "" -- $ROOFPLAN report -q -o "$TMP/c6" $NARROW --set "model.name=$hostile" \
        --set "gpu.name=@x@ !touch pwned3 ]]>" --set "calibration.hardware_gpu=@x@ !touch pwned3 ]]>"
    check "hostile names ran nothing" test ! -e "$TMP/c6/pwned1" -a ! -e "$TMP/c6/pwned2" -a ! -e "$TMP/c6/pwned3" -a ! -e pwned1 -a ! -e pwned2
    check "hostile names are shown literally" grep -qF '`touch pwned1` system(' "$TMP/c6/roofline-ib.svg"
    check "the quote is doubled in the script" grep -qF "@macro it''s on 2048" "$TMP/c6/memory.gp"
    # gnuplot's SVG terminal does not escape '>': "]]>" must not reach it
    for c in $CHARTS; do
        check "$c.svg parses with ]]> in a name" $PY -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$TMP/c6/$c.svg"
    done
fi
