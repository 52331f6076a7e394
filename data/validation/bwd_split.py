#!/usr/bin/env python3
"""bwd_split.py: the `bwd` part of torch_decomp (host time the loop's backward() paid over
compute-only beyond what fusim charged inside backward) split, plan by plan, into what the plan
shares with a base row and what is its own (issue 10, session 26, torch17):

  hooks none / 4MiB / 25MiB   base: hooks 25MiB overlap off (the same hooks and copies into the
                              buffers inside backward, every issue after it): its bwd part is the
                              per-hook and per-tensor costs carried from the capture (c); the
                              plan's own part (its bwd minus the base's) is its in-backward issues
                              ((a) their calls and (b) the work after them)
  ddp offload default / 4MiB  base: ddp default / ddp 4MiB (the same buckets, DDP's all-reduce):
                              own = the offload comm hook's issues over the all-reduce's

Reads torch_decomp's per-row output (python3 tools/torch_decomp.py RUNDIR ... > FILE); prints,
over all rows and over runs from --since on (the captures that time issues call by call: 25),
each plan's bwd part and own part in points of the measured iteration: mean, median and the share
below 0; then the rows above 5% too fast whose largest part is bwd, the same way.

    python3 data/validation/bwd_split.py data/validation/torch_decomp_runs11-28.txt
"""
import argparse
import collections
import os
import re
import statistics as st
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import bad_input  # noqa: E402

ROW = re.compile(r"(\S+)\s+(.+?)\s+err\s+(\S+) = noise\s+(\S+) base\s+(\S+) fwd\s+(\S+) "
                 r"bwd\s+(\S+) rest\s+(\S+) other\s+(\S+)")
PARTS = ("noise", "base", "fwd", "bwd", "rest", "other")
BASE = {"hooks none": "hooks 25MiB overlap off", "hooks 4MiB": "hooks 25MiB overlap off",
        "hooks 25MiB": "hooks 25MiB overlap off",
        "ddp offload default": "ddp default", "ddp offload 4MiB": "ddp 4MiB"}


def parse(lines):
    """[(run number, workload, plan, err, {part: points})] from torch_decomp's output."""
    out, run = [], None
    for line in lines:
        if line.startswith("== "):
            m = re.search(r"run(\d+)$", line.split()[1])
            run = int(m.group(1)) if m else None
            continue
        m = ROW.match(line)
        if m and run is not None:
            v = [float(m.group(i)) for i in range(3, 10)]
            out.append((run, m.group(1), m.group(2), v[0], dict(zip(PARTS, v[1:]))))
    return out


def split(rows):
    """{plan: [(run, workload, err, bwd, own or None, lead)]}: own = bwd minus its base row's."""
    by = {(r[0], r[1], r[2]): r for r in rows}
    out = collections.defaultdict(list)
    for run, wl, plan, err, p in rows:
        b = by.get((run, wl, BASE.get(plan)))
        lead = (min if err < 0 else max)(PARTS, key=lambda k: p[k])
        out[plan].append((run, wl, err, p["bwd"], p["bwd"] - b[4]["bwd"] if b else None, lead))
    return out


def stats(xs):
    return ("mean %+6.2f median %+6.2f below 0 %3.0f%%"
            % (st.mean(xs), st.median(xs), 100.0 * sum(x < 0 for x in xs) / len(xs)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--since", type=int, default=25)
    a = ap.parse_args()
    rows = []
    for path in a.files:
        with open(path) as f:
            rows += parse(f)
    if not rows:
        return bad_input.fail("bwd_split", ", ".join(a.files), "no torch_decomp rows", bad_input.DATAERR)
    sp = split(rows)
    runs = sorted({r[0] for r in rows})
    for title, sel in (("all rows, runs %d-%d" % (runs[0], runs[-1]), lambda x: True),
                       ("runs %d on" % a.since, lambda x: x[0] >= a.since),
                       ("rows above 5%% too fast led by bwd, runs %d-%d" % (runs[0], runs[-1]),
                        lambda x: x[2] < -5 and x[5] == "bwd")):
        print("== %s (points of the measured iteration)" % title)
        for plan in sorted(sp):
            xs = [x for x in sp[plan] if sel(x)]
            if not xs:
                continue
            line = "  %-24s rows %3d  bwd %s" % (plan, len(xs), stats([x[3] for x in xs]))
            own = [x[4] for x in xs if x[4] is not None]
            if own:
                line += " | own %s" % stats(own)
            print(line)


if __name__ == "__main__":
    sys.exit(bad_input.run("bwd_split", main))
