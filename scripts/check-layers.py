#!/usr/bin/python3
"""The include rule of src/ (docs/ARCHITECTURE.md, "Stages and folders"):
each stage is a folder, the folders are ordered bottom to top below, and a
file includes only headers of its own folder or of a folder below it. An
include that runs back up, or one that names a header in no folder, fails.
Within a folder no order is kept, but headers form no circle (a header
that reaches itself through the headers it includes).

The hand-offs (docs/ARCHITECTURE.md, "Hand-offs"): rank hands over rows
and results that carry every time the later stages show, so a source of
figures/ or write/ calls no function of the evaluate stage that times,
sizes or evaluates a plan (cost_evaluate, cost_times, cost_ctx_*,
expected_waterfall, terms_step, ...), nor re-times a cluster
(hardware_at_link). Names, labels, templates, accessors of what was
carried and the memory terms over a carried struct memory stay callable
(AFTER_RANK_MAY_CALL).

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

# The stages after rank: they derive views and lay them out.
AFTER_RANK = ("figures", "write", "write/xlsx", "write/plot")
# Functions of the evaluate stage that compute nothing about a plan:
# names and labels, the term registry's templates and input cells,
# accessors of carried results, the memory terms over a carried memory.
AFTER_RANK_MAY_CALL = {
    "comm_kind_str", "comm_model_str",
    "cost_bound_label", "scenario_known", "scenario_key",
    "scenario_words", "scenario_source", "cost_bound_str", "cost_phase_str",
    "cost_rank_step", "cost_result_rank",
    "expected_effect_label", "expected_effect_shown",
    "terms_all", "terms_find", "terms_time", "terms_template",
    "terms_template_token", "terms_name_known", "terms_inputs",
    "terms_input_available", "terms_input_field", "terms_input_value",
    "terms_mem_headroom", "terms_mem_usable",
}
# Not of the evaluate stage, but a re-timing all the same.
AFTER_RANK_NEVER = {"hardware_at_link"}
# Sources after rank that still evaluate, each with why (none: keep it so).
AFTER_RANK_EXEMPT = {}
DECL = re.compile(r'^[A-Za-z_][\w \t\*]*?[\s\*](\w+)\s*\(', re.M)
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"', re.S)


def blank(m):
    """A comment or string literal as spaces, its newlines kept."""
    return re.sub(r'[^\n]', ' ', m.group(0))


def evaluate_functions(src):
    """The functions the evaluate stage's headers declare."""
    names = set()
    path = os.path.join(src, "evaluate")
    for name in sorted(os.listdir(path)):
        if name.endswith(".h"):
            with open(os.path.join(path, name), encoding="utf-8") as f:
                text = COMMENT.sub(blank, f.read())
            names.update(m.group(1) for m in DECL.finditer(text))
    names -= {"if", "for", "while", "return", "sizeof", "switch"}
    return (names - AFTER_RANK_MAY_CALL) | AFTER_RANK_NEVER


def after_rank_calls(src, files):
    """Calls into evaluate from figures/ and write/: each a violation."""
    bad = 0
    names = evaluate_functions(src)
    call = re.compile(r'\b(' + "|".join(sorted(names)) + r')\s*\(')
    for full, folder in files:
        rel = os.path.relpath(full, src)
        if folder not in AFTER_RANK or not full.endswith(".c") or \
                rel in AFTER_RANK_EXEMPT:
            continue
        with open(full, encoding="utf-8") as f:
            text = COMMENT.sub(blank, f.read())
        for m in call.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            print(f"{full}:{line}: calls {m.group(1)}, an evaluation after "
                  f"rank (use what rank handed over: report_row.t, "
                  f"rank_finish)")
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
    bad += after_rank_calls(src, files)
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
          f"{bad} problem(s): includes against the order, evaluation after rank")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
