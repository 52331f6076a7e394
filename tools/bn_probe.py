#!/usr/bin/env python3
"""bn_probe.py: diagnosis of batch norm's backward price (issue 13, compute14). Three measurements
on one lease, all with calib_torch's Timer (CUDA events, calls queued behind a sleep kernel):
  sweep   the batchnorm2d tables' procedure (calib_torch.measure_ops, batch 16) at 2^21..2^25
          elements in steps of sqrt(2) and at 64..2048 channels: is there a kink between the
          committed tables' 4x-apart sizes?
  exact   forward and backward at the shapes a torchvision ResNet at 224x224 normalizes
          (batch x channels x side), fp32 (cuDNN) and bf16 input with fp32 parameters (ATen).
  trace   torch.profiler of the calibration's call (autograd.grad of y wrt x, weight, bias) and of a
          model's (a fresh forward, then backward()), at one shape: the kernels each launches, and
          the events' time of the same call beside the kernels' sum (the per-call gap).
Usage: python3 tools/bn_probe.py --out probe.json
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calib_torch  # noqa: E402

# (channels, side) of every batch norm a torchvision ResNet has at 224x224 (the stem's 64 x 112,
# then the bottleneck stages: their widths at 56, 28, 14, 7 and the first block's wider inputs)
RESNET_BN = [(64, 112), (64, 56), (256, 56), (128, 56), (128, 28), (512, 28), (256, 28),
             (256, 14), (1024, 14), (512, 14), (512, 7), (2048, 7)]


def bn_case(torch, n, c, hw, dt):
    x = torch.randn(n, c, hw, hw, device="cuda", dtype=dt).to(memory_format=torch.channels_last)
    x.requires_grad_(True)
    bn = torch.nn.BatchNorm2d(c).cuda()
    return x, bn


def exact(torch, tm, log):
    out = []
    for dname, dt, batches in (("fp32", torch.float32, (64,)), ("bf16", torch.bfloat16, (64, 128))):
        for n in batches:
            for c, hw in RESNET_BN:
                x, bn = bn_case(torch, n, c, hw, dt)
                wrt = [x] + list(bn.parameters())
                f_us = tm.device_us(lambda: bn(x), reps=20)
                y = bn(x)
                g = torch.randn_like(y)
                b_us = tm.device_us(lambda: torch.autograd.grad(y, wrt, g, retain_graph=True), reps=20)
                out.append({"dtype": dname, "n": n, "c": c, "hw": hw, "numel": x.numel(),
                            "fwd_us": round(f_us, 3), "bwd_us": round(b_us, 3)})
                log("exact %s %4d x %4d x %3d^2 (%9d): fwd %8.2f bwd %8.2f us" % (
                    dname, n, c, hw, x.numel(), f_us, b_us))
                del x, bn, y, g
    return out


def kernels(prof):
    rows = []
    for e in prof.key_averages():
        dev = getattr(e, "self_device_time_total", None)
        if dev is None:
            dev = getattr(e, "self_cuda_time_total", 0)
        if dev > 0 and not e.key.startswith("aten::") and "Buffer" not in e.key:
            rows.append({"name": e.key[:160], "calls": e.count, "us": round(dev, 1)})
    return sorted(rows, key=lambda r: -r["us"])


def trace(torch, tm, log, n=64, c=256, hw=14, reps=20):
    from torch.profiler import ProfilerActivity, profile
    out = {"shape": [n, c, hw, hw], "reps": reps}
    for dname, dt in (("fp32", torch.float32), ("bf16", torch.bfloat16)):
        x, bn = bn_case(torch, n, c, hw, dt)
        wrt = [x] + list(bn.parameters())
        y = bn(x)
        g = torch.randn_like(y)
        calib = lambda: torch.autograd.grad(y, wrt, g, retain_graph=True)  # noqa: E731

        def model():
            bn(x).backward(g)
        res = {}
        for name, fn in (("calib_grad", calib), ("fwd_backward", model), ("fwd", lambda: bn(x))):
            ev = tm.device_us(fn, reps=reps)
            for _ in range(3):
                fn()
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                for _ in range(reps):
                    fn()
                torch.cuda.synchronize()
            ks = kernels(prof)
            ksum = sum(k["us"] for k in ks) / reps
            res[name] = {"events_us": round(ev, 3), "kernel_sum_us": round(ksum, 3), "kernels": ks}
            log("trace %s %-12s events %7.2f us, kernels %7.2f us/call: %s" % (
                dname, name, ev, ksum, "; ".join("%s x%d %.1f" % (k["name"][:70], k["calls"], k["us"])
                                                  for k in ks)))
        out[dname] = res
        del x, bn, y, g
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    # an --out that cannot be written: one line before the GPU time (it is first written after
    # the trace); no PyTorch or GPU: one line, exit 69
    if not os.access(os.path.dirname(os.path.abspath(a.out)), os.W_OK):
        print("bn_probe: --out %s: its folder cannot be written" % a.out, file=sys.stderr)
        return 73
    torch = calib_torch.import_torch("bn_probe")
    import torch.nn.functional as F
    log = lambda s: print(s, flush=True)  # noqa: E731
    tm = calib_torch.Timer(torch)
    res = {"format": "fusim-bn-probe-1", "torch": torch.__version__, "cuda": torch.version.cuda,
           "cudnn": torch.backends.cudnn.version(), "gpu": torch.cuda.get_device_name()}

    def put():
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1)
    res["trace"] = trace(torch, tm, log)
    put()
    res["exact"] = exact(torch, tm, log)
    put()
    sizes = list(calib_torch.BN_FINE_SIZES)
    names = ["batchnorm2d"] + ["batchnorm2d_c%d" % c for c in calib_torch.BN_CHANNELS]
    res["sweep"] = calib_torch.measure_ops(torch, F, tm, sizes, log, names)
    put()
    return 0


if __name__ == "__main__":
    sys.exit(main())
