"""torch_runs.py: where every reader finds a validation run's runs.json (tools/validate_torch.py).
Older runs in data/validation keep it gzipped, as runs.json.gz, because the tool that copies the
working tree to a GPU machine refuses one above 64 MiB (data/validation/README.md). validate_torch
still writes runs.json.

    run = torch_runs.load(rundir)           # or a path: RUNDIR/runs.json, RUNDIR/runs.json.gz
"""
import gzip
import json
import os


def find(path):
    """The file to read for path (a run folder stands for its runs.json): path itself, or path.gz
    where only that is there. Where neither is, path: the name a reader's error gives."""
    if os.path.isdir(path):
        path = os.path.join(path, "runs.json")
    if not os.path.exists(path) and os.path.isfile(path + ".gz"):
        return path + ".gz"
    return path


def load(path):
    """The JSON of find(path), gunzipped where it ends in .gz. OSError or ValueError as open and
    json.load raise them."""
    path = find(path)
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)
