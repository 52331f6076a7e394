#!/usr/bin/env python3
"""miss_sources.py: where the real-PyTorch rows above 5% come from (issue 10), read from a
tools/torch_decomp.py output (every row split into noise / base / fwd / bwd / rest / other, in %
of the measured iteration). It asks which level a miss lives at:

  model   what all of a model-run's rows share: the median of its rows' errors (its capture's
          costs carried to the loop, its compute-only median's own draw);
  plan    what a plan adds over its model's median, on average over the model-runs (a bias that
          one pricing of the plan could remove);
  part    each part of the decomposition.

For each it prints the rows above 5% and the sum over model-runs of their median |error| as they
are and with that level taken out (an oracle, not a model: it says how much a mechanism at that
level could move at most), then each plan's mean offset over its model's median split into the
parts, and the model-runs that hold three or more of the rows above 5%.

    python3 data/validation/miss_sources.py data/validation/torch_decomp_runs11-29.txt

A file with no decomposed rows: one line on stderr, exit 65; unreadable: 66.
"""
import collections
import re
import statistics as st
import sys

PARTS = ("noise", "base", "fwd", "bwd", "rest", "other")
ROW = re.compile(r"^(\S+)\s+(.+?)\s+err\s+([-+\d.]+) = " +
                 r" ".join(r"%s\s+([-+\d.]+)" % p for p in PARTS))


def read(path):
    """[{run, model, plan, err, noise, ...}] from a torch_decomp.py output."""
    rows, run = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("== "):
                run = line[3:].strip()
                continue
            m = ROW.match(line)
            if m:
                r = dict(zip(PARTS, map(float, m.groups()[3:])))
                r.update(run=run, model=m.group(1), plan=m.group(2).strip(),
                         err=float(m.group(3)))
                rows.append(r)
    return rows


def load(path, tool):
    """read(path), or one line on stderr and exit: 66 unreadable, 65 no decomposed rows."""
    try:
        rows = read(path)
    except (OSError, UnicodeDecodeError) as e:
        print("%s: %s: %s" % (tool, path, getattr(e, "strerror", None) or e), file=sys.stderr)
        sys.exit(66)
    if not rows:
        print("%s: %s: no decomposed rows (tools/torch_decomp.py without --summary)"
              % (tool, path), file=sys.stderr)
        sys.exit(65)
    return rows


def score(groups, f):
    """(rows whose |f(row)| is above 5, sum over model-runs of the median |f(row)|)."""
    rows = [r for g in groups.values() for r in g]
    return (sum(abs(f(r)) > 5 for r in rows),
            sum(st.median(abs(f(r)) for r in g) for g in groups.values()))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: miss_sources.py TORCH_DECOMP_OUTPUT")
    rows = load(sys.argv[1], "miss_sources")
    groups = collections.defaultdict(list)
    for r in rows:
        groups[(r["run"], r["model"])].append(r)
    for g in groups.values():
        for k in ("err",) + PARTS:
            med = st.median(r[k] for r in g)
            for r in g:
                r["m_" + k] = med   # the model-run's median of it
    plans = sorted({r["plan"] for r in rows})
    bias = {p: st.mean(r["err"] - r["m_err"] for r in rows if r["plan"] == p) for p in plans}
    print("%d rows, %d model-runs; rows above 5%% and the sum of the model-runs' median |error|"
          % (len(rows), len(groups)))
    cases = [("as they are", lambda r: r["err"]),
             ("each model-run's median error out", lambda r: r["err"] - r["m_err"]),
             ("each plan's mean offset over its model out", lambda r: r["err"] - bias[r["plan"]]),
             ("noise's model-run median out", lambda r: r["err"] - r["m_noise"])]
    cases += [("%s out" % p, lambda r, p=p: r["err"] - r[p]) for p in PARTS if p != "base"]
    for label, f in cases:
        n, s = score(groups, f)
        print("  %-44s %4d  %6.1f" % (label, n, s))
    nm = [g[0]["m_noise"] for g in groups.values()]
    print("noise's model-run median below 0 in %d of %d model-runs (mean %+.2f): each row's median "
          "above compute-only's median plus its paired overhead" % (sum(x < 0 for x in nm), len(nm),
                                                                    st.mean(nm)))
    print("per plan: mean offset over its model's median (error and parts), rows above 5% "
          "too fast / too slow")
    for p in plans:
        sel = [r for r in rows if r["plan"] == p]
        print("  %-24s %s  %3d / %3d" % (p, " ".join(
            "%s %+5.2f" % (k, st.mean(r[k] - r["m_" + k] for r in sel)) for k in ("err",) + PARTS
            if k != "base"), sum(r["err"] < -5 for r in sel), sum(r["err"] > 5 for r in sel)))
    print("model-runs holding 3 or more rows above 5%: median error and parts' medians")
    for (run, model), g in sorted(groups.items(), key=lambda kv: -sum(abs(r["err"]) > 5
                                                                        for r in kv[1])):
        n = sum(abs(r["err"]) > 5 for r in g)
        if n >= 3:
            print("  %-16s %-30s %2d  err %+6.2f  %s" % (run, model[:30], n, g[0]["m_err"], " ".join(
                "%s %+5.2f" % (k, g[0]["m_" + k]) for k in PARTS if k != "base")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
