#!/usr/bin/env python3
"""calib/compare_leases.py on hand-made calibrations and profiles, then on the two committed H200
calibrations against figures read off their CSVs (a path the script does not use), and its bad
input (one line on stderr, non-zero exit)."""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "calib", "compare_leases.py")
CAL = os.path.join(ROOT, "data", "calibration")
GIB = 1 << 30
fails = []


def check(what, ok):
    if not ok:
        fails.append(what)


def run(*args):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True)


def row(out, label, unit):
    """The old, new and difference cells of a headline line."""
    for line in out.splitlines():
        if line.startswith(label) and line[38:46].strip() == unit:
            return line[46:].split()
    return None


def make_db(path, rows):
    db = sqlite3.connect(path)
    db.execute("create table samples (id integer primary key, run_id int, op text, link text, ranks int,"
               " bytes int, in_place int default 0, dtype text, algo text, proto text, graph int default 0,"
               " t_median_us real, busbw_gbps real, count int)")
    for r in rows:
        db.execute("insert into samples (run_id, op, link, ranks, bytes, dtype, algo, proto, t_median_us,"
                   " busbw_gbps) values (1,?,?,1,?,?,?,?,?,?)", r)
    db.commit()
    db.close()


with tempfile.TemporaryDirectory(prefix="fusim-compare-leases-") as tmp:
    # hand-made: h2d 1 GiB in 20000 us, then 19000 us: 53.687 and 56.512 GB/s, time -5.0%, GB/s
    # +5.3%; launch 3.0 -> 4.5 us (+50.0%); bf16 GEMM 700 -> 630 TFLOP/s (-10.0%); the GEMM
    # sweep's two shapes take 1.2x and 0.9x as long
    old, new = os.path.join(tmp, "old.db"), os.path.join(tmp, "new.db")
    make_db(old, [("h2d", "pcie_h2d", GIB, None, None, None, 20000.0, None),
                  ("launch", "launch", 0, None, "device", None, 3.0, None),
                  ("gemm", "hbm", 1, "bf16", "8192x8192x8192", None, 1.0, 700000.0),
                  ("gemm", "hbm", 100, "bf16", "64x64x64", "fwd", 10.0, None),
                  ("gemm", "hbm", 100, "bf16", "64x64x64", "wgrad", 10.0, None)])
    make_db(new, [("h2d", "pcie_h2d", GIB, None, None, None, 19000.0, None),
                  ("launch", "launch", 0, None, "device", None, 4.5, None),
                  ("gemm", "hbm", 1, "bf16", "8192x8192x8192", None, 1.0, 630000.0),
                  ("gemm", "hbm", 100, "bf16", "64x64x64", "fwd", 12.0, None),
                  ("gemm", "hbm", 100, "bf16", "64x64x64", "wgrad", 9.0, None)])
    # profiles: one segment each, 10 + 0.001 b and 5 + 0.002 b us; at 4 B: 10.004 / 5.008 - 1 = +99.8%,
    # at 1 GiB (10 + 1073741.824) / (5 + 2147483.648) - 1 = -50.0%; launch_us 3 -> 6 (+100.0%)
    seg = lambda a, b: [{"lo_bytes": 4, "hi_bytes": None, "alpha_us": a, "beta_us_per_byte": b}]
    pa, pb = os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")
    json.dump({"launch_us": 3.0, "curves": [{"op": "d2h", "link": "pcie_d2h", "ranks": 1, "algo": "",
                                             "segments": seg(5, 0.002)}]}, open(pa, "w"))
    json.dump({"launch_us": 6.0, "curves": [{"op": "d2h", "link": "pcie_d2h", "ranks": 1, "algo": "",
                                             "segments": seg(10, 0.001)}]}, open(pb, "w"))
    p = run(old, new, "--profiles", pa, pb)
    check(f"hand-made: exit {p.returncode}: {p.stderr}", p.returncode == 0)
    check(f"h2d us: {row(p.stdout, 'h2d pinned 1 GiB', 'us')}",
          row(p.stdout, "h2d pinned 1 GiB", "us") == ["20000.0", "19000.0", "-5.0%"])
    check(f"h2d GB/s: {row(p.stdout, 'h2d pinned 1 GiB', 'GB/s')}",
          row(p.stdout, "h2d pinned 1 GiB", "GB/s") == ["53.7", "56.5", "+5.3%"])
    check("launch", row(p.stdout, "launch: b2b empty kernel", "us") == ["3", "4.5", "+50.0%"])
    check("bf16", row(p.stdout, "GEMM bf16 8192^3", "TFLOP/s") == ["700.0", "630.0", "-10.0%"])
    check("unmeasured shown as -", row(p.stdout, "d2h pinned 1 GiB", "us") == ["-", "-", "-"])
    check("sweep", "  all                2  0.900 / 1.050 / 1.200" in p.stdout)
    check("profile scalar", "3 (+100.0%)" in p.stdout)
    check(f"profile curve: {p.stdout}", "vs a.json: +99.8%" in p.stdout and "-50.0%; worst +99.8% at 4 B" in p.stdout)

    # bad input: one line on stderr, non-zero exit
    for args, want in (([old, os.path.join(tmp, "nope.sql")], "missing"),
                       ([old, pa], "not a fusim calibration"),
                       ([old, new, "--profiles", pa], "usage")):
        p = run(*args)
        check(f"{args}: exit {p.returncode}, stderr {p.stderr!r}",
              p.returncode != 0 and want in p.stderr and len(p.stderr.strip().splitlines()) == 1)

# the committed calibrations: headline figures against their rest CSVs (time_us column), read here
def csv_us(path, op, nbytes, algo=""):
    for line in open(path):
        f = line.split(",")
        if f[0] == op and f[2] == str(nbytes) and f[6] == algo and f[7] == "":
            return float(f[3])
    return None


a, b = os.path.join(CAL, "h200-pcie-2026-12-02.sql"), os.path.join(CAL, "h200-pcie-2026-12-05.sql")
p = run(a, b)
check(f"committed: exit {p.returncode}: {p.stderr}", p.returncode == 0)
for label, op, nbytes, algo in (("h2d pinned 1 GiB", "h2d", GIB, ""), ("d2h pinned 1 GiB", "d2h", GIB, ""),
                                ("d2d 1 GiB", "d2d", GIB, ""), ("bidir 2 x 256 MiB", "bidir", 256 << 20, "")):
    want = [csv_us(os.path.join(CAL, f"h200-pcie-2026-12-0{d}-rest.csv"), op, nbytes, algo) for d in (2, 5)]
    got = row(p.stdout, label, "us")
    check(f"{label}: {got} vs CSV {want}",
          got is not None and abs(float(got[0]) - want[0]) < 0.06 and abs(float(got[1]) - want[1]) < 0.06
          and got[2] == f"{100 * (want[1] / want[0] - 1):+.1f}%")

if fails:
    print("\n".join("FAIL: " + f for f in fails), file=sys.stderr)
    sys.exit(1)
print("test_compare_leases: ok")
