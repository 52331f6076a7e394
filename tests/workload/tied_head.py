#!/usr/bin/env python3
"""tied_head.py: a head tied to the input embedding (BERT's decoder, GPT-2's lm_head, a custom
model's with --tied-embeddings): autograd sums the head's gradient of the shared weight with the
embedding's, an fp32 add of the weight's size in the embedding's backward, in every precision;
under autocast the head also casts the shared weight to bf16 and its gradient back (that part:
bias_cast.py). By hand on the --ops listing: two hand-made fp32 add tables, flat (one point at
1e12 elements: every add costs the same), 1 and 4 us; the embedding's backward moves by 3 us
where its weight is tied and by 0 where it is not (Llama, a custom model without the switch).
Memory: under autocast the tied head's bf16 copy of the shared weight (2 x V x H bytes) counts as
an untied head's own does, so a custom model's casts_bytes are the same tied or not.
Usage: tied_head.py FUSIM"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, finish, start, tf_args, workload  # noqa: E402

fusim, tmp, prof = start()
ops = [t for t in prof["compute"]["ops"] if not (t["op"] == "add" and t["dtype"] == "fp32")]
paths = []
for i, us in enumerate((1.0, 4.0)):
    prof["compute"]["ops"] = ops + [{"op": "add", "dtype": "fp32", "numel": [1e12], "fwd_us": [us], "bwd_us": [1.0],
                                     "host_fwd_us": 1.0, "host_bwd_us": 1.0}]
    paths.append(os.path.join(tmp, "a%d.json" % i))
    with open(paths[-1], "w") as fo:
        json.dump(prof, fo)

CASES = [("bert", [], "bert.embeddings.word_embeddings.weight", 3.0),
         ("gpt2", [], "transformer.wte.weight", 3.0),
         ("llama", [], "model.embed_tokens.weight", 0.0),
         ("custom", ["--tied-embeddings"], "model.embed_tokens.weight", 3.0),
         ("custom", [], "model.embed_tokens.weight", 0.0)]
for arch, extra, emb, want in CASES:
    for prec in ("autocast-bf16", "tf32"):
        args = [a if a != "autocast-bf16" else prec for a in tf_args(arch)] + extra
        got = []
        for p in paths:
            _, rows = workload(fusim, args, p, tmp)
            got.append({r["param"]: float(r["bwd_us"]) for r in rows or []}.get(emb))
        what = "%s%s %s: %s's backward" % (arch, " " + " ".join(extra) if extra else "", prec, emb)
        check(what + " listed", None not in got, True, 0)
        if None not in got:
            check(what, got[1] - got[0], want, 0.002)
# memory: under autocast a tied head keeps a bf16 copy of the shared V x H weight as an untied
# lm_head keeps one of its own (2 bytes an element), so a custom model's cast copies are the same
# tied or not (the untied head has no bias); in TF32 neither casts
V, H = 32000, 1024
for prec in ("autocast-bf16", "tf32"):
    casts = []
    for extra in (["--tied-embeddings"], []):
        w, _ = workload(fusim, [a if a != "autocast-bf16" else prec for a in tf_args("custom")] + extra, paths[0], tmp)
        casts.append(w["memory"].get("casts_bytes", 0.0) if w else None)
    check("custom %s: casts listed" % prec, None not in casts, True, 0)
    if None not in casts:
        check("custom %s: cast copies tied - untied" % prec, casts[0] - casts[1], 0.0, 0.5)
        check("custom %s: the head's copy among them" % prec, casts[1] >= 2 * V * H, prec != "tf32", 0)
finish()
