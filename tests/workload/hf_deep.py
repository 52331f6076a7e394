#!/usr/bin/env python3
"""hf_deep.py: fusim workload prices every transformer layer past the reference step's depth (3)
by the profile's hf_<arch>_deep_tiny row (tools/hf_depth.py) where it has one in the step's mode,
the first three by hf_<arch>_layer_tiny, by hand on the --ops listing (a layer's host costs add
up to its row). A five-layer BERT at 128 tokens (no split column sums, no sort-path embedding):
with a hand-made bf16 row of 111 / 222 us, layers 0-2 add up to the layer row and 3-4 to 111 /
222; in TF32 (the row is bf16 only) and without the row every layer adds up to the layer row;
a reference step at twice the profile's backward time doubles the deep layers' backward too; a
profile without a host probe (its layers priced by hf_bert_layer) leaves the row out; and
tools/host_ref.py's reference depth is that 3.
Usage: hf_deep.py FUSIM"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, finish, start, workload  # noqa: E402

fusim, tmp, prof = start()
DEEP = (111.0, 222.0)
ops = [t for t in prof["compute"]["ops"] if t["op"] != "hf_bert_deep_tiny" and not t["op"].endswith("_shape")]  # the shape rows would replace backward (hf_shape.py)
rows = {(t["op"], t["dtype"]): t for t in ops}
paths = os.path.join(tmp, "d.json"), os.path.join(tmp, "n.json")
deep = {"op": "hf_bert_deep_tiny", "dtype": "bf16", "numel": [], "fwd_us": [], "bwd_us": [],
        "host_fwd_us": DEEP[0], "host_bwd_us": DEEP[1]}
for path, r in zip(paths, (ops + [deep], ops)):
    prof["compute"]["ops"] = r
    with open(path, "w") as f:
        json.dump(prof, f)
TOL = 0.01  # the listing's 3 decimals over a layer's operations


def layers(p, prec="autocast-bf16", extra=()):
    """{layer: (host fwd, host bwd) sums} of a five-layer BERT"""
    _, lst = workload(fusim, ["--transformer", "--arch", "bert", "--layers", "5", "--hidden", "256", "--heads", "4",
                              "--ffn", "1024", "--vocab", "1000", "--seq", "128", "--micro-batch", "1",
                              "--precision", prec] + list(extra), p, tmp)
    out = {}
    for x in lst or []:
        s = out.setdefault(int(x["layer"]), [0.0, 0.0])
        s[0] += float(x["host_fwd_us"])
        s[1] += float(x["host_bwd_us"])
    return out


for mode, prec in (("bf16", "autocast-bf16"), ("fp32", "tf32")):
    lay = rows[("hf_bert_layer_tiny", mode)]
    want = (lay["host_fwd_us"], lay["host_bwd_us"])
    for p, has in zip(paths, (True, False)):
        got = layers(p, prec)
        check("%s %s: five layers listed" % (prec, "row" if has else "no row"), len([k for k in got if k >= 0]), 5, 0)
        for i in range(5):
            w = DEEP if (has and mode == "bf16" and i >= 3) else want
            if i in got:
                for k, what in ((0, "fwd"), (1, "bwd")):
                    check("%s %s: layer %d host %s" % (prec, "row" if has else "no row", i, what), got[i][k], w[k], TOL)
# the reference step at twice the profile's backward time: the deep layers' backward doubles too
rest, lay = rows[("hf_bert_rest_tiny", "bf16")], rows[("hf_bert_layer_tiny", "bf16")]
pf = rest["host_fwd_us"] + 3 * lay["host_fwd_us"]
pb = rest["host_bwd_us"] + 3 * lay["host_bwd_us"]
got = layers(paths[0], extra=["--host-ref-fwd", "%.4f" % pf, "--host-ref-bwd", "%.4f" % (2 * pb)])
if 4 in got and 0 in got:
    check("ref x2: layer 4 host bwd", got[4][1], 2 * DEEP[1], 2 * TOL)
    check("ref x2: layer 4 host fwd", got[4][0], DEEP[0], TOL)
    check("ref x2: layer 0 host bwd", got[0][1], 2 * lay["host_bwd_us"], 2 * TOL)
# a profile without a host probe prices its layers by hf_bert_layer (not the _tiny rows the deep
# row was measured against): the deep row is left out, every layer costs alike
noprobe = json.load(open(paths[0]))
for k in ("host_probe_us", "host_probe_min_us"):
    noprobe["compute"].pop(k, None)
paths_np = os.path.join(tmp, "np.json")
with open(paths_np, "w") as f:
    json.dump(noprobe, f)
got = layers(paths_np)
check("no probe: layers 0 and 4 listed", len({0, 4} & set(got)), 2, 0)
if 4 in got and 0 in got:
    check("no probe: layer 4 host fwd as layer 0's", got[4][0], got[0][0], TOL)
    check("no probe: layer 4 host bwd as layer 0's", got[4][1], got[0][1], TOL)
# The reference step tools/host_ref.py times has the depth up to which fusim prices layers by the
# _tiny row (3, by hand above): the two are defined apart (sim/fu_builder.c FU__REF_LAYERS)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import host_ref  # noqa: E402
check("tools/host_ref.py REF_LAYERS is the depth fusim prices by the layer row", host_ref.REF_LAYERS, 3, 0)
finish()
