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
# the hand-offs: figures/ and write/ call nothing of evaluate that times a
# plan (issue 21, item 2); labels and templates stay callable
lay
printf 'static void f(void) { cost_times(0, 0, 0, 0, 0); }\n' \
    >>"$TMP/lay/figures/figures.c"
expect 1 "figures/figures.c:" -- /usr/bin/python3 scripts/check-layers.py "$TMP/lay"
expect 1 "calls cost_times, an evaluation after rank" -- \
    /usr/bin/python3 scripts/check-layers.py "$TMP/lay"
lay
printf 'static void f(void) { hardware_at_link(0, 1, 0, 0); }\n' \
    >>"$TMP/lay/write/xlsx/xlsx_comm.c"
expect 1 "calls hardware_at_link, an evaluation after rank" -- \
    /usr/bin/python3 scripts/check-layers.py "$TMP/lay"
lay
printf 'static void f(void) { cost_ctx_prepare_plan(0, 0, 0); }\n' \
    >>"$TMP/lay/write/plot/plot_out.c"
expect 1 "calls cost_ctx_prepare_plan" -- \
    /usr/bin/python3 scripts/check-layers.py "$TMP/lay"
lay
printf '/* cost_evaluate(ctx) in a comment */ static const char *s = "expected_waterfall(";\nstatic const char *f(void) { return cost_bound_label(0); }\n' \
    >>"$TMP/lay/figures/figures.c"
check "a comment, a string or a label is no evaluation" \
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
