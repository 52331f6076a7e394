#!/usr/bin/env python3
"""test_torch_runs.py: tools/torch_runs.py, where every reader finds a run's runs.json: a folder
with runs.json.gz only (the older runs in data/validation) reads the same JSON as one with
runs.json, through the folder or through RUNDIR/runs.json; with both, runs.json wins (what
validate_torch writes now); with neither, the error names RUNDIR/runs.json."""
import gzip
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import torch_runs  # noqa: E402

fails = 0


def check(name, ok):
    global fails
    print(("ok   " if ok else "FAIL ") + name)
    fails += not ok


RUN = {"format": "fusim-torch-validation-1", "models": [{"workload": "w", "rows": []}]}
with tempfile.TemporaryDirectory() as tmp:
    gz, plain, none = (os.path.join(tmp, d) for d in ("gz", "plain", "none"))
    for d in (gz, plain, none):
        os.makedirs(d)
    with gzip.open(os.path.join(gz, "runs.json.gz"), "wt") as f:
        json.dump(RUN, f)
    check("runs.json.gz through the folder", torch_runs.load(gz) == RUN)
    check("runs.json.gz through RUNDIR/runs.json", torch_runs.load(os.path.join(gz, "runs.json")) == RUN)
    check("find names the .gz", torch_runs.find(gz) == os.path.join(gz, "runs.json.gz"))
    with open(os.path.join(plain, "runs.json"), "w") as f:
        json.dump(RUN, f)
    with gzip.open(os.path.join(plain, "runs.json.gz"), "wt") as f:
        json.dump({"format": "older"}, f)
    check("runs.json before runs.json.gz", torch_runs.load(plain) == RUN)
    check("neither: find names runs.json", torch_runs.find(none) == os.path.join(none, "runs.json"))
    try:
        torch_runs.load(none)
        check("neither: load raises", False)
    except FileNotFoundError as e:
        check("neither: FileNotFoundError naming runs.json", e.filename == os.path.join(none, "runs.json"))
sys.exit(1 if fails else 0)
