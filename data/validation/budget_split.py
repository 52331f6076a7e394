#!/usr/bin/env python3
"""budget_split.py: how a validation run should spend a fixed device budget per model (issue 10).
Each row's error carries two measurements' noise (model_level.py): the loop's (each plan's
median, and compute-only's median that anchors every prediction, over N rounds) and the
capture's (the frameworks' costs measured on the model over M model-cost rounds). Both shrink
with more rounds; a model has one budget. This script measures from the committed runs how each
noise scales with its rounds, what a round of each costs, and the noise each way of spending the
budget leaves:

  costs    from each run's log.txt: a loop round of R runners takes R x the runner's step (s:
           the loop's seconds over its rounds and runners); a model-cost round takes V variants
           x (k x steps x s + f), k and f fitted over every model-run (steps: a variant's
           steps a round, 2 where the capture's cold-cache experiment, torch_modelcost.measure
           (cold=True), steps each variant a second time after a 256 MiB host rewrite, else 1;
           f: that rewrite, fitted on captures with it);
  loop     every model-run's rounds cut into disjoint blocks of n rounds (in time, and
           interleaved every k-th round), each block's row and compute-only medians taken
           again, each prediction moved with compute-only's median (as model_level.loop_sd):
           the variance over blocks of each row's error and of the model-run's median error,
           pooled over model-runs, against n; its parts: the anchor's (compute-only's median),
           the row's own, their covariance, and rho: compute-only's block-to-block draw shared
           with the plans' (their covariance over its variance, each in parts of its whole-run
           median), which a second framework-free runner would share with it too;
  capture  the capture's model-cost rounds cut into disjoint halves and quarters in time, the
           costs estimated again from each (model_level.resample_capture) and every run
           predicted again by the store: the variance over the parts, against their rounds m;
  options  each variance fitted as A x rounds^-g (least squares on the logs) and as A / rounds
           + C (C: what more rounds never take away), both weighted by the degrees of freedom,
           the loop's over its time blocks (which carry the lease's drift as a run of that many
           rounds would): the two bracket what more rounds than measured buy. The rows' own
           errors against the noise the fits put on them at their runs' rounds. Then every way
           of spending a model-run's budget (what the harness spends on its loop and model-cost
           rounds now, at the model-run's own step) priced by them: rounds as now; the best split of loop and model-cost rounds;
           the cold experiment left out; 8 plans (9 runners) instead of 12; a twin anchor (a
           second framework-free runner, the anchor the median of both: the anchor part's
           variance x (1 + rho) / 2). The rms over model-runs of each row's noise sd and of the
           model-run median's, and the budget a model would need for a given row noise.

    python3 data/validation/budget_split.py data/validation/torch_h200_run{11..30}

Nine store passes over the runs (about 12 minutes on one core). Nothing is stored. A RUNDIR
that is not a validation run with per-round CPU times and a log: one line on stderr, exit 65.
"""
import argparse
import collections
import json
import math
import os
import re
import shutil
import statistics as st
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_level as ML  # noqa: E402
from model_level import errors, matrix, load_run  # noqa: E402

LOOP_SIZES = (3, 4, 6, 8, 12)
LOOP_WARMUP, MC_WARMUP = 2, 3   # calib/device_torch_run.sh's --warmup; torch_modelcost.measure's


def blocks(n, size, mode):
    """Disjoint round index lists of `size` rounds out of n (the rest dropped): 'time'
    consecutive, 'every' each k-th round (k = n // size), which samples the same stretches."""
    k = n // size
    if mode == "time":
        return [list(range(b * size, (b + 1) * size)) for b in range(k)]
    return [list(range(b, k * size, k)) for b in range(k)]


class Pool:
    """Within-group (co)variances pooled over groups: sum of products of deviations from each
    group's mean over the sum of each group's degrees of freedom (its values less one)."""

    def __init__(self):
        self.s, self.dof = collections.defaultdict(float), 0

    def add(self, **series):
        """One group: named lists of equal length (one value a block); products of every pair."""
        xs = {k: (v, st.mean(v)) for k, v in series.items()}
        n = len(next(iter(series.values())))
        if n < 2:
            return
        names = sorted(xs)
        for i, a in enumerate(names):
            for b in names[i:]:
                (va, ma), (vb, mb) = xs[a], xs[b]
                self.s[(a, b)] += sum((x - ma) * (y - mb) for x, y in zip(va, vb))
        self.dof += n - 1

    def cov(self, a, b=None):
        b = b or a
        return self.s[tuple(sorted((a, b)))] / self.dof if self.dof else float("nan")


def fit_power(points):
    """var = A x n^-g through points [(n, var, dof)] by least squares on the logs, each point
    weighted by its degrees of freedom: [(A, g)], a curve (curve_at); g 1 where fewer than two
    sizes are given (var x n averaged). Points whose var is not positive are left out."""
    pts = [(math.log(n), math.log(v), d) for n, v, d in points if v > 0]
    if len({x for x, _, _ in pts}) < 2:
        return [(st.mean(math.exp(y + x) for x, y, _ in pts), 1.0)]
    w = sum(d for _, _, d in pts)
    mx, my = sum(d * x for x, _, d in pts) / w, sum(d * y for _, y, d in pts) / w
    slope = sum(d * (x - mx) * (y - my) for x, y, d in pts) / sum(d * (x - mx) ** 2
                                                               for x, _, d in pts)
    return [(math.exp(my - slope * mx), -slope)]


def fit_inverse(points):
    """var = A / n + C through points [(n, var, dof)] by least squares weighted by the degrees
    of freedom: [(A, 1), (C, 0)], a curve (curve_at). C is the part more rounds never take away
    (the lease's drift between blocks); where the line puts it below 0, A / n alone (through
    the origin)."""
    w = sum(d for _, _, d in points)
    mx, my = sum(d / n for n, _, d in points) / w, sum(d * v for _, v, d in points) / w
    sxx = sum(d * (1.0 / n - mx) ** 2 for n, _, d in points)
    a = sum(d * (1.0 / n - mx) * (v - my) for n, v, d in points) / sxx if sxx else 0.0
    if not sxx or my - a * mx < 0:
        return [(sum(d * v / n for n, v, d in points) / sum(d / n / n for n, _, d in points), 1.0)]
    return [(a, 1.0), (my - a * mx, 0.0)]


def curve_at(curve, n):
    """A noise curve's variance at n rounds: the sum of its terms A x n^-g."""
    return sum(a * n ** -g for a, g in curve)


def best_split(loop, cap, c_loop, c_mc, budget, n_min=4, m_min=4):
    """The loop rounds N and model-cost rounds M that give the least curve_at(loop, N) +
    curve_at(cap, M) within budget seconds ((N + LOOP_WARMUP) c_loop + (M + MC_WARMUP) c_mc),
    every N from n_min tried with the most M the rest buys: (N, M, variance), or None where
    the budget holds not even the minima."""
    left = budget - LOOP_WARMUP * c_loop - MC_WARMUP * c_mc
    best, n = None, n_min
    while n * c_loop + m_min * c_mc <= left:
        m = math.floor((left - n * c_loop) / c_mc)
        v = curve_at(loop, n) + curve_at(cap, m)
        if best is None or v < best[2]:
            best = (n, m, v)
        n += 1
    return best


def phase_seconds(rundir):
    """{workload: {'mc': [(seconds, rounds)], 'capture_s', 'loop_s', 'loop_rounds', 'runners'}}
    from a validate_torch log.txt (its 'on the model (S s, M rounds' lines come before the
    model's 'captured in' line)."""
    out, pending = {}, []
    with open(os.path.join(rundir, "log.txt")) as f:
        for line in f:
            m = re.match(r"\s+on the model \(([\d.]+) s, (\d+) rounds", line)
            if m:
                pending.append((float(m.group(1)), int(m.group(2))))
            m = re.match(r"(\S+): captured in ([\d.]+) s", line)
            if m:
                out[m.group(1)] = {"mc": pending, "capture_s": float(m.group(2))}
                pending = []
            m = re.match(r"(\S+): (\d+) rounds x (\d+) runners in ([\d.]+) s", line)
            if m and m.group(1) in out:
                out[m.group(1)].update(loop_rounds=int(m.group(2)), runners=int(m.group(3)),
                                       loop_s=float(m.group(4)))
    return {w: v for w, v in out.items() if "loop_s" in v}


def model_cost_shape(rundir, workload):
    """(variants, rounds, steps a variant a round: 2 with the cold experiment, else 1) of the
    capture's model-cost rounds (meta.framework_on_model: raw, and cold where it ran)."""
    with open(os.path.join(rundir, "wl_%s.json" % workload)) as f:
        fm = (json.load(f).get("meta") or {}).get("framework_on_model") or {}
    raw = fm.get("raw") or {}
    return len(raw), len(raw.get("none") or []), 2 if "cold" in fm else 1


def fit_round_cost(points):
    """(k, f) of a model-cost round's seconds per variant y = k x + f c by least squares over
    points [(x, y, c)]: x a variant's steps a round x the loop's step, c True where the capture
    ran the cold experiment (f: its host rewrite, which only those rounds pay; 0 where none
    did). f is the mean of y - k x over those points, so k is the slope through them centred
    and through the origin for the others (with every point cold, statistics.linear_regression's
    line)."""
    cold = [(x, y) for x, y, c in points if c]
    mx = math.fsum(x for x, _ in cold) / len(cold) if cold else 0.0
    my = math.fsum(y for _, y in cold) / len(cold) if cold else 0.0
    dev = [(x - mx, y - my) for x, y in cold] + [(x, y) for x, y, c in points if not c]
    k = math.fsum(dx * dy for dx, dy in dev) / math.fsum(dx * dx for dx, _ in dev)
    return k, (my - k * mx if cold else 0.0)


def costs(runs):
    """Per model-run {step, R, V, M, N, loop_s, mc_s, capture_s}, and (k, f) of a model-cost
    round's seconds per variant = k x its steps x step + f where the cold experiment ran (else
    k x step), fitted over every 'on the model' line (fit_round_cost)."""
    per, pts = {}, []
    for d, run in runs.items():
        ph = phase_seconds(d)
        for m in run["models"]:
            p = ph.get(m["workload"])
            if not p or not p["mc"]:
                continue
            v, mr, steps = model_cost_shape(d, m["workload"])
            step = p["loop_s"] / (p["loop_rounds"] * p["runners"])
            for sec, rounds in p["mc"]:
                pts.append((steps * step, sec / ((rounds + MC_WARMUP) * v), steps == 2))
            per[key(d, m)] = {"step": step, "R": p["runners"], "V": v, "M": mr,
                              "N": len(m["compute_only_times_us"]), "loop_s": p["loop_s"],
                              "mc_s": sum(s for s, _ in p["mc"]), "capture_s": p["capture_s"]}
    k, f = fit_round_cost(pts)
    return per, k, f


def key(rundir, m):
    return (os.path.basename(os.path.normpath(rundir)), m["workload"])


def loop_blocks(m, errs, ix_sets, pools):
    """Adds one model-run's blocks (ix_sets) to pools 'row' (each row's error e, its anchor part
    a and own part r, points of the row's median), 'med' (the model-run's median error, its
    anchor part and the rows' median own part) and 'rel' (compute-only's and each row's block
    median, each in parts of its whole-run median: their covariance over compute-only's
    variance is the share of compute-only's draw that a second framework-free runner would
    draw with it)."""
    co = m["compute_only_times_us"]
    c0 = st.median(co)
    cb = [st.median(co[i] for i in ix) for ix in ix_sets]
    e_b, r_b = [[] for _ in ix_sets], [[] for _ in ix_sets]
    meds = []
    for r in m["rows"]:
        t = r["times_us"]
        r0 = st.median(t)
        meds.append(r0)
        pred = r0 * (1 + errs[r["plan_label"]] / 100)
        rb = [st.median(t[i] for i in ix) for ix in ix_sets]
        e = [100 * (pred + c - c0 - x) / x for c, x in zip(cb, rb)]
        own = [100 * (x - r0) / r0 for x in rb]
        pools["row"].add(e=e, a=[100 * (c - c0) / r0 for c in cb], r=own)
        pools["rel"].add(co=[c / c0 for c in cb], row=[x / r0 for x in rb])
        for b in range(len(ix_sets)):
            e_b[b].append(e[b])
            r_b[b].append(own[b])
    rmed = st.median(meds)
    pools["med"].add(e=[st.median(x) for x in e_b], a=[100 * (c - c0) / rmed for c in cb],
                     r=[st.median(x) for x in r_b])


def loop_section(runs, E):
    """The loop's noise against block size: {(mode, n): pools}; prints the table."""
    out = {}
    print("\n== the loop: variance over disjoint blocks of n rounds, pooled over model-runs "
          "(points^2 of the measured iteration)")
    print("  %-6s %3s %5s | row: %6s %6s %6s %6s | median: %6s %6s %6s %6s | rho"
          % ("blocks", "n", "dof", "error", "anchor", "own", "cov", "error", "anchor", "own", "cov"))
    for mode in ("time", "every"):
        for n in LOOP_SIZES:
            pools = {p: Pool() for p in ("row", "med", "rel")}
            for d, run in runs.items():
                for m in run["models"]:
                    ix = blocks(len(m["compute_only_times_us"]), n, mode)
                    if len(ix) >= 2:
                        loop_blocks(m, E[key(d, m)], ix, pools)
            out[(mode, n)] = pools
            rw, md, rl = pools["row"], pools["med"], pools["rel"]
            print("  %-6s %3d %5d | %11.2f %6.2f %6.2f %+6.2f | %13.2f %6.2f %6.2f %+6.2f | %.2f"
                  % (mode, n, md.dof, rw.cov("e"), rw.cov("a"), rw.cov("r"), rw.cov("a", "r"),
                     md.cov("e"), md.cov("a"), md.cov("r"), md.cov("a", "r"),
                     rl.cov("co", "row") / rl.cov("co")))
    return out


def twin_blocks(m, errs, ix_sets, pool):
    """Adds one model-run's blocks to pool: each row's error anchored on compute-only's median
    ('co') and on the median of compute-only's and the twin's iterations together ('both', the
    prediction moved with that anchor), and the two runners' block medians in parts of their
    whole-run ones ('c', 't': their covariance over compute-only's variance is rho measured)."""
    co = m["compute_only_times_us"]
    tw = m["loop_probes"]["baseline twin"]["times_us"]
    c0, b0 = st.median(co), st.median(co + tw)
    cb = [st.median(co[i] for i in ix) for ix in ix_sets]
    tb = [st.median(tw[i] for i in ix) for ix in ix_sets]
    bb = [st.median([co[i] for i in ix] + [tw[i] for i in ix]) for ix in ix_sets]
    for r in m["rows"]:
        t = r["times_us"]
        pred = st.median(t) * (1 + errs[r["plan_label"]] / 100)
        rb = [st.median(t[i] for i in ix) for ix in ix_sets]
        pool.add(co=[100 * (pred + c - c0 - x) / x for c, x in zip(cb, rb)],
                 both=[100 * (pred + b - b0 - x) / x for b, x in zip(bb, rb)],
                 c=[c / c0 for c in cb], t=[x / st.median(tw) for x in tb])


def twin_section(runs, E):
    """Where a run had validate_torch --baseline-twin: the row error's variance over time blocks
    anchored on compute-only alone and on both framework-free runners, and rho measured (what
    fits() takes from the plans). Prints nothing for runs without the twin."""
    have = [(d, m) for d, run in runs.items() for m in run["models"]
            if "baseline twin" in (m.get("loop_probes") or {})]
    if not have:
        return
    print("\n== the twin anchor measured (%d model-runs with validate_torch --baseline-twin): the "
          "row error's variance over time blocks" % len(have))
    for n in LOOP_SIZES:
        pool = Pool()
        for d, m in have:
            ix = blocks(len(m["compute_only_times_us"]), n, "time")
            if len(ix) >= 2:
                twin_blocks(m, E[key(d, m)], ix, pool)
        if pool.dof:
            print("  n %2d: anchored on compute-only %.2f, on both %.2f; rho %.2f"
                  % (n, pool.cov("co"), pool.cov("both"), pool.cov("c", "t") / pool.cov("c")))


def halves_check(a, runs, E, tmp):
    """The loop's shift (each prediction moved with compute-only's median) against the store
    predicting each time half of the rounds as a run of its own (model_level.cut_model): the
    pooled variance over the two halves of each row's error and of the model-run median."""
    got = collections.defaultdict(dict)
    for h in (0, 1):
        sub = os.path.join(tmp, "half%d" % h)
        for d, run in runs.items():
            ix = {m["workload"]: ML.half_rounds(len(m["compute_only_times_us"]), "time", h)
                  for m in run["models"]}
            hd = ML.copy_run(d, sub, dict(run, models=[ML.cut_model(m, ix[m["workload"]])
                                                       for m in run["models"]]))
            he = errors(matrix(a.fusim, hd, sub))
            shutil.rmtree(hd)
            for m in run["models"]:
                got[key(d, m)][h] = he[m["workload"]]
    store, shift = {p: Pool() for p in ("row", "med")}, {p: Pool() for p in ("row", "med", "rel")}
    for d, run in runs.items():
        for m in run["models"]:
            k = key(d, m)
            for r in m["rows"]:
                store["row"].add(e=[got[k][h][r["plan_label"]] for h in (0, 1)])
            store["med"].add(e=[ML.med(got[k][h]) for h in (0, 1)])
            n = len(m["compute_only_times_us"])
            loop_blocks(m, E[k], [ML.half_rounds(n, "time", h) for h in (0, 1)], shift)
    print("  check, time halves: the store predicting each half against the shift: row %.2f "
          "against %.2f, median %.2f against %.2f"
          % (store["row"].cov("e"), shift["row"].cov("e"), store["med"].cov("e"),
             shift["med"].cov("e")))


def capture_section(a, runs, tmp, parts_list=(2, 4)):
    """The capture's noise against its rounds: every run predicted with the costs estimated
    from each of `parts` disjoint time parts of the model-cost rounds. Returns [(m, row var,
    median var, dof)] for m of 4 rounds or more; prints the table."""
    print("\n== the capture: variance over disjoint parts of its model-cost rounds (m rounds "
          "each), every run predicted again")
    print("  %5s %3s %4s %6s | %8s %8s | %9s %9s"
          % ("parts", "M", "m", "runs", "row var", "med var", "row var m", "med var m"))
    pts = []
    for parts in parts_list:
        per = collections.defaultdict(list)   # model-run -> [{plan: error} a part]
        for p in range(parts):
            sub = os.path.join(tmp, "cap%d_%d" % (parts, p))
            for d, run in runs.items():
                def edit(wl):
                    fm = (wl.get("meta") or {}).get("framework_on_model") or {}
                    n = len((fm.get("raw") or {}).get("none") or [])
                    if n >= parts:
                        ML.resample_capture(wl, blocks(n, n // parts, "time")[p])
                cd = ML.copy_run(d, sub, wl_edit=edit)
                ce = errors(matrix(a.fusim, cd, sub))
                shutil.rmtree(cd)
                for m in run["models"]:
                    per[(d, m["workload"])].append(ce[m["workload"]])
        by_m = collections.defaultdict(lambda: ({"row": Pool(), "med": Pool()}, set()))
        for (d, w), errs in per.items():
            mr = model_cost_shape(d, w)[1]
            if mr < parts:
                continue
            pools, seen = by_m[(mr, mr // parts)]
            seen.add((d, w))
            for plan in errs[0]:
                pools["row"].add(e=[x[plan] for x in errs])
            pools["med"].add(e=[ML.med(x) for x in errs])
        for (mr, m), (pools, seen) in sorted(by_m.items()):
            rv, mv = pools["row"].cov("e"), pools["med"].cov("e")
            print("  %5d %3d %4d %6d | %8.2f %8.2f | %9.1f %9.1f"
                  % (parts, mr, m, len(seen), rv, mv, rv * m, mv * m))
            if m >= 4:
                pts.append((m, rv, mv, pools["med"].dof))
    return pts


# The harness as calib/device_torch_run.sh runs it now: timed loop rounds, model-cost rounds,
# runners (compute-only and 12 plans) and model-cost variants (every 4,16,64).
NOW_N, NOW_M, NOW_R, NOW_V = 24, 16, 13, 15


def fits(L, cap, fit_fn):
    """The fitted noise curves (fit_fn: fit_power or fit_inverse): {name: curve} for the loop's row and median error
    (time blocks), the same with a twin anchor, the capture's row and median error; and rho,
    compute-only's within-block share with the plans (the median over block sizes). With a
    twin the anchor part's variance at each block size is taken x (1 + rho) / 2 (the twin draws
    rho of compute-only's draw with it, the rest on its own), then fitted."""
    tl = [(n, p) for (mode, n), p in L.items() if mode == "time"]
    rho = min(1.0, st.median(p["rel"].cov("co", "row") / p["rel"].cov("co") for _, p in tl))
    fit = {}
    for pool in ("row", "med"):
        fit["loop %s" % pool] = fit_fn([(n, p[pool].cov("e"), p["med"].dof) for n, p in tl])
        fit["loop %s, twin" % pool] = fit_fn([(n, p[pool].cov("e") - p[pool].cov("a")
                                               * (1 - rho) / 2, p["med"].dof) for n, p in tl])
    fit["capture row"] = fit_fn([(m, rv, dof) for m, rv, _, dof in cap])
    fit["capture med"] = fit_fn([(m, mv, dof) for m, _, mv, dof in cap])
    return fit, rho


# the ways of spending a model's budget: name, runners, the cold experiment on, a twin anchor,
# the split chosen (else the harness's now)
SCHEMES = (("as now: 24 loop x 13 runners, 16 model-cost rounds", NOW_R, True, False, False),
           ("best split", NOW_R, True, False, True),
           ("cold experiment off, best split", NOW_R, False, False, True),
           ("twin anchor, best split", NOW_R + 1, True, True, True),
           ("cold off, twin anchor, best split", NOW_R + 1, False, True, True),
           ("cold off, 8 plans (9 runners), best split", 9, False, False, True),
           ("cold off, 8 plans + twin (10 runners), best split", 10, False, True, True))


def round_costs(step, k, f, runners, cold):
    """(a loop round's, a model-cost round's seconds) at the runner's step: NOW_V variants of
    two steps and the host rewrite each with the cold experiment, of one step without."""
    return runners * step, NOW_V * (2 * k * step + f if cold else k * step)


def schemes(per, k, f, fit):
    """Every way of spending each model-run's budget (the harness's now: NOW_* at its step):
    {name: [(N, M, row var, median var, seconds)] a model-run}; the split minimises the row's."""
    out = {}
    for name, runners, cold, twin, split in SCHEMES:
        res = []
        for p in per.values():
            now_loop, now_mc = round_costs(p["step"], k, f, NOW_R, True)
            budget = (NOW_N + LOOP_WARMUP) * now_loop + (NOW_M + MC_WARMUP) * now_mc
            c_loop, c_mc = round_costs(p["step"], k, f, runners, cold)
            row, med = (fit["loop %s%s" % (w, ", twin" if twin else "")] for w in ("row", "med"))
            got = best_split(row, fit["capture row"], c_loop, c_mc, budget) if split \
                else (NOW_N, NOW_M)
            if got is None:
                continue
            n, m = got[:2]
            res.append((n, m, curve_at(row, n) + curve_at(fit["capture row"], m),
                        curve_at(med, n) + curve_at(fit["capture med"], m),
                        (n + LOOP_WARMUP) * c_loop + (m + MC_WARMUP) * c_mc))
        out[name] = res
    return out


def rms(xs):
    xs = list(xs)
    return math.sqrt(st.mean(xs)) if xs else float("nan")


def budget_for(sd, loop, cap, c_loop, c_mc):
    """The least budget (seconds, to 1%) whose best split leaves a noise sd of at most sd, or
    None beyond 100 times the tries' start (4 rounds of each and the warm-ups)."""
    def var(budget):
        return (best_split(loop, cap, c_loop, c_mc, budget) or (0, 0, float("inf")))[2]
    start = lo = hi = (LOOP_WARMUP + 4) * c_loop + (MC_WARMUP + 4) * c_mc
    while var(hi) > sd * sd:
        lo, hi = hi, hi * 1.5
        if hi > 100 * start:
            return None
    while hi - lo > 0.01 * hi:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if var(mid) > sd * sd else (lo, mid)
    return hi


def curve_text(curve):
    return " + ".join("%.1f" % a if g == 0 else "%.1f x rounds^-%.2f" % (a, g) for a, g in curve)


def consistency(E, per, fit):
    """(the rms of every row's error, the rms of the noise sd the fits put on it at its own run's
    loop and model-cost rounds), both over the model-runs with costs: the errors can hold no
    less than their noise (torch23: they are about all noise)."""
    ks = [k for k in per if per[k]["M"]]
    err = rms(st.mean(e * e for e in E[k].values()) for k in ks)
    noise = rms(curve_at(fit["loop row"], per[k]["N"]) + curve_at(fit["capture row"], per[k]["M"])
                for k in ks)
    return err, noise


def options_section(E, per, k, f, L, cap):
    s = st.median(p["step"] for p in per.values())
    now_loop, now_mc = round_costs(s, k, f, NOW_R, True)
    print("\n== costs at the median runner's step %.3f s: a loop round %d x step = %.2f s; a "
          "model-cost round %d variants x (2 x %.2f x step %+.3f s) = %.2f s (cold off: %.2f s); "
          "the capture's other parts median %.1f s"
          % (s, NOW_R, now_loop, NOW_V, k, f, now_mc, round_costs(s, k, f, NOW_R, False)[1],
             st.median(p["capture_s"] - p["mc_s"] for p in per.values())))
    for form, fit_fn in (("A x rounds^-g", fit_power), ("A / rounds + C", fit_inverse)):
        fit, rho = fits(L, cap, fit_fn)
        print("\n== the fits, variance (points^2) = %s" % form)
        for name, curve in fit.items():
            print("  %-16s %-30s (at 16 rounds %.2f, 24 %.2f, 48 %.2f)"
                  % (name, curve_text(curve), curve_at(curve, 16), curve_at(curve, 24),
                     curve_at(curve, 48)))
        print("  compute-only's block-to-block share with a plan (rho) %.2f: a twin takes the "
              "anchor's variance x %.2f" % (rho, (1 + rho) / 2))
        print("  the rows' own errors: rms %.2f points; the noise these fits put on them at each "
              "run's own rounds: rms sd %.2f" % consistency(E, per, fit))
        print("  each way of spending each model-run's budget as now: the rms over %d model-runs "
              "of the noise sd (points; the median N, M and seconds)" % len(per))
        print("    %-52s %4s %4s %7s %7s %8s" % ("", "N", "M", "row sd", "med sd", "seconds"))
        for name, res in schemes(per, k, f, fit).items():
            print("    %-52s %4.0f %4.0f %7.2f %7.2f %8.1f"
                  % (name, st.median(r[0] for r in res), st.median(r[1] for r in res),
                     rms(r[2] for r in res), rms(r[3] for r in res),
                     st.median(r[4] for r in res)))
        now = (NOW_N + LOOP_WARMUP) * now_loop + (NOW_M + MC_WARMUP) * now_mc
        print("  the budget (loop and model-cost seconds) a model at the median step would need "
              "for a row noise sd; as now %.0f s" % now)
        for name, runners, cold, twin, _ in (SCHEMES[1], SCHEMES[2], SCHEMES[4]):
            c_loop, c_mc = round_costs(s, k, f, runners, cold)
            need = [budget_for(sd, fit["loop row, twin" if twin else "loop row"],
                               fit["capture row"], c_loop, c_mc) for sd in SDS]
            print("    %-36s %s" % (name, "; ".join("sd %.1f: %s" % (sd, "%.0f s" % t if t else "-")
                                                     for sd, t in zip(SDS, need))))


SDS = (3.0, 2.5, 2.0, 1.5)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rundirs", nargs="+")
    ap.add_argument("--fusim", default=os.path.join(ROOT, "build", "fusim"))
    a = ap.parse_args()
    runs = {}
    for d in a.rundirs:
        try:
            runs[d] = load_run(d)
            phase_seconds(d)
        except (ValueError, OSError) as e:
            print("budget_split: %s" % (getattr(e, "strerror", None) and "%s: %s" % (
                e.filename, e.strerror) or e), file=sys.stderr)
            return 65
    tmp = tempfile.mkdtemp(prefix="budget-split-")
    try:
        E = {}
        for d, run in runs.items():
            errs = errors(matrix(a.fusim, d, tmp))
            for m in run["models"]:
                E[key(d, m)] = errs[m["workload"]]
        print("# python3 data/validation/budget_split.py %s"
              % " ".join(os.path.relpath(d, ROOT) for d in runs))
        per, k, f = costs(runs)
        print("%d model-runs; a model-cost round's seconds per variant = %.2f x its steps x the "
              "loop's step %+.3f s (fitted over %d model-runs' capture lines)"
              % (len(E), k, f, len(per)))
        L = loop_section(runs, E)
        twin_section(runs, E)
        halves_check(a, runs, E, tmp)
        cap = capture_section(a, runs, tmp)
        options_section(E, per, k, f, L, cap)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
