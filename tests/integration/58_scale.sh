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
check "--gpus: the Summary's title, the Families sheet's and every page header name the size detailed (64, --days' pick), not the hardware file's" \
    $PY - "$S/three/report.xlsx" <<'PYEOF'
import sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
for name, want in (("Summary", "Parallelism plan for "), ("Families", "Plan families for ")):
    title = next(c.value for c in wb[name][1] if isinstance(c.value, str) and c.value.startswith(want))
    assert " on 64 x " in title, (name, title)
for ws in wb.worksheets:
    head = ws.oddHeader.left.text or ""
    assert " on 64 x " in head, (ws.title, head)
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
# The days by loss (stdout, under the wall-clock line): from the
# recommended plan's compute days to its wall-clock days, each step to a
# tenth, adding up to the wall-clock days that line prints.
check "stdout's days by loss add up to the wall-clock days printed above them" \
    $PY - "$S/three.out" <<'PYEOF'
import re, sys
out = open(sys.argv[1]).read()
wall = float(re.search(r"^  wall-clock ([0-9.]+) days", out, re.M).group(1))
m = re.search(r"^  days by loss: ([0-9.]+) compute \+ ([0-9.]+) checkpoint writes \+ "
              r"([0-9.]+) restarts and read-back \+ ([0-9.]+) work lost to failures = "
              r"([0-9.]+) wall-clock days$", out, re.M)
assert m, "no days by loss line"
steps = [float(x) for x in m.groups()]
assert round(sum(steps[:4]), 1) == steps[4] == wall, (steps, wall)
# compute days: the expected line's days (3 significant digits)
exp = float(re.search(r"^  expected .* per step, ([0-9.]+) days", out, re.M).group(1))
assert abs(steps[0] - exp) <= 0.051 + 0.005 * exp, (steps[0], exp)
PYEOF
# The Scale chart: its data file by hand from the Scale sheet of the
# same run (tiny-dense, 1e12 tokens, 65,536 tokens a step, $2 a
# GPU-hour), the threshold at 98% so that a size falls under it.
expect 0 "" -- $ROOFPLAN report -q --no-csv $TINY --gpus 8,16,64 --set report.scale_efficiency=0.98 -o "$S/chart"
check "scale.dat: each size's days, range, cost and efficiency by hand, and the first size under 98% marked" \
    $PY - "$S/chart/report.xlsx" "$S/chart/scale.dat" <<'PYEOF'
import sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])["Scale"]
head = [c.value for c in ws[5]]
sheet = [dict(zip(head, [c.value for c in r])) for r in ws.iter_rows(min_row=6, max_row=8)]
dat = [[float(x) for x in l.split()] for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")]
assert [int(d[0]) for d in dat] == [r["GPUs"] for r in sheet] == [8, 16, 64], dat
near = lambda a, b: abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-300)
tps0, under = None, None
for d, r in zip(dat, sheet):
    g = r["GPUs"]
    compute = 1e12 / 65536 * r["Step (s)"] / 86400     # steps x step / s a day
    wall = r["Days (wall-clock)"]
    lo, hi = r["Days, low"] / wall, r["Days, high"] / wall  # the range's factors
    want = [g, compute, compute * lo, compute * hi, wall, r["Days, low"], r["Days, high"],
            wall * 24 * g * 2, r["Days, low"] * 24 * g * 2, r["Days, high"] * 24 * g * 2]
    for k, (got, w) in enumerate(zip(d[:10], want)):
        assert abs(got - w) <= 1e-9 * w, (g, k, got, w)
    tps = 65536 / (r["Step (s)"] * g)
    tps0 = tps0 or tps
    eff = 100 * tps / tps0
    assert abs(d[10] - eff) <= 1e-9 * eff, (g, d[10], eff)
    first = under is None and eff < 98
    under = g if first else under
    assert d[11] == (1 if first else 0), (g, d[11], eff)
assert under == 64, under
PYEOF
check "scale chart drawn (PNG) where gnuplot is" \
    bash -c "! command -v gnuplot >/dev/null || test -s '$S/chart/scale.png'"
# the card's recipe line with a deadline's answer fits the card (170
# characters at its font, as the range line: plot_summary.c RANGE_CHARS);
# the answer whole (plans, costs) ran off its edge
expect 0 "" -- $ROOFPLAN report -q --no-csv $TINY --gpus 8,16,64 --days 20 -o "$S/card"
check "--days: the card's recipe line names the answer in few words and fits" \
    $PY -c "
import re, sys
t = re.search(r\"^recipe_text = '(.*)'$\", open(sys.argv[1]).read(), re.M).group(1).replace(\"''\", \"'\")
assert 'Within 20 days: 64 GPUs at the range' in t, t
assert len(t) <= 170, (len(t), t)
" "$S/card/summary.gp"
expect 0 "" -- $ROOFPLAN report -q --no-csv $TINY --gpus 8 -o "$S/chart1"
check "one size: no scale chart" bash -c "test -s '$S/chart1/summary.gp' && ! ls '$S/chart1'/scale.* 2>/dev/null"
# eval's days by loss, under its expected days: Llama 3 405B on 16,384
# H100 (data/hardware/h100.ini's failure rate, Llama 3's), the steps to a
# tenth adding up to the wall-clock days, which are the compute days over
# the effective-training share it prints.
expect 0 "" -- $ROOFPLAN eval -m data/models/llama-3-405b.ini -g data/hardware/h100.ini gpus=16384 tp=8 pp=16 precision=bf16
check "eval: days by loss add up, from its expected days to compute / share" \
    $PY - "$TMP/out" <<'PYEOF'
import re, sys
out = open(sys.argv[1]).read()
days = float(re.search(r"MFU [0-9.]+%; ([0-9.]+) days, ", out).group(1))
m = re.search(r"with failures and checkpoints \(([0-9.]+)% effective training\): ([0-9.]+) compute \+ "
              r"([0-9.]+) checkpoint writes \+ ([0-9.]+) restarts and read-back \+ ([0-9.]+) work "
              r"lost to failures = ([0-9.]+) wall-clock days", out)
assert m, "no days by loss line"
share, steps = float(m.group(1)) / 100, [float(x) for x in m.groups()[1:]]
assert steps[0] == days, (steps, days)
assert round(sum(steps[:4]), 1) == steps[4], steps
assert all(s > 0 for s in steps[1:4]), steps  # each loss costs days here
assert abs(steps[4] - days / share) <= 0.05 + days * 0.0006, (steps[4], days / share)
PYEOF
