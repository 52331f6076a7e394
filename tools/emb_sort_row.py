#!/usr/bin/env python3
"""emb_sort_row.py: the profile's embedding_sort row from tools/emb_bwd_host.py's output: the extra
host time of an embedding's backward past PyTorch's 3072-index switch to its sort-based path
(median over rounds of the same round's 3073-index minus 3072-index backward(), the GPU held),
as a fusim-compute-1 file that `fusim fit --compute F --merge-into PROFILE` merges. The row is
written for both residual dtypes: under autocast the embedding's weight, and its backward, stay
fp32 either way.  Usage: python3 tools/emb_sort_row.py EMBBWD.json OUT.json"""
import json
import statistics
import sys


def main(argv):
    if len(argv) != 2:
        print("usage: emb_sort_row.py EMBBWD.json OUT.json", file=sys.stderr)
        return 64
    try:
        d = json.load(open(argv[0]))
        lo, hi = d["embedding_bwd_us"]["3072"], d["embedding_bwd_us"]["3073"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("emb_sort_row.py: %s: not tools/emb_bwd_host.py output (%s)" % (argv[0], e), file=sys.stderr)
        return 65
    if not lo or len(lo) != len(hi):
        print("emb_sort_row.py: %s: the 3072 and 3073 rounds differ in number" % argv[0], file=sys.stderr)
        return 65
    extra = statistics.median(b - a for a, b in zip(lo, hi))
    rows = [{"op": "embedding_sort", "dtype": dt, "numel": [], "fwd_us": [], "bwd_us": [],
             "host_fwd_us": 0.0, "host_bwd_us": round(extra, 2)} for dt in ("bf16", "fp32")]
    out = {"format": "fusim-compute-1", "gpu": d.get("gpu", ""), "torch": d.get("torch", ""),
           "command": "tools/emb_sort_row.py %s %s" % (argv[0], argv[1]),
           "compute": {"source": "tools/emb_bwd_host.py: an embedding's backward host time at 3073 "
                                 "minus 3072 indices (%d rounds, probe fastest %.2f us)"
                                 % (len(lo), min(d.get("probes_us") or [0])), "ops": rows}}
    with open(argv[1], "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
