#!/usr/bin/env python3
"""torch_run_report.py: what a run of tools/validate_torch.py says about the host, beside its
rows (issue 10; no torch needed):
  threads  per model, round by round, the correlation of the compute-only iteration's forward CPU
           with its optimizer's (both on Python's main thread) and with backward()'s (the autograd
           engine's thread), and of each with the probe of its thread (torch_host.host_probe /
           bwd_probe); the probes' medians in the loop against the tower's;
  noise    per model, how far two estimates of a plan's overhead over compute-only differ: the
           difference of the two medians (what the rows store) and the median of same-round
           differences, in % of the plan's time (the measurement's own noise);
  baseline where the run had validate_torch --baseline-twin, per model its second framework-free
           runner less compute-only (step and CPU phases, same-round medians): 0 within noise
           when compute-only is a fair baseline;
  ddp      per model, DDP's copy-mode plans: backward()'s CPU over compute-only's (median of
           same-round differences) against the number of buckets, a least-squares line (per
           parameter = intercept / P, per bucket = slope) and each plan's residual;
  hooks    per model, the hook pattern: the line through per-tensor and 25 MiB buckets
           (backward()'s CPU over compute-only's, paired by round) and the 4 MiB plan's residual;
  offload  per model, DDP's offload comm hook per bucket over DDP's default all-reduce with the
           same buckets (the 4 MiB plans, backward() CPU paired by round) against the tower's
           difference carried to the loop by the autograd probe (what the store charges where
           no per-bucket cost was measured on the model; torch_modelcost.comm_hook_bucket);
  spacing  per model, the same per-bucket difference against how far apart the buckets are
           issued (backward()'s CPU time per bucket): on the model at one bucket per parameter
           (torch_modelcost's ddpo_n against ddpv_n, captures from run 22 on), and in the loop at
           4 MiB and at DDP's default 25 MiB (each pair with the same buckets); and the hook
           pattern's issue from inside backward per bucket (its per-tensor, 4 and 25 MiB plans
           over the 25 MiB overlap-off one); then the capture's spacing variants where it ran
           them (meta.framework_on_model.issue_spacing, "model" points);
  model    per model, the frameworks' per-parameter costs measured on the model at capture
           (tools/torch_modelcost.py: DDP param + copy, the hook) beside the ddp and hooks lines
           above (the loop's own) and the tower's, and the capture's launch-queue signs: how
           often its held pass outran its sleep (meta.host_capture.sleep_too_short) and the
           step's launches per phase where counted (meta.launches);
  blocked  with --blocked: every plan's overhead and forward / backward() CPU over compute-only's,
           interleaved against N steps in a row.

    python3 tools/torch_run_report.py data/validation/torch_h200_run10

A RUNDIR without runs.json (or runs.json.gz): usage, exit 64; one that is not a validation run,
or whose rounds lack their CPU times (runs before 8): one line on stderr, exit 65.
"""
import json
import os
import statistics as st
import sys

import torch_runs


def corr(a, b):
    n = min(len(a), len(b))
    try:
        return st.correlation(a[:n], b[:n])
    except (st.StatisticsError, ValueError):
        return float("nan")


def paired(a, b):
    n = min(len(a), len(b))
    return st.median([x - y for x, y in zip(a[:n], b[:n])])


def ddp_line(m):
    """DDP's copy-mode plans of one model: backward()'s CPU over compute-only's (median of
    same-round differences) against the plan's bucket count, a least-squares line: (intercept
    over the parameters, or None where no per-tensor plan gives their number; slope = us per
    bucket; [(plan, buckets, residual us)]); None with fewer than 3 plans."""
    coc = [x[1] for x in m["compute_only_cpu_times_us"]]
    pts = [(len(r["buckets"]), paired([x[1] for x in r["cpu_times_us"]], coc), r["plan_label"])
           for r in m["rows"] if r["runner"] == "ddp" and not r["gradient_as_bucket_view"]
           and r.get("buckets")]
    if len(pts) < 3:
        return None
    P = next((sum(len(b) for b in r["buckets"]) for r in m["rows"] if r.get("buckets")), None)
    slope, icpt = st.linear_regression([p[0] for p in pts], [p[1] for p in pts])
    return (icpt / P if P else None, slope,
            [(lab, nb, y - icpt - slope * nb) for nb, y, lab in pts])


def hooks_line(m):
    """The hook pattern's per-tensor and 25 MiB plans (overlap on): the line of backward()'s CPU
    over compute-only's (paired by round) on the bucket count through the two, and the 4 MiB
    plan's distance from it: (us per bucket, intercept over the parameters, 4 MiB buckets,
    residual us); None without the three plans."""
    coc = [x[1] for x in m["compute_only_cpu_times_us"]]
    r = {x["plan_label"]: x for x in m["rows"] if x.get("buckets")}
    if not all(k in r for k in ("hooks none", "hooks 4MiB", "hooks 25MiB")):
        return None
    pts = [(len(r[k]["buckets"]), paired([x[1] for x in r[k]["cpu_times_us"]], coc))
           for k in ("hooks none", "hooks 4MiB", "hooks 25MiB")]
    (n0, y0), (n4, y4), (n25, y25) = pts
    if n0 == n25:
        return None
    slope = (y0 - y25) / (n0 - n25)
    icpt = y25 - slope * n25
    return slope, icpt / n0, n4, y4 - icpt - slope * n4


def pair_gap(m, pair):
    """(backward() CPU of plan pair[0] minus pair[1], median of same-round differences, over the
    buckets; buckets), or None without both plans or where their buckets differ."""
    r = {x["plan_label"]: x for x in m["rows"]}
    a, b = r.get(pair[0]), r.get(pair[1])
    if not a or not b or not a.get("buckets") or sorted(map(sorted, a["buckets"])) != \
            sorted(map(sorted, b.get("buckets") or [])):
        return None
    nb = len(a["buckets"])
    return paired([x[1] for x in a["cpu_times_us"]], [x[1] for x in b["cpu_times_us"]]) / nb, nb


def offload_spacing(m, fm):
    """DDP's offload comm hook per bucket over its default all-reduce against the buckets'
    spacing (us of backward() CPU per bucket): [(where, buckets, spacing us, us per bucket)] for
    the capture's one bucket per parameter (fm = meta.framework_on_model with ddp_hook_bucket_us,
    spacing from its plain backward() CPU) and the loop's 4 MiB and default plans (spacing from
    the loop's compute-only backward() CPU)."""
    out = []
    if fm and "ddp_hook_bucket_us" in fm and fm.get("P"):
        out.append(("model", fm["P"], fm["bwd_cpu_us"] / fm["P"],
                    fm["ddp_hook_bucket_us"] - fm["ddp_bucket_us"]))
    bwd = st.median(x[1] for x in m["compute_only_cpu_times_us"])
    for lab, pair in (("4MiB", ("ddp offload 4MiB", "ddp 4MiB")),
                      ("default", ("ddp offload default", "ddp default"))):
        g = pair_gap(m, pair)
        if g is not None:
            out.append((lab, g[1], bwd / g[1], g[0]))
    return out


def hooks_spacing(m):
    """The hook pattern's issue from inside backward per bucket against the buckets' spacing:
    [(plan, buckets, us apart, us per bucket)] for its per-tensor, 4 MiB and 25 MiB plans, each
    overlap-on plan's backward() CPU over the 25 MiB overlap-off plan's (the same hooks and
    copies, every issue after backward(); median of same-round differences) over its buckets;
    us apart: the loop's compute-only backward() CPU over the buckets. [] without the base."""
    r = {x["plan_label"]: x for x in m["rows"]}
    base = r.get("hooks 25MiB overlap off")
    if not base:
        return []
    bwd = st.median(x[1] for x in m["compute_only_cpu_times_us"])
    out = []
    for lab in ("hooks none", "hooks 4MiB", "hooks 25MiB"):
        a = r.get(lab)
        if a and a.get("buckets"):
            nb = len(a["buckets"])
            out.append((lab[6:], nb, bwd / nb,
                        paired([x[1] for x in a["cpu_times_us"]],
                               [x[1] for x in base["cpu_times_us"]]) / nb))
    return out


def offload_gap(m, fw, pair=("ddp offload 4MiB", "ddp 4MiB")):
    """DDP's offload comm hook per bucket over DDP's default all-reduce in the loop: the offload
    plan's backward() CPU minus the default plan's with the same buckets (median of same-round
    differences) over the buckets, against the tower's hook_bucket_us - bucket_us carried by the
    autograd thread's probe (loop median over the tower's): what the store charges for that
    difference where no per-bucket cost was measured on the model (where one was, it charges
    the hook pattern's issue instead, torch_modelcost.comm_hook_bucket). (loop us per bucket,
    charged us per bucket, buckets); None without both plans, with different buckets, or without
    the tower's costs and probes."""
    d = (fw or {}).get("ddp") or {}
    pl = m.get("host_bwd_probe_us") or m.get("host_probe_us")
    pt = (fw or {}).get("bwd_probe_us") or (fw or {}).get("probe_us")
    g = pair_gap(m, pair)
    if g is None or "hook_bucket_us" not in d or not pl or not pt:
        return None
    return g[0], (d["hook_bucket_us"] - d["bucket_us"]) * st.median(pl) / pt, g[1]


def baseline_twin(m):
    """validate_torch --baseline-twin's second framework-free runner less compute-only, medians of
    same-round differences: (step, forward, backward(), rest) in us, or None without it."""
    tw = (m.get("loop_probes") or {}).get("baseline twin")
    if not tw or not tw.get("times_us") or not tw.get("cpu_times_us"):
        return None
    co = m["compute_only_cpu_times_us"]
    return (paired(tw["times_us"], m["compute_only_times_us"]),) + tuple(
        paired([c[k] for c in tw["cpu_times_us"]], [c[k] for c in co]) for k in range(3))


def load_run(rundir):
    """RUNDIR/runs.json of a tools/validate_torch.py run whose rounds carry their CPU times (runs
    from 8 on: compute_only_cpu_times_us and every row's cpu_times_us); ValueError with one line
    saying why not."""
    path = torch_runs.find(os.path.join(rundir, "runs.json"))
    try:
        run = torch_runs.load(path)
    except (OSError, ValueError) as e:
        raise ValueError("%s: %s" % (path, getattr(e, "strerror", None) or e))
    if not isinstance(run, dict) or run.get("format") != "fusim-torch-validation-1" \
            or not run.get("models"):
        raise ValueError("%s: not a run of tools/validate_torch.py with models" % path)
    for m in run["models"]:
        if "compute_only_cpu_times_us" not in m or any("cpu_times_us" not in r for r in m["rows"]):
            raise ValueError("%s: %s: no per-round CPU times (runs before 8 did not record them)"
                             % (path, m.get("workload")))
    return run


def report(rundir, run):
    """The report's text for RUNDIR, whose runs.json load_run gave as run."""
    fw = run.get("framework_costs") or {}
    out = ["threads (tower probes: main %s us, autograd %s us)"
           % (fw.get("probe_us"), fw.get("bwd_probe_us"))]
    for m in run["models"]:
        c = m["compute_only_cpu_times_us"]
        f, b, o = ([x[k] for x in c] for k in range(3))
        pm, pb = m.get("host_probe_us") or [], m.get("host_bwd_probe_us") or []
        out.append("  %-30s r(fwd,opt) %5.2f r(fwd,bwd) %5.2f r(fwd,main probe) %5.2f "
                   "r(bwd,autograd probe) %5.2f  probes main %s autograd %s"
                   % (m["workload"], corr(f, o), corr(f, b), corr(f, pm), corr(b, pb),
                      "%.2f" % st.median(pm) if pm else "-", "%.2f" % st.median(pb) if pb else "-"))
    out.append("noise: |difference of medians - median of same-round differences| / plan time")
    for m in run["models"]:
        co = m["compute_only_times_us"]
        v = [abs(r["measured_us"] - m["compute_only_us"] - paired(r["times_us"], co))
             / r["measured_us"] for r in m["rows"]]
        out.append("  %-30s median %.2f%% max %.2f%%" % (m["workload"], 100 * st.median(v),
                                                       100 * max(v)))
    twins = [(m["workload"], baseline_twin(m)) for m in run["models"] if baseline_twin(m)]
    if twins:
        out.append("baseline: a second framework-free runner less compute-only (same-round "
                   "medians, us): step, forward, backward(), rest")
        out += ["  %-30s %+7.0f %+7.0f %+7.0f %+7.0f" % ((w,) + t) for w, t in twins]
    out.append("ddp (copy mode): backward() CPU over compute-only against buckets")
    for m in run["models"]:
        line = ddp_line(m)
        if line is None:
            continue
        per_param, slope, res = line
        out.append("  %-30s per parameter %s us, per bucket %.1f us; residuals %s"
                   % (m["workload"], "%.1f" % per_param if per_param is not None else "?", slope,
                      ", ".join("%s (%d) %+.0f" % r for r in res)))
    out.append("hooks: backward() CPU over compute-only, line through per tensor and 25 MiB")
    for m in run["models"]:
        line = hooks_line(m)
        if line is not None:
            out.append("  %-30s per bucket %.1f us, per parameter %.1f us; 4 MiB (%d buckets) "
                       "residual %+.0f us" % ((m["workload"],) + line))
    out.append("offload: DDP's offload comm hook per bucket over its default all-reduce (4 MiB, "
               "same buckets, backward() CPU paired) | the tower's difference, carried")
    for m in run["models"]:
        g = offload_gap(m, fw)
        if g is not None:
            out.append("  %-30s %7.1f us | %6.1f us (%d buckets)" % ((m["workload"],) + g))
    out.append("spacing: per bucket, the offload comm hook over the default all-reduce, and the "
               "hook pattern's issue inside backward over after it, against the buckets' spacing "
               "(backward() CPU per bucket): where, buckets, spacing us, us per bucket")
    metas = {}
    for m in run["models"]:
        try:
            with open(os.path.join(rundir, "wl_%s.json" % m["workload"])) as f:
                metas[m["workload"]] = json.load(f).get("meta", {})
        except (OSError, ValueError):
            metas[m["workload"]] = {}
        fm = metas[m["workload"]].get("framework_on_model") or {}
        isp = fm.get("issue_spacing") or {}
        for what, sp, key, skip in (("offload", offload_spacing(m, fm), "ddp_offload", 1),
                                    ("hooks", hooks_spacing(m), "hooks", 0)):
            # the capture's spacing variants (from session 24 on) beside the loop's; offload's
            # first (a bucket per parameter) is offload_spacing's own "model" point already
            sp = sp + [("model", p_[0], p_[1], p_[2]) for p_ in isp.get(key, [])[skip:]]
            if sp:
                out.append("  %-30s %-7s %s" % (m["workload"], what, " | ".join(
                    "%s %d: %.0f us apart, %.1f us" % x for x in sp)))
    out.append("model: per-parameter costs on the model | the loop's lines | the tower's; "
               "capture's held pass short; launches fwd/bwd/opt")
    tw = (fw.get("ddp") or {}), (fw.get("hooks") or {})
    for m in run["models"]:
        meta = metas[m["workload"]]
        if not meta:
            continue
        fm, dl, hl = meta.get("framework_on_model"), ddp_line(m), hooks_line(m)
        la = meta.get("launches")
        out.append("  %-30s ddp copy %s | %s | %s; hook %s | %s | %s; short %s; launches %s"
                   % (m["workload"],
                      "%.1f" % (fm["param_us"] + fm["copy_us"]) if fm else "-",
                      "%.1f" % dl[0] if dl and dl[0] is not None else "-",
                      "%.1f" % (tw[0].get("param_us", 0) + tw[0].get("copy_us", 0)) if tw[0] else "-",
                      "%.1f" % fm["hook_us"] if fm else "-",
                      "%.1f" % hl[1] if hl else "-",
                      "%.1f" % tw[1]["hook_us"] if "hook_us" in tw[1] else "-",
                      (meta.get("host_capture") or {}).get("sleep_too_short", "-"),
                      "%d/%d/%d" % (la["fwd"], la["bwd"], la["opt"]) if la else "-"))
    if any(m.get("blocked") for m in run["models"]):
        out.append("blocked: overhead / d fwd CPU / d bwd CPU, interleaved | in a row")
        for m in run["models"]:
            bl = m.get("blocked")
            if not bl:
                continue
            co = bl["compute-only"]
            bt = st.median(co["times_us"])
            bf, bb = (st.median(x[k] for x in co["cpu_times_us"]) for k in (0, 1))
            icf, icb = m["compute_only_cpu_fwd_bwd_rest_us"][:2]
            out.append("  %s (compute-only %.0f | %.0f us)" % (m["workload"], m["compute_only_us"], bt))
            for r in m["rows"]:
                b2 = bl.get(r["plan_label"])
                if not b2:
                    continue
                out.append("    %-26s %6.0f %6.0f %6.0f | %6.0f %6.0f %6.0f"
                           % (r["plan_label"], r["measured_us"] - m["compute_only_us"],
                              r["cpu_fwd_bwd_rest_us"][0] - icf, r["cpu_fwd_bwd_rest_us"][1] - icb,
                              st.median(b2["times_us"]) - bt,
                              st.median(x[0] for x in b2["cpu_times_us"]) - bf,
                              st.median(x[1] for x in b2["cpu_times_us"]) - bb))
    return "\n".join(out)


def main():
    if len(sys.argv) != 2 or \
            not os.path.isfile(torch_runs.find(os.path.join(sys.argv[1], "runs.json"))):
        print("usage: torch_run_report.py RUNDIR (a run of tools/validate_torch.py)", file=sys.stderr)
        return 64
    try:
        run = load_run(sys.argv[1])
    except ValueError as e:
        print("torch_run_report: %s" % e, file=sys.stderr)
        return 65
    print(report(sys.argv[1], run))
    return 0


if __name__ == "__main__":
    sys.exit(main())
