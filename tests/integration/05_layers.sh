# scripts/check-layers.py (make layers): the tree as it is passes; a copy
# with one include that runs back up a stage, a header in no stage, or two
# headers that include each other fails, naming the file and line.
check "src/ keeps the stage order" /usr/bin/python3 scripts/check-layers.py src
lay() { rm -rf "$TMP/lay" && cp -r src "$TMP/lay"; }
lay
printf '#include "xlsx_book.h"\n' >>"$TMP/lay/evaluate/cost.c"
expect 1 "evaluate/cost.c:" -- /usr/bin/python3 scripts/check-layers.py "$TMP/lay"
expect 1 "xlsx_book.h from write/xlsx/, a stage above evaluate/" -- \
    /usr/bin/python3 scripts/check-layers.py "$TMP/lay"
lay
printf '#include "nowhere.h"\n' >>"$TMP/lay/plan/plan.c"
expect 1 "includes nowhere.h, a header in no stage" -- \
    /usr/bin/python3 scripts/check-layers.py "$TMP/lay"
lay
printf '#include "model.h"\n' >>"$TMP/lay/input/hardware.h"
printf '#include "hardware.h"\n' >>"$TMP/lay/input/model.h"
expect 1 "in a circle" -- /usr/bin/python3 scripts/check-layers.py "$TMP/lay"
lay
mkdir "$TMP/lay/extra" && printf 'int x;\n' >"$TMP/lay/extra/x.c"
expect 1 "in no stage (add it to LAYERS)" -- \
    /usr/bin/python3 scripts/check-layers.py "$TMP/lay"
rm -rf "$TMP/lay"
# the hand-offs by the include rule alone (issue 35, item 3): a source
# after rank that includes an evaluate header fails, and so does one
# that reaches it through another header (rank.h includes cost.h); a
# writer reads the ranking through the views, not from rank/ itself
lay
printf '#include "cost.h"\n' >>"$TMP/lay/write/csv_out.c"
expect 1 "write/csv_out.c:" -- /usr/bin/python3 scripts/check-layers.py "$TMP/lay"
expect 1 "includes cost.h, a header of evaluate/: no evaluation after rank" -- \
    /usr/bin/python3 scripts/check-layers.py "$TMP/lay"
lay
printf '#include "terms.h"\n' >>"$TMP/lay/write/xlsx/xlsx_memory.c"
expect 1 "write/xlsx/xlsx_memory.c:" -- \
    /usr/bin/python3 scripts/check-layers.py "$TMP/lay"
lay
printf '#include "rank.h"\n' >>"$TMP/lay/figures/figures.c"
expect 1 "includes rank.h, which reaches cost.h of evaluate/ (rank.h -> cost.h)" -- \
    /usr/bin/python3 scripts/check-layers.py "$TMP/lay"
lay
printf '#include "ranking.h"\n' >>"$TMP/lay/write/plot/plot_out.c"
expect 1 "includes ranking.h from rank/: a writer reads the ranking" -- \
    /usr/bin/python3 scripts/check-layers.py "$TMP/lay"
# the check holds no list of exceptions: the script names no function
expect 1 "" -- grep -qE "MAY_CALL|EXEMPT|cost_bound_label" scripts/check-layers.py
# figures/ reads the ranking and the inputs; both reach no evaluate header
lay
printf '#include "ranking.h"\n#include "report_inputs.h"\n' \
    >>"$TMP/lay/figures/figures.c"
check "figures/ may read the ranking and the inputs" \
    /usr/bin/python3 scripts/check-layers.py "$TMP/lay"
rm -rf "$TMP/lay"

# scripts/check-tests-map.py (make layers): the map of tests/ onto src/'s
# stages in tests/README.md is the tree's; a test that names no module and
# no stage, a stage that is none, and a stale map each fail, naming the file
check "tests/README.md maps every test onto its stage" \
    /usr/bin/python3 scripts/check-tests-map.py
map() {
    rm -rf "$TMP/map" && mkdir -p "$TMP/map/tests/fuzz"
    cp -r scripts src "$TMP/map/"
    cp -r tests/*.c tests/README.md tests/slow tests/integration "$TMP/map/tests/"
    cp tests/fuzz/*.c "$TMP/map/tests/fuzz/"
}
map
printf '/*\n * test_nothing: no module of this name.\n */\nint x;\n' \
    >"$TMP/map/tests/test_nothing.c"
expect 1 "tests/test_nothing.c: tests no module of its name" -- \
    /usr/bin/python3 scripts/check-tests-map.py "$TMP/map"
printf '/*\n * test_nothing: a test.\n *\n * Stage: nowhere (x)\n */\n' \
    >"$TMP/map/tests/test_nothing.c"
expect 1 "Stage: nowhere names no stage" -- \
    /usr/bin/python3 scripts/check-tests-map.py "$TMP/map"
printf '/*\n * test_nothing: a test.\n *\n * Stage: rank (x)\n */\n' \
    >"$TMP/map/tests/test_nothing.c"
expect 1 "the tests map is stale" -- \
    /usr/bin/python3 scripts/check-tests-map.py "$TMP/map"
check "--write regenerates the map" \
    /usr/bin/python3 scripts/check-tests-map.py --write "$TMP/map"
expect 0 "" -- grep -q "| rank | \`tests/test_nothing.c\` | x |" \
    "$TMP/map/tests/README.md"
rm -rf "$TMP/map"
