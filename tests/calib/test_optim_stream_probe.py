#!/usr/bin/env python3
"""tools/optim_stream_probe.py without torch: its price (price_us) on values worked by hand (as
tests/model/test_compute.c's HBM form: SGD over 20 tensors of 4 full chunks, 47.768 us streamed,
50.01088 with the one-list operation in the cache, 64.9824 with every list in it), and its
--dry-run, which must find price_us equal to fusim's own optimizer note for ResNet-50/101/152.
Bad arguments, each one line on stderr before any GPU time: no --out (64), a missing profile (66),
a file that is not a profile (65), an --out whose folder cannot be written (73).
Usage: test_optim_stream_probe.py FUSIM"""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import optim_stream_probe as osp  # noqa: E402

fails = []
row = {"launch_us": 2, "per_moved_elem_us": 1.5e-6, "per_chunk_elem_us": 6e-5, "hbm_launch_us": 5,
       "hbm_per_moved_elem_us": 1e-6, "hbm_sat_blocks": 100, "cache_bytes": 1e6}
sizes = [262144.0] * 20
for cache, want in ((1e6, 47.768), (3e7, 50.01088), (1e8, 64.9824)):
    got = osp.price_us(dict(row, cache_bytes=cache), "sgd", sizes)
    if abs(got - want) > 1e-9 * want:
        fails.append("price_us at cache %g: %.6f, expected %.6f" % (cache, got, want))
r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "optim_stream_probe.py"), "--dry-run",
                    "--fusim", sys.argv[1]], capture_output=True, text=True)
if r.returncode != 0 or r.stdout.count(": same") != 3:
    fails.append("--dry-run --fusim: exit %d, %d of 3 ResNets priced as fusim does\n%s%s" % (
        r.returncode, r.stdout.count(": same"), r.stdout, r.stderr))
r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "optim_stream_probe.py")], capture_output=True, text=True)
if r.returncode != 64 or len(r.stderr.strip().splitlines()) != 1:
    fails.append("no --out: exit %d, stderr %r (expected 64, one line)" % (r.returncode, r.stderr))
TOOL = os.path.join(ROOT, "tools", "optim_stream_probe.py")
with tempfile.TemporaryDirectory() as tmp:
    junk = os.path.join(tmp, "junk.json")
    with open(junk, "w") as f:
        f.write("[1, 2]")
    for args, code in ((["--dry-run", "--profile", os.path.join(tmp, "none.json")], 66),
                       (["--dry-run", "--profile", junk], 65),
                       (["--out", os.path.join(tmp, "no-such-dir", "s.json")], 73)):
        r = subprocess.run([sys.executable, TOOL] + args, capture_output=True, text=True)
        if r.returncode != code or len(r.stderr.strip().splitlines()) != 1:
            fails.append("%s: exit %d, stderr %r (expected %d, one line)" % (args, r.returncode, r.stderr, code))
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
