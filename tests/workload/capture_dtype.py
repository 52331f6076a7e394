#!/usr/bin/env python3
"""capture_dtype.py FUSIM: tools/capture_torch.py records each gradient's element type (its
parameter's), in a spelling fusim reads, without PyTorch: fake parameters stand in for tensors
(str(dtype) is what torch prints, "torch.bfloat16"). The workload they make must load, and
`--fusion single` must give one bucket per type (never a bf16 and a float32 gradient together)."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import capture_torch  # noqa: E402  (imports no torch at the top)


class FakeParam:
    def __init__(self, numel, esize, dtype):
        self.n, self.e, self.dtype = numel, esize, dtype

    def numel(self):
        return self.n

    def element_size(self):
        return self.e


fails = []
params = [("b", FakeParam(3, 4, "torch.float32")), ("w", FakeParam(10, 2, "torch.bfloat16")),
          ("h", FakeParam(5, 2, "torch.float16"))]
grads = [capture_torch.grad_entry(n, p, 1.0 + k) for k, (n, p) in enumerate(params)]
want = [("b", 12, "float32"), ("w", 20, "bfloat16"), ("h", 10, "float16")]
for g, (n, b, d) in zip(grads, want):
    if (g["name"], g["bytes"], g["dtype"]) != (n, b, d):
        fails.append("grad_entry %s: %r, expected bytes %d dtype %s" % (n, g, b, d))
with tempfile.TemporaryDirectory() as tmp:
    wl = os.path.join(tmp, "w.json")
    json.dump({"format": "fusim-workload-1", "name": "cap", "fwd_us": 5, "bwd_us": 5, "opt_us": 0,
               "grads": grads}, open(wl, "w"))
    r = subprocess.run([sys.argv[1], "predict", "--workload", wl, "--comm", "allreduce:8", "--fusion",
                        "single", "--format", "json"], capture_output=True, text=True)
    if r.returncode != 0:
        fails.append("predict: exit %d: %s" % (r.returncode, r.stderr.strip()))
    else:
        bk = [(b["first"], b["last"], b["bytes"]) for b in json.loads(r.stdout)["buckets"]]
        if bk != [(0, 0, 12), (1, 1, 20), (2, 2, 10)]:
            fails.append("single over three types: buckets %r, expected one per type" % bk)
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
