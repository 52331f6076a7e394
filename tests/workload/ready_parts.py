#!/usr/bin/env python3
"""ready_parts.py (test): tools/ready_parts.parts by hand. Two curves over three gradients:
captured a 10, b 50, c 100 of a backward of 100 us; estimated a 20, b 45, c 80 of 80 us.
|est - cap| = 10, 5, 20: the ready figure 20 / 100 = 0.2 at c (the backward's own error);
over each backward: cap 0.1, 0.5, 1.0, est 0.25, 0.5625, 1.0: the shape 0.15 at a.
A gradient only one curve has is left out; no gradient in common gives None.
Bad input (tools/ready_parts.py's command line): a folder holding unreadable JSON, or JSON that
is not a capture, is one line on stderr and exit 65 with nothing printed, before fusim runs.
Usage: ready_parts.py"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from ready_parts import parts  # noqa: E402

fails = []


def check(what, got, want, tol=1e-12):
    if not abs(got - want) <= tol:
        fails.append("%s: got %r, expected %r" % (what, got, want))


cap = {"a": 10.0, "b": 50.0, "c": 100.0, "only_cap": 5.0}
est = {"a": 20.0, "b": 45.0, "c": 80.0, "only_est": 1.0}
ready, worst, shape = parts(cap, est, 100.0, 80.0)
check("ready", ready, 0.2)
check("worst is c", worst == "c", True)
check("shape", shape, 0.15)
check("nothing in common", parts({"x": 1.0}, {"y": 1.0}, 100.0, 80.0) is None, True)
TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "ready_parts.py")
for what, text in (("unreadable JSON", "{"), ("not a capture", json.dumps({"name": "x"}))):
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "c.json"), "w") as f:
            f.write(text)
        p = subprocess.run([sys.executable, TOOL, d, "--fusim", "/nonexistent"], capture_output=True, text=True)
        check(what + ": exit 65", p.returncode, 65, 0)
        check(what + ": one line on stderr", len(p.stderr.splitlines()), 1, 0)
        check(what + ": nothing printed", len(p.stdout), 0, 0)
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
