#!/usr/bin/python3
"""Checks of roofplan's workbook with real readers, for
tests/integration/40_report.sh. Run with Debian's /usr/bin/python3 (it
has openpyxl).

  xlsx_check.py structure REPORT.xlsx
  xlsx_check.py compare CACHED_DIR RECALC_DIR      (ssconvert CSV exports)
  xlsx_check.py csv PLANS_CACHED.csv plans.csv      (cached = C values)
  xlsx_check.py set-name IN.xlsx OUT.xlsx NAME VALUE
  xlsx_check.py rebound CACHED_DIR RECALC_DIR       (after IB_GBPS=400)
  xlsx_check.py latency CACHED_DIR RECALC_DIR      (after COLL_NET_STEP_US x 10)
  xlsx_check.py goodput REPORT.xlsx CACHED_DIR RECALC_DIR
                                                    (after FAILURES_PER_MGPU_HOUR x 10)
  xlsx_check.py best REPORT.xlsx RECALC_DIR         (FASTEST_PLAN, FASTEST_STEP_S)
  xlsx_check.py inputs REPORT.xlsx                  (every input is read)
  xlsx_check.py finite BOOK.xlsx                    (no NaN or infinity)
  xlsx_check.py utf8 BOOK.xlsx TEXT                 (XML parts UTF-8, TEXT in a cell)

Each prints what it checked and exits 1 on the first failed check.
"""
import csv
import glob
import math
import os
import re
import sys
import zipfile

REL = 1e-9
# the steps of the report 40_report.sh checks (data/collectives/nccl.ini
# ring_simple.nvlink_us and net_us: NVIDIA/nccl tuning.cc hwLatencies
# NVLINK and NET, Ring Simple)
STEP_US, STEP_NET_US = 3.4, 14.0
SHEETS = ["Summary", "Families", "Glossary", "Assumptions", "Plans", "Memory",
          "Communication", "Roofline", "Sensitivity", "Rejected",
          "Validation", "About"]
NAMES = ["IB_GBPS", "NVLINK_GBPS", "BF16_ACHIEVABLE_TFLOPS",
         "FP8_ACHIEVABLE_TFLOPS", "BF16_PEAK_TFLOPS", "HBM_GIB",
         "HBM_ACHIEVABLE_TBPS", "CLOCK_DERATE", "COMM_SMS", "SMS",
         "COLL_STEP_US", "COLL_NET_STEP_US", "GPU_HOUR_USD",
         "TRAINING_TOKENS", "COMPUTE_DERATE", "HEADROOM_PCT", "TIE_PCT",
         "FRAGMENTATION_PCT", "NCCL_BUFFERS_GIB", "CUDA_CONTEXT_GIB",
         "FASTEST_PLAN", "FASTEST_STEP_S", "FASTEST_ROW", "RECOMMENDED_PLAN",
         "RECOMMENDED_ROW", "PLANS_PLAN", "PLANS_RANK_S", "PLANS_FITS"]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def defined_names(path):
    """name -> 'Sheet!$C$7' from xl/workbook.xml."""
    with zipfile.ZipFile(path) as z:
        xml = z.read("xl/workbook.xml").decode()
    return dict(re.findall(r'<definedName name="([^"]+)"[^>]*>([^<]+)<',
                           xml))


def sheet_files(path):
    """sheet name -> zip member of its XML."""
    with zipfile.ZipFile(path) as z:
        wb = z.read("xl/workbook.xml").decode()
        rels = z.read("xl/_rels/workbook.xml.rels").decode()
    target = dict(re.findall(r'Id="([^"]+)"[^>]* Target="([^"]+)"', rels))
    out = {}
    for name, rid in re.findall(r'<sheet name="([^"]+)" sheetId="\d+" '
                                r'r:id="([^"]+)"', wb):
        out[name] = "xl/" + target[rid].lstrip("/").replace("xl/", "")
    return out


def structure(path):
    import openpyxl
    wb = openpyxl.load_workbook(path, read_only=True)
    if wb.sheetnames != SHEETS:
        fail("sheets %s, expected %s" % (wb.sheetnames, SHEETS))
    names = defined_names(path)
    for n in NAMES:
        if n not in names:
            fail("defined name %s missing" % n)
    if not names["IB_GBPS"].startswith("Assumptions!$B$"):
        fail("IB_GBPS refers to %s" % names["IB_GBPS"])
    for n in ["GPU_NAME", "MODEL_NAME", "MODEL_LAYERS"]:
        if n in names:  # values no formula reads are not inputs
            fail("%s is a defined name" % n)
    ws = wb["Plans"]
    head = [c.value for c in next(ws.iter_rows(min_row=1, max_row=1))]
    row2 = [c.value for c in next(ws.iter_rows(min_row=2, max_row=2))]
    formulas = [h for h, v in zip(head, row2)
                if isinstance(v, str) and v.startswith("=")]
    for h in ["Step, speed of light (s)", "Bound", "Fits", "MFU, speed of light (each precision at its peak)",
              "Compute, speed of light (s)", "IB, speed of light (s)", "NVLink, speed of light (s)", "Tokens/s per GPU, speed of light",
              "Days for token budget, speed of light", "Cost for token budget, speed of light (USD)"]:
        if h not in formulas:
            fail("Plans column %r is not a formula (row 2: %r)"
                 % (h, row2[head.index(h)] if h in head else None))
    if "IB_GBPS" not in row2[head.index("IB, speed of light (s)")]:
        fail("IB, speed of light (s) does not use IB_GBPS: %s" % row2[head.index("IB, speed of light (s)")])
    if "HEADROOM_PCT" not in row2[head.index("Fits")]:
        fail("Fits does not use HEADROOM_PCT: %s" % row2[head.index("Fits")])
    with zipfile.ZipFile(path) as z:
        tables = [n for n in z.namelist() if n.startswith("xl/tables/")]
        t = [z.read(n).decode() for n in tables]
        plans_xml = z.read(sheet_files(path)["Plans"]).decode(errors="replace")
    if not any('name="PlansTable"' in x and 'ref="A1:' in x and "autoFilter" in x
               for x in t):
        fail("no Excel table PlansTable with an autofilter")
    if '<pane' not in plans_xml[:20000] or 'state="frozen"' not in \
            plans_xml[:20000]:
        fail("Plans has no frozen panes")
    print("structure: %d sheets, %d defined names, %d formula columns in "
          "Plans, %d tables" % (len(wb.sheetnames), len(names),
                                len(formulas), len(tables)))


def number(s):
    try:
        v = float(s)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def exports(d):
    """sheet name -> csv path of an ssconvert -S export (name_%n_%s.csv)."""
    out = {}
    for p in glob.glob(os.path.join(d, "*.csv")):
        m = re.match(r".*_(\d+)_(.+)\.csv$", p)
        if m:
            out[m.group(2)] = p
    return out


def same(a, b, rel):
    x, y = number(a), number(b)
    if x is None or y is None:
        return a == b
    return abs(x - y) <= rel * max(abs(x), abs(y)) or abs(x - y) <= 1e-300


def compare(cached_dir, recalc_dir):
    c, r = exports(cached_dir), exports(recalc_dir)
    if sorted(c) != sorted(SHEETS) or sorted(r) != sorted(SHEETS):
        fail("exports: %s / %s" % (sorted(c), sorted(r)))
    total = 0
    for s in SHEETS:
        a, b = read_csv(c[s]), read_csv(r[s])
        if len(a) != len(b):
            fail("%s: %d rows cached, %d recalculated" % (s, len(a), len(b)))
        bad = []
        for i, (ra, rb) in enumerate(zip(a, b)):
            for j in range(max(len(ra), len(rb))):
                va = ra[j] if j < len(ra) else ""
                vb = rb[j] if j < len(rb) else ""
                total += 1
                if not same(va, vb, REL):
                    bad.append("%s row %d col %d: cached %r, recalculated "
                               "%r" % (s, i + 1, j + 1, va, vb))
        if bad:
            fail("%d cells differ; first: %s" % (len(bad),
                                                  "; ".join(bad[:5])))
    plans = read_csv(c["Plans"])
    print("compare: %d cells of %d sheets equal after recalculation "
          "(Plans: %d rows x %d columns), rel. tolerance %g"
          % (total, len(SHEETS), len(plans) - 1, len(plans[0]), REL))


def fits(v):
    """A Fits cell as TRUE/FALSE: the sheet caches its formula's 1 / 0
    (shown as TRUE / FALSE); plans.csv writes TRUE / FALSE."""
    return {"1": "TRUE", "0": "FALSE"}.get(v, v)


def csv_check(cached, plans_csv):
    """Every Plans row (the plans that fit, best first, up to the limit,
    and each family's best) equals plans.csv's row of the same rank
    (plans.csv holds at least the Plans sheet's rows)."""
    a, b = read_csv(cached), read_csv(plans_csv)
    if a[0] != b[0]:
        fail("plans.csv header differs from the Plans sheet:\n%s\n%s"
             % (a[0], b[0]))
    rank, fit = a[0].index("Rank"), a[0].index("Fits")
    plan = len(a[0]) - 1  # the plan in eval syntax, the last column
    by_rank = {r[rank]: r for r in b[1:] if r[rank]}
    # a family's best beyond the plans kept in order has no rank (issue
    # 19: without --top the sweep keeps only the Plans sheet's plans)
    by_plan = {r[plan]: r for r in b[1:] if not r[rank]}
    if len(b) - 1 < len(a) - 1:
        fail("Plans has %d rows, plans.csv only %d" % (len(a), len(b)))
    last = 0
    for i, ra in enumerate(a[1:]):
        if not ra[rank]:
            rb = by_plan.get(ra[plan])
            if rb is None:
                fail("Plans row %d: unranked plan %r not in plans.csv"
                     % (i + 2, ra[plan]))
            last = float("inf")  # ranked rows come first
        else:
            rb = by_rank.get(ra[rank])
            if rb is None:
                fail("Plans row %d: rank %r not in plans.csv"
                     % (i + 2, ra[rank]))
            if int(ra[rank]) <= last:
                fail("Plans row %d: rank %s after %s"
                     % (i + 2, ra[rank], last))
            last = int(ra[rank])
        ra = list(ra)
        ra[fit] = fits(ra[fit])
        for j, (va, vb) in enumerate(zip(ra, rb)):
            if not same(va, vb, 1e-15):
                fail("row %d col %s: Plans cached %r, plans.csv %r"
                     % (i + 2, a[0][j], va, vb))
    print("csv: the Plans sheet's %d rows equal plans.csv's rows of their "
          "rank (plans.csv: %d plans)" % (len(a) - 1, len(b) - 1))


def set_name(src, dst, name, value):
    """Copy of src with the input cell of `name` set to value."""
    ref = defined_names(src)[name]
    sheet, cell = ref.split("!")
    cell = cell.replace("$", "")
    member = sheet_files(src)[sheet]
    with zipfile.ZipFile(src) as zin, \
            zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == member:
                xml = data.decode()
                pat = r'(<c r="%s"[^>]*>)<v>[^<]*</v>' % cell
                xml, n = re.subn(pat, r"\g<1><v>%s</v>" % value, xml)
                if n != 1:
                    fail("cell %s!%s not found" % (sheet, cell))
                data = xml.encode()
            zout.writestr(item, data)
    print("set-name: %s (%s!%s) = %s in %s" % (name, sheet, cell, value, dst))


def rebound(cached_dir, recalc_dir):
    """After IB_GBPS 50 -> 400: ZeRO-3 plans (every family built on it)
    change bound, pure ZeRO-3's IB time (its bytes' part 8x, not its
    collectives' latency) falls below its compute time
    (under topo it stays NVLink-bound: its NVLink traffic binds), and the
    ranking changes."""
    a = read_csv(exports(cached_dir)["Plans"])
    b = read_csv(exports(recalc_dir)["Plans"])
    h = a[0]
    fam, bound, step = h.index("Family"), h.index("Bound"), h.index("Step, speed of light (s)")
    fit_col, ib, comp = h.index("Fits"), h.index("IB, speed of light (s)"), h.index("Compute, speed of light (s)")
    z3 = [(ra, rb) for ra, rb in zip(a[1:], b[1:])
          if ra[fam].startswith("ZeRO-3")]
    changed = [1 for ra, rb in z3 if ra[bound] != rb[bound]]
    pure = [(ra, rb) for ra, rb in z3 if ra[fam] == "ZeRO-3"]
    if not z3 or not pure:
        fail("no ZeRO-3 rows in Plans")
    if not changed:
        fail("IB_GBPS=400 changed the bound of no ZeRO-3 plan (%d rows)"
             % len(z3))
    steps, net = h.index("IB latency, in-node steps"), h.index("IB latency, network steps")
    for ra, rb in pure:  # the bytes' time falls 8x, not the latency's
        lat = (float(ra[steps]) * STEP_US + float(ra[net]) * STEP_NET_US) * 1e-6
        if not float(rb[ib]) - lat < (float(ra[ib]) - lat) / 7:
            fail("pure ZeRO-3: IB time %s -> %s (latency %g s)"
                 % (ra[ib], rb[ib], lat))
    ra, rb = pure[0]  # the family's best: its crossover is ~105 GB/s
    if not float(rb[ib]) < float(rb[comp]) < float(ra[ib]):
        fail("best pure ZeRO-3 plan: IB time %s -> %s, compute %s"
             % (ra[ib], rb[ib], rb[comp]))
    faster = sum(1 for ra, rb in zip(a[1:], b[1:])
                 if float(rb[step]) < float(ra[step]) * (1 - 1e-9))

    def key(r):
        return (fits(r[fit_col]) != "TRUE", float(r[step]))
    order = sorted(range(len(b) - 1), key=lambda i: key(b[i + 1]))
    moved = sum(1 for pos, i in enumerate(order) if pos != i)
    if moved == 0:
        fail("IB_GBPS=400 re-ranked no plan")
    print("rebound: %d of %d ZeRO-3-based plans change bound; the best pure "
          "ZeRO-3 plan's IB time falls from %.1f s to %.1f s, below its "
          "compute (%.1f s); %d plans faster; %d change rank"
          % (len(changed), len(z3), float(ra[ib]), float(rb[ib]),
             float(rb[comp]), faster, moved))


def first_column(path, sheet):
    """The first column (1-based) holding a value: ssconvert's CSV export
    starts there (the Summary's column A holds only colour swatches)."""
    import openpyxl
    ws = openpyxl.load_workbook(path, read_only=True)[sheet]
    cols = [c.column for row in ws.iter_rows() for c in row
            if getattr(c, "value", None) not in (None, "")]
    return min(cols)


def name_cell(path, name):
    """(sheet, row, col), 0-based in ssconvert's CSV export of the sheet,
    of the cell defined name `name` is."""
    sheet, cell = defined_names(path)[name].split("!")
    m = re.match(r"\$?([A-Z]+)\$?(\d+)$", cell)
    col = 0
    for ch in m.group(1):
        col = col * 26 + ord(ch) - 64
    return sheet, int(m.group(2)) - 1, col - first_column(path, sheet)


def best(path, recalc_dir):
    """After a recalculation, FASTEST_STEP_S is the smallest step the plans
    rank by (the expected step where the workbook has one, else the speed
    of light) among the Plans rows that fit and FASTEST_PLAN that row's plan;
    RECOMMENDED_PLAN is, among the fitting plans whose range's high end is
    within TIE_PCT of the smallest, one with the most free memory."""
    ex = exports(recalc_dir)
    plans = read_csv(ex["Plans"])
    h = plans[0]
    step = h.index("Expected step (s)" if "Expected step (s)" in h
                   else "Step, speed of light (s)")
    fit = h.index("Fits")
    plan, free = h.index("Plan (roofplan eval syntax)"), h.index("HBM free (GiB)")
    rows = [r for r in plans[1:] if fits(r[fit]) == "TRUE"]
    if not rows:
        fail("no plan fits after the recalculation")
    want = min(rows, key=lambda r: float(r[step]))

    def value(name):
        sheet, r, c = name_cell(path, name)
        return read_csv(ex[sheet])[r][c]
    got_step, got_plan = value("FASTEST_STEP_S"), value("FASTEST_PLAN")
    if not same(got_step, want[step], REL):
        fail("FASTEST_STEP_S %s, the fastest fitting plan takes %s"
             % (got_step, want[step]))
    if got_plan != want[plan]:
        fail("FASTEST_PLAN %r, the fastest fitting plan is %r"
             % (got_plan, want[plan]))
    names = defined_names(path)
    tie = float(read_csv(ex["Assumptions"])[name_cell(path, "TIE_PCT")[1]]
                [name_cell(path, "TIE_PCT")[2]])
    # the robust choice (docs/model.md): the fitting plans whose high end
    # (the expected step where a plan has no range) is within TIE_PCT of
    # the smallest high end
    high = h.index("Expected high (its slowest scenario) (s)") \
        if "Expected high (its slowest scenario) (s)" in h else step

    def robust(r):
        return float(r[high]) if r[high] != "" else float(r[step])
    least = min(robust(r) for r in rows)
    ties = [r for r in rows if robust(r) <= least * (1 + tie / 100)]
    most = max(float(r[free]) for r in ties)
    rec = value("RECOMMENDED_PLAN")
    if rec not in [r[plan] for r in ties if same(r[free], str(most), REL)]:
        fail("RECOMMENDED_PLAN %r is not the tie with the most free memory"
             % rec)
    print("best: FASTEST_PLAN and FASTEST_STEP_S name the fastest of %d fitting "
          "plans (%s s); RECOMMENDED_PLAN the most free memory of %d ties "
          "(%d names defined)" % (len(rows), got_step, len(ties), len(names)))


def inputs(path):
    """Every cell styled as an input on Assumptions is a defined name some
    formula of the workbook reads, and every name a formula reads that is
    on Assumptions is styled as an input or a derived rate."""
    import openpyxl
    wb = openpyxl.load_workbook(path)
    names = defined_names(path)
    formulas = []
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if isinstance(c.value, str) and c.value.startswith("="):
                    formulas.append(c.value)
                elif getattr(c.value, "text", None):  # array formulas
                    formulas.append(c.value.text)
    text = "\n".join(formulas)
    a = wb["Assumptions"]
    styled = []
    for row in a.iter_rows():
        for c in row:
            fill = c.fill.fgColor.rgb if c.fill and c.fill.fgColor else None
            if fill and str(fill).endswith("FFF9D6") and c.column == 2 \
                    and c.row > 4:
                styled.append("$%s$%d" % (c.column_letter, c.row))
    by_ref = {v.split("!")[1]: k for k, v in names.items()
              if v.startswith("Assumptions!")}
    unread = []
    for ref in styled:
        n = by_ref.get(ref)
        if n is None:
            fail("input cell %s has no name" % ref)
        if not re.search(r"\b%s\b" % n, text):
            unread.append(n)
    if unread:
        fail("inputs no formula reads: %s" % ", ".join(unread))
    validated = set()
    for dv in a.data_validations.dataValidation:
        for rng in str(dv.sqref).split():
            validated.add("$%s$%s" % re.match(r"([A-Z]+)(\d+)", rng).groups())
    missing = [by_ref[r] for r in styled if r not in validated]
    if missing:
        fail("inputs without a validation: %s" % ", ".join(missing))
    print("inputs: %d input cells on Assumptions, each read by a formula "
          "and validated (%d formulas)" % (len(styled), len(formulas)))


def finite(path):
    """No cell holds a NaN or an infinity, as a number or written in its
    text ("-nan s", "inf s of IB"); formulas are not read."""
    import openpyxl
    wb = openpyxl.load_workbook(path)
    word = re.compile(r"(?i)(?<![a-z])-?(nan|inf)(?![a-z])")
    cells = 0
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                v = c.value
                cells += v is not None
                if isinstance(v, float) and not math.isfinite(v):
                    fail("%s!%s is %r" % (ws.title, c.coordinate, v))
                if isinstance(v, str) and not v.startswith("=") and \
                        word.search(v):
                    fail("%s!%s reads %r" % (ws.title, c.coordinate, v[:120]))
    print("finite: %d cells, none NaN or infinite" % cells)


def utf8(path, text):
    """Every XML part decodes as UTF-8 and parses; openpyxl reads the
    book; some cell holds text (the escaped form of what was not UTF-8)."""
    import openpyxl
    import xml.dom.minidom
    with zipfile.ZipFile(path) as z:
        names = [n for n in z.namelist() if n.endswith((".xml", ".rels"))]
        for n in names:
            data = z.read(n)
            try:
                data.decode("utf-8", errors="strict")
            except UnicodeDecodeError as e:
                fail("%s: not UTF-8: %s" % (n, e))
            xml.dom.minidom.parseString(data)
    wb = openpyxl.load_workbook(path)
    found = [(ws.title, c.coordinate) for ws in wb.worksheets
             for row in ws.iter_rows() for c in row
             if isinstance(c.value, str) and text in c.value]
    if not found:
        fail("no cell holds %r" % text)
    print("utf8: %d XML parts UTF-8 and well-formed; %r in %s!%s"
          % (len(names), text, found[0][0], found[0][1]))


def latency(cached_dir, recalc_dir):
    """After COLL_NET_STEP_US x 10 (issue 36): the latency inputs re-time
    the plans. A plan whose collectives take network steps ("IB latency,
    network steps" above 0) has a longer IB time, by 9 x those steps x the
    step as written; one with none keeps its IB time; no plan's step gets
    shorter, and some get longer."""
    a = read_csv(exports(cached_dir)["Plans"])
    b = read_csv(exports(recalc_dir)["Plans"])
    h = a[0]
    ib, step = h.index("IB, speed of light (s)"), h.index("Step, speed of light (s)")
    net = h.index("IB latency, network steps")
    moved = 0
    for ra, rb in zip(a[1:], b[1:]):
        n = float(ra[net])
        grown = float(rb[ib]) - float(ra[ib])
        want = 9 * n * STEP_NET_US * 1e-6
        if abs(grown - want) > 1e-9 + 1e-6 * want:
            fail("IB time %s -> %s, want + %g (%g network steps)"
                 % (ra[ib], rb[ib], want, n))
        if float(rb[step]) < float(ra[step]) * (1 - 1e-9):
            fail("step %s -> %s: a longer latency made it faster"
                 % (ra[step], rb[step]))
        moved += float(rb[step]) > float(ra[step]) * (1 + 1e-9)
    if not moved:
        fail("COLL_NET_STEP_US x 10 moved no plan's step")
    print("COLL_NET_STEP_US x 10: %d of %d plans slower, IB times by 9 x "
          "their network steps" % (moved, len(a) - 1))


def goodput(path, cached_dir, recalc_dir):
    """After FAILURES_PER_MGPU_HOUR x 10 (issue 37, item 4): the
    effective-training share falls, and the wall-clock days and cost follow
    it. Each value is checked against goodput.h's model worked here from
    the recalculated inputs (Daly 2006's interval sqrt(2 d (R + M)); share
    (1 - (R + (tau + d)/2)/M) / (1 + d/tau)), not against the C values."""
    def values(d):
        ex = exports(d)

        def value(name):
            sheet, r, c = name_cell(path, name)
            return float(read_csv(ex[sheet])[r][c])
        return value
    a, b = values(cached_dir), values(recalc_dir)
    rate = b("FAILURES_PER_MGPU_HOUR")
    if not same(str(rate), str(10 * a("FAILURES_PER_MGPU_HOUR")), REL):
        fail("FAILURES_PER_MGPU_HOUR %g, want 10 x %g"
             % (rate, a("FAILURES_PER_MGPU_HOUR")))
    gpus = b("GOODPUT_GPUS")
    d = b("CHECKPOINT_GB") / b("STORAGE_GBPS") / 3600
    r = b("RESTART_MIN") / 60 + d
    m = 1e6 / (rate * gpus)
    tau = math.sqrt(2 * d * (r + m))
    share = (1 - (r + (tau + d) / 2) / m) / (1 + d / tau)
    checks = [("CHECKPOINT_INTERVAL_MIN", tau * 60), ("GOODPUT", share),
              ("WALL_DAYS", b("RECOMMENDED_DAYS") / share),
              ("WALL_COST", b("RECOMMENDED_DAYS") / share * 24 * gpus
               * b("GPU_HOUR_USD"))]
    # the days by loss, goodput.h's wall-clock equation term by term, in
    # days: W = C + C d/tau + W R/M + W (tau + d)/2/M
    c, w = b("RECOMMENDED_DAYS"), b("RECOMMENDED_DAYS") / share
    checks += [("DAYS_CHECKPOINT_WRITES", c * d / tau),
               ("DAYS_RESTARTS", w * r / m),
               ("DAYS_LOST_WORK", w * (tau + d) / 2 / m)]
    for name, want in checks:
        if not same(str(b(name)), str(want), 1e-9):
            fail("%s %r after the edit, the model gives %r" % (name, b(name), want))
    # the steps add up to the wall-clock days
    steps = c + sum(b(k) for k in ("DAYS_CHECKPOINT_WRITES", "DAYS_RESTARTS",
                                   "DAYS_LOST_WORK"))
    if not same(str(steps), str(b("WALL_DAYS")), 1e-12):
        fail("RECOMMENDED_DAYS + DAYS_* = %r, WALL_DAYS %r" % (steps, b("WALL_DAYS")))
    if not (b("GOODPUT") < a("GOODPUT") and b("WALL_DAYS") > a("WALL_DAYS")
            and b("WALL_COST") > a("WALL_COST")):
        fail("a tenfold failure rate did not lengthen the wall-clock days")
    if not same(str(b("RECOMMENDED_DAYS")), str(a("RECOMMENDED_DAYS")), REL):
        fail("the failure rate moved the compute days")
    print("goodput: failures x 10: share %.4f -> %.4f, wall-clock days %.2f -> "
          "%.2f, cost %.0f -> %.0f (compute days %.2f held)"
          % (a("GOODPUT"), b("GOODPUT"), a("WALL_DAYS"), b("WALL_DAYS"),
             a("WALL_COST"), b("WALL_COST"), b("RECOMMENDED_DAYS")))


def main(argv):
    if len(argv) < 2:
        fail(__doc__)
    cmd, args = argv[1], argv[2:]
    if cmd == "structure" and len(args) == 1:
        structure(*args)
    elif cmd == "compare" and len(args) == 2:
        compare(*args)
    elif cmd == "csv" and len(args) == 2:
        csv_check(*args)
    elif cmd == "set-name" and len(args) == 4:
        set_name(*args)
    elif cmd == "rebound" and len(args) == 2:
        rebound(*args)
    elif cmd == "latency" and len(args) == 2:
        latency(*args)
    elif cmd == "goodput" and len(args) == 3:
        goodput(*args)
    elif cmd == "best" and len(args) == 2:
        best(*args)
    elif cmd == "inputs" and len(args) == 1:
        inputs(*args)
    elif cmd == "finite" and len(args) == 1:
        finite(*args)
    elif cmd == "utf8" and len(args) == 2:
        utf8(*args)
    else:
        fail("usage:" + __doc__)


if __name__ == "__main__":
    main(sys.argv)
