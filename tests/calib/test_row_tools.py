#!/usr/bin/env python3
"""tools/emb_sort_row.py and tools/reduce_split_row.py on hand-made measurements, the rows by hand.

emb_sort_row.py's rule: the isolated estimate (3073 minus 3072 indices, per round) and the
in-model one (25 x 128 minus 24 x 128 tokens, / 2, per round, 1- and 3-layer rounds pooled).
Disjoint intervals: the in-model median. Overlapping: the inverse-variance weighted mean; here
both estimates are the same offsets around 200 and 190, so their bootstrap intervals (same seed,
same draws) have the same width and the mean is 195. --isolated: the isolated median.
reduce_split_row.py: per round the median held time of the split sizes minus the single-pass
ones (8, 8, 7 us: median 8), carried by the tiny BERT reference, 8000 us here against the
profile's 1000 + 3 x 1000 = 4000: 8 / 2 = 4 us. Bad input: one line and exit 65."""
import json
import os
import subprocess
import sys
import tempfile

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools")
fails = []


def run(tool, args):
    return subprocess.run([sys.executable, os.path.join(TOOLS, tool)] + args, capture_output=True, text=True)


def rows_are(what, tool, args, want):
    """The tool's row (args[-1], both dtypes) is want; returns its stdout."""
    r = run(tool, args)
    if r.returncode != 0:
        fails.append("%s: exit %d: %s" % (what, r.returncode, r.stderr.strip()))
        return ""
    ops = json.load(open(args[-1]))["compute"]["ops"]
    got = {o["dtype"]: o["host_bwd_us"] for o in ops if o["op"] in ("embedding_sort", "reduce_split")}
    for dt in ("bf16", "fp32"):
        if dt not in got or abs(got[dt] - want) > 1e-6:
            fails.append("%s (%s): got %r, expected %r" % (what, dt, got.get(dt), want))
    return r.stdout


def refused(what, tool, args):
    """One stderr line, exit 65, nothing written at args[-1]."""
    r = run(tool, args)
    if r.returncode != 65 or len(r.stderr.strip().splitlines()) != 1 or os.path.exists(args[-1]):
        fails.append("%s: exit %d, %r" % (what, r.returncode, r.stderr))


def embbwd(path, iso, inm):
    """An emb_bwd_host.py output whose per-round differences are iso (isolated) and inm (in-model,
    the first half from the 1-layer rounds, the rest from the 3-layer ones)."""
    h = len(inm) // 2
    bt = {}
    for L, part in ((1, inm[:h]), (3, inm[h:])):
        bt["24x128_l%d" % L] = [[3000.0, 5000.0 + 10 * i] for i in range(len(part))]
        bt["25x128_l%d" % L] = [[3000.0, 5000.0 + 10 * i + 2 * d] for i, d in enumerate(part)]
    d = {"gpu": "hand-made", "torch": "none", "probes_us": [6.0, 5.5],
         "embedding_bwd_us": {"3072": [400.0 + i for i in range(len(iso))],
                              "3073": [400.0 + i + d for i, d in enumerate(iso)]},
         "bert_tiny": bt}
    with open(path, "w") as f:
        json.dump(d, f)


OFF = [-30.0, -20.0, -10.0, 0.0, 10.0, 20.0, 30.0] * 2
with tempfile.TemporaryDirectory() as tmp:
    a, b, out = (os.path.join(tmp, n) for n in ("a.json", "b.json", "out.json"))
    # disjoint: isolated around 300, in-model around 100 -> 100
    embbwd(a, [300.0 + x for x in OFF], [100.0 + x / 3 for x in OFF])
    rows_are("disjoint: the in-model median", "emb_sort_row.py", [a, out], 100.0)
    # overlapping, equal widths: (200 + 190) / 2
    embbwd(b, [200.0 + x for x in OFF], [190.0 + x for x in OFF])
    said = rows_are("overlapping: the weighted mean", "emb_sort_row.py", [b, out], 195.0)
    if "overlapping" not in said:
        fails.append("overlapping: not said so: %r" % said)
    rows_are("--isolated: the isolated median", "emb_sort_row.py", ["--isolated", a, out], 300.0)
    bad, none = os.path.join(tmp, "bad.json"), os.path.join(tmp, "none.json")
    with open(bad, "w") as f:
        json.dump({"embedding_bwd_us": {}}, f)
    refused("emb_sort_row, not its input", "emb_sort_row.py", [bad, none])

    # reduce_split_row.py
    calls = {"sum": {"bf16_T512_H768": {"api": {"cudaLaunchKernel": 1}, "held_us": [20.0, 21.0, 22.0]},
                     "fp32_T512_H768": {"api": {"cudaLaunchKernel": 1}, "held_us": [22.0, 23.0, 20.0]},
                     "bf16_T1024_H768": {"api": {"cudaLaunchKernel": 1, "cudaMemsetAsync": 1},
                                         "held_us": [28.0, 31.0, 27.0]},
                     "fp32_T1024_H768": {"api": {"cudaLaunchKernel": 1, "cudaMemsetAsync": 1},
                                         "held_us": [30.0, 29.0, 29.0]}},
             "variants": {"bert_tiny_1x16": {"l3": {"held_median": [5000.0, 8000.0]}}}}
    prof = {"compute": {"ops": [
        {"op": "hf_bert_rest_tiny", "dtype": "bf16", "numel": [], "fwd_us": [], "bwd_us": [],
         "host_fwd_us": 500.0, "host_bwd_us": 1000.0},
        {"op": "hf_bert_layer_tiny", "dtype": "bf16", "numel": [], "fwd_us": [], "bwd_us": [],
         "host_fwd_us": 500.0, "host_bwd_us": 1000.0}]}}
    c, p = os.path.join(tmp, "calls.json"), os.path.join(tmp, "prof.json")
    json.dump(calls, open(c, "w"))
    json.dump(prof, open(p, "w"))
    rows_are("reduce_split: 8 us carried x 1/2", "reduce_split_row.py", [c, p, out], 4.0)
    refused("reduce_split_row, a profile without the tiny rows", "reduce_split_row.py", [c, bad, none])

for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
