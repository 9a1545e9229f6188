#!/usr/bin/env python3
"""Two rkb binaries side by side on the synthetic project of hack/bench-manifests.sh: the before/after check of a
change to rkb-manifests (same output, same speed). Each binary runs `rkb manifests` RUNS times in its own copy of
the project, alternating which goes first; the trees they write must be byte-identical.

    hack/bench-rkb-ab.py BEFORE AFTER [RUNS]     # e.g. two release builds from `git worktree`s; RUNS default 100

Prints the median and quartiles of each, in ms (wall time, as the tables of docs/benchmarks.md).
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    before, after = (os.path.abspath(p) for p in sys.argv[1:3])
    runs = int(sys.argv[3]) if len(sys.argv) == 4 else 100
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as work:
        env = dict(os.environ, RKB_BENCH_WORK=os.path.join(work, "gen"), RKB_BENCH_PROJECT_ONLY="1")
        subprocess.run(["bash", os.path.join(root, "hack/bench-manifests.sh")], env=env, check=True)
        copies = {}
        for name, exe in (("before", before), ("after", after)):
            copies[name] = (exe, os.path.join(work, name))
            subprocess.run(["cp", "-r", os.path.join(work, "gen/synthetic"), copies[name][1]], check=True)
            subprocess.run([exe, "manifests", "--dir", copies[name][1]], check=True, stdout=subprocess.DEVNULL)
        same = subprocess.run(["diff", "-r", copies["before"][1], copies["after"][1]], stdout=subprocess.DEVNULL)
        print("output: " + ("byte-identical" if same.returncode == 0 else "DIFFERENT (diff -r the two copies)"))
        times = {"before": [], "after": []}
        order = ["before", "after"]
        for i in range(runs):
            for name in order if i % 2 == 0 else order[::-1]:
                exe, project = copies[name]
                start = time.perf_counter()
                subprocess.run([exe, "manifests", "--dir", project], check=True, stdout=subprocess.DEVNULL)
                times[name].append((time.perf_counter() - start) * 1000)
        for name in order:
            q1, _, q3 = statistics.quantiles(times[name], n=4)
            print(f"{name}: median {statistics.median(times[name]):.2f} ms ({q1:.2f}-{q3:.2f})")
        sys.exit(0 if same.returncode == 0 else 1)


main()
