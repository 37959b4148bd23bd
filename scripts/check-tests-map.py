#!/usr/bin/python3
"""The map of tests/ onto src/'s stages (make layers, part of make test).

tests/ is flat where src/ has stage folders (docs/ARCHITECTURE.md); this
map says which stage each test exercises, and is derived, not kept by
hand:

- a unit test named for a module exercises that module's stage:
  tests/test_NAME.c tests src/<stage>/NAME.c;
- any other test (the fuzz targets of tests/fuzz/, the slow tier of
  tests/slow/, a test of shipped data) says its stage in its opening comment, on a line
  " * Stage: <stage> (what it exercises)", naming one of the stages of
  scripts/check-layers.py (LAYERS); the integration scripts
  (tests/integration/*.sh) drive the command line and are cli's.

The check fails, naming the file, on a test with no stage or an unknown
one, and when the generated table in tests/README.md differs from the
tree (a test added, renamed or removed): run
`scripts/check-tests-map.py --write` to regenerate it.

Usage: scripts/check-tests-map.py [--write] [ROOT]   (exit 1 on a problem)
"""
import glob
import importlib.util
import os
import re
import sys

BEGIN = "<!-- BEGIN tests map: scripts/check-tests-map.py --write -->"
END = "<!-- END tests map -->"
FUZZ_ENTRY = "LLVMFuzzerTestOneInput"
STAGE_LINE = re.compile(r"^\s*\*\s*Stage:\s*(\S+)\s*(.*)$", re.M)


def load_layers(root):
    """The stage list of scripts/check-layers.py, the one place it lives."""
    path = os.path.join(root, "scripts", "check-layers.py")
    spec = importlib.util.spec_from_file_location("check_layers", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.LAYERS


def module_stages(root, layers):
    """Source basename without .c -> its stage folder."""
    home = {}
    for stage in layers:
        for path in glob.glob(os.path.join(root, "src", stage, "*.c")):
            home[os.path.basename(path)[:-2]] = stage
    return home


def opening_comment(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.match(r"\s*/\*.*?\*/", text, re.S)
    return m.group(0) if m else ""


def classify(root, layers):
    """[(test path, stage, what)] and a list of problems."""
    home = module_stages(root, layers)
    rows, bad = [], []
    tests = sorted(glob.glob(os.path.join(root, "tests", "test_*.c"))
                   + glob.glob(os.path.join(root, "tests", "slow", "test_*.c"))
                   + glob.glob(os.path.join(root, "tests", "fuzz", "fuzz_*.c")))
    for path in tests:
        rel = os.path.relpath(path, root)
        name = os.path.basename(path)[:-2]
        with open(path, encoding="utf-8") as f:
            if name.startswith("fuzz_") and FUZZ_ENTRY not in f.read():
                continue  # the targets' shared harness, not a target
        m = STAGE_LINE.search(opening_comment(path))
        if m:
            stage, what = m.group(1), m.group(2).strip(" ()")
            if stage not in layers:
                bad.append(f"{rel}: Stage: {stage} names no stage of "
                           f"scripts/check-layers.py ({', '.join(layers)})")
                continue
        elif name.startswith("test_") and name[5:] in home:
            stage = home[name[5:]]
            what = f"src/{stage}/{name[5:]}.c"
        else:
            bad.append(f"{rel}: tests no module of its name; say its stage "
                       f"in its opening comment (' * Stage: <stage> (...)')")
            continue
        rows.append((rel, stage, what))
    for path in sorted(glob.glob(os.path.join(root, "tests", "integration",
                                              "*.sh"))):
        rows.append((os.path.relpath(path, root), "cli",
                     "the command line, end to end"))
    return rows, bad


def table(rows, layers):
    order = {s: i for i, s in enumerate(layers)}
    lines = [BEGIN, "", "| Stage | Test | Exercises |", "|---|---|---|"]
    for rel, stage, what in sorted(rows, key=lambda r: (order[r[1]], r[0])):
        lines.append(f"| {stage} | `{rel}` | {what} |")
    lines += ["", END]
    return "\n".join(lines)


def main(argv):
    write = "--write" in argv
    args = [a for a in argv if a != "--write"]
    root = args[0] if args else "."
    layers = load_layers(root)
    rows, bad = classify(root, layers)
    for line in bad:
        print(line)
    if bad:
        return 1
    readme = os.path.join(root, "tests", "README.md")
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        print(f"{readme}: no generated tests map ({BEGIN} ... {END})")
        return 1
    new = text[:start] + table(rows, layers) + text[end + len(END):]
    if new == text:
        return 0
    if write:
        with open(readme, "w", encoding="utf-8") as f:
            f.write(new)
        return 0
    print(f"{readme}: the tests map is stale (a test added, renamed or "
          f"removed): run scripts/check-tests-map.py --write")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
