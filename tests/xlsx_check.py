#!/usr/bin/python3
"""Checks of roofplan's workbook with real readers, for
tests/integration/40_report.sh. Run with Debian's /usr/bin/python3 (it
has openpyxl).

  xlsx_check.py structure REPORT.xlsx
  xlsx_check.py compare CACHED_DIR RECALC_DIR      (ssconvert CSV exports)
  xlsx_check.py csv PLANS_CACHED.csv plans.csv      (cached = C values)
  xlsx_check.py set-name IN.xlsx OUT.xlsx NAME VALUE
  xlsx_check.py rebound CACHED_DIR RECALC_DIR       (after IB_GBPS=400)

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
SHEETS = ["Summary", "Assumptions", "Plans", "Memory", "Communication",
          "Roofline", "Sensitivity", "Rejected", "Validation", "About"]
NAMES = ["IB_GBPS", "NVLINK_GBPS", "BF16_ACHIEVABLE_TFLOPS",
         "FP8_ACHIEVABLE_TFLOPS", "BF16_PEAK_TFLOPS", "HBM_GIB",
         "HBM_ACHIEVABLE_TBPS", "CLOCK_DERATE", "COMM_SMS", "SMS",
         "IB_LATENCY_US", "NVLINK_LATENCY_US", "GPU_HOUR_USD",
         "TRAINING_TOKENS", "COMPUTE_DERATE", "GPU_NAME", "MODEL_NAME"]


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
    if not names["IB_GBPS"].startswith("Assumptions!$D$"):
        fail("IB_GBPS refers to %s" % names["IB_GBPS"])
    ws = wb["Plans"]
    head = [c.value for c in next(ws.iter_rows(min_row=1, max_row=1))]
    row2 = [c.value for c in next(ws.iter_rows(min_row=2, max_row=2))]
    formulas = [h for h, v in zip(head, row2)
                if isinstance(v, str) and v.startswith("=")]
    for h in ["Step (s)", "Bound", "Fits", "MFU (each precision at its peak)",
              "Compute (s)", "IB (s)", "NVLink (s)", "Tokens/s per GPU",
              "Days for token budget", "Cost for token budget (USD)"]:
        if h not in formulas:
            fail("Plans column %r is not a formula (row 2: %r)"
                 % (h, row2[head.index(h)] if h in head else None))
    if "IB_GBPS" not in row2[head.index("IB (s)")]:
        fail("IB (s) does not use IB_GBPS: %s" % row2[head.index("IB (s)")])
    a = wb["Assumptions"]
    cell = names["GPU_NAME"].split("!")[1].replace("$", "")
    if not isinstance(a[cell].value, str):
        fail("GPU_NAME is not a string cell")
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


def csv_check(cached, plans_csv):
    a, b = read_csv(cached), read_csv(plans_csv)
    if a[0] != b[0]:
        fail("plans.csv header differs from the Plans sheet:\n%s\n%s"
             % (a[0], b[0]))
    if len(a) != len(b):
        fail("Plans has %d rows, plans.csv %d" % (len(a), len(b)))
    for i, (ra, rb) in enumerate(zip(a, b)):
        for j, (va, vb) in enumerate(zip(ra, rb)):
            if not same(va, vb, 1e-15):
                fail("row %d col %s: Plans cached %r, plans.csv %r"
                     % (i + 1, a[0][j], va, vb))
    print("csv: plans.csv equals the Plans sheet's cached values "
          "(%d rows)" % (len(a) - 1))


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
    change bound, pure ZeRO-3's IB time falls below its compute time
    (under topo it stays NVLink-bound: its NVLink traffic binds), and the
    ranking changes."""
    a = read_csv(exports(cached_dir)["Plans"])
    b = read_csv(exports(recalc_dir)["Plans"])
    h = a[0]
    fam, bound, step = h.index("Family"), h.index("Bound"), h.index("Step (s)")
    fits, ib, comp = h.index("Fits"), h.index("IB (s)"), h.index("Compute (s)")
    z3 = [(ra, rb) for ra, rb in zip(a[1:], b[1:])
          if ra[fam].startswith("ZeRO-3")]
    changed = [1 for ra, rb in z3 if ra[bound] != rb[bound]]
    pure = [(ra, rb) for ra, rb in z3 if ra[fam] == "ZeRO-3"]
    if not z3 or not pure:
        fail("no ZeRO-3 rows in Plans")
    if not changed:
        fail("IB_GBPS=400 changed the bound of no ZeRO-3 plan (%d rows)"
             % len(z3))
    for ra, rb in pure:
        if not float(rb[ib]) < float(ra[ib]) / 7:
            fail("pure ZeRO-3: IB time %s -> %s" % (ra[ib], rb[ib]))
    ra, rb = pure[0]  # the family's best: its crossover is ~105 GB/s
    if not float(rb[ib]) < float(rb[comp]) < float(ra[ib]):
        fail("best pure ZeRO-3 plan: IB time %s -> %s, compute %s"
             % (ra[ib], rb[ib], rb[comp]))
    faster = sum(1 for ra, rb in zip(a[1:], b[1:])
                 if float(rb[step]) < float(ra[step]) * (1 - 1e-9))

    def key(r):
        return (r[fits] != "TRUE", float(r[step]))
    order = sorted(range(len(b) - 1), key=lambda i: key(b[i + 1]))
    moved = sum(1 for pos, i in enumerate(order) if pos != i)
    if moved == 0:
        fail("IB_GBPS=400 re-ranked no plan")
    print("rebound: %d of %d ZeRO-3-based plans change bound; the best pure "
          "ZeRO-3 plan's IB time falls from %.1f s to %.1f s, below its "
          "compute (%.1f s); %d plans faster; %d change rank"
          % (len(changed), len(z3), float(ra[ib]), float(rb[ib]),
             float(rb[comp]), faster, moved))


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
    else:
        fail("usage:" + __doc__)


if __name__ == "__main__":
    main(sys.argv)
