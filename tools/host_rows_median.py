#!/usr/bin/env python3
"""host_rows_median.py: one reading of the host-only rows from several calibrations (tools/
calib_torch.py --parts hf_host, each with its host-speed probe): every row measured in two or
more of them (hf_<arch>_*_tiny, tv_resnet50_held / _plain), each carried to the last file's host
speed by the ratio of the probes' fastest readings (diag.hf_host.probes_us), then the median.

Why: one calibration times each row in one block of steps, and the host's speed moves in phases
of seconds, so a row reads whatever phase it fell in (tv_resnet50_held fp32 forward: 5.8, 6.0 and
9.6 ms on three leases whose probes' fastest readings differ by 8%); the median of the leases'
readings does not depend on one phase. The output is a calibration file (fusim-compute-1) with the
last file's probe, merged after the others (fusim fit --compute OUT --merge-into PROFILE).

Usage: python3 tools/host_rows_median.py OUT CALIB.json CALIB.json [CALIB.json ...]
"""
import json
import statistics
import sys

import bad_input


def write(path, doc):
    """Writes a calibration file (also tools/optim_rows_median.py's)."""
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def fastest(comp, path):
    probes = comp.get("diag", {}).get("hf_host", {}).get("probes_us") or []
    if not comp.get("host_probe_us") or not probes or min(probes) <= 0:
        raise ValueError("%s: no host-speed probe readings (diag.hf_host.probes_us)" % path)
    return min(probes)


def main(argv):
    if len(argv) < 4:
        print("usage: host_rows_median.py OUT CALIB.json CALIB.json [...]", file=sys.stderr)
        return 64
    out, paths = argv[1], argv[2:]
    try:
        comps = []
        for p in paths:
            d = json.load(open(p))
            comps.append((p, d.get("compute", d)))
        ref_comp = comps[-1][1]
        ref = fastest(ref_comp, comps[-1][0])
        rows, order = {}, []
        for p, c in comps:
            k = ref / fastest(c, p)
            for o in c.get("ops", []):
                if o.get("numel") or not (o["op"].startswith("hf_") or o["op"].startswith("tv_resnet50_")):
                    continue
                key = (o["op"], o["dtype"])
                if key not in rows:
                    rows[key] = []
                    order.append(key)
                rows[key].append((k * o["host_fwd_us"], k * o["host_bwd_us"]))
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("host_rows_median: %s" % e, file=sys.stderr)
        return 65
    ops = [{"op": op, "dtype": dt, "numel": [], "fwd_us": [], "bwd_us": [],
            "host_fwd_us": round(statistics.median(r[0] for r in rows[(op, dt)]), 2),
            "host_bwd_us": round(statistics.median(r[1] for r in rows[(op, dt)]), 2)}
           for op, dt in order if len(rows[(op, dt)]) >= 2]
    doc = {"format": "fusim-compute-1",
           "command": "python3 tools/host_rows_median.py " + " ".join(argv[1:]),
           "compute": {"source": "median of %d calibrations' host rows at the last one's host speed" % len(paths),
                       "ops": ops, "host_probe_us": ref_comp["host_probe_us"], "host_probe_min_us": ref,
                       "readings": {"%s/%s" % k: [[round(a, 2), round(b, 2)] for a, b in rows[k]]
                                    for k in order if len(rows[k]) >= 2}}}
    write(out, doc)
    return 0


if __name__ == "__main__":
    sys.exit(bad_input.run("host_rows_median", lambda: main(sys.argv)))
