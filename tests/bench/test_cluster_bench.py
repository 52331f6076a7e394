#!/usr/bin/env python3
"""test_cluster_bench.py: cluster_bench's measurement-floor diagnostics on hand-made logs.

monotone_floor: [100, 50] needs one price p for both (p(100) <= p(50)), so the least max error is
(100 - 50) / (100 + 50) = 1/3; rising times need none; [300, 100, 200] is bound by its first two
rows: (300 - 100) / 400 = 1/2. measurement_floor reads both columns and the GPUs a process drives
from the "# nThread" header (nThread 2 x nGpus 4 = 8); mid_excess takes a log's 1-64 MiB rows less
their bytes at the ring's rate, worked by hand below. A fusim that cannot run or fails: one stderr
line, exit 1, no scratch folder left behind."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import cluster_bench as cb  # noqa: E402

FAIL = 0


def check(what, got, want, tol=1e-6):
    global FAIL
    ok = abs(got - want) <= tol if isinstance(want, float) else got == want
    print(f"{'ok  ' if ok else 'FAIL'} {what}: {got!r} (want {want!r})")
    FAIL += not ok


check("monotone_floor falling pair", cb.monotone_floor([100, 50]), 1 / 3)
check("monotone_floor rising", cb.monotone_floor([10, 20, 40]), 0.0)
check("monotone_floor first pair binds", cb.monotone_floor([300, 100, 200]), 0.5)
LOG = """# nThread 2 nGpus 4 minBytes 1024 maxBytes 4096 step: 2(factor) warmup iters: 5 iters: 20
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
        1024           256     float     sum      -1    10.00    0.10    0.10      0    12.00    0.09    0.09      0
        2048           512     float     sum      -1    30.00    0.07    0.07      0    30.00    0.07    0.07      0
        4096          1024     float     sum      -1    20.00    0.20    0.20      0    20.00    0.20    0.20      0
"""
with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
    f.write(LOG)
try:
    check("gpus_per_process", cb.gpus_per_process(f.name), 8)
    check("measured in_place", cb.measured(f.name, in_place=True)[0], (1024, 10.0, 12.0))
    line = cb.measurement_floor(f.name, 1024)
    # columns differ by 20% at 1 KiB, 0 elsewhere: median 0.0%, max 20.0%; 30 us before 20 us:
    # (30 - 20) / 50 = 20.0%
    check("measurement_floor line", line,
          "  measurement floor, same sizes (GPUs a process 8): the two columns differ by median 0.0%, "
          "max 20.0%; no size-monotone price gets max below 20.0%")
    check("measurement_floor above the log", cb.measurement_floor(f.name, 8192), "")
    # mid_excess: 2 nodes of 2 GPUs, NIC 10 GB/s x 2 under the 100 GB/s link: 20 GB/s busbw;
    # 1 MiB all-reduce over 4 ranks carries 1.5 x 1048576 B at 20000 B/us = 78.6432 us, so 100 and
    # 120 us leave 21.36 and 41.36 us (median 31); the 1024-4096 B rows are below 1 MiB
    with open(f.name, "a") as g:
        g.write("     1048576        262144     float     sum      -1    100.0    0.0    0.0      0    120.0    0.0    0.0      0\n")
    check("mid_excess", cb.mid_excess({"intra_gbps": 100, "nic_gbps": 10, "nics_per_node": 0}, "allreduce:2x2", f.name),
          "  allreduce:2x2 at 1-64 MiB, above its bytes at the fitted ring rate (20 GB/s busbw), GPUs a process 8: "
          "median 31 us, range 21..41 us")
finally:
    os.unlink(f.name)
# a fusim that cannot be run, or a failing call: one stderr line, exit 1, and no scratch folder
# left in the temporary directory (cluster_bench removes it at exit)
BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cluster_bench.py")
with tempfile.TemporaryDirectory() as td:
    for prog in (os.path.join(td, "no-fusim"), "false"):
        r = subprocess.run([sys.executable, BENCH, prog, td], capture_output=True, text=True,
                           env=dict(os.environ, TMPDIR=td))
        check(f"{os.path.basename(prog)}: exit", r.returncode, 1)
        check(f"{os.path.basename(prog)}: stderr lines", len(r.stderr.strip().splitlines()), 1)
        check(f"{os.path.basename(prog)}: scratch left", os.listdir(td), [])
sys.exit(1 if FAIL else 0)
