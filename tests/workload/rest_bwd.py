#!/usr/bin/env python3
"""rest_bwd.py: fusim workload: the rest's backward host (sim/fu_builder.c fu__rest_bwd). Where
the profile has the per-layer and rest rows, the rest's operations (embeddings, head, loss) cost
in backward what the same operations cost in a layer (the layer row over the layer's operations'
own costs), and what the rest row holds beyond them is backward()'s own, charged where backward
starts: on the first operation it runs (the loss, the listing's last row). By hand on a two-layer
BERT, from the operations' own costs (a profile without the hf_bert rows) and hand-made rows:
  A  layer row 2 x the layer's own, rest row 2 x the rest's own + 1000 us: every operation x 2,
     the loss 1000 us more; the rest still adds up to its row;
  A0 rest row 2 x the rest's own: every operation x 2, nothing at the start (A less the 1000);
  B  rest row 1.5 x the rest's own (below the operations at the layer's factor): the rest's
     operations x 1.5, as before fu__rest_bwd;
  C  no layer row: the rest's operations scaled to the rest row, as before.
At a host 1000x the rows' (--host-probe 5000 against the profile's fastest 5) backward is the
host's: every gradient is ready 1000 x 1000 us later in A than in A0, and backward as much
longer; forward is the same. The embedding sort path and reduce_split rows and the pre row are
left out (each adds after the rows, tested in emb_sort.py, reduce_split.py, host_timeline.sh).
Usage: rest_bwd.py FUSIM"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, finish, start, workload  # noqa: E402

fusim, tmp, prof = start()
ARGS = ["--transformer", "--arch", "bert", "--layers", "2", "--hidden", "256", "--heads", "4", "--ffn", "1024",
        "--vocab", "1000", "--seq", "64", "--micro-batch", "2", "--precision", "autocast-bf16"]
base = [t for t in prof["compute"]["ops"]
        if not t["op"].startswith("hf_bert") and t["op"] not in ("embedding_sort", "reduce_split")]


def priced(name, rows, extra=()):
    """The workload and its --ops listing priced with the base tables plus rows (op: (fwd, bwd))."""
    prof["compute"]["ops"] = base + [{"op": op, "dtype": "bf16", "numel": [], "fwd_us": [], "bwd_us": [],
                                      "host_fwd_us": f, "host_bwd_us": b} for op, (f, b) in rows.items()]
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as fo:
        json.dump(prof, fo)
    return workload(fusim, ARGS + list(extra), path, tmp)


def sums(rows, layer):
    sel = [x for x in rows if int(x["layer"]) == layer]
    return sum(float(x["host_fwd_us"]) for x in sel), sum(float(x["host_bwd_us"]) for x in sel)


_, own = priced("own", {})
if own:
    lf, lb = sums(own, 0)
    rf, rb = sums(own, -1)
    last = len(own) - 1
    check("the listing ends with the loss", own[last]["op"].startswith("cross_entropy"), True)
    S = 1000.0
    cases = {"A": ({"hf_bert_layer_tiny": (2 * lf, 2 * lb), "hf_bert_rest_tiny": (2 * rf, 2 * rb + S)}, 2.0, S),
             "A0": ({"hf_bert_layer_tiny": (2 * lf, 2 * lb), "hf_bert_rest_tiny": (2 * rf, 2 * rb)}, 2.0, 0.0),
             "B": ({"hf_bert_layer_tiny": (2 * lf, 2 * lb), "hf_bert_rest_tiny": (2 * rf, 1.5 * rb)}, 1.5, 0.0),
             "C": ({"hf_bert_rest_tiny": (2 * rf, 3 * rb)}, 3.0, 0.0)}
    for name, (rows, krest, at_start) in cases.items():
        _, got = priced(name, rows)
        if not got:
            continue
        for i, (x, y) in enumerate(zip(own, got)):
            layer = int(x["layer"])
            k = krest if layer < 0 else (2.0 if "hf_bert_layer_tiny" in rows else 1.0)
            want = k * float(x["host_bwd_us"]) + (at_start if i == last else 0.0)
            check("%s: %s %s backward host" % (name, x["op"], x["param"]), float(y["host_bwd_us"]), want,
                  0.002, 1e-6)
            check("%s: %s %s forward host" % (name, x["op"], x["param"]), float(y["host_fwd_us"]),
                  2.0 * float(x["host_fwd_us"]) if layer < 0 or "hf_bert_layer_tiny" in rows
                  else float(x["host_fwd_us"]), 0.002, 1e-6)
        check("%s: the rest adds up to its row" % name, sums(got, -1)[1], rows["hf_bert_rest_tiny"][1], 0.05)
    # the start's cost at a host 1000x the rows': every gradient and backward 1000 x S later
    wa, _ = priced("A", cases["A"][0], ["--host-probe", "5000"])
    w0, _ = priced("A0", cases["A0"][0], ["--host-probe", "5000"])
    if wa and w0:
        check("host-bound: forward unchanged", wa["fwd_us"], w0["fwd_us"], 0.01)
        check("host-bound: backward 1000 x S longer", wa["bwd_us"] - w0["bwd_us"], 1000 * S, 0.05)
        r0 = {g["name"]: g["ready_us"] for g in w0["grads"]}
        for g in wa["grads"]:
            check("host-bound: %s ready 1000 x S later" % g["name"], g["ready_us"] - r0.get(g["name"], 0.0),
                  1000 * S, 0.05)
finish()
