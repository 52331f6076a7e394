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
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
