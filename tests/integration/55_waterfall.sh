# The waterfall from the speed of light to the expected step (issue 12):
# the chart in a default report (its data file's bars against `eval
# --json` of the same plans), the Summary's table and the Validation
# sheet's expected columns in the workbook, and no waterfall at all when
# the report has no expected step. Sourced by tests/run_integration.sh.
WF_RP=${ROOFPLAN_RELEASE:-$ROOFPLAN} # the release build: the full sweep
WF=$TMP/waterfall

if command -v gnuplot >/dev/null 2>&1; then
    expect 0 "" -- $WF_RP report -q -o "$WF"
    check "waterfall: .gp .dat .png .svg .pdf in the default report" \
        test -s "$WF/waterfall.gp" -a -s "$WF/waterfall.dat" -a -s "$WF/waterfall.png" \
        -a -s "$WF/waterfall.svg" -a -s "$WF/waterfall.pdf"
    check "waterfall.png is 1600x900" bash -c "file '$WF/waterfall.png' | grep -q '1600 x 900'"
    check "waterfall.svg parses" $PY -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$WF/waterfall.svg"

    # Each block's bars against eval's JSON for its plan: the first bar
    # is time_s.step, each effect the JSON waterfall's seconds, the last
    # bar time_s.expected (to 1e-6 s). The published run's plan is
    # evaluated with its own stack, as the Validation sheet predicts it.
    check "the waterfall's bars are eval's (recommended plan and published run)" \
        $PY - "$WF/waterfall.dat" "$ROOFPLAN" <<'PYEOF'
import json, re, subprocess, sys
dat, rp = sys.argv[1], sys.argv[2]
text = open(dat).read()
plans = dict(re.findall(r"^# plan (\d): (\S.*?)(?: \(the published run;.*)?$", text, re.M))
assert "0" in plans and "1" in plans, plans
blocks = [b for b in text.split("\n\n\n") if b.strip()]
rows = [[list(map(float, l.split())) for l in b.splitlines() if l and l[0] != "#"]
        for b in blocks]
assert len(rows) == 2 and all(len(r) == 10 for r in rows), rows
stack = {"0": [], "1": ["--stack", "data/stacks/deepseek-hai.ini"]}
for b in ("0", "1"):
    out = subprocess.run([rp, "eval", "--json", *stack[b], plans[b]],
                         capture_output=True, text=True, check=True).stdout
    j = json.loads(out)
    r = rows[int(b)]
    # the first bar is the plan's speed of light (issue 36 item 4), the
    # floor every other place prints, whichever rank the expected step is of
    assert abs(r[0][2] - j["waterfall"][0]["seconds"]) < 1e-6, (b, r[0], j["waterfall"])
    assert j["waterfall"][0]["rank"] == j["critical_rank"], j["waterfall"][0]
    assert abs(r[0][2] - j["time_s"]["step"]) < 1e-6, (b, r[0], j["time_s"])
    # this sweep's two plans are slowest on the same rank at both rates:
    # no step down to another rank's floor
    assert j["expected_rank"] == j["critical_rank"], j
    assert abs(r[-1][2] - j["time_s"]["expected"]) < 1e-6, (b, r[-1], j["time_s"])
    effects = [e["seconds"] for e in j["waterfall"][1:]]
    # eight effects (the stack's factors neutral: not shown)
    assert len(effects) == 8
    for row, s in zip(r[1:9], effects):
        assert abs(row[3] - s) < 1e-6, (b, row, s)
    # floating bars: each starts where the one above ended
    for above, row in zip(r[:8], r[1:9]):
        assert above[2] == row[1], (above, row)
    assert abs(sum(row[3] for row in r[1:9]) - (r[-1][2] - r[0][2])) < 1e-6
    # the expected figures follow from the expected step as the speed of
    # light's do from its step: throughput and days scale by step/expected,
    # cost with days (same GPUs, same price)
    x, t = j["expected"], j["time_s"]
    q = t["step"] / t["expected"]
    assert abs(x["step_s"] - t["expected"]) < 1e-9, x
    assert abs(x["tokens_per_s_per_gpu"] / (j["tokens_per_s_per_gpu"] * q) - 1) < 1e-9, x
    assert abs(x["mfu_bf16_peak"] / (j["mfu_bf16_peak"] * q) - 1) < 1e-9, x
    assert abs(x["days"] * q / j["days"] - 1) < 1e-9, x
    assert abs(x["cost_usd"] * q / j["cost_usd"] - 1) < 1e-9, x
assert "measured 19.926 s" in text, "DeepSeek ISCA'25 Table 4: 19.926 s"
PYEOF

    if $PY -c 'import openpyxl' 2>/dev/null; then
        check "the Summary's waterfall table and chart, the Validation sheet's expected columns" \
            $PY - "$WF/report.xlsx" "$WF/waterfall.dat" <<'PYEOF'
import sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
rows = [list(map(float, l.split())) for l in open(sys.argv[2]).read().split("\n\n\n")[0].splitlines()
        if l and l[0] != "#"]
ws = wb["Summary"]
cells = {c.value: c for row in ws.iter_rows() for c in row if isinstance(c.value, str)}
head = cells["Effect"]
header = [ws.cell(head.row, c).value for c in range(head.column, head.column + 8)]
for want in ("Seconds", "Share of the gap", "Cumulative step (s)"):
    assert want in header, header
col = {h: head.column + i for i, h in enumerate(header) if h}
def row_of(label):
    for r in range(head.row + 1, head.row + 12):
        if ws.cell(r, head.column).value == label:
            return r
    raise AssertionError(label)
def row_like(prefix):
    for r in range(head.row + 1, head.row + 12):
        if str(ws.cell(r, head.column).value).startswith(prefix):
            return r
    raise AssertionError(prefix)
sol, expected = row_like("Speed of light"), row_of("Expected step")
assert abs(ws.cell(sol, col["Seconds"]).value - rows[0][2]) < 1e-9
assert abs(ws.cell(expected, col["Seconds"]).value - rows[-1][2]) < 1e-9
assert abs(ws.cell(expected, col["Cumulative step (s)"]).value - rows[-1][2]) < 1e-9
shares = [ws.cell(r, col["Share of the gap"]).value for r in range(sol + 1, sol + 8)]
assert abs(sum(shares) - 1) < 1e-9, shares
gap = row_of("Gap: all effects")
assert abs(ws.cell(gap, col["Seconds"]).value - (rows[-1][2] - rows[0][2])) < 1e-9
# issue 17 item 5: the expected step by phase on the critical rank,
# five rows under their header, summing to the expected step
assert str(ws.cell(expected + 1, head.column).value).startswith("Phases of the expected step"), "phases"
phases = [ws.cell(r, col["Seconds"]).value for r in range(expected + 2, expected + 7)]
assert abs(sum(phases) - rows[-1][2]) < 1e-9, phases
assert abs(ws.cell(expected + 6, col["Cumulative step (s)"]).value - rows[-1][2]) < 1e-9
assert any("not live formulas" in str(c.value) for c in ws[expected + 7]), "the note says values"
# the step-time and waterfall PNGs in the drawing of Families, the
# second sheet (openpyxl reads images only with Pillow: read the parts)
import re, zipfile
z = zipfile.ZipFile(sys.argv[1])
rels = z.read("xl/worksheets/_rels/sheet2.xml.rels").decode()
drawing = re.search(r'Target="\.\./drawings/(drawing\d+\.xml)"', rels).group(1)
images = z.read("xl/drawings/_rels/%s.rels" % drawing).decode().count("../media/")
assert images == 2, ("step-time and waterfall charts", images)
v = wb["Validation"]
vh = {c.value: c.column for c in next(r for r in v.iter_rows() if r[0].value == "Run")}
for h in ("Expected step (s)", "Expected vs measured", "Expected TFLOP/s per GPU",
          "Expected MFU", "Calibration file (expected)", "Stack file (expected)"):
    assert h in vh, (h, list(vh))
ds = next(r for r in v.iter_rows() if str(r[0].value).startswith("DeepSeek-V3 pre-training"))
x = ds[vh["Expected step (s)"] - 1].value
assert abs(ds[vh["Expected vs measured"] - 1].value - (x / 19.926 - 1)) < 1e-9
assert ds[vh["Calibration file (expected)"] - 1].value.endswith("calibration/h800.ini")
assert ds[vh["Stack file (expected)"] - 1].value.endswith("stacks/deepseek-hai.ini")
assert any("None of these was fitted" in str(c.value) for r in v.iter_rows() for c in r)
PYEOF
    else
        echo "SKIP: waterfall workbook checks: /usr/bin/python3 has no openpyxl"
    fi

    # no calibration for this cluster: no expected step, so no waterfall,
    # and the earlier report's waterfall files are removed
    # (its collectives file, ../collectives/nccl.ini, copied beside it)
    mkdir -p "$TMP/hw" && cp -r data/collectives "$TMP/collectives"
    cp data/hardware/h800.ini "$TMP/hw/uncalibrated.ini"
    expect 0 "" -- $WF_RP report -q -g "$TMP/hw/uncalibrated.ini" -o "$WF"
    check "no waterfall without an expected step (and the earlier one removed)" \
        bash -c "test -s '$WF/step-breakdown.png' && ! ls '$WF'/waterfall.* >/dev/null 2>&1"
fi

# --no-charts: no waterfall either
expect 0 "" -- $WF_RP report -q --no-charts -o "$TMP/wf-nocharts"
check "--no-charts writes no waterfall" test ! -e "$TMP/wf-nocharts/waterfall.gp"
