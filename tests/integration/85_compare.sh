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
h = [c.value for c in ws[4]]
model, gpu = h.index('Model'), h.index('GPU')
rows = [r for r in ws.iter_rows(min_row=5, values_only=True) if r[model] and r[gpu]]
assert len(rows) == int(sys.argv[2]), (len(rows), sys.argv[2])
assert any(r[model] == 'DeepSeek-V3' and 'H800' in r[gpu] for r in rows)
" "$C/compare.xlsx" $((2 * nm))
# issue 37: grouped by model (a heading with its recipe above its rows,
# the models in the order given), only a model's clusters ranked
check "compare groups by model, each with its recipe; within a model expected against expected; no calibration apart, marked" $PY -c "
import sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])['Compare']
h = [c.value for c in ws[4]]
rank, gpu, model = h.index('Rank (cost, expected; else speed of light)'), h.index('GPU'), h.index('Model')
xcost = [i for i, v in enumerate(h) if v and v.startswith('Cost for the token budget, expected')][0]
groups, order = [], []
for r in ws.iter_rows(min_row=5, values_only=True):
    if r[0] and not r[model] and not r[gpu] and not str(r[0]).startswith('Command: '):
        groups.append((str(r[0]), []))
    elif r[model] and r[gpu]:
        assert groups, ('a row before any model heading', r)
        groups[-1][1].append(r)
names = [g[1][0][model] for g in groups]
assert len(names) == len(set(names)) == int(sys.argv[2]), names  # one group per model
for head, rows in groups:
    assert all(r[model] == rows[0][model] for r in rows), head
    assert head.startswith(rows[0][model] + ' ('), (head, rows[0][model])
    assert 'token budget' in head, head  # its recipe
    rows = [r for r in rows if r[rank] != '-']
    kinds = ['SOL' if 'speed of light only' in str(r[rank]) else 'X' for r in rows]
    assert kinds == sorted(kinds, key=lambda k: k == 'SOL'), kinds  # expected first
    assert all(('MI300X' in r[gpu]) == (k == 'SOL') for r, k in zip(rows, kinds)), [(r[gpu], k) for r, k in zip(rows, kinds)]
    x = [r for r, k in zip(rows, kinds) if k == 'X']
    assert [int(r[rank]) for r in x] == list(range(1, len(x) + 1)), head
    assert [r[xcost] for r in x] == sorted(r[xcost] for r in x), head
" "$C/compare.xlsx" $nm
# compare's row is the plan the report recommends (issue 18, item 1)
expect 0 "" -- ${ROOFPLAN_RELEASE:-$ROOFPLAN} report -q --no-charts --no-csv -o "$C/rep"
rec=$(sed -n 's/^  eval: //p' "$TMP/out")
# the report's range of days: "49.0 days (41.8 to 82.5 days)"
days=$(sed -n 's/^  expected .* per step, \([0-9.]*\) days (\([0-9.]*\) to \([0-9.]*\) days).*/\1 \2 \3/p' "$TMP/out")
expect 0 "" -- $ROOFPLAN compare -q -m data/models/deepseek-v3.ini -g data/hardware/h800.ini -o "$C/one"
check "compare's DeepSeek-V3 on H800 row is the report's recommended plan ($rec)" $PY -c "
import sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])['Compare']
h = [c.value for c in ws[4]]
r = [r for r in ws.iter_rows(min_row=5, values_only=True) if r[1] and r[2]][0]
assert r[h.index('Recommended plan (roofplan eval syntax)')] == sys.argv[2], (r, sys.argv[2])
" "$C/one/compare.xlsx" "$rec"
check "compare's DeepSeek-V3 on H800 row has the report's range of days ($days)" $PY -c "
import sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])['Compare']
h = [c.value for c in ws[4]]
r = [r for r in ws.iter_rows(min_row=5, values_only=True) if r[1] and r[2]][0]
want = [float(v) for v in sys.argv[2].split()]
got = [r[h.index(k)] for k in ('Days for the token budget, expected', 'Days, expected: low end of the range', 'Days, expected: high end of the range')]
assert len(want) == 3 and all(abs(g - w) <= 0.05 for g, w in zip(got, want)), (got, want)
" "$C/one/compare.xlsx" "$days"
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
r = [r for r in ws.iter_rows(min_row=5, values_only=True) if r[1] and r[2]][0]
assert r[h.index('Sequence length (tokens)')] == 8192, r
assert r[h.index('Global batch (sequences)')] == 2048, r
assert 'gbs=2048' in r[h.index('Recommended plan (roofplan eval syntax)')], r
" "$C/llama/compare.xlsx"
