#!/usr/bin/env python3
"""The cold form in Python (tools/calib_torch.py cold_features, fit_optim_cold, optim_dev_us)
and tools/optim_cold_rows.py, no torch: the prices of tests/model/test_compute.c's
test_optim_cold worked by hand (the C and Python forms must agree), the fit recovering the
fields that priced its own points, and bad input.

Usage: test_optim_cold.py"""
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import calib_torch as c  # noqa: E402

fails = []


def near(what, got, want, tol=1e-9):
    if not abs(got - want) <= tol * max(1.0, abs(want)):
        fails.append("%s: %.9g, expected %.9g" % (what, got, want))


one = [65536.0]
row = {"name": "sgd", "launch_us": 9, "cold_launch_us": 2, "cold_per_touch_us": 1e-6, "cold_chunk_touches": 4,
       "warm_per_touch_us": 5e-7, "warm_chunk_touches": 0, "cache_bytes": 1e9}
# as test_compute.c: each launch 2 + per_touch x 65536 x hypot(touches, chunk weight)
near("sgd", c.optim_dev_us(row, one), 6 + 0.065536 * (math.sqrt(20) + 10))
near("adamw", c.optim_dev_us(dict(row, name="adamw"), one), 16 + 0.065536 * (2 * math.sqrt(20) + 5) + 0.032768 * 13)
near("adamw, cache of two lists", c.optim_dev_us(dict(row, name="adamw", cache_bytes=524288), one),
     16 + 0.065536 * (2 * math.sqrt(20) + 5 + math.sqrt(32)) + 0.032768 * 9)
near("adamw, a byte less", c.optim_dev_us(dict(row, name="adamw", cache_bytes=524287), one),
     16 + 0.065536 * (2 * math.sqrt(20) + 10 + math.sqrt(32)) + 0.032768 * 6)
near("adamw, no warm pair", c.optim_dev_us(dict(row, name="adamw", warm_per_touch_us=0), one),
     16 + 0.065536 * (5 * math.sqrt(20) + 10 + math.sqrt(32)))
near("sgd_clip", c.optim_dev_us(dict(row, name="sgd_clip"), one),
     26 + 0.065536 * (math.sqrt(17) + math.sqrt(20) + 5) + 0.032768 * 5)

# The fit gives back the fields that priced its points: the calibration's nets at a cache of
# 25 MB (some of AdamW's operations warm on the small nets, none on the large), chunk weights on
# the grid.
truth = {"adamw": dict(cold_launch_us=2.5, cold_per_touch_us=1.4e-6, cold_chunk_touches=200,
                       warm_per_touch_us=1.9e-6, warm_chunk_touches=60, cache_bytes=25e6),
         "sgd": dict(cold_launch_us=2.4, cold_per_touch_us=1.45e-6, cold_chunk_touches=160,
                     warm_per_touch_us=0.0, warm_chunk_touches=0, cache_bytes=25e6)}
for name, t in truth.items():
    pts = [{"sizes": [W * W, W, W, W] * L} for L, W in c.OPT_NETS]
    for p in pts:
        p["cold_dev_us"] = c.optim_dev_us(dict(t, name=name, launch_us=1), p["sizes"])
    got = c.fit_optim_cold(name, pts, 25e6, chunk_grid=range(20, 241, 20))
    for k, v in t.items():
        near("%s fit %s" % (name, k), got.get(k, -1), v, 1e-4)
    near("%s fit's largest error" % name, got["cold_max_rel_err"], 0, 1e-4)

# --carry-from (optim_cold_rows.carry): the floor per_touch x chunk weight and the warm pair are the
# source's, the launch cost at the launch forms' ratio, and the carried row prices the streaming
# nets as the target's own forms do (median ratio 1; every net within the form's spread, 10%)
import optim_cold_rows  # noqa: E402
src = dict(row, name="sgd", launch_us=2.0, cold_launch_us=2.5, cold_per_touch_us=1.4e-6, cold_chunk_touches=160,
           hbm_per_moved_elem_us=2.3e-6)
tgt = {"name": "sgd", "launch_us": 1.8, "per_moved_elem_us": 1.5e-6, "per_chunk_elem_us": 6e-5, "hbm_launch_us": 1.7,
       "hbm_per_moved_elem_us": 1.6e-6, "hbm_sat_blocks": 100, "cache_bytes": 62914560}
got = optim_cold_rows.carry(tgt, src, "cold form carried (test)")
near("carried floor", got["cold_per_touch_us"] * got["cold_chunk_touches"], 1.4e-6 * 160, 1e-3)
near("carried launch", got["cold_launch_us"], 2.5 * 1.8 / 2.0, 1e-3)
near("carried warm", got["warm_per_touch_us"], 5e-7)
ratios = sorted(c.optim_dev_us(got, s) / c.optim_dev_us(tgt, s)
                for s in ([W * W, W, W, W] * L for L, W in optim_cold_rows.STREAMING_NETS))
near("carried, streaming nets' median ratio", ratios[len(ratios) // 2], 1.0, 0.005)
if not 0.9 < ratios[0] <= ratios[-1] < 1.1:
    fails.append("carried, streaming nets' ratios %s" % ratios)

# a row already derived keeps its mark first (not a carried one's), and the same carry again gives
# the same row; a target row with its own measured cold form is kept (none left: refused)
again = optim_cold_rows.carry(got, src, "cold form carried (test)")
if again != got:
    fails.append("carrying a carried row again changed it: %r" % {k: (got.get(k), v) for k, v in again.items()})
if optim_cold_rows.carry(dict(tgt, derived="by hand"), src, "test")["derived"] != "by hand; test":
    fails.append("a derived row's mark not kept first")
with tempfile.TemporaryDirectory() as tmp:
    srcp = os.path.join(tmp, "src.json")
    json.dump({"compute": {"optimizer": [src]}}, open(srcp, "w"))
    try:
        optim_cold_rows.carried_rows({"sgd": dict(tgt, **{k: src[k] for k in c.COLD_FIELDS})}, srcp)
        fails.append("a measured cold form was carried over")
    except ValueError:
        pass

# optim_cold_rows.py: a probe without cold times, and one whose nets are too few, in one line each
tool = os.path.join(ROOT, "tools", "optim_cold_rows.py")
profile = os.path.join(ROOT, "data", "profiles", "h100-sxm.json")
with tempfile.TemporaryDirectory() as tmp:
    warm = os.path.join(tmp, "warm.json")
    json.dump({"l2_cache_bytes": 52428800, "points": [{"label": "net 4x256", "optimizer": "sgd", "L": 4, "W": 256,
                                                     "dev_us": 30.0}]}, open(warm, "w"))
    few = os.path.join(tmp, "few.json")
    json.dump({"l2_cache_bytes": 52428800, "points": [{"label": "net 4x256", "optimizer": "sgd", "L": 4, "W": 256,
                                                     "dev_us": 30.0, "cold_dev_us": 52.0}]}, open(few, "w"))
    out = os.path.join(tmp, "rows.json")
    for probe, words in ((warm, "--states cold"), (few, "fewer than 4")):
        r = subprocess.run([sys.executable, tool, "--profile", profile, "--out", out, probe],
                           capture_output=True, text=True)
        lines = r.stderr.strip().splitlines()
        if r.returncode != 65 or len(lines) != 1 or words not in lines[0] or os.path.exists(out):
            fails.append("%s: exit %d, stderr %r, rows written %s" % (probe, r.returncode, r.stderr, os.path.exists(out)))

for f in fails:
    print("FAIL", f)
print("test_optim_cold: %d failed" % len(fails))
sys.exit(1 if fails else 0)
