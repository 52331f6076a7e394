#!/usr/bin/env python3
"""tools/host_ref_range.py on hand-made data: a profile whose tiny BERT bf16 rows give the
3-layer reference step 300 + 3 x 100 = 600 us forward and 400 + 3 x 200 = 1000 us backward, and
whose held ResNet-50 (fp32) is 10 / 20 ms; captures with references 900 / 1100 (BERT: 1.5, 1.1),
480 / 1500 (BERT: 0.8, 1.5) and 12 / 22 ms (ResNet-101 in TF32: 1.2, 1.1), one without a reference
(skipped): the range is forward 0.8-1.5, backward 1.1-1.5. A capture whose rows the profile lacks
(GPT-2), or a capture that is not JSON, is one line and exit 65, nothing written."""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
tool = os.path.join(ROOT, "tools", "host_ref_range.py")
fails = []


def row(op, dt, f, b):
    return {"op": op, "dtype": dt, "numel": [], "fwd_us": [], "bwd_us": [], "host_fwd_us": f, "host_bwd_us": b}


with tempfile.TemporaryDirectory() as tmp:
    prof = os.path.join(tmp, "p.json")
    json.dump({"compute": {"ops": [row("hf_bert_layer_tiny", "bf16", 100.0, 200.0),
                                   row("hf_bert_rest_tiny", "bf16", 300.0, 400.0),
                                   row("tv_resnet50_held", "fp32", 10000.0, 20000.0)]}}, open(prof, "w"))
    caps = os.path.join(tmp, "caps")
    os.makedirs(caps)
    for name, meta in (("a", {"arch": "bert", "amp": "bf16", "host_ref": {"fwd_us": 900.0, "bwd_us": 1100.0}}),
                       ("b", {"arch": "bert", "amp": "bf16", "host_ref": {"fwd_us": 480.0, "bwd_us": 1500.0}}),
                       ("c", {"arch": "resnet101", "amp": "tf32", "host_ref": {"fwd_us": 12000.0, "bwd_us": 22000.0}}),
                       ("d", {"arch": "bert", "amp": "bf16"})):
        json.dump({"meta": meta}, open(os.path.join(caps, name + ".json"), "w"))
    out = os.path.join(tmp, "out.json")
    r = subprocess.run([sys.executable, tool, out, prof, caps], capture_output=True, text=True)
    if r.returncode != 0:
        fails.append("exit %d: %s" % (r.returncode, r.stderr.strip()))
    else:
        c = json.load(open(out))["compute"]
        got, want = c["host_speed_range"], [0.8, 1.5, 1.1, 1.5]
        if any(abs(g - w) > 1e-9 for g, w in zip(got, want)) or len(got) != 4:
            fails.append("host_speed_range %s, expected %s" % (got, want))
        if len(c["diag"]["host_speed_range"]) != 3:
            fails.append("%d readings, expected 3 (the capture without a reference skipped)"
                         % len(c["diag"]["host_speed_range"]))
    json.dump({"meta": {"arch": "gpt2", "amp": "bf16", "host_ref": {"fwd_us": 1.0, "bwd_us": 1.0}}},
              open(os.path.join(caps, "e.json"), "w"))
    out2 = os.path.join(tmp, "out2.json")
    r = subprocess.run([sys.executable, tool, out2, prof, caps], capture_output=True, text=True)
    if r.returncode != 65 or len(r.stderr.strip().splitlines()) != 1 or os.path.exists(out2):
        fails.append("no GPT-2 rows: exit %d (want 65), stderr %r, %s" % (
            r.returncode, r.stderr, "written" if os.path.exists(out2) else "nothing written"))
    # a capture that is not JSON: one line, exit 65, nothing written (the GPT-2 one removed)
    os.remove(os.path.join(caps, "e.json"))
    with open(os.path.join(caps, "f.json"), "w") as fh:
        fh.write("{")
    r = subprocess.run([sys.executable, tool, out2, prof, caps], capture_output=True, text=True)
    if r.returncode != 65 or len(r.stderr.strip().splitlines()) != 1 or os.path.exists(out2):
        fails.append("a broken capture: exit %d (want 65), stderr %r, %s" % (
            r.returncode, r.stderr, "written" if os.path.exists(out2) else "nothing written"))
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
