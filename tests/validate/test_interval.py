#!/usr/bin/env python3
"""test_interval.py: tools/torch_interval.py (the 95% interval of a validation row's median) and
store_torch_validation.median_interval, on hand-made data whose answers follow by hand:
  - a median of equal values has no uncertainty (0, 0); one value or a median <= 0 gives (0, 0);
  - bounds of a median of 0..100 (n 101): every resampled median lies within the sample, and the
    bounds bracket 0 (lo <= 0 <= hi) and stay inside [0/50 - 1, 100/50 - 1] = [-1, +1];
  - widen multiplies by sqrt(2 (1 - rho)) (two medians, each as uncertain as the one
    bootstrapped, correlated by rho): sqrt(2) at rho 0, 1 at rho 0.5, 0 at rho 1;
  - median_corr: a sample against itself, or against 2x + 5, correlates 1; against a constant 0;
  - model_rel_mle: errors of 0.02 on rows without noise -> 0.02; errors sqrt(2) x 0.01 on rows
    whose noise sd is 0.01 (half-width 1.96 x 0.01) -> sqrt(0.0002 - 0.0001) = 0.01; errors
    inside the noise -> 0;
  - median_interval with the costs' bounds (their carrying factor's bounds in them): fw_rel 0,
    not the host's spread again; without bounds fw_rel is host_rel; model_rel is written;
  - the ratio of two constant samples has no uncertainty;
  - cost_ci: a cost of 10 us measured as [4, 6] and carried by 2 with carry bounds -10% / +20%
    -> [4 x 2 x 0.9, 6 x 2 x 1.2] = [7.2, 14.4]; measured [6, 8] (a bootstrap above the value)
    -> the low bound clamps to the value: [10, 19.2]; a negative low bound counts as 0;
  - _bounds: copy mode measured as a whole: with param samples 1..5 and param + copy fixed at 10,
    copy's bounds are the whole's minus param's: [10 - p_lo, 10 - p_hi] floored at 0;
  - model_bounds on rounds with known costs (P 10, fixed 0, every round's differences exactly
    param 100, copy mode 300, hooks 250 us) -> param [10, 10], copy [20, 20], hook [25, 25];
  - median_interval sets jitter from the run's iterations (equal iterations -> 0) and host.ci;
    a run without per-iteration times is left for the older spread (returns False);
  - capture_ci without the tower's rounds gives no bounds; store's scaled() carries a capture's
    bounds by the same factors as the costs (main thread x 3, autograd thread x 4);
  - quantile.quantile, the nearest value every interval takes: of 10..50 (n 5) at 0.05 index
    round(0.2) = 0 -> 10, at 0.95 round(3.8) = 4 -> 50, at 0.5 -> 30; of 0..10 (n 11) at 0.05
    round(0.5) = 0 and at 0.15 round(1.5) = 2 (half to even); unsorted input sorted; none -> 0.0."""
import copy
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.environ.get("FUSIM_SOURCE_ROOT", os.path.join(HERE, "..", "..")),
                                "tools"))
import store_torch_validation as st  # noqa: E402
import torch_interval as ti  # noqa: E402
from quantile import quantile  # noqa: E402

results = []   # (what, passed)


def check(what, ok):
    results.append((what, bool(ok)))
    print(("ok   " if ok else "FAIL ") + what)


def near(a, b, tol=1e-9):
    return abs(a - b) <= tol


check("equal values: (0, 0)", ti.median_rel([5.0] * 20) == (0.0, 0.0))
check("one value: (0, 0)", ti.median_rel([5.0]) == (0.0, 0.0))
check("median <= 0: (0, 0)", ti.median_rel([-1.0, -2.0, -3.0]) == (0.0, 0.0))
lo, hi = ti.median_rel([float(x) for x in range(101)])
check("0..100: lo %.3f <= 0 <= hi %.3f, within [-1, 1]" % (lo, hi), -1 <= lo <= 0 <= hi <= 1)
check("0..100: a real spread (lo < 0 < hi)", lo < 0 < hi)
w = ti.widen(-0.1, 0.2)
check("widen x sqrt(2)", near(w[0], -0.1 * math.sqrt(2)) and near(w[1], 0.2 * math.sqrt(2)))
w = ti.widen(-0.1, 0.2, 0.5)
check("widen at rho 0.5: x 1 (got %r)" % (w,), near(w[0], -0.1) and near(w[1], 0.2))
check("widen at rho 1: 0", ti.widen(-0.1, 0.2, 1.0) == (0.0, 0.0))
xs = [float((7 * i) % 31) for i in range(31)]
check("median_corr with itself: 1", near(ti.median_corr(xs, xs), 1.0))
check("median_corr with 2x + 5: 1", near(ti.median_corr(xs, [2 * x + 5 for x in xs]), 1.0))
check("median_corr with a constant: 0", ti.median_corr(xs, [3.0] * 31) == 0.0)
check("model_rel_mle, no noise, |e| 0.02: 0.02",
      near(ti.model_rel_mle([(0.02, 0.0), (-0.02, 0.0)] * 5), 0.02, 1e-6))
check("model_rel_mle, noise sd 0.01, |e| 0.01 sqrt(2): 0.01",
      near(ti.model_rel_mle([(0.01 * math.sqrt(2), 1.96 * 0.01), (-0.01 * math.sqrt(2), 1.96 * 0.01)]), 0.01, 1e-6))
check("model_rel_mle, errors inside the noise: 0",
      ti.model_rel_mle([(0.005, 1.96 * 0.01), (-0.001, 1.96 * 0.01)]) == 0.0)
# Two noisy rows of error 0.5 and a quiet one of 0.001: the likelihood has a local maximum near
# s = 0.23 (where a bisection of its score over [0, 1] lands) and its global one near 0.0009;
# the estimate must be the global one, against a brute-force scan of the log-likelihood.
multi = [(0.5, 0.5), (-0.001, 0.001), (-0.5, 0.5)]
mdata = [(e * e, (hw / 1.96) ** 2) for e, hw in multi]
brute = math.sqrt(max([0.0] + [10 ** (k / 400) for k in range(-4800, 1)],
                      key=lambda t: -sum(math.log(v + t) + e2 / (v + t) for e2, v in mdata)))
check("model_rel_mle, two local maxima: the global one (%.6f, brute force %.6f)"
      % (ti.model_rel_mle(multi), brute), near(ti.model_rel_mle(multi), brute, 0.01 * brute) and brute < 0.01)
check("ratio of constants: (0, 0)", ti.ratio_rel([2.0] * 10, [4.0] * 8) == (0.0, 0.0))
check("ratio with one value: (0, 0)", ti.ratio_rel([2.0], [4.0] * 8) == (0.0, 0.0))

host = {"ddp": {"param_us": 10.0, "copy_us": 10.0, "finalize_us": 3.0}}
est = {"ddp": {"param_us": [4.0, 6.0], "copy_us": [6.0, 8.0], "finalize_us": [-5.0, 2.0]},
       "hooks": {"hook_us": [1.0, 2.0]}}
fac = {"ddp": {"param_us": 2.0, "copy_us": 2.0, "finalize_us": 1.0}, "hooks": {"hook_us": 1.0}}
car = {"ddp": {"param_us": (-0.1, 0.2), "copy_us": (-0.1, 0.2), "finalize_us": (0.0, 0.0)},
       "hooks": {"hook_us": (0.0, 0.0)}}
ci = ti.cost_ci(host, est, fac, car)
check("cost [4, 6] x 2, carry -10%%/+20%% -> [7.2, 14.4] (got %r)" % ci["ddp"]["param_us"],
      near(ci["ddp"]["param_us"][0], 7.2) and near(ci["ddp"]["param_us"][1], 14.4))
check("bounds above the value: low clamps to it -> [10, 19.2] (got %r)" % ci["ddp"]["copy_us"],
      near(ci["ddp"]["copy_us"][0], 10.0) and near(ci["ddp"]["copy_us"][1], 19.2))
check("negative low bound -> 0, high below the value -> the value (got %r)"
      % ci["ddp"]["finalize_us"], ci["ddp"]["finalize_us"] == [0.0, 3.0])
check("a group the block lacks gets no bounds", "hooks" not in ci)

samples = [{"ddp": {"param_us": float(p), "copy_us": 10.0 - p}} for p in range(1, 6)] * 20
b = ti._bounds(samples, {"ddp": ["param_us"]}, [("ddp", "copy_us", ("param_us", "copy_us"))])
check("param bounds [1, 5] (got %r)" % b["ddp"]["param_us"], b["ddp"]["param_us"] == [1.0, 5.0])
check("copy = whole - param: [9, 5] (got %r)" % b["ddp"]["copy_us"],
      b["ddp"]["copy_us"] == [9.0, 5.0])

none = [1000.0 + 7 * (r % 3) for r in range(12)]
raw = {"none": none, "ddpv_1": [x + 100 for x in none], "ddpc_h": [x + 300 for x in none],
       "hk_1": [x + 250 for x in none]}
fm = {"raw": raw, "P": 10, "fixed": {"finalize_us": 0.0, "hooks_bucket_us": 0.0}}
mb = ti.model_bounds(fm)
check("model param [10, 10] (got %r)" % mb["ddp"]["param_us"], mb["ddp"]["param_us"] == [10.0, 10.0])
check("model copy [20, 20] (got %r)" % mb["ddp"]["copy_us"], mb["ddp"]["copy_us"] == [20.0, 20.0])
check("model hook [25, 25] (got %r)" % mb["hooks"]["hook_us"], mb["hooks"]["hook_us"] == [25.0, 25.0])
mb = ti.model_bounds(fm, whole=False)
check("copy alone [20, 20] (got %r)" % mb["ddp"]["copy_us"], mb["ddp"]["copy_us"] == [20.0, 20.0])

ws = {"name": "w", "host": {"version": 2, "jitter": {"step_rel_lo": -0.3, "step_rel_hi": 0.4},
                            "ddp": {"param_us": 10.0}}}
m = {"compute_only_times_us": [1000.0] * 9, "compute_only_cpu_times_us": [[1, 2, 3]] * 9}
w = copy.deepcopy(ws)
ok = st.median_interval(w, {"name": "w"}, m, None, None, 1.0, None)
j = w["host"]["jitter"]
check("equal iterations: every spread 0 (got %r)" % j,
      ok and all(j[k] == 0.0 for k in ("step_rel_lo", "step_rel_hi", "host_rel_lo", "host_rel_hi",
                                       "fw_rel_lo", "fw_rel_hi")))
check("no tower rounds: no bounds", "ci" not in w["host"])
w = copy.deepcopy(ws)
ok = st.median_interval(w, {"name": "w"}, {"compute_only_us": 1000.0}, None, None, 1.0, None)
check("no per-iteration times: False, unchanged", not ok and w == ws)
# With the costs' bounds (here a stand-in for the tower's bootstrap: param_us [8, 12] of 10),
# whose carrying factor's bounds they hold, fw_rel is 0: the host's spread is not applied again.
# Varied iterations, so that host_rel is not 0.
mv = {"compute_only_times_us": [1000.0 + 10 * (i % 7) for i in range(21)],
      "compute_only_cpu_times_us": [[100, 200 + 5 * (i % 5), 30] for i in range(21)], "rows": []}
saved = ti.tower_bounds
ti.tower_bounds = lambda fc: {"ddp": {"param_us": [8.0, 12.0]}}
w = copy.deepcopy(ws)
st.median_interval(w, {"name": "w", "host": {}}, mv, {"raw": {}}, None, 1.0, None, 0.015)
ti.tower_bounds = saved
j = w["host"]["jitter"]
check("with bounds: host_rel < 0 < host_rel_hi, fw_rel 0, model_rel 0.015 (got %r)" % j,
      j["host_rel_lo"] < 0 < j["host_rel_hi"] and j["fw_rel_lo"] == j["fw_rel_hi"] == 0.0
      and j["model_rel"] == 0.015 and "ci" in w["host"])
w = copy.deepcopy(ws)
st.median_interval(w, {"name": "w"}, mv, None, None, 1.0, None)
j = w["host"]["jitter"]
check("without bounds: fw_rel = host_rel (got %r)" % j,
      (j["fw_rel_lo"], j["fw_rel_hi"]) == (j["host_rel_lo"], j["host_rel_hi"]) and j["host_rel_hi"] > 0)
# capture_ci without tower rounds: no bounds; scaled() carries a capture's bounds like the costs
# (DDP's forward_us on the main thread x 3, param_us on the autograd thread x 4).
check("capture_ci without rounds: {}", ti.capture_ci({"ddp": {"param_us": 1.0}}, {"ddp": {}}) == {})
wl = {"name": "w", "fwd_us": 1.0, "bwd_us": 1.0, "opt_us": 1.0, "grads": [],
      "host": {"version": 2, "fwd_cpu_us": 1.0, "bwd_cpu_us": 1.0, "opt_cpu_us": 1.0,
               "fwd_gpu_us": 1.0, "bwd_gpu_us": 1.0, "opt_gpu_us": 1.0, "grad_cpu_us": [],
               "grad_gpu_us": [], "ddp": {"param_us": 5.0, "forward_us": 10.0},
               "ci": {"ddp": {"param_us": [4.0, 6.0], "forward_us": [8.0, 12.0]}}}}
ws = st.scaled(wl, 2.0, 1.0, (3.0, 4.0))
check("scaled ci: forward [24, 36], param [16, 24] (got %r)" % ws["host"]["ci"]["ddp"],
      ws["host"]["ci"]["ddp"] == {"param_us": [16.0, 24.0], "forward_us": [24.0, 36.0]})
check("scaled costs: forward 30, param 20", ws["host"]["ddp"] == {"param_us": 20.0, "forward_us": 30.0})

# quantile: the value at round(f x (n - 1)) of the sorted values (Python's round: half to even)
xs = [50.0, 10.0, 40.0, 20.0, 30.0]
check("quantile of 10..50 at 0.05 / 0.5 / 0.95: 10, 30, 50 (got %r)"
      % [quantile(xs, f) for f in (0.05, 0.5, 0.95)],
      [quantile(xs, f) for f in (0.05, 0.5, 0.95)] == [10.0, 30.0, 50.0])
ys = list(range(11))
check("quantile of 0..10 at 0.05 and 0.15: index 0.5 -> 0, 1.5 -> 2 (got %r, %r)"
      % (quantile(ys, 0.05), quantile(ys, 0.15)), quantile(ys, 0.05) == 0 and quantile(ys, 0.15) == 2)
check("quantile of nothing: 0.0", quantile([], 0.95) == 0.0)
failed = sum(not ok for _, ok in results)
print("%d checks, %d failed" % (len(results), failed))
sys.exit(1 if failed else 0)
