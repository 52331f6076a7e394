#!/usr/bin/env python3
"""tools/calib_torch.py's ops sweep measures the batch norm tables at the sweep's sizes and at the
sqrt(2)-spaced sizes from 2^21 to 2^25 (cuDNN's fp32 batch norm doubles its time between 2^21.5 and
2^22 elements: a 4x-spaced grid interpolates across the step), every other op at the sweep's sizes
alone. On stand-ins (no torch, no GPU): the element counts each table is built at, by hand."""
import os
import sys
import types

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import calib_torch as c  # noqa: E402

asked = {}


class T:
    def __init__(self, n):
        self.n = n
        self.requires_grad = True

    def numel(self):
        return self.n


def stub(name):
    def mk(n, dt):
        asked.setdefault((name, dt), []).append(n)
        return [T(n)], (lambda x: x), []
    return mk


c.op_defs = lambda torch, F: {"batchnorm2d_c64": stub("batchnorm2d_c64"), "layernorm": stub("layernorm")}
c.chain_bwd_host = lambda torch, fn, inputs: 0.0
torch = types.SimpleNamespace(bfloat16="bf16", float32="fp32", randn_like=lambda y: y,
                              autograd=types.SimpleNamespace(grad=lambda *a, **k: None))
tm = types.SimpleNamespace(device_us=lambda fn, **k: 1.0, host_us=lambda fn, **k: 1.0)
sweep = [1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24, 1 << 26]
tabs = c.measure_ops(torch, None, tm, sweep, lambda msg: None)

# by hand: 2^21.5 = 2965820.8, 2^22.5 = 5931641.6, 2^23.5 = 11863283.2, 2^24.5 = 23726566.4
bn = [65536, 262144, 1048576, 2097152, 2965821, 4194304, 5931642, 8388608, 11863283, 16777216,
      23726566, 33554432, 67108864]
fails = []
for (name, dt), want in (((n, d), bn if n.startswith("batchnorm") else sweep)
                         for n in ("batchnorm2d_c64", "layernorm") for d in ("bf16", "fp32")):
    got = asked.get((name, dt), [])[:-1]  # the last call: the host rows' tiny input (4096)
    if got != want:
        fails.append("%s %s: measured at %s, want %s" % (name, dt, got, want))
for t in tabs:
    if t["numel"] != asked[(t["op"], t["dtype"])][:-1]:
        fails.append("%s %s: table's numel %s not the sizes measured" % (t["op"], t["dtype"], t["numel"]))
if len(tabs) != 4:
    fails.append("%d tables, want 4" % len(tabs))
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
print("bn sizes: %d tables checked, %d failures" % (len(tabs), len(fails)))
sys.exit(1 if fails else 0)
