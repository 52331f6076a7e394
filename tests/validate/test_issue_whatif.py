#!/usr/bin/env python3
"""test_issue_whatif.py: data/validation/issue_cold_whatif.py on hand-made data (no torch, no GPU).

A probe of two models, each with hk_e1 / hk_e4 / hk_e16 steps of 4 / 2 / 1 issues, built so
that the answers come by hand: model A's framework-free backward() is 400 us (medians of 300,
400, 500), model B's 800 us; per step the issues after the first cost (us) A: 30 / 50 / 90 at
e1 / e4 / e16, B: 40 / 60 / 120 (first issues 500 us, left out). Buckets a step: e1 4, e4 2,
e16 1; e16's one issue is its first, so e16 gives no point. Per model:
us apart = backward / buckets, extra = cost - e1's: A [[100, 0], [200, 20]], B [[200, 0],
[400, 20]]; averaged at each N: [[150, 0], [300, 20]]. inject() on a workload of 4 tensors whose
framework-free backward() was 480 us (dense 120 us apart; the curve there reads 20 x (120 -
150) / 150 -> clamped to the first point, 0): the hook pattern's curve [[120, 70], [150, 70],
[300, 90]] at hooks.bucket_us 70, DDP's offload [[120, 36], [150, 36], [300, 56]] at
hook_bucket_us 80 - bucket_us 44, both marked direct. Bad input: a missing probe exits 66, a
probe without hook-pattern points or of another layout 65, each one stderr line; tools/issue_probe.py's bad
arguments 64 and an --out it cannot write 73, before it imports torch.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
VAL = os.path.join(HERE, "..", "..", "data", "validation")
sys.path.insert(0, VAL)
import issue_cold_whatif as W  # noqa: E402

fails = 0


def check(what, ok):
    global fails
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    fails += 0 if ok else 1


def steps(bwds, n_issues, cost):
    return [{"bwd_us": b, "issues": [{"parts": [500.0, 0, 0, 0, 0]}]
             + [{"parts": [cost, 0, 0, 0, 0]} for _ in range(n_issues - 1)]} for b in bwds]


def model(base, costs):
    bw = [base - 100, base, base + 100]
    return {"raw": {"none": [{"bwd_us": b} for b in bw], "hk_0": [{"bwd_us": b} for b in bw],
                    "hk_e1": steps(bw, 4, costs[0]), "hk_e4": steps(bw, 2, costs[1]),
                    "hk_e16": steps(bw, 1, costs[2])}}


probe = {"part_b": [model(400.0, (30.0, 50.0, 90.0)), model(800.0, (40.0, 60.0, 120.0))]}
curve = W.probe_curve(probe)
check("probe_curve %s == [[150, 0], [300, 20]]" % curve, curve == [[150.0, 0.0], [300.0, 20.0]])
wl = {"host": {"hooks": {"bucket_us": 70.0}, "ddp": {"bucket_us": 44.0, "hook_bucket_us": 80.0}},
      "meta": {"tensors": 4, "framework_on_model": {"bwd_cpu_us": 480.0}}}
check("inject: a workload with framework costs", W.inject(wl, curve))
isp = wl["host"]["issue_spacing"]
check("hooks curve %s" % isp["hooks"], isp["hooks"] == [[120.0, 70.0], [150.0, 70.0], [300.0, 90.0]])
check("offload curve %s" % isp["ddp_offload"],
      isp["ddp_offload"] == [[120.0, 36.0], [150.0, 36.0], [300.0, 56.0]])
check("marked direct", wl["meta"]["framework_on_model"]["issue_spacing_source"]
      == {"hooks": "direct", "ddp_offload": "direct"})
check("no framework costs: nothing injected", not W.inject({"host": {}, "meta": {}}, curve))

with tempfile.TemporaryDirectory() as tmp:
    script = os.path.join(VAL, "issue_cold_whatif.py")
    r = subprocess.run([sys.executable, script, os.path.join(tmp, "none.json"), tmp],
                       capture_output=True, text=True)
    check("missing probe: exit 66, one line (%d, %r)" % (r.returncode, r.stderr),
          r.returncode == 66 and r.stderr.count("\n") == 1 and not r.stdout)
    p = os.path.join(tmp, "p.json")
    with open(p, "w") as f:
        json.dump({"part_b": []}, f)
    r = subprocess.run([sys.executable, script, p, tmp], capture_output=True, text=True)
    check("probe without points: exit 65, one line (%d, %r)" % (r.returncode, r.stderr),
          r.returncode == 65 and r.stderr.count("\n") == 1 and not r.stdout)
    for name, bad in (("list", [1]), ("raw without none", {"part_b": [{"raw": {}}]})):
        with open(p, "w") as f:
            json.dump(bad, f)
        r = subprocess.run([sys.executable, script, p, tmp], capture_output=True, text=True)
        check("a probe of another layout (%s): exit 65, one line (%d, %r)" % (name, r.returncode, r.stderr),
              r.returncode == 65 and r.stderr.count("\n") == 1 and not r.stdout)
    # a run whose bench fails (runs.json without models): its last line, exit 65
    with open(p, "w") as f:
        json.dump(probe, f)
    os.mkdir(os.path.join(tmp, "run"))
    with open(os.path.join(tmp, "run", "runs.json"), "w") as f:
        f.write("{}")
    r = subprocess.run([sys.executable, script, p, os.path.join(tmp, "run")], capture_output=True, text=True)
    check("a run whose bench fails: exit 65, one line (%d, %r)" % (r.returncode, r.stderr),
          r.returncode == 65 and r.stderr.count("\n") == 1 and "bench failed" in r.stderr)
# tools/issue_probe.py's arguments, checked before torch is imported (so here too): bad ones exit
# 64, an --out whose folder is missing 73, one stderr line each, nothing written
PROBE = os.path.join(HERE, "..", "..", "tools", "issue_probe.py")
with tempfile.TemporaryDirectory() as tmp:
    for args, want in ((["--widths", "0,a"], 64), (["--widths", "-30"], 64), (["--rounds", "0"], 64),
                       (["--a-rounds", "0"], 64), (["--models", "resnet50:0"], 64),
                       (["--out", os.path.join(tmp, "missing", "p.json")], 73)):
        r = subprocess.run([sys.executable, PROBE, "--out", os.path.join(tmp, "p.json")] + args,
                           capture_output=True, text=True)
        check("issue_probe %s: exit %d, one line (%d, %r)" % (" ".join(args), want, r.returncode, r.stderr),
              r.returncode == want and r.stderr.count("\n") == 1 and not r.stdout and not os.listdir(tmp))
print("%d failed" % fails)
sys.exit(1 if fails else 0)
