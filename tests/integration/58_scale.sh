# How many GPUs and a deadline (issue 37, items 2 and 3): `report --gpus`
# ranks each cluster size on its own and writes the Scale sheet; --days
# names the smallest size that finishes in time. Checked by hand on
# tests/data/tiny-dense.ini (64 sequences of 1,024 tokens a step, 65,536
# tokens) with a 1e12-token budget on H100s at $2 a GPU-hour
# (data/hardware/h100.ini). Sourced by tests/run_integration.sh.
S="$TMP/scale"
mkdir -p "$S"
TINY="-m tests/data/tiny-dense.ini -g data/hardware/h100.ini
    --set space.tp=1 --set space.pp=1 --set space.ep=1 --set space.cp=1
    --set space.zero=1 --set space.schedule=1f1b --set space.precision=bf16
    --set space.recompute=none --set space.mbs=1 --set training.tokens=1e12"
expect 0 "" -- $ROOFPLAN report -q --no-charts $TINY --gpus 8,16,64 --days 20 -o "$S/three"
cp "$TMP/out" "$S/three.out"
check "--gpus: stdout's scale line, smallest first" \
    grep -q "^Scale (each size ranked on its own; wall-clock days and cost with failures): 8 GPUs: .*; 16: .*; 64: " "$S/three.out"
check "--days 20: the answer on stdout names the smallest size at both ends" \
    grep -q "^Within 20 days (wall-clock days with failures): 64 GPUs (.*), [0-9.]* days, .* at the range's high end; 64 GPUs (.*), [0-9.]* days, .* as expected.$" "$S/three.out"
# each size alone: its recommended plan's step, to hold the Scale sheet's
# rows to (a size ranked among others must rank as it does alone)
for g in 8 16 64; do
    expect 0 "" -- $ROOFPLAN report -q --no-charts $TINY --gpus $g -o "$S/one$g"
    grep "^  expected " "$TMP/out" | sed 's/^  expected \([0-9.]*\) s .*/\1/' >"$S/one$g.step"
done
check "Scale sheet: each size by hand (tokens/s per GPU, efficiency, GPU-hours, cost) and as it ranks alone" \
    $PY - "$S/three/report.xlsx" "$S" <<'PYEOF'
import sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
assert wb.sheetnames[:2] == ["Summary", "Scale"], wb.sheetnames
ws = wb["Scale"]
head = [c.value for c in ws[5]]
rows = [dict(zip(head, [c.value for c in r])) for r in ws.iter_rows(min_row=6, max_row=8)]
assert [r["GPUs"] for r in rows] == [8, 16, 64], rows
tps0 = None
for r in rows:
    g = r["GPUs"]
    alone = float(open(f"{sys.argv[2]}/one{g}.step").read())
    # stdout rounds the step to 3 significant digits
    assert abs(r["Step (s)"] - alone) <= 0.0051 * alone, (g, r["Step (s)"], alone)
    tps = 65536 / (r["Step (s)"] * g)        # tokens a step / (step x GPUs)
    assert abs(r["Tokens/s per GPU"] - tps) < 1e-6 * tps, (r, tps)
    tps0 = tps0 or tps
    assert abs(r["Scaling efficiency"] - tps / tps0) < 1e-9, r
    # compute days: 1e12 / 65,536 steps x step / 86,400; wall-clock no fewer
    compute = 1e12 / 65536 * r["Step (s)"] / 86400
    assert r["Days (wall-clock)"] >= compute * (1 - 1e-12), (r, compute)
    assert r["Days, low"] <= r["Days (wall-clock)"] <= r["Days, high"], r
    assert abs(r["GPU-hours"] - r["Days (wall-clock)"] * 24 * g) < 1e-6 * r["GPU-hours"], r
    assert abs(r["Cost (USD)"] - 2 * r["GPU-hours"]) < 1e-6 * r["Cost (USD)"], r
# the answer: the first size whose high end is within 20 days
first = next(r["GPUs"] for r in rows if r["Days, high"] <= 20)
assert first == 64, first
text = [c.value for c in ws["A"] if isinstance(c.value, str) and c.value.startswith("Within 20 days")]
assert text and text[0].startswith("Within 20 days (wall-clock days with failures): 64 GPUs"), text
PYEOF
check "one size: no Scale sheet" $PY -c "
import sys, openpyxl
assert 'Scale' not in openpyxl.load_workbook(sys.argv[1]).sheetnames
" "$S/one8/report.xlsx"
check "one size: no scale line on stdout" bash -c "! grep -q '^Scale' '$S/one8.step'; ! grep -q '^Scale' '$TMP/out'"
# a deadline no size meets; bad values
expect 0 "" -- $ROOFPLAN report -q --no-charts $TINY --gpus 8,16 --days 1 -o "$S/none"
check "--days 1: none meets it, and the fastest is named" \
    grep -q "^Within 1 days (wall-clock days with failures): no listed size at the range's high end (the fastest, 16 GPUs, takes " "$TMP/out"
expect 2 "roofplan: --gpus 8,x: expected cluster sizes, positive integers separated by commas" -- \
    $ROOFPLAN report -q --no-charts $TINY --gpus 8,x -o "$S/bad"
expect 2 "roofplan: --days -3: expected days, a number above 0" -- \
    $ROOFPLAN report -q --no-charts $TINY --days -3 -o "$S/bad"
expect 2 "roofplan: --budget abc: expected US dollars, a number above 0" -- \
    $ROOFPLAN report -q --no-charts $TINY --budget abc -o "$S/bad"
check "bad options leave no report" test ! -e "$S/bad/report.xlsx"
