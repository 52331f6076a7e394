#!/usr/bin/env python3
"""test_beside.py: tools/torch_beside.py's estimator on hand-made rounds (no torch, no GPU).

Rounds: the framework-free backward() CPU time drifts from round to round (9000 + 400 k us);
beside a D2H it takes 1.2x the same round's, except one round where the host stalled during the
transfer (2x); the GPU time 20000 us, 1.01x beside a D2H, one round at 0.99 (noise). The medians
of the paired ratios must give 1.2 and 1.01 exactly (the odd rounds are one of seven); a compute
factor below 1, or one whose bootstrap p5 is not above 1 (rounds spread around 1), is left out of
the block; a round with a missing time (0) is skipped. Only the compute factor goes into the
block. The hook pattern's offloads issued inside backward (run 16's captures, hk_full / hk_tiny):
1200 us more backward() CPU time with full buckets of 400 MiB than with 4 KiB of each
(one round stalled 5 ms) give 3 us per MiB; differences spread around 0 are left out. Buckets
issued inside backward against after it, 900 us more a round (one round 4 ms more): 900 us,
kept in meta, not in the block.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import torch_beside as tb  # noqa: E402

fails = 0


def check(what, ok):
    global fails
    print("%s: %s" % ("ok" if ok else "FAIL", what))
    fails += not ok


host = [9000.0 + 400.0 * ((r * 3) % 5) for r in range(7)]
raw = {"host": host, "host_d2h": [h * (2.0 if r == 4 else 1.2) for r, h in enumerate(host)],
       "gpu": [20000.0] * 7, "gpu_d2h": [20000.0 * (0.99 if r == 2 else 1.01) for r in range(7)]}
est = tb.estimate(raw)
check("host factor 1.2 from the paired medians (one stalled round): %s" % est["host"],
      abs(est["host"] - 1.2) < 1e-9)
check("compute factor 1.01 (one round below 1): %s" % est["compute"],
      abs(est["compute"] - 1.01) < 1e-9)
check("bootstrap bounds hold the factors: %s" % est["ci"],
      est["ci"]["host"][0] <= 1.2 <= est["ci"]["host"][1] and est["ci"]["compute"][0] > 1)
check("block keeps the compute factor (p5 above 1), not the host's", tb.block(est) == {"compute": 1.01})
mixed = dict(raw, gpu_d2h=[20000.0 * f for f in (1.03, 0.97, 1.02, 0.98, 1.01, 0.99, 1.005)])
e2 = tb.estimate(mixed)
check("a compute factor of 1.005 from rounds spread over 0.97-1.03 (p5 %.4f <= 1) is left out"
      % e2["ci"]["compute"][0], tb.block(e2) is None)
low = dict(raw, gpu_d2h=[19000.0] * 7)
check("a compute factor below 1 is left out of the block", tb.block(tb.estimate(low)) is None)
check("no compute factor: no block", tb.block({"host": 1.3, "compute": None, "ci": {"host": [1.2, 1.4]}})
      is None)
gap = dict(raw, host=[0.0] + host[1:])
check("a round without a time is skipped (median of the other six: 1.2)",
      abs(tb.estimate(gap)["host"] - 1.2) < 1e-9)
check("no rounds: None", tb.estimate({})["host"] is None)
# offloads issued inside backward: hk_full over hk_tiny, 3 us per MiB of 400 MiB (one round
# with a 5 ms stall); rounds spread around no cost are left out
hk = dict(raw, hk_tiny=host, hk_mib=400.0,
          hk_full=[h + 1200.0 + (5000.0 if r == 1 else 0.0) for r, h in enumerate(host)])
e3 = tb.estimate(hk)
check("issue cost 3 us per MiB from the paired medians: %s" % e3["issue_mib_us"],
      abs(e3["issue_mib_us"] - 3.0) < 1e-9)
check("... its bounds above 0: %s" % e3["ci"]["issue_mib_us"], e3["ci"]["issue_mib_us"][0] > 0)
noisy = dict(hk, hk_full=[h + d for h, d in zip(host, (300, -300, 200, -200, 100, -100, 0))])
e4 = tb.estimate(noisy)
check("an issue cost the rounds cannot tell from 0 has bounds across 0 (%s)" % e4["ci"]["issue_mib_us"],
      e4["ci"]["issue_mib_us"][0] < 0 < e4["ci"]["issue_mib_us"][1])
check("no hook rounds: no issue cost", tb.estimate(raw)["issue_mib_us"] is None)
# buckets issued inside backward against after it: 900 us more a round (one round 4000 more)
io = dict(raw, hk_off=host, hk_on=[h + 900.0 + (4000.0 if r == 5 else 0.0) for r, h in enumerate(host)])
e6 = tb.estimate(io)
check("in-backward issue 900 us from the paired medians: %s %s"
      % (e6["in_bwd_issue_us"], e6["ci"]["in_bwd_issue_us"]),
      e6["in_bwd_issue_us"] == 900.0 and e6["ci"]["in_bwd_issue_us"][0] == 900.0)
check("... kept out of the block (meta only)", "in_bwd_issue_us" not in tb.block(e6))
check("no hk_on / hk_off rounds: None", tb.estimate(raw)["in_bwd_issue_us"] is None)
# the slowdown after the first in-backward issue: backward's time after the issue 1.1x the same
# stretch without it in its round (the stretch drifts 8000 + 300 k us), one round stalled (1.6x),
# one round without a time (None: a step whose hook did not stamp): s = 0.1 from the paired
# medians, its bounds above 0; it stays in meta (fusim prices none: run 18 measured none);
# rounds spread around no slowdown give bounds across 0
off = [8000.0 + 300.0 * ((r * 7) % 5) for r in range(24)]
fi = dict(raw, fi_off_rest=off + [None],
          fi_on_rest=[o * (1.6 if r == 3 else 1.1) for r, o in enumerate(off)] + [9000.0])
e7 = tb.estimate(fi)
check("in_bwd_slow 0.1 from the paired ratios (one stalled round, one missing): %s %s"
      % (e7["in_bwd_slow"], e7["ci"]["in_bwd_slow"]),
      abs(e7["in_bwd_slow"] - 0.1) < 1e-9 and 0 < e7["ci"]["in_bwd_slow"][0] <= 0.1
      <= e7["ci"]["in_bwd_slow"][1])
check("... kept out of the block (meta only)", "in_bwd_slow" not in (tb.block(e7) or {}))
fz = dict(raw, fi_off_rest=off, fi_on_rest=[o * (1 + (0.03 if r % 2 else -0.03)) for r, o in enumerate(off)])
e8 = tb.estimate(fz)
check("a slowdown spread around 0 has bounds across 0: %s" % e8["ci"]["in_bwd_slow"],
      e8["ci"]["in_bwd_slow"][0] < 0 < e8["ci"]["in_bwd_slow"][1])
check("no first-issue rounds: None", tb.estimate(raw)["in_bwd_slow"] is None)
print("%d failed" % fails)
sys.exit(1 if fails else 0)
