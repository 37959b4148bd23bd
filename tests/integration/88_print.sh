# The workbook printed, as a person would print it (issue 37, item 6):
# LibreOffice renders the default report to PDF, and the Summary must be
# one landscape page with no text under 8 points, on Letter (LibreOffice's
# default here) and on A4 (the same workbook with its Summary's paper set
# to A4). A size is the one each piece of text is drawn at on the page,
# read from the PDF (tests/pdf_fonts.py: the font size times the page's
# scale); which page belongs to which sheet is the sheet's name in the
# page header's right corner (&A), found by `pdftotext -bbox`. Before
# this test the Summary printed at 4.2 points (the page scaled to 38%),
# the Plans sheet at 2.7. The Plans sheet prints its first columns, the
# plan to its bound, at 8 points or more; compare's sheet on one page at
# 8 points or more.
# Sourced by tests/run_integration.sh.
RP=${ROOFPLAN_RELEASE:-$ROOFPLAN} # the release build: the full sweep
P="$TMP/print"

# a4 SRC DST: the workbook SRC with its first sheet's paper set to A4
# (paperSize 9, ECMA-376 §18.3.1.63), written to DST
a4() {
    $PY - "$1" "$2" <<'PYEOF'
import os, sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
os.makedirs(os.path.dirname(dst), exist_ok=True)
with zipfile.ZipFile(src) as zi, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zo:
    for item in zi.infolist():
        data = zi.read(item.filename)
        if item.filename == "xl/worksheets/sheet1.xml":
            assert b"<pageSetup " in data, "the first sheet has no page setup"
            data = data.replace(b"<pageSetup ", b'<pageSetup paperSize="9" ', 1)
        zo.writestr(item, data)
PYEOF
}

# render DIR NAME: DIR/NAME.xlsx through LibreOffice to DIR/NAME.pdf, its
# text boxes (bbox.html) and the size each piece of text is drawn at
# (fonts.txt)
render() {
    timeout 300 soffice --headless --norestore "-env:UserInstallation=file://$TMP/lo-print" \
        --convert-to pdf --outdir "$1" "$1/$2.xlsx" >"$1/lo.log" 2>&1
    pdftotext -bbox "$1/$2.pdf" "$1/bbox.html"
    $PY tests/pdf_fonts.py "$1/$2.pdf" >"$1/fonts.txt"
}

if ! command -v soffice >/dev/null || ! command -v pdftotext >/dev/null; then
    echo "SKIP: the printed Summary: needs soffice (libreoffice-calc-nogui) and pdftotext (poppler-utils)"
else
    rm -rf "$P"
    mkdir -p "$P"
    expect 0 "" -- env SOURCE_DATE_EPOCH=1735689600 $RP report -q -o "$P/out"
    # the Summary at its longest: four cluster sizes and a deadline add
    # two lines (on A4, the page's height decides)
    expect 0 "" -- env SOURCE_DATE_EPOCH=1735689600 $RP report -q \
        --gpus 1024,2048,4096,8192 --days 40 -o "$P/scale"
    # each workbook with the Summary (sheet1.xml) on A4
    for d in out scale; do
        a4 "$P/$d/report.xlsx" "$P/$d-a4/report.xlsx"
    done
    for d in out out-a4 scale scale-a4; do
        render "$P/$d" report
    done
    check "the Summary prints on one landscape page, the Plans sheet its first columns, all text at 8 points or more (Letter, A4)" \
        $PY - "$P/out" "$P/out-a4" "$P/scale" "$P/scale-a4" <<'PYEOF'
import html, re, sys
def sheet_pages(bbox):
    """Page number -> the sheet named in its header's right corner."""
    out = {}
    pages = re.findall(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>',
                       open(bbox, encoding="utf-8").read(), re.S)
    for n, (w, h, body) in enumerate(pages, 1):
        words = re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)" '
                           r'xMax="([\d.]+)" yMax="([\d.]+)">(.*?)</word>', body)
        top = [(float(x0), html.unescape(t)) for x0, y0, x1, y1, t in words
               if float(y1) < 0.08 * float(h) and float(x0) > 0.7 * float(w)]
        # the header's right corner: its last word (a sheet's name is one)
        out[n] = (sorted(top)[-1][1] if top else "", float(w), float(h), words)
    return out
for d, paper in zip(sys.argv[1:], ("Letter", "A4", "Letter, 4 sizes", "A4, 4 sizes")):
    pages = sheet_pages(d + "/bbox.html")
    summary = [n for n, p in pages.items() if p[0] == "Summary"]
    assert len(summary) == 1, (paper, "Summary pages:", summary)
    n = summary[0]
    _, w, h, words = pages[n]
    assert w > h, (paper, "not landscape", w, h)
    sizes = {}
    for line in open(d + "/fonts.txt"):
        f = line.split()
        sizes[int(f[0])] = float(f[2])
    assert sizes[n] >= 8.0, (paper, "smallest text %.2f pt" % sizes[n])
    # the page is used: the text reaches across it (fit to its width)
    right = max(float(x1) for _, _, x1, _, _ in words)
    assert right > 0.85 * w, (paper, "text ends at %.0f of %.0f pt" % (right, w))
    print("%s: the Summary is page %d, its smallest text %.2f pt" % (paper, n, sizes[n]))
    # the Plans sheet prints its first columns (up to Bound) at 8 points
    # or more, its header row on each page (before: 2.7 points)
    plans = [n for n, p in pages.items() if p[0] == "Plans"]
    assert plans, (paper, "no Plans page")
    for n in plans:
        assert sizes[n] >= 8.0, (paper, "Plans page %d at %.2f pt" % (n, sizes[n]))
        body = " ".join(html.unescape(t) for *_, t in pages[n][3])
        assert "Expected" in body.split() and "Bound" in body.split(), (paper, n, body[:300])
PYEOF
    # compare's sheet printed the same way (before: 6.2 points, its
    # thirteen printed columns 175 characters wide): two models on two
    # clusters, on Letter and on A4
    expect 0 "" -- env SOURCE_DATE_EPOCH=1735689600 $RP compare -q \
        -m data/models/deepseek-v3.ini -m data/models/llama-3-405b.ini \
        -g data/hardware/h800.ini -g data/hardware/h100.ini -o "$P/cmp"
    a4 "$P/cmp/compare.xlsx" "$P/cmp-a4/compare.xlsx"
    for d in cmp cmp-a4; do
        render "$P/$d" compare
    done
    check "compare prints on one landscape page, the columns up to Fits, all text at 8 points or more (Letter, A4)" \
        $PY - "$P/cmp" "$P/cmp-a4" <<'PYEOF'
import html, re, sys
for d, paper in zip(sys.argv[1:], ("Letter", "A4")):
    pages = re.findall(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>',
                       open(d + "/bbox.html", encoding="utf-8").read(), re.S)
    assert len(pages) == 1, (paper, "%d pages" % len(pages))
    w, h, body = float(pages[0][0]), float(pages[0][1]), pages[0][2]
    assert w > h, (paper, "not landscape", w, h)
    words = re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)" '
                       r'xMax="([\d.]+)" yMax="([\d.]+)">(.*?)</word>', body)
    text = [html.unescape(t) for *_, t in words]
    assert "Fits" in text and "GPU" in text, (paper, text[:60])
    assert "DeepSeek-V3" in text and "405B" in text, (paper, "a model heading missing")
    right = max(float(x1) for _, _, x1, _, _ in words)
    assert right > 0.85 * w, (paper, "text ends at %.0f of %.0f pt" % (right, w))
    size = min(float(l.split()[2]) for l in open(d + "/fonts.txt"))
    assert size >= 8.0, (paper, "smallest text %.2f pt" % size)
    print("%s: compare on one page, its smallest text %.2f pt" % (paper, size))
PYEOF
fi
