#!/usr/bin/env python3
"""data/validation/mode_split.py and carry_one.py on hand-made data, answers by hand: the fast and
slow rounds of a framework-free backward(), a cost per tensor per group paired round by round,
a made-up run's line (f, the slow / fast ratios); and carry_one's what-if, the costs measured on
the model carried at 1 where the store carries them by the loop's backward() over the rounds';
f_vs_error's f and its reading of the store's csv."""
import io
import json
import os
import shutil
import sys
import tempfile
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vcheck import check, finish  # noqa: E402  (data/validation on sys.path)
import carry_one as C  # noqa: E402
import mode_split as M  # noqa: E402


# none: 100, 110, 125 fast (125 = 1.25 x 100 is not above; median 110); 200, 210, 220 slow (210)
none = [100.0, 200.0, 110.0, 210.0, 125.0, 220.0]
g = M.mode_groups(none)
check("fast rounds 0, 2, 4 and slow 1, 3, 5 (got %r)" % (g,), g == ([0, 2, 4], [1, 3, 5]))
# variant: +40, +50, +50 over none in the fast rounds (median 50), +20, +40, +30 slow (median 30);
# P 10
var = [140.0, 220.0, 160.0, 250.0, 175.0, 250.0]
c = M.per_tensor(var, none, g, 10)
check("per tensor 5.0 fast, 3.0 slow (got %r)" % c, c == [5.0, 3.0])

# a run's label: the folder's name from "run" on, whatever its length (before: its last five
# characters, "un44b" for run44b)
for d, want in (("data/validation/torch_h100_run44b/", "run44b"), ("torch_h200_run38", "run38"),
                ("torch_h100_run41c", "run41c"), ("/tmp/capture", "capture")):
    check("run label of %s: %s (got %r)" % (d, want, M.run_label(d)), M.run_label(d) == want)

# a made-up run: the loop's backward() 210 against the rounds' median 125: f 1.68
tmp = tempfile.mkdtemp(prefix="carry-mode-")
try:
    raw = {"none": none, "hk_n": var, "ddpv_n": [x + 10 for x in none]}
    wl = {"name": "toy", "meta": {"framework_on_model": {"raw": raw, "P": 10, "bwd_cpu_us": 125.0}}}
    with open(os.path.join(tmp, "wl_toy.json"), "w") as f:
        json.dump(wl, f)
    with open(os.path.join(tmp, "runs.json"), "w") as f:
        json.dump({"models": [{"workload": "toy", "compute_only_cpu_fwd_bwd_rest_us": [50, 210, 5]}]}, f)
    out = io.StringIO()
    with redirect_stdout(out):
        M.main([tmp])
    lines = out.getvalue().splitlines()
    check("the model-run's line: none 110 / 210 (x1.91), f 1.68, hk_n 0.60, ddpv_n 1.00 (got %r)"
          % lines[0], "none    110 /    210 (x1.91)" in lines[0] and "f 1.68" in lines[0]
          and "hk_n 0.60" in lines[0] and "ddpv_n 1.00" in lines[0])
    check("the summary: 1 model-run, median ratios 1.91 and 0.60 (got %r)" % lines[1],
          lines[1].startswith("1 model-runs: none slow / fast median 1.91; hk_n per tensor slow / "
                              "fast median 0.60 (above 1.2 in 0)"))
finally:
    shutil.rmtree(tmp)

# carry_one: a hook cost of 60 measured on the model beside a backward() of 100; the loop's
# backward() 150. The store carries it by 1.5 (90); the what-if leaves it at 60.
wl = {"name": "toy", "host": {"version": 2, "hooks": {"hook_us": 60.0}},
      "meta": {"framework_on_model": {"bwd_cpu_us": 100.0, "replaced": ["hooks.hook_us"]}}}
m = {"compute_only_cpu_fwd_bwd_rest_us": [10.0, 150.0, 1.0]}
ws = json.loads(json.dumps(wl))
f = C.store_carry(ws, wl, m)
check("the store's carry: f 1.5, hook 90 (got %r, %r)" % (f, ws["host"]["hooks"]["hook_us"]),
      f == 1.5 and ws["host"]["hooks"]["hook_us"] == 90.0)
ws = json.loads(json.dumps(wl))
f = C.carry_one(ws, wl, m)
check("carry_one: f 1, hook 60, the loop's times untouched (got %r, %r)"
      % (f, ws["host"]["hooks"]["hook_us"]),
      f == 1.0 and ws["host"]["hooks"]["hook_us"] == 60.0
      and m["compute_only_cpu_fwd_bwd_rest_us"][1] == 150.0)

# f_vs_error.py: f from a made-up run (the loop's backward() 210 over the rounds' 125: 1.68; a
# model without costs on the model has none), and a store line's signed error read back
import f_vs_error as FE  # noqa: E402

tmp = tempfile.mkdtemp(prefix="f-vs-error-")
try:
    for name, fm in (("toy", {"bwd_cpu_us": 125.0}), ("bare", {})):
        with open(os.path.join(tmp, "wl_%s.json" % name), "w") as f:
            json.dump({"name": name, "meta": {"framework_on_model": fm}}, f)
    with open(os.path.join(tmp, "runs.json"), "w") as f:
        json.dump({"models": [{"workload": w, "compute_only_cpu_fwd_bwd_rest_us": [50, 210, 5]}
                              for w in ("toy", "bare")]}, f)
    fs = FE.carry_factors(tmp)
    check("f_vs_error: f 1.68 for the model with costs on it, none for the other (got %r)" % fs,
          list(fs) == ["toy"] and abs(fs["toy"] - 1.68) < 1e-12)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
matrix = ("# rows 1: median |error| 11.67%\n"
          "workload,plan,rel_err,inside\n"
          "\"swin_b_b32_torchval\",\"ddp none\",0.116692,1\n")
e = FE.errors_from_csv(matrix)
check("f_vs_error: the store's csv gives the row's workload and +11.67 (got %r)" % e,
      list(e) == ["swin_b_b32_torchval"] and len(e["swin_b_b32_torchval"]) == 1
      and abs(e["swin_b_b32_torchval"][0] - 11.6692) < 1e-9)
finish()
