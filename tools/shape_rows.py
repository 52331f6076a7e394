#!/usr/bin/env python3
"""shape_rows.py: the profile rows hf_<arch>_layer_shape / _rest_shape (backward host cost of a
layer and of the rest at real sizes, at the profile's host speed) from tools/hf_shape_pace.py's
files, for every architecture and mode among them: per shape, result.layer_us[1] and
result.rest_us[1] less what the builder adds on top of the rows at that shape (its real-size
paths: the reduce_split row for each split column sum, the embedding_sort row for each embedding
past the sort switch), read from the builder itself (`fusim workload --transformer` at the
shape, its --ops listing's host_bwd_paths_us summed over layer 0 and over the rest), so no count
or switch is restated here; then the median over the shapes of an architecture and mode.
Forward is not carried (BERT's shapes' forward read 0.87-1.10x the rows, no one way):
host_fwd_us 0.

Usage: python3 tools/shape_rows.py --profile P [--fusim build/fusim] --out F.json SHAPE.json...
       then build/fusim fit --compute F.json --merge-into P
Exit 66: a file that cannot be read as JSON, or --fusim not an executable; 65: not a profile or shape file it can read, or a
shape fusim cannot build; 73: --out's folder missing; one line on stderr, nothing written."""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
PRECISION = {"bf16": "autocast-bf16", "fp32": "tf32"}  # hf_shape_pace's modes as the builder's


def paths_us(fusim, profile_path, sh, tmp):
    """(layer, rest): the host backward time the builder's real-size paths add at shape sh, us at
    the profile's host speed (no --host-probe: the rows' own speed)."""
    ops = os.path.join(tmp, "ops.csv")
    cmd = [fusim, "workload", "--transformer", "--arch", sh["arch"], "--layers", str(sh["depth"]),
           "--hidden", str(sh["hidden"]), "--heads", str(sh["heads"]), "--ffn", str(sh["ffn"]),
           "--vocab", str(sh["vocab"]), "--seq", str(sh["seq"]), "--micro-batch", str(sh["batch"]),
           "--precision", PRECISION[sh["mode"]], "--profile", profile_path,
           "--out", os.path.join(tmp, "w.json"), "--ops", ops]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise ValueError("fusim workload at %s: %s" % (sh, (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]))
    lay = rest = 0.0
    with open(ops) as f:
        for x in csv.DictReader(f):
            us = float(x["host_bwd_paths_us"])
            if int(x["layer"]) == 0:
                lay += us
            elif int(x["layer"]) < 0:
                rest += us
    return lay, rest


def rows(fusim, profile_path, shapes):
    """The rows from the shape files (parsed): [{op, dtype, ...}] by architecture and mode."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for d in shapes:
            sh = d["shape"]
            lay, rest = paths_us(fusim, profile_path, sh, tmp)
            out.setdefault((sh["arch"], sh["mode"]), []).append(
                (d["result"]["layer_us"][1] - lay, d["result"]["rest_us"][1] - rest))
    res = []
    for (arch, mode), v in sorted(out.items()):
        for what, us in (("layer", statistics.median(a for a, _ in v)), ("rest", statistics.median(b for _, b in v))):
            res.append({"op": "hf_%s_%s_shape" % (arch, what), "dtype": mode, "numel": [], "fwd_us": [],
                        "bwd_us": [], "host_fwd_us": 0.0, "host_bwd_us": round(us, 2)})
    return res


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", required=True)
    ap.add_argument("--fusim", default=os.path.join(ROOT, "build", "fusim"))
    ap.add_argument("--out", required=True)
    ap.add_argument("shapes", nargs="+")
    a = ap.parse_args(argv)
    try:
        json.load(open(a.profile))
        shapes = [json.load(open(f)) for f in a.shapes]
    except (OSError, ValueError) as e:   # a file that cannot be read as JSON (as host_ref's tools)
        print("shape_rows: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        return 66
    if not os.access(a.fusim, os.X_OK):   # subprocess would end in a traceback
        print("shape_rows: --fusim %s: not an executable (ninja -C build)" % a.fusim, file=sys.stderr)
        return 66
    try:
        r = rows(a.fusim, a.profile, shapes)
    except (ValueError, KeyError, TypeError, AttributeError, IndexError) as e:   # not the files it reads
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
