#!/usr/bin/env python3
"""data/validation/mid_sizes.py's channel cut, answers by hand from NCCL's constants (enqueue.cc's
loop: drop a channel while n < nc x nt x threadThreshold):

- Simple, 512 threads x 64 B = 32 KiB a channel: 1 MiB is exactly 32 x 32 KiB, so 32 channels keep
  all 32 and 64 keep 32; one byte less keeps 31 of 32 (31 x 32 KiB = 992 KiB <= n); 16 KiB keeps 1.
- The thresholds a line has: ring/LL 512 x 8 x nRanks (16 ranks: 64 KiB), tree/LL 4 KiB, LL128
  640 x 8 = 5 KiB, Simple 32 KiB, NVLS and NVLS-tree none.
- The extra time: a bandwidth term of 2.678 us on 64 channels at 1 MiB of Simple runs on 32:
  x (64 / 32 - 1) = +2.678 us; a ring/LL term of 25.2 us at 16 ranks on 16 of 64: x 3 = +75.6 us;
  NVLS-tree none. A folder without the logs: one stderr line, exit 66."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vcheck import ROOT, check, finish  # noqa: E402  (data/validation on sys.path)

sys.argv = sys.argv[:1]  # mid_sizes imports cluster_bench, which reads FUSIM and DATA from argv
import mid_sizes as M  # noqa: E402

MiB = 1 << 20
check("Simple threshold 32 KiB a channel", M.T_SIMPLE == 32768)
check("1 MiB keeps 32 of 32 channels", M.channels(MiB, 32, M.T_SIMPLE) == 32)
check("1 MiB keeps 32 of 64 channels", M.channels(MiB, 64, M.T_SIMPLE) == 32)
check("1 MiB - 1 B keeps 31 of 32", M.channels(MiB - 1, 32, M.T_SIMPLE) == 31)
check("16 KiB keeps 1", M.channels(16384, 32, M.T_SIMPLE) == 1)
check("ring/LL at 16 ranks: 64 KiB a channel", M.threshold("ring/LL", 16) == 65536)
check("tree/LL: 4 KiB", M.threshold("tree/LL", 16) == 4096)
check("ring/LL128: 5 KiB", M.threshold("ring/LL128", 16) == 5120)
check("tree/Simple: 32 KiB", M.threshold("tree/Simple", 16) == 32768)
check("nvls_tree/Simple: no cut", M.threshold("nvls_tree/Simple", 16) is None)
check("Simple 1 MiB on 32 of 64: +2.678 us", abs(M.extra_us(MiB, 64, M.T_SIMPLE, 2.678) - 2.678) < 1e-12)
check("ring/LL 1 MiB, 16 ranks, 16 of 64: +75.6 us", abs(M.extra_us(MiB, 64, 65536, 25.2) - 75.6) < 1e-9)
check("no cut: +0", M.extra_us(MiB, 64, None, 25.2) == 0)
r = subprocess.run([sys.executable, os.path.join(ROOT, "data", "validation", "mid_sizes.py"), "fusim",
                    os.path.join(ROOT, "no-such-folder")], capture_output=True, text=True)
check("no logs: exit 66, one stderr line", r.returncode == 66 and len(r.stderr.strip().splitlines()) == 1)
finish()
