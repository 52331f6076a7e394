#!/usr/bin/env python3
"""tools/calib_torch.py's gemm part lays its tables out as fusim reads them (no torch, no GPU): a
stand-in torch whose products report their (m, n, k) and a timer that prices them at an efficiency
that depends on which axis a size sits on, so a swapped axis shows. bf16 and TF32 fwd and dgrad
must run tokens (the powers of two 128..16384 and the 1.5x steps between) x GEMM_WIDTHS x
GEMM_WIDTHS, wgrad GEMM_WIDTHS x GEMM_WIDTHS x tokens; fp32 stays on its 4-point grid; GEMM_WIDTHS
and GEMM_TOKENS must fit fusim's axis (FU_GEMM_GRID_AXIS in model/fu_compute.h) and hold the powers
of two."""
import os
import re
import sys
import types

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import calib_torch as c  # noqa: E402


class T:  # a tensor that knows its shape
    def __init__(self, *shape):
        self.shape = shape

    def t(self):
        return T(self.shape[1], self.shape[0])


torch = types.SimpleNamespace(
    bfloat16="bf16", float32="fp32",
    randn=lambda *s, **kw: T(*s),
    matmul=lambda a, b: (a.shape[0], b.shape[1], a.shape[1]),  # (m, n, k) of the product
    backends=types.SimpleNamespace(cuda=types.SimpleNamespace(matmul=types.SimpleNamespace(allow_tf32=False)),
                                   cudnn=types.SimpleNamespace(allow_tf32=False)))


def us(m, n, k):  # efficiency 1 + m / 1e6 + n / 1e9 FLOP/us: each axis its own share
    return 2.0 * m * n * k / (1 + m / 1e6 + n / 1e9)


class Tm:
    def device_us(self, fn, reps=5):
        return us(*fn())


fails = []
tabs = c.measure_gemm_aligned(torch, Tm(), False, lambda msg: None, c.Deadline(0))
pow2 = [128 << i for i in range(8)]
tok = [128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384]  # by hand
W = c.GEMM_WIDTHS
for t in tabs:
    want = ([256, 1024, 4096, 16384],) * 3 if t["dtype"] == "fp32" else \
        (W, W, tok) if t["layout"] == "wgrad" else (tok, W, W)
    if (t["m"], t["n"], t["k"]) != tuple(want):
        fails.append("%s %s: axes %s" % (t["dtype"], t["layout"], (t["m"][:3], t["n"][:3], t["k"][:3])))
        continue
    i = 0  # m-major, as fusim reads "us"
    for m in t["m"]:
        for n in t["n"]:
            for k in t["k"]:
                if abs(t["us"][i] - round(us(m, n, k), 3)) > 1e-3:
                    fails.append("%s %s (%d, %d, %d): %s" % (t["dtype"], t["layout"], m, n, k, t["us"][i]))
                i += 1
if [(t["dtype"], t["layout"]) for t in tabs] != [(d, lay) for d in ("bf16", "tf32", "fp32") for lay in ("fwd", "dgrad", "wgrad")]:
    fails.append("tables: %s" % [(t["dtype"], t["layout"]) for t in tabs])
axis = int(re.search(r"#define FU_GEMM_GRID_AXIS (\d+)", open(os.path.join(ROOT, "model", "fu_compute.h")).read()).group(1))
for name, ax in (("GEMM_WIDTHS", W), ("GEMM_TOKENS", c.GEMM_TOKENS)):
    if len(ax) > axis or ax != sorted(set(ax)) or not set(pow2) <= set(ax):
        fails.append("%s: %d values (fusim's axis holds %d), ascending, with the powers of two" % (name, len(ax), axis))
for f in fails[:10]:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
