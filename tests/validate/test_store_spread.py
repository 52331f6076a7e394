#!/usr/bin/env python3
"""test_store_spread.py: tools/store_torch_validation.same_run_spread, the step spread the 95%
interval takes from the run's compute-only iteration (p5 and p95 over the median, minus 1), by
hand: median 1000 us, p5 950, p95 1200 -> -0.05 / +0.20; the capture's host and framework
spreads stay; p5 above the median (impossible for a p5, but a rounded file) clamps to 0; a
workload without a version-2 host block, or a run without p5/p95, is left as it is; the launch
queue's counts and capacity (the most any measurement rep reached); the buffer broadcast's fixed part taken from the run's tower; the
compute-only step's per-phase CPU times rescaled to the median of the rounds' sums (step_total)
and the host factors anchor() takes from them; whole_rise (the hook pattern's direct issue curve
priced whole, its rise times k); probe_spacing (the issue probe's curve, priced whole, for a
capture without curves of its own)."""
import copy
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.environ.get("FUSIM_SOURCE_ROOT",
                                               os.path.join(os.path.dirname(__file__), "..", "..")),
                                "tools"))
import store_torch_validation as st  # noqa: E402

fails = 0


def check(what, ok):
    global fails
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    fails += 0 if ok else 1


JIT = {"step_rel_lo": -0.3, "step_rel_hi": 0.4, "host_rel_lo": -0.1, "host_rel_hi": 0.2,
       "fw_rel_lo": -0.25, "fw_rel_hi": 0.75}
W = {"name": "w", "host": {"version": 2, "jitter": dict(JIT)}}
M = {"compute_only_us": 1000.0, "compute_only_p5_us": 950.0, "compute_only_p95_us": 1200.0}

w = copy.deepcopy(W)
st.same_run_spread(w, M)
j = w["host"]["jitter"]
check("step_rel_lo -0.05 (got %r)" % j["step_rel_lo"], abs(j["step_rel_lo"] + 0.05) < 1e-12)
check("step_rel_hi +0.20 (got %r)" % j["step_rel_hi"], abs(j["step_rel_hi"] - 0.20) < 1e-12)
check("host and framework spreads kept", all(j[k] == JIT[k] for k in
                                             ("host_rel_lo", "host_rel_hi", "fw_rel_lo", "fw_rel_hi")))
w = copy.deepcopy(W)
st.same_run_spread(w, dict(M, compute_only_p5_us=1001.0))
check("a p5 above the median clamps to 0", w["host"]["jitter"]["step_rel_lo"] == 0.0)
for label, wl, m in (("no host block", {"name": "w"}, M),
                     ("host block v1", {"name": "w", "host": {"hook_us": 3, "issue_us": 4}}, M),
                     ("run without p5/p95", copy.deepcopy(W), {"compute_only_us": 1000.0})):
    before = copy.deepcopy(wl)
    st.same_run_spread(wl, m)
    check(label + ": unchanged", wl == before)
LQ = {"queue": [{"kind": "kernel", "depth": 77, "reps": [1, 1021, 77]},
                {"kind": "copy", "depth": 1021, "reps": [1021, 1021, 1021]}],
      "models": {"resnet50:64": {"fwd": 342, "bwd": 576, "opt": 9, "cpu_us": [[1, 2, 3]]}}}
W = {"name": "w", "host": {"version": 2}}
M = {"model": "resnet50", "batch": 64}

w = copy.deepcopy(W)
got = st.launch_queue(w, M, {}, LQ)
check("file's counts and copy depth (got %r)" % (got,),
      w["host"].get("launches") == {"fwd": 342.0, "bwd": 576.0, "opt": 9.0}
      and w["host"].get("queue_depth") == 1021)
w = copy.deepcopy(W)
w["meta"] = {"launches": {"fwd": 10, "bwd": 20, "opt": 3, "cpu_us": []}}
run = {"queue_depth": [{"kind": "copy", "depth": 900, "reps": [900]},
                       {"kind": "kernel", "depth": 5, "reps": [5]}]}
st.launch_queue(w, M, run, LQ)
check("capture's counts, run's copy depth",
      w["host"]["launches"] == {"fwd": 10.0, "bwd": 20.0, "opt": 3.0}
      and w["host"]["queue_depth"] == 900)
# The capacity is the most any rep reached: a rep reads short where the host itself was slow
# (run 27's copies 215 / 154 / 1021, median 215; kernels 1018 / 1021 / 1021): 1021.
w = copy.deepcopy(W)
w["meta"] = {"launches": {"fwd": 10, "bwd": 20, "opt": 3, "cpu_us": []}}
run27 = {"queue_depth": [{"kind": "copy", "depth": 215, "reps": [215, 154, 1021]},
                         {"kind": "kernel", "depth": 1021, "reps": [1018, 1021, 1021]}]}
st.launch_queue(w, M, run27, None)
check("queue capacity: the most any rep reached (got %r)" % w["host"].get("queue_depth"),
      w["host"].get("queue_depth") == 1021)
w = copy.deepcopy(W)
w["meta"] = {"launches": {"fwd": 10, "bwd": 20, "opt": 3, "cpu_us": []}}
st.launch_queue(w, M, {"queue_depth": [{"kind": "copy", "depth": 640}]}, None)
check("an entry without reps: its depth (got %r)" % w["host"].get("queue_depth"),
      w["host"].get("queue_depth") == 640)
for label, wl, m, rn, lq in (("another batch", copy.deepcopy(W), dict(M, batch=32), {}, LQ),
                             ("no depth", copy.deepcopy(W), M, {}, dict(LQ, queue=[])),
                             ("no file, no capture counts", copy.deepcopy(W), M, {}, None),
                             ("no host block", {"name": "w"}, M, {}, LQ)):
    before = copy.deepcopy(wl)
    r = st.launch_queue(wl, m, rn, lq)
    check(label + ": unchanged", r is None and wl == before)
# The buffer broadcast's fixed part, from the run's tower where the capture lacks it: set (a
# negative intercept as 0), kept where the block has its own, not added without DDP's costs.
FC = {"other": {"broadcast_fixed_us": 202.854}}
w = {"host": {"version": 2, "ddp": {"forward_us": 65.0}}}
check("broadcast fixed part set (got %r)" % st.broadcast_fixed(w, FC),
      w["host"]["ddp"]["broadcast_us"] == 202.854)
w = {"host": {"version": 2, "ddp": {"forward_us": 65.0}}}
st.broadcast_fixed(w, {"other": {"broadcast_fixed_us": -12.0}})
check("negative intercept -> 0", w["host"]["ddp"]["broadcast_us"] == 0.0)
w = {"host": {"version": 2, "ddp": {"broadcast_us": 7.0}}}
check("the block's own kept", st.broadcast_fixed(w, FC) is None and w["host"]["ddp"]["broadcast_us"] == 7.0)
for label, wl, fc in (("no DDP costs", {"host": {"version": 2}}, FC),
                      ("no tower", {"host": {"version": 2, "ddp": {}}}, None)):
    before = copy.deepcopy(wl)
    check(label + ": unchanged", st.broadcast_fixed(wl, fc) is None and wl == before)
# step_total, by hand: three rounds [forward, backward(), rest] of 10/10/1, 20/40/1, 30/20/1: the
# phases' medians 20/20/1 add up to 41, the rounds' sums 21/61/51 have the median 51, so each
# phase is scaled by 51/41 (the host-bound step is its rounds' sums, not its phases' medians).
RM = {"compute_only_cpu_fwd_bwd_rest_us": [20.0, 20.0, 1.0],
      "compute_only_cpu_times_us": [[10.0, 10.0, 1.0], [20.0, 40.0, 1.0], [30.0, 20.0, 1.0]]}
got = st.step_total(RM)
want = [20 * 51 / 41, 20 * 51 / 41, 51 / 41]
check("step_total scales the phases to the rounds' median sum 51 (got %r)" % (got,),
      all(abs(a - b) < 1e-9 for a, b in zip(got, want)) and abs(sum(got) - 51) < 1e-9)
m = {"compute_only_cpu_fwd_bwd_rest_us": [20.0, 20.0, 1.0]}
check("step_total without the rounds: the medians", st.step_total(m) == [20.0, 20.0, 1.0])
# anchor(): the per-phase host factors are step_total's over the capture's CPU times (here
# 40 / 50 / 2 us: 20 x 51/41 / 40, 20 x 51/41 / 50, 51/41 / 2); a stand-in fusim whose compute-only
# step is always 0 sends the GPU factor to the bisection's top (4). The old factors, the medians'
# own (0.5 / 0.4 / 0.5), fail this.
with tempfile.TemporaryDirectory() as tmp:
    fake = os.path.join(tmp, "fusim")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\necho '{\"compute_us\": 0}'\n")
    os.chmod(fake, 0o755)
    wl = {"name": "w", "fwd_us": 1.0, "bwd_us": 1.0, "opt_us": 1.0, "grads": [],
          "host": {"version": 2, "fwd_cpu_us": 40.0, "bwd_cpu_us": 50.0, "opt_cpu_us": 2.0,
                   "fwd_gpu_us": 1.0, "bwd_gpu_us": 1.0, "opt_gpu_us": 1.0, "grad_cpu_us": [],
                   "grad_gpu_us": []}}
    hf, gf = st.anchor(fake, wl, dict(RM, compute_only_us=60.0), tmp, [], True)
    k = 51 / 41
    check("anchor's host factors from step_total (got %r)" % (hf,),
          all(abs(a - b) < 1e-9 for a, b in zip(hf, (20 * k / 40, 20 * k / 50, k / 2))))
    check("GPU factor at the bisection's top (got %r)" % gf, abs(gf - 4.0) < 1e-3)
    hf, _ = st.anchor(fake, wl, dict(RM, compute_only_us=60.0), tmp, [], True, phases=False)
    check("one factor for all phases: (20 + 20) / (40 + 50) (got %r)" % hf,
          abs(hf - 40 / 90) < 1e-12)
# whole_rise(): the curves timed call by call (source "direct"), the hook pattern's and DDP's
# offload hook's, rise k times as steeply over their first point: [[80, 50], [330, 60], [1300,
# 90]] at k 2 -> 50, 70, 130; a curve of whole-backward differences and k 1 are left as they are
# (the store before session 26 priced the calls' rise alone; before session 27 the offload's).
CURVE = [[80.0, 50.0], [330.0, 60.0], [1300.0, 90.0]]
wl = {"host": {"issue_spacing": {"hooks": copy.deepcopy(CURVE),
                                 "ddp_offload": copy.deepcopy(CURVE)}},
      "meta": {"framework_on_model": {"issue_spacing_source": {"hooks": "direct",
                                                               "ddp_offload": "direct"}}}}
w = copy.deepcopy(wl)
st.whole_rise(w, 2.0)
check("whole_rise: the direct hook curve's rise doubled (got %r)" % w["host"]["issue_spacing"]["hooks"],
      w["host"]["issue_spacing"]["hooks"] == [[80.0, 50.0], [330.0, 70.0], [1300.0, 130.0]])
check("whole_rise: the direct offload curve's rise doubled (got %r)" % w["host"]["issue_spacing"]["ddp_offload"],
      w["host"]["issue_spacing"]["ddp_offload"] == [[80.0, 50.0], [330.0, 70.0], [1300.0, 130.0]])
w = copy.deepcopy(wl)
w["meta"]["framework_on_model"]["issue_spacing_source"]["hooks"] = "backward"
st.whole_rise(w, 2.0)
check("whole_rise: a whole-backward curve left", w["host"]["issue_spacing"]["hooks"] == CURVE)
w = copy.deepcopy(wl)
st.whole_rise(w, 1.0)
check("whole_rise: k 1 leaves the calls' rise", w["host"]["issue_spacing"]["hooks"] == CURVE)
w = {"host": {}}
st.whole_rise(w, 2.0)
check("whole_rise: no curve, nothing added", w == {"host": {}})
# probe_spacing(): a capture that did not time its issues gets the issue probe's curve, priced
# whole and counted from its own dense spacing. With the probe's extra [[50, 0], [250, 20],
# [1050, 60]] and a workload of 4 gradients whose backward() CPU is 600 us (dense 150 us apart,
# where the extra reads 20 x 100 / 200 = 10), at k 2: the hook pattern's curve at hooks.bucket_us
# 40 is [[150, 40], [250, 40 + 2 x (20 - 10) = 60], [1050, 40 + 2 x (60 - 10) = 140]]; DDP's
# offload at hook_bucket_us 100 - bucket_us 30 = 70: [[150, 70], [250, 90], [1050, 170]]. A
# curve the capture has is kept (the other is still given); no version-2 host block, nothing.
# The old store has no probe_spacing (it priced such issues at their per-bucket cost).
saved = st.torch_modelcost.ISSUE_COLD_EXTRA
st.torch_modelcost.ISSUE_COLD_EXTRA = [[50.0, 0.0], [250.0, 20.0], [1050.0, 60.0]]
PW = {"grads": [{}, {}, {}, {}],
      "host": {"version": 2, "bwd_cpu_us": 600.0, "hooks": {"bucket_us": 40.0},
               "ddp": {"bucket_us": 30.0, "hook_bucket_us": 100.0}}}
w = copy.deepcopy(PW)
done = st.probe_spacing(w, 2.0)
isp = w["host"].get("issue_spacing", {})
check("probe_spacing: the hook pattern's curve by hand (got %r)" % isp.get("hooks"),
      isp.get("hooks") == [[150.0, 40.0], [250.0, 60.0], [1050.0, 140.0]])
check("probe_spacing: DDP's offload curve by hand (got %r)" % isp.get("ddp_offload"),
      isp.get("ddp_offload") == [[150.0, 70.0], [250.0, 90.0], [1050.0, 170.0]])
check("probe_spacing: both named (got %r)" % done, sorted(done) == ["ddp_offload", "hooks"])
w = copy.deepcopy(PW)
w["host"]["issue_spacing"] = {"hooks": copy.deepcopy(CURVE)}
st.probe_spacing(w, 2.0)
check("probe_spacing: the capture's own curve kept, the missing one given",
      w["host"]["issue_spacing"]["hooks"] == CURVE and
      w["host"]["issue_spacing"].get("ddp_offload") == [[150.0, 70.0], [250.0, 90.0], [1050.0, 170.0]])
# ddp (--ddp-spacing): DDP's default all-reduce as well, at bucket_us 30: [[150, 30], [250, 50],
# [1050, 130]]; without it no "ddp" curve (the first call above named only the two).
w = copy.deepcopy(PW)
st.probe_spacing(w, 2.0, ddp=True)
check("probe_spacing ddp: DDP's all-reduce curve by hand (got %r)" % w["host"]["issue_spacing"].get("ddp"),
      w["host"]["issue_spacing"].get("ddp") == [[150.0, 30.0], [250.0, 50.0], [1050.0, 130.0]])
# The store's defaults (session 29): DDP's curve is priced unless --no-ddp-spacing, at the default
# k 2.11: [[150, 30], [250, 30 + 2.11 x (20 - 10) = 51.1], [1050, 30 + 2.11 x (60 - 10) = 135.5]].
# The old store left it to --ddp-spacing (no "ddp" curve by default).
for argv, want in (([], [[150.0, 30.0], [250.0, 51.1], [1050.0, 135.5]]), (["--no-ddp-spacing"], None)):
    a = st.arg_parser().parse_args(["RUNDIR"] + argv)
    w = copy.deepcopy(PW)
    st.probe_spacing(w, a.whole_over_calls, a.ddp_spacing)
    got = w["host"]["issue_spacing"].get("ddp")
    check("store defaults %r: DDP's all-reduce curve by hand (got %r)" % (argv, got), got == want)
w = copy.deepcopy(PW)
w["host"]["version"] = 1
check("probe_spacing: no version-2 host block, nothing (got %r)" % st.probe_spacing(w, 2.0),
      st.probe_spacing(w, 2.0) == [] and "issue_spacing" not in w["host"])
# a comm hook measured below DDP's bucket (hook_bucket_us 20 < bucket_us 30, a tower's noise):
# no offload curve (its first point would be -10, which fusim refuses), the hook pattern's given
w = copy.deepcopy(PW)
w["host"]["ddp"]["hook_bucket_us"] = 20.0
done = st.probe_spacing(w, 2.0)
check("probe_spacing: a negative offload excess, no offload curve (got %r)" % done,
      done == ["hooks"] and "ddp_offload" not in w["host"]["issue_spacing"])
st.torch_modelcost.ISSUE_COLD_EXTRA = saved
# --whole-over-calls below 0 (a curve falling under its dense issue, which fusim refuses only
# after the anchor's first predict) or not a number: one line, exit 64, before the run is read
tool = os.path.join(os.environ.get("FUSIM_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", "..")),
                    "tools", "store_torch_validation.py")
for k in ("-1", "nan"):
    r = subprocess.run([sys.executable, tool, "/nonexistent-run", "--whole-over-calls", k],
                       capture_output=True, text=True)
    check("--whole-over-calls %s: exit 64, one line (got %d: %r)" % (k, r.returncode, r.stderr),
          r.returncode == 64 and len(r.stderr.strip().splitlines()) == 1 and "--whole-over-calls" in r.stderr)
# jitter_shift() (--plan-jitter): a plan's overhead of 100 us jittering by 0.1 of itself (sd 10 us)
# on compute-only rounds 100 / 100 / 130 us, with the normal's two quantiles z = -/+0.674490 (n 2):
# the pooled 93.255, 106.745, 93.255, 106.745, 123.255, 136.745 have the median 106.745, 6.745 above
# compute-only's 100 (the slow round pulls the median up); on symmetric rounds 100 / 110 / 120 the
# pooled median is 110, no shift. framework_rel_sd: p5 / p95 at -0.329 / +0.329 are 0.2 sd (2 x
# 1.645 sd apart); without them 0.
if hasattr(st, "jitter_shift"):
    got = st.jitter_shift([100.0, 100.0, 130.0], 100.0, 0.1, n=2)
    check("jitter_shift: skewed rounds by hand 6.745 (got %r)" % got, abs(got - 6.744898) < 1e-5)
    got = st.jitter_shift([100.0, 110.0, 120.0], 100.0, 0.1, n=2)
    check("jitter_shift: symmetric rounds, no shift (got %r)" % got, abs(got) < 1e-9)
    check("jitter_shift: no spread, no shift", st.jitter_shift([100.0, 100.0, 130.0], 100.0, 0.0) == 0)
    got = st.framework_rel_sd({"fw_rel_lo": -0.329, "fw_rel_hi": 0.329})
    check("framework_rel_sd: 0.2 by hand (got %r)" % got, abs(got - 0.2) < 1e-12)
    check("framework_rel_sd: none given, 0", st.framework_rel_sd({}) == 0 and st.framework_rel_sd(None) == 0)
else:
    check("jitter_shift: not in this store", False)
# --plan-jitter with the database: one line, exit 64 (fusim's stored prediction would lack the shift)
r = subprocess.run([sys.executable, tool, "/nonexistent-run", "--plan-jitter"], capture_output=True,
                   text=True)
check("--plan-jitter without --no-store: exit 64, one line (got %d: %r)" % (r.returncode, r.stderr),
      r.returncode == 64 and len(r.stderr.strip().splitlines()) == 1 and "--no-store" in r.stderr)
print("%d failed" % fails)
sys.exit(1 if fails else 0)
