#!/usr/bin/env python3
"""mode_split.py: does a framework cost measured on the model follow backward()'s own CPU time
when the host turns slow? Within each capture's model-cost rounds (meta.framework_on_model.raw,
tools/torch_modelcost.py), the framework-free backward() CPU ('none') splits into fast rounds and
slow ones (above 1.25 x the fastest: the host's slow mode). Per group, the per-tensor cost of the
hook pattern per tensor (hk_n), DDP per tensor as views (ddpv_n) and the hooks alone (hk_0), each
paired round by round with 'none', over P. A cost that followed backward()'s CPU would rise by
none's slow / fast; the store's carry (loop backward() CPU over the rounds' median) assumes so.
Also the loop's compute-only backward() CPU against the two groups (which mode the loop ran in)
and the store's factor f. Model-runs without those rounds (runs before 20) or with fewer than 3
rounds in a group print f alone. Where the capture recorded the host's state a round
(tools/host_state.py, from session 33), a second line gives the fast and the slow rounds' steal
time, busy share, involuntary switches, clock and CPU moves.

    python3 data/validation/mode_split.py data/validation/torch_h200_run{11..30} data/validation/torch_h100_run31
"""
import glob
import json
import os
import statistics as st
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import host_state  # noqa: E402
import torch_runs  # noqa: E402

KEYS = ("hk_n", "ddpv_n", "hk_0")
SLOW = 1.25   # a round is slow above this many times the fastest


def mode_groups(none):
    """([fast round indices], [slow round indices]) of the framework-free backward() CPU times."""
    cut = SLOW * min(none)
    return [i for i, x in enumerate(none) if x <= cut], [i for i, x in enumerate(none) if x > cut]


def per_tensor(variant, none, groups, P):
    """Per group, the variant's cost per tensor: the median of its round-by-round excess over
    none, over P."""
    return [st.median(variant[i] - none[i] for i in g) / P for g in groups]


def host_by_mode(states, groups):
    """What the host did in the fast rounds and in the slow ones (tools/host_state.py, recorded
    from session 33 on: a round's state at its start and after the last), as one line; None
    without the states."""
    if not states or len(states) < 2:
        return None
    d = host_state.round_deltas(states)
    parts = []
    for key, label, fmt in (("steal", "steal", "%.3f"), ("busy", "busy", "%.2f"),
                            ("preempt_hz", "preempted a second", "%.0f"), ("mhz", "MHz", "%.0f")):
        got = [[d[i][key] for i in g if i < len(d) and d[i][key] is not None] for g in groups]
        if all(got):
            parts.append(label + " " + " / ".join(fmt % st.median(x) for x in got))
    moved = [[d[i]["moved"] for i in g if i < len(d) and d[i]["moved"] is not None] for g in groups]
    if all(moved):
        parts.append("moved CPU %d/%d / %d/%d" % (sum(moved[0]), len(moved[0]), sum(moved[1]),
                                                len(moved[1])))
    return "; ".join(parts) or None


def model_runs(rundir):
    """(workload name, its meta.framework_on_model, its loop's entry in runs.json, f) for each
    model-run of rundir whose capture measured the costs on the model; f the store's carry
    factor, the loop's framework-free backward() CPU over the one measured beside the costs."""
    loop = {m["workload"]: m for m in torch_runs.load(rundir)["models"]}
    for p in sorted(glob.glob(os.path.join(rundir, "wl_*.json"))):
        w = json.load(open(p))
        fm = (w.get("meta") or {}).get("framework_on_model") or {}
        m = loop.get(w["name"])
        if m is not None and fm.get("bwd_cpu_us", 0) > 0:
            yield w["name"], fm, m, m["compute_only_cpu_fwd_bwd_rest_us"][1] / fm["bwd_cpu_us"]


def run_label(rundir):
    """A run folder's label: its name from its last "run" on (torch_h100_run44b: run44b), else
    the whole name."""
    name = os.path.basename(os.path.normpath(rundir))
    i = name.rfind("run")
    return name[i:] if i >= 0 else name


def main(rundirs):
    ratios, fs = [], []
    for d in rundirs:
        for name, fm, m, f in model_runs(d):
            raw, P = fm.get("raw") or {}, fm.get("P")
            run = run_label(d)
            lb = m["compute_only_cpu_fwd_bwd_rest_us"][1]
            fs.append((f, run, name))
            n = raw.get("none")
            groups = mode_groups(n) if n else ([], [])
            if not P or "hk_n" not in raw or min(len(g) for g in groups) < 3:
                print("%-6s %-28s loop %6.0f f %.2f" % (run, name[:28], lb, f))
                continue
            none = [st.median(n[i] for i in g) for g in groups]
            host = host_by_mode(fm.get("host_state"), groups)
            cost = {k: per_tensor(raw[k], n, groups, P) for k in KEYS if k in raw}
            ratios.append((none[1] / none[0], cost["hk_n"][1] / cost["hk_n"][0]))
            print("%-6s %-28s fast %2d slow %2d none %6.0f / %6.0f (x%.2f) loop %6.0f f %.2f | "
                  "cost slow/fast %s" % (
                      run, name[:28], len(groups[0]),
                      len(groups[1]), none[0], none[1], none[1] / none[0], lb,
                      f, " ".join("%s %.2f" % (k, c[1] / c[0])
                                                      for k, c in cost.items())))
            if host:
                print("       host, fast / slow rounds: %s" % host)
    if ratios:
        print("%d model-runs: none slow / fast median %.2f; hk_n per tensor slow / fast median "
              "%.2f (above 1.2 in %d)" % (len(ratios), st.median(a for a, _ in ratios),
                                          st.median(b for _, b in ratios),
                                          sum(b > 1.2 for _, b in ratios)))
    fs.sort(reverse=True)
    if fs:
        print("f over %d model-runs: median %.2f, range %.2f-%.2f; highest %s" % (
            len(fs), st.median(f for f, _, _ in fs), fs[-1][0], fs[0][0],
            ", ".join("%s %s %.2f" % (r, w, f) for f, r, w in fs[:3])))


if __name__ == "__main__":
    main(sys.argv[1:])
