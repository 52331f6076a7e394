#!/usr/bin/env python3
"""tools/calib_torch.py's clipped optimizer rows ("<optimizer>_clip": torch.nn.utils.clip_grad_norm_
inside the step), no torch: the operations (OPT_FOREACH's after the clip's _foreach_norm, one list
read only, half an in-place list's bytes, and _foreach_mul_, one list in place), the small
kernels (6 + a norm cleanup kernel per 400 tensors + a cat kernel per 128 norms), and the launch and HBM features against counts by
hand; the plain rows' features unchanged; the fit giving back coefficients chosen by hand."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import calib_torch as c  # noqa: E402

fails = []


def same(what, got, want):
    if list(got) != list(want):
        fails.append("%s: %s, expected %s" % (what, got, want))


same("optim_ops sgd_clip", c.optim_ops("sgd_clip"),
     [(1, 0, 0.5), (1, 0, 1.0), (1, 0, 1.0), (2, 0, 1.0), (2, 0, 1.0)])
same("optim_ops sgd", c.optim_ops("sgd"), [(1, 0, 1.0), (2, 0, 1.0), (2, 0, 1.0)])
# 6 + a norm cleanup kernel per 400 tensors + a cat kernel per 128
same("clip_small_launches 1, 128, 129, 138, 256, 400, 401, 1000",
     [c.clip_small_launches(n) for n in (1, 128, 129, 138, 256, 400, 401, 1000)], [8, 8, 9, 9, 9, 11, 12, 17])
same("has_launch_form", [c.has_launch_form(n) for n in ("adamw_clip", "adam_clip", "sgd_clip", "adamw", "lamb",
                                                         "lamb_clip")], [True, True, True, True, False, False])

# 20 tensors of 4 full chunks (80 chunks): every operation one launch. SGD: 3 launches over
# 1 + 2 + 2 lists; the clip adds 2 launches over 0.5 + 1 lists and 6 + 1 + 1 = 8 small kernels
E, CH = 65536.0 * 4 * 20, 65536.0
sizes = [65536.0 * 4] * 20
same("optim_launch_features sgd, 20 x 4 chunks", c.optim_launch_features("sgd", sizes), [3, 5 * E, 5 * CH])
same("optim_launch_features sgd_clip, 20 x 4 chunks", c.optim_launch_features("sgd_clip", sizes),
     [13, 6.5 * E, 6.5 * CH])
# the HBM form at 100 saturating blocks: each list of each launch counts max(80 chunks, 100 chunks)
same("optim_hbm_features sgd_clip, 20 x 4 chunks at 100 blocks", c.optim_hbm_features("sgd_clip", sizes, 100),
     (13.0, 6.5 * 100 * CH))
# 200 tensors of 2 chunks: one-list launches stop at 110 tensors (220 chunks), so the norm and the
# mul take 2 launches each (110 + 90 tensors, each launch's largest chunk 65536); 6 + 1 cleanup +
# ceil(200/128) = 2 stack kernels: AdamW's features grow by (2 + 2 + 9, 1.5 x elements, 1.5 x 2 chunks)
sizes = [131072.0] * 200
a, b = c.optim_launch_features("adamw", sizes), c.optim_launch_features("adamw_clip", sizes)
same("adamw_clip - adamw, 200 x 2 chunks", [y - x for x, y in zip(a, b)], [13, 1.5 * 200 * 131072, 1.5 * 2 * 65536])
if not c.optim_streams("adamw_clip", 62914560 // 4 + 1, 62914560) or c.optim_streams("adamw_clip", 1000, 62914560):
    fails.append("optim_streams adamw_clip: a one-list operation streams past the cache's bytes / 4 elements")

# the launch fit gives back coefficients chosen by hand from points priced with them
coef = (2.2, 1.4e-6, 7e-5)
pts = []
for L, W in c.OPT_NETS:
    p = {"n": 4 * L, "numel": L * (W * W + 3 * W)}
    f = c.optim_launch_features("adamw_clip", c.opt_point_sizes(p))
    pts.append(dict(p, dev_us=sum(x * y for x, y in zip(coef, f))))
lu, lm, lc, err = c.fit_optim_launch("adamw_clip", pts)
for what, g, w in (("launch_us", lu, coef[0]), ("per_moved_elem_us", lm, coef[1]), ("per_chunk_elem_us", lc, coef[2])):
    if abs(g - w) > 1e-6 * w:
        fails.append("fit_optim_launch adamw_clip %s: %g, expected %g" % (what, g, w))
# clipped_step: clip_grad_norm_(the parameters, 1.0) first, then the optimizer's step (stand-ins)
calls = []


class Utils:
    @staticmethod
    def clip_grad_norm_(params, max_norm):
        calls.append(("clip", tuple(params), max_norm))


class Torch:
    class nn:
        utils = Utils


class Opt:
    def step(self):
        calls.append(("step",))


c.clipped_step(Torch, Opt(), ["p1", "p2"]).step()
same("clipped_step", calls, [("clip", ("p1", "p2"), 1.0), ("step",)])
# --optimizers: names from OPT_NAMES, else exit 64 before torch is imported
try:
    c.main(["--out", os.devnull, "--parts", "optimizer", "--optimizers", "adamw_clip,lamb"])
    fails.append("--optimizers lamb: accepted")
except SystemExit as e:
    if e.code != 64:
        fails.append("--optimizers lamb: exit %s, expected 64" % e.code)

# tools/clip_check.py mech: hand-made calibrations of two nets whose clipped steps cost the plain
# ones plus twice what the launch form adds (launch_us 2, 1e-6 us per moved element): the added
# device time reads -50%, the clipped step (plain + the form's add) (p + a) / (p + 2a) - 1; a
# calibration without the plain row: one line, exit 65
import atexit  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
tmp = tempfile.mkdtemp(prefix="fusim-clipcheck-")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)
row = dict(name="sgd", base_us=1.0, per_tensor_us=0.0, per_elem_us=0.0, launch_us=2.0, per_moved_elem_us=1e-6,
           per_chunk_elem_us=0.0, host_base_us=100.0, host_per_tensor_us=1.0, host_probe_us=5.0)
pts = [dict(n=4 * L, numel=L * (W * W + 3 * W), L=L, W=W, dev_us=100.0 * (i + 1), host_us=500.0)
       for i, (L, W) in enumerate([(4, 256), (16, 1024)])]
adds = [c.optim_dev_us(dict(row, name="sgd_clip"), c.opt_point_sizes(p)) - c.optim_dev_us(row, c.opt_point_sizes(p))
        for p in pts]
clip_pts = [dict(p, dev_us=p["dev_us"] + 2 * a, host_us=600.0) for p, a in zip(pts, adds)]
files = {}
for name, rows in (("clip", [dict(row, name="sgd_clip", points=clip_pts)]), ("plain", [dict(row, points=pts)]),
                   ("none", [])):
    files[name] = os.path.join(tmp, name + ".json")
    json.dump({"format": "fusim-compute-1", "compute": {"optimizer": rows}}, open(files[name], "w"))
tool = os.path.join(ROOT, "tools", "clip_check.py")
r = subprocess.run([sys.executable, tool, "mech", files["clip"], files["plain"]], capture_output=True, text=True)
lines = [x.split() for x in r.stdout.splitlines() if re.match(r"sgd +\d", x)]
if r.returncode != 0 or len(lines) != 2:
    fails.append("clip_check mech: exit %d, %r %r" % (r.returncode, r.stdout, r.stderr))
else:
    for x, p, a in zip(lines, pts, adds):
        want = [p["n"], round(2 * a, 1), round(a, 1), -50, round(100 * ((p["dev_us"] + a) / (p["dev_us"] + 2 * a) - 1), 1),
                100.0]
        got = [int(x[1]), float(x[3]), float(x[4]), int(x[5].rstrip("%")), float(x[8].rstrip("%")), float(x[9])]
        if got != want:
            fails.append("clip_check mech, %d tensors: %s, expected %s" % (p["n"], got, want))
    if not re.search(r"the clip adds \+\d+ us", r.stdout):
        fails.append("clip_check mech: no host line: %r" % r.stdout)
r = subprocess.run([sys.executable, tool, "mech", files["clip"], files["none"]], capture_output=True, text=True)
if r.returncode != 65 or len(r.stderr.strip().splitlines()) != 1:
    fails.append("clip_check mech without the plain row: exit %d, %r" % (r.returncode, r.stderr))
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
