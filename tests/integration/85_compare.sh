# compare (issue 13): the recommended plan per (model, hardware) pair, one
# workbook. Every shipped model against two clusters (the MI300X under a
# file name with no calibration beside it in data/calibration: ranked
# apart, at the speed of light only; issue 18).
C="$TMP/cmp"
# (its collectives file, ../collectives/rccl-mi300.ini, copied beside it)
mkdir -p "$TMP/hw" && cp -r data/collectives "$TMP/collectives"
cp data/hardware/mi300x.ini "$TMP/hw/mi300x-uncalibrated.ini"
models=()
for f in data/models/*.ini; do models+=(-m "$f"); done
expect 0 "wrote $C/compare.xlsx" -- $ROOFPLAN compare "${models[@]}" -g data/hardware/h800.ini -g "$TMP/hw/mi300x-uncalibrated.ini" -o "$C"
nm=$(ls data/models/*.ini | wc -l)
check "compare prints one row per pair" test "$(grep -c 'x\|NVIDIA\|AMD' "$TMP/out")" -ge $((2 * nm))
check "compare's workbook has one row per pair" $PY -c "
import sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])['Compare']
rows = [r for r in ws.iter_rows(min_row=5, values_only=True) if r[1] and r[2]]
assert len(rows) == int(sys.argv[2]), (len(rows), sys.argv[2])
assert any(r[1] == 'DeepSeek-V3' and 'H800' in r[2] for r in rows)
" "$C/compare.xlsx" $((2 * nm))
check "compare ranks expected against expected; no calibration ranked apart, marked" $PY -c "
import sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])['Compare']
h = [c.value for c in ws[4]]
rank, gpu = h.index('Rank (cost, expected; else speed of light)'), h.index('GPU')
xcost = [i for i, v in enumerate(h) if v and v.startswith('Cost for the token budget, expected')][0]
rows = [r for r in ws.iter_rows(min_row=5, values_only=True) if r[1] and r[2] and r[rank] != '-']
kinds = ['SOL' if 'speed of light only' in str(r[rank]) else 'X' for r in rows]
assert kinds == sorted(kinds, key=lambda k: k == 'SOL'), kinds  # expected first
assert all(('MI300X' in r[gpu]) == (k == 'SOL') for r, k in zip(rows, kinds)), [(r[gpu], k) for r, k in zip(rows, kinds)]
x = [r for r, k in zip(rows, kinds) if k == 'X']
assert [int(r[rank]) for r in x] == list(range(1, len(x) + 1))
assert [r[xcost] for r in x] == sorted(r[xcost] for r in x)
" "$C/compare.xlsx"
# compare's row is the plan the report recommends (issue 18, item 1)
expect 0 "" -- ${ROOFPLAN_RELEASE:-$ROOFPLAN} report -q --no-charts --no-csv -o "$C/rep"
rec=$(sed -n 's/^  eval: //p' "$TMP/out")
expect 0 "" -- $ROOFPLAN compare -q -m data/models/deepseek-v3.ini -g data/hardware/h800.ini -o "$C/one"
check "compare's DeepSeek-V3 on H800 row is the report's recommended plan ($rec)" $PY -c "
import sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])['Compare']
h = [c.value for c in ws[4]]
r = list(ws.iter_rows(min_row=5, max_row=5, values_only=True))[0]
assert r[h.index('Recommended plan (roofplan eval syntax)')] == sys.argv[2], (r, sys.argv[2])
" "$C/one/compare.xlsx" "$rec"
# a config.json model compares like its INI
expect 0 "" -- $ROOFPLAN compare -q -m tests/data/hf/deepseek-v3.config.json -m data/models/deepseek-v3.ini -g data/hardware/h800.ini -o "$C/json"
check "a config.json and its INI give the same recommended plan" $PY -c "
import sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])['Compare']
h = [c.value for c in ws[4]]
plans = {r[h.index('Recommended plan (roofplan eval syntax)')] for r in ws.iter_rows(min_row=5, values_only=True) if r[1] and r[2]}
assert len(plans) == 1, plans
" "$C/json/compare.xlsx"
expect 2 "unexpected argument" -- $ROOFPLAN compare extra
# issue 18, item 6: each model at its own batch, where its file gives one:
# Llama 3 405B's is 2048 sequences of 8192 tokens (16M tokens per batch,
# the Llama 3 paper's Table 4), not the default sweep's 15,360.
expect 0 "" -- $ROOFPLAN compare -q -m data/models/llama-3-405b.ini -g data/hardware/h100.ini -o "$C/llama"
check "compare: Llama 3 405B at its own sequence length and batch" $PY -c "
import sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])['Compare']
h = [c.value for c in ws[4]]
r = list(ws.iter_rows(min_row=5, max_row=5, values_only=True))[0]
assert r[h.index('Sequence length (tokens)')] == 8192, r
assert r[h.index('Global batch (sequences)')] == 2048, r
assert 'gbs=2048' in r[h.index('Recommended plan (roofplan eval syntax)')], r
" "$C/llama/compare.xlsx"
