#!/usr/bin/env python3
"""shape_rows.py: the profile rows hf_<arch>_layer_shape / _rest_shape (backward host cost of a
layer and of the rest at real sizes, at the profile's host speed) from tools/hf_shape_pace.py's
files: the medians over the shapes of result.layer_us[1] and result.rest_us[1], less what the
builder adds on top of the rows at real sizes (sim/fu_builder.c: the profile's reduce_split row
for each split column sum, BERT's 6 bias gradients a layer and the 2 of its MLM head; its
embedding_sort row for the word embedding past 3072 tokens). Every shape must be past both
switches (checked), so the same counts hold for each. BERT only: the counts are BERT's.
Forward is not carried (the shapes' forward read 0.87-1.10x the rows, no one way): host_fwd_us 0.

Usage: python3 tools/shape_rows.py --profile P --out F.json SHAPE.json...
       then build/fusim fit --compute F.json --merge-into P
Exit 66: a file that cannot be read as JSON; 65: not a profile or shape file it can read (or a
shape not past the switches); 73: --out's folder missing; one line on stderr, nothing written."""
import argparse
import json
import os
import statistics
import sys

SPLIT_LAYER, SPLIT_REST, SORT_IDX, SPLIT_MIN_ROWS = 6, 2, 3072, 1024


def rows(profile, shapes):
    ops = {(o["op"], o["dtype"]): o for o in profile["compute"]["ops"]}
    out = {}
    for d in shapes:
        sh = d["shape"]
        if sh["arch"] != "bert" or sh["batch"] * sh["seq"] <= SORT_IDX or sh["batch"] * sh["seq"] < SPLIT_MIN_ROWS:
            raise ValueError("a shape not BERT past the sort and split switches: %s" % sh)
        out.setdefault(sh["mode"], []).append((d["result"]["layer_us"][1], d["result"]["rest_us"][1]))
    res = []
    for mode, v in sorted(out.items()):
        split = ops[("reduce_split", mode)]["host_bwd_us"]
        sort = ops[("embedding_sort", mode)]["host_bwd_us"]
        lay = statistics.median(a for a, _ in v) - SPLIT_LAYER * split
        rest = statistics.median(b for _, b in v) - SPLIT_REST * split - sort
        for what, us in (("layer", lay), ("rest", rest)):
            res.append({"op": "hf_bert_%s_shape" % what, "dtype": mode, "numel": [], "fwd_us": [], "bwd_us": [],
                        "host_fwd_us": 0.0, "host_bwd_us": round(us, 2)})
    return res


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("shapes", nargs="+")
    a = ap.parse_args(argv)
    try:
        profile = json.load(open(a.profile))
        shapes = [json.load(open(f)) for f in a.shapes]
    except (OSError, ValueError) as e:   # a file that cannot be read as JSON (as host_ref's tools)
        print("shape_rows: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        return 66
    try:
        r = rows(profile, shapes)
    except (ValueError, KeyError, TypeError, AttributeError) as e:   # not the files it reads
        print("shape_rows: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        return 65
    if not os.path.isdir(os.path.dirname(os.path.abspath(a.out))):
        print("shape_rows: --out %s: no such folder" % a.out, file=sys.stderr)
        return 73
    doc = {"format": "fusim-compute-1", "gpu": shapes[0].get("gpu", ""), "torch": shapes[0].get("torch", ""),
           "command": "tools/shape_rows.py " + " ".join(argv), "compute": {"source": "tools/shape_rows.py", "ops": r}}
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
