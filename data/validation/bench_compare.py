#!/usr/bin/env python3
"""bench_compare.py: every committed run's bench.txt (torch_h200_run11 on, as many as there are)
model by model against the same file at an earlier revision: median / max |error|, rows above 5%,
overhead ok, fastest plan; per model better / worse (median moved by more than 0.05 points) and
the sums. A run the revision does not hold yet, or a model the checkout's bench.txt lacks, is said so
and left out of the sums.

    python3 data/validation/bench_compare.py 00c0307
"""
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LINE = re.compile(r"\s+(\S+)\s+rows\s+(\d+)\s+median\s+([\d.]+)%\s+max\s+([\d.]+)%\s+above 5%\s+"
                  r"(\d+).*overhead ok\s+(\d+)\s+fastest plan \+([\d.]+)%")


def parse(text):
    """{model: (rows, median, max, above 5%, overhead ok, fastest plan)} of a bench output."""
    out = {}
    for line in text.splitlines():
        m = LINE.match(line)
        if m and m.group(1) != "all":
            out[m.group(1)] = tuple(float(x) for x in m.groups()[1:])
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench_compare.py REVISION")
    rev = sys.argv[1]
    tot = {"old": [0.0, 0, 0, 0], "new": [0.0, 0, 0, 0]}
    better = worse = 0
    n = 10
    while os.path.isfile(os.path.join(ROOT, "data/validation/torch_h200_run%d/bench.txt" % (n + 1))):
        n += 1
        path = "data/validation/torch_h200_run%d/bench.txt" % n
        p = subprocess.run(["git", "-C", ROOT, "show", "%s:%s" % (rev, path)], capture_output=True,
                           text=True)
        if p.returncode != 0:
            if subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", "-q", rev + "^{commit}"],
                              capture_output=True).returncode != 0:
                sys.exit("bench_compare: %s: not a revision" % rev)
            print("run%d: not at %s, left out" % (n, rev))
            continue
        with open(os.path.join(ROOT, path)) as f:
            old, new = parse(p.stdout), parse(f.read())
        for k, x in old.items():
            if k not in new:   # a bench cut short, or a model dropped: said, not a KeyError
                print("run%d %s: not in the checkout's bench.txt, left out" % (n, k))
                continue
            y = new[k]
            tag = "better" if y[1] < x[1] - 0.05 else "worse" if y[1] > x[1] + 0.05 else "same"
            better += tag == "better"
            worse += tag == "worse"
            print("run%d %-32s median %5.2f -> %5.2f  max %5.2f -> %5.2f  >5%% %2d -> %2d  "
                  "overhead ok %2d -> %2d  fastest +%.2f -> +%.2f%%  %s"
                  % (n, k[:32], x[1], y[1], x[2], y[2], x[3], y[3], x[4], y[4], x[5], y[5], tag))
            for t, v in (("old", x), ("new", y)):
                tot[t][0] += v[1]
                tot[t][1] += int(v[3])
                tot[t][2] += int(v[0])
                tot[t][3] += int(v[4])
    print("model-runs better %d, worse %d; sum of the models' medians %.1f -> %.1f; rows above 5%% "
          "%d -> %d of %d; overhead ok %d -> %d"
          % (better, worse, tot["old"][0], tot["new"][0], tot["old"][1], tot["new"][1],
             tot["old"][2], tot["old"][3], tot["new"][3]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
