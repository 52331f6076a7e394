#!/usr/bin/env python3
"""host_ref.py: the host's speed for a step's own kind of work, as a reference step that the
profile's host rows also describe, so that `fusim workload --host-ref-fwd FWD --host-ref-bwd BWD`
can carry the rows to the host where a step runs.

Why not the launch probe (torch_host.host_probe / bwd_probe): over many leases and rounds its
readings did not follow a step's forward() or backward() CPU time (data/compute/README.md,
2026-12-04g/h: the two threads' speeds move apart, in phases shorter than the probe's spacing),
while the calibration's own tiny HF steps, timed through a whole minute, did (that lease's rows
priced bert_h512's held step +18% / +4%). So the reference is the work the rows were measured
on, timed between the steps it is meant to describe:

  transformers (bert, gpt2, llama, qwen3, phi3, olmo2) calib_torch's tiny HF model (hidden 64, 2 heads, vocabulary
      128) at REF_LAYERS layers, batch 1 x 16, in the step's mode (bf16 autocast, or fp32), timed
      as hf_host times the rows the builder uses (hf_<arch>_layer_tiny, _rest_tiny: the wall time
      of forward() and of backward(), unheld); the profile's value for it is rest + REF_LAYERS x
      layer.
  ResNets  torchvision ResNet-50 at batch 32, 224 x 224, channels-last, with the GPU held behind
      a sleep kernel (calib_torch.held_step_host), as hf_host times tv_resnet50_held, the row
      `--cnn` scales its operations' host costs to.

maker(arch, amp) returns step() -> (forward us, backward us) or None for an architecture without
a reference; step.resident_bytes is the device memory it keeps between calls (its model's
parameters and buffers and its input: a capture takes them off the memory it reports; each call
frees its gradients). Counted from the tensors, not from memory_allocated() around the first
calls: those also allocate the cuBLAS workspaces of both threads, which the captured model needs
anyway (2026-12-04L: bert_h512's peak read 70 MiB low that way). Used by tools/capture_torch.py
(meta.host_ref) and runnable alone on a host that a what-if estimate is for:

    python3 tools/host_ref.py --arch bert --amp bf16 [--steps 30]   # prints FWD,BWD (medians)
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

REF_LAYERS = 3  # sim/fu_builder.c fu__host_ref prices the same depth from the profile's rows
HF_ARCHS = ("bert", "gpt2", "llama", "qwen3", "phi3", "olmo2", "vit")  # calib_torch's hf_host models


def profile_host_row(profile, op, mode):
    """The profile's host row op in mode as (fwd, bwd) us; None without it."""
    for o in profile.get("compute", {}).get("ops", []):
        if o["op"] == op and o["dtype"] == mode:
            return o["host_fwd_us"], o["host_bwd_us"]
    return None


def load_profile(tool, path, check):
    """The profile at path, with check(profile) run on it before any GPU time (it raises where the
    profile lacks what the tool reads), as (profile, 0); else (None, exit status) after one line on
    stderr: 66 for a file that cannot be read as JSON, 65 for JSON that is not such a profile."""
    try:
        with open(path) as f:
            profile = json.load(f)
    except (OSError, ValueError) as e:
        print("%s: %s: %s" % (tool, path, e), file=sys.stderr)
        return None, 66
    try:
        check(profile)
    except (AttributeError, KeyError, TypeError, ValueError) as e:
        print("%s: %s: not a profile with host rows (%s: %s)" % (tool, path, type(e).__name__, e),
              file=sys.stderr)
        return None, 65
    return profile, 0


def out_writable(tool, out):
    """Whether --out's folder can be written; else one line on stderr (tool: the caller's name), so
    that a device tool stops before its GPU time rather than lose the measurement at the end."""
    if os.access(os.path.dirname(os.path.abspath(out)), os.W_OK):
        return True
    print("%s: --out %s: its folder cannot be written" % (tool, out), file=sys.stderr)
    return False


def maker_for(model, amp):
    """The reference step of the architecture fusim's builder prices model as (tools/
    compare_compute.py's KNOWN: validate_torch's and capture_torch's model names), or None for a
    model no builder makes."""
    import compare_compute
    arch = compare_compute.KNOWN.get(model, {}).get("arch")
    return maker(arch, amp) if arch else None


def maker(arch, amp):
    """A reference step for a capture of arch (bert, gpt2, llama, qwen3, phi3, olmo2, or a --cnn model: every
    one's host rows are carried by ResNet-50's held step) in amp (bf16, tf32, fp32, none); None
    where there is none (fp16: the profile has no such rows). step.arch names it (meta.host_ref.arch:
    the architecture whose rows it carries)."""
    import torch
    import calib_torch
    import compare_compute

    if amp not in ("bf16", "tf32", "fp32", "none"):
        return None
    bf16 = amp == "bf16"
    if arch in HF_ARCHS:
        import transformers as tf
        torch.manual_seed(0)
        m, V = calib_torch.hf_model(tf, arch, REF_LAYERS, "tiny")
        m = m.cuda().train()
        inp = calib_torch.hf_input(torch, arch, V, 1, 16)
        fwd = calib_torch.hf_loss(torch, m, inp, bf16)

        def step():
            return calib_torch.plain_step_host(torch, m, fwd)
    elif compare_compute.is_cnn(arch):   # fusim workload --cnn: ResNet-50's held step carries every CNN's rows
        import torchvision
        m = torchvision.models.resnet50(weights=None).cuda().to(memory_format=torch.channels_last).train()
        x = inp = torch.randn(32, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)

        def fwd():
            if bf16:
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    return m(x).float().sum()
            return m(x).sum()
        sleep_cycles = int(40000 * 2000)  # hf_host's: ~40 ms, longer than either call

        def step():
            f, b, _ = calib_torch.held_step_host(torch, m, fwd, sleep_cycles)
            m.zero_grad(set_to_none=True)
            return f, b
    else:
        return None
    for _ in range(2):  # warm-up: first calls build kernels, cuDNN's choices, caches
        step()
    step.resident_bytes = sum(t.numel() * t.element_size()
                              for t in list(m.parameters()) + list(m.buffers()) +
                              list(inp if isinstance(inp, tuple) else (inp,)))
    step.arch = arch
    return step


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--arch", required=True, help="bert, gpt2, llama, qwen3, phi3, olmo2, vit, or a --cnn model (resnet50, vgg16, ...)")
    ap.add_argument("--amp", default="bf16", help="bf16, tf32 or fp32")
    ap.add_argument("--steps", type=int, default=30)
    a = ap.parse_args(argv)
    if a.steps < 1:
        print("host_ref: --steps must be >= 1", file=sys.stderr)
        return 64
    step = maker(a.arch, a.amp)
    if step is None:
        print("host_ref: no reference step for --arch %s --amp %s" % (a.arch, a.amp), file=sys.stderr)
        return 64
    xs = [step() for _ in range(a.steps)]
    print("%.1f,%.1f" % (statistics.median(x[0] for x in xs), statistics.median(x[1] for x in xs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
