#!/usr/bin/env python3
"""tools/calib_torch.py's optimizer part, its host fit (no torch, no GPU): hand-made points whose
opt.step() CPU time is 50 + 8 x tensors us and whose step, where the host is behind, ends a fifth
of the device time after the host's issue less the GPU's lag; a device-bound point (device 5000 us
against 210 of host) must not enter the share. The fit must give 50, 8 and 0.2. Then the device
time's launch form: PyTorch's multi-tensor launches counted by hand, and its fit giving back
coefficients chosen by hand; and the overlap (the prologue's share of the host time, the time
after the host's last issue) from points priced by hand; and the HBM form (a launch at least
hbm_sat_blocks full chunks) from points priced by hand."""
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

# The overlap (fit_optim_overlap): points priced by hand as max(max(0, 0.4 x host - lag) + dev,
# host - lag + 90): host-bound ones (host - lag above 1.2 x dev) give tail_us 90, the others
# (device 3000 and 6000 us against 1200 and 5000 of host, lags 100 and 300) prologue_frac 0.4.
pts = []
for n, dev, lag in ((10, 100.0, 0.0), (100, 200.0, 30.0), (1000, 300.0, 500.0), (144, 3000.0, 100.0),
                    (619, 6000.0, 300.0)):
    host = 50.0 + 8.0 * n
    gap = max(max(0.0, 0.4 * host - lag) + dev, host - lag + 90.0)
    pts.append({"n": n, "host_us": host, "dev_us": dev, "lag_us": lag, "gap_us": gap})
pro, tail_us = c.fit_optim_overlap(pts)
fails += ["%s: got %.6f, expected %.6f" % (what, got, want)
          for what, got, want in (("prologue_frac", pro, 0.4), ("tail_us", tail_us, 90.0))
          if abs(got - want) > 1e-9 * max(1.0, want)]
if c.fit_optim_overlap([]) != (0.0, 0.0):
    fails.append("fit_optim_overlap of no points: %s, expected (0, 0)" % (c.fit_optim_overlap([]),))

# The launch form (mta_launches, as fusim's fu_optim_launches; cases by hand as in test_compute):
# one tensor of 320 chunks and 10 elements: 2 launches; 111 one-element tensors over two lists:
# 64 + 47; 97 over one scalarlist: 96 + 1.
for what, got, want in (
        ("320 chunks + 10", c.mta_launches([65536 * 320 + 10], 1, 0), (2, 65536 * 320 + 10, 65546)),
        ("111 x 1, two lists", c.mta_launches([1] * 111, 2, 0), (2, 222, 4)),
        ("97 x 1, scalarlist", c.mta_launches([1] * 97, 1, 1)[0], 2),
        ("96 x 1, scalarlist", c.mta_launches([1] * 96, 1, 1)[0], 1),
        # an empty tensor takes no slot (ATen skips it): 110 one-element ones fill one launch
        ("0 + 110 x 1", c.mta_launches([0] + [1] * 110, 1, 0), (1, 110, 1))):
    if got != want:
        fails.append("mta_launches %s: %s, expected %s" % (what, got, want))
# the fit gives back coefficients chosen by hand from points priced with them (OPT_NETS' nets)
for name, coef in (("sgd", (2.0, 1.5e-6, 6e-5)), ("adamw", (2.1, 1.3e-6, 8e-5))):
    pts = []
    for L, W in c.OPT_NETS:
        p = {"n": 4 * L, "numel": L * (W * W + 3 * W)}
        f = c.optim_launch_features(name, c.opt_point_sizes(p))
        pts.append(dict(p, dev_us=sum(a * b for a, b in zip(coef, f))))
    lu, lm, lc, err = c.fit_optim_launch(name, pts)
    for what, g, w in (("launch_us", lu, coef[0]), ("per_moved_elem_us", lm, coef[1]), ("per_chunk_elem_us", lc, coef[2])):
        if abs(g - w) > 1e-6 * w:
            fails.append("fit_optim_launch %s %s: %g, expected %g" % (name, what, g, w))
    if err > 1e-9:
        fails.append("fit_optim_launch %s: max error %g on exact points" % (name, err))
# the row's fields: the fit's where fusim reads them; none where a coefficient is one fusim's
# parser refuses (here per_chunk_elem_us -1e-6, given back by the exact fit), so the row keeps
# base + per tensor + per element instead of a profile fusim cannot load
for coef, want in (((2.0, 1.5e-6, 6e-5), ["launch_us", "per_moved_elem_us", "per_chunk_elem_us",
                                          "launch_max_rel_err"]), ((5.0, 1.5e-6, -1e-6), [])):
    pts = []
    for L, W in c.OPT_NETS:
        p = {"n": 4 * L, "numel": L * (W * W + 3 * W)}
        f = c.optim_launch_features("sgd", c.opt_point_sizes(p))
        pts.append(dict(p, dev_us=sum(a * b for a, b in zip(coef, f))))
    got = c.optim_launch_fields("sgd", pts)
    if list(got) != want:
        fails.append("optim_launch_fields at %s: %s, expected keys %s" % (coef, got, want))
# The HBM form (fit_optim_hbm): points priced by hand as launches x 4.5 + 1.6e-6 x lists x
# max(elements, 100 x largest chunk) per launch give those back; only the nets whose every
# operation outgrows a 60 MiB cache enter (SGD's 1-list mul_: 4 x numel bytes above it), so the
# small nets, priced here at 10x, must not move the fit.
mul = c.mta_launch_list([65536.0 * 4] * 20, 1, 0)  # 20 tensors of 4 full chunks: one launch
if mul != [(65536.0 * 80, 65536.0)]:
    fails.append("mta_launch_list 20 x 4 chunks: %s, expected one launch of 80 chunks" % mul)
if c.optim_hbm_features("sgd", [65536.0 * 4] * 20, 100) != (3.0, 5 * 6553600.0):
    fails.append("optim_hbm_features sgd 20 x 4 chunks at 100 blocks: %s, expected (3, 32768000)"
                 % (c.optim_hbm_features("sgd", [65536.0 * 4] * 20, 100),))
pts = []
for L, W in c.OPT_NETS:
    p = {"n": 4 * L, "numel": L * (W * W + 3 * W), "L": L, "W": W}
    n, t = c.optim_hbm_features("sgd", c.opt_point_sizes(p), 100)
    streams = 4 * p["numel"] > 60 * 2**20
    pts.append(dict(p, dev_us=(4.5 * n + 1.6e-6 * t) * (1 if streams else 10)))
got = c.fit_optim_hbm("sgd", pts, 60 * 2**20)
for k, want in (("hbm_launch_us", 4.5), ("hbm_per_moved_elem_us", 1.6e-6), ("hbm_sat_blocks", 100),
                ("cache_bytes", 60 * 2**20)):
    if abs(got.get(k, -1) - want) > 1e-4 * want:
        fails.append("fit_optim_hbm %s: %s, expected %g" % (k, got.get(k), want))
if c.fit_optim_hbm("sgd", pts, 2**40) != {}:   # a cache that holds every net: no streaming point
    fails.append("fit_optim_hbm with every net in the cache: %s, expected {}" % c.fit_optim_hbm("sgd", pts, 2**40))
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
