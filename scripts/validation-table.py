#!/usr/bin/python3
"""The README's validation error table, per run, effect by effect.

For each published run in data/validation/*.ini, evaluates its plan with
its own model, hardware, stack (and training recipe and --set overrides,
where the file names them) through `roofplan eval --json`, and prints a
Markdown table: the measured step (published, or the step the published
TFLOP/s per GPU imply for the model file's FLOP count, as the report
compares them), the speed of light, what each expected effect adds
(the waterfall of `eval --json`, in its order), the expected step and its
error against the measured one.

    scripts/validation-table.py [build/roofplan]

Nothing here is fitted: it reads what the report computes.
"""
import configparser
import glob
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "data")


def run_file(path):
    cp = configparser.ConfigParser(inline_comment_prefixes=None,
                                   comment_prefixes=(";", "#"),
                                   interpolation=None, strict=False)
    cp.read(path, encoding="utf-8")
    return cp["run"]


def evaluate(binary, run):
    cmd = [binary, "eval", "--json",
           "-m", os.path.join(DATA, run["model"]),
           "-g", os.path.join(DATA, run["hardware"])]
    if run.get("stack"):
        cmd += ["--stack", os.path.join(DATA, run["stack"])]
    if run.get("training"):
        cmd += ["-t", os.path.join(DATA, run["training"])]
    for s in run.get("set", "").split():
        cmd += ["--set", s]
    cmd += run["plan"].split()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                         cwd=ROOT)
    return json.loads(out.stdout)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        ROOT, "build", "roofplan")
    runs = sorted(glob.glob(os.path.join(DATA, "validation", "*.ini")))
    rows, effects = [], []
    for path in runs:
        run = run_file(path)
        j = evaluate(binary, run)
        step_s = float(run.get("step_s", "0") or 0)
        tflops = float(run.get("tflops_per_gpu", "0") or 0)
        measured = step_s if step_s > 0 else (
            j["flops_per_gpu"]["model"] / (tflops * 1e12) if tflops > 0
            else 0)
        water = j.get("waterfall", [])
        for w in water[1:]:
            if w["effect"] not in effects:
                effects.append(w["effect"])
        # the waterfall starts at the floor of the rank the expected step
        # is slowest on, so its steps add up to the expected step
        floor = water[0]["seconds"] if water else j["time_s"]["step"]
        rows.append((run["name"], measured, floor,
                     {w["effect"]: w["seconds"] for w in water[1:]},
                     j["time_s"].get("expected", 0), j["fits"]))
    head = (["run", "measured s", "speed of light s"] +
            ["+ " + e for e in effects] +
            ["expected s", "expected vs measured", "fits"])
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for name, measured, sol, eff, expected, fits in rows:
        err = (f"{(expected / measured - 1) * 100:+.1f}%"
               if measured > 0 and expected > 0 else "n/a")
        cells = ([name, f"{measured:.2f}" if measured else "n/a",
                  f"{sol:.2f}"] +
                 [f"{round(eff.get(e, 0), 2) + 0.0:.2f}" for e in effects] +
                 [f"{expected:.2f}", err, "yes" if fits else "no"])
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
