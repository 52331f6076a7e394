#!/usr/bin/env python3
"""Two tools that put host rows on a profile's scale, on hand-made inputs (values by hand):
- tools/cat_rows.py: ops_cat calibrations whose cat_input rows are (1, 10), (2, 12), (3, 11) us
  (median 2 / 11) and cat rows at one input (6, 8), (5, 10) and, in session 42's form (no
  "at_inputs": the line's intercept, to which its slope is added), (4, -2) -> (7, 9): median 6 / 9;
  captures of
  the lease whose reference steps are 200 / 400 us (fp32), 100 / 200 us (bf16) and 100 / 100 (fp32)
  against the profile's tv_resnet50_held 100 / 100 (fp32) and 50 / 40 (bf16): ratios 0.5 / 0.25,
  0.5 / 0.2 and 1 / 1, medians 0.5 forward, 0.25 backward (their means would be 0.667, 0.483); so
  cat_input is 1.0 / 2.75 us and cat 3.0 / 2.25 in both modes.
  A capture without a reference step, or no capture: one line, exit 65, nothing written.
- tools/deep_row_carry.py: hf_vit_layer_tiny (100, 200) beside hf_bert_layer_tiny (50, 100) and
  hf_bert_deep_tiny (60, 105): hf_vit_deep_tiny (120, 210) in each mode; with --anchor vit
  --anchor-profile of another GPU's hf_vit_layer_tiny (40, 80) and hf_vit_deep_tiny (50, 88):
  (125, 220), marked with that profile's name; a profile without the anchor's deep row: one line,
  exit 65, nothing written.
Usage: test_host_row_tools.py"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
fails = []


def host_row(op, dtype, f, b):
    return {"op": op, "dtype": dtype, "numel": [], "fwd_us": [], "bwd_us": [], "host_fwd_us": f, "host_bwd_us": b}


def run(tool, args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "tools", tool)] + args, capture_output=True, text=True)


def rows_of(path):
    return {(o["op"], o["dtype"]): (o["host_fwd_us"], o["host_bwd_us"]) for o in json.load(open(path))["compute"]["ops"]}


with tempfile.TemporaryDirectory() as tmp:
    prof = os.path.join(tmp, "p.json")
    json.dump({"compute": {"ops": [host_row("tv_resnet50_held", "fp32", 100.0, 100.0),
                                   host_row("tv_resnet50_held", "bf16", 50.0, 40.0)]}}, open(prof, "w"))
    caps = []
    for i, (prec, f, b) in enumerate((("tf32", 200.0, 400.0), ("bf16", 100.0, 200.0), ("tf32", 100.0, 100.0))):
        caps.append(os.path.join(tmp, "cap%d.json" % i))
        json.dump({"meta": {"precision": prec, "host_ref": {"fwd_us": f, "bwd_us": b}}}, open(caps[-1], "w"))
    calibs = []
    for i, (ci, c, at_one) in enumerate((((1.0, 10.0), (6.0, 8.0), True), ((2.0, 12.0), (5.0, 10.0), True),
                                         ((3.0, 11.0), (4.0, -2.0), False))):
        # the third's own slope (3, 11) makes its cat (7, 9); another's (1, 10) or (2, 12) would
        # make (5, 8) or (6, 10) and move the medians
        calibs.append(os.path.join(tmp, "cal%d.json" % i))
        cats = [dict(host_row("cat", m, *c), **({"at_inputs": 1} if at_one else {})) for m in ("bf16", "fp32")]
        json.dump({"compute": {"ops": [host_row("cat_input", m, *ci) for m in ("bf16", "fp32")] + cats}},
                  open(calibs[-1], "w"))
    out = os.path.join(tmp, "cat.json")
    r = run("cat_rows.py", ["--profile", prof, "--captures", ",".join(caps), "--out", out] + calibs)
    if r.returncode:
        fails.append("cat_rows: exit %d: %s" % (r.returncode, r.stderr.strip()))
    else:
        got = rows_of(out)
        for m in ("bf16", "fp32"):
            for op, want in (("cat_input", (1.0, 2.75)), ("cat", (3.0, 2.25))):
                if any(abs(g - w) > 1e-3 for g, w in zip(got.get((op, m)) or (1e9, 1e9), want)):
                    fails.append("cat_rows: %s %s is %s, expected %s" % (op, m, got.get((op, m)), want))
    json.dump({"meta": {"precision": "tf32"}}, open(caps[0], "w"))
    bad = os.path.join(tmp, "bad.json")
    for what, cap_arg in (("a capture without a reference step", ",".join(caps)), ("no capture", ",")):
        r = run("cat_rows.py", ["--profile", prof, "--captures", cap_arg, "--out", bad] + calibs)
        if r.returncode != 65 or len(r.stderr.strip().splitlines()) != 1 or os.path.exists(bad):
            fails.append("cat_rows with %s: exit %d, %r" % (what, r.returncode, r.stderr))

    ops = []
    for m in ("bf16", "fp32"):
        ops += [host_row("hf_vit_layer_tiny", m, 100.0, 200.0), host_row("hf_bert_layer_tiny", m, 50.0, 100.0),
                host_row("hf_bert_deep_tiny", m, 60.0, 105.0)]
    json.dump({"compute": {"ops": ops}}, open(prof, "w"))
    out = os.path.join(tmp, "deep.json")
    r = run("deep_row_carry.py", ["--profile", prof, "--arch", "vit", "--anchor", "bert", "--out", out])
    if r.returncode:
        fails.append("deep_row_carry: exit %d: %s" % (r.returncode, r.stderr.strip()))
    else:
        got = rows_of(out)
        for m in ("bf16", "fp32"):
            g = got.get(("hf_vit_deep_tiny", m))
            if g is None or abs(g[0] - 120.0) > 1e-6 or abs(g[1] - 210.0) > 1e-6:
                fails.append("deep_row_carry: hf_vit_deep_tiny %s is %s, expected (120, 210)" % (m, g))
    other = os.path.join(tmp, "other.json")
    json.dump({"name": "gpu-b", "compute": {"ops": [host_row(op, m, f, b) for m in ("bf16", "fp32") for op, f, b in
                                                    (("hf_vit_layer_tiny", 40.0, 80.0),
                                                     ("hf_vit_deep_tiny", 50.0, 88.0))]}}, open(other, "w"))
    r = run("deep_row_carry.py", ["--profile", prof, "--arch", "vit", "--anchor", "vit", "--anchor-profile", other,
                                  "--out", out])
    if r.returncode:
        fails.append("deep_row_carry --anchor-profile: exit %d: %s" % (r.returncode, r.stderr.strip()))
    else:
        got = json.load(open(out))["compute"]["ops"]
        for o in got:
            if abs(o["host_fwd_us"] - 125.0) > 1e-6 or abs(o["host_bwd_us"] - 220.0) > 1e-6 or "gpu-b" not in o["derived"]:
                fails.append("deep_row_carry --anchor-profile: %s, expected (125, 220) marked gpu-b" % o)
        if len(got) != 2:
            fails.append("deep_row_carry --anchor-profile: %d rows, expected 2" % len(got))
    zero = [dict(o, host_bwd_us=0.0) if o["op"] == "hf_bert_deep_tiny" else o for o in ops]
    json.dump({"compute": {"ops": zero}}, open(prof, "w"))
    r = run("deep_row_carry.py", ["--profile", prof, "--arch", "vit", "--anchor", "bert", "--out", bad])
    if r.returncode != 65 or "hf_bert_deep_tiny" not in r.stderr or "not above 0" not in r.stderr or os.path.exists(bad):
        fails.append("deep_row_carry with the anchor's deep row at 0: exit %d, %r" % (r.returncode, r.stderr))
    json.dump({"compute": {"ops": [o for o in ops if o["op"] != "hf_bert_deep_tiny"]}}, open(prof, "w"))
    r = run("deep_row_carry.py", ["--profile", prof, "--arch", "vit", "--anchor", "bert", "--out", bad])
    if r.returncode != 65 or len(r.stderr.strip().splitlines()) != 1 or os.path.exists(bad):
        fails.append("deep_row_carry without the anchor's deep row: exit %d, %r" % (r.returncode, r.stderr))

for f in fails:
    print("FAIL", f)
print("host row tools: %d failed" % len(fails))
sys.exit(1 if fails else 0)
