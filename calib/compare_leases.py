#!/usr/bin/env python3
"""compare_leases.py: two `fusim calib` calibrations side by side (lease-to-lease drift).

  calib/compare_leases.py OLD NEW [--profiles OLD.json NEW.json [MORE.json ...]]

OLD and NEW are each a calibration: one or more sqlite3 dumps (.sql) or databases (.db),
comma separated (e.g. 2026-12-02's copies and collectives in one dump, its GEMM sweep in
another). Prints the headline figures of data/calibration/README.md for both, from the stored
per-sample medians, and NEW's difference in % of OLD; then the GEMM shape sweep, shape by
shape, where both have one. With --profiles, the scalars and every curve of the profiles,
evaluated at the calibration's sizes (4 B .. 1 GiB by 4), each against the last one given.
"""
import json
import math
import os
import sqlite3
import statistics
import sys

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30


def die(msg):
    print(f"compare_leases.py: {msg}", file=sys.stderr)
    sys.exit(1)


def load(spec):
    """One in-memory database per file of a comma-separated list."""
    dbs = []
    for path in spec.split(","):
        if not os.path.isfile(path):
            die(f"{path}: missing")
        db = sqlite3.connect(":memory:")
        try:
            if path.endswith(".sql"):
                with open(path) as f:
                    db.executescript(f.read())
            else:
                src = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
                src.backup(db)
                src.close()
            db.execute("select count(*) from samples").fetchone()
        except sqlite3.Error as e:
            die(f"{path}: not a fusim calibration ({e})")
        dbs.append(db)
    return dbs


def one(dbs, sql, args=()):
    """The first non-null value the query gives in any of the files, else None."""
    for db in dbs:
        row = db.execute(sql, args).fetchone()
        if row and row[0] is not None:
            return row[0]
    return None


def copy_us(dbs, op, nbytes, algo=None, proto=None):
    return one(dbs, "select t_median_us from samples where op=? and bytes=? and algo is ? and proto is ?"
               " and in_place=0 and graph=0 order by id desc limit 1", (op, nbytes, algo, proto))


def slowdown(dbs, protos):
    """Mean over the overlap shapes of GEMM beside X / GEMM alone (calib/fit_profile.sh's formula)."""
    marks = ",".join("?" * len(protos))
    return one(dbs, "select avg(w.t_median_us / a.t_median_us) from samples w join samples a"
               " on a.op='gemm' and a.proto='alone' and a.algo=w.algo and a.run_id=w.run_id and a.id=w.id-1"
               f" where w.op='gemm' and w.proto in ({marks})", protos)


def gbps(nbytes, us):
    return nbytes / us / 1e3 if us else None


def headline(dbs):
    """(label, value, unit) in the README's order; a value is None where not measured."""
    f = []
    for op in ("h2d", "d2h"):
        us = copy_us(dbs, op, GIB)
        f += [(f"{op} pinned 1 GiB", us, "us"), (f"{op} pinned 1 GiB", gbps(GIB, us), "GB/s")]
    us = copy_us(dbs, "bidir", 256 * MIB)
    f += [("bidir 2 x 256 MiB", us, "us"), ("bidir 2 x 256 MiB", gbps(2 * 256 * MIB, us), "GB/s")]
    h, d = copy_us(dbs, "h2d", 256 * MIB), copy_us(dbs, "d2h", 256 * MIB)
    if us and h and d:  # bidir GB/s / (h2d + d2h GB/s), as fit_profile.sh's duplex_factor
        f.append(("duplex factor 256 MiB", (2 * 256 * MIB / us) / (256 * MIB / h + 256 * MIB / d), ""))
    for op in ("h2d", "d2h"):
        f.append((f"{op} pageable 1 GiB", gbps(GIB, copy_us(dbs, op, GIB, "pageable")), "GB/s"))
    us = copy_us(dbs, "d2d", GIB)
    f += [("d2d 1 GiB", us, "us"), ("d2d 1 GiB (bytes copied)", gbps(GIB, us), "GB/s")]
    for op in ("h2d", "d2h", "d2d"):  # small sizes: synchronised (the default) and device alone
        for b, name in ((4, "4 B"), (64 * KIB, "64 KiB"), (MIB, "1 MiB")):
            f.append((f"{op} {name}", copy_us(dbs, op, b), "us"))
            f.append((f"{op} {name} queued", copy_us(dbs, op, b, None, "queued"), "us"))
    us = one(dbs, "select t_median_us from samples where op='pack' and link='hbm' and algo='k=4'"
             " and proto is null and bytes=?", (512 * MIB,))
    f += [("pack 4 x 128 MiB", us, "us"), ("pack 4 x 128 MiB", gbps(512 * MIB, us), "GB/s")]
    onek = copy_us(dbs, "d2h", 4 * MIB, "one:k=64")
    pd = one(dbs, "select t_median_us from samples where op='pack' and algo='pack+d2h:k=64' and proto is null"
             " and bytes=?", (4 * MIB,))
    p2h = one(dbs, "select t_median_us from samples where op='pack' and algo='p2h:k=64' and proto is null"
              " and bytes=?", (4 * MIB,))
    f += [("one 4 MiB d2h (fusion run)", onek, "us"), ("pack 64 x 64 KiB + d2h", pd, "us"),
          ("pack 64 x 64 KiB to host", p2h, "us")]
    if onek and pd and p2h:
        f += [("pack+d2h / one copy", pd / onek, "x"), ("p2h / one copy", p2h / onek, "x")]
    f.append(("separate 64 x 64 KiB d2h", copy_us(dbs, "d2h", 4 * MIB, "separate:k=64"), "us"))
    for link, algo, label in (("pcie_d2h", "host", "issue: host per 4 B d2h"),
                              ("pcie_d2h", "device", "issue: device span per copy"),
                              ("launch", "device", "launch: b2b empty kernel"),
                              ("launch", "legacy", "launch: b2b, legacy stream"),
                              ("launch", "isolated", "launch: isolated")):
        op = "issue" if link == "pcie_d2h" else "launch"
        f.append((label, one(dbs, "select t_median_us from samples where op=? and link=? and algo=?",
                             (op, link, algo)), "us"))
    f.append(("ncclAllReduce host call (8 B)", one(dbs, "select avg(t_median_us) from samples where op='issue'"
                                                   " and link='hbm' and algo='allreduce'"), "us"))
    for b, name in ((8, "8 B"), (2 * MIB, "2 MiB"), (32 * MIB, "32 MiB"), (512 * MIB, "512 MiB")):
        us = one(dbs, "select t_median_us from samples where op='allreduce' and ranks=1 and dtype='float'"
                 " and algo is null and proto is null and in_place=0 and graph=0 and bytes=?", (b,))
        f.append((f"allreduce 1 rank {name}", us, "us"))
    f.append(("allreduce 1 rank 512 MiB", gbps(512 * MIB, us), "GB/s"))
    for dt in ("bf16", "tf32", "fp32"):
        f.append((f"GEMM {dt} 8192^3", one(dbs, "select busbw_gbps / 1000 from samples where op='gemm'"
                                           " and dtype=? and algo='8192x8192x8192' and proto is null", (dt,)),
                  "TFLOP/s"))
    f += [("copy_slowdown (GEMM beside d2h/h2d)", slowdown(dbs, ("+d2h", "+h2d")), "x"),
          ("comm_slowdown (beside 1-rank AR)", slowdown(dbs, ("+allreduce",)), "x"),
          ("GEMM beside d2d", slowdown(dbs, ("+d2d",)), "x")]
    return f


def pct(new, old):
    return f"{100 * (new / old - 1):+.1f}%" if new is not None and old else "-"


def num(v):
    if v is None:
        return "-"
    return f"{v:.4g}" if abs(v) < 10 else f"{v:.1f}"


def gemm_sweep(dbs):
    rows = {}
    for db in dbs:
        for dt, shape, layout, fl, t in db.execute(
                "select dtype, algo, proto, bytes, t_median_us from samples where op='gemm'"
                " and proto in ('fwd','dgrad','wgrad')"):
            rows[(dt, shape, layout)] = (fl, t)  # a GEMM sample's bytes are its FLOPs
    return rows


def quantiles(xs):
    xs = sorted(xs)
    q = lambda p: xs[min(len(xs) - 1, int(p * (len(xs) - 1) + 0.5))]
    return q(0.1), statistics.median(xs), q(0.9)


def segment_us(curve, b):
    segs = curve["segments"]
    for s in segs:
        hi = s["hi_bytes"] if s["hi_bytes"] is not None else math.inf
        if b < hi:
            return s["alpha_us"] + s["beta_us_per_byte"] * b
    s = segs[-1]
    return s["alpha_us"] + s["beta_us_per_byte"] * b


def compare_profiles(paths):
    profs = []
    for p in paths:
        try:
            with open(p) as f:
                profs.append(json.load(f))
        except (OSError, ValueError) as e:
            die(f"{p}: {e}")
    names = [os.path.basename(p) for p in paths]
    ref = len(profs) - 1
    print(f"\nProfiles (difference: {names[ref]} against each other one)")
    print(f"{'scalar':<18}" + "".join(f"{n[:22]:>24}" for n in names))
    for k in ("launch_us", "issue_us", "duplex_factor", "copy_slowdown", "comm_slowdown", "hbm_gbps",
              "gpu_tflops_bf16", "gpu_tflops_fp32", "pack_handoff_us"):
        vals = [p.get(k) for p in profs]
        cells = [f"{num(v)} ({pct(vals[ref], v)})" if i != ref else num(v) for i, v in enumerate(vals)]
        print(f"{k:<18}" + "".join(f"{c:>24}" for c in cells))
    sizes = [4 ** i for i in range(1, 16)]  # 4 B .. 1 GiB, calib's copy sizes
    shown = (4, 64 * KIB, MIB, 16 * MIB, 256 * MIB, GIB)
    key = lambda c: (c["op"], c["link"], c["ranks"], c.get("nodes", 1), c.get("algo", ""))
    print(f"\ncurve us at 4 B, 64 KiB, 1 MiB, 16 MiB, 256 MiB, 1 GiB; then the largest |difference| over"
          f" 4 B .. 1 GiB by 4 (curves of {names[ref]})")
    for c in profs[ref]["curves"]:
        label = f"{c['op']}/{c['link']} x{c['ranks']}" + (f" {c['algo']}" if c.get("algo") else "")
        print(f"  {label}: {names[ref]} " + " ".join(num(segment_us(c, b)) for b in shown))
        for i, p in enumerate(profs):
            if i == ref:
                continue
            other = [o for o in p["curves"] if key(o) == key(c)]
            if not other:
                print(f"    {names[i]}: no such curve")
                continue
            d = [(segment_us(c, b) / segment_us(other[0], b) - 1, b) for b in sizes]
            worst = max(d, key=lambda x: abs(x[0]))
            print(f"    vs {names[i]}: " + " ".join(f"{100 * (segment_us(c, b) / segment_us(other[0], b) - 1):+.1f}%"
                                                 for b in shown)
                  + f"; worst {100 * worst[0]:+.1f}% at {worst[1]} B")


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if len(argv) < 2 or (len(argv) > 2 and (argv[2] != "--profiles" or len(argv) < 5)):
        die("usage: compare_leases.py OLD NEW [--profiles A.json B.json ...]")
    profiles = argv[3:]
    old, new = load(argv[0]), load(argv[1])
    print(f"{'figure':<38}{'unit':>8}{'old':>11}{'new':>11}{'new-old':>9}")
    for (label, a, unit), (_, b, _) in zip(headline(old), headline(new)):
        print(f"{label:<38}{unit:>8}{num(a):>11}{num(b):>11}{pct(b, a):>9}")
    go, gn = gemm_sweep(old), gemm_sweep(new)
    both = sorted(set(go) & set(gn))
    if both:
        print(f"\nGEMM shape sweep: {len(both)} points in both; new / old time, p10 / median / p90")
        groups = {"all": both}
        for dt in sorted({k[0] for k in both}):
            groups[dt] = [k for k in both if k[0] == dt]
        for lo, hi, name in ((0, 1e9, "< 1 GFLOP"), (1e9, 1e11, "1-100 GFLOP"), (1e11, math.inf, ">= 100 GFLOP")):
            groups[name] = [k for k in both if lo <= go[k][0] < hi]
        for name, ks in groups.items():
            if ks:
                p10, med, p90 = quantiles([gn[k][1] / go[k][1] for k in ks])
                print(f"  {name:<14}{len(ks):>6}  {p10:.3f} / {med:.3f} / {p90:.3f}")
    if profiles:
        compare_profiles(profiles)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
