#!/usr/bin/env python3
"""shape_rows.py (the test): tools/shape_rows.py's rows by hand, and its bad input.

A profile whose bf16 reduce_split row costs 4 us of host backward and embedding_sort 178; three
BERT bf16 shapes past both switches whose layers' backward read 1000, 1050, 1100 us and rests'
1300, 1320, 1200: the layer row is the median 1050 less 6 split sums (24) = 1026, the rest's the
median 1300 less 2 split sums and the sort path (8 + 178) = 1114; forward is not carried (0).
Bad input, one stderr line each and no file written: a shape file that is not JSON 66, a GPT-2
shape 65, a shape below the sort switch (8 x 128 = 1024 tokens) 65, --out in a missing folder 73."""
import json
import os
import subprocess
import sys
import tempfile

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "shape_rows.py")
fails = []


def check(what, got, want):
    if got != want:
        fails.append("%s: got %r, expected %r" % (what, got, want))


def shape(arch, batch, seq, layer, rest):
    return {"shape": {"arch": arch, "mode": "bf16", "batch": batch, "seq": seq},
            "result": {"layer_us": [800.0, layer], "rest_us": [1500.0, rest]}}


with tempfile.TemporaryDirectory() as tmp:
    def put(name, doc):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(doc if isinstance(doc, str) else json.dumps(doc))
        return path

    def run(*args):
        return subprocess.run([sys.executable, TOOL] + list(args), capture_output=True, text=True)

    row = {"dtype": "bf16", "numel": [], "fwd_us": [], "bwd_us": [], "host_fwd_us": 0.0}
    prof = put("p.json", {"compute": {"ops": [dict(row, op="reduce_split", host_bwd_us=4.0),
                                              dict(row, op="embedding_sort", host_bwd_us=178.0)]}})
    shapes = [put("s%d.json" % i, shape("bert", 32, 128 * (i + 1), lay, rest))
              for i, (lay, rest) in enumerate(((1000.0, 1300.0), (1050.0, 1320.0), (1100.0, 1200.0)))]
    out = os.path.join(tmp, "rows.json")
    r = run("--profile", prof, "--out", out, *shapes)
    check("exit", r.returncode, 0)
    got = json.load(open(out))["compute"]["ops"] if r.returncode == 0 else []
    check("rows", [(o["op"], o["dtype"], o["host_fwd_us"], o["host_bwd_us"]) for o in got],
          [("hf_bert_layer_shape", "bf16", 0.0, 1026.0), ("hf_bert_rest_shape", "bf16", 0.0, 1114.0)])
    bad = (("not JSON", [put("junk.json", "{")], 66),
           ("gpt2", [put("g.json", shape("gpt2", 32, 128, 1000.0, 1300.0))], 65),
           ("below the sort switch", [put("small.json", shape("bert", 8, 128, 1000.0, 1300.0))], 65))
    for what, files, code in bad:
        o = os.path.join(tmp, "bad.json")
        r = run("--profile", prof, "--out", o, *files)
        check(what + ": exit", r.returncode, code)
        check(what + ": one stderr line", len(r.stderr.strip().splitlines()), 1)
        check(what + ": nothing written", os.path.exists(o), False)
    r = run("--profile", prof, "--out", os.path.join(tmp, "no", "x.json"), *shapes)
    check("--out in a missing folder: exit", r.returncode, 73)
    check("--out in a missing folder: one stderr line", len(r.stderr.strip().splitlines()), 1)
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
print("%d failed" % len(fails))
sys.exit(1 if fails else 0)
