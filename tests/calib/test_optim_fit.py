#!/usr/bin/env python3
"""tools/calib_torch.py's optimizer part, its host fit (no torch, no GPU): hand-made points whose
opt.step() CPU time is 50 + 8 x tensors us and whose step, where the host is behind, ends a fifth
of the device time after the host's issue less the GPU's lag; a device-bound point (device 5000 us
against 210 of host) must not enter the share. The fit must give 50, 8 and 0.2."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import calib_torch as c  # noqa: E402

pts = []
for n, dev, lag in ((10, 100.0, 0.0), (100, 200.0, 30.0), (1000, 300.0, 500.0), (20, 5000.0, 0.0)):
    host = 50.0 + 8.0 * n
    gap = max(dev, host - lag + 0.2 * dev)
    pts.append({"n": n, "host_us": host, "dev_us": dev, "lag_us": lag, "gap_us": gap})
base, per_t, tail = c.fit_optim_host(pts)
fails = ["%s: got %.6f, expected %.6f" % (what, got, want)
         for what, got, want in (("host_base_us", base, 50.0), ("host_per_tensor_us", per_t, 8.0),
                                 ("tail_frac", tail, 0.2)) if abs(got - want) > 1e-9 * max(1.0, want)]
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
