# --calibrate RUN.ini (issue 12): the stack's free factors fitted to one
# measured run on the shipped data, the leave-one-out table of the other
# runs, the fitted value in the workbook (recalculated by gnumeric where
# it is installed), bounds said, bad run files refused. Sourced by
# tests/run_integration.sh.
CAL=$TMP/calibrate
SMALLCAL=(--set "space.pp=1 16" --set "space.ep=1 64" --set space.tp=1
    --set "space.zero=1 3" --set space.recompute=selective --set space.mbs=1)
export SOURCE_DATE_EPOCH=1735689600

# DeepSeek-V3 on 2048 H800 (19.926 s measured, ISCA'25 Table 4): the fit
# reproduces its step; every other shipped run with a measurement is in
# the leave-one-out table.
expect 0 "fitted compute_overhead = " -- \
    $ROOFPLAN report -q --no-charts "${SMALLCAL[@]}" \
    --calibrate data/validation/deepseek-v3-h800.ini -o "$CAL"
cp "$TMP/out" "$TMP/calibrate.out"
check "DeepSeek-V3's fitted step is within 0.5% of its measured 19.926 s" \
    awk '/measured 19.926 s\/step;/ { n++; r = $0; sub(/.*residual /, "", r);
         sub(/%.*/, "", r); if (r < 0) r = -r; if (r >= 0.5) exit 1 }
         END { exit n == 1 ? 0 : 1 }' "$TMP/calibrate.out"
check "the fit is inside its bounds" \
    grep -q "fitted compute_overhead = 1\.[0-9]* (bounds 1..2, inside)" \
    "$TMP/calibrate.out"
for run in "GPT-3 175B, 64 x A100" "GPT-3 175B, 1536 x A100" \
    "Llama 3 405B long context, 16384 x H100, CP16" \
    "Llama 3 405B pre-training, 16384 x H100" \
    "Llama 3 405B pre-training, 8192 x H100"; do
    check "leave-one-out lists $run with both errors" \
        grep -qE "^  $run.* [0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3} +[-+][0-9.]+% +[0-9]+\.[0-9]{3} +[-+][0-9.]+%$" \
        "$TMP/calibrate.out"
done
check "leave-one-out leaves the fitted run out" \
    test "$(sed -n '/^leave-one-out/,/^  mean/p' "$TMP/calibrate.out" | grep -c 'DeepSeek-V3 pre-training')" -eq 0
check "the mean errors are printed" grep -q "^  mean |error| " "$TMP/calibrate.out"
# The validation block is not fitted: DeepSeek's own run stays at -6%
# (data/calibration/h800.ini measured from its H800 trace; the slowest
# rank at the expected rates and the unequal-stage bubble since).
check "validation runs keep their own stacks' factors" \
    grep -q "expected  18.80 s/step.*(step -6% off the measured)" "$TMP/calibrate.out"

if ! $PY -c 'import openpyxl' 2>/dev/null; then
    echo "SKIP: calibrated workbook checks: no openpyxl"
else
    check "Assumptions: COMPUTE_OVERHEAD holds the fitted value, sourced to the run" \
        $PY - "$CAL/report.xlsx" "$TMP/calibrate.out" <<'PYEOF'
import re, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
fit = float(re.search(r"fitted compute_overhead = ([0-9.]+)",
                      open(sys.argv[2]).read()).group(1))
sheet, cell = list(wb.defined_names["COMPUTE_OVERHEAD"].destinations)[0]
ws = wb[sheet]
row = ws[cell.replace("$", "")].row
value = ws.cell(row=row, column=2).value
source = ws.cell(row=row, column=6).value
assert abs(value - fit) < 5e-5, (value, fit)
assert source.startswith("fitted by --calibrate to DeepSeek-V3 pre-training"), source
plans = wb["Plans"]
formulas = [c.value for c in plans[2] if isinstance(c.value, str)]
assert any("COMPUTE_OVERHEAD" in f for f in formulas), "no formula reads it"
assert any("NETWORK_EFFICIENCY" in f for f in formulas), "no formula reads it"
PYEOF
    if command -v ssconvert >/dev/null; then
        SS="ssconvert -S -O format=raw -T Gnumeric_stf:stf_assistant"
        mkdir -p "$TMP/calc" "$TMP/calr"
        $SS "$CAL/report.xlsx" "$TMP/calc/r_%n_%s.csv" >"$TMP/ss5.log" 2>&1
        $SS --recalc "$CAL/report.xlsx" "$TMP/calr/r_%n_%s.csv" >"$TMP/ss6.log" 2>&1
        check "calibrated workbook: every formula recalculates to its cached value (gnumeric)" \
            $PY tests/xlsx_check.py compare "$TMP/calc" "$TMP/calr"
    fi
fi

# eval --calibrate: DeepSeek's published plan on its own fit takes its
# measured 19.926 s; the fit's text goes to stderr beside --json, whose
# waterfall ends with the fitted factors.
DS="gpus=2048 tp=1 pp=16 ep=64 zero=1 schedule=dualpipe precision=fp8 recompute=selective mbs=1 gbs=15360"
expect 0 "leave-one-out" -- \
    $ROOFPLAN eval --json --calibrate data/validation/deepseek-v3-h800.ini $DS
check "eval --json --calibrate: expected = the measured step, last effect the fit" \
    $PY -c "
import json, sys
j = json.load(open(sys.argv[1]))
assert abs(j['time_s']['expected'] / 19.926 - 1) < 1e-6, j['time_s']['expected']
assert j['waterfall'][-1]['effect'] == 'stack factors (fitted)', j['waterfall'][-1]
assert j['waterfall'][-1]['seconds'] > 1, j['waterfall'][-1]
" "$TMP/out"
expect 0 "" -- $ROOFPLAN eval --json $DS
check "without --calibrate the waterfall has no fitted effect" \
    bash -c "! grep -q 'stack factors' '$TMP/out'"

# Llama 3 405B runs: the expected step is already above the measured, so
# compute_overhead stops at its lower bound, and says so.
expect 0 "BOUND HIT at 1: with the least overhead the expected step is already" -- \
    $ROOFPLAN eval --calibrate data/validation/llama3-405b-h100-8k.ini $DS

# A stack whose compute_overhead already sits at its upper bound (2) and a
# run measured three times slower: the fit stops at 2 with the expected
# step still below the measured one. It was explained backwards ("with the
# least overhead the expected step is already -N% above"; issue 20).
sed 's/^\[stack\]$/[stack]\ncompute_overhead = 2/' data/stacks/deepseek-hai.ini >"$TMP/stack-at-2.ini"
printf '[run]\nname = slow\nmodel = models/deepseek-v3.ini\nhardware = hardware/h800.ini\nplan = %s\nstep_s = 60\nstack = %s\n' \
    "$DS" "$TMP/stack-at-2.ini" >"$TMP/slowrun.ini"
expect 0 "BOUND HIT at 2: with the most overhead the expected step is still" -- \
    $ROOFPLAN eval --calibrate "$TMP/slowrun.ini" $DS
check "a bound hit at the stack's own value is not explained backwards" \
    bash -c "! grep -q 'with the least overhead' '$TMP/out'"

# Bad run files: file:line: key: problem, exit 2.
printf '[run]\nname = x\nmodel = models/deepseek-v3.ini\nhardware = hardware/h800.ini\nplan = gpus=2048 pp=16 ep=64\nstep_s = fast\nstack = stacks/deepseek-hai.ini\n' >"$TMP/badrun.ini"
expect 2 "$TMP/badrun.ini:6: run.step_s: expected a number" -- \
    $ROOFPLAN eval --calibrate "$TMP/badrun.ini" $DS
sed -i 's/^step_s = fast$/tflops_per_gpu = 0/' "$TMP/badrun.ini"
expect 2 "$TMP/badrun.ini: run.step_s: missing: --calibrate needs the run's measured step_s or tflops_per_gpu" -- \
    $ROOFPLAN eval --calibrate "$TMP/badrun.ini" $DS
sed -i 's/^tflops_per_gpu = 0$/step_s = 20/; s/ep=64/ep=7/' "$TMP/badrun.ini"
expect 2 "$TMP/badrun.ini:5: run.plan: ep=7 does not divide the 256 routed experts" -- \
    $ROOFPLAN report -q --no-charts --calibrate "$TMP/badrun.ini" -o "$TMP/badcal"
check "a refused calibration writes no report" test ! -e "$TMP/badcal/report.xlsx"
expect 2 "$TMP/nothere.ini: cannot open" -- \
    $ROOFPLAN eval --calibrate "$TMP/nothere.ini" $DS
unset SOURCE_DATE_EPOCH
