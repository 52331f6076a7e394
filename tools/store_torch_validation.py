#!/usr/bin/env python3
"""store_torch_validation.py: the CPU half of the real-PyTorch validation (issue 10). Reads a run
of tools/validate_torch.py (RUNDIR/runs.json, or runs.json.gz, and the workloads it captured),
predicts every row with `fusim predict` under the same plan, framework and communication, with
the buckets the framework really used, and stores each prediction (by fusim itself, --db) with its
measurement, so that v_prediction_error shows them. Prints the matrix and its summary; --csv writes it.

Compute baseline: as `fusim validate` does, each model's workload is scaled to the compute-only
iteration measured in the same loop: host work (the CPU timeline and the frameworks' host costs)
by the compute-only iteration's CPU time of forward + backward() against the capture's, GPU work
so that the simulated compute-only step equals the measured one (--no-host-scale: both alike).
Communication is not scaled. The 95% interval is that of a row's median (tools/torch_interval.py):
the uncertainty of the run's compute-only medians (GPU step and host time, bootstrapped over its
iterations) and each framework cost at its bounds (host.ci: the bootstrap over the rounds that
measured it, times the bounds of the factor that carried it to the loop). --iteration-spread
gives the older interval of one iteration instead: the compute-only iteration's p5 and p95 over
its median (--capture-spread: the capture's) and the frameworks' per-round spread. The overhead of a plan is its
time minus compute-only, measured and predicted. Each measurement is stored beside the prediction fusim stored for it (its prediction_id, as
`fusim validate` does: the measured-times CSV of `fusim import` cannot tell apart two rows that
differ only in the communication, DDP's all-reduce against its offload hook).

Per-parameter framework costs measured on the model at capture (tools/torch_modelcost.py,
meta.framework_on_model) are carried to the loop by the loop's framework-free backward() CPU
time over the one measured beside them (--tower-costs: the model-independent ones instead).
Where the run measured them in its own loop (validate_torch's probes, runs from 18 on),
--loop-model-costs uses those instead, at the loop's own speed.

The launch-queue bound (the host blocks once host.queue_depth launches are pending; fu_predict.c)
goes into the host block where the launches per phase are known: the capture's meta.launches,
else --launchq's count for the same model and batch (data/validation/torch_h200_launchq), with the
run's own queue measurement (runs.json queue_depth), else the file's. On runs 10-12 it changes no
prediction (data/validation/README.md: the host never blocks where it matters).

A run of N ranks (validate_torch --world-size N; rows are rank 0's times): DDP's rows are
predicted with --comm allreduce:N:LINK (LINK from runs.json's `nvidia-smi topo -m`, or --link),
with RUNDIR/profile.json where the run fitted one in its own call (unless --profile), and stored
with gpus = N and every rank's medians and skew.

    python3 tools/store_torch_validation.py data/validation/torch_h200_run2 --db fusim.db
    python3 tools/store_torch_validation.py RUNDIR --no-store --csv matrix.csv
"""
import argparse
import atexit
import copy
import json
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile

import torch_beside
import torch_host
import torch_interval as TI
import torch_modelcost
import torch_runs


def die(msg, status=65):
    print("store_torch_validation: " + msg, file=sys.stderr)
    sys.exit(status)


def source_commit():
    """The commit of this tool's checkout (the measurements' git_commit), whatever the current
    folder (from another, git named none or another repository's); None outside a checkout."""
    try:
        p = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True,
                           text=True, cwd=os.path.dirname(os.path.abspath(__file__)))
    except OSError:   # no git
        return None
    return p.stdout.strip() if p.returncode == 0 and p.stdout.strip() else None


def fusim_json(fusim, args):
    p = subprocess.run([fusim] + args, capture_output=True, text=True)
    if p.returncode != 0:
        die("fusim %s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr.strip()),
            p.returncode)
    return json.loads(p.stdout)


# The step's host work runs on two threads whose speeds vary independently (runs 7-9: per round,
# forward's CPU time correlates with the optimizer's, r 0.6-0.8, and not with backward()'s, r -0.5
# to 0.3): Python's main thread (forward, DDP's pre-forward and buffer broadcast, the optimizer)
# and the autograd engine's device thread, which launches backward's kernels and runs every
# gradient hook (DDP's Reducer, its comm hook, the hook pattern's hooks and bucket issues) and
# DDP's finalize while the main thread waits in backward().
MAIN_THREAD_COSTS = {"ddp": ("forward_us", "buffer_us", "broadcast_us"), "hooks": ()}


def _three(hf):
    """(forward, backward, optimizer) host factors from one factor or a triple."""
    return tuple(hf) if isinstance(hf, (tuple, list)) else (hf, hf, hf)


def scaled(wl, hf, gf, ff=None):
    """The workload with host times (the CPU timeline and the frameworks' host costs) multiplied
    by hf and GPU times by gf. hf: one factor, or (forward, backward(), optimizer) factors for the
    three phases of the CPU timeline. ff, when given, multiplies the frameworks' host costs
    instead: one factor, or (main thread, autograd thread) factors for the costs paid on each
    (MAIN_THREAD_COSTS on the main thread, the rest on the autograd thread). Without ff the
    costs follow the timeline: the main thread's at forward's factor, the rest at backward()'s."""
    hfw, hbw, hop = _three(hf)
    if ff is None:
        fm, fa = hfw, hbw
    else:
        fm, fa = tuple(ff) if isinstance(ff, (tuple, list)) else (ff, ff)
    w = json.loads(json.dumps(wl))
    for k in ("fwd_us", "bwd_us", "opt_us"):
        w[k] = w[k] * gf
    for g in w["grads"]:
        g["ready_us"] = g["ready_us"] * gf
    h = w.get("host")
    if h and h.get("version") == 2:
        for k, f in (("fwd_cpu_us", hfw), ("bwd_cpu_us", hbw), ("opt_cpu_us", hop)):
            h[k] = h[k] * f
        for k in ("fwd_gpu_us", "bwd_gpu_us", "opt_gpu_us"):
            h[k] = h[k] * gf
        h["grad_cpu_us"] = [t * hbw for t in h["grad_cpu_us"]]
        h["grad_gpu_us"] = [t * gf for t in h["grad_gpu_us"]]
        h["fwd_points"] = [[c * hfw, g * gf] for c, g in h.get("fwd_points", [])]
        for fw in ("ddp", "hooks"):
            if fw in h:
                h[fw] = {k: v * (fm if k in MAIN_THREAD_COSTS[fw] else fa)
                         for k, v in h[fw].items()}
            if fw in h.get("ci", {}):   # the costs' bounds (a capture's) move with them
                h["ci"][fw] = {k: [b * (fm if k in MAIN_THREAD_COSTS[fw] else fa) for b in v]
                               for k, v in h["ci"][fw].items()}
    w["name"] = wl["name"] + "_h%.4f_%.4f_%.4f_g%.4f" % (hfw, hbw, hop, gf)
    w["notes"] = (wl.get("notes") or "") + (
        " Scaled to the run's compute-only iteration: host work x %.5f / %.5f / %.5f (forward, "
        "backward(), optimizer: their CPU times in the run against the capture's), GPU work x "
        "%.5f (so that the simulated compute-only step equals the measured one)."
        % (hfw, hbw, hop, gf))
    return w


def same_run_spread(w, m):
    """Sets the workload's step spread (host.jitter.step_rel_lo/hi) to the compute-only
    iteration's in the run (p5 and p95 over the median, minus 1); unchanged without them."""
    h, co = w.get("host"), m.get("compute_only_us")
    p5, p95 = m.get("compute_only_p5_us"), m.get("compute_only_p95_us")
    if not h or h.get("version") != 2 or not co or p5 is None or p95 is None:
        return
    j = h.setdefault("jitter", {})
    j["step_rel_lo"] = min(0.0, max(-1.0, p5 / co - 1))
    j["step_rel_hi"] = max(0.0, min(10.0, p95 / co - 1))


def loop_corr(entries):
    """The same-round correlation of a plan's median with the compute-only median: the median
    over the model's rows of torch_interval.median_corr (paired rounds), each row against its own
    entry's compute-only rounds. entries: the model's entries in runs.json (several where its
    plans ran in groups), so splitting a model's plans into groups leaves it unchanged. A property
    of the host's noise, not of any one row; 0 without rounds."""
    rs = [TI.median_corr(r["times_us"], g["compute_only_times_us"])
          for g in entries if g.get("compute_only_times_us")
          for r in g.get("rows", []) if r.get("times_us")]
    return statistics.median(rs) if rs else 0.0


def median_interval(ws, wl, m, fc, ff, hf, mf, model_rel=0.0, rho=None):
    """Sets the scaled workload's interval for a row's median (tools/torch_interval.py): the
    step's and the host's spread as the uncertainty of the run's compute-only medians, and each
    framework cost's bounds (host.ci) from the rounds that measured it and the factor that carried
    it to the loop. fc: the run's tower (None: costs from elsewhere, no bounds); ff: the probes'
    (main, autograd) factors or None; hf: the timeline's factors; mf: the on-model costs' factor.
    rho: loop_corr over the model's entries, its plan groups (default loop_corr([m])).
    Returns False where the run lacks the per-iteration times (runs before 8): unchanged."""
    h, co, cpu = ws.get("host"), m.get("compute_only_times_us"), m.get("compute_only_cpu_times_us")
    if not h or h.get("version") != 2 or not co or not cpu:
        return False
    j = h.setdefault("jitter", {})
    # the row's median and the compute-only one it is anchored to share their rounds' host
    rho = loop_corr([m]) if rho is None else rho
    host = TI.median_rel([sum(c) for c in cpu])
    j["step_rel_lo"], j["step_rel_hi"] = TI.widen(*TI.median_rel(co), rho)
    j["host_rel_lo"], j["host_rel_hi"] = TI.widen(*host, rho)
    j["model_rel"] = model_rel
    est = TI.tower_bounds(fc) if fc else None
    if est is None:   # costs without bounds: they vary as the host does
        j["fw_rel_lo"], j["fw_rel_hi"] = j["host_rel_lo"], j["host_rel_hi"]
        h.pop("ci", None)
        return True
    # the costs' bounds below carry the host-speed factor's own: no fw_rel on top of them
    j["fw_rel_lo"], j["fw_rel_hi"] = 0.0, 0.0
    hfw, hbw, _ = _three(hf)
    raw = fc.get("raw", {})
    if ff is not None:   # the probes carried the tower's costs: their ratio's own bounds
        thr = {"main": (ff[0], TI.ratio_rel(m.get("host_probe_us") or [], raw.get("probe_us") or [])),
               "auto": (ff[1], TI.ratio_rel(m.get("host_bwd_probe_us") or m.get("host_probe_us") or [],
                                            raw.get("bwd_probe_us") or raw.get("probe_us") or []))}
    else:                # the capture's host factors carried them: the loop's host median's bounds
        thr = {"main": (hfw, host), "auto": (hbw, host)}
    factor, carry = {}, {}
    for grp, ks in est.items():
        for k in ks:
            f, c = thr["main" if k in MAIN_THREAD_COSTS.get(grp, ()) else "auto"]
            factor.setdefault(grp, {})[k], carry.setdefault(grp, {})[k] = f, c
    fm = on_model(wl)
    if fm is not None and mf is not None:   # the costs measured on the model, carried by mf
        mb = TI.model_bounds(fm, "ddp.param_us" in fm["replaced"])
        # measured in the loop itself (loop_costs): nothing carried them, no carry's bounds
        loop = fm.get("source") == "loop"
        c = (0.0, 0.0) if loop else TI.ratio_rel([x[1] for x in cpu], fm["raw"]["none"])
        for name in fm["replaced"]:
            grp, key = name.split(".")
            est[grp][key] = mb[grp][key]
            factor[grp][key], carry[grp][key] = mf, c
        w0 = wl["host"].get("ddp", {}).get("forward_us", 0)
        ffw = ws["host"]["ddp"]["forward_us"] / w0 if w0 > 0 else 1.0   # model_cost_factor's
        for key in TI.forward_bounds(est, fm):   # DDP's forward, carried by forward's factor
            factor["ddp"][key] = ffw
            carry["ddp"][key] = (0.0, 0.0) if loop else \
                TI.ratio_rel([x[0] for x in cpu], fm["raw_fwd"]["none"])
    h["ci"] = TI.cost_ci(h, est, factor, carry)
    return True


def sim_compute(fusim, wl, hf, gf, tmp, prof):
    path = os.path.join(tmp, "probe.json")
    with open(path, "w") as f:
        json.dump(scaled(wl, hf, gf), f)
    return fusim_json(fusim, ["predict", "--workload", path, "--no-store", "--format", "json",
                              "--fusion", "single", "--comm", "offload"] + prof)["compute_us"]


def step_total(m):
    """Per-phase CPU times of the compute-only iteration ([forward, backward(), rest] medians)
    rescaled so that they add up to the median of the rounds' sums. The medians of the phases
    come from different rounds and need not add up to a typical step: on a host-bound step (the
    iteration is its phases' CPU times plus ~0.1 ms) their sum missed the measured step by -9.8
    to +6.2% (runs 13-27: ViT-B/32, EfficientNetV2-S -8.2%, ShuffleNetV2 +6.2%), and the GPU
    factor's bisection then filled the gap with GPU time that was never there (hiding the
    frameworks' host costs behind it) or, beyond its clamp, left the whole step too slow. The
    medians without the rounds' times (runs before 8)."""
    cpu = m.get("compute_only_cpu_fwd_bwd_rest_us")
    rounds = m.get("compute_only_cpu_times_us")
    if not cpu or not rounds or sum(cpu) <= 0:
        return cpu
    k = statistics.median(sum(r) for r in rounds) / sum(cpu)
    return [c * k for c in cpu]


def framework_rel_sd(fc):
    """The relative standard deviation of a framework host cost from iteration to iteration: the
    run's framework microbenchmark's spread of its rounds (fw_rel_lo / fw_rel_hi, p5 and p95 of
    each round's costs over their median, less 1) read as a normal's, whose p5-p95 span is 2 x
    1.645 sd. 0 where the run's microbenchmark did not give it."""
    fc = fc or {}
    if "fw_rel_lo" not in fc or "fw_rel_hi" not in fc:
        return 0.0
    return max(0.0, fc["fw_rel_hi"] - fc["fw_rel_lo"]) / (2 * 1.645)


def jitter_shift(co_times, ov_us, rel_sd, n=64):
    """How far a plan's median over the rounds sits above compute-only's median plus its overhead
    when the overhead (ov_us) jitters from iteration to iteration by rel_sd of itself, on its own,
    on top of compute-only's step distribution (co_times, one iteration a round): the median of the
    pooled co_times[i] + ov_us x rel_sd x z_k (z_k the n quantiles (k + 1/2) / n of the standard
    normal) less the median of co_times. On a symmetric step distribution 0; on one skewed to slow
    steps (a shared host) the jitter moves the median toward the slow side. 0 without spread."""
    s = abs(ov_us) * rel_sd
    if s <= 0 or not co_times:
        return 0.0
    z = [statistics.NormalDist().inv_cdf((k + 0.5) / n) for k in range(n)]
    return statistics.median(c + s * x for c in co_times for x in z) - statistics.median(co_times)


def anchor(fusim, wl, m, tmp, prof, host_scale, phases=True):
    """Host factors from the compute-only iteration's CPU times in the run (1 without them or
    without host_scale): with phases, one per phase (forward, backward(), optimizer: each thread's
    own speed; step_total: adding up to the rounds' median sum), else forward + backward()
    together for all three (runs up to 9 were predicted so). GPU factor by bisection so the
    simulated compute-only step equals the measured compute-only iteration."""
    h = wl.get("host", {})
    cpu = m.get("compute_only_cpu_fwd_bwd_rest_us")
    hf = 1.0
    if host_scale and cpu and h.get("version") == 2 and h["fwd_cpu_us"] + h["bwd_cpu_us"] > 0:
        hf = (cpu[0] + cpu[1]) / (h["fwd_cpu_us"] + h["bwd_cpu_us"])
        if phases and min(h["fwd_cpu_us"], h["bwd_cpu_us"], h["opt_cpu_us"]) > 0:
            cpu = step_total(m)
            hf = (cpu[0] / h["fwd_cpu_us"], cpu[1] / h["bwd_cpu_us"], cpu[2] / h["opt_cpu_us"])
    target = m["compute_only_us"]
    lo, hi = 0.25, 4.0
    if sim_compute(fusim, wl, hf, lo, tmp, prof) > target:   # host-bound beyond any GPU speed
        return hf, lo
    for _ in range(30):
        mid = (lo + hi) / 2
        if sim_compute(fusim, wl, hf, mid, tmp, prof) < target:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-4:
            break
    return hf, (lo + hi) / 2


def probe_factor(fw, m, loop_key="host_probe_us", cal_key="probe_us"):
    """The host's speed in the model's loop against the frameworks' calibration: the median of the
    host-speed probe (torch_host.host_probe, us per launch) run in every round of the model's loop
    over the calibration's, where both were measured (runs after run 8); None otherwise (the
    frameworks' costs then follow the capture's factor). loop_key / cal_key: another probe's
    fields (fw_factors: the autograd thread's)."""
    pm, pc = m.get(loop_key), (fw or {}).get(cal_key)
    if not pm or not pc or pc <= 0:
        return None
    return statistics.median(pm) / pc


def fw_factors(fw, m):
    """(main thread, autograd thread) factors for the frameworks' costs (scaled's ff): the main
    thread's from host_probe, the autograd thread's from bwd_probe (runs after run 9); where only
    host_probe was measured (run 9), it carries both; None without it."""
    main = probe_factor(fw, m)
    if main is None:
        return None
    auto = probe_factor(fw, m, "host_bwd_probe_us", "bwd_probe_us")
    return (main, auto if auto is not None else main)


def on_model(wl):
    """The frameworks' costs measured on the model at capture (tools/torch_modelcost.py, the
    workload's meta.framework_on_model), or None (workloads captured before it)."""
    fm = (wl.get("meta") or {}).get("framework_on_model")
    return fm if fm and (fm.get("replaced") or fm.get("forward_replaced")) and \
        fm.get("bwd_cpu_us", 0) > 0 else None


def model_or_tower(wl, fm, e, est, grp, key):
    """Puts estimate est of e (torch_modelcost.with_ci's, with its bounds) into the capture's
    meta (fm) and, as apply() does at capture, into host[grp][key]: the model's value where its
    bootstrap's low end is positive, else the tower's (fm's model_independent); fm["replaced"]
    follows. Returns the value now in the host block."""
    fm[est], fm.setdefault("ci", {})[est] = e[est], e["ci"][est]
    replaced = fm.setdefault("replaced", [])
    name = "%s.%s" % (grp, key)
    if torch_modelcost.measured(fm, est):
        wl["host"][grp][key] = e[est]
        if name not in replaced:
            replaced.append(name)
    elif key in fm.get("model_independent", {}).get(grp, {}):
        wl["host"][grp][key] = fm["model_independent"][grp][key]
        if name in replaced:
            replaced.remove(name)
    return wl["host"][grp][key]


def rounds_of(wl, grp, variants):
    """The capture's meta.framework_on_model where it holds the rounds of every variant given
    and the host block has framework grp (a capture's, not the loop's probes), else None."""
    fm = on_model(wl)
    raw = (fm or {}).get("raw") or {}
    if fm is None or fm.get("source") == "loop" or grp not in wl.get("host", {}) or \
            not all(raw.get(v) for v in variants):
        return None
    return fm


def copy_from_rounds(wl):
    """DDP's per-parameter copy (ddp.copy_us) estimated again from the capture's rounds (meta.
    framework_on_model.raw) as torch_modelcost.estimate gives it now: the copy mode's step over
    the view mode's, paired round by round (captures before session 25 stored the difference
    of the two modes' medians over the framework-free step). As apply() at capture: the model's
    where its bootstrap's low end is positive, else the tower's. Across runs 11-26 (48 model-runs
    with both modes in the loop) the paired value is nearer the loop's own copy-over-view
    backward() CPU: median |difference| 3.6 us a parameter against 4.7 (data/validation/
    copy_paired.py; README.md "DDP's copy on the model against the loop, paired"). Returns the value now in the host block, or None (nothing to estimate)."""
    fm = rounds_of(wl, "ddp", ("none", "ddpv_1", "ddpc_h"))
    if fm is None:
        return None
    e = torch_modelcost.with_ci(fm["raw"], fm["P"], fm["fixed"])
    return model_or_tower(wl, fm, e, "copy_us", "ddp", "copy_us")


def hooks_from_rounds(wl):
    """The hook pattern's hook and dense bucket (hooks.hook_us, hooks.bucket_us) estimated again
    from the capture's rounds as torch_modelcost.estimate gives them now: from hk_0, the hooks and
    copies with no issue, where the capture ran it (runs 23 on). Captures stored before session 28
    took the hook as hk_1 less a dense bucket, and hk_1's one issue, the last of backward, is cold
    and dearer than a dense one: every bucketed plan paid that excess once a step beside its
    issues' own spacing curve (data/validation/README.md, "The hook from hk_0"). The per-tensor
    plan is charged hk_n's whole either way. As apply(): the model's value where its bootstrap's
    low end is positive, else the tower's. The curve of the issues timed call by call (source
    "direct": the dense bucket plus each spacing's measured extra) moves with the dense bucket.
    Returns (hook_us, bucket_us) now in the host block, or None (no hk_0 rounds, or not every
    variant estimate() reads for the two: the dense bucket needs ddpv_n beside hk_n)."""
    fm = rounds_of(wl, "hooks", ("none", "ddpv_1", "ddpc_h", "ddpv_n", "hk_0", "hk_n"))
    if fm is None:
        return None
    e = torch_modelcost.with_ci(fm["raw"], fm["P"], fm["fixed"])
    h = wl["host"]["hooks"]
    dense = h.get("bucket_us")
    model_or_tower(wl, fm, e, "hook_us", "hooks", "hook_us")
    model_or_tower(wl, fm, e, "hooks_bucket_us", "hooks", "bucket_us")
    if dense is not None:
        move_direct_curve(wl, fm, h["bucket_us"] - dense)
    return h["hook_us"], h["bucket_us"]


def move_direct_curve(wl, fm, by):
    """The hook pattern's issue curve timed call by call (source "direct": the dense bucket plus
    each spacing's measured extra) moved by the dense bucket's change."""
    c = (wl["host"].get("issue_spacing") or {}).get("hooks")
    if c and (fm.get("issue_spacing_source") or {}).get("hooks") == "direct":
        wl["host"]["issue_spacing"]["hooks"] = [[x, round(y + by, 3)] for x, y in c]


def dense_from_calls(wl, r):
    """--dense-from-calls: the hook pattern's dense bucket (hooks.bucket_us, one issue per
    gradient) as its issue's own calls timed call by call at that spacing (the first point of
    meta.framework_on_model.issue_direct.hooks) times r, not as hk_n less hk_0 over P. That
    difference of two whole-backward medians moves by ms from step to step (its bootstrap is
    +-20-60%), where the calls are timed in every step. r is the issue's whole cost over its
    calls at one issue per gradient, measured in the validation loop
    (torch_modelcost.DENSE_WHOLE_OVER_CALLS). The direct curve moves with the dense bucket, as
    in hooks_from_rounds. Returns the new bucket_us, or None (the capture timed no issues)."""
    fm = on_model(wl)
    pts = ((fm or {}).get("issue_direct") or {}).get("hooks")
    h = wl["host"].get("hooks")
    if not pts or not h or "bucket_us" not in h:
        return None
    dense, h["bucket_us"] = h["bucket_us"], round(r * pts[0][2], 3)
    move_direct_curve(wl, fm, h["bucket_us"] - dense)
    return h["bucket_us"]


def rounds_without_hk0(wl):
    """--hook-from-hk1: the capture's rounds less hk_0 (in memory), so that the bounds the
    interval gives the hook and the dense bucket (torch_interval.model_bounds: estimate() over
    resampled rounds) are taken the old way, as their stored values are."""
    fm = on_model(wl)
    if fm is not None and "hk_0" in (fm.get("raw") or {}):
        fm["raw"] = {k: v for k, v in fm["raw"].items() if k != "hk_0"}


def drop_issue_spacing(wl, keep_direct=False):
    """Without --issue-spacing (the default): the host block's issue-spacing curves made of
    whole-backward differences out (each in-backward issue then costs the per-bucket cost
    again), every other cost measured on the model kept. Such a capture cannot resolve the
    curve's far points (runs 23, 24: zero within their bounds at 16-48 rounds; each point is a
    difference of whole backward() CPU times that vary by ms), so a curve holds only its near
    points, read flat past its end: an extrapolation nobody measured. keep_direct: the curves
    from the issues timed call by call (torch_modelcost.issue_direct, captures from session 25
    on; meta.framework_on_model.issue_spacing_source "direct") stay: their points are tight."""
    h = wl.get("host", {})
    src = ((wl.get("meta") or {}).get("framework_on_model") or {}).get("issue_spacing_source") or {}
    kept = {k: c for k, c in (h.get("issue_spacing") or {}).items()
            if keep_direct and src.get(k) == "direct"}
    h.pop("issue_spacing", None)
    if kept:
        h["issue_spacing"] = kept


def whole_rise(wl, k):
    """The issue-spacing curves timed call by call (source "direct": the hook pattern's and DDP's
    offload comm hook's) priced whole: each one's rise over its first point (the dense issue, whose
    per-bucket cost the capture measured whole, backward() over backward()) times k. In the
    validation loop an issue's whole cost rises with its spacing about twice as steeply as its own
    calls: backward's own host work right after a far-apart issue is slowed as well
    (tools/loop_issue_probe.py, loop_issue_probe_run1: k 2.26 [1.40, 2.90], 2.11, 2.07 on
    ConvNeXt-S and T5-small's 4 / 25 MiB plans against their per-tensor plan;
    torch_modelcost.WHOLE_OVER_CALLS). The loop timed the hook pattern's issue; the offload hook
    makes calls of the same kind inside the same backward, and probe_spacing prices both alike
    (session 27: runs 25-28's 18 offload rows 9 nearer, 9 farther, run 28 10 -> 9 rows above 5%).
    Curves of whole-backward differences (--issue-spacing) hold that part already: unchanged."""
    h = wl.get("host", {})
    src = ((wl.get("meta") or {}).get("framework_on_model") or {}).get("issue_spacing_source") or {}
    for key in ("hooks", "ddp_offload"):
        c = (h.get("issue_spacing") or {}).get(key)
        if c and src.get(key) == "direct" and k != 1:
            h["issue_spacing"][key] = [c[0]] + [[x, c[0][1] + k * (y - c[0][1])] for x, y in c[1:]]


def curve_at(curve, x):
    """fusim's reading of an issue-spacing curve [[us apart, us], ...] at x (fu__spacing_at):
    interpolated between its points, the end's value beyond either end."""
    if x <= curve[0][0]:
        return curve[0][1]
    for (x0, y0), (x1, y1) in zip(curve, curve[1:]):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return curve[-1][1]


def probe_spacing(ws, k, ddp=False):
    """For a capture that did not time its in-backward issues (no issue-spacing curve for the hook
    pattern or for DDP's offload comm hook: every capture before session 25), the curve the issue
    probe measured (torch_modelcost.ISSUE_COLD_EXTRA: the hook pattern's issue calls' extra over
    the densest issue against backward's own host work since the previous issue, the same on
    ResNet-50 and GPT-2 within a few us: a property of the host and the calls, not of the model),
    priced whole as whole_rise prices a capture's own curve (its rise times k) and counted from
    the workload's own dense spacing (backward()'s CPU over its gradients, where its per-bucket
    cost was measured): [[dense, b]] + [[apart, b + k x (extra(apart) - extra(dense))]] for each
    probe point farther than dense, with b the per-bucket cost the block charges a dense issue
    (hooks.bucket_us; for the offload comm hook, its excess over DDP's bucket, as apply() puts a
    capture's). DDP's offload hook makes the same calls (an event, the side stream's wait, the
    copy into pinned memory), so it gets the same extra. ddp (the store's default since session
    29; --no-ddp-spacing leaves it out): DDP's default all-reduce as well ("ddp", at
    ddp.bucket_us: its Reducer makes calls of the same kind, an event, a stream wait, a launch; in
    the loops of runs 11-28 its per-bucket cost over DDP 100 MiB's rises 72 -> 102 -> 106 -> 139
    us at 101 / 394 / 752 / 2396 us apart, medians over 52 model-runs, near what this curve
    adds; over runs 11-29 no run's median is worse by more than its rounds resolve,
    data/validation/median_noise.py). ws: the workload scaled to the loop (its
    costs and timeline at the loop's host speed; the probe's points are taken as they are).
    Returns the keys given a curve."""
    h = ws.get("host") or {}
    n = len(ws.get("grads") or [])
    if h.get("version") != 2 or not n:
        return []
    dense = h["bwd_cpu_us"] / n
    extra = torch_modelcost.ISSUE_COLD_EXTRA
    rise = [[a, k * (e - curve_at(extra, dense))] for a, e in extra if a > dense]
    d = h.get("ddp", {})
    base = {"hooks": h.get("hooks", {}).get("bucket_us"),
            "ddp_offload": d["hook_bucket_us"] - d["bucket_us"]
            if "hook_bucket_us" in d and "bucket_us" in d else None}
    if ddp:
        base["ddp"] = d.get("bucket_us")
    isp = h.get("issue_spacing") or {}
    done = []
    for key, b in base.items():
        # b < 0: a tower whose comm hook measured below DDP's own bucket (x2 run 1's captures:
        # 118.8 against 120.6-195.5 us), where no on-model cost replaced it; a curve's costs are
        # >= 0 (fusim refuses the workload otherwise), so those issues keep their flat price
        if b is not None and b >= 0 and key not in isp and rise:
            isp[key] = [[round(dense, 3), round(b, 3)]] + [[a, round(b + e, 3)] for a, e in rise]
            done.append(key)
    if done:
        h["issue_spacing"] = isp
    return done


def tower_costs(wl, buckets_only=False):
    """Puts the model-independent costs back where the capture put the model's own
    (buckets_only: only the per-bucket ones, which then leave the list of those replaced)."""
    fm = on_model(wl)
    drop_issue_spacing(wl)   # measured on the model as well
    per_bucket = ["%s.%s" % (grp, key) for _, grp, key in torch_modelcost.BUCKET_COSTS]
    for name in list((fm or {}).get("replaced", [])):
        if buckets_only and name not in per_bucket:
            continue
        grp, key = name.split(".")
        wl["host"][grp][key] = fm["model_independent"][grp][key]
        if buckets_only:
            fm["replaced"].remove(name)
        if name in per_bucket and "hook_bucket_us" in fm["model_independent"].get("ddp", {}):
            # the comm hook's, derived from them at capture (torch_modelcost.comm_hook_bucket)
            wl["host"]["ddp"]["hook_bucket_us"] = fm["model_independent"]["ddp"]["hook_bucket_us"]
    if fm and fm.get("forward_replaced") and not buckets_only:   # DDP's forward: the tower's three parts again
        for key in ("forward_us", "buffer_us", "broadcast_us"):
            if key in fm["model_independent"]["ddp"]:
                wl["host"]["ddp"][key] = fm["model_independent"]["ddp"][key]


def drop_model_costs(wl):
    """--tower-costs, --framework-costs: every cost measured on the model out (the costs given
    replace them): meta.framework_on_model, the capture's bounds, and the issue-spacing curves
    (measured on the model as well; left in, they were priced uncarried, at the capture's host
    speed, with the model's other costs gone)."""
    wl.get("meta", {}).pop("framework_on_model", None)
    wl["host"].pop("ci", None)   # a capture's bounds were for the costs replaced
    drop_issue_spacing(wl)


def loop_costs(wl, m, fc):
    """Where the run measured the frameworks' per-parameter costs in the loop itself
    (validate_torch's probes, runs from 18 on: torch_modelcost.from_loop), they take the place of
    the capture's (meta.framework_on_model, kept as framework_on_model_capture): measured at the
    loop's own host speed, round by round, they need no carrying. The host block's bounds are
    derived again for them (fc: the run's tower). Returns the costs replaced, or None."""
    probes = m.get("loop_probes")
    h = wl.get("host")
    if not probes or not h or not fc:
        return None
    fm = torch_modelcost.from_loop(
        dict(probes, **{"compute-only": {"cpu_times_us": m["compute_only_cpu_times_us"]}}),
        wl["meta"]["tensors"], {"finalize_us": fc["ddp"]["finalize_us"],
                                "hooks_bucket_us": fc["hooks"]["bucket_us"]})
    if fm is None:
        return None
    tower_costs(wl)   # the capture's own out, the model-independent ones back
    cap = wl["meta"].pop("framework_on_model", None)
    fm["model_independent"] = cap["model_independent"] if cap else \
        {"ddp": dict(h.get("ddp", {})), "hooks": dict(h.get("hooks", {}))}
    fm["replaced"] = torch_modelcost.apply(h, fm)
    wl["meta"]["framework_on_model"] = fm
    wl["meta"]["framework_on_model_capture"] = cap
    ci = TI.capture_ci(h, fc, fm)
    if ci:
        h["ci"] = ci
    return fm["replaced"]


def model_cost_factor(ws, wl, m, host_scale=True):
    """Carries the costs measured on the model to the loop: by the loop's framework-free
    backward() CPU time over the framework-free backward() measured beside those costs (same
    model, same thread; the other costs keep the probes' factors). Sets them in the scaled
    workload ws; returns the factor, or None where the workload has none of them."""
    fm = on_model(wl)
    if fm is None and (wl.get("host") or {}).get("issue_spacing"):
        # the curves alone measured on the model (every per-parameter cost the tower's): carried
        # all the same, by the backward() measured beside them
        raw = (wl.get("meta") or {}).get("framework_on_model") or {}
        fm = raw if raw.get("bwd_cpu_us", 0) > 0 else None
    if fm is None:
        return None
    cpu = m.get("compute_only_cpu_fwd_bwd_rest_us")
    f = cpu[1] / fm["bwd_cpu_us"] if host_scale and cpu and cpu[1] > 0 else 1.0
    for name in fm.get("replaced", []):
        grp, key = name.split(".")
        ws["host"][grp][key] = wl["host"][grp][key] * f
        b = wl["host"].get("ci", {}).get(grp, {}).get(key)
        if b:   # a capture's bounds for it, carried alike
            ws["host"]["ci"][grp][key] = [x * f for x in b]
    for key, pts in (wl["host"].get("issue_spacing") or {}).items():
        # the curves: how far apart (host time) and the cost, both at the loop's host speed
        ws["host"]["issue_spacing"][key] = [[x * f, y * f] for x, y in pts]
    ff = forward_factor(wl, m, host_scale)
    if ff is not None:   # DDP's forward measured on the model: by forward's own factor
        ws["host"]["ddp"]["forward_us"] = wl["host"]["ddp"]["forward_us"] * ff
        b = wl["host"].get("ci", {}).get("ddp", {}).get("forward_us")
        if b:
            ws["host"]["ci"]["ddp"]["forward_us"] = [x * ff for x in b]
    return f


def overhead_ok(predicted, measured):
    """issue 10's overhead target: within 15% or 300 us, whichever is larger."""
    return abs(predicted - measured) <= max(0.15 * abs(measured), 300.0)


def forward_factor(wl, m, host_scale=True):
    """Where the capture measured DDP's forward whole on the model (torch_modelcost's
    ddp_forward, forward_replaced): the loop's framework-free forward CPU time over the one
    measured beside it (the main thread's speed, as the capture's own factors carry forward);
    None otherwise."""
    fm = (wl.get("meta") or {}).get("framework_on_model") or {}
    if not fm.get("forward_replaced"):
        return None
    cpu = m.get("compute_only_cpu_fwd_bwd_rest_us")
    base = fm["ddp_forward"]["fwd_cpu_us"]
    return cpu[0] / base if host_scale and cpu and cpu[0] > 0 and base > 0 else 1.0


def broadcast_fixed(wl, fc):
    """Puts the buffer broadcast's fixed part into a workload captured before the host block
    carried it (runs up to 13): the tower's intercept of DDP's forward CPU against the buffers
    (fc["other"]["broadcast_fixed_us"], measured in the same run), where the block has DDP's
    costs and none of its own. Returns the value set, or None."""
    d = (wl.get("host") or {}).get("ddp")
    b = ((fc or {}).get("other") or {}).get("broadcast_fixed_us")
    if d is None or b is None or "broadcast_us" in d:
        return None
    d["broadcast_us"] = round(max(0.0, b), 3)
    return d["broadcast_us"]


def beside_d2h(wl, drop=False):
    """Sets host.beside_d2h from the capture's rounds (meta.beside_d2h.raw, tools/torch_beside.py)
    by torch_beside's current rule, so that every run is predicted alike whichever rule its capture
    wrote by (run 15's captures also wrote a host factor, which the rule no longer keeps); drop:
    none at all (the profile's copy_slowdown, as before run 15). Workloads captured without the
    rounds keep what they have (nothing, before run 15). Returns the block set, or None."""
    h = wl.get("host")
    raw = ((wl.get("meta") or {}).get("beside_d2h") or {}).get("raw")
    if not h or (raw is None and not drop):
        return h.get("beside_d2h") if h else None
    b = None if drop else torch_beside.block(torch_beside.estimate(raw))
    h.pop("beside_d2h", None)
    if b:
        h["beside_d2h"] = b
    return b


def queue_capacity(queue):
    """The launch queue's capacity from torch_launchq.queue_depth's measurements (kernels and
    copies), or None: the most launches any repetition had pending before one blocked. A rep can
    only read short: a launch slowed past the block threshold by the host itself (a noisy lease)
    reads as a full queue, while a real block comes at the capacity (1021 on every H200 lease of
    runs 13-27 and x2, whose 108 reps read 1-968 in 25; run 27's copies read 215 / 154 / 1021,
    and their median, 215, was the bound). Entries without reps: their "depth"."""
    reps = [r for q in queue or [] for r in (q.get("reps") or [q.get("depth")]) if r]
    return int(max(reps)) if reps else None


def launch_queue(wl, m, run, lq):
    """Puts the launch-queue bound into the host block: host.launches per phase (the capture's
    meta.launches, else the --launchq file's count for the same model and batch) and
    host.queue_depth (the run's own measurement, else the file's). Returns (launches, depth) or
    None where either is missing (the host then runs ahead without bound, as before)."""
    n = (wl.get("meta") or {}).get("launches")
    key = "%s:%s" % (m.get("model"), m.get("batch"))
    if not n and lq:
        n = lq.get("models", {}).get(key)
    depth = queue_capacity(run.get("queue_depth")) or \
        (queue_capacity(lq.get("queue")) if lq else None)
    if not n or not depth or "host" not in wl:
        return None
    wl["host"]["launches"] = {k: float(n[k]) for k in ("fwd", "bwd", "opt")}
    wl["host"]["queue_depth"] = depth
    return (wl["host"]["launches"], depth)


def plan_args(row, link="nvlink"):
    """fusim predict's plan flags for a row: DDP's all-reduce over the row's ranks ("allreduce:N";
    runs before --world-size wrote "allreduce:1") on the link between the GPUs, else the offload."""
    comm = row["comm"]
    if comm.startswith("allreduce"):
        ranks = comm.split(":")[1] if comm.count(":") >= 1 else "1"
        comm = "allreduce:%s:%s" % (ranks, link)
    a = ["--comm", comm, "--framework", row["framework"], "--overlap", row["overlap"],
         "--pack", row["pack"]]
    return a


def topology_link(topo):
    """The link between the run's GPUs from `nvidia-smi topo -m` (runs.json machine.topology):
    nvlink where a GPU pair shows NV<n>, pcie where it shows none, nvlink (the one-GPU runs'
    spelling, where the all-reduce stays on the GPU) without a matrix."""
    if not topo:
        return "nvlink"
    pairs = [c for line in topo.splitlines() if line.startswith("GPU")
             for c in line.split()[1:] if c != "X"]
    return "nvlink" if any(re.fullmatch(r"NV\d+", c) for c in pairs) else "pcie"


def arg_parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rundir")
    ap.add_argument("--fusim", default=os.path.join(os.path.dirname(__file__), "..", "build", "fusim"))
    ap.add_argument("--db", help="results database (default: $FUSIM_DB, else fusim.db)")
    ap.add_argument("--profile", help="profile for fusim predict (default: RUNDIR/profile.json, "
                    "the one a run measured in its own call, else the bundled one)")
    ap.add_argument("--no-store", action="store_true")
    ap.add_argument("--again", action="store_true",
                    help="store a run the database holds already (refused otherwise)")
    ap.add_argument("--link", choices=("nvlink", "pcie"),
                    help="the link of DDP's all-reduce between the run's GPUs (default: from "
                         "runs.json's nvidia-smi topo -m, nvlink without one)")
    ap.add_argument("--no-host-scale", action="store_true",
                    help="scale host and GPU work alike (by the compute-only iteration alone)")
    ap.add_argument("--no-probe-scale", action="store_true",
                    help="carry the frameworks' costs by the capture's host factor even where the "
                         "host-speed probe was measured (as for runs up to 8)")
    ap.add_argument("--one-host-factor", action="store_true",
                    help="scale the whole CPU timeline by one factor (forward + backward() in the "
                         "run against the capture's), as runs up to 9 were predicted, instead of "
                         "one per phase")
    ap.add_argument("--capture-spread", action="store_true",
                    help="with --iteration-spread: keep the capture's step spread in the "
                         "interval (else the run's compute-only iteration's)")
    ap.add_argument("--iteration-spread", action="store_true",
                    help="the interval of one iteration (the spreads of single iterations and "
                         "of the frameworks' rounds, as before) instead of a row's median's "
                         "(tools/torch_interval.py)")
    ap.add_argument("--tower-costs", action="store_true",
                    help="use the model-independent framework costs (per parameter, per bucket, "
                         "DDP's forward) even where the capture measured them on the model "
                         "(tools/torch_modelcost.py)")
    ap.add_argument("--unpaired-copy", action="store_true",
                    help="a sensitivity: DDP's per-parameter copy as the capture stored it (before "
                         "session 25 the difference of the two modes' medians) instead of "
                         "estimated again from its rounds, paired (copy_from_rounds)")
    ap.add_argument("--hook-from-hk1", action="store_true",
                    help="the hook pattern's hook and dense bucket as a capture before session 28 "
                         "stored them (hk_1 less a dense bucket), not estimated again from hk_0 "
                         "(hooks_from_rounds)")
    ap.add_argument("--dense-from-calls", action="store_true",
                    help="the hook pattern's dense bucket from its issue's calls timed at capture "
                         "times the loop's whole-over-calls at one issue per gradient, not from "
                         "hk_n less hk_0 (dense_from_calls; captures that timed their issues)")
    ap.add_argument("--no-model-bucket-costs", action="store_true",
                    help="a sensitivity: the tower's per-bucket costs even where the capture "
                         "measured them on the model (the per-parameter ones stay the model's)")
    ap.add_argument("--issue-spacing", action="store_true",
                    help="price the in-backward issues by the capture's issue-spacing curves "
                         "made of whole-backward differences too (host.issue_spacing); off by "
                         "default: their far points are not resolved (runs 23, 24), so a curve "
                         "is its near points read flat")
    ap.add_argument("--no-issue-spacing", dest="issue_spacing", action="store_false",
                    help="the default, said explicitly: those curves left out")
    ap.add_argument("--whole-over-calls", type=float, default=torch_modelcost.WHOLE_OVER_CALLS,
                    metavar="K",
                    help="an in-backward issue (the hook pattern's, DDP's offload hook's) rises "
                         "with its spacing K times as steeply as its own calls timed at capture "
                         "(default %(default)s, measured in the loop on the hook pattern: "
                         "backward's work after the issue slows too; 1: the calls alone)")
    ap.add_argument("--no-direct-spacing", dest="direct_spacing", action="store_false",
                    help="a sensitivity: leave out the issue-spacing curves timed call by call "
                         "(captures from session 25 on), which are priced by default")
    ap.add_argument("--no-probe-spacing", dest="probe_spacing", action="store_false",
                    help="a capture without issue-spacing curves prices every in-backward issue at "
                         "its per-bucket cost (before session 27); default: the issue probe's "
                         "curve, priced whole (probe_spacing)")
    ap.add_argument("--ddp-spacing", action="store_true", default=True,
                    help="the default, said explicitly: with the issue probe's curve, DDP's "
                         "default all-reduce per bucket priced by it as well "
                         "(host.issue_spacing.ddp; probe_spacing)")
    ap.add_argument("--no-ddp-spacing", dest="ddp_spacing", action="store_false",
                    help="a sensitivity: DDP's default all-reduce at its dense per-bucket cost at "
                         "every spacing (before session 29)")
    ap.add_argument("--plan-jitter", action="store_true",
                    help="a row's median on the loop's step distribution: its overhead jitters "
                         "from iteration to iteration by the run's framework microbenchmark's "
                         "spread, on its own, on top of compute-only's rounds (jitter_shift); "
                         "needs --no-store (fusim's stored prediction does not carry it)")
    ap.add_argument("--loop-model-costs", action="store_true",
                    help="where the run measured the per-parameter costs in its loop "
                         "(validate_torch's probes), use those in place of the capture's (on run "
                         "18: median 3.54%% against 3.02%%, their bounds half as wide); the "
                         "per-bucket costs then stay the tower's (the probes run one bucket)")
    ap.add_argument("--launchq", metavar="FILE",
                    help="a tools/torch_launchq.py result (data/validation/torch_h200_launchq/"
                         "launchq.json): launches per phase and the queue depth for runs whose "
                         "captures and runs.json lack them")
    ap.add_argument("--no-launch-queue", action="store_true",
                    help="let the host run ahead without bound even where launches are known")
    ap.add_argument("--no-broadcast-fixed", action="store_true",
                    help="leave out the buffer broadcast's fixed part where the capture's host "
                         "block lacks it (runs up to 13 were first predicted without it)")
    ap.add_argument("--beside-d2h", metavar="COMPUTE", type=float,
                    help="a sensitivity: put host.beside_d2h.compute (backward's kernels beside a "
                         "transfer into host memory) into workloads captured without it")
    ap.add_argument("--no-beside", action="store_true",
                    help="leave out the capture's host.beside_d2h (the profile's copy_slowdown "
                         "for compute beside a D2H, as before run 15)")
    ap.add_argument("--model-rel", type=float, default=torch_host.MODEL_REL, metavar="R",
                    help="the model's own error, a relative 95%% half-width added to the "
                         "interval in quadrature (host.jitter.model_rel; default %(default)s: "
                         "torch_host.MODEL_REL says how it was estimated)")
    ap.add_argument("--csv", help="write the matrix here")
    ap.add_argument("--trace-dir", metavar="DIR",
                    help="also write each row's simulated timeline (fusim predict --trace) to "
                         "DIR/WORKLOAD__PLAN.json (tools/torch_decomp.py reads them)")
    ap.add_argument("--framework-costs", metavar="FILE:LABEL",
                    help="take the frameworks' costs (host.ddp, host.hooks, copy_gbps) from the "
                         "line of a tools/torch_fwcost_probe.py file with this label instead of "
                         "the run's own microbenchmark")
    return ap


def main():
    a = arg_parser().parse_args()
    if not 0 <= a.model_rel <= 1:   # fusim's range for it
        die("--model-rel %g: expected a fraction from 0 to 1" % a.model_rel, 64)
    if a.beside_d2h is not None and not 1 <= a.beside_d2h <= 10:   # fusim's range for it
        die("--beside-d2h %g: expected a factor from 1 to 10" % a.beside_d2h, 64)
    if a.plan_jitter and not a.no_store:   # the database would hold fusim's prediction without it
        die("--plan-jitter needs --no-store: fusim's stored prediction does not carry the shift", 64)
    if not 0 <= a.whole_over_calls < float("inf"):   # a rise below 0 prices an issue under the dense one
        die("--whole-over-calls %g: expected a factor of 0 or more" % a.whole_over_calls, 64)
    path = torch_runs.find(os.path.join(a.rundir, "runs.json"))
    if not os.path.isfile(path):
        die("%s: no such file (a run of tools/validate_torch.py)" % path, 66)
    try:
        run = torch_runs.load(path)
    except (ValueError, EOFError, OSError) as e:   # a cut or damaged file, gzipped or not
        die("%s: not readable as a validation run (%s: %.100s)" % (path, type(e).__name__, e))
    bad = torch_runs.problem(run)   # before any work: a damaged row ended in a traceback
    if bad:
        die("%s: %s" % (path, bad))
    if shutil.which(a.fusim) is None:
        die("%s: no fusim executable there (build it: ninja -C build; or give --fusim)" % a.fusim, 66)
    gpus = int(run.get("world_size", 1))
    link = a.link or topology_link((run.get("machine") or {}).get("topology"))
    db = a.db or os.environ.get("FUSIM_DB") or "fusim.db"
    if not a.profile and os.path.isfile(os.path.join(a.rundir, "profile.json")):
        # the profile measured in the run's own call (--world-size runs: calib -g N, fit)
        a.profile = os.path.join(a.rundir, "profile.json")
    prof = ["--profile", a.profile] if a.profile else []
    if not a.no_store and not a.again and os.path.isfile(db):
        # a run stored twice counts its iterations twice in every view over the database
        con = sqlite3.connect(db)
        try:   # the run as stored, under any spelling of its path or from another copy of it
            stored = con.execute(
                "SELECT json_extract(json, '$.run'), json_extract(json, '$.plan_label'), "
                "json_extract(json, '$.times_us') FROM measurements "
                "WHERE json_extract(json, '$.harness') = 'tools/validate_torch.py'").fetchall()
        except sqlite3.Error:
            stored = []   # no measurements table yet: fusim makes the schema
        finally:
            con.close()
        # a row's own iteration times tell it from any other run's (a copy of the run folder in
        # another checkout has another path)
        mine = {(r["plan_label"], json.dumps(r["times_us"])) for m in run["models"] for r in m["rows"]}
        n = sum(1 for (q, label, times) in stored
                if (q and os.path.realpath(q) == os.path.realpath(path)) or
                (times and (label, json.dumps(json.loads(times))) in mine))
        if n:
            die("%s: this run is stored in %s already (%d measurements); --again stores it once more "
                "(its iterations then count twice), --no-store prints it" % (path, db, n))
    commit = source_commit()
    tmp = tempfile.mkdtemp(prefix="fusim-torchval-")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)   # scaled workloads: scratch only
    fwc = None
    if a.framework_costs:
        fpath, _, label = a.framework_costs.partition(":")
        try:
            with open(fpath) as f:
                probes = [json.loads(line) for line in f if line.strip()]
        except OSError as e:
            die("%s: %s" % (fpath, e.strerror), 66)
        fwc = next((p for p in probes if p.get("label") == label), None)
        if fwc is None:
            die("--framework-costs: %s has no line labelled '%s' (labels: %s)"
                % (fpath, label, ", ".join(p.get("label", "?") for p in probes)), 64)
    lq = None
    if a.launchq:
        try:
            with open(a.launchq) as f:
                lq = json.load(f)
        except (OSError, ValueError) as e:
            die("%s: %s" % (a.launchq, getattr(e, "strerror", None) or e), 66)
    rows, pending = [], []
    rhos = {}   # a model's rho, once for all its plan groups (a bootstrap per row)

    def rho_of(workload):
        if workload not in rhos:
            rhos[workload] = loop_corr([g for g in run["models"] if g["workload"] == workload])
        return rhos[workload]
    captured = {}   # every file before any work: a missing or damaged one ended in a traceback
    for m in run["models"]:
        wpath = os.path.join(a.rundir, "wl_%s.json" % m["workload"])
        if not os.path.isfile(wpath):
            die("%s: no such file (the run's captured workload of %s)" % (wpath, m["workload"]), 66)
        try:
            with open(wpath) as f:
                wl = json.load(f)
        except (OSError, ValueError) as e:
            die("%s: not readable as a workload (%s: %.100s)" % (wpath, type(e).__name__, e))
        if not isinstance(wl, dict) or not isinstance(wl.get("host"), dict) or wl["host"].get("version") != 2:
            die("%s: no host block of version 2 (the host timeline tools/capture_torch.py writes, "
                "which every row is predicted from)" % wpath)
        if fwc is None and not all(isinstance(wl["host"].get(g), dict) for g in ("ddp", "hooks")):
            die("%s: host block without the frameworks' costs (host.ddp and host.hooks, which "
                "the run's rows are predicted with; --framework-costs gives them)" % wpath)
        # the rest as fusim reads a workload (gradients, times, the host block's fields): its one
        # line naming the field; the tool reads them without defaults (a KeyError traceback)
        p = subprocess.run([a.fusim, "workload", "--check", wpath], capture_output=True, text=True)
        if p.returncode != 0:
            why = p.stderr.strip().splitlines()
            die(why[-1].replace("fusim: ", "", 1) if why else "%s: fusim workload --check exit %d"
                % (wpath, p.returncode), p.returncode if p.returncode in (65, 66) else 65)
        captured[m["workload"]] = wl
    # the frameworks' buckets (each row's, from runs.json) as files fusim reads: kept with the run
    # where stored (the database's plan names the file), else scratch (the run folder untouched)
    bdir = os.path.join(tmp if a.no_store else a.rundir, "buckets")
    for m in run["models"]:
        wl = copy.deepcopy(captured[m["workload"]])   # a model in several plan groups: each its own
        if fwc is not None:
            wl["host"].update({"ddp": fwc["ddp"], "hooks": fwc["hooks"],
                               "copy_gbps": fwc["copy_gbps"]})
            wl["host"].pop("kernel_us", None)   # the line's own, if it has one
            if "kernel_us" in fwc:
                wl["host"]["kernel_us"] = fwc["kernel_us"]
            wl["name"] = wl["name"] + "_fw"
        if fwc is None and not a.unpaired_copy:
            copy_from_rounds(wl)
        if fwc is None and not a.hook_from_hk1:
            hooks_from_rounds(wl)
        elif fwc is None:
            rounds_without_hk0(wl)
        if fwc is None and a.dense_from_calls:
            dense_from_calls(wl, torch_modelcost.DENSE_WHOLE_OVER_CALLS)
        if a.tower_costs and fwc is None:
            tower_costs(wl)
        elif a.no_model_bucket_costs and fwc is None:
            tower_costs(wl, buckets_only=True)
        if not a.issue_spacing:
            drop_issue_spacing(wl, keep_direct=a.direct_spacing)
        whole_rise(wl, a.whole_over_calls)
        if a.tower_costs or fwc is not None:   # the costs given replace the model's too
            drop_model_costs(wl)
        if a.loop_model_costs and not (a.tower_costs or fwc is not None):
            loop_costs(wl, m, run.get("framework_costs"))
        beside_d2h(wl, a.no_beside)
        if a.beside_d2h is not None and "beside_d2h" not in wl.get("host", {}):
            wl["host"]["beside_d2h"] = {"compute": a.beside_d2h}
        if not a.no_launch_queue:
            launch_queue(wl, m, run, lq)
        if fwc is None and not a.no_broadcast_fixed:
            broadcast_fixed(wl, run.get("framework_costs"))
        order = [g["name"] for g in wl["grads"]]
        dtypes = [g.get("dtype") for g in wl["grads"]]   # all named or none (fusim refuses a mix)
        hf, gf = anchor(a.fusim, wl, m, tmp, prof, not a.no_host_scale, not a.one_host_factor)
        ff = None if a.no_probe_scale else \
            fw_factors(fwc if fwc is not None else run.get("framework_costs"), m)
        ws = scaled(wl, hf, gf, ff if not a.no_host_scale else None)
        mf = model_cost_factor(ws, wl, m, not a.no_host_scale)
        if a.iteration_spread or not median_interval(
                ws, wl, m, None if fwc is not None else run.get("framework_costs"),
                ff if not a.no_host_scale else None, hf, mf, a.model_rel, rho_of(m["workload"])):
            if not a.capture_spread:
                same_run_spread(ws, m)
        fm = on_model(wl)
        if fm is not None:   # DDP's comm hook per bucket follows its parts measured on the model
            torch_modelcost.comm_hook_bucket(ws["host"], fm["replaced"])
        if a.probe_spacing:
            probe_spacing(ws, a.whole_over_calls, a.ddp_spacing)
        spath = os.path.join(tmp, "%s.json" % ws["name"])
        with open(spath, "w") as f:
            json.dump(ws, f)
        for r in m["rows"]:
            fusion = r["fusion"]
            if r.get("buckets"):
                bfile = os.path.join(bdir, "%s_%s.json" % (m["workload"],
                                                           r["plan_label"].replace(" ", "_")))
                if not os.path.exists(bfile):
                    os.makedirs(bdir, exist_ok=True)
                    with open(bfile, "w") as f:
                        json.dump(r["buckets"], f)
                # the framework's own buckets; fusim's rule when it gives the same ones
                rule = fusim_json(a.fusim, ["predict", "--workload", spath, "--no-store", "--format",
                                            "json", "--fusion", fusion] + plan_args(r, link) + prof)
                # a bucket is the gradients of [first, last] of its first one's element type
                mine = [[order[i] for i in range(b["first"], b["last"] + 1) if dtypes[i] == dtypes[b["first"]]]
                        for b in rule["buckets"]]
                same = sorted(sorted(b) for b in mine) == sorted(sorted(b) for b in r["buckets"])
                if not same:
                    fusion = "buckets:" + bfile
            args = ["predict", "--workload", spath, "--format", "json", "--fusion", fusion] + \
                plan_args(r, link) + prof
            if a.trace_dir:
                os.makedirs(a.trace_dir, exist_ok=True)
                args += ["--trace", os.path.join(a.trace_dir, "%s__%s.json" % (
                    m["workload"], r["plan_label"].replace(" ", "_")))]
            p = fusim_json(a.fusim, args + ["--no-store"])   # stored below, once every row predicts
            if a.plan_jitter:
                shift = jitter_shift(m.get("compute_only_times_us"), p["iter_us"] - p["compute_us"],
                                     framework_rel_sd(run.get("framework_costs")))
                for k in ("iter_us", "iter_lo_us", "iter_hi_us"):
                    p[k] += shift
            meas, co = r["measured_us"], r["compute_only_us"]
            ov_m, ov_p = meas - co, p["iter_us"] - p["compute_us"]
            row = {
                "workload": m["workload"], "plan": r["plan_label"], "fusim_plan": p["plan"],
                "framework": r["framework"], "comm": r["comm"], "rule_buckets": fusion == r["fusion"],
                "measured_us": meas, "predicted_us": p["iter_us"],
                "lo_us": p["iter_lo_us"], "hi_us": p["iter_hi_us"],
                "rel_err": (p["iter_us"] - meas) / meas,
                "compute_only_us": co, "overhead_measured_us": ov_m, "overhead_predicted_us": ov_p,
                "overhead_err_us": ov_p - ov_m,
                "overhead_ok": overhead_ok(ov_p, ov_m),
                "inside": p["iter_lo_us"] <= meas <= p["iter_hi_us"],
                "p5_us": r["p5_us"], "p95_us": r["p95_us"], "iterations": len(r["times_us"]),
                # single iterations inside: the check of the interval as one iteration's range
                "iters_inside": sum(p["iter_lo_us"] <= t <= p["iter_hi_us"] for t in r["times_us"]),
                "model_rel": (ws.get("host") or {}).get("jitter", {}).get("model_rel", 0.0),   # as predicted
                "n_buckets": p["n_ops"], "host_scale": hf, "gpu_scale": gf, "fw_scale": ff,
                "fw_model_scale": mf,
            }
            rows.append(row)
            if not a.no_store:
                pending.append((args, r, m, meas, co, ov_m, ov_p, hf, gf, ff, mf))
    # every row predicted: now each prediction stored by fusim, its measurement beside it (a run
    # that failed part-way stored its first models)
    for args, r, m, meas, co, ov_m, ov_p, hf, gf, ff, mf in pending:
        fusim_json(a.fusim, args + ["--db", db])
        note = ("validate_torch %s: %s; %d iterations"
                % (os.path.basename(os.path.normpath(a.rundir)), r["plan_label"],
                   len(r["times_us"])))
        ck = m.get("clocks_sm_mhz_power_w_temp_c") or [None, None]
        con = sqlite3.connect(db)
        try:
            with con:
                pid, wid, plid = con.execute(
                    "SELECT id, workload_id, plan_id FROM predictions "
                    "ORDER BY id DESC LIMIT 1").fetchone()
                con.execute(
                    "INSERT INTO measurements (prediction_id, run_id, workload_id, plan_id, "
                    "gpus, framework, measured_us, spread_us, iterations, compute_only_us, "
                    "sm_clock_mhz_start, sm_clock_mhz_end, power_w, git_commit, notes, json) "
                    "SELECT ?, run_id, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? "
                    "FROM predictions WHERE id = ?",
                    (pid, wid, plid, gpus, r["framework"], meas, r["p95_us"] - r["p5_us"],
                     len(r["times_us"]), co, ck[0][0] if ck[0] else None,
                     ck[-1][0] if ck[-1] else None, ck[-1][1] if ck[-1] else None, commit,
                     note,
                     json.dumps({"harness": "tools/validate_torch.py", "run": path,
                                 "plan_label": r["plan_label"], "machine": run.get("machine"),
                                 "command": run.get("command"), "overhead_measured_us": ov_m,
                                 "overhead_predicted_us": ov_p,
                                 "host_scale": hf, "gpu_scale": gf, "fw_scale": ff,
                                 "fw_model_scale": mf,
                                 "times_us": r["times_us"],
                                 # --world-size runs: every rank's medians, the skew
                                 "rank_measured_us": r.get("rank_measured_us"),
                                 "rank_skew_iter_us": r.get("rank_skew_iter_us")}), pid))
        finally:
            con.close()
    # the matrix and its summary
    hdr = ["workload", "plan", "framework", "comm", "n_buckets", "rule_buckets", "compute_only_us",
           "measured_us", "predicted_us", "rel_err", "lo_us", "hi_us", "inside",
           "overhead_measured_us", "overhead_predicted_us", "overhead_ok", "p5_us", "p95_us", "iterations", "iters_inside", "model_rel"]
    lines = [",".join(hdr)]
    for r in rows:
        lines.append(",".join(("%.6f" % r[k]) if isinstance(r[k], float) else
                              ('"%s"' % r[k] if isinstance(r[k], str) else str(int(r[k]) if isinstance(r[k], bool) else r[k]))
                              for k in hdr))
    errs = [abs(r["rel_err"]) for r in rows]
    summ = []
    summ.append("rows %d: median |error| %.2f%%, max %.2f%% (%s / %s); interval holds %d/%d; "
                "overhead within 15%% or 300 us: %d/%d"
                % (len(rows), 100 * statistics.median(errs), 100 * max(errs),
                   rows[errs.index(max(errs))]["workload"], rows[errs.index(max(errs))]["plan"],
                   sum(r["inside"] for r in rows), len(rows), sum(r["overhead_ok"] for r in rows),
                   len(rows)))
    for wname in dict.fromkeys(r["workload"] for r in rows):
        rs = [r for r in rows if r["workload"] == wname]
        best_p = min(rs, key=lambda r: r["predicted_us"])
        best_m = min(rs, key=lambda r: r["measured_us"])
        e = [abs(r["rel_err"]) for r in rs]
        summ.append("%s: median %.2f%% max %.2f%%; fusim's fastest '%s' measured %.0f us, "
                    "fastest measured '%s' %.0f us (%+.2f%%)"
                    % (wname, 100 * statistics.median(e), 100 * max(e), best_p["plan"],
                       best_p["measured_us"], best_m["plan"], best_m["measured_us"],
                       100 * (best_p["measured_us"] / best_m["measured_us"] - 1)))
    out = "\n".join(lines) + "\n"
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("".join("# %s\n" % s for s in summ) + out)
    for r in rows:
        print("%-32s %-26s %9.0f %9.0f %+6.2f%%  ov %7.0f / %7.0f %s%s"
              % (r["workload"], r["plan"], r["measured_us"], r["predicted_us"], 100 * r["rel_err"],
                 r["overhead_measured_us"], r["overhead_predicted_us"],
                 "ok" if r["overhead_ok"] else "--", " in" if r["inside"] else " OUT"))
    print("\n".join(summ))
    return 0


if __name__ == "__main__":
    sys.exit(main())
