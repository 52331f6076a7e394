#!/usr/bin/env python3
"""optim_cold_rows.py: the optimizer rows' cold form (fu_compute.h) from cold steps. A training
step's optimizer follows a forward and backward that stream far more than the L2, so each list's
first read in the step comes from HBM; the calibration's nets (batch 8) leave parameters and
states in the cache, and priced so the small models' steps read 14-30% short (H100: SqueezeNet's
SGD step 55.5 us cold, 32.7 warm; the captures' device-only step 52.7). tools/optim_stream_probe.py
--states cold times steps after a write of four times the L2 (calib/device_optim_cold.sh).

Per optimizer in the probe files, this fits the cold form (calib_torch.fit_optim_cold) on the
calibration's own nets alone (labels "net ..."), prints every point against it and against the
profile's row as it is (the other lists, torchvision models', are the check, not the fit), and
writes the profile's rows with the cold fields added: a calibration file (fusim-compute-1) to
merge with `fusim fit --compute OUT --merge-into PROFILE` (each row replaces its own name's).

Usage: python3 tools/optim_cold_rows.py --profile P --out OUT.json PROBE.json [PROBE.json ...]"""
import argparse
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bad_input  # noqa: E402
import calib_torch  # noqa: E402
import host_rows_median  # noqa: E402


def load_points(paths):
    """{optimizer: [point]} of the probe files' points with a cold time, each with its sizes (a
    net's from its L and W), and the L2 the probes recorded (the same in every file)."""
    pts, l2 = {}, set()
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        l2.add(int(doc["l2_cache_bytes"]))
        for p in doc["points"]:
            if "cold_dev_us" not in p:
                continue
            p = dict(p, sizes=p.get("sizes") or calib_torch.opt_point_sizes({"L": p["L"], "W": p["W"]}))
            pts.setdefault(p["optimizer"], []).append(p)
    if len(l2) != 1:
        raise ValueError("the probe files record %s L2 sizes: one GPU's files only" % (sorted(l2) or "no"))
    if not pts:
        raise ValueError("no point with a cold time (cold_dev_us): run the probe with --states cold")
    return pts, l2.pop()


def rel_errs(row, pts):
    return [calib_torch.optim_dev_us(row, p["sizes"]) / p["cold_dev_us"] - 1 for p in pts]


def summary(label, errs):
    a = [abs(e) for e in errs]
    return "%s: median |err| %.1f%%, max %.1f%% (%d)" % (label, 100 * statistics.median(a), 100 * max(a), len(a))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("probes", nargs="+")
    a = ap.parse_args(argv)
    with open(a.profile) as f:
        rows = {r["name"]: r for r in json.load(f)["compute"]["optimizer"]}
    pts, l2 = load_points(a.probes)
    out = []
    for name in sorted(pts):
        if name not in rows or calib_torch.optim_base(name) not in calib_torch.COLD_OPS:
            raise ValueError("%s: the profile has no %r row, or the cold form has no operations for it"
                             % (a.profile, name))
        nets = [p for p in pts[name] if p["label"].startswith("net ")]
        if len({len(p["sizes"]) for p in nets}) < 4:
            raise ValueError("%s: fewer than 4 different nets (labels 'net ...') to fit on" % name)
        fields = calib_torch.fit_optim_cold(name, nets, l2)
        if not fields:
            raise ValueError("%s: no cold fit with every coefficient positive" % name)
        old, new = dict(rows[name]), dict(rows[name], **fields)
        print("%s: cold_launch_us %.3f, cold %.4g us a touch, chunk x %d; warm %.4g, chunk x %d" % (
            name, fields["cold_launch_us"], fields["cold_per_touch_us"], fields["cold_chunk_touches"],
            fields["warm_per_touch_us"], fields["warm_chunk_touches"]))
        print("  %-20s %8s %8s %7s %8s %7s" % ("list", "cold_us", "priced", "err", "before", "err"))
        for p in pts[name]:
            n, o = calib_torch.optim_dev_us(new, p["sizes"]), calib_torch.optim_dev_us(old, p["sizes"])
            print("  %-20s %8.1f %8.1f %+6.1f%% %8.1f %+6.1f%%" % (
                p["label"], p["cold_dev_us"], n, 100 * (n / p["cold_dev_us"] - 1), o, 100 * (o / p["cold_dev_us"] - 1)))
        rest = [p for p in pts[name] if p not in nets]
        for label, group in (("nets (the fit)", nets), ("other lists (the check)", rest)):
            if group:
                print("  " + summary(label + ", cold form", rel_errs(new, group)) + "; " +
                      summary("before", rel_errs(old, group)))
        new.pop("points", None)
        out.append(new)
    doc = {"format": "fusim-compute-1", "command": "python3 tools/optim_cold_rows.py " + " ".join(argv),
           "compute": {"source": "optimizer rows of %s with the cold form fitted on %s" % (
               os.path.basename(a.profile), ", ".join(os.path.basename(p) for p in a.probes)), "optimizer": out}}
    host_rows_median.write(a.out, doc)
    return 0


if __name__ == "__main__":
    sys.exit(bad_input.run("optim_cold_rows", main, sys.argv[1:]))
