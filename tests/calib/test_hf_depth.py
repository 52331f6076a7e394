#!/usr/bin/env python3
"""test_hf_depth.py: tools/hf_depth.py's rows from hand-made steps, and its bad arguments.
Profile rows (bf16): rest 1000 / 2000 us, layer 500 / 1000 us, so the reference step (3 layers)
is 2500 / 5000. Each round runs at its own host speed s (1, 1.5, 0.8: the host's drift), the
3-layer step at s x 2500 / 5000 and the 12-layer one at s x (2500 + 9 x 600) / (5000 + 9 x 1200):
600 / 1200 us a layer past 3 at the profile's speed, whatever s. So the row hf_bert_deep_tiny is
600 / 1200, deep over the layer row 1.2 / 1.2, the measured step ratio 7900 / 2500 = 3.16 and the
rows' (2500 + 9 x 500) / 2500 = 2.8. An (arch, mode) without the profile's rows gives no row."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import hf_depth  # noqa: E402

fails = []


def check(what, got, want, tol=1e-6):
    if not abs(got - want) <= tol:
        fails.append("%s: got %r, expected %r" % (what, got, want))


prof = {"compute": {"ops": [
    {"op": "hf_bert_rest_tiny", "dtype": "bf16", "host_fwd_us": 1000.0, "host_bwd_us": 2000.0},
    {"op": "hf_bert_layer_tiny", "dtype": "bf16", "host_fwd_us": 500.0, "host_bwd_us": 1000.0}]}}
steps = {("bert", "bf16"): [((s * 2500, s * 5000), (s * (2500 + 9 * 600), s * (5000 + 9 * 1200)))
                            for s in (1.0, 1.5, 0.8)],
         ("gpt2", "bf16"): [((1000.0, 1000.0), (2000.0, 2000.0))]}
rows, diag = hf_depth.deep_rows(steps, prof, 12)
check("one row (gpt2 has no profile rows)", len(rows), 1)
if rows:
    r = rows[0]
    check("row name", r["op"] == "hf_bert_deep_tiny" and r["dtype"] == "bf16", True)
    check("deep fwd", r["host_fwd_us"], 600.0, 0.01)
    check("deep bwd", r["host_bwd_us"], 1200.0, 0.01)
d = diag.get("bert_bf16", {})
for key, want in (("deep_over_layer", 1.2), ("ratio_measured", 3.16), ("ratio_rows", 2.8)):
    got = d.get(key, [])
    check("%s: two" % key, len(got), 2)
    for k, g in enumerate(got):
        check("%s[%d]" % (key, k), g, want, 1e-3)
# bad arguments: one line, exit 64, before torch is imported
tool = os.path.join(HERE, "..", "..", "tools", "hf_depth.py")
for args in (["--depth", "3"], ["--rounds", "0"], ["--archs", "resnet"]):
    p = subprocess.run([sys.executable, tool, "--profile", "x.json", "--out", os.devnull] + args,
                       capture_output=True, text=True)
    check("%s: exit" % " ".join(args), p.returncode, 64)
    check("%s: one line" % " ".join(args), len(p.stderr.strip().splitlines()), 1)
# a profile whose rows deep_rows cannot read (a row without its host times, a list) exits 65 and
# an --out in a folder that does not exist 73, one line each, before torch is imported (after
# it, the measurement would be lost to a traceback)
with tempfile.TemporaryDirectory() as tmp:
    bad = {"norows.json": {"compute": {"ops": [{"op": "hf_bert_rest_tiny", "dtype": "bf16"},
                                               {"op": "hf_bert_layer_tiny", "dtype": "bf16"}]}},
           "list.json": [1], "ok.json": prof}
    for name, d in bad.items():
        with open(os.path.join(tmp, name), "w") as f:
            json.dump(d, f)
    for name, out, want in (("norows.json", "x.json", 65), ("list.json", "x.json", 65),
                            ("ok.json", os.path.join("missing", "x.json"), 73)):
        p = subprocess.run([sys.executable, tool, "--profile", name, "--out", out, "--archs", "bert"],
                           capture_output=True, text=True, cwd=tmp)
        check("%s --out %s: exit" % (name, out), p.returncode, want)
        check("%s --out %s: one line" % (name, out), len(p.stderr.strip().splitlines()), 1)
    check("nothing written", len(os.listdir(tmp)), 3)
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
