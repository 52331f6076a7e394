#!/usr/bin/env python3
"""device_rows_median.py: one calibration file (fusim-compute-1) of a machine's device tables from
several tools/calib_torch.py runs on it: per point the median of the runs that measured it, for the
GEMM, unaligned-GEMM and conv tables, the attention points and the memory-bound operation tables.

Why: one run's sweep reads whatever the clocks were doing (a point moves by up to 20% between runs
of one lease, median 1.4%), and a run cut by --budget leaves points null; the median of the runs
that have a point does not depend on one of them.

What goes in:
  - a GEMM or conv table only where every one of its points was measured by at least one run
    (fusim prices a shape from the grid points around it and refuses where none is measured); a
    table with holes is left out, so the base profile's table of that key stays whole (named on
    stderr: merging it would leave shapes with no time at all);
  - every attention point and operation table, the median per point and size;
  - the operations' host costs (host_fwd_us, host_bwd_us) from BASE's table of the same op and
    dtype where it has one (an NCHW op's, "batchnorm2d_nchw", from the op channels-last): host
    costs belong to the host-speed probe the base's host rows are carried by
    (compare_compute.host_args), and these runs timed no probe.

Merge: fusim fit --compute OUT --merge-into BASE (each table replaces the one of its key).

Usage: python3 tools/device_rows_median.py OUT BASE_PROFILE CALIB.json [CALIB.json ...]
(one run alone: its tables with the base's host costs)
"""
import json
import statistics
import sys

import bad_input

from derive_nchw import conv_key
from host_rows_median import write

# a grid table's key by part (conv: derive_nchw.conv_key's, whose format and groups have defaults)
GRID_KEYS = {"gemm": ("dtype", "layout"), "gemm_unaligned": ("dtype", "layout"), "conv": None}


def median_or_none(values):
    values = [v for v in values if v]
    return statistics.median(values) if values else None


def grid_tables(comps, part):
    """(tables with every point measured, keys of those left out) of one grid part."""
    keys = GRID_KEYS[part]
    by_key = {}
    for comp in comps:
        for t in comp.get(part, []):
            key = conv_key(t) if part == "conv" else tuple(t[k] for k in keys)
            by_key.setdefault(key, []).append(t)
    tables, holes = [], []
    for key, ts in by_key.items():
        if any(t[a] != ts[0][a] for t in ts for a in ("m", "n", "k")):
            raise ValueError("%s %s: the runs' grids differ" % (part, " ".join(map(str, key))))
        us = [median_or_none(t["us"][i] for t in ts) for i in range(len(ts[0]["us"]))]
        if any(u is None for u in us):
            holes.append("%s %s (%d of %d points)" % (part, " ".join(map(str, key)),
                                                      sum(u is not None for u in us), len(us)))
            continue
        tables.append(dict(ts[0], us=[round(u, 3) for u in us]))
    return tables, holes


def attention(comps):
    key = lambda a: (a["dtype"], a["head_dim"], a["causal"], a["dropout"], a["seq"], a["bh"])
    points = {}
    for comp in comps:
        for a in comp.get("attention", []):
            points.setdefault(key(a), []).append(a)
    return [dict(ps[0], fwd_us=round(statistics.median(p["fwd_us"] for p in ps), 3),
                 bwd_us=round(statistics.median(p["bwd_us"] for p in ps), 3)) for ps in points.values()]


def ops(comps, base_ops):
    rows = {}
    for comp in comps:
        for o in comp.get("ops", []):
            rows.setdefault((o["op"], o["dtype"]), []).append(o)
    out = []
    for key, runs in rows.items():
        if any(o["numel"] != runs[0]["numel"] for o in runs):
            raise ValueError("ops %s %s: the runs' sizes differ" % key)
        row = dict(runs[0])
        for f in ("fwd_us", "bwd_us"):
            row[f] = [round(statistics.median(o[f][i] for o in runs), 3) for i in range(len(row["numel"]))]
        # an NCHW row (calib_torch ops_nchw) takes the host costs of the same op channels-last:
        # the layout changes the kernels, not what the host does to issue them
        base = base_ops.get(key) or base_ops.get((key[0].replace("_nchw", ""), key[1]))
        for f in ("host_fwd_us", "host_bwd_us"):
            row[f] = base[f] if base else round(statistics.median(o[f] for o in runs), 3)
        out.append(row)
    return out


def main(argv):
    if len(argv) < 4:
        print("usage: device_rows_median.py OUT BASE_PROFILE CALIB.json [CALIB.json ...]", file=sys.stderr)
        return 64
    out, base_path, paths = argv[1], argv[2], argv[3:]
    try:
        docs = [json.load(open(p)) for p in paths]
        base = json.load(open(base_path))
        if any(d.get("format") != "fusim-compute-1" for d in docs):
            raise ValueError("a calibration is not fusim-compute-1 (tools/calib_torch.py writes it)")
        if len({d.get("gpu") for d in docs}) != 1:
            raise ValueError("the calibrations name different GPUs: %s" % sorted({str(d.get("gpu")) for d in docs}))
    except (OSError, ValueError, KeyError) as e:
        print("device_rows_median.py: %s" % e, file=sys.stderr)
        return 65
    comps = [d["compute"] for d in docs]
    base_ops = {(o["op"], o["dtype"]): o for o in base.get("compute", {}).get("ops", [])}
    comp = {"source": "median of %d tools/calib_torch.py runs on %s (device tables; host costs %s's)" % (
        len(docs), docs[0]["gpu"], base.get("name", base_path))}
    holes = []
    try:
        for part in GRID_KEYS:
            tables, left = grid_tables(comps, part)
            holes += left
            if tables:
                comp[part] = tables
        if any("attention" in c for c in comps):
            comp["attention"] = attention(comps)
        if any("ops" in c for c in comps):
            comp["ops"] = ops(comps, base_ops)
    except (ValueError, KeyError) as e:
        print("device_rows_median.py: %s" % e, file=sys.stderr)
        return 65
    for h in holes:
        print("left out (points never measured; the base's table stays): %s" % h, file=sys.stderr)
    write(out, {"format": "fusim-compute-1", "gpu": docs[0]["gpu"], "gpu_mem_bytes": docs[0].get("gpu_mem_bytes"),
                "torch": docs[0].get("torch"), "cuda": docs[0].get("cuda"),
                "command": "tools/device_rows_median.py " + " ".join(argv[1:]), "compute": comp})
    print("%s: %s" % (out, ", ".join("%d %s" % (len(v), k) for k, v in comp.items() if isinstance(v, list))),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(bad_input.run("device_rows_median", lambda: main(sys.argv)))
