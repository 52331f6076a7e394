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
one measured beside them: the costs x1.5, the others untouched.
"""
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
print("%d failed" % fails)
sys.exit(1 if fails else 0)
