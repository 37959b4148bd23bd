#!/usr/bin/python3
"""roofplan benchmark (make bench): sweep throughput, the default report
(its wall time and the workbook's size, against issue 14's targets: at
most 5 MB and 5 s, 3 s as the goal), scaling from 10^4 to 10^8
combinations, the workbook at Excel's row limit, and `import trace` on a
300 MB synthetic profiler trace, plain and gzip (issue 22's target: at most
30 s and 200 MB of memory), generated into a temporary directory by
scripts/synth-trace.py.

Each case runs several times; the table gives the median and the spread
(min-max) of wall time, the sweep's own time (from roofplan's closing
line), plans per second and the peak resident memory of the process
(from wait4's rusage). Writes the table to stdout and out/bench.txt.
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "build", "roofplan")
LARGE = os.path.join(ROOT, "data", "sweeps", "large.ini")
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
CLOSING = re.compile(r"(\d+) plans enumerated, (\d+) valid, (\d+) fit in "
                     r"memory; sweep ([0-9.]+) s(?: \((\d+) not timed at "
                     r"the expected rates)?")

# Subsets of data/sweeps/large.ini of about 10^4, 10^5, 10^6 combinations.
NARROW = ["--set", "space.gpus=2048", "--set", "space.cp=1",
          "--set", "space.mbs=1", "--set", "space.gbs=15360",
          "--set", "space.recompute=selective"]
# 40 global batches, ten times large.ini's 4: 1.0 x 10^8 combinations
GBS_1E8 = "1024..40960 +1024"
SCALES = [
    ("1e4", NARROW),
    ("1e5", NARROW[:4] + NARROW[6:8] + ["--set", "space.mbs=1 2 4 8"]),
    ("1e6", ["--set", "space.gpus=2048", "--set", "space.gbs=3072 7680 15360"]),
    ("1e7", []),
]


def run(args, out_dir):
    """Runs roofplan once; returns wall s, rusage, stderr."""
    cmd = [BIN, "report", "-s", LARGE, "-o", out_dir] + args
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, cwd=ROOT)
    err = proc.stderr.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed ({proc.returncode}):\n{err}")
    return wall, usage, err


def case(name, args, out_dir, runs=None):
    """Runs a case RUNS times (or `runs`); returns a table row."""
    walls, sweeps, rss = [], [], []
    enumerated = valid = skipped = 0
    for _ in range(runs or RUNS):
        wall, usage, err = run(args, out_dir)
        m = CLOSING.search(err)
        if not m:
            sys.exit(f"bench: no closing line from roofplan:\n{err}")
        enumerated, valid = int(m.group(1)), int(m.group(2))
        skipped = int(m.group(5) or 0)
        walls.append(wall)
        sweeps.append(float(m.group(4)))
        rss.append(usage.ru_maxrss / 1024)  # KiB -> MiB
    sweep = statistics.median(sweeps)
    return {
        "case": name,
        "combinations": enumerated,
        "valid": valid,
        "skipped": skipped,
        "wall": statistics.median(walls),
        "wall_spread": (min(walls), max(walls)),
        "sweep": sweep,
        "combos_per_s": enumerated / sweep if sweep > 0 else 0,
        "valid_per_s": valid / sweep if sweep > 0 else 0,
        "rss": max(rss),
    }


def fmt(row):
    lo, hi = row["wall_spread"]
    return (f"{row['case']:<44} {row['combinations']:>11,} "
            f"{row['valid']:>10,} {row['skipped']:>10,} {row['wall']:>8.2f} "
            f"({lo:.2f}-{hi:.2f}) {row['sweep']:>8.2f} "
            f"{row['combos_per_s'] / 1e6:>8.2f} "
            f"{row['valid_per_s'] / 1e6:>8.2f} {row['rss']:>8.0f}")


def import_nccl(tmp):
    """`import nccl` on a device list of 200,000 ranks, each on its own
    host (issue 20: the host lookup was quadratic, over 20 s): median wall
    time over RUNS."""
    path = os.path.join(tmp, "all_reduce-200k.txt")
    with open(path, "w") as f:
        f.write("# nThread 1 nGpus 1 minBytes 1048576 maxBytes 1048576\n")
        for i in range(200000):
            f.write(f"#  Rank {i:6d} Group  0 Pid 1 on host-{i:06d} device  0 "
                    f"[0000:29:00] NVIDIA H100 80GB HBM3\n")
        f.write("#  size  count  type  redop  root  time  algbw  busbw  "
                "#wrong\n1048576  262144  float  sum  -1  1000.0  1.05  2.10"
                "  0\n")
    walls = []
    for _ in range(RUNS):
        t0 = time.monotonic()
        p = subprocess.run([BIN, "import", "nccl", path], cwd=ROOT,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        walls.append(time.monotonic() - t0)
        if p.returncode != 0:
            sys.exit("bench: import nccl failed:\n" + p.stderr.decode())
    os.remove(path)
    return walls


def instructions(tmp_args):
    """Instructions per combination of the 10^5 sweep on one thread, by
    valgrind's callgrind: repeatable on a noisy machine. None without
    valgrind."""
    if subprocess.run(["sh", "-c", "command -v valgrind"],
                      stdout=subprocess.DEVNULL).returncode != 0:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["valgrind", "--tool=callgrind",
               f"--callgrind-out-file={tmp}/cg.out", BIN, "report", "-s",
               LARGE, "-o", tmp, "--top", "1000", "--no-charts", "--no-csv",
               "--threads", "1"] + tmp_args
        p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
        err = p.stderr.decode()
        ir = re.search(r"Collected : (\d+)", err)
        m = CLOSING.search(err)
        if p.returncode != 0 or not ir or not m:
            return None
        return int(ir.group(1)), int(m.group(1)), int(m.group(2))


TRACE_PLAN = ("gpus=2048 tp=1 pp=16 ep=64 zero=1 schedule=dualpipe "
              "precision=fp8 recompute=selective mbs=1 gbs=15360")


def trace_case(tmp):
    """`import trace` on a 300 MB synthetic trace, plain and gzip: lines
    of the table's tail (median wall s, spread, peak RSS MiB)."""
    lines = []
    path = os.path.join(tmp, "synthetic.json")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts",
                                                 "synth-trace.py"),
                    "--mb", "300", path], check=True, stderr=subprocess.DEVNULL)
    subprocess.run(["gzip", "-k", "-1", path], check=True)
    for name in (path, path + ".gz"):
        walls, rss = [], []
        for _ in range(RUNS):
            t0 = time.monotonic()
            proc = subprocess.Popen([BIN, "-q", "import", "trace", "--plan",
                                     TRACE_PLAN, name], cwd=ROOT,
                                    stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE)
            err = proc.stderr.read().decode()
            _, status, usage = os.wait4(proc.pid, 0)
            walls.append(time.monotonic() - t0)
            rss.append(usage.ru_maxrss / 1024)
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(f"bench: import trace {name} failed:\n{err}")
        lines.append(f"import trace, {os.path.getsize(name) / 1e6:.0f} MB "
                     f"{'gzip' if name.endswith('.gz') else 'JSON'} "
                     f"({os.path.getsize(path) / 1e6:.0f} MB of JSON): "
                     f"{statistics.median(walls):.2f} s wall "
                     f"({min(walls):.2f}-{max(walls):.2f}), "
                     f"{max(rss):.0f} MiB peak RSS (targets: 30 s, 200 MB)")
    return lines


def main():
    cpus = os.cpu_count() or 1
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        # the sweep alone: no charts, no plans.csv (gigabytes at 10^7)
        fast = ["--top", "1000", "--no-charts", "--no-csv", "--threads"]
        rows.append(case("sweep 10M, --top 1000, 1 thread", fast + ["1"],
                         tmp))
        rows.append(case(f"sweep 10M, --top 1000, {cpus} threads",
                         fast + [str(cpus)], tmp))
        # issue 19: without --top only the Plans sheet's plans are kept,
        # so memory stays flat (plans.csv included: it lists those)
        rows.append(case(f"sweep 10M, no --top, {cpus} threads, plans.csv",
                         ["--no-charts", "--threads", str(cpus)], tmp))
        default = [BIN, "report", "-o", tmp]
        walls, shares, size = [], [], 0
        for _ in range(RUNS):
            t0 = time.monotonic()
            p = subprocess.run(default, cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
            walls.append(time.monotonic() - t0)
            if p.returncode != 0:
                sys.exit("bench: default report failed:\n" +
                         p.stderr.decode())
            m = CLOSING.search(p.stderr.decode())
            shares.append(float(m.group(4)) / walls[-1])
            size = os.path.getsize(os.path.join(tmp, "report.xlsx"))
        for name, args in SCALES:
            rows.append(case(f"scaling {name}, --top 1000, --no-charts",
                             ["--top", "1000", "--no-charts", "--no-csv"] +
                             args, tmp))
        # 10^8: large.ini with ten times its global batches (issue 19's
        # "10^8 combinations in at most 30 s"), once
        rows.append(case("scaling 1e8, --top 1000, --no-charts (1 run)",
                         ["--top", "1000", "--no-charts", "--no-csv",
                          "--set", "space.gbs=" + GBS_1E8], tmp, runs=1))
        excel = None
        if os.environ.get("BENCH_EXCEL", "1") == "1":
            excel = case("workbook at Excel's row limit (1 run)",
                         ["--no-charts", "--no-csv", "--all-plans"], tmp,
                         runs=1)
            if not os.path.exists(os.path.join(tmp, "report.xlsx")):
                excel = None  # no workbook writer in this build
        traces = trace_case(tmp)
        imports = import_nccl(tmp)
    callgrind = instructions(tmp_args=SCALES[1][1])
    head = (f"{'case':<44} {'combos':>11} {'valid':>10} {'not timed':>10} "
            f"{'wall s':>8} "
            f"{'(spread)':>11} {'sweep s':>8} {'Mcomb/s':>8} {'Mplan/s':>8} "
            f"{'RSS MiB':>8}")
    lines = [f"roofplan benchmark: {RUNS} runs per case, median wall time, "
             f"{cpus} CPUs ({os.uname().machine})", "", head,
             "-" * len(head)]
    lines += [fmt(r) for r in rows]
    if excel:
        lines.append(fmt(excel))
    lines += ["", f"default report (DeepSeek-V3, 2048 x H800, all sheets, "
              f"charts and plans.csv): {statistics.median(walls):.2f} s wall "
              f"({min(walls):.2f}-{max(walls):.2f}); sweep and evaluation "
              f"{100 * statistics.median(shares):.1f}% of it; report.xlsx "
              f"{size / 1e6:.2f} MB (targets: at most 5 s, 3 s the goal, "
              f"and 5 MB)"]
    lines += [""] + traces
    lines.append(f"import nccl, 200,000 rank lines on 200,000 hosts: "
                 f"{statistics.median(imports):.2f} s wall "
                 f"({min(imports):.2f}-{max(imports):.2f})")
    if callgrind:
        ir, combos, valid = callgrind
        lines.append(f"callgrind, 10^5 sweep on one thread: {ir:,} "
                     f"instructions, {ir / combos:,.0f} per combination, "
                     f"{ir / valid:,.0f} per evaluated plan (whole run)")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    os.makedirs(os.path.join(ROOT, "out"), exist_ok=True)
    with open(os.path.join(ROOT, "out", "bench.txt"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
