# The workbook, sheet by sheet, against golden text dumps
# (tests/golden/sheets/, written by tests/xlsx_dump.py): every cell with
# its value or formula, number format and cached result, the defined
# names, tables, merged ranges, conditional formats and chart series. The
# report comes from the snapshots in tests/data/report (not data/), run
# from a copy of that directory with a fixed command line and date, so
# only a change to the code or to those snapshots changes the dumps.
# ROOFPLAN_GOLDEN_UPDATE=1 (make golden) rewrites the dumps instead.
# Sourced by tests/run_integration.sh.
GOLD=tests/golden/sheets
W="$TMP/workbook"

if ! $PY -c 'import openpyxl' 2>/dev/null; then
    echo "SKIP: golden sheet dumps: /usr/bin/python3 has no openpyxl (apt-get install python3-openpyxl)"
else
    rm -rf "$W"
    mkdir -p "$W"
    cp -r tests/data/report/data "$W/"
    # argv[0] and -o are part of the About sheet's command line
    expect 0 "" -- env SOURCE_DATE_EPOCH=1735689600 bash -c \
        'cd "$1" && exec -a roofplan "$2" report -q --no-charts -m data/models/deepseek-v3.ini -g data/hardware/h800.ini -s data/sweeps/golden.ini -o out' \
        _ "$W" "$ROOFPLAN"
    check "sheets dumped" $PY tests/xlsx_dump.py "$W/out/report.xlsx" "$W/sheets"
    if [ "${ROOFPLAN_GOLDEN_UPDATE:-}" = 1 ]; then
        mkdir -p "$GOLD"
        rm -f "$GOLD"/*.txt
        cp "$W"/sheets/*.txt "$GOLD/"
        echo "golden: rewrote $GOLD"
    else
        for f in "$W"/sheets/*.txt; do
            check "golden sheet $(basename "$f")" \
                diff -u "$GOLD/$(basename "$f")" "$f"
        done
        check "no golden sheet without its dump" \
            diff <(cd "$GOLD" && ls) <(cd "$W/sheets" && ls)
    fi
fi
