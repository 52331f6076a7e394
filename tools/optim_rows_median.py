#!/usr/bin/env python3
"""optim_rows_median.py: one reading of the optimizer rows from several calibrations (tools/
calib_torch.py --parts optimizer, each with its probe readings beside it): each row's host part
(host_base_us, host_per_tensor_us) carried to the last file's host speed by the ratio of the
probes' fastest readings (diag.optimizer.probes_us), then the median of every field over the
files (the device part, its launch form, tail_frac, prologue_frac and tail_us as measured). The same method as host_rows_median.py for
the HF host rows: one calibration reads the host in whatever phase it fell in (AdamW's host per
tensor at one probe speed: 15.96, 14.62 and 14.57 us in three calibrations on 2026-12-04d/e).
The output is a calibration file (fusim-compute-1) holding only the optimizer rows, with the last
file's fastest reading as their host_probe_us; merge it after the others.

A row without the HBM form (calib_torch.fit_optim_hbm, 2026-12-05) gets it from its points, at the
GPU's L2 cache size: the file's diag.optimizer.l2_cache_bytes, else --l2-bytes (calibrations before 2026-12-05 did
not record it; the H200's is 62914560, 60 MiB, as fusim calib logs it: "L2 60 MB").

Usage: python3 tools/optim_rows_median.py [--l2-bytes N] OUT CALIB.json CALIB.json [CALIB.json ...]
"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calib_torch  # noqa: E402
import host_rows_median  # noqa: E402

FIELDS = ("base_us", "per_tensor_us", "per_elem_us", "host_base_us", "host_per_tensor_us", "tail_frac",
          "launch_us", "per_moved_elem_us", "per_chunk_elem_us", "prologue_frac", "tail_us",
          "hbm_launch_us", "hbm_per_moved_elem_us", "hbm_sat_blocks", "cache_bytes")


COUNTS = ("hbm_sat_blocks", "cache_bytes")  # whole numbers, kept whole


def load(path, l2_bytes=0):
    """(the probes' fastest reading, {name: row} of the rows with a host part) of one calibration;
    a row without the launch form (measured before 2026-12-04o) gets it fitted from its points
    (calib_torch.fit_optim_launch) where it has them and fusim takes the fit (launch_ok)."""
    c = json.load(open(path))["compute"]
    probes = c.get("diag", {}).get("optimizer", {}).get("probes_us") or []
    if not probes or min(probes) <= 0:
        raise ValueError("%s: no probe readings (diag.optimizer.probes_us)" % path)
    rows = {o["name"]: o for o in c["optimizer"] if "host_per_tensor_us" in o}
    for o in rows.values():
        if "launch_us" not in o and "points" in o and calib_torch.has_launch_form(o["name"]):
            lu, lm, lc, _ = calib_torch.fit_optim_launch(o["name"], o["points"])
            if calib_torch.launch_ok(lu, lm, lc):   # else the row has none (fusim would refuse it)
                o["launch_us"], o["per_moved_elem_us"], o["per_chunk_elem_us"] = lu, lm, lc
        if "prologue_frac" not in o and "points" in o:  # the overlap (2026-12-04p) likewise
            o["prologue_frac"], o["tail_us"] = calib_torch.fit_optim_overlap(o["points"])
        cache = c.get("diag", {}).get("optimizer", {}).get("l2_cache_bytes") or l2_bytes
        if "hbm_launch_us" not in o and "points" in o and "launch_us" in o and cache > 0:  # 2026-12-05
            o.update({k: v for k, v in calib_torch.fit_optim_hbm(o["name"], o["points"], cache).items()
                      if k in FIELDS})
    return min(probes), rows


def main(argv):
    args, l2 = list(argv[1:]), 0
    if args[:1] == ["--l2-bytes"]:
        try:
            l2 = int(args[1])
        except (IndexError, ValueError):
            l2 = -1
        args = args[2:]
    out, paths = (args[0], args[1:]) if len(args) >= 3 else (None, [])
    if not out or l2 < 0:
        print("usage: optim_rows_median.py [--l2-bytes N] OUT CALIB.json CALIB.json [...]", file=sys.stderr)
        return 64
    try:
        files = [load(p, l2) for p in paths]
        ref = files[-1][0]
        names = [n for n in files[-1][1] if all(n in rows for _, rows in files)]
        if not names:
            raise ValueError("no optimizer measured with its host part in every file")
        opt, readings = [], {}
        for n in names:
            got = []
            for probe, rows in files:
                o, k = rows[n], ref / probe
                got.append({f: o[f] * (k if f.startswith("host_") else 1.0) for f in FIELDS if f in o})
            # a field some files lack (the launch form, from rows without points) over those that have it
            med = {f: statistics.median(g[f] for g in got if f in g) for f in FIELDS if any(f in g for g in got)}
            opt.append(dict({f: int(v) if f in COUNTS else float("%.6g" % v) for f, v in med.items()},
                            name=n, host_probe_us=ref))
            readings[n] = [[round(g["host_base_us"], 2), round(g["host_per_tensor_us"], 3)] for g in got]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("optim_rows_median: %s" % e, file=sys.stderr)
        return 65
    doc = {"format": "fusim-compute-1", "command": "python3 tools/optim_rows_median.py " + " ".join(argv[1:]),
           "compute": {"source": "median of %d calibrations' optimizer rows, host parts at the last one's host "
                                 "speed" % len(paths), "optimizer": opt, "readings": readings}}
    host_rows_median.write(out, doc)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
