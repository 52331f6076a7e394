#!/usr/bin/env python3
"""hf_shape.py: fusim workload prices transformer backward's host cost by the profile's
hf_<arch>_layer_shape / _rest_shape rows (tools/shape_rows.py) where it has them in the step's
mode, by hand on the --ops listing. A five-layer BERT at 128 tokens (no split column sums, no
sort-path embedding), hand-made bf16 rows of 333 us a layer and 4444 us the rest: every layer's
backward adds up to 333 (the deep row's layers too), forward stays the _tiny / _deep rows', and
the rest's backward adds up to 4444 (its operations at the layer's factor, the remainder at
backward's start); in TF32 (the rows are bf16 only) and without the rows layer 0's backward is
hf_bert_layer_tiny's; a profile without a host probe leaves the rows out. GPT-2 and Llama in
TF32 with the same values as their own fp32 rows: the same sums.
Usage: hf_shape.py FUSIM"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, finish, start, workload  # noqa: E402

fusim, tmp, prof = start()
LAY, REST = 333.0, 4444.0
ops = [t for t in prof["compute"]["ops"] if not t["op"].endswith("_shape")]
rows = {(t["op"], t["dtype"]): t for t in ops}
new = [{"op": "hf_bert_%s_shape" % w, "dtype": "bf16", "numel": [], "fwd_us": [], "bwd_us": [],
        "host_fwd_us": 0.0, "host_bwd_us": us} for w, us in (("layer", LAY), ("rest", REST))]
paths = os.path.join(tmp, "s.json"), os.path.join(tmp, "n.json"), os.path.join(tmp, "np.json")
for path, r in zip(paths[:2], (ops + new, ops)):
    prof["compute"]["ops"] = r
    with open(path, "w") as f:
        json.dump(prof, f)
prof["compute"]["ops"] = ops + new
for k in ("host_probe_us", "host_probe_min_us"):
    prof["compute"].pop(k, None)
with open(paths[2], "w") as f:
    json.dump(prof, f)
TOL = 0.02  # the listing's 3 decimals over a part's operations


def parts(p, prec="autocast-bf16", arch="bert"):
    """{layer (-1: the rest): [host fwd, host bwd] sums} of a five-layer model of arch"""
    _, lst = workload(fusim, ["--transformer", "--arch", arch, "--layers", "5", "--hidden", "256", "--heads", "4",
                              "--ffn", "1024", "--vocab", "1000", "--seq", "128", "--micro-batch", "1",
                              "--precision", prec], p, tmp)
    out = {}
    for x in lst or []:
        s = out.setdefault(max(-1, int(x["layer"])), [0.0, 0.0])
        s[0] += float(x["host_fwd_us"])
        s[1] += float(x["host_bwd_us"])
    return out


got, base = parts(paths[0]), parts(paths[1])
check("rows: five layers and the rest listed", len([k for k in got if k in range(-1, 5)]), 6, 0)
for i in range(5):
    if i in got and i in base:
        check("rows: layer %d host bwd" % i, got[i][1], LAY, TOL)
        check("rows: layer %d host fwd as without the rows" % i, got[i][0], base[i][0], TOL)
if -1 in got and -1 in base:
    check("rows: the rest's host bwd", got[-1][1], REST, TOL)
    check("rows: the rest's host fwd as without the rows", got[-1][0], base[-1][0], TOL)
lay = rows[("hf_bert_layer_tiny", "bf16")]
if 0 in base:
    check("no rows: layer 0 host bwd is the tiny row's", base[0][1], lay["host_bwd_us"], TOL)
tf = parts(paths[0], "tf32")
if 0 in tf:
    check("tf32: layer 0 host bwd is the fp32 tiny row's", tf[0][1], rows[("hf_bert_layer_tiny", "fp32")]["host_bwd_us"], TOL)
npr = parts(paths[2])
if 0 in npr and 4 in npr:
    check("no probe: the rows left out (layer 0 bwd not 333)", abs(npr[0][1] - LAY) > 1, True, 0)
# GPT-2 and Llama in TF32: the same, from rows of their own architecture in fp32 (the builder reads
# hf_<arch>_*_shape by the step's architecture and mode; 128 tokens: no split sums, no sort path)
prof["compute"]["host_probe_us"], prof["compute"]["host_probe_min_us"] = 7.0, 5.0  # with a probe again
for arch in ("gpt2", "llama"):
    prof["compute"]["ops"] = ops + [dict(t, op=t["op"].replace("bert", arch), dtype="fp32") for t in new]
    path = os.path.join(tmp, arch + ".json")
    with open(path, "w") as f:
        json.dump(prof, f)
    got = parts(path, "tf32", arch)
    check("%s tf32: five layers and the rest listed" % arch, len([k for k in got if k in range(-1, 5)]), 6, 0)
    for i in range(5):
        if i in got:
            check("%s tf32: layer %d host bwd" % (arch, i), got[i][1], LAY, TOL)
    if -1 in got:
        check("%s tf32: the rest's host bwd" % arch, got[-1][1], REST, TOL)
finish()
