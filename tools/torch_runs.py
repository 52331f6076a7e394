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


RUN_FORMAT = "fusim-torch-validation-1"
ROW_TEXT = ("plan_label", "fusion", "framework", "comm", "overlap", "pack")
ROW_TIMES = ("measured_us", "compute_only_us", "p5_us", "p95_us")


def _time(v):
    """Whether v is a time a row can hold: a finite number above 0 (JSON true is not one)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < float("inf")


def problem(run):
    """What keeps run (a loaded runs.json) from being predicted and stored, as one line naming
    the model and row where it is, or None: the fields every reader takes without a default.
    Checked whole before any work, so that a damaged file stops a reader before it writes."""
    if not isinstance(run, dict) or run.get("format") != RUN_FORMAT:
        return "not a validation run (format %s)" % RUN_FORMAT
    models = run.get("models")
    if not isinstance(models, list) or not models:
        return "models: not a list of at least one model"
    for i, m in enumerate(models):
        where = "models[%d]" % i
        if not isinstance(m, dict) or not isinstance(m.get("workload"), str) or not m["workload"]:
            return "%s: no workload name" % where
        where = "models[%d] (%s)" % (i, m["workload"])
        if not _time(m.get("compute_only_us")):
            return "%s.compute_only_us: not a time above 0" % where
        rows = m.get("rows")
        if not isinstance(rows, list) or not rows:
            return "%s.rows: not a list of at least one row" % where
        for j, r in enumerate(rows):
            at = "%s.rows[%d]" % (where, j)
            if not isinstance(r, dict):
                return "%s: not an object" % at
            for k in ROW_TEXT:
                if not isinstance(r.get(k), str) or not r[k]:
                    return "%s.%s: missing or not text" % (at, k)
            for k in ROW_TIMES:
                if not _time(r.get(k)):
                    return "%s.%s: not a time above 0" % (at, k)
            t = r.get("times_us")
            if not isinstance(t, list) or not t or not all(_time(x) for x in t):
                return "%s.times_us: not a list of iteration times above 0" % at
            b = r.get("buckets")
            if b is not None and not (isinstance(b, list) and all(
                    isinstance(g, list) and all(isinstance(n, str) for n in g) for g in b)):
                return "%s.buckets: not a list of lists of gradient names" % at
    return None
