#!/usr/bin/env python3
"""tools/calib_torch.py's timer part on stand-ins (no torch, no GPU): each call's per-call time
(device_us) against the same call repeating itself (batch_us, 20 a pair), then model-like streams
of the calls against the sum of their per-call times; timer_overhead_us is the median over the
streams of what the per-call events add a call. Hand-made timings: call i costs k_i = 1 + i us
in a stream of its own kind, per-call events read k_i + 1.5, a stream of n calls reads
sum(k) + 0.5 n (a kernel after another kind costs 0.5 more): 1.5 a call repeating itself, 1.0 a
call in every stream, so timer_overhead_us = 1.0 by hand; with one stream read 3 us a call
shorter than the others the median keeps 1.0."""
import os
import sys
import types

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import calib_torch as c  # noqa: E402

fails = []


def check(what, got, want, tol=1e-9):
    if not abs(got - want) <= tol:
        fails.append("%s: got %r, expected %r" % (what, got, want))


labels = ["layernorm bf16 65536 fwd", "gelu bf16 1048576 fwd", "relu bf16 1048576 bwd",
          "batchnorm2d fp32 16777216 bwd", "gemm bf16 fwd 128x128x128", "conv tf32 k3s1 32x14 256->256 wgrad",
          "sdpa bf16 s128 bh16 hd64 fwd"]
cost = {}
cases = []
for i, lab in enumerate(labels):
    def fn(i=i):
        return i
    cost[fn] = 1.0 + i
    kind = "gemm:bf16" if lab.startswith("gemm") else "conv:tf32" if lab.startswith("conv") else "op"
    cases.append((lab, kind, fn))


class Tm:
    def device_us(self, fn, reps=10):
        return cost[fn] + 1.5

    def batch_us(self, fn, reps=20):
        if fn in cost:  # the call repeating itself
            return cost[fn]
        fns = fn.__defaults__[0]  # a stream, stream(fns=...): its calls
        return sum(cost[f] for f in fns) + 0.5 * len(fns)


class NoTf32:
    def __init__(self, *a):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


c.timer_cases = lambda torch, F: cases
c.kernels_per_call = lambda torch, fn: 1.0
c.Tf32 = NoTf32
torch = types.SimpleNamespace(backends=types.SimpleNamespace(cudnn=types.SimpleNamespace(benchmark=False)))
over, rows = c.measure_timer(torch, None, Tm(), lambda msg: None)
alone = [r for r in rows if r["kind"] != "stream"]
streams = [r for r in rows if r["kind"] == "stream"]
check("one row per call", len(alone), len(labels), 0)
for r in alone:
    check(r["call"] + ": per-call - batched", r["per_call_us"] - r["batched_us"], 1.5, 1e-3)
# by hand: the streams the part builds from these labels (picked by size, kind and direction)
want = {"stream: op forwards at 2^16": 1, "stream: op forwards at 2^20": 1, "stream: op backwards at 2^20": 1,
        "stream: ops at 2^24": 1, "stream: convolutions, batch norm and relu": 2,
        "stream: GEMMs, attention and small ops": 4, "stream: every call": 7, "stream: every call, reversed": 7}
check("streams", len(streams), len(want), 0)
for r in streams:
    check(r["call"] + ": calls", r["calls"], want.get(r["call"], -1), 0)
    check(r["call"] + ": excess a call", c.stream_excess(r), 1.0, 1e-3)
check("timer_overhead_us", over, 1.0, 1e-3)
# the median over streams, not the mean: one stream 3 us a call lower leaves it
rows2 = rows + [{"call": "stream: odd", "kind": "stream", "calls": 2, "per_call_us": 10.0, "batched_us": 14.0}]
check("timer_overhead (one odd stream)", c.timer_overhead(rows2), 1.0, 1e-9)
check("timer is a part", "timer" in c.PARTS, True, 0)
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
print("timer: %d streams, overhead %.3f us, %d failures" % (len(streams), over, len(fails)))
sys.exit(1 if fails else 0)
