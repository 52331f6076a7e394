#!/usr/bin/env python3
"""tools/calib_torch.py measure_conv on stand-ins (no torch, no GPU): with flush, the class's tables
so far are put into the caller's list and flush() called after every batch x map size, so a sweep
killed by its timeout keeps what it timed. One dense class k3s1 over two map sizes (batch 2, Ho 4
and 8: M = 32 and 128) and one shape (cin 16 -> cout 32, K = 16 x 9 = 144); every call "takes"
M / 16 us. At the first flush the list holds fwd, dgrad and wgrad with m = [32] (fwd 2.0 us); at
the second m = [32, 128] (fwd 2.0, 8.0); the result is the same list, the three tables once."""
import contextlib
import copy
import os
import sys
import types

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import calib_torch as c  # noqa: E402

fails = []


def check(what, got, want):
    if got != want:
        fails.append("%s: got %r, expected %r" % (what, got, want))


class Tm:
    def device_us(self, fn, reps=5):
        return fn()


class Open:
    def passed(self):
        return False


torch = types.SimpleNamespace(bfloat16="bf16", float32="fp32",
                              backends=types.SimpleNamespace(cudnn=types.SimpleNamespace(benchmark=False)),
                              cuda=types.SimpleNamespace(empty_cache=lambda: None))
c.Tf32 = lambda *a: contextlib.nullcontext()
c.conv_todo = lambda groups: [(3, 1, [(2, 4), (2, 8)], [(16, 32, 1)], "k3s1")]
c.conv_calls = lambda torch, dt, b, ho, cin, cout, k, s, nchw, g: (lambda: b * ho * ho / 16.0,) * 3

into, seen = [], []
out = c.measure_conv(torch, Tm(), ["bf16"], lambda *a: None, Open(), into=into,
                     flush=lambda: seen.append(copy.deepcopy(into)))
check("flushes", len(seen), 2)
check("first flush: layouts", [t["layout"] for t in seen[0]], ["fwd", "dgrad", "wgrad"])
check("first flush: fwd m", seen[0][0]["m"], [32])
check("first flush: fwd us", seen[0][0]["us"], [2.0])
check("second flush: fwd m", seen[1][0]["m"], [32, 128])
check("second flush: fwd us", seen[1][0]["us"], [2.0, 8.0])
check("second flush: wgrad k (M)", seen[1][2]["k"], [32, 128])
check("the caller's list returned", out is into, True)
check("tables at the end", [(t["layout"], t["m"], t["us"]) for t in out],
      [("fwd", [32, 128], [2.0, 8.0]), ("dgrad", [32, 128], [2.0, 8.0]), ("wgrad", [32], [2.0, 8.0])])
check("benchmark mode restored", torch.backends.cudnn.benchmark, False)
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
