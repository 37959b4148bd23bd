# `make install PREFIX=...`: the installed binary finds its data and
# templates beside it (../share/roofplan), from any working directory.
INST="$TMP/inst"
check "make install PREFIX=... installs" make -s install PREFIX="$INST"
check "the installed data and templates are there" \
    test -s "$INST/share/roofplan/data/defaults.ini" -a -s "$INST/share/roofplan/templates/memory.gp.in"
expect 0 "" -- bash -c "cd / && '$INST/bin/roofplan' report -q --no-charts -o '$TMP/instout' --set space.tp=1 --set space.pp=1,16 --set space.ep=64 --set space.zero=1 --set space.mbs=1"
check "the installed binary read the installed data (About lists it)" \
    $PY -c "
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
s = z.read('xl/sharedStrings.xml').decode()
sys.exit(0 if sys.argv[2] + '/share/roofplan/data/models/' in s or (sys.argv[2].replace('//', '/')) + '/bin/../share/roofplan/data/models/' in s else 1)
" "$TMP/instout/report.xlsx" "$INST"
# No checkout path is built into the binary: a copy of the tree elsewhere
# (build/roofplan beside data/ and templates/) reads its own files.
check "no checkout path in the binary" bash -c "! grep -qF '$PWD/data' '${ROOFPLAN_RELEASE:-build/roofplan}'"
rm -rf "$TMP/moved" && mkdir -p "$TMP/moved/build" &&
    cp -r data templates "$TMP/moved/" &&
    cp "${ROOFPLAN_RELEASE:-build/roofplan}" "$TMP/moved/build/roofplan"
expect 0 "" -- bash -c "cd / && '$TMP/moved/build/roofplan' report -q --no-charts --no-csv -o '$TMP/movedout' --set space.tp=1 --set space.pp=16 --set space.ep=64 --set space.zero=1 --set space.mbs=1"
check "a moved checkout reads its own data (About lists it)" \
    $PY -c "
import sys, zipfile
s = zipfile.ZipFile(sys.argv[1]).read('xl/sharedStrings.xml').decode()
sys.exit(0 if sys.argv[2] + '/build/../data/models/' in s else 1)
" "$TMP/movedout/report.xlsx" "$TMP/moved"
rm -rf "$TMP/moved" "$TMP/movedout"
