# scripts/check-links.py (make links): README.md and docs/*.md link only to
# what the repository holds, and the paths they name exist. The tree as it
# is passes; a small tree with one planted break at a time fails, naming
# file:line. Then the generated tables of docs/validation.md are what
# scripts/validation-table.py gives now, and no test reads a folder
# outside the repository.
check "README.md and docs/*.md: every link and path resolves" \
    /usr/bin/python3 scripts/check-links.py

# A tree of two documents that link to each other, a heading with
# punctuation and code (GitHub's anchor: "usage-make-test"), a repeated
# heading ("notes-1"), a source named by path and bare, a web address, and
# a code block whose link is an example, not read.
lk_tree() {
    rm -rf "$TMP/lk"
    mkdir -p "$TMP/lk/docs" "$TMP/lk/src/a"
    : >"$TMP/lk/src/a/x.c"
    cat >"$TMP/lk/README.md" <<'MD'
# Tree

See [the guide](docs/guide.md#usage-make-test), [notes](docs/guide.md#notes-1),
`src/a/x.c`, `x.c`, `src/a/`, `src/*/x.c` and <https://example.org>,
[a site](https://example.org/a.md#b).

```
[an example](nowhere.md) `src/nowhere.c`
```
MD
    cat >"$TMP/lk/docs/guide.md" <<'MD'
# Guide

## Usage: `make test`

## Notes

## Notes

Back to [the top](../README.md) and [here](#usage-make-test).
MD
}
lk_tree
check "a tree whose links resolve passes" \
    /usr/bin/python3 scripts/check-links.py "$TMP/lk"
lk_tree
printf 'A [broken link](docs/missing.md).\n' >>"$TMP/lk/README.md"
expect 1 "README.md:10: link docs/missing.md: no such file or folder in the repository" -- \
    /usr/bin/python3 scripts/check-links.py "$TMP/lk"
lk_tree
printf 'A [wrong anchor](guide.md#usage).\n' >>"$TMP/lk/docs/guide.md"
expect 1 "docs/guide.md:10: link guide.md#usage: no heading of docs/guide.md has the anchor #usage" -- \
    /usr/bin/python3 scripts/check-links.py "$TMP/lk"
lk_tree
printf 'Design: [DESIGN.md](../../workspace/DESIGN.md).\n' >>"$TMP/lk/docs/guide.md"
expect 1 "docs/guide.md:10: link ../../workspace/DESIGN.md: points outside the repository" -- \
    /usr/bin/python3 scripts/check-links.py "$TMP/lk"
lk_tree
printf 'A [file](/etc/passwd).\n' >>"$TMP/lk/README.md"
expect 1 "link /etc/passwd: points outside the repository" -- \
    /usr/bin/python3 scripts/check-links.py "$TMP/lk"
lk_tree
printf 'An [anchor on a source](src/a/x.c#L1).\n' >>"$TMP/lk/README.md"
expect 1 "link src/a/x.c#L1: an anchor on a file that is not Markdown" -- \
    /usr/bin/python3 scripts/check-links.py "$TMP/lk"
lk_tree
printf 'The module `src/a/y.c`.\n' >>"$TMP/lk/README.md"
expect 1 'README.md:10: `src/a/y.c`: no such file or folder in the repository' -- \
    /usr/bin/python3 scripts/check-links.py "$TMP/lk"
lk_tree
printf 'The module `y.c`.\n' >>"$TMP/lk/README.md"
expect 1 '`y.c`: no file of that name in the repository' -- \
    /usr/bin/python3 scripts/check-links.py "$TMP/lk"
lk_tree
printf 'Every `src/*/y.c`.\n' >>"$TMP/lk/README.md"
expect 1 '`src/*/y.c`: matches no file of the repository' -- \
    /usr/bin/python3 scripts/check-links.py "$TMP/lk"
lk_tree
printf 'The notes in `../workspace/facts/h200.md`.\n' >>"$TMP/lk/README.md"
expect 1 '`../workspace/facts/h200.md`: a path outside the repository' -- \
    /usr/bin/python3 scripts/check-links.py "$TMP/lk"
rm -rf "$TMP/lk"

# docs/validation.md's generated tables, regenerated with the release
# build where make integration names it (the sanitizer build gives the
# same numbers, slower)
check "docs/validation.md: the generated tables are what the data give" \
    /usr/bin/python3 scripts/validation-table.py --check "${ROOFPLAN_RELEASE:-$ROOFPLAN}"

# No test reads the project's workspace beside the repository: what a
# test needs is copied into tests/data.
lk_outside=".."/shared
check "no test reads $lk_outside" \
    bash -c "! grep -rnF '$lk_outside' tests --include='*.sh' --include='*.c' --include='*.py' --include='*.txt'"
