#!/usr/bin/env python3
"""test_cluster_bench.py: cluster_bench's diagnostics (floor, offset, NCCL's pick) by hand.

monotone_floor: [100, 50] needs one price p for both (p(100) <= p(50)), so the least max error is
(100 - 50) / (100 + 50) = 1/3; rising times need none; [300, 100, 200] is bound by its first two
rows: (300 - 100) / 400 = 1/2. measurement_floor reads both columns and the GPUs a process drives
from the "# nThread" header (nThread 2 x nGpus 4 = 8); mid_excess takes a log's 1-64 MiB rows less
their bytes at the ring's rate, offset_range the per-call costs that would meet a band's
targets, and fill_bound the most a pipeline fill could add (ring_us_per_byte's rate), all worked
by hand below. A fusim that cannot run or fails: one stderr
line, exit 1, no scratch folder left behind.

NCCL's own pick (nccl_choice.py, the nccl column), in its two forms, against values worked by
hand from NCCL's constants (tuning.cc; ring.cc, tree.cc, nvls.cc for 2.27 on):

A B200-like 2 x 8 all-reduce: NVLink ring 720.1 GB/s, 8 NICs x 49.0 = 392 GB/s, NVLS all-reduce
480.8 GB/s algbw; p = 16, 30 steps, ring algbw = bus x 16 / 30.
  2.27 form: ring LL min(39, 392 / 2) = 39 -> 20.8, 6.6 + 28 x max(0.6, 1.0) + 2 x 2.7 = 40.0 us;
  ring LL128 392 x 0.92 = 360.64 (cap 16 x 40) -> 192.341, 14 + 28 x 1.9 + 2 x 4.0 = 75.2 us;
  ring Simple 392 -> 209.067, 8.4 + 28 x 3.4 + 2 x 14 = 131.6 us; tree x 0.92 x 0.5 = 180.32 at
  8.4 + 2 (7 x 4.0 + 14) = 92.4 us, LL 19.5 at 6.8 + 2 (7 x 0.6 + 5) = 25.2, LL128 360.64 x
  120 / 128 / 2 = 169.05 at 14 + 2 (7 x 1.25 + 8.5) = 48.5; NVLS-tree min(2 x 480.8 x 15 / 16,
  2 x 392, 16 x 96) = 784 -> 418.133 at 25 + 2 x 20.9 = 66.8 us.
  At 1 MiB (log2(2^20 / 64) = 14: tree corrections LL128 0.6, Simple 0.5, the latter on
  Blackwell's NVLS-tree too): tree/LL128 48.5 + 2^20 / 101430 = 58.84 us beats NVLS-tree
  66.8 + 2^20 / 209067 = 71.82; at 1 GiB NVLS-tree (66.8 + 2568 us).
  2.19 form: NVLS-tree min(480.8, 392) x 5/6 = 326.667 at 23 + 2 x 14 = 51 us, so at 1 MiB
  51 + 3.21 = 54.2 us beats tree/LL128 (58.84); ring LL 4 network steps (2N), its intra step
  0.6 x 1.8: 6.6 + 26 x 1.08 + 4 x 2.7 = 45.48 us.
One Hopper node of 8 (ring 360 GB/s), all-gather: 2.27 ring LL min(141, 180) = 141 -> x 8 / 7 =
161.143 GB/s; 2.19 min(87.7, 360 / 3) -> 100.229; both 6.6 + 7 x 0.6 = 10.8 us.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import cluster_bench as cb  # noqa: E402
import nccl_choice as nc  # noqa: E402

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
# offset_range: rows (t 100, p 80) and (t 200, p 190), targets 10% / 30%. Max: X in [70 - 80,
# 130 - 80] and [140 - 190, 260 - 190], i.e. [-10, 50]. Median of two = their mean:
# |X - 20| / 100 + |X - 10| / 200 <= 0.2 holds on [10, 20], above 20 while 3X / 200 - 0.25 <= 0.2
# (X <= 30), below 10 while 0.25 - 3X / 200 <= 0.2 (X >= 3.33): whole us 4..30. Rows 100 / 200
# and 100 / 50 need X <= -70 and X >= 20 at 30%: none.
check("offset_range", cb.offset_range([(1, 100.0, 80.0), (2, 200.0, 190.0)], 0.1, 0.3),
      "  per-call offset, same sizes: one cost X added at every size meets both targets: X in [4, 30] us")
check("offset_range none", cb.offset_range([(1, 100.0, 200.0), (2, 100.0, 50.0)], 0.1, 0.3),
      "  per-call offset, same sizes: one cost X added at every size meets both targets: no X does")
# ring_us_per_byte: 2 x 2 GPUs, NVLink 100 GB/s, NICs a node not recorded (0: one a GPU, so 2) x 10 =
# 20 GB/s bus bandwidth (2e4 bytes a us); all-reduce's bus factor 2 x 3 / 4 = 1.5: 7.5e-5 us a byte.
check("ring_us_per_byte", cb.ring_us_per_byte({"intra_gbps": 100, "nic_gbps": 10, "nics_per_node": 0}, "allreduce:2x2"),
      (7.5e-5, 2e4))
# the same with the node's network capped at 16 GB/s (node_net_gbps, below its 2 NICs' 20): 1.6e4
# bytes a us, 1.5 / 1.6e4 = 9.375e-5 us a byte
check("ring_us_per_byte cap", cb.ring_us_per_byte({"intra_gbps": 100, "nic_gbps": 10, "node_net_gbps": 16}, "allreduce:2x2"),
      (9.375e-5, 1.6e4))
# fill_bound at 1e-5 us a byte (1 MiB: 10.48576 us), a ring of 15 steps, max target 30%. A 1 MiB row
# measured 100 us, priced 60: needs >= 70 - 60 = 10 us more; on a ring a fill adds one chunk at most,
# 10.48576 / 15 = 0.699 us; on a tree the whole 10.49 us. Beside a 2 MiB tree row measured 200,
# priced 100 (needs 140 - 100 = 40, fill <= 20.97), that row is the shorter by its bound (19.03 us
# against 9.30). A row priced 140 against 100 is +40% already; one priced right needs nothing.
MB1, MB2 = 1 << 20, 2 << 20
check("fill_bound ring", cb.fill_bound([(MB1, 100.0, 60.0, "ring/LL")], 1e-5, 15, 0.3),
      "  pipeline fill, same sizes: none can meet the max target: 1024 KiB (ring/LL) needs >= 10 us more, "
      "a fill adds at most 0.7 us there")
check("fill_bound tree", cb.fill_bound([(MB1, 100.0, 60.0, "tree/Simple")], 1e-5, 15, 0.3),
      "  pipeline fill, same sizes: not ruled out by its bound: 1024 KiB (tree/Simple) needs >= 10 us more, "
      "a fill adds at most 10.5 us there")
check("fill_bound worst row", cb.fill_bound([(MB1, 100.0, 60.0, "ring/LL"), (MB2, 200.0, 100.0, "tree/Simple")],
                                            1e-5, 15, 0.3),
      "  pipeline fill, same sizes: none can meet the max target: 2048 KiB (tree/Simple) needs >= 40 us more, "
      "a fill adds at most 21.0 us there")
check("fill_bound over", cb.fill_bound([(MB1, 100.0, 60.0, "ring/LL"), (MB2, 100.0, 140.0, "ring/Simple")],
                                       1e-5, 15, 0.3),
      "  pipeline fill, same sizes: none can meet the max target: 2048 KiB is priced +40.0% already and a fill "
      "only adds")
check("fill_bound none short", cb.fill_bound([(MB1, 100.0, 100.0, "ring/LL")], 1e-5, 15, 0.3),
      "  pipeline fill, same sizes: not ruled out: no row is priced below the max target")
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
B200 = {"intra_gbps": 720.1, "nic_gbps": 49.0, "nics_per_node": 0, "nvls_algbw_gbps": [480.8, 0, 0],
        "intra_link": "nvlink"}
check("form 2.29.2", nc.form("2.29.2"), "2.27")
check("form 2.27.3", nc.form("2.27.3"), "2.27")
check("form 2.26.6", nc.form("2.26.6"), "2.19")
check("form unknown", nc.form(None), "2.19")
check("arch B200", nc.arch("NVIDIA B200"), "blackwell")
check("arch H100", nc.arch("NVIDIA H100 80GB HBM3"), "hopper")
check("arch A100", nc.arch("NVIDIA A100-SXM4-80GB"), "ampere")

t = nc.table(B200, "allreduce", 16, 2, "2.29.2", "NVIDIA B200")
want = {("ring", "LL"): (40.0, 20.8), ("ring", "LL128"): (75.2, 192.341), ("ring", "Simple"): (131.6, 209.067),
        ("tree", "LL"): (25.2, 19.5), ("tree", "LL128"): (48.5, 169.05), ("tree", "Simple"): (92.4, 180.32),
        ("nvls_tree", "Simple"): (66.8, 418.133)}
check("2.27 lines", sorted(t), sorted(want))
for k, (lat, bw) in want.items():
    check(f"2.27 {k[0]}/{k[1]} latency", t[k][0], lat, 1e-3)
    check(f"2.27 {k[0]}/{k[1]} algbw", t[k][1], bw, 1e-3)
check("2.27 choice 1 MiB", nc.choice(B200, "allreduce", 16, 2, 1 << 20, "2.29.2", "NVIDIA B200"), "tree/LL128")
check("2.27 choice 1 GiB", nc.choice(B200, "allreduce", 16, 2, 1 << 30, "2.29.2", "NVIDIA B200"),
      "nvls_tree/Simple")

t = nc.table(B200, "allreduce", 16, 2, None, "NVIDIA B200")
check("2.19 nvls_tree", (round(t[("nvls_tree", "Simple")][0], 3), round(t[("nvls_tree", "Simple")][1], 3)),
      (51.0, 326.667))
check("2.19 ring/LL latency", t[("ring", "LL")][0], 45.48)
# a node network capped at 200 GB/s (node_net_gbps, below its 8 NICs' 392): NVLS-tree's rate
# min(A_nvls 480.8, 200) x 5/6 = 166.667, as the C model's fu_coll_node_net_gbps
t = nc.table(dict(B200, node_net_gbps=200), "allreduce", 16, 2, None, "NVIDIA B200")
check("2.19 nvls_tree, node cap", round(t[("nvls_tree", "Simple")][1], 3), 166.667)
check("2.19 choice 1 MiB", nc.choice(B200, "allreduce", 16, 2, 1 << 20, None, "NVIDIA B200"), "nvls_tree/Simple")

H100 = {"intra_gbps": 360.0, "nic_gbps": 49.0, "intra_link": "nvlink"}
for v, bw in (("2.29.2", 161.143), ("2.18.3", 100.229)):
    lat, got = nc.table(H100, "allgather", 8, 1, v, "NVIDIA H100 80GB HBM3")[("ring", "LL")]
    check(f"{v} one-node ring/LL algbw", got, bw, 1e-3)
    check(f"{v} one-node ring/LL latency", lat, 10.8)
sys.exit(1 if FAIL else 0)
