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
