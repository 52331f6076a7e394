#!/usr/bin/env python3
"""data/validation/hook_per_tensor.py on a hand-made run: the hook pattern's per-tensor cost in the
loop and at capture, carried to the loop, split into the hooks and the issue, by hand; the
`hooks none` bias over a hand-made torch_decomp output; bad input (65, 66)."""
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vcheck import ROOT, check, finish  # noqa: E402  (data/validation on sys.path)
import hook_per_tensor as hpt  # noqa: E402

TOOL = os.path.join(ROOT, "data", "validation", "hook_per_tensor.py")

# P 10. The loop's compute-only backward() CPU 5000 / 5010 / 4990 us; `hooks none` 1000 above it
# every round (100 us a tensor), overlap off 400 (40): the loop's issue 60. The capture's
# framework-free backward() 4000, so the carry is 5000 / 4000 = 1.25: hk_n 800 over none (80 a
# tensor, 100 carried), hk_0 240 (24, 30 carried): the issue whole 70; its calls timed 40 (50).
co = [[1000.0, b, 300.0] for b in (5000.0, 5010.0, 4990.0)]
run = {"models": [{"workload": "m", "compute_only_cpu_fwd_bwd_rest_us": [1000.0, 5000.0, 300.0],
                   "compute_only_cpu_times_us": co,
                   "rows": [{"plan_label": "hooks none",
                             "cpu_times_us": [[f, b + 1000.0, r] for f, b, r in co]},
                            {"plan_label": "hooks 25MiB overlap off",
                             "cpu_times_us": [[f, b + 400.0, r] for f, b, r in co]}]}]}
none = [4000.0, 4000.0, 4000.0]
wl = {"meta": {"framework_on_model": {
    "P": 10, "bwd_cpu_us": 4000.0,
    "raw": {"none": none, "hk_n": [x + 800.0 for x in none], "hk_0": [x + 240.0 for x in none]},
    "issue_direct": {"hooks": [[10, 400.0, 40.0, 0.0, [0.0, 0.0]]]}}}}
with tempfile.TemporaryDirectory() as tmp:
    d = os.path.join(tmp, "torch_h200_run31")
    os.mkdir(d)
    with open(os.path.join(d, "runs.json"), "w") as f:
        json.dump(run, f)
    with open(os.path.join(d, "wl_m.json"), "w") as f:
        json.dump(wl, f)
    got = list(hpt.model_runs(tmp))
    f0 = got[0][2] if got else {}
    want = {"loop_tot": 100.0, "loop_off": 40.0, "cap_tot": 100.0, "cap_hk0": 30.0, "calls": 50.0}
    check("one model-run of run 31, %s by hand (got %s)" % (want, f0),
          len(got) == 1 and got[0][:2] == (31, "m")
          and all(abs(f0[k] - v) < 1e-9 for k, v in want.items()))
    # held out (run 31 > 29): loop / capture 100 / 100 = 1.00, issue 60 / 70 = 0.86, calls
    # 60 / 50 = 1.20, hk0 + 1.42 x calls 100 / (30 + 71) = 0.99
    dec = os.path.join(tmp, "decomp.txt")
    # run 5: hooks none +4 of (+4, 0, -2): median 0, offset +4; run 6: -3 of (-3, -1): median -2,
    # offset -1. Error mean / median +0.50, offset mean / median +1.50, above 0 in 1
    parts = " = noise +0.00 base +0.00 fwd +0.00 bwd +0.00 rest +0.00 other %s\n"   # torch_decomp's line
    with open(dec, "w") as f:
        f.write("== torch_h200_run5\n"
                "m1  hooks none  err  +4.00" + parts % "+4.00" + "m1  p2  err  +0.00" + parts % "+0.00" +
                "m1  p3  err  -2.00" + parts % "-2.00" + "== torch_h200_run6\n"
                "m2  hooks none  err  -3.00" + parts % "-3.00" + "m2  p2  err  -1.00" + parts % "-1.00")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = hpt.main([dec], tmp)
    text = out.getvalue()
    for line in ("per tensor whole (the store's)      1 model-runs, loop / capture median 1.00",
                 "issue whole (cap iss)               1 model-runs, loop / capture median 0.86",
                 "issue's calls (calls)               1 model-runs, loop / capture median 1.20",
                 "hk0 + 1.42 x calls (--dense-from-calls)  1 model-runs, loop / capture median 0.99",
                 "hooks none over 2 model-runs (runs <= 29): error mean +0.50 median +0.50; less its "
                 "model-run's median: mean +1.50 median +1.50, above 0 in 1"):
        check("prints %r" % line, rc == 0 and line in text)
    # bad input: a file that is no torch_decomp output 65, a missing one 66; one line each
    with open(os.path.join(tmp, "x.txt"), "w") as f:
        f.write("nothing\n")
    for path, code in ((os.path.join(tmp, "x.txt"), 65), (os.path.join(tmp, "none.txt"), 66)):
        p = subprocess.run([sys.executable, TOOL, path], capture_output=True, text=True)
        check("%s: exit %d (got %d), one line, nothing on stdout" % (os.path.basename(path), code,
                                                                       p.returncode),
              p.returncode == code and len(p.stderr.strip().splitlines()) == 1 and not p.stdout)
finish()
