#!/usr/bin/env python3
"""torch_fwcost_probe.py: the frameworks' host-cost microbenchmark (tools/torch_host.py) under
variations, to see what its figures depend on. --set buffers: the defaults, with 1 MiB buffers
(the default before run 5) and the defaults again; --set graph: the one-multiply chain and
weight+bias layers, twice each; --set rounds: three runs of 60 rounds each; --set params (the first probe): repeated as
is, 4 KiB and 1 MiB parameters, an idle and a busy GPU.
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
ap.add_argument("--set", choices=("params", "buffers", "graph", "rounds"), default="buffers")
a = ap.parse_args()
torch_host.ensure_process_group()
with open(a.out, "w") as f:
    small_idle = {"numel": 1024, "busy_us": 0}
    sets = {
        "params": [("base", small_idle), ("base again", small_idle),
                   ("1MiB params", {"busy_us": 0}), ("busy GPU", {"numel": 1024}),
                   ("1MiB params, busy GPU", {}), ("base, last", small_idle)],
        "buffers": [("defaults", {}), ("1MiB buffers", {"buf_numel": 262144}),
                    ("defaults again", {})],
        "graph": [("chain", {}), ("layers", {"graph": "layers"}), ("chain again", {}),
                  ("layers again", {"graph": "layers"})],
        "rounds": [("60 rounds", {"iters": 60}), ("60 rounds again", {"iters": 60}),
                   ("60 rounds, third", {"iters": 60})],
    }
    for label, kw in sets[a.set]:
        t0 = time.time()
        r = torch_host.framework_costs(**{"iters": a.iters, **kw})
        r.pop("raw", None)
        r["label"] = label
        r["seconds"] = round(time.time() - t0, 1)
        print(json.dumps(r), flush=True)
        f.write(json.dumps(r) + "\n")
