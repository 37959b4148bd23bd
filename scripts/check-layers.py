#!/usr/bin/python3
"""The include rule of src/ (docs/ARCHITECTURE.md, "Stages and folders"):
each stage is a folder, the folders are ordered bottom to top below, and a
file includes only headers of its own folder or of a folder below it. An
include that runs back up, or one that names a header in no folder, fails.
Within a folder no order is kept, but headers form no circle (a header
that reaches itself through the headers it includes).

The hand-offs (docs/ARCHITECTURE.md, "Hand-offs"): no evaluation after
rank, by the include rule alone. A source of a stage after rank (figures/,
write/ and its folders) reaches no header of evaluate/, neither by its
own includes nor through the headers they include: rank hands over the
ranking (ranking.h) and figures the views (views.h), whose types and
names live below evaluate (result/), so a function that times, sizes or
evaluates a plan is not even declared there. figures/ looks at the
ranking, the inputs (report_inputs.h) and the stages below evaluate;
write/ at the views (which carry the ranking and the inputs they were
derived from) and the same lower stages: a writer includes no header of
rank/ itself. There is no list of exceptions.

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
    "result",          # what evaluating gives, evaluating nothing: types, labels
    "evaluate",        # memory, collectives, the term registry, the step
    "rank",            # sweep threads, bounded heap, families: the ranking
    "figures",         # views: roofline, sensitivity, waterfall, verdicts
    "write",           # writers' shared tables: plans table, CSV, eval text
    "write/xlsx",      # the workbook, one module per sheet
    "write/plot",      # gnuplot charts
    "cli",             # subcommands and their orchestration
    ".",               # main.c
]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

# The stages after rank: they derive views and lay them out; none of
# their sources may reach a header of the evaluate stage.
AFTER_RANK = ("figures", "write", "write/xlsx", "write/plot")
EVALUATE = "evaluate"
# The writers read rank's hand-over through the views (views.h), never
# from rank/ directly.
WRITERS = ("write", "write/xlsx", "write/plot")
RANK = "rank"


def after_rank_reach(files, home, graph):
    """Sources after rank that reach an evaluate header: each a violation,
    with the chain of includes that reaches it."""
    bad = 0
    for full, folder in files:
        if folder not in AFTER_RANK:
            continue
        with open(full, encoding="utf-8") as f:
            text = f.read()
        for m in INCLUDE.finditer(text):
            inc = os.path.basename(m.group(1))
            if inc not in home:
                continue
            # breadth first, so the chain named is a shortest one
            trail = {inc: [inc]}
            queue = [inc]
            found = None
            while queue and not found:
                h = queue.pop(0)
                if home[h] == EVALUATE:
                    found = trail[h]
                    break
                for n in graph.get(h, []):
                    if n not in trail:
                        trail[n] = trail[h] + [n]
                        queue.append(n)
            if found:
                line = text.count("\n", 0, m.start()) + 1
                what = f"a header of {EVALUATE}/" if len(found) == 1 else \
                    f"which reaches {found[-1]} of {EVALUATE}/ (" + \
                    " -> ".join(found) + ")"
                print(f"{full}:{line}: includes {inc}, {what}: no evaluation "
                      f"after rank (read the ranking and the views: "
                      f"ranking.h, views.h)")
                bad += 1
    return bad


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
            elif folder in WRITERS and home[inc] == RANK:
                print(f"{full}:{line}: includes {inc} from {RANK}/: a writer "
                      f"reads the ranking and the inputs through the views "
                      f"(views.h)")
                bad += 1
    graph = {}
    for full, folder in files:
        if full.endswith(".h"):
            with open(full, encoding="utf-8") as f:
                graph[os.path.basename(full)] = [
                    os.path.basename(x) for x in INCLUDE.findall(f.read())
                    if os.path.basename(x) in home]
    bad += after_rank_reach(files, home, graph)
    # headers form no circle
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
          f"{bad} problem(s): includes against the order, an evaluate "
          f"header reached after rank")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
