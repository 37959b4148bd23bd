#!/usr/bin/python3
"""The font sizes a PDF prints, page by page: python3 pdf_fonts.py FILE.pdf.

Prints one line per page: its number, its size in points and the smallest
and largest font size its text is set at. A size is the text's own (Tf)
times the vertical scale of its text matrix (Tm) and of the graphics state
(cm), so a page scaled to fit shows the size a reader sees on paper. Reads
only what LibreOffice writes (FlateDecode content streams, hex or literal
strings); no PDF library is needed (Debian's python3 has none by default).
Used by tests/integration/88_print.sh.
"""
import re
import sys
import zlib

TOKEN = re.compile(
    rb"\((?:\\.|[^\\)])*\)|<[0-9A-Fa-f\s]*>|\[|\]|/[^\s/\[\]()<>]+|"
    rb"[-+]?(?:\d+\.?\d*|\.\d+)|[A-Za-z'\"*]+")


def objects(data):
    """Object number -> its bytes (dictionary and stream), by scanning."""
    out = {}
    for m in re.finditer(rb"(\d+) 0 obj(.*?)endobj", data, re.S):
        out[int(m.group(1))] = m.group(2)
    return out


def stream(obj):
    m = re.search(rb"stream\r?\n(.*)endstream", obj, re.S)
    if not m:
        return b""
    body = m.group(1)
    return zlib.decompress(body) if b"/FlateDecode" in obj else body


def mul(a, b):
    """The 2x3 affine matrix a then b (PDF order: a x b)."""
    return [a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
            a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3],
            a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5]]


def sizes(content):
    """Every font size a content stream shows text at (points)."""
    ctm, stack, tm, tf, nums, found = [1, 0, 0, 1, 0, 0], [], None, 0, [], []
    for t in TOKEN.findall(content):
        if re.fullmatch(rb"[-+]?(?:\d+\.?\d*|\.\d+)", t):
            nums.append(float(t))
            continue
        if t == b"q":
            stack.append(ctm)
        elif t == b"Q" and stack:
            ctm = stack.pop()
        elif t == b"cm" and len(nums) >= 6:
            ctm = mul(nums[-6:], ctm)
        elif t == b"BT":
            tm = [1, 0, 0, 1, 0, 0]
        elif t == b"Tm" and len(nums) >= 6:
            tm = nums[-6:]
        elif t == b"Tf" and nums:
            tf = nums[-1]
        elif t in (b"Tj", b"TJ", b"'", b'"') and tm is not None:
            m = mul(tm, ctm)
            found.append(abs(tf) * (m[2] ** 2 + m[3] ** 2) ** 0.5)
        if not t.startswith((b"/", b"(", b"<", b"[")):
            nums = []
    return found


def pages(path):
    data = open(path, "rb").read()
    objs = objects(data)
    root = re.search(rb"/Type\s*/Pages\b", data)
    kids_of = {}
    for n, o in objs.items():
        if re.search(rb"/Type\s*/Pages\b", o):
            kids_of[n] = [int(k) for k in
                          re.findall(rb"(\d+) 0 R", re.search(
                              rb"/Kids\s*\[(.*?)\]", o, re.S).group(1))]
    # the root of the page tree: the Pages object no other one lists
    listed = {k for ks in kids_of.values() for k in ks}
    order = []

    def walk(n):
        if n in kids_of:
            for k in kids_of[n]:
                walk(k)
        else:
            order.append(n)
    assert root, path
    for n in kids_of:
        if n not in listed:
            walk(n)
    for n in order:
        o = objs[n]
        box = [float(x) for x in re.search(
            rb"/MediaBox\s*\[([^\]]*)\]", o).group(1).split()]
        c = re.search(rb"/Contents\s*(\[[^\]]*\]|\d+ 0 R)", o).group(1)
        text = b"".join(stream(objs[int(k)])
                        for k in re.findall(rb"(\d+) 0 R", c))
        yield box[2] - box[0], box[3] - box[1], sizes(text)


if __name__ == "__main__":
    for i, (w, h, s) in enumerate(pages(sys.argv[1]), 1):
        if s:
            print("%d %.0fx%.0f %.2f %.2f" % (i, w, h, min(s), max(s)))
        else:
            print("%d %.0fx%.0f - -" % (i, w, h))
