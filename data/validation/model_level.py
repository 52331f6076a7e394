#!/usr/bin/env python3
"""model_level.py: what the rows of one model-run share (issue 10). Over runs 11-29 most rows
above 5% sit in model-runs whose every plan is off the same way (miss_sources.py: taking out each
model-run's median error leaves 100 of 150). Is that a mechanism every plan of a model pays (or is
priced to pay) that the compute-only baseline does not, or the run's measurement? Every run is
predicted by the store as it stands (tools/store_torch_validation.py --no-store) and the
model-run's median signed error (over its 12 rows, and over DDP's and the hook pattern's rows
apart) is set against:

  features  what each model-run is, read from runs.json and the capture: tensors, parameters,
            compute-only's step, how host-bound it is, its spread and skew, the anchor's factors
            (host per phase, GPU), the carry of the costs measured on the model (the loop's
            framework-free backward() CPU over the capture's), the capture's step and GPU share,
            the overhead's share of the step, the host probe, BatchNorm buffers: Pearson r and
            Spearman's rank r of each with the model-run's median error;
  grouping  the share of the model-runs' variance their lease (run) and their model (models seen
            on two runs or more) explain, against what as many groups explain by chance;
  halves    every run cut into two halves of its rounds (first and second half in time, and odd
            and even rounds, which sample the same stretches of the lease) and each half predicted
            by the store as a run of its own: how much of a model-run's median error both halves
            share (their covariance) against the variance of each, for the whole error and its two
            parts, the noise (the row's median less compute-only's median against the median of
            same-round differences) and the overhead error (predicted overhead less that paired
            one); and the time halves' difference against compute-only's own draw (its half
            median over its whole-run median, less the same for the median plan) and against the
            lease's shared state (the median plan's alone);
  noise     the two measurements' own noise in the model-run's median error: the loop's (its
            rounds resampled, each runner's iteration of a round kept together, every row's and
            compute-only's median taken again, each prediction moved with compute-only's median)
            and the capture's (the costs measured on the model estimated again from its rounds
            resampled, --capture-resamples times, every run predicted again), and each model-run's
            error over both together (z);
  floor     the rows above 5% and the sum of the model-runs' median |error| if fusim priced every
            plan's overhead exactly as the loop paid it (paired by round): what the loop's sampling
            alone leaves;
  anchor    compute-only's median against a 20% trimmed mean of its rounds (a lower-variance
            location) as the anchor, on the whole runs and on their halves.

    python3 data/validation/model_level.py data/validation/torch_h200_run{11..29}

Nothing is stored. A RUNDIR that is not a validation run with per-round CPU times, or RUNDIRs
with one model-run in all (every figure compares model-runs): one line on stderr, exit 65, before
anything is predicted; bad options 64. The two-variable line of the time halves needs 4
model-runs or more (below, its three coefficients fit any points exactly): with fewer it says so.
"""
import argparse
import collections
import json
import math
import os
import random
import shutil
import statistics as st
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tests", "bench"))
import torch_modelcost as TM  # noqa: E402
from quantile import quantile  # noqa: E402
from torch_run_report import load_run, paired  # noqa: E402
from torch_validation_bench import matrix  # noqa: E402

BOOT = 200
# the host block's cost each name of meta.framework_on_model.replaced takes from estimate()
COST_OF = {"ddp.param_us": "param_us", "ddp.copy_us": "copy_us", "hooks.hook_us": "hook_us",
           "ddp.bucket_us": "ddp_bucket_us", "hooks.bucket_us": "hooks_bucket_us",
           "ddp.hook_bucket_us": "ddp_hook_bucket_us"}


def trimmed(xs, p=0.2):
    s = sorted(xs)
    k = int(p * len(s))
    return st.mean(s[k:len(s) - k])


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    for k, i in enumerate(order):
        r[i] = float(k)
    return r


def corr(a, b):
    try:
        return st.correlation(a, b)
    except (st.StatisticsError, ValueError):
        return float("nan")


def cov(a, b):
    ma, mb = st.mean(a), st.mean(b)
    return sum((x - ma) * (y - mb) for x, y in zip(a, b)) / (len(a) - 1)


def r2_by(values, groups):
    """(share of the variance of values that the means of their groups explain, the share as
    many groups explain by chance: (k - 1) / (n - 1))."""
    by = collections.defaultdict(list)
    for v, g in zip(values, groups):
        by[g].append(v)
    m = st.mean(values)
    tot = sum((v - m) ** 2 for v in values)
    within = sum((v - st.mean(vs)) ** 2 for vs in by.values() for v in vs)
    return 1 - within / tot, (len(by) - 1) / (len(values) - 1)


def half_rounds(n, mode, h):
    """The round indices of half h (0, 1) of n rounds: 'time' first / second half, 'odd' even /
    odd rounds."""
    if mode == "odd":
        return list(range(h, n, 2))
    return list(range(n // 2)) if h == 0 else list(range(n // 2, n))


def cut_model(m, ix):
    """A model of runs.json with only the rounds ix, every median, p5 and p95 the store reads
    taken again over them (the loop's probes dropped; p5 / p95 by tools/quantile.py, as
    validate_torch stores them)."""
    m = dict(m)
    for k in ("compute_only_times_us", "compute_only_cpu_times_us", "host_probe_us",
              "host_bwd_probe_us"):
        if m.get(k):
            m[k] = [m[k][i] for i in ix]
    co = m["compute_only_times_us"]
    m.update(compute_only_us=st.median(co), compute_only_p5_us=quantile(co, 0.05),
             compute_only_p95_us=quantile(co, 0.95), loop_probes=None,
             compute_only_cpu_fwd_bwd_rest_us=[st.median(c[k] for c in m["compute_only_cpu_times_us"])
                                               for k in range(3)])
    rows = []
    for r in m["rows"]:
        r = dict(r, times_us=[r["times_us"][i] for i in ix],
                 cpu_times_us=[r["cpu_times_us"][i] for i in ix])
        r.update(measured_us=st.median(r["times_us"]), p5_us=quantile(r["times_us"], 0.05),
                 p95_us=quantile(r["times_us"], 0.95), compute_only_us=m["compute_only_us"],
                 cpu_fwd_bwd_rest_us=[st.median(c[k] for c in r["cpu_times_us"]) for k in range(3)])
        rows.append(r)
    m["rows"] = rows
    return m


def resample_capture(wl, idx):
    """The workload with its costs measured on the model (meta.framework_on_model) estimated
    again from the capture's rounds idx (one index list for every variant, as the capture
    interleaved them): each replaced cost, the framework-free backward() that carries them and
    DDP's forward measured whole; a cost the resample puts at or below 0 takes the tower's, as
    the capture's own rule does. The issue curves timed call by call move with their dense
    bucket. Returns False where the capture has no rounds (unchanged)."""
    fm = (wl.get("meta") or {}).get("framework_on_model")
    if not fm or not fm.get("raw") or fm.get("source") == "loop":
        return False
    n = len(fm["raw"]["none"])
    for k in ("raw", "raw_fwd"):
        if fm.get(k):
            fm[k] = {v: [x[i] for i in idx] if len(x) == n else x for v, x in fm[k].items()}
    est = TM.estimate(fm["raw"], fm["P"], fm["fixed"])
    h = wl["host"]
    d = h.get("ddp", {})
    dense = h.get("hooks", {}).get("bucket_us")
    off = d["hook_bucket_us"] - d["bucket_us"] if "hook_bucket_us" in d and "bucket_us" in d else None
    for name in fm.get("replaced", []):
        grp, key = name.split(".")
        if COST_OF[name] in est:
            v = est[COST_OF[name]]
            h[grp][key] = fm[COST_OF[name]] = v if v > 0 else fm["model_independent"][grp][key]
    if "ddp.hook_bucket_us" not in fm.get("replaced", []):
        TM.comm_hook_bucket(h, fm.get("replaced", []))
    fm["bwd_cpu_us"] = est["bwd_cpu_us"]
    src, isp = fm.get("issue_spacing_source") or {}, h.get("issue_spacing") or {}
    if src.get("hooks") == "direct" and "hooks" in isp and dense is not None:
        by = h["hooks"]["bucket_us"] - dense
        isp["hooks"] = [[x, y + by] for x, y in isp["hooks"]]
    if src.get("ddp_offload") == "direct" and "ddp_offload" in isp and off is not None:
        by = d["hook_bucket_us"] - d["bucket_us"] - off
        isp["ddp_offload"] = [[x, max(0.0, y + by)] for x, y in isp["ddp_offload"]]
    if fm.get("forward_replaced") and "ddpv_1" in (fm.get("raw_fwd") or {}):
        fc = TM.forward_cost(fm["raw_fwd"])
        if fc["forward_us"] > 0:
            h["ddp"]["forward_us"] = fm["ddp_forward"]["forward_us"] = fc["forward_us"]
            fm["ddp_forward"]["fwd_cpu_us"] = fc["fwd_cpu_us"]
    return True


def copy_run(rundir, tmp, run=None, wl_edit=None):
    """RUNDIR's files under tmp (links), with runs.json written from run and every workload
    passed through wl_edit(wl) where given. Returns the new run directory."""
    out = os.path.join(tmp, os.path.basename(os.path.normpath(rundir)))
    os.makedirs(out)
    for f in os.listdir(rundir):
        src = os.path.join(os.path.abspath(rundir), f)
        if f in ("runs.json", "runs.json.gz") and run is not None:   # an old run's: gzipped
            with open(os.path.join(out, "runs.json"), "w") as g:
                json.dump(run, g)
        elif wl_edit is not None and f.startswith("wl_") and f.endswith(".json"):
            with open(src) as g:
                wl = json.load(g)
            wl_edit(wl)
            with open(os.path.join(out, f), "w") as g:
                json.dump(wl, g)
        else:
            os.symlink(src, os.path.join(out, f))
    return out


def errors(rows):
    """{workload: {plan: error in % of the measured iteration}} from matrix() rows."""
    out = collections.defaultdict(dict)
    for r in rows:
        out[r["workload"]][r["plan"]] = 100 * r["rel_err"]
    return out


def med(errs, fw=None):
    """The median of a model-run's errors, over all its plans or framework fw's."""
    return st.median(e for p, e in errs.items() if fw is None or p.split()[0] == fw)


def gpu_factor(tdir, workload):
    """The anchor's (host per phase, GPU) factors from a trace's process name (the scaled
    workload's name, store_torch_validation.scaled: NAME_h<f>_<b>_<o>_g<g>)."""
    with open(os.path.join(tdir, "%s__ddp_default.json" % workload)) as f:
        ev = json.load(f)["traceEvents"]
    name = next(e["args"]["name"] for e in ev if e.get("name") == "process_name")
    h, g = name.rsplit("_h", 1)[1].split("_g")
    return [float(x) for x in h.split("_")], float(g)


def features(rundir, m, tdir):
    """What a model-run is (see the module's doc)."""
    with open(os.path.join(rundir, "wl_%s.json" % m["workload"])) as f:
        wl = json.load(f)
    meta, h = wl["meta"], wl["host"]
    fm = meta.get("framework_on_model") or {}
    co, cpu = m["compute_only_times_us"], m["compute_only_cpu_times_us"]
    com = st.median(co)
    cpum = [st.median(c[k] for c in cpu) for k in range(3)]
    hf, gf = gpu_factor(tdir, m["workload"])
    return {
        "tensors": meta["tensors"], "params_M": meta["params"] / 1e6, "step_ms": com / 1e3,
        "step_over_host_ms": paired(co, [sum(c) for c in cpu]) / 1e3,
        "host_share": sum(cpum) / com,
        "spread": (m["compute_only_p95_us"] - m["compute_only_p5_us"]) / com,
        "skew": (st.mean(co) - com) / com, "gpu_factor": gf,
        "host_factor_fwd": hf[0], "host_factor_bwd": hf[1], "host_factor_opt": hf[2],
        "carry": cpum[1] / fm["bwd_cpu_us"] if fm.get("bwd_cpu_us") else float("nan"),
        "capture_step_over_loop": (meta.get("host_capture") or {}).get("step_us", float("nan")) / com,
        "capture_bwd_gpu_over_cpu": h["bwd_gpu_us"] / h["bwd_cpu_us"],
        "overhead_share": st.median((r["measured_us"] - com) / r["measured_us"] for r in m["rows"]),
        "bwd_cpu_per_tensor": cpum[1] / meta["tensors"],
        "host_probe": st.median(m["host_probe_us"]) if m.get("host_probe_us") else float("nan"),
        "buffers": h.get("buffers", 0)}


def loop_sd(m, errs, boot=BOOT, seed=1):
    """The loop's own noise in the model-run's median error: its sd over the rounds resampled
    (each round's iterations together; every row's and compute-only's median taken again, each
    prediction moved with compute-only's median, as median_noise.py does)."""
    co, n = m["compute_only_times_us"], len(m["compute_only_times_us"])
    pred = {r["plan_label"]: r["measured_us"] * (1 + errs[r["plan_label"]] / 100) for r in m["rows"]}
    rng = random.Random(seed)
    out = []
    for _ in range(boot):
        ix = [rng.randrange(n) for _ in range(n)]
        shift = st.median(co[i] for i in ix) - st.median(co)
        e = []
        for r in m["rows"]:
            meas = st.median(r["times_us"][i] for i in ix)
            e.append(100 * (pred[r["plan_label"]] + shift - meas) / meas)
        out.append(st.median(e))
    return st.pstdev(out)


def floor_errors(m):
    """Every row's error if its overhead were priced exactly as the loop paid it, paired by round
    (compute-only's median plus the median of same-round differences): the noise alone."""
    co = m["compute_only_times_us"]
    return {r["plan_label"]: 100 * (st.median(co) + paired(r["times_us"], co) - r["measured_us"])
            / r["measured_us"] for r in m["rows"]}


def half_parts(m, errs, ix):
    """A half's (whole, noise, overhead error) model-run medians, in % of each row's measured
    median over the half; errs: the half's own predictions' errors."""
    co = [m["compute_only_times_us"][i] for i in ix]
    noise, over = [], []
    for r in m["rows"]:
        t = [r["times_us"][i] for i in ix]
        meas, pr = st.median(t), paired(t, co)
        pred = meas * (1 + errs[r["plan_label"]] / 100)
        noise.append(100 * (pr - (meas - st.median(co))) / meas)
        over.append(100 * ((pred - st.median(co)) - pr) / meas)
    return med(errs), st.median(noise), st.median(over)


def own_draw(m, ix):
    """(compute-only's own draw, the lease's shared state) over rounds ix: the median plan's half
    median over its whole-run median, less 1 (shared); compute-only's the same, less the shared."""
    co = m["compute_only_times_us"]
    shared = st.median(st.median(r["times_us"][i] for i in ix) / st.median(r["times_us"]) - 1
                       for r in m["rows"])
    return st.median(co[i] for i in ix) / st.median(co) - 1 - shared, shared


def ols2(x1, x2, y):
    """y = a + b1 x1 + b2 x2 by least squares: (b1, b2, R^2)."""
    a = [v - st.mean(x1) for v in x1]
    b = [v - st.mean(x2) for v in x2]
    c = [v - st.mean(y) for v in y]
    s11, s22 = sum(v * v for v in a), sum(v * v for v in b)
    s12 = sum(u * v for u, v in zip(a, b))
    s1y, s2y = sum(u * v for u, v in zip(a, c)), sum(u * v for u, v in zip(b, c))
    det = s11 * s22 - s12 * s12
    b1, b2 = (s22 * s1y - s12 * s2y) / det, (s11 * s2y - s12 * s1y) / det
    res = sum((w - b1 * u - b2 * v) ** 2 for u, v, w in zip(a, b, c))
    return b1, b2, 1 - res / sum(v * v for v in c)


def score(model_errs):
    """(rows above 5%, sum over model-runs of the median |error|) of {model-run: [errors]}."""
    return (sum(abs(e) > 5 for es in model_errs.values() for e in es),
            sum(st.median(abs(e) for e in es) for es in model_errs.values()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rundirs", nargs="+")
    ap.add_argument("--fusim", default=os.path.join(ROOT, "build", "fusim"))
    ap.add_argument("--capture-resamples", type=int, default=10, metavar="B",
                    help="the capture's rounds resampled B times, every run predicted again "
                         "(0: no capture noise; default 10)")
    a = ap.parse_args()
    if a.capture_resamples < 0 or a.capture_resamples == 1:
        print("model_level: --capture-resamples %d: expected 0, or 2 or more (an sd over them)"
              % a.capture_resamples, file=sys.stderr)
        return 64
    runs = {}
    for d in a.rundirs:
        try:
            runs[d] = load_run(d)
        except ValueError as e:
            print("model_level: %s" % e, file=sys.stderr)
            return 65
    n = sum(len(run["models"]) for run in runs.values())
    if n < 2:
        print("model_level: %s: %d model-run in all; every figure compares model-runs (2 or more)"
              % (", ".join(a.rundirs), n), file=sys.stderr)
        return 65
    tmp = tempfile.mkdtemp(prefix="model-level-")
    try:
        return report(a, runs, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def report(a, runs, tmp):
    keys, models, E, F, L, floor, trim = [], {}, {}, {}, {}, {}, {}
    for d, run in runs.items():
        tdir = os.path.join(tmp, "traces", os.path.basename(os.path.normpath(d)))
        errs = errors(matrix(a.fusim, d, tmp, ["--trace-dir", tdir]))
        for m in run["models"]:
            k = (os.path.basename(os.path.normpath(d)), m["workload"])
            keys.append(k)
            models[k] = m
            E[k] = errs[m["workload"]]
            F[k] = features(d, m, tdir)
            L[k] = loop_sd(m, E[k])
            floor[k] = list(floor_errors(m).values())
            co = m["compute_only_times_us"]
            shift = trimmed(co) - st.median(co)
            trim[k] = [e + 100 * shift / r["measured_us"] for r, e in
                       ((r, E[k][r["plan_label"]]) for r in m["rows"])]
    rows = sum(len(E[k]) for k in keys)
    err = [med(E[k]) for k in keys]
    print("# python3 data/validation/model_level.py %s --capture-resamples %d"
          % (" ".join(os.path.relpath(d, ROOT) for d in runs), a.capture_resamples))
    print("%d rows, %d model-runs; the model-run's median signed error (points of the measured "
          "iteration): mean %+.2f, sd %.2f; DDP's rows' median sd %.2f, the hook pattern's %.2f, "
          "r between the two %.2f"
          % (rows, len(keys), st.mean(err), st.pstdev(err), st.pstdev([med(E[k], "ddp") for k in keys]),
             st.pstdev([med(E[k], "hooks") for k in keys]),
             corr([med(E[k], "ddp") for k in keys], [med(E[k], "hooks") for k in keys])))

    print("\n== features: r (Pearson) and rank r (Spearman) with the model-run's median error")
    for f in F[keys[0]]:
        ok = [k for k in keys if not math.isnan(F[k][f])]
        x, y = [F[k][f] for k in ok], [med(E[k]) for k in ok]
        print("  %-26s r %+5.2f  rank r %+5.2f  (%d model-runs, median %.3g)"
              % (f, corr(x, y), corr(ranks(x), ranks(y)), len(ok), st.median(x)))

    print("\n== grouping: share of the model-runs' median-error variance explained (chance)")
    r2, ch = r2_by(err, [k[0] for k in keys])
    print("  by lease (run): %.2f (%.2f by chance, %d runs)" % (r2, ch, len(runs)))
    model_of = {k: models[k]["model"] for k in keys}
    multi = [k for k in keys if sum(model_of[j] == model_of[k] for j in keys) > 1]
    if len({model_of[k] for k in multi}) > 1:
        r2, ch = r2_by([med(E[k]) for k in multi], [model_of[k] for k in multi])
        print("  by model, models seen on 2 runs or more: %.2f (%.2f by chance, %d model-runs of "
              "%d models)" % (r2, ch, len(multi), len({model_of[k] for k in multi})))

    print("\n== halves of each run's rounds, each predicted by the store as a run of its own")
    halves = {}   # (mode, h) -> {model-run: (its rounds, {plan: error})}
    for mode in ("time", "odd"):
        for h in (0, 1):
            sub = os.path.join(tmp, "%s%d" % (mode, h))
            got = halves[(mode, h)] = {}
            for d, run in runs.items():
                ix = {m["workload"]: half_rounds(len(m["compute_only_times_us"]), mode, h)
                      for m in run["models"]}
                hd = copy_run(d, sub, dict(run, models=[cut_model(m, ix[m["workload"]])
                                                        for m in run["models"]]))
                he = errors(matrix(a.fusim, hd, sub))
                shutil.rmtree(hd)
                for m in run["models"]:
                    got[(os.path.basename(os.path.normpath(d)), m["workload"])] = \
                        (ix[m["workload"]], he[m["workload"]])
    for mode, label in (("time", "first / second half in time"), ("odd", "even / odd rounds")):
        parts = [{k: half_parts(models[k], halves[(mode, h)][k][1],
                                    halves[(mode, h)][k][0])
                  for k in keys} for h in (0, 1)]
        print("  %s: variance of each half, covariance of the two (what both share)" % label)
        for j, part in enumerate(("whole error", "noise", "overhead error")):
            x, y = [parts[0][k][j] for k in keys], [parts[1][k][j] for k in keys]
            print("    %-15s %6.2f %6.2f  cov %+6.2f  r %+5.2f"
                  % (part, st.variance(x), st.variance(y), cov(x, y), corr(x, y)))
        if mode == "time":
            diff = [parts[1][k][0] - parts[0][k][0] for k in keys]
            d0 = [own_draw(models[k], halves[(mode, 0)][k][0]) for k in keys]
            d1 = [own_draw(models[k], halves[(mode, 1)][k][0]) for k in keys]
            own = [100 * (y[0] - x[0]) for x, y in zip(d0, d1)]
            shared = [100 * (y[1] - x[1]) for x, y in zip(d0, d1)]
            if len(keys) < 4:
                print("    second half's median error less the first's against compute-only's own "
                      "draw and the lease's shared state: %d model-runs, too few for the line"
                      % len(keys))
            else:
                b1, b2, r2 = ols2(own, shared, diff)
                print("    second half's median error less the first's (points) = %.2f x compute-only's "
                      "own draw + %.2f x the lease's shared state (both in %% of the step), R^2 %.2f; "
                      "r with the own draw %+.2f, with the shared state %+.2f"
                      % (b1, b2, r2, corr(own, diff), corr(shared, diff)))

    print("\n== noise: the model-run's median error over the loop's and the capture's own noise")
    C = {}
    if a.capture_resamples:
        res = collections.defaultdict(list)
        for b in range(a.capture_resamples):
            rng = random.Random(1000 + b)
            for d, run in runs.items():
                def edit(wl, rng=rng):
                    fm = (wl.get("meta") or {}).get("framework_on_model") or {}
                    n = len((fm.get("raw") or {}).get("none") or [])
                    if n:
                        resample_capture(wl, [rng.randrange(n) for _ in range(n)])
                sub = os.path.join(tmp, "cap%d" % b)
                cd = copy_run(d, sub, wl_edit=edit)
                ce = errors(matrix(a.fusim, cd, sub))
                shutil.rmtree(cd)
                for m in run["models"]:
                    res[(os.path.basename(os.path.normpath(d)), m["workload"])].append(
                        med(ce[m["workload"]]))
        C = {k: st.stdev(v) for k, v in res.items()}
    rms = lambda xs: math.sqrt(st.mean([x * x for x in xs]))  # noqa: E731
    print("  the loop's (rounds resampled %d times): sd rms %.2f, median %.2f"
          % (BOOT, rms(L.values()), st.median(L.values())))
    if C:
        print("  the capture's (its rounds resampled %d times): sd rms %.2f, median %.2f"
              % (a.capture_resamples, rms(C.values()), st.median(C.values())))
    tot = {k: math.hypot(L[k], C.get(k, 0.0)) for k in keys}
    print("  both: sd rms %.2f, against the model-run errors' own rms %.2f"
          % (rms(tot.values()), rms(err)))
    z = [med(E[k]) / tot[k] for k in keys]
    print("  z = error / both sds: rms %.2f, |z| > 2 in %d of %d model-runs (about %d expected "
          "of noise alone)" % (rms(z), sum(abs(x) > 2 for x in z), len(z), round(0.046 * len(z))))
    for k in sorted(keys, key=lambda k: -abs(med(E[k]) / tot[k]))[:8]:
        print("    %-16s %-30s error %+6.2f  loop sd %.2f  capture sd %.2f  z %+5.1f"
              % (k[0], k[1][:30], med(E[k]), L[k], C.get(k, float("nan")), med(E[k]) / tot[k]))

    print("\n== floor: every overhead priced as the loop paid it, paired by round")
    n, s = score({k: floor[k] for k in keys})
    n0, s0 = score({k: list(E[k].values()) for k in keys})
    print("  rows above 5%% %d (the store %d), sum of the model-runs' median |error| %.1f (%.1f)"
          % (n, n0, s, s0))
    byrun = collections.defaultdict(list)
    for k in keys:
        byrun[k[0]] += floor[k]
    print("  run medians: %s" % ", ".join("%s %.2f" % (r.rsplit("run", 1)[-1],
                                                       st.median(abs(e) for e in v))
                                          for r, v in byrun.items()))

    print("\n== anchor: compute-only's median against a 20% trimmed mean of its rounds")
    n1, s1 = score({k: trim[k] for k in keys})
    print("  whole runs: rows above 5%% %d -> %d, sum of medians %.1f -> %.1f" % (n0, n1, s0, s1))
    for mode in ("time", "odd"):
        as_is, moved = {}, {}
        for h in (0, 1):
            for k in keys:
                ix, he = halves[(mode, h)][k]
                co = [models[k]["compute_only_times_us"][i] for i in ix]
                shift = trimmed(co) - st.median(co)
                as_is[(k, h)] = list(he.values())
                moved[(k, h)] = [he[r["plan_label"]] + 100 * shift /
                                 st.median(r["times_us"][i] for i in ix) for r in models[k]["rows"]]
        a0, a1 = score(as_is), score(moved)
        print("  %s halves (both): rows above 5%% %d -> %d, sum of medians %.1f -> %.1f"
              % (mode, a0[0], a1[0], a0[1], a1[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
