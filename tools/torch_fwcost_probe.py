#!/usr/bin/env python3
"""torch_fwcost_probe.py: the frameworks' host-cost microbenchmark (tools/torch_host.py) under
variations, to see what its figures depend on: repeated as is, with 1 MiB parameters instead of
4 KiB, with the GPU kept busy (the host running ahead of the device, as in a real step), both.
Writes one JSON object per line to --out."""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_host  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--out", required=True)
ap.add_argument("--iters", type=int, default=20)
a = ap.parse_args()
torch_host.ensure_process_group()
with open(a.out, "w") as f:
    for label, kw in [("base", {}), ("base again", {}), ("1MiB params", {"numel": 262144}),
                      ("busy GPU", {"busy_us": 20000}),
                      ("1MiB params, busy GPU", {"numel": 262144, "busy_us": 20000}),
                      ("base, last", {})]:
        t0 = time.time()
        r = torch_host.framework_costs(iters=a.iters, **kw)
        r.pop("raw", None)
        r["label"] = label
        r["seconds"] = round(time.time() - t0, 1)
        print(json.dumps(r), flush=True)
        f.write(json.dumps(r) + "\n")
