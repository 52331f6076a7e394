#!/usr/bin/env python3
"""test_cnn_depth.py: tools/cnn_depth.py's row from hand-made steps, its --steps re-derivation and
its bad arguments (no torch needed). Profile row tv_resnet50_held (bf16) 8000 / 9000 us. Each
round runs at its own host speed s (1, 1.5, 0.8: the host's drift): ResNet-50 at s x 8000 / 9000
and ResNet-101 (17 blocks more) at s x (8000 + 17 x 300) / (9000 + 17 x 360): 300 / 360 us a block
past ResNet-50's at the profile's speed, whatever s, so the row tv_resnet_block_deep is 300 / 360,
over ResNet-50's mean block (8000 / 16, 9000 / 16) 0.6 / 0.64. ResNet-152 reads 55000 / 55000 at
every speed (a held call that waited on the GPU): not in the row; its own diagnosis row
(55000 - 8000) / 34 = 1382.35 at s = 1. A fourth round whose ResNet-101 call outlasted the sleep
(flagged, 50000 us) is left out of the row. fp32 has no profile row: no row."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "..", "tools", "cnn_depth.py")
sys.path.insert(0, os.path.dirname(TOOL))
import cnn_depth  # noqa: E402

fails = []


def check(what, got, want, tol=1e-6):
    if not abs(got - want) <= tol:
        fails.append("%s: got %r, expected %r" % (what, got, want))


prof = {"compute": {"ops": [{"op": "tv_resnet50_held", "dtype": "bf16", "host_fwd_us": 8000.0, "host_bwd_us": 9000.0}]}}
rounds = [{"resnet50": (s * 8000, s * 9000), "resnet101": (s * (8000 + 17 * 300), s * (9000 + 17 * 360)),
           "resnet152": (55000.0, 55000.0)} for s in (1.0, 1.5, 0.8)]
rounds.append({"resnet50": (8000.0, 9000.0), "resnet101": (50000.0, 50000.0), "resnet152": (55000.0, 55000.0)})
flags = [{"resnet50": 0, "resnet101": 0, "resnet152": 1}] * 3 + [{"resnet50": 0, "resnet101": 1, "resnet152": 1}]
steps = {"bf16": rounds, "fp32": [{"resnet50": (1.0, 1.0), "resnet101": (2.0, 2.0)}]}
rows, diag = cnn_depth.deep_rows(steps, prof, {"bf16": flags})
check("one row (fp32 has no profile row)", len(rows), 1)
if rows:
    r = rows[0]
    check("row name", r["op"] == "tv_resnet_block_deep" and r["dtype"] == "bf16", True)
    check("row fwd", r["host_fwd_us"], 300.0, 0.01)
    check("row bwd", r["host_bwd_us"], 360.0, 0.01)
d = diag.get("bf16", {})
check("rounds", d.get("rounds", 0), 3)
check("rounds left out", d.get("rounds_left_out", 0), 1)
for key, want in (("block_over_ref_mean", (0.6, 0.64)),
                  ("pair_block_us_resnet152", ((55000 - 8000) / 34, (55000 - 9000) / 34))):
    got = d.get(key, [])
    check("%s: two" % key, len(got), 2)
    for k, g in enumerate(got):
        check("%s[%d]" % (key, k), g, want[k], 0.01)
with tempfile.TemporaryDirectory() as tmp:
    # --steps: the rows re-derived from an earlier output, without the GPU
    pp, sp, out = (os.path.join(tmp, n) for n in ("p.json", "s.json", "o.json"))
    json.dump(prof, open(pp, "w"))
    json.dump({"steps": {m: [{k: list(v) for k, v in r.items()} for r in rs] for m, rs in steps.items()},
               "past_sleep": {"bf16": flags}}, open(sp, "w"))
    p = subprocess.run([sys.executable, TOOL, "--profile", pp, "--steps", sp, "--out", out], capture_output=True, text=True)
    check("--steps: exit", p.returncode, 0)
    got = json.load(open(out))["compute"]["ops"] if p.returncode == 0 else []
    check("--steps: one row", len(got), 1)
    if got:
        check("--steps: row bwd", got[0]["host_bwd_us"], 360.0, 0.01)
    # bad input: one line each, before torch is imported
    json.dump([1], open(os.path.join(tmp, "list.json"), "w"))
    open(os.path.join(tmp, "junk.json"), "w").write("{")
    for args, code in ((["--profile", pp, "--out", out, "--rounds", "0"], 64),
                       (["--profile", pp, "--out", out, "--batch", "1"], 64),
                       (["--profile", os.path.join(tmp, "junk.json"), "--out", out], 66),
                       (["--profile", os.path.join(tmp, "list.json"), "--out", out], 65),
                       (["--profile", pp, "--out", os.path.join(tmp, "no", "o.json")], 73),
                       (["--profile", pp, "--out", out, "--steps", pp], 65)):
        p = subprocess.run([sys.executable, TOOL] + args, capture_output=True, text=True)
        check("%s: exit" % " ".join(args[-2:]), p.returncode, code)
        check("%s: one line" % " ".join(args[-2:]), len(p.stderr.strip().splitlines()), 1)
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
