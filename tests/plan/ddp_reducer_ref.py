#!/usr/bin/env python3
"""ddp_reducer_ref.py FUSIM WORKLOAD FIRST_BYTES CAP_BYTES: fusim's DDP buckets against the
Reducer's own algorithm, transcribed here independently of fusim's C code.

torch/csrc/distributed/c10d/reducer.cpp, compute_bucket_assignment_by_size, as DDP calls it when
it rebuilds its buckets after the first iteration (tensors in gradient-ready order, so no sort):
one open bucket per BucketKey (dtype, device), each key walking its own limits [first, cap, cap,
...]; a bucket closes once its size >= its limit; closed buckets in closing order, then the open
ones in the unordered_map's iteration order (libstdc++: a new key goes first, so for two keys the
key seen last comes first). The Reducer launches buckets in that order.
Prints one line per bucket and exits 1 when fusim's differ."""
import json
import subprocess
import sys


def reducer_buckets(grads, limits):
    result, open_, limit_at = [], {}, {}
    for i, g in enumerate(grads):
        key = g.get("dtype", "")
        b = open_.setdefault(key, {"indices": [], "size": 0})
        limit_at.setdefault(key, 0)
        b["indices"].append(i)
        b["size"] += g["bytes"]
        if b["size"] >= limits[limit_at[key]]:
            result.append(b["indices"])
            open_[key] = {"indices": [], "size": 0}
            limit_at[key] = min(limit_at[key] + 1, len(limits) - 1)
    for key in reversed(list(open_)):  # dict keeps first-seen order; libstdc++ yields it reversed
        if open_[key]["indices"]:
            result.append(open_[key]["indices"])
    return result


def main():
    fusim, wl, first, cap = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    grads = json.load(open(wl))["grads"]
    want = reducer_buckets(grads, [first, cap])
    out = subprocess.run([fusim, "predict", "--workload", wl, "--comm", "allreduce:8",
                          "--fusion", f"cap:{cap}B,first:{first}B", "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    got = json.loads(out)["buckets"]
    bad = len(got) != len(want)
    for k, idx in enumerate(want):
        g = got[k] if k < len(got) else None
        # a fusim bucket is the gradients of [first, last] of its first one's type
        mine = [] if g is None else [i for i in range(g["first"], g["last"] + 1)
                                     if grads[i].get("dtype", "") == grads[g["first"]].get("dtype", "")]
        ok = mine == idx and g["bytes"] == sum(grads[i]["bytes"] for i in idx)
        bad |= not ok
        print(f"bucket {k}: reducer {idx} fusim {mine}{'' if ok else '  DIFFER'}")
    print(f"{len(want)} reducer buckets, {len(got)} fusim buckets")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
