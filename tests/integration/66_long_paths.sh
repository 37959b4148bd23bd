# Input paths of any length the system takes (issue 20): a model and a
# sweep file 1130 bytes deep in nested folders read in full by report, not
# cut at a fixed buffer (before: "cannot read for its checksum", exit 2,
# for a path over 511 bytes that eval read).
LONG="$TMP$(printf '/%0100d' 1 2 3 4 5 6 7 8 9 10 11)"
mkdir -p "$LONG"
cp data/models/deepseek-v3.ini "$LONG/model.ini"
cp data/sweeps/default.ini "$LONG/sweep.ini"
check "the test path is over 1023 bytes" test "${#LONG}" -gt 1023
expect 0 "" -- $ROOFPLAN check "$LONG/model.ini" "$LONG/sweep.ini"
expect 0 "" -- $ROOFPLAN report -q --no-charts --no-csv -o "$TMP/long" -m "$LONG/model.ini" -s "$LONG/sweep.ini" --set space.tp=1 --set space.pp=16 --set space.ep=64 --set space.zero=1 --set space.mbs=1 --set space.schedule=dualpipe --set space.precision=fp8 --set space.recompute=selective
check "the workbook names the whole model path" \
    $PY -c "
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
sys.exit(0 if any(sys.argv[2].encode() in z.read(n) for n in z.namelist()) else 1)
" "$TMP/long/report.xlsx" "$LONG/model.ini"
rm -rf "$TMP/long" "$TMP/0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001"

# An output folder and the program's own path (argv[0]) in Latin-1, not
# UTF-8 (issue 34 item 4): the command line on the About sheet and the
# compare sheet carried the byte 0xE4 into sharedStrings.xml, which
# openpyxl refused and LibreOffice dropped. Every XML part is UTF-8 now,
# the folder shown as M\xE4rz.
MAERZ="$TMP/$(printf 'M\xe4rz')"
mkdir -p "$MAERZ"
cp "$ROOFPLAN" "$MAERZ/roofplan"
expect 0 "" -- "$MAERZ/roofplan" report -q --no-charts -o "$MAERZ/out" \
    --set space.tp=1 --set space.pp=16 --set space.ep=64 --set space.zero=1 \
    --set space.mbs=1 --set space.schedule=dualpipe --set space.precision=fp8 \
    --set space.recompute=selective
check "report into a Latin-1 folder: every XML part UTF-8, the path escaped" \
    $PY tests/xlsx_check.py utf8 "$MAERZ/out/report.xlsx" "/M\\xE4rz/roofplan report"
expect 0 "" -- "$MAERZ/roofplan" compare -m data/models/llama-3-8b.ini \
    -g data/hardware/h800.ini -o "$MAERZ/cmp"
check "compare into a Latin-1 folder: every XML part UTF-8, the path escaped" \
    $PY tests/xlsx_check.py utf8 "$MAERZ/cmp/compare.xlsx" "-o $TMP/M\\xE4rz/cmp"
rm -rf "$MAERZ"
