# Faults (issues 5 and 9): each leaves an earlier report byte-for-byte intact, no
# temporary files, names the path and the OS error, exits 1. Charts are
# skipped where they do not matter, to keep the suite fast.
F="$TMP/faults"
export SOURCE_DATE_EPOCH=1700000000 # same inputs, same bytes
SMALL=(--set space.tp=1 --set "space.pp=1 16" --set "space.ep=1 64"
    --set "space.zero=1 3" --set space.recompute=selective --set space.mbs=1)
mkdir -p "$F"

# a missing output directory (and its parents) is created
expect 0 "" -- $ROOFPLAN report -q --no-charts -o "$F/new/deeper" "${SMALL[@]}"
check "missing output directory created" test -s "$F/new/deeper/report.xlsx"

# a good report to protect
mkdir -p "$F/keep"
expect 0 "" -- $ROOFPLAN report -q --no-charts -o "$F/keep" "${SMALL[@]}"
cp "$F/keep/report.xlsx" "$F/good.xlsx"
# no hidden file but the report's manifest
no_temp() { test "$(ls -A "$1" | grep '^\.' | grep -cvx '\.roofplan-manifest')" -eq 0; }

# the output path is a file
: >"$F/afile"
expect 1 "$F/afile: not a directory" -- $ROOFPLAN report -q --no-charts -o "$F/afile" "${SMALL[@]}"

# the disk fills up during the write: a 16 KiB file-size limit (SIGXFSZ is
# ignored, so the write fails with EFBIG)
expect 1 "$F/keep/" -- bash -c "ulimit -f 16; exec $ROOFPLAN report -q --no-charts -o '$F/keep' ${SMALL[*]@Q}"
check "disk full: earlier report intact" cmp "$F/good.xlsx" "$F/keep/report.xlsx"
check "disk full: no temporary files" no_temp "$F/keep"
check "disk full: message names the OS error" grep -q "File too large" "$TMP/err"

# the disk fills up while the sheets are written (issue 9, part 2.1):
# libxlsxwriter writes each part to a scratch file without checking the
# writes and zips what is left, so a limit between the workbook's size and
# its largest part cuts that part, not the zip; the check before the
# rename must catch it. A wider sweep with every plan on the Plans sheet,
# so that its part is much larger than the zip (and than plans.csv,
# written first).
WIDE=("${SMALL[@]}" --set "space.tp=1 2" --set "space.mbs=1 2 4"
    --set "space.precision=bf16 fp8" --all-plans)
mkdir -p "$F/wide"
expect 0 "" -- $ROOFPLAN report -q --no-charts -o "$F/wide" "${WIDE[@]}"
cp "$F/wide/report.xlsx" "$F/wide.xlsx"
read -r kib part < <($PY - "$F/wide.xlsx" "$F/wide/plans.csv" <<'PYEOF'
import os, sys, zipfile
big = max(zipfile.ZipFile(sys.argv[1]).infolist(), key=lambda i: i.file_size)
lo = max(os.path.getsize(sys.argv[1]), os.path.getsize(sys.argv[2])) // 1024 + 8
hi = big.file_size // 1024 - 8
assert lo < hi, (lo, hi)  # the largest part deflates well below its size
print((lo + hi) // 2, big.filename)
PYEOF
)
expect 1 "$F/wide/report.xlsx: incomplete workbook part $part (disk full?)" -- \
    bash -c "ulimit -f $kib; exec $ROOFPLAN report -q --no-charts -o '$F/wide' ${WIDE[*]@Q}"
check "part cut short: earlier report byte-identical" cmp "$F/wide.xlsx" "$F/wide/report.xlsx"
check "part cut short: no temporary files" no_temp "$F/wide"

# a bad input found late (a bad validation run) writes nothing
mkdir -p "$F/vdata/validation"
# (inputs are checked before any output: a bad --set leaves the report)
expect 2 "--set cluster.ib_gbps=-1" -- $ROOFPLAN report -q -o "$F/keep" --set cluster.ib_gbps=-1
check "bad input: earlier report intact" cmp "$F/good.xlsx" "$F/keep/report.xlsx"

# a read-only file system, where this machine lets us mount one
if mkdir -p "$F/ro" && mount -t tmpfs -o size=4m tmpfs "$F/ro" 2>/dev/null; then
    cp "$F/good.xlsx" "$F/ro/report.xlsx"
    mount -o remount,ro "$F/ro"
    expect 1 "$F/ro" -- $ROOFPLAN report -q --no-charts -o "$F/ro" "${SMALL[@]}"
    check "read-only: earlier report intact" cmp "$F/good.xlsx" "$F/ro/report.xlsx"
    check "read-only: message names the OS error" grep -q "Read-only file system" "$TMP/err"
    umount "$F/ro"
else
    echo "faults: read-only file system case skipped (cannot mount tmpfs here)"
fi

# two runs into the same directory at once both finish with complete,
# valid workbooks (their temporary files have distinct names)
mkdir -p "$F/twice"
$ROOFPLAN report -q --no-charts -o "$F/twice" "${SMALL[@]}" >/dev/null 2>"$F/a.err" &
a=$!
$ROOFPLAN report -q --no-charts -o "$F/twice" "${SMALL[@]}" >/dev/null 2>"$F/b.err"
b=$?
wait $a
check "concurrent runs: both exit 0" test "$?" -eq 0 -a "$b" -eq 0
check "concurrent runs: a complete workbook" \
    /usr/bin/python3 -c "import zipfile, sys; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None and 'xl/workbook.xml' in z.namelist()" "$F/twice/report.xlsx"
check "concurrent runs: no temporary files" no_temp "$F/twice"
unset SOURCE_DATE_EPOCH
