# compare (issue 13): the best plan per (model, hardware) pair, one
# workbook. Every shipped model against two clusters.
C="$TMP/cmp"
models=()
for f in data/models/*.ini; do models+=(-m "$f"); done
expect 0 "wrote $C/compare.xlsx" -- $ROOFPLAN compare "${models[@]}" -g data/hardware/h800.ini -g data/hardware/mi300x.ini -o "$C"
nm=$(ls data/models/*.ini | wc -l)
check "compare prints one row per pair" test "$(grep -c 'x\|NVIDIA\|AMD' "$TMP/out")" -ge $((2 * nm))
check "compare's workbook has one row per pair" $PY -c "
import sys, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])['Compare']
rows = [r for r in ws.iter_rows(min_row=5, values_only=True) if r[0] and r[1]]
assert len(rows) == int(sys.argv[2]), (len(rows), sys.argv[2])
assert any(r[0] == 'DeepSeek-V3' and 'H800' in r[1] for r in rows)
" "$C/compare.xlsx" $((2 * nm))
# a config.json model compares like its INI
expect 0 "" -- $ROOFPLAN compare -q -m tests/data/hf/deepseek-v3.config.json -m data/models/deepseek-v3.ini -g data/hardware/h800.ini -o "$C/json"
check "a config.json and its INI give the same best plan" \
    bash -c "test \$(tail -n +2 '$TMP/out' | cut -c 68-93 | sort -u | wc -l) -eq 1"
expect 2 "unexpected argument" -- $ROOFPLAN compare extra
