#!/usr/bin/env python3
"""profile_step.py: where a model's training step spends GPU time, by PyTorch operation, for
diagnosing the compute model (which operations the estimate misprices or leaves out). Builds
models of tools/capture_set.py's ALL (SET and NEW), runs a few steps, then one forward and one backward under
torch.profiler, and writes per phase the operations (aten::..., with the device time of the
kernels they launched, self and total) and the kernels, largest first.

Diagnosis only: nothing here is a calibration, and no table is fitted to it.

Usage (on the GPU machine): python3 tools/profile_step.py --out DIR [--only NAME,..] [--top N]
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def _dev(e, keys):
    """Device time of a profiler average in us (torch renamed cuda_* to device_*)."""
    for k in keys:
        if hasattr(e, k):
            return float(getattr(e, k))
    return 0.0


def rows(prof, top):
    """(operations, kernels, all kernels' device time): operations by the device time of the
    kernels they launched themselves (self), kernels by their own."""
    from torch.autograd import DeviceType
    ops, kernels = [], []
    for e in prof.key_averages():
        r = {"name": e.key[:120], "calls": e.count,
             "self_us": round(_dev(e, ("self_device_time_total", "self_cuda_time_total")), 1),
             "total_us": round(_dev(e, ("device_time_total", "cuda_time_total")), 1)}
        if getattr(e, "device_type", None) == DeviceType.CUDA:
            kernels.append(r)
        elif r["total_us"] > 0:
            ops.append(r)
    ops.sort(key=lambda r: -r["self_us"])
    kernels.sort(key=lambda r: -r["self_us"])
    return ops[:top], kernels[:top], round(sum(r["self_us"] for r in kernels), 1)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--top", type=int, default=40)
    a = ap.parse_args(argv)
    import torch
    from torch.profiler import ProfilerActivity, profile
    import capture_set
    os.makedirs(a.out, exist_ok=True)
    names = [n for n in capture_set.ALL if not a.only or n in a.only.split(",")]
    for name in names:
        t0 = time.time()
        try:
            res = profile_one(torch, profile, ProfilerActivity, capture_set, name, a.top)
        except Exception as e:  # one model failing leaves the others
            print("%s: failed (%s)" % (name, str(e).split("\n")[0][:200]), file=sys.stderr, flush=True)
            continue
        with open(os.path.join(a.out, name + ".json"), "w") as f:
            json.dump(res, f, indent=1)
        print("[%5.1f s] %s: fwd kernels %.0f us, bwd %.0f us" % (
            time.time() - t0, name, res["fwd"]["kernel_us"], res["bwd"]["kernel_us"]),
            file=sys.stderr, flush=True)
        torch.cuda.empty_cache()
    return 0


def profile_one(torch, profile, ProfilerActivity, capture_set, name, top):
    """One model: three steps, then forward and backward each under the profiler."""
    arch, hp, batch, seq, amp = capture_set.ALL[name]
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = amp == "tf32"
    torch.backends.cudnn.allow_tf32 = True
    model, inputs, loss_fn, opt = capture_set.build(arch, hp, batch, seq)
    model.train()

    def fwd():
        if amp == "bf16":
            with torch.autocast("cuda", dtype=torch.bfloat16):
                return loss_fn(model, inputs)
        return loss_fn(model, inputs)

    for _ in range(3):
        model.zero_grad(set_to_none=True)
        fwd().backward()
        opt.step()
    torch.cuda.synchronize()
    res = {"model": name, "amp": amp}
    model.zero_grad(set_to_none=True)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as pf:
        loss = fwd()
        torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as pb:
        loss.backward()
        torch.cuda.synchronize()
    for phase, p in (("fwd", pf), ("bwd", pb)):
        ops, kernels, total = rows(p, top)
        res[phase] = {"ops": ops, "kernels": kernels, "kernel_us": total}
    return res


if __name__ == "__main__":
    sys.exit(main())
