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

--carry-from SOURCE instead carries another GPU's fitted cold form to the profile's rows, where
that GPU was measured and this one was not: the per-touch cost at this profile's own HBM rate
(scaled until the carried form prices the calibration's streaming nets as this profile's own
launch and HBM forms, fitted on this GPU, do), the chunk weight divided by the same ratio (a
block's walk through its chunk is the memory's latency, not its bandwidth: the floor's time is
kept), the launch cost by the ratio of the two launch forms' launch_us, the warm pair as the
source's (the L2 of the same die) and the cache this profile's.
Each row so made carries "derived" (fusim workload names it; a row already derived keeps its
mark first); a row with its own measured cold form is kept as it is. Only between GPUs of one
architecture (the H100 and H200 share the GH100 die); check against captures of the target
before merging.

Usage: python3 tools/optim_cold_rows.py --profile P --out OUT.json PROBE.json [PROBE.json ...]
       python3 tools/optim_cold_rows.py --profile P --out OUT.json --carry-from SOURCE_PROFILE"""
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


# The calibration's nets whose every list streams on a GPU of 50-60 MiB of L2: where the target's
# own launch and HBM forms priced what it measured, and the carried cold form must price the same
STREAMING_NETS = [(8, 4096), (64, 2048), (200, 512), (64, 512), (128, 512), (4, 2048), (8, 2048)]


def carry(target, source, mark):
    """The target row with the source row's cold form carried to it (the module's doc): the
    per-touch cost first at the ratio of the two HBM forms, then scaled until the carried form
    prices the streaming nets as the target's own forms do (median ratio, three rounds: the
    hypot couples the two terms), the chunk weight divided by the same ratio throughout."""
    floor = source["cold_per_touch_us"] * source["cold_chunk_touches"]   # the chunk's latency, kept
    per_touch = source["cold_per_touch_us"] * target["hbm_per_moved_elem_us"] / source["hbm_per_moved_elem_us"]
    target = {k: v for k, v in target.items()   # its own forms: a cold form on it set aside, its cache kept
              if k not in calib_torch.COLD_FIELDS or k == "cache_bytes"}
    before = target.get("derived", "")
    if before and not before.startswith("cold form carried"):   # made from other measurements: still says how
        mark = ("%s; %s" % (before, mark))[:47]
    d = dict(target, derived=mark, cold_launch_us=round(source["cold_launch_us"] * target["launch_us"] /
                                                        source["launch_us"], 4),
             warm_per_touch_us=source["warm_per_touch_us"], warm_chunk_touches=source["warm_chunk_touches"])
    nets = [[W * W, W, W, W] * L for L, W in STREAMING_NETS]
    for _ in range(3):
        d.update(cold_per_touch_us=per_touch, cold_chunk_touches=floor / per_touch)
        per_touch *= statistics.median(calib_torch.optim_dev_us(target, s) / calib_torch.optim_dev_us(d, s)
                                       for s in nets)
    d.update(cold_per_touch_us=float("%.6g" % per_touch), cold_chunk_touches=round(floor / per_touch, 1))
    return d


def carried_rows(rows, source_path):
    with open(source_path) as f:
        src = {r["name"]: r for r in json.load(f)["compute"]["optimizer"] if r.get("cold_launch_us", 0) > 0}
    if not src:
        raise ValueError("%s: no optimizer row with the cold form to carry" % source_path)
    out = []
    for name in sorted(src):
        if rows.get(name, {}).get("cold_launch_us", 0) > 0 and not rows[name].get("derived"):
            print("%s: its own cold form measured, kept" % name)
            continue
        if name in rows and rows[name].get("hbm_per_moved_elem_us", 0) > 0 and rows[name].get("launch_us", 0) > 0:
            out.append(carry(rows[name], src[name], "cold form carried from %.24s" % os.path.basename(source_path)))
            print("%s: carried (%s)" % (name, ", ".join("%s %g" % (k, out[-1][k]) for k in calib_torch.COLD_FIELDS)))
    if not out:
        raise ValueError("no row to carry to: each has its own measured cold form, or lacks the launch and HBM "
                         "forms the carry scales by")
    return out


def write(path, argv, source, rows):
    """The rows as a calibration file (fusim-compute-1) that fusim fit --merge-into takes; 0."""
    host_rows_median.write(path, {"format": "fusim-compute-1",
                                  "command": "python3 tools/optim_cold_rows.py " + " ".join(argv),
                                  "compute": {"source": source, "optimizer": rows}})
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--carry-from", metavar="SOURCE_PROFILE")
    ap.add_argument("probes", nargs="*")
    a = ap.parse_args(argv)
    if bool(a.carry_from) == bool(a.probes):
        raise ValueError("give probe files or --carry-from SOURCE_PROFILE, not both or neither")
    with open(a.profile) as f:
        rows = {r["name"]: r for r in json.load(f)["compute"]["optimizer"]}
    if a.carry_from:
        return write(a.out, argv, "optimizer rows of %s with %s's cold form carried" % (
            os.path.basename(a.profile), os.path.basename(a.carry_from)), carried_rows(rows, a.carry_from))
    pts, l2 = load_points(a.probes)
    out = []
    for name in sorted(pts):
        if name not in rows or calib_torch.optim_base(name) not in calib_torch.OPT_FOREACH:
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
    return write(a.out, argv, "optimizer rows of %s with the cold form fitted on %s" % (
        os.path.basename(a.profile), ", ".join(os.path.basename(p) for p in a.probes)), out)


if __name__ == "__main__":
    sys.exit(bad_input.run("optim_cold_rows", main, sys.argv[1:]))
