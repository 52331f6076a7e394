#!/usr/bin/env python3
"""compare_reference.py: fusim calib's CSV output against the reference measurements.

usage: compare_reference.py REFDIR CALIB.csv [CALIB2.csv ...] [--proto P] [--markdown]

Compares, size by size, the median times of `fusim calib --format csv` with
REFDIR/h200-pcie-copies.txt (h2d, d2h, d2d, bidir, back-to-back launches, the fusion rows) and
REFDIR/h200-1gpu-allreduce-nccl-tests.txt (one-rank all-reduce, out-of-place and in-place).
Targets (issue 4): within 3% from 64 KiB up, within 10% below. --proto picks the copy timing
variant (default "": back to back). Prints one row per point and a summary; exit 1 if any
point misses its target (the summary says which), so it can gate a calibration.
"""
import csv
import re
import sys


def read_calib(paths):
    rows = []
    for p in paths:
        with open(p) as f:
            lines = [l for l in f if not l.startswith("#")]
        rows += list(csv.DictReader(lines))
    return rows


def read_ref_copies(path):
    ref = {}
    fusion = {}
    for line in open(path):
        t = line.split()
        if not t or t[0].startswith("#"):
            continue
        if t[0] in ("h2d", "d2h", "d2d", "bidir"):
            ref[(t[0], int(t[1]))] = float(t[2])
        elif t[0].startswith("launch_empty"):
            ref[("launch", 0)] = float(t[4])
        elif t[0] == "fusion":
            k, m = int(t[2]), int(t[4])
            fusion[(k, m)] = {"separate": float(t[6]), "one": float(t[8]), "pack+d2h": float(t[10])}
    return ref, fusion


def read_ref_nccl(path):
    ref = {}
    for line in open(path):
        if line.lstrip().startswith("#") or not line.strip():
            continue
        t = line.split()
        ref[("allreduce", int(t[0]), 0)] = float(t[5])
        ref[("allreduce", int(t[0]), 1)] = float(t[9])
    return ref


def main(argv):
    proto = ""
    md = "--markdown" in argv
    args = [a for a in argv[1:] if a != "--markdown"]
    if "--proto" in args:
        i = args.index("--proto")
        proto = args[i + 1]
        del args[i:i + 2]
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 64
    refdir, paths = args[0], args[1:]
    rows = read_calib(paths)
    ref, fusion = read_ref_copies(refdir + "/h200-pcie-copies.txt")
    nccl = read_ref_nccl(refdir + "/h200-1gpu-allreduce-nccl-tests.txt")
    out = []  # (what, bytes, ref, ours, rel, target)

    def target(b):
        return 0.03 if b >= 65536 else 0.10

    for r in rows:
        op, b, alg, pr = r["op"], int(r["bytes"]), r["algo"], r["proto"]
        t = float(r["time_us"])
        if op in ("h2d", "d2h", "d2d", "bidir") and alg == "" and pr == proto and (op, b) in ref:
            out.append((op + (" " + proto if proto else ""), b, ref[(op, b)], t))
        if op == "launch" and alg == "device" and ("launch", 0) in ref:
            out.append(("launch b2b (fusim stream)", 0, ref[("launch", 0)], t))
        if op == "launch" and alg == "legacy" and ("launch", 0) in ref:
            out.append(("launch b2b (legacy stream)", 0, ref[("launch", 0)], t))
        m = re.match(r"(one|separate|pack\+d2h|p2h)[:,]k=(\d+)$", alg)
        if m and pr == proto:
            k = int(m.group(2))
            key = (k, b // k)
            if key in fusion:
                kind = m.group(1)
                ref_kind = "pack+d2h" if kind == "p2h" else kind
                # fusim's pack kernel is not the reference's (naive) one: no target, shown only
                out.append(("fusion %s k=%d m=%d" % (kind, k, b // k), b, fusion[key][ref_kind],
                            t, kind in ("pack+d2h", "p2h")))
        if (op == "allreduce" and r["dtype"] == "float" and r["algo"] == "" and pr == ""
                and r["graph"] == "0" and ("allreduce", b, int(r["in_place"])) in nccl):
            ip = int(r["in_place"])
            refv = nccl[("allreduce", b, ip)]
            # in place on one rank NCCL launches nothing: sub-microsecond host timings, no target
            out.append(("allreduce%s median" % (" ip" if ip else ""), b, refv, t, ip == 1))
            mean = r.get("mean_us", "")
            if mean not in ("", "nan"):
                out.append(("allreduce%s mean" % (" ip" if ip else ""), b, refv, float(mean),
                            ip == 1))
    bad = 0
    fmt = "| %-34s | %11s | %10s | %10s | %+7.1f%% | %s |" if md else "%-34s %11s %10s %10s %+7.1f%%  %s"
    if md:
        print("| point | bytes | reference us | fusim us | diff | within target |")
        print("| --- | ---: | ---: | ---: | ---: | --- |")
    n = 0
    for row in out:
        what, b, rv, t = row[:4]
        rel = (t - rv) / rv
        if len(row) > 4 and row[4]:
            print(fmt % (what, b, "%.2f" % rv, "%.2f" % t, 100 * rel,
                         "(no GPU work: no target)" if " ip " in what else "(other kernel: no target)"))
            continue
        n += 1
        ok = abs(rel) <= target(b)
        bad += not ok
        print(fmt % (what, b, "%.2f" % rv, "%.2f" % t, 100 * rel,
                     "yes" if ok else "NO (target %d%%)" % round(100 * target(b))))
    # the pack target: pack + one copy at most 15% above the one copy (issue 4)
    one = {}
    for r in rows:
        m = re.match(r"(one|pack\+d2h|p2h)[:,]k=(\d+)$", r["algo"])
        if m and r["proto"] == proto:
            one[(int(m.group(2)), int(r["bytes"]), m.group(1))] = float(r["time_us"])
    for (k, b, kind), t in sorted(one.items()):
        if kind != "one":
            base = one.get((k, b, "one"))
            if base:
                print("pack ratio %-8s k=%-4d m=%-9d %.3f x one copy%s" % (
                    kind, k, b // k, t / base, "" if b < (4 << 20) or t / base <= 1.15 else "  > 1.15"))
    print("%d points, %d outside their target" % (n, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
