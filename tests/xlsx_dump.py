#!/usr/bin/python3
"""Text dumps of roofplan's workbook, one file per sheet, for the golden
comparison in tests/integration/70_workbook.sh (`make golden` refreshes
tests/golden/sheets/). Run with Debian's /usr/bin/python3 (openpyxl).

  xlsx_dump.py REPORT.xlsx OUT_DIR

writes OUT_DIR/NN-Sheet.txt for each sheet (NN its tab position) and
OUT_DIR/00-workbook.txt (sheets, defined names, document properties).
A sheet's file lists, in this order:

  # freeze, print area, merged ranges, tables (with their columns),
  # conditional formats, charts (type, anchor, title, axes, each series'
  # name and references), images (anchor, description)
  A1<TAB>value<TAB>number format                 every non-empty cell
  D5<TAB>=FORMULA<TAB>number format<TAB>cached   a formula and its cached
                                                 result (the C value)

Numbers are rounded to 12 significant digits so that the last bits of a
computation do not churn the dumps; text has tabs, newlines and
backslashes escaped so each cell stays on one line.
"""
import os
import sys
import warnings

warnings.filterwarnings("ignore")  # openpyxl on extensions it drops


def num(v):
    """A number rounded to 12 significant digits, stable across runs."""
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, int):
        v = float(v)
    s = "%.12g" % v
    return "0" if s == "-0" else s


def text(v):
    """A cell value (or cached result) as one line of text."""
    if v is None:
        return ""
    if isinstance(v, (bool, int, float)):
        return num(v)
    return (str(v).replace("\\", "\\\\").replace("\t", "\\t")
            .replace("\n", "\\n").replace("\r", "\\r"))


def rich(t):
    """The plain text of a chart or axis title, or ""."""
    if t is None or t.tx is None or t.tx.rich is None:
        return ""
    return "".join(r.t for p in t.tx.rich.p for r in (p.r or []))


def anchor(a):
    from openpyxl.utils import get_column_letter
    f = getattr(a, "_from", None)
    if f is None:
        return "?"
    return "%s%d" % (get_column_letter(f.col + 1), f.row + 1)


def axis(name, ax):
    s = ax.scaling
    return "#   %s axis: %s; log %s; min %s; max %s; format %s" % (
        name, text(rich(ax.title)), text(s.logBase), text(s.min),
        text(s.max), ax.numFmt.formatCode if ax.numFmt else "")


def series(s):
    name = s.tx.v if s.tx is not None and s.tx.v is not None else (
        s.tx.strRef.f if s.tx is not None and s.tx.strRef else "")
    x = s.xVal.numRef.f if s.xVal is not None and s.xVal.numRef else (
        s.cat.numRef.f if getattr(s, "cat", None) is not None and
        s.cat.numRef else "")
    y = s.yVal.numRef.f if getattr(s, "yVal", None) is not None and \
        s.yVal.numRef else (s.val.numRef.f if getattr(s, "val", None)
                            is not None and s.val.numRef else "")
    return "#   series %s: x %s; y %s" % (text(name), x, y)


def head(ws):
    """The sheet's structure, as '# ' lines."""
    out = []
    if ws.freeze_panes:
        out.append("# freeze %s" % ws.freeze_panes)
    if ws.print_area:
        out.append("# print area %s" % ",".join(ws.print_area)
                   if isinstance(ws.print_area, list) else
                   "# print area %s" % ws.print_area)
    for m in sorted(str(r) for r in ws.merged_cells.ranges):
        out.append("# merged %s" % m)
    for name, ref in sorted(ws.tables.items()):
        t = ws.tables[name]
        out.append("# table %s %s style %s: %s" % (
            name, ref, t.tableStyleInfo.name if t.tableStyleInfo else "",
            " | ".join(c.name for c in t.tableColumns)))
    for cf in ws.conditional_formatting:
        for r in cf.rules:
            what = r.type
            if r.operator:
                what += " " + r.operator
            if r.formula:
                what += " " + " ".join(r.formula)
            if r.dataBar is not None:
                what += " colour %s from %s" % (
                    r.dataBar.color.rgb if r.dataBar.color else "",
                    ",".join(c.type + ("" if c.val is None else
                                       " " + text(c.val))
                             for c in r.dataBar.cfvo))
            out.append("# conditional %s: %s (format %s)" % (
                cf.sqref, what, text(r.dxfId)))
    for ch in ws._charts:
        out.append("# chart %s at %s: %s" % (
            type(ch).__name__, anchor(ch.anchor), text(rich(ch.title))))
        out.append(axis("x", ch.x_axis))
        out.append(axis("y", ch.y_axis))
        for s in ch.series:
            out.append(series(s))
    for im in ws._images:
        out.append("# image at %s" % anchor(im.anchor))
    return out


def cells(ws, cached):
    out = []
    for row in ws.iter_rows():
        for c in row:
            v = c.value
            if v is None:
                continue
            line = "%s\t%s\t%s" % (c.coordinate, text(v), c.number_format)
            if c.data_type == "f":
                line += "\t" + text(cached[c.coordinate].value)
            out.append(line)
    return out


def workbook(wb):
    out = ["# sheets: " + " | ".join(wb.sheetnames)]
    p = wb.properties
    out.append("# title: %s" % text(p.title))
    out.append("# subject: %s" % text(p.subject))
    out.append("# author: %s" % text(p.creator))
    out.append("# created: %s" % (p.created.isoformat() if p.created
                                   else ""))
    for n in sorted(wb.defined_names.definedName, key=lambda n: n.name):
        out.append("%s\t%s" % (n.name, n.attr_text))
    return out


def main(argv):
    import openpyxl
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    path, outdir = argv[1], argv[2]
    wb = openpyxl.load_workbook(path)
    values = openpyxl.load_workbook(path, data_only=True)
    os.makedirs(outdir, exist_ok=True)
    files = {"00-workbook.txt": workbook(wb)}
    for i, name in enumerate(wb.sheetnames, 1):
        ws = wb[name]
        files["%02d-%s.txt" % (i, name)] = (
            ["# sheet %s" % name] + head(ws) + cells(ws, values[name]))
    for f, lines in files.items():
        with open(os.path.join(outdir, f), "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
