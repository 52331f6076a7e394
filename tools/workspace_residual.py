#!/usr/bin/env python3
"""workspace_residual.py: what a capture's device memory between steps holds beside the model's
tensors, as a check on a profile's workspace_bytes (calib_torch --parts memory; PyTorch's cuBLAS
workspaces). Per capture (tools/capture_torch.py's meta): memory_allocated_between_steps less the
parameters, gradients and optimizer states (fp32: 4 bytes a parameter each; AdamW's two states,
SGD momentum's one, from the capture's notes) and the micro-batch (a CNN's or ViT's fp32 images
and int64 labels, a language model's int64 token ids and labels); then the median by GPU.
Usage: python3 tools/workspace_residual.py CAPTURE_DIR... (JSON files searched below each)"""
import glob
import json
import os
import statistics
import sys


def residual(cap):
    """The bytes between steps beyond the model's tensors and the micro-batch, or None."""
    m = cap.get("meta", {})
    between, params, batch = m.get("memory_allocated_between_steps"), m.get("params"), m.get("batch")
    if not between or not params or not batch:
        return None
    notes = cap.get("notes", "")
    states = 2 if "Adam" in notes else 1 if "momentum" in notes else 0
    seq, image = m.get("seq", 0), m.get("image", 224)
    vision = not seq or m.get("arch", "").startswith("vit") or "images" in notes
    inputs = batch * (4 * 3 * image * image + 8) if vision else 16 * batch * seq
    return between - 4 * params * (2 + states) - inputs


def main(dirs):
    by_gpu = {}
    for d in dirs:
        for f in sorted(glob.glob(os.path.join(d, "**", "*.json"), recursive=True)):
            try:
                cap = json.load(open(f))
            except (OSError, ValueError):
                continue
            r = residual(cap) if isinstance(cap, dict) else None
            if r is None:
                continue
            gpu = cap["meta"].get("gpu", "?")
            by_gpu.setdefault(gpu, []).append(r)
            print("%8.1f MiB  %s" % (r / 2 ** 20, os.path.relpath(f)))
    if not by_gpu:
        print("workspace_residual.py: no capture with memory_allocated_between_steps", file=sys.stderr)
        return 1
    for gpu, rs in sorted(by_gpu.items()):
        print("%s: %d captures, residual median %.1f MiB (range %.1f .. %.1f)" % (
            gpu, len(rs), statistics.median(rs) / 2 ** 20, min(rs) / 2 ** 20, max(rs) / 2 ** 20))
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        sys.exit(64)
    sys.exit(main(sys.argv[1:]))
