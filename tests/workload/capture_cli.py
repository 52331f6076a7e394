#!/usr/bin/env python3
"""capture_cli.py: tools/capture_torch.py's refusals that come before PyTorch is imported (so they
run here, without it): one line on stderr, exit 64, nothing written.
  - --memory-format nchw on a model not resnet50 (a model of your own lays its tensors out itself);
  - --host-ref naming no architecture a reference step exists for (tools/host_ref.py).
Usage: capture_cli.py"""
import os
import subprocess
import sys
import tempfile

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "capture_torch.py")
fails = []
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "cap.json")
    for what, args, word in (("--memory-format nchw on bert_large", ["--model", "bert_large", "--memory-format", "nchw"],
                              "resnet50"),
                             ("--host-ref foo", ["--model", "resnet50", "--host-ref", "foo"], "--host-ref")):
        r = subprocess.run([sys.executable, TOOL] + args + ["--out", out], capture_output=True, text=True)
        lines = r.stderr.strip().splitlines()
        if r.returncode != 64 or len(lines) != 1 or word not in lines[0] or os.path.exists(out):
            fails.append("%s: exit %d, stderr %r, written %s" % (what, r.returncode, r.stderr, os.path.exists(out)))
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
