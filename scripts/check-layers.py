#!/usr/bin/python3
"""The include rule of src/ (docs/ARCHITECTURE.md, "Stages and folders"):
each stage is a folder, the folders are ordered bottom to top below, and a
file includes only headers of its own folder or of a folder below it. An
include that runs back up, or one that names a header in no folder, fails.
Within a folder no order is kept, but headers form no circle (a header
that reaches itself through the headers it includes).

Usage: scripts/check-layers.py [SRC_DIR]   (exit 1 on a violation)
"""
import os
import re
import sys

# Bottom to top. A folder listed later may include from any folder listed
# earlier; main.c alone sits at the top.
LAYERS = [
    "common",          # status and messages, the INI reader, atomic output
    "input",           # data files, config.json, calibration, imports
    "plan",            # one plan (parse, check, family); the plan space
    "evaluate",        # memory, collectives, the term registry, the step
    "rank",            # sweep threads, bounded heap, families, the report
    "figures",         # views: roofline, sensitivity, waterfall, verdicts
    "write",           # writers' shared tables: plans table, CSV, eval text
    "write/xlsx",      # the workbook, one module per sheet
    "write/plot",      # gnuplot charts
    "cli",             # subcommands and their orchestration
    ".",               # main.c
]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "src"
    rank = {name: i for i, name in enumerate(LAYERS)}
    home = {}      # header basename -> folder
    files = []     # (path, folder)
    bad = 0
    for folder in LAYERS:
        path = os.path.join(src, folder)
        for name in sorted(os.listdir(path)):
            full = os.path.join(path, name)
            if not os.path.isfile(full) or not name.endswith((".c", ".h")):
                continue
            if name.endswith(".h"):
                if name in home:
                    print(f"{full}: header name also in {home[name]}/")
                    bad += 1
                home[name] = folder
            files.append((full, folder))
    # every folder under src/ is a stage
    for root, dirs, names in os.walk(src):
        rel = os.path.relpath(root, src)
        if rel not in rank and any(n.endswith((".c", ".h")) for n in names):
            print(f"{root}: a folder of sources in no stage (add it to LAYERS)")
            bad += 1
    if [f for f in os.listdir(src) if f.endswith((".c", ".h"))] != ["main.c"]:
        print(f"{src}: only main.c sits at the top")
        bad += 1
    for full, folder in files:
        with open(full, encoding="utf-8") as f:
            text = f.read()
        for m in INCLUDE.finditer(text):
            inc = os.path.basename(m.group(1))
            line = text.count("\n", 0, m.start()) + 1
            if inc not in home:
                print(f"{full}:{line}: includes {inc}, a header in no stage")
                bad += 1
            elif rank[home[inc]] > rank[folder]:
                print(f"{full}:{line}: includes {inc} from {home[inc]}/, "
                      f"a stage above {folder}/")
                bad += 1
    # headers form no circle
    graph = {}
    for full, folder in files:
        if full.endswith(".h"):
            with open(full, encoding="utf-8") as f:
                graph[os.path.basename(full)] = [
                    os.path.basename(x) for x in INCLUDE.findall(f.read())
                    if os.path.basename(x) in home]
    state = {}

    def visit(h, trail):
        nonlocal bad
        if state.get(h) == 2:
            return
        if state.get(h) == 1:
            cyc = trail[trail.index(h):] + [h]
            print(f"{src}: headers include each other in a circle: "
                  + " -> ".join(cyc))
            bad += 1
            return
        state[h] = 1
        for n in graph.get(h, []):
            visit(n, trail + [h])
        state[h] = 2

    for h in sorted(graph):
        visit(h, [])
    print(f"check-layers: {len(files)} files in {len(LAYERS)} stages, "
          f"{bad} include(s) against the order")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
