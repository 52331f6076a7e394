#!/usr/bin/env python3
"""tools/calib_torch.py's attention part times each sequence length at several batch x heads
counts (attn_bhs; no torch, no GPU): 16..256 below 2^19 / seq and that count itself (at least
16); --quick only the latter. Expected lists written out by hand."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import calib_torch as c  # noqa: E402

want = {(128, False): [16, 32, 64, 128, 256, 4096], (1024, False): [16, 32, 64, 128, 256, 512],
        (2048, False): [16, 32, 64, 128, 256], (4096, False): [16, 32, 64, 128],
        (65536, False): [16], (1024, True): [512], (65536, True): [16]}
fails = ["attn_bhs(%d, %s) = %s, expected %s" % (s, q, c.attn_bhs(s, q), w)
         for (s, q), w in want.items() if c.attn_bhs(s, q) != w]
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
