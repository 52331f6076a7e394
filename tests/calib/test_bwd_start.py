#!/usr/bin/env python3
"""test_bwd_start.py: tools/bwd_start.py's rows from hand-made rounds, its --steps re-derivation
(merged into a profile by fusim fit --compute) and the first kernels from hand-made trace timestamps
(no torch needed; its bad arguments: test_tool_args.py). Profile row tv_resnet50_held bf16 backward
9000 us. At the profile's host speed backward()'s start is S + W x nodes, S = 400 us, W = 0.5 us a
node; each round runs at its own host speed s (1, 1.5, 0.8), its held ResNet-50 backward s x 9000, every start s x
(S + W nodes): cnn_s (20 nodes) 410 s, cnn_l (400 nodes) 600 s, linear (5 nodes) 402.5 s. So the
rows are torch_bwd_start 400 and torch_bwd_start_node 0.5 whatever s; linear's start at the profile's
speed is 402.5, 1.0 x the fit. A fourth round whose held call outlasted its sleep (flagged; its
starts junk) is left out. fp32 has no profile row: no rows. First kernels: calls at 0 and 100 us,
first nodes at 30 and 150, kernels at 5, 40, 120, 160, 170: to the first 5 and 20 (median 12.5), to
the first after the node 40 and 60 (50).
Usage: test_bwd_start.py FUSIM"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "..", "tools", "bwd_start.py")
sys.path.insert(0, os.path.dirname(TOOL))
import bwd_start  # noqa: E402

fusim = sys.argv[1]
fails = []


def check(what, got, want, tol=1e-6):
    if got is None or not abs(got - want) <= tol:
        fails.append("%s: got %r, expected %r" % (what, got, want))


S, W = 400.0, 0.5
NODES = {"linear": 5, "cnn_s": 20, "cnn_l": 400}
prof = {"compute": {"ops": [{"op": "tv_resnet50_held", "dtype": "bf16", "numel": [], "fwd_us": [], "bwd_us": [],
                             "host_fwd_us": 8000.0, "host_bwd_us": 9000.0}]}}


def rnd(s, junk=False):
    return {c: {t: (5000.0 if junk else s * (S + W * n)) for t in bwd_start.TIMES} for c, n in NODES.items()}


steps = {"bf16": [rnd(s) for s in (1.0, 1.5, 0.8)] + [rnd(1.0, junk=True)], "fp32": [rnd(1.0)]}
held = {"bf16": [9000.0, 13500.0, 7200.0, 50000.0], "fp32": [9000.0]}
past = {"bf16": [0, 0, 0, 1], "fp32": [0]}
nodes = {"bf16": NODES, "fp32": NODES}
rows, diag = bwd_start.start_rows(steps, held, nodes, prof, past)
got = {(r["op"], r["dtype"]): r["host_bwd_us"] for r in rows}
check("two rows (fp32 has no profile row)", len(rows), 2)
check("torch_bwd_start bf16", got.get(("torch_bwd_start", "bf16")), S, 0.01)
check("torch_bwd_start_node bf16", got.get(("torch_bwd_start_node", "bf16")), W, 1e-4)
d = diag.get("bf16", {})
check("rounds", d.get("rounds"), 3)
check("rounds left out", d.get("rounds_left_out"), 1)
check("host k", d.get("host_k"), 1.0, 1e-4)
lin = d.get("cases", {}).get("linear", {})
check("linear at the profile's speed", lin.get("start_profile_us"), 402.5, 0.05)
check("linear over the fit", lin.get("over_fit"), 1.0, 1e-3)
check("linear's raw start: the rounds' median", lin.get("start"), 402.5, 0.05)
fk = bwd_start.first_kernels([0.0, 100.0], [30.0, 150.0], [5.0, 40.0, 120.0, 160.0, 170.0])
check("first kernel", fk["first_kernel_us"], 12.5)
check("first kernel after the first node", fk["first_node_kernel_us"], 50.0)
with tempfile.TemporaryDirectory() as tmp:
    # --steps: the rows from an earlier output, without the GPU; fusim fit --compute merges them
    pp, sp, out, merged = (os.path.join(tmp, n) for n in ("p.json", "s.json", "o.json", "m.json"))
    json.dump(prof, open(pp, "w"))
    json.dump({"format": "fusim-compute-1", "gpu": "NVIDIA H200", "steps": steps, "held": held, "nodes": nodes,
               "past_sleep": past, "compute": {"source": "hand-made", "ops": []}}, open(sp, "w"))
    p = subprocess.run([sys.executable, TOOL, "--profile", pp, "--steps", sp, "--out", out],
                       capture_output=True, text=True)
    check("--steps: exit", p.returncode, 0)
    ops = json.load(open(out))["compute"]["ops"] if p.returncode == 0 else []
    check("--steps: two rows", len(ops), 2)
    r = subprocess.run([fusim, "fit", "--db", os.path.join(tmp, "f.db"), "--compute", out, "--merge-into",
                        os.path.join(HERE, "..", "..", "data", "profiles", "h200-default.json"), "--out", merged],
                       capture_output=True, text=True)
    check("fit --compute: exit", r.returncode, 0)
    mops = json.load(open(merged))["compute"]["ops"] if r.returncode == 0 else []
    m = {(o["op"], o["dtype"]): o["host_bwd_us"] for o in mops if o["op"].startswith("torch_bwd_start")}
    check("merged: torch_bwd_start bf16", m.get(("torch_bwd_start", "bf16")), S, 0.01)
    check("merged: torch_bwd_start_node bf16", m.get(("torch_bwd_start_node", "bf16")), W, 1e-4)
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
