#!/usr/bin/env python3
"""test_modelcost.py: tools/torch_modelcost.py's estimator and what store_torch_validation does
with its costs, on hand-made data (no torch, no GPU); torch_trace.summarize and torch_launchq's pure parts by hand.

Every round's backward() CPU time is built from known costs on top of a framework-free time that
drifts from round to round (the same for every variant of a round, so the per-round differences
cancel it): P = 50 parameters, DDP per parameter 30 us with views, +12 us with copies, finalize
140 us; the hook pattern 45 us per hook and 70 us for its one bucket. estimate() must give them
back to 1e-3 us; one round slowed for the framework variants must move them by under 2%; a
variant that costs nothing beyond its fixed part gives ~0 and apply() then keeps the tower's.
store_torch_validation carries them to a loop whose framework-free backward() CPU is 1.5x the
one measured beside them: the costs x1.5, the others untouched. DDP's forward measured whole on
the model (see the case below) replaces the tower's three parts and is carried by forward's own
factor.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import store_torch_validation as st  # noqa: E402
import torch_modelcost as mc  # noqa: E402
import torch_trace  # noqa: E402

P, PARAM, COPY, FIN, HOOK, HKB = 50, 30.0, 12.0, 140.0, 45.0, 70.0
FIXED = {"finalize_us": FIN, "hooks_bucket_us": HKB}
fails = 0


def check(what, ok):
    global fails
    print("%s: %s" % ("ok" if ok else "FAIL", what))
    fails += not ok


def make(rounds=15, slow=None, hook=HOOK):
    bwd = {v: [] for v in mc.VARIANTS}
    for r in range(rounds):
        base = 9000.0 + 400.0 * ((r * 7) % 5)
        k = 1.3 if r == slow else 1.0
        bwd["none"].append(base)
        bwd["ddpv_1"].append(base + k * (FIN + PARAM * P))
        bwd["ddpc_h"].append(base + k * (FIN + (PARAM + COPY) * P))
        bwd["hk_1"].append(base + k * (HKB + hook * P))
    return bwd


e = mc.estimate(make(), P, FIXED)
check("param_us %.3f = 30" % e["param_us"], abs(e["param_us"] - PARAM) < 1e-3)
check("copy_us %.3f = 12" % e["copy_us"], abs(e["copy_us"] - COPY) < 1e-3)
check("hook_us %.3f = 45" % e["hook_us"], abs(e["hook_us"] - HOOK) < 1e-3)
check("bwd_cpu_us %.1f = median framework-free 9800" % e["bwd_cpu_us"], e["bwd_cpu_us"] == 9800.0)
e2 = mc.with_ci(make(slow=4), P, FIXED)
check("one slow round: param %.3f within 2%%" % e2["param_us"], abs(e2["param_us"] / PARAM - 1) < 0.02)
check("bootstrap brackets param %s" % e2["ci"]["param_us"],
      e2["ci"]["param_us"][0] <= PARAM <= e2["ci"]["param_us"][1] * 1.3)

# Variants in groups where their copies do not all fit the GPU (measure(): variant_groups, rebase).
# fit 3 of the 4 VARIANTS: "none" in both groups, ddpv_1 and ddpc_h (paired by the copy cost)
# together; fit 4 or more: one group; fewer than 2: None (not measured).
check("variant_groups fit 3: %s" % mc.variant_groups(mc.VARIANTS, 3),
      mc.variant_groups(mc.VARIANTS, 3) == [("none", "ddpv_1", "ddpc_h"), ("none", "hk_1")])
check("variant_groups fit 4: one group", mc.variant_groups(mc.VARIANTS, 4) == [mc.VARIANTS])
check("variant_groups fit 1: None", mc.variant_groups(mc.VARIANTS, 1) is None)
check("variant_groups fit 2: each variant beside none",
      mc.variant_groups(mc.VARIANTS, 2) == [("none", "ddpv_1"), ("none", "ddpc_h"), ("none", "hk_1")])
# The same costs measured in two groups run one after the other, the second on a host 1.2-1.5x
# slower, its speed moving round by round (every time of its round, the costs too, that many
# times the first group's): rebase() must give estimate() the costs to 1e-3 us (each variant
# carried to the first group's speed by the two groups' framework-free steps of its round).
one = make()
g1 = {v: one[v] for v in ("none", "ddpv_1", "ddpc_h")}
g2 = {"none": [], "hk_1": []}
for r in range(len(one["none"])):
    k = 1.2 + 0.1 * ((r * 3) % 4)
    g2["none"].append(k * one["none"][r])
    g2["hk_1"].append(k * (one["none"][r] + HKB + HOOK * P))
eg = mc.estimate(mc.rebase([g1, g2]), P, FIXED)
check("rebase: param %.3f, copy %.3f, hook %.3f as measured in one group"
      % (eg["param_us"], eg["copy_us"], eg["hook_us"]),
      all(abs(eg[k] - e[k]) < 1e-3 for k in ("param_us", "copy_us", "hook_us")))
check("rebase: the framework-free step is the first group's (9800)", eg["bwd_cpu_us"] == 9800.0)
check("rebase: rounds cut to the fewest (3)",
      len(mc.rebase([{"none": [1, 2, 3, 4], "a": [2, 3, 4, 5]}, {"none": [1, 1, 1], "b": [3, 3, 3]}])["b"]) == 3)
# How many copies fit: 90% of 80 GiB free less a 20 GiB step, 10 GiB a copy -> 5 (52 GiB / 10);
# a step larger than the room -> 0.
GiB = 2**30
check("runners_that_fit 80 GiB free, 20 GiB step, 10 GiB a copy: 5",
      mc.runners_that_fit(80 * GiB, 20 * GiB, 10 * GiB) == 5)
check("runners_that_fit: a step larger than the room: 0", mc.runners_that_fit(10 * GiB, 20 * GiB, GiB) == 0)


class _T:   # a tensor as runner_bytes reads it
    def __init__(self, n, size=4, req=True):
        self.n, self.size, self.requires_grad, self.is_cuda = n, size, req, True

    def numel(self):
        return self.n

    def element_size(self):
        return self.size


class _M:
    def __init__(self, ps):
        self.ps = ps

    def parameters(self):
        return iter(self.ps)


class _O:
    def __init__(self, state):
        self.state = state


# 1000 trainable fp32 parameters (4000 bytes) and 50 frozen (200): the copy of all of them
# (4200), the trainable ones' gradients and a bucket (2 x 4000), AdamW's two fp32 moments (8000)
# and its step count on the CPU (not counted) -> 20200 bytes; with no state yet the SGD
# momentum's 4000 stands in -> 16200.
mdl = _M([_T(600), _T(400), _T(50, req=False)])
adam = _O({0: {"exp_avg": _T(600), "exp_avg_sq": _T(600), "step": 3},
           1: {"exp_avg": _T(400), "exp_avg_sq": _T(400), "step": 3}})
check("runner_bytes AdamW: %d = 20200" % mc.runner_bytes(mdl, adam), mc.runner_bytes(mdl, adam) == 20200)
check("runner_bytes no state yet: %d = 16200" % mc.runner_bytes(mdl, _O({})),
      mc.runner_bytes(mdl, _O({})) == 16200)

# apply(): replaced where the bootstrap's low end is positive; a zero cost keeps the tower's.
e3 = mc.with_ci(make(hook=0.0), P, FIXED)
host = {"ddp": {"param_us": 11.0, "copy_us": 5.0, "bucket_us": 44.0},
        "hooks": {"hook_us": 29.0, "bucket_us": HKB}}
done = mc.apply(host, e3)
check("apply replaces %s" % done, done == ["ddp.param_us", "ddp.copy_us"])
check("hook of cost ~0 keeps the tower's 29", host["hooks"]["hook_us"] == 29.0)
check("param_us now the model's", abs(host["ddp"]["param_us"] - PARAM) < 1e-3)

# apply() leaves the calibration's dicts alone (one calibration serves every model of a run).
shared = {"param_us": 11.0, "copy_us": 5.0}
h2 = {"ddp": shared, "hooks": {"hook_us": 29.0}}
mc.apply(h2, e3)
check("calibration's dict untouched", shared == {"param_us": 11.0, "copy_us": 5.0})

# store: the workload as capture writes it, and a loop 1.5x slower in framework-free backward().
fm = dict(e3, replaced=done, model_independent={"ddp": {"param_us": 11.0, "copy_us": 5.0,
                                                        "bucket_us": 44.0},
                                                "hooks": {"hook_us": 29.0, "bucket_us": HKB}})
wl = {"host": host, "meta": {"framework_on_model": fm}}
ws = {"host": {"ddp": dict(host["ddp"], bucket_us=99.0), "hooks": dict(host["hooks"])}}
m = {"compute_only_cpu_fwd_bwd_rest_us": [5000.0, 1.5 * fm["bwd_cpu_us"], 300.0]}
f = st.model_cost_factor(ws, wl, m)
check("factor %.4f = 1.5" % f, abs(f - 1.5) < 1e-9)
check("param_us carried x1.5", abs(ws["host"]["ddp"]["param_us"] - 1.5 * PARAM) < 2e-3)
check("bucket_us (tower's, probe-scaled) untouched", ws["host"]["ddp"]["bucket_us"] == 99.0)
check("no host scale: factor 1", st.model_cost_factor(ws, wl, m, host_scale=False) == 1.0)
check("older workload: no factor", st.model_cost_factor(ws, {"host": host}, m) is None)
st.tower_costs(wl)
check("--tower-costs puts back 11 / 5", host["ddp"]["param_us"] == 11.0 and host["ddp"]["copy_us"] == 5.0)

# DDP's forward on the model: forward CPU 5000 + 300 k us a round (drifting alike for every
# variant), the DDP variants 1200 us more (one round of ddpc_h 3000 more: a stall); the median
# over rounds of their mean minus the framework-free one's is 1200, the framework-free median
# 5600; the bootstrap brackets it above 0, so apply() puts it in place of the tower's forward,
# per-buffer and broadcast parts; store carries it by the loop's forward CPU time (1.25x).
fwd = {v: [] for v in mc.VARIANTS}
for r in range(15):
    base = 5000.0 + 300.0 * ((r * 7) % 5)
    fwd["none"].append(base)
    fwd["ddpv_1"].append(base + 1200.0)
    fwd["ddpc_h"].append(base + 1200.0 + (3000.0 if r == 3 else 0.0))
    fwd["hk_1"].append(base)
df = mc.forward_with_ci(fwd)
check("DDP forward %.1f = 1200 (one stalled round)" % df["forward_us"], abs(df["forward_us"] - 1200) < 1e-9)
check("framework-free forward median %.1f = 5600" % df["fwd_cpu_us"], df["fwd_cpu_us"] == 5600.0)
check("bootstrap %s above 0, around 1200" % df["ci"], 0 < df["ci"][0] <= 1200 <= df["ci"][1] <= 2700)
e4 = dict(e3, ddp_forward=df)
h4 = {"ddp": {"param_us": 11.0, "copy_us": 5.0, "forward_us": 250.0, "buffer_us": 20.0,
              "broadcast_us": 400.0}, "hooks": {"hook_us": 29.0}}
tower4 = {"ddp": dict(h4["ddp"]), "hooks": dict(h4["hooks"])}
done4 = mc.apply(h4, e4)
check("apply: DDP's forward whole, the tower's per-buffer and broadcast parts 0",
      e4["forward_replaced"] and h4["ddp"]["forward_us"] == 1200.0 and h4["ddp"]["buffer_us"] == 0
      and h4["ddp"]["broadcast_us"] == 0)
fm4 = dict(e4, replaced=done4, model_independent=tower4)
wl4 = {"host": h4, "meta": {"framework_on_model": fm4}}
ws4 = {"host": {"ddp": dict(h4["ddp"]), "hooks": dict(h4["hooks"])}}
m4 = {"compute_only_cpu_fwd_bwd_rest_us": [1.25 * 5600.0, fm4["bwd_cpu_us"], 300.0]}
st.model_cost_factor(ws4, wl4, m4)
check("store carries it by forward's factor: %.1f = 1500" % ws4["host"]["ddp"]["forward_us"],
      abs(ws4["host"]["ddp"]["forward_us"] - 1500.0) < 1e-9)
import torch_interval as ti  # noqa: E402
est4 = {"ddp": {"forward_us": [100.0, 400.0], "buffer_us": [10.0, 30.0]}, "hooks": {}}
check("the interval: the model's forward bounds, [0, 0] for the parts it replaced",
      ti.forward_bounds(est4, fm4) == ["forward_us", "buffer_us", "broadcast_us"]
      and est4["ddp"] == {"forward_us": df["ci"], "buffer_us": [0.0, 0.0],
                          "broadcast_us": [0.0, 0.0]})
check("... nothing where the forward was not replaced", ti.forward_bounds(est4, e3) == [])
e5 = dict(e3, ddp_forward=dict(df, ci=[-50.0, 900.0]))
h5 = {"ddp": {"forward_us": 250.0, "buffer_us": 20.0}}
mc.apply(h5, e5)
check("a forward the rounds cannot tell from 0 keeps the tower's", not e5["forward_replaced"]
      and h5["ddp"]["forward_us"] == 250.0 and h5["ddp"]["buffer_us"] == 20.0)
st.tower_costs(wl4)
check("--tower-costs puts back the tower's forward 250, buffer 20, broadcast 400",
      h4["ddp"]["forward_us"] == 250.0 and h4["ddp"]["buffer_us"] == 20.0
      and h4["ddp"]["broadcast_us"] == 400.0)

# The per-bucket variants (a bucket per parameter): DDP's bucket call 80 us, the hook pattern's
# bucket 110 us (the tower's fixed part for hk_1 was 70): d(ddpv_n) = FIN + 30 P + 80 (P - 1),
# d(hk_n) = (45 + 110) P. The estimates give them back, hook_us stays 45 (hk_1's fixed part is
# now the model's own 110, hk_1 built with it), and apply() puts both in the host block; the
# interval's bounds hold them.
BK, HBK = 80.0, 110.0
bb = make()
for r in range(15):
    base = bb["none"][r]
    bb["hk_1"][r] = base + HBK + HOOK * P
    bb.setdefault("ddpv_n", []).append(base + FIN + PARAM * P + BK * (P - 1))
    bb.setdefault("hk_n", []).append(base + (HOOK + HBK) * P)
eb = mc.with_ci(bb, P, FIXED)
check("per bucket: ddp %.3f = 80, hooks %.3f = 110, hook_us %.3f = 45"
      % (eb["ddp_bucket_us"], eb["hooks_bucket_us"], eb["hook_us"]),
      abs(eb["ddp_bucket_us"] - BK) < 1e-3 and abs(eb["hooks_bucket_us"] - HBK) < 1e-3
      and abs(eb["hook_us"] - HOOK) < 1e-3)
hb = {"ddp": {"param_us": 11.0, "copy_us": 5.0, "bucket_us": 51.0},
      "hooks": {"hook_us": 29.0, "bucket_us": 62.0}}
doneb = mc.apply(hb, eb)
check("apply puts the model's per-bucket costs in: %s" % doneb,
      "ddp.bucket_us" in doneb and "hooks.bucket_us" in doneb and hb["ddp"]["bucket_us"] == BK
      and hb["hooks"]["bucket_us"] == HBK)
import torch_interval as ti  # noqa: E402
mbb = ti.model_bounds(dict(eb, raw=bb, P=P, fixed=FIXED))
check("their bounds %s %s hold them" % (mbb["ddp"]["bucket_us"], mbb["hooks"]["bucket_us"]),
      mbb["ddp"]["bucket_us"][0] <= BK <= mbb["ddp"]["bucket_us"][1]
      and mbb["hooks"]["bucket_us"][0] <= HBK <= mbb["hooks"]["bucket_us"][1])
check("without the per-bucket variants: no per-bucket estimate", "ddp_bucket_us" not in e)
# --no-model-bucket-costs (tower_costs(buckets_only=True)): the tower's 51 and 62 per bucket
# back, both names out of the replaced list (so the interval takes the tower's bounds for them),
# the per-parameter costs still the model's
tower_b = {"ddp": {"param_us": 11.0, "copy_us": 5.0, "bucket_us": 51.0},
           "hooks": {"hook_us": 29.0, "bucket_us": 62.0}}
fmb = dict(eb, replaced=list(doneb), model_independent=tower_b)
wlb = {"host": hb, "meta": {"framework_on_model": fmb}}
st.tower_costs(wlb, buckets_only=True)
check("buckets only: per bucket 51 / 62 again, per parameter still %.3f / %.3f, replaced %s"
      % (hb["ddp"]["param_us"], hb["hooks"]["hook_us"], fmb["replaced"]),
      hb["ddp"]["bucket_us"] == 51.0 and hb["hooks"]["bucket_us"] == 62.0
      and abs(hb["ddp"]["param_us"] - PARAM) < 1e-3 and abs(hb["hooks"]["hook_us"] - HOOK) < 1e-3
      and not any(n.endswith(".bucket_us") for n in fmb["replaced"]) and "ddp.param_us" in fmb["replaced"])

# DDP's offload comm hook per bucket follows the per-bucket costs measured on the model: DDP's
# call 80 plus the hook pattern's issue 110 = 190 (the tower's 150 out); bounds [70, 95] + [100,
# 130] = [170, 225]; nothing moves where no per-bucket cost is the model's; apply() derives it
# at capture, and --no-model-bucket-costs puts the tower's 150 back with the other two.
hc = {"ddp": {"bucket_us": 80.0, "hook_bucket_us": 150.0}, "hooks": {"bucket_us": 110.0},
      "ci": {"ddp": {"bucket_us": [70.0, 95.0]}, "hooks": {"bucket_us": [100.0, 130.0]}}}
got = mc.comm_hook_bucket(hc, ["ddp.param_us", "hooks.bucket_us"])
check("comm hook per bucket %s = 80 + 110, bounds %s = [170, 225]"
      % (got, hc["ci"]["ddp"].get("hook_bucket_us")),
      got == 190.0 and hc["ddp"]["hook_bucket_us"] == 190.0
      and hc["ci"]["ddp"]["hook_bucket_us"] == [170.0, 225.0])
hc2 = {"ddp": {"bucket_us": 80.0, "hook_bucket_us": 150.0}, "hooks": {"bucket_us": 110.0}}
check("... no per-bucket cost on the model: the tower's 150 stays",
      mc.comm_hook_bucket(hc2, ["ddp.param_us"]) is None and hc2["ddp"]["hook_bucket_us"] == 150.0)
hb2 = {"ddp": {"param_us": 11.0, "copy_us": 5.0, "bucket_us": 51.0, "hook_bucket_us": 150.0},
       "hooks": {"hook_us": 29.0, "bucket_us": 62.0}}
done2 = mc.apply(hb2, eb)
check("apply at capture: %.3f = the model's 80 + 110" % hb2["ddp"]["hook_bucket_us"],
      abs(hb2["ddp"]["hook_bucket_us"] - (BK + HBK)) < 1e-3 and "ddp.hook_bucket_us" not in done2)
wlc = {"host": hb2, "meta": {"framework_on_model": dict(eb, replaced=list(done2), model_independent={
    "ddp": {"param_us": 11.0, "copy_us": 5.0, "bucket_us": 51.0, "hook_bucket_us": 150.0},
    "hooks": {"hook_us": 29.0, "bucket_us": 62.0}})}}
st.tower_costs(wlc, buckets_only=True)
check("--no-model-bucket-costs: the tower's comm hook 150 back", hb2["ddp"]["hook_bucket_us"] == 150.0)

# The comm hook measured on the model (ddpo_n, captures from session 23 on): the same buckets
# as ddpv_n, each 40 us dearer (the offload hook's call for the default all-reduce's), so
# d(ddpo_n) - d(ddpv_n) = 40 P and ddp.hook_bucket_us = 80 + 40 = 120; apply() puts it in as
# measured, the sum above no longer applies, and its bounds hold it beside DDP's bucket's.
bo = {v: list(x) for v, x in bb.items()}
bo["ddpo_n"] = [x + 40.0 * P for x in bb["ddpv_n"]]
eo = mc.with_ci(bo, P, FIXED)
check("comm hook on the model: %.3f = 120" % eo["ddp_hook_bucket_us"],
      abs(eo["ddp_hook_bucket_us"] - 120.0) < 1e-3)
ho = {"ddp": {"param_us": 11.0, "copy_us": 5.0, "bucket_us": 51.0, "hook_bucket_us": 150.0},
      "hooks": {"hook_us": 29.0, "bucket_us": 62.0}}
doneo = mc.apply(ho, eo)
check("apply: measured, not summed (%.3f, %s)" % (ho["ddp"]["hook_bucket_us"], doneo),
      "ddp.hook_bucket_us" in doneo and abs(ho["ddp"]["hook_bucket_us"] - 120.0) < 1e-3
      and mc.comm_hook_bucket(ho, doneo) is None)
mbo = ti.model_bounds(dict(eo, raw=bo, P=P, fixed=FIXED))
check("bounds for both DDP per-bucket costs: %s %s"
      % (mbo["ddp"].get("bucket_us"), mbo["ddp"].get("hook_bucket_us")),
      mbo["ddp"]["bucket_us"][0] <= BK <= mbo["ddp"]["bucket_us"][1]
      and mbo["ddp"]["hook_bucket_us"][0] <= 120.0 <= mbo["ddp"]["hook_bucket_us"][1])
check("a capture without ddpo_n: no comm-hook estimate", "ddp_hook_bucket_us" not in eb)

# The same variants run as probes among the validation loop's iterations (validate_torch
# PROBES, torch_modelcost.from_loop): the loop's compute-only iteration is the framework-free
# step; every round [forward, backward(), rest]. They give the same costs and forward back, and
# store_torch_validation.loop_costs puts them in place of the capture's (whose param_us was
# 11 here), with nothing to carry: the factor is 1 (the same compute-only backward()).
bw = make()
probes = {lab: {"cpu_times_us": [[fwd[v][r], bw[v][r], 300.0] for r in range(15)]}
          for v, lab in mc.LOOP_PROBES.items()}
lo = mc.from_loop(probes, P, FIXED)
check("from the loop: param %.3f, copy %.3f, hook %.3f, forward %.1f"
      % (lo["param_us"], lo["copy_us"], lo["hook_us"], lo["ddp_forward"]["forward_us"]),
      abs(lo["param_us"] - PARAM) < 1e-3 and abs(lo["copy_us"] - COPY) < 1e-3
      and abs(lo["hook_us"] - HOOK) < 1e-3 and abs(lo["ddp_forward"]["forward_us"] - 1200) < 1e-9)
check("... a probe missing: None",
      mc.from_loop({k: v for k, v in probes.items() if k != "probe hk_1"}, P, FIXED) is None)
h6 = {"ddp": {"param_us": 11.0, "copy_us": 5.0, "forward_us": 250.0, "buffer_us": 20.0,
              "finalize_us": FIN},
      "hooks": {"hook_us": 29.0, "bucket_us": HKB}}
wl6 = {"host": h6, "meta": {"tensors": P, "framework_on_model": None}}
m6 = {"compute_only_cpu_times_us": probes["compute-only"]["cpu_times_us"],
      "compute_only_cpu_fwd_bwd_rest_us": [5600.0, 9800.0, 300.0],
      "loop_probes": {k: v for k, v in probes.items() if k != "compute-only"}}
done6 = st.loop_costs(wl6, m6, {"ddp": {"finalize_us": FIN}, "hooks": {"bucket_us": HKB}})
check("loop_costs replaces %s with the loop's" % done6,
      done6 == ["ddp.param_us", "ddp.copy_us", "hooks.hook_us"]
      and abs(h6["ddp"]["param_us"] - PARAM) < 1e-3 and h6["ddp"]["forward_us"] == 1200.0)
ws6 = {"host": {"ddp": dict(h6["ddp"]), "hooks": dict(h6["hooks"])}}
check("... carried by a factor of 1", st.model_cost_factor(ws6, wl6, m6) == 1.0)
st.tower_costs(wl6)
check("... --tower-costs still puts the tower's back (11)", h6["ddp"]["param_us"] == 11.0)
check("a run without probes: nothing", st.loop_costs({"host": {}}, {}, {"ddp": {}}) is None)

# The spacing variants (session 24), by hand: P = 48 parameters, 40 us a hook; the hook pattern's
# issue costs 30 us a bucket at one a parameter, 55 at one every 4 (12 buckets), 80 at one every
# 16 (3 buckets); DDP's offload comm hook over its default all-reduce 45 us a bucket per
# parameter, 200 at about 16 parameters a bucket (4 buckets). The framework-free backward() CPU
# drifts round by round (median 9800 us): the buckets are 9800 / 48 = 204.2, 816.7, 3266.7 and
# 2450 us apart.
PS, NBS = 48, {"hk_e4": 12, "hk_e16": 3, "ddpo_e16": 4}
bs = {v: [] for v in ("none", "hk_0", "hk_n", "hk_e4", "hk_e16", "ddpv_n", "ddpo_n", "ddpv_e16",
                      "ddpo_e16")}
for r in range(15):
    base = 9000.0 + 400.0 * ((r * 7) % 5)
    for v, extra in (("none", 0), ("hk_0", 40 * PS), ("hk_n", 40 * PS + 30 * PS),
                     ("hk_e4", 40 * PS + 55 * 12), ("hk_e16", 40 * PS + 80 * 3),
                     ("ddpv_n", 700), ("ddpo_n", 700 + 45 * PS), ("ddpv_e16", 300),
                     ("ddpo_e16", 300 + 200 * 4)):
        bs[v].append(base + extra)
sp = mc.spacing_with_ci(bs, PS, NBS)
want_h = [[48, 204.2, 30.0], [12, 816.7, 55.0], [3, 3266.7, 80.0]]
want_o = [[48, 204.2, 45.0], [4, 2450.0, 200.0]]
check("hooks' issue against spacing %s" % [p_[:3] for p_ in sp["hooks"]],
      all(g[:2] == w_[:2] and abs(g[2] - w_[2]) < 1e-3 for g, w_ in zip(sp["hooks"], want_h))
      and len(sp["hooks"]) == 3)
check("DDP's comm hook against spacing %s" % [p_[:3] for p_ in sp["ddp_offload"]],
      all(g[:2] == w_[:2] and abs(g[2] - w_[2]) < 1e-3 for g, w_ in zip(sp["ddp_offload"], want_o))
      and len(sp["ddp_offload"]) == 2)
check("each point's bootstrap brackets it (no noise: a point)",
      all(p_[3][0] - 1e-3 <= p_[2] <= p_[3][1] + 1e-3 for k in sp for p_ in sp[k]))
# a farther variant (measure(spacing_every=(4, 16, 48)), run 24's kind): every 48 gradients is
# one bucket, 9800 us apart; the hook pattern's issue at 150 us, DDP's comm hook at 600 (1 bucket)
bs48 = {k: list(v) for k, v in bs.items()}
for r in range(15):
    base = 9000.0 + 400.0 * ((r * 7) % 5)
    bs48.setdefault("hk_e48", []).append(base + 40 * PS + 150)
    bs48.setdefault("ddpv_e48", []).append(base + 100)
    bs48.setdefault("ddpo_e48", []).append(base + 100 + 600)
sp48 = mc.spacing(bs48, PS, dict(NBS, hk_e48=1, ddpo_e48=1))
check("every 48: hooks %s, offload %s" % (sp48["hooks"], sp48["ddp_offload"]),
      [p_[:3] for p_ in sp48["hooks"][:3]] == [p_[:3] for p_ in sp["hooks"]]
      and [p_[:3] for p_ in sp48["hooks"]][3] == [1, 9800.0, 150.0]
      and [p_[:3] for p_ in sp48["ddp_offload"]][2] == [1, 9800.0, 600.0]
      and len(sp48["hooks"]) == 4 and len(sp48["ddp_offload"]) == 3)
check("spacing_names((4, 16, 48)): hk_e48 and the DDP pair at 48",
      mc.spacing_names((4, 16, 48)) == mc.SPACING_VARIANTS[:3] + ("hk_e48",)
      + mc.SPACING_VARIANTS[3:] + ("ddpv_e48", "ddpo_e48"))
del bs["hk_0"]
check("without hk_0 no hook points; offload's stay",
      mc.spacing(bs, PS, NBS)["hooks"] == [] and len(mc.spacing(bs, PS, NBS)["ddp_offload"]) == 2)
check("a variant whose buckets were not counted is left out",
      len(mc.spacing(bs, PS, {"hk_e4": 12})["ddp_offload"]) == 1)
check("the estimates without the spacing variants are unchanged by them",
      mc.estimate(dict(make(), **{k: v for k, v in bs.items() if k in mc.SPACING_VARIANTS}), P,
                  FIXED) == mc.estimate(make(), P, FIXED))

# spacing_curve: the points the rounds tell from none, in increasing spacing, at least two.
pts = [[48, 204.2, 30.0, [25.0, 35.0]], [12, 816.7, 55.0, [-3.0, 90.0]], [3, 3266.7, 80.0, [60.0, 99.0]],
       [3, 3266.7, 81.0, [60.0, 99.0]]]
check("spacing_curve keeps 204.2 -> 30 and 3266.7 -> 80 (816.7's p5 < 0, a repeat left out)",
      mc.spacing_curve(pts) == [[204.2, 30.0], [3266.7, 80.0]])
check("one point left: no curve", mc.spacing_curve(pts[:2]) is None)
# apply() writes the curves into the host block; the store carries both coordinates by the
# loop's framework-free backward() over the capture's (1.5: 204.2 -> 306.3 us apart, 30 -> 45 us)
# and --tower-costs / --no-model-bucket-costs take them out again.
e7 = mc.with_ci(make(), P, FIXED)
e7["issue_spacing"] = {"hooks": pts, "ddp_offload": pts[:2], "buckets": {"hk_e4": 12}}
h7 = {"ddp": {"param_us": 11.0, "copy_us": 5.0, "bucket_us": 44.0},
      "hooks": {"hook_us": 29.0, "bucket_us": HKB}}
done7 = mc.apply(h7, e7)
check("apply: host.issue_spacing %s (hooks only: offload's one point is no curve)"
      % h7.get("issue_spacing"), h7.get("issue_spacing") == {"hooks": [[204.2, 30.0], [3266.7, 80.0]]})
fm7 = dict(e7, replaced=done7, model_independent={"ddp": {"param_us": 11.0, "copy_us": 5.0,
                                                          "bucket_us": 44.0},
                                                  "hooks": {"hook_us": 29.0, "bucket_us": HKB}})
wl7 = {"host": h7, "meta": {"framework_on_model": fm7}}
ws7 = json.loads(json.dumps({"host": h7}))
st.model_cost_factor(ws7, wl7, {"compute_only_cpu_fwd_bwd_rest_us": [5000.0, 1.5 * fm7["bwd_cpu_us"],
                                                                   300.0]})
got7 = ws7["host"]["issue_spacing"]["hooks"]
check("carried x1.5: %s" % got7, all(abs(a - b) < 1e-9 for g, w in zip(got7, [[306.3, 45.0],
                                                                        [4900.05, 120.0]])
                                     for a, b in zip(g, w)))
check("... the capture's own curve untouched", h7["issue_spacing"]["hooks"][0] == [204.2, 30.0])
wl8 = json.loads(json.dumps(wl7))
st.tower_costs(wl7, buckets_only=True)
check("--no-model-bucket-costs: no curve", "issue_spacing" not in wl7["host"])
# The store prices the curves only when asked (87d203b): by default, and with --no-issue-spacing,
# they are dropped; --issue-spacing keeps them
for argv, want in ((["run"], False), (["run", "--no-issue-spacing"], False),
                   (["run", "--issue-spacing"], True)):
    got = st.arg_parser().parse_args(argv).issue_spacing
    check("store %s: issue_spacing %s" % (" ".join(argv[1:]) or "(default)", got), got is want)
# Dropping them takes the curves alone: the per-hook cost measured on the model (apply()'s,
# in the list replaced) stays and is still carried x1.5; the tower's per-bucket 70 is untouched
st.drop_issue_spacing(wl8)
ws8 = json.loads(json.dumps({"host": wl8["host"]}))
st.model_cost_factor(ws8, wl8, {"compute_only_cpu_fwd_bwd_rest_us": [5000.0, 1.5 * fm7["bwd_cpu_us"],
                                                                   300.0]})
check("--no-issue-spacing: no curve; hook %.3f still the model's, carried %.3f = x1.5; bucket 70"
      % (wl8["host"]["hooks"]["hook_us"], ws8["host"]["hooks"]["hook_us"]),
      "issue_spacing" not in wl8["host"] and "issue_spacing" not in ws8["host"]
      and "hooks.hook_us" in done7 and wl8["host"]["hooks"]["hook_us"] == h7["hooks"]["hook_us"]
      and wl8["meta"]["framework_on_model"]["replaced"] == done7
      and abs(ws8["host"]["hooks"]["hook_us"] - 1.5 * h7["hooks"]["hook_us"]) < 1e-9
      and wl8["host"]["hooks"]["bucket_us"] == HKB)

# --framework-costs / --tower-costs (drop_model_costs): the curves go with the other costs measured
# on the model (left in, they were priced at the capture's host speed, uncarried)
wl9 = json.loads(json.dumps(wl8))
wl9["host"]["issue_spacing"] = {"hooks": [[204.2, 30.0], [3266.7, 80.0]]}
st.drop_model_costs(wl9)
check("drop_model_costs: no curve, no framework_on_model",
      "issue_spacing" not in wl9["host"] and "framework_on_model" not in wl9["meta"])
# a capture whose curves alone passed (no per-parameter cost replaced): still carried x1.5
h10 = {"ddp": {"bucket_us": 44.0}, "hooks": {"bucket_us": HKB},
       "issue_spacing": {"hooks": [[204.2, 30.0], [3266.7, 80.0]]}}
wl10 = {"host": h10, "meta": {"framework_on_model": {"replaced": [], "bwd_cpu_us": fm7["bwd_cpu_us"]}}}
ws10 = json.loads(json.dumps({"host": h10}))
f10 = st.model_cost_factor(ws10, wl10, {"compute_only_cpu_fwd_bwd_rest_us":
                                        [5000.0, 1.5 * fm7["bwd_cpu_us"], 300.0]})
got10 = ws10["host"]["issue_spacing"]["hooks"]
check("curves alone carried x1.5: %s (factor %s)" % (got10, f10),
      f10 == 1.5 and all(abs(a - b) < 1e-9 for g, w in zip(got10, [[306.3, 45.0], [4900.05, 120.0]])
                         for a, b in zip(g, w)))

# issue_direct (session 25): the issues timed call by call. Per round the median of a step's
# issues but its first; 15 rounds of -1 / 0 / +1 us around each variant's value (median exact),
# one round of hk_e16 with no second issue (None, skipped). Backward's framework-free CPU 6000 us
# over P = 50 / 12 / 3 buckets: 120 / 500 / 2000 us apart; the hook pattern's issue 30 / 50 / 75
# us (extra 0 / 20 / 45 over the densest), DDP's offload hook 100 / 160 (extra 0 / 60).
JIT = [-1.0, 0.0, 1.0]
DIR = {"hk_n": [30.0 + JIT[r % 3] for r in range(15)], "hk_e4": [50.0 + JIT[r % 3] for r in range(15)],
       "hk_e16": [75.0 + JIT[r % 3] for r in range(15)] + [None],
       "ddpo_n": [100.0 + JIT[r % 3] for r in range(15)], "ddpo_e16": [160.0 + JIT[r % 3] for r in range(15)]}
NBD = {"hk_e4": 12, "hk_e16": 3, "ddpo_e16": 3}
di = mc.issue_direct(DIR, 50, NBD, 6000.0)
check("issue_direct hooks %s" % di.get("hooks"),
      di.get("hooks") == [[50, 120.0, 30.0, 0.0], [12, 500.0, 50.0, 20.0], [3, 2000.0, 75.0, 45.0]])
check("issue_direct offload %s" % di.get("ddp_offload"),
      di.get("ddp_offload") == [[50, 120.0, 100.0, 0.0], [3, 2000.0, 160.0, 60.0]])
check("a variant with its buckets uncounted is left out; one point is no curve",
      "ddp_offload" not in mc.issue_direct(DIR, 50, {"hk_e4": 12, "hk_e16": 3}, 6000.0))
dci = mc.issue_direct_with_ci(DIR, 50, NBD, 6000.0)
check("each extra's bootstrap brackets it and the farther ones are above 0: %s" % dci["hooks"],
      all(p_[4][0] - 1e-9 <= p_[3] <= p_[4][1] + 1e-9 for k in dci for p_ in dci[k])
      and all(p_[4][0] > 0 for k in dci for p_ in dci[k][1:]))
# direct_curve: the densest point at the per-bucket cost the block charges, each farther point at
# that plus its extra; a point whose extra the rounds cannot tell from 0 is left out
check("direct_curve at 70 us: %s" % mc.direct_curve(dci["hooks"], 70.0),
      mc.direct_curve(dci["hooks"], 70.0) == [[120.0, 70.0], [500.0, 90.0], [2000.0, 115.0]])
noisy = [list(p_) for p_ in dci["hooks"]]
noisy[1][4] = [-5.0, 40.0]
check("a point with p5 <= 0 left out", mc.direct_curve(noisy, 70.0) == [[120.0, 70.0], [2000.0, 115.0]])
noisy[2][4] = [-5.0, 90.0]
check("no farther point left: no curve", mc.direct_curve(noisy, 70.0) is None)
# apply(): the direct curves take the place of the whole-backward ones; DDP's offload curve starts
# at the comm hook's excess over DDP's per-bucket cost (80 - 44 = 36), fusim charging it on top
h11 = {"ddp": {"bucket_us": 44.0, "hook_bucket_us": 80.0}, "hooks": {"bucket_us": 70.0}}
e11 = {"ci": {}, "issue_direct": dci, "issue_spacing": {"hooks": pts}}
mc.apply(h11, e11)
check("apply: direct curves %s, source %s" % (h11.get("issue_spacing"), e11.get("issue_spacing_source")),
      h11.get("issue_spacing") == {"hooks": [[120.0, 70.0], [500.0, 90.0], [2000.0, 115.0]],
                                   "ddp_offload": [[120.0, 36.0], [2000.0, 96.0]]}
      and e11["issue_spacing_source"] == {"hooks": "direct", "ddp_offload": "direct"})
# the store keeps the direct curves by default (drop_issue_spacing(keep_direct=True)), drops the
# whole-backward ones, and drops both with --no-direct-spacing / --tower-costs
wl11 = {"host": json.loads(json.dumps(h11)), "meta": {"framework_on_model": e11}}
st.drop_issue_spacing(wl11, keep_direct=True)
check("default: direct curves kept", wl11["host"].get("issue_spacing") == h11["issue_spacing"])
wl12 = json.loads(json.dumps({"host": h11, "meta": {"framework_on_model": dict(
    e11, issue_spacing_source={"hooks": "backward", "ddp_offload": "direct"})}}))
st.drop_issue_spacing(wl12, keep_direct=True)
check("default: a whole-backward curve dropped beside a direct one: %s" % wl12["host"].get("issue_spacing"),
      wl12["host"].get("issue_spacing") == {"ddp_offload": [[120.0, 36.0], [2000.0, 96.0]]})
st.drop_issue_spacing(wl11)
check("--no-direct-spacing: none kept", "issue_spacing" not in wl11["host"])
for argv, want in ((["run"], True), (["run", "--no-direct-spacing"], False)):
    got = st.arg_parser().parse_args(argv).direct_spacing
    check("store %s: direct_spacing %s" % (" ".join(argv[1:]) or "(default)", got), got is want)

# DDP's copy paired round by round (estimate; store's copy_from_rounds for captures stored before):
# the two DDP modes of a round share that round's host drift S_r, the framework-free step has its
# own J_r; the copy mode pays COPY x P plus e_r = 30 x ((3r) % 7 - 3) us (median 0). Paired:
# exactly COPY; each mode's median over `none` carries J_r - S_r, whose medians' difference is
# not COPY x P here (hand-computed below). With COPY = 0 the bootstrap's low end is <= 0 and the
# store puts the tower's 5 back.
def paired(copy_):
    b = {v: [] for v in mc.VARIANTS}
    for r in range(15):
        s_r, j_r = 900.0 * ((r * 5) % 7), 1100.0 * ((r * 3) % 5)
        e_r = 30.0 * ((3 * r) % 7 - 3)
        b["none"].append(9000.0 + j_r)
        b["ddpv_1"].append(9000.0 + s_r + FIN + PARAM * P)
        b["ddpc_h"].append(9000.0 + s_r + FIN + (PARAM + copy_) * P + e_r)
        b["hk_1"].append(9000.0 + j_r + HKB + HOOK * P)
    return b


bp = paired(COPY)
unp = (sorted(c - n for c, n in zip(bp["ddpc_h"], bp["none"]))[7]
       - sorted(v - n for v, n in zip(bp["ddpv_1"], bp["none"]))[7]) / P
check("paired copy %.3f = 12 (the medians' difference %.3f is not)" % (mc.estimate(bp, P, FIXED)["copy_us"], unp),
      abs(mc.estimate(bp, P, FIXED)["copy_us"] - COPY) < 1e-9 and abs(unp - COPY) > 1.0)
for copy_, want, replaced in ((COPY, COPY, True), (0.0, 5.0, False)):
    fmc = dict(mc.with_ci(bp, P, FIXED), raw=paired(copy_), P=P, fixed=FIXED, copy_us=unp,
               replaced=["ddp.param_us", "ddp.copy_us"],
               model_independent={"ddp": {"param_us": 11.0, "copy_us": 5.0}})
    wlc = {"host": {"ddp": {"param_us": PARAM, "copy_us": unp}}, "meta": {"framework_on_model": fmc}}
    got = st.copy_from_rounds(wlc)
    check("store: copy %.1f -> %.3f (want %.1f), replaced %s" % (copy_, got, want, replaced),
          abs(got - want) < 1e-9 and wlc["host"]["ddp"]["copy_us"] == got
          and ("ddp.copy_us" in fmc["replaced"]) == replaced and "ddp.param_us" in fmc["replaced"])
check("store: no rounds (older capture): None, host untouched",
      st.copy_from_rounds({"host": {"ddp": {"copy_us": 5.0}}, "meta": {}}) is None)

# The hook from hk_0 (session 28): hk_0 runs the hooks and copies with no issue; hk_1's one issue,
# the last of backward, is cold: COLD = 400 us where a dense one costs HBK = 110. d(hk_0) = 45 P,
# d(hk_1) = 45 P + 400, d(hk_n) = (45 + 110) P. From hk_0: hook 45, bucket 110. The old way
# (hk_1 less a dense bucket) gives bucket (155 P - 45 P - 400) / (P - 1) = 5100 / 49 = 104.082 and
# hook (45 P + 400 - 104.082) / P = 50.918: the excess on every hook. The per-tensor plan costs
# P x (hook + bucket) = 7750 either way.
COLD = 400.0
h0 = make()
for r in range(15):
    base = h0["none"][r]
    h0["hk_1"][r] = base + HOOK * P + COLD
    h0.setdefault("hk_0", []).append(base + HOOK * P)
    h0.setdefault("hk_n", []).append(base + (HOOK + HBK) * P)
    h0.setdefault("ddpv_n", []).append(base + FIN + PARAM * P + BK * (P - 1))
e0 = mc.with_ci(h0, P, FIXED)
e1 = mc.estimate({k: v for k, v in h0.items() if k != "hk_0"}, P, FIXED)
check("hook from hk_0 %.3f = 45, bucket %.3f = 110 (hk_1's way %.3f / %.3f)"
      % (e0["hook_us"], e0["hooks_bucket_us"], e1["hook_us"], e1["hooks_bucket_us"]),
      abs(e0["hook_us"] - HOOK) < 1e-3 and abs(e0["hooks_bucket_us"] - HBK) < 1e-3
      and abs(e1["hook_us"] - 50.918) < 1e-3 and abs(e1["hooks_bucket_us"] - 104.082) < 1e-3)
# the store, on a capture stored the old way, its issues timed call by call: the curve (dense
# bucket + 60 us extra 800 us apart) moves with the dense bucket, +5.918
fm0 = dict(e1, ci={k: [v, v] for k, v in e1.items() if isinstance(v, float)}, raw=h0, P=P,
           fixed=FIXED, replaced=["hooks.hook_us", "hooks.bucket_us"],
           issue_spacing_source={"hooks": "direct"},
           model_independent={"hooks": {"hook_us": 29.0, "bucket_us": 62.0}})
wl0 = {"host": {"hooks": {"hook_us": e1["hook_us"], "bucket_us": e1["hooks_bucket_us"]},
                "issue_spacing": {"hooks": [[100.0, e1["hooks_bucket_us"]],
                                            [800.0, e1["hooks_bucket_us"] + 60.0]]}},
       "meta": {"framework_on_model": fm0}}
got0 = st.hooks_from_rounds(wl0)
h0h = wl0["host"]["hooks"]
check("store: hook %.3f, bucket %.3f, curve %s; per tensor %.1f = 7750" % (
      got0[0], got0[1], wl0["host"]["issue_spacing"]["hooks"], P * (got0[0] + got0[1])),
      abs(h0h["hook_us"] - HOOK) < 1e-3 and abs(h0h["bucket_us"] - HBK) < 1e-3
      and [c[0] for c in wl0["host"]["issue_spacing"]["hooks"]] == [100.0, 800.0]
      and abs(wl0["host"]["issue_spacing"]["hooks"][0][1] - HBK) < 1e-3
      and abs(wl0["host"]["issue_spacing"]["hooks"][1][1] - HBK - 60.0) < 1e-3
      and abs(P * (e1["hook_us"] + e1["hooks_bucket_us"]) - 7750.0) < 1e-2
      and abs(P * (got0[0] + got0[1]) - 7750.0) < 1e-2)
wl1 = {"host": {"hooks": {"hook_us": 50.0, "bucket_us": 104.0}},
       "meta": {"framework_on_model": dict(fm0, raw={k: v for k, v in h0.items() if k != "hk_0"})}}
check("store: a capture without hk_0: None, host untouched",
      st.hooks_from_rounds(wl1) is None and wl1["host"]["hooks"] == {"hook_us": 50.0, "bucket_us": 104.0})
# estimate() prices the dense bucket only where ddpv_n ran beside hk_n: a capture without it is
# left as stored (it raised KeyError 'hooks_bucket_us' before)
wl2 = {"host": {"hooks": {"hook_us": 50.0, "bucket_us": 104.0}},
       "meta": {"framework_on_model": dict(fm0, raw={k: v for k, v in h0.items() if k != "ddpv_n"})}}
check("store: a capture without ddpv_n: None, host untouched",
      st.hooks_from_rounds(wl2) is None and wl2["host"]["hooks"] == {"hook_us": 50.0, "bucket_us": 104.0})
check("store --hook-from-hk1 parses (main then skips hooks_from_rounds)",
      st.arg_parser().parse_args(["r", "--hook-from-hk1"]).hook_from_hk1)
# --hook-from-hk1 takes the interval's bounds the old way too (rounds_without_hk0): the bootstrap
# over rounds without hk_0 brackets 50.918 / 104.082 (these rounds carry no noise: exact), where
# with hk_0 it gives 45 / 110
fmb = dict(fm0, raw=dict(h0))
b_new = ti.model_bounds(fmb)["hooks"]
st.rounds_without_hk0({"host": {"hooks": {}}, "meta": {"framework_on_model": fmb}})
b_old = ti.model_bounds(fmb)["hooks"]
check("--hook-from-hk1 bounds: with hk_0 %s, without %s" % (b_new, b_old),
      b_new == {"hook_us": [45.0, 45.0], "bucket_us": [110.0, 110.0]}
      and b_old == {"hook_us": [50.918, 50.918], "bucket_us": [104.082, 104.082]}
      and "hk_0" not in fmb["raw"] and "hk_0" in h0)

# --dense-from-calls (session 29): the dense bucket from the issue's calls timed at capture, 40 us
# at one issue per gradient, times r = 1.5: 60 us, not hk_n less hk_0's 110; the direct curve (the
# dense bucket + 60 us extra 800 us apart) moves by 60 - 110 = -50; the hook (from hk_0) stays 45.
# A capture that timed no issues is left as it was.
wl3 = {"host": {"hooks": {"hook_us": 45.0, "bucket_us": 110.0}},
       "meta": {"framework_on_model": dict(fm0, issue_direct={"hooks": [[P, 100.0, 40.0, 0.0, [0.0, 0.0]],
                                                                        [4, 800.0, 70.0, 30.0, [20.0, 40.0]]]})}}
wl3["host"]["issue_spacing"] = {"hooks": [[100.0, 110.0], [800.0, 170.0]]}
got3 = st.dense_from_calls(wl3, 1.5)
check("--dense-from-calls: bucket %s = 60, curve %s = [[100, 60], [800, 120]], hook %s = 45"
      % (got3, wl3["host"]["issue_spacing"]["hooks"], wl3["host"]["hooks"]["hook_us"]),
      got3 == 60.0 and wl3["host"]["issue_spacing"]["hooks"] == [[100.0, 60.0], [800.0, 120.0]]
      and wl3["host"]["hooks"]["hook_us"] == 45.0)
wl4 = {"host": {"hooks": {"hook_us": 45.0, "bucket_us": 110.0}}, "meta": {"framework_on_model": fm0}}
check("--dense-from-calls: no issue_direct: None, host untouched",
      st.dense_from_calls(wl4, 1.5) is None and wl4["host"]["hooks"]["bucket_us"] == 110.0)
check("store --dense-from-calls parses",
      st.arg_parser().parse_args(["r", "--dense-from-calls"]).dense_from_calls)

# torch_trace.summarize: two steps, a 1000 us wait on the autograd thread once a step.
rows = [("cudaLaunchKernel", "2", 5.0, 5.0)] * 40 + [("cudaStreamSynchronize", "2", 1000.0, 1000.0)] * 2 \
    + [("aten::copy_", "1", 20.0, 30.0)] * 10
text = "\n".join(torch_trace.summarize(rows, 2))
check("per-thread self time: thread 2 = 1100 us a step", "2 1100 us" in text)
check("the wait first among single events", text.split("longest single events")[1].split("\n")[1].strip()
      .startswith("1000.0"))
check("runtime calls per step: 1 sync of 1000 us", "    1.0    1000.0    1000.0  cudaStreamSynchronize" in text)
# torch_launchq: the first blocked launch (after the warm one) and launches assigned to phases.
import torch_launchq as lq  # noqa: E402
check("first blocked launch: index 4", lq.first_blocked([300, 5, 6, 4, 80, 5]) == 4)
check("none blocked: None", lq.first_blocked([5, 5, 5]) is None)
ph = lq.split_phases([("fusim_fwd", 0, 100, 100), ("fusim_bwd", 100, 300, 200),
                      ("cudaLaunchKernel", 10, 12, 2), ("cudaLaunchKernel", 150, 220, 70),
                      ("cudaMemcpyAsync", 250, 251, 1), ("aten::add", 20, 30, 10)])
check("phases: 1 launch in forward, 2 in backward, none in opt",
      ph == {"fwd": [2], "bwd": [70, 1], "opt": []})
# torch_host.same_optimizer: the copies of the model step with the recipe's optimizer. The
# stand-ins below take the arguments PyTorch 2.11's Adam and AdamW take (torch/optim/adam.py,
# adamw.py of the 2.11.0 wheel): AdamW's constructor does not accept decoupled_weight_decay,
# which its defaults hold, so the copy by **defaults raised and the runners fell back to SGD.
import torch_host  # noqa: E402


class Adam:
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        self.params = list(params)
        self.defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                             amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                             capturable=capturable, differentiable=differentiable, fused=fused,
                             decoupled_weight_decay=decoupled_weight_decay)


class AdamW(Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused, decoupled_weight_decay=True)


class ClippedAdamW(AdamW):   # as validate_torch.clipped_optimizer: only step() overridden
    pass


class Anything:   # a user's optimizer that takes any keyword
    def __init__(self, params, **kw):
        self.params, self.defaults = list(params), dict(kw)


orig = ClippedAdamW([1, 2], lr=1e-4, weight_decay=0.05)
try:
    ClippedAdamW([3], **orig.defaults)
    old_copy_raised = False
except TypeError:
    old_copy_raised = True
check("the old copy, AdamW(params, **defaults), raises TypeError", old_copy_raised)
cp = torch_host.same_optimizer(orig, [3, 4])
check("same_optimizer: the same class over the new parameters",
      type(cp) is ClippedAdamW and cp.params == [3, 4])
check("same_optimizer: the same settings (lr 1e-4, weight decay 0.05, decoupled)",
      cp.defaults == orig.defaults)
anything = torch_host.same_optimizer(Anything([1], lr=0.5, mystery=3), [2])
check("same_optimizer: a **kwargs constructor gets every setting",
      anything.defaults == {"lr": 0.5, "mystery": 3})
check("same_optimizer: None for no optimizer", torch_host.same_optimizer(None, [1]) is None)
print("%d failed" % fails)
sys.exit(1 if fails else 0)
