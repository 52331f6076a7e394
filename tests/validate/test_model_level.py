#!/usr/bin/env python3
"""data/validation/model_level.py on hand-made data, answers by hand: the variance a grouping
explains, the halves of a run's rounds and a run cut to them, the floor (every overhead priced as
the loop paid it), the loop's noise of a prediction that moves with compute-only's median, the
capture's costs estimated again from resampled rounds (a negative one takes the tower's), the
trimmed mean and the two-variable line; bad input (no runs.json, one model-run in all)
gives one line and exit 65, a bad option 64."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vcheck import ROOT, check, finish  # noqa: E402  (data/validation on sys.path)
import model_level as ML  # noqa: E402


def near(a, b, tol=1e-9):
    return abs(a - b) <= tol


# groups a (1, 3) and b (5, 7): total SS about 4 is 9 + 1 + 1 + 9 = 20, within 1 + 1 + 1 + 1 = 4,
# so 0.8 explained; two groups of four values explain (2 - 1) / (4 - 1) by chance
r2, ch = ML.r2_by([1.0, 3.0, 5.0, 7.0], ["a", "a", "b", "b"])
check("R^2 by group 0.8, chance 1/3 (got %r, %r)" % (r2, ch), near(r2, 0.8) and near(ch, 1 / 3))

check("time halves of 5 rounds: 0-1 and 2-4",
      ML.half_rounds(5, "time", 0) == [0, 1] and ML.half_rounds(5, "time", 1) == [2, 3, 4])
check("odd halves of 5 rounds: 0, 2, 4 and 1, 3",
      ML.half_rounds(5, "odd", 0) == [0, 2, 4] and ML.half_rounds(5, "odd", 1) == [1, 3])

# a model of four rounds cut to rounds 1 and 3: every median the store reads taken again
M = {"workload": "w", "model": "m", "compute_only_us": 0.0,
     "compute_only_times_us": [100.0, 110.0, 90.0, 130.0],
     "compute_only_cpu_times_us": [[10, 20, 1], [11, 22, 2], [9, 18, 3], [13, 26, 4]],
     "host_probe_us": [1.0, 2.0, 3.0, 4.0], "loop_probes": {"probe ddpv_1": {}},
     "rows": [{"plan_label": "p", "times_us": [150.0, 115.0, 95.0, 135.0],
               "cpu_times_us": [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]]}]}
c = ML.cut_model(M, [1, 3])
r = c["rows"][0]
check("cut: compute-only median 120 of 110 / 130, phases 12 / 24 / 3, probes 2 / 4 (got %r, %r, %r)"
      % (c["compute_only_us"], c["compute_only_cpu_fwd_bwd_rest_us"], c["host_probe_us"]),
      c["compute_only_us"] == 120.0 and c["compute_only_cpu_fwd_bwd_rest_us"] == [12, 24, 3]
      and c["host_probe_us"] == [2.0, 4.0] and c["loop_probes"] is None)
check("cut: the row's median 125 of 115 / 135, p5 115, p95 135, CPU 7 / 8 / 9, anchor 120 "
      "(got %r)" % r, r["measured_us"] == 125.0 and r["p5_us"] == 115.0 and r["p95_us"] == 135.0
      and r["cpu_fwd_bwd_rest_us"] == [7, 8, 9] and r["compute_only_us"] == 120.0
      and M["rows"][0]["times_us"] == [150.0, 115.0, 95.0, 135.0])

# floor: compute-only 100 / 110 / 90, the plan 150 / 115 / 95: same-round differences 50 / 5 / 5,
# their median 5, so the plan is priced 100 + 5 = 105 against its median 115: -8.6957%
m3 = dict(M, compute_only_times_us=[100.0, 110.0, 90.0],
          rows=[{"plan_label": "p", "times_us": [150.0, 115.0, 95.0], "measured_us": 115.0}])
got = ML.floor_errors(m3)["p"]
check("floor: (105 - 115) / 115 = -8.6957%% (got %r)" % got, near(got, -1000 / 115))

# the loop's noise: the plan is compute-only plus 10 in every round and priced exactly (0%), so
# in every resample its prediction moves with compute-only's median and stays exact: sd 0; a
# prediction held still (not moved) would miss by the shift
m4 = {"compute_only_times_us": [100.0, 200.0, 300.0],
      "rows": [{"plan_label": "p", "times_us": [110.0, 210.0, 310.0], "measured_us": 210.0}]}
got = ML.loop_sd(m4, {"p": 0.0}, boot=50)
check("loop noise of an exact prediction that moves with compute-only: 0 (got %r)" % got,
      near(got, 0.0, 1e-9))
got = ML.loop_sd(m4, {"p": 1.0}, boot=50)
check("a 1%% miss that moves along: noise above 0 (the miss over each resample's median; got %r)"
      % got, got > 0)

# the capture's costs again from its rounds: P 10, finalize 100, the hook pattern's fixed bucket
# 50. none 1000, ddpv_1 1300, ddpc_h 1400, hk_1 1600 each round: DDP param (300 - 100) / 10 =
# 20, copy (1400 - 1300) / 10 = 10, hook (600 - 50) / 10 = 55, backward() 1000


def workload(ddpc_h):
    return {"meta": {"framework_on_model": {
        "P": 10, "fixed": {"finalize_us": 100.0, "hooks_bucket_us": 50.0},
        "raw": {"none": [1000.0, 1000.0, 1000.0], "ddpv_1": [1300.0, 1300.0, 1300.0],
                "ddpc_h": ddpc_h, "hk_1": [1600.0, 1600.0, 1600.0]},
        "replaced": ["ddp.param_us", "ddp.copy_us", "hooks.hook_us"], "bwd_cpu_us": 999.0,
        "model_independent": {"ddp": {"param_us": 3.0, "copy_us": 7.0},
                              "hooks": {"hook_us": 40.0}}}},
        "host": {"ddp": {"param_us": 1.0, "copy_us": 1.0, "bucket_us": 5.0, "finalize_us": 100.0},
                 "hooks": {"hook_us": 1.0, "bucket_us": 50.0}}}


w = workload([1400.0, 1400.0, 1400.0])
ok = ML.resample_capture(w, [0, 1, 2])
h, fm = w["host"], w["meta"]["framework_on_model"]
check("capture's costs from its rounds: param 20, copy 10, hook 55, backward() 1000 (got %r, %r)"
      % (h, fm["bwd_cpu_us"]), ok and near(h["ddp"]["param_us"], 20) and
      near(h["ddp"]["copy_us"], 10) and near(h["hooks"]["hook_us"], 55) and fm["bwd_cpu_us"] == 1000)
# round 0 drawn three times, where ddpc_h is 1200: copy (1200 - 1300) / 10 = -10, the tower's 7
w = workload([1200.0, 1400.0, 1400.0])
ML.resample_capture(w, [0, 0, 0])
check("a resample that puts the copy below 0 takes the tower's 7 (got %r)" % w["host"]["ddp"]["copy_us"],
      near(w["host"]["ddp"]["copy_us"], 7.0) and near(w["host"]["ddp"]["param_us"], 20))
check("a workload without the capture's rounds is left alone",
      ML.resample_capture({"meta": {}, "host": {}}, [0]) is False)

check("20%% trimmed mean of 1 2 3 4 100: 3 (got %r)" % ML.trimmed([1, 2, 3, 4, 100]),
      ML.trimmed([1, 2, 3, 4, 100]) == 3)
x1, x2 = [0.0, 1.0, 2.0, 3.0, 1.0], [1.0, 0.0, 2.0, 1.0, 3.0]
b1, b2, r2 = ML.ols2(x1, x2, [5 + 2 * a + 3 * b for a, b in zip(x1, x2)])
check("y = 5 + 2 x1 + 3 x2: 2, 3, R^2 1 (got %r, %r, %r)" % (b1, b2, r2),
      near(b1, 2) and near(b2, 3) and near(r2, 1))

tool = os.path.join(ROOT, "data", "validation", "model_level.py")
with tempfile.TemporaryDirectory() as d:
    p = subprocess.run([sys.executable, tool, d], capture_output=True, text=True)
    check("a directory without runs.json: exit 65, one line (got %d, %r)" % (p.returncode, p.stderr),
          p.returncode == 65 and len(p.stderr.strip().splitlines()) == 1 and not p.stdout)
    with open(os.path.join(d, "runs.json"), "w") as f:   # a run of one model: nothing to compare
        json.dump({"format": "fusim-torch-validation-1",
                   "models": [{"workload": "w", "compute_only_cpu_times_us": [], "rows": []}]}, f)
    p = subprocess.run([sys.executable, tool, d, "--fusim", os.path.join(d, "no-fusim")],
                       capture_output=True, text=True)
    check("one model-run in all: exit 65, one line, before predicting (got %d, %r)"
          % (p.returncode, p.stderr), p.returncode == 65 and "1 model-run" in p.stderr
          and len(p.stderr.strip().splitlines()) == 1 and not p.stdout)
    p = subprocess.run([sys.executable, tool, d, "--capture-resamples", "1"],
                       capture_output=True, text=True)
    check("--capture-resamples 1: exit 64, one line (got %d, %r)" % (p.returncode, p.stderr),
          p.returncode == 64 and len(p.stderr.strip().splitlines()) == 1 and not p.stdout)
finish()
