#!/usr/bin/env python3
"""gemm_offgrid.py: cuBLAS GEMMs at widths off the sweep's powers of two, as calib_torch's gemm
part times them (torch.matmul, the same operands per layout, device time behind a sleep kernel),
and the kernels each product ran (PyTorch profiler), for checking how the GEMM tables are
interpolated between their grid points (issue 13: GPT-2 h1280 and Llama h1536 / h2560 in TF32 ran
1.07-1.11x the estimate's GPU time; wave quantization over the SMs is one candidate).

Shapes in fusim's (m, n, k) convention of each layout (calib_torch.gemm_operands): fwd and dgrad
m = tokens, n and k = widths; wgrad m and n = widths, k = tokens. Widths are model widths, on
and off the powers of two; tokens powers of two. Diagnosis and check data: no table is built
from it here.

Usage (on the GPU machine): python3 tools/gemm_offgrid.py --out FILE [--dtypes bf16,tf32]
                            [--tokens 2048,4096,8192] [--widths ...] [--reps 5]
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

WIDTHS = [768, 1024, 1280, 1536, 1792, 2048, 2560, 3072, 4096, 5120, 6912]
TOKENS = [2048, 4096, 8192]


def shapes(layout, tokens, widths):
    if layout == "wgrad":
        return [(a, b, t) for t in tokens for a in widths for b in widths]
    return [(t, a, b) for t in tokens for a in widths for b in widths]


def kernels_of(torch, fn_list):
    """The device kernels each callable ran, in order: one profiled pass with a sleep kernel
    (spin_kernel) between callables as the separator."""
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
        for fn in fn_list:
            torch.cuda._sleep(100)
            fn()
        torch.cuda._sleep(100)
        torch.cuda.synchronize()
    evs = sorted((e for e in p.events() if e.device_type == DeviceType.CUDA),
                 key=lambda e: e.time_range.start)
    out, cur = [], None
    for e in evs:
        if "spin_kernel" in e.name:
            if cur is not None:
                out.append(cur)
            cur = []
        elif cur is not None:
            cur.append([e.name[:160], round(e.time_range.end - e.time_range.start, 2)])
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--dtypes", default="bf16,tf32")
    ap.add_argument("--tokens", default=",".join(map(str, TOKENS)))
    ap.add_argument("--widths", default=",".join(map(str, WIDTHS)))
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args(argv)
    try:
        tokens = [int(x) for x in a.tokens.split(",")]
        widths = [int(x) for x in a.widths.split(",")]
    except ValueError:
        tokens = widths = []
    dtypes = a.dtypes.split(",")
    if not tokens or not widths or min(tokens + widths) < 1 or a.reps < 1 or \
            any(d not in ("bf16", "tf32", "fp32") for d in dtypes):
        print("gemm_offgrid: --tokens and --widths: sizes >= 1, comma-separated; --dtypes of bf16, "
              "tf32, fp32; --reps >= 1", file=sys.stderr)
        return 64
    import calib_torch
    torch = calib_torch.import_torch("gemm_offgrid")
    tm = calib_torch.Timer(torch)
    res = {"tool": "tools/gemm_offgrid.py", "gpu": torch.cuda.get_device_name(0),
           "sms": torch.cuda.get_device_properties(0).multi_processor_count,
           "torch": torch.__version__, "cuda": torch.version.cuda, "points": []}
    t0 = time.time()
    for dname in dtypes:
        dt = torch.bfloat16 if dname == "bf16" else torch.float32
        with calib_torch.Tf32(torch, dname):
            for lay in ("fwd", "dgrad", "wgrad"):
                sh = shapes(lay, tokens, widths)
                pts = []
                for (m, n, k) in sh:
                    fn = calib_torch.gemm_operands(torch, dt, lay, m, n, k)
                    pts.append({"dtype": dname, "layout": lay, "m": m, "n": n, "k": k,
                                "us": round(tm.device_us(fn, reps=a.reps), 3)})
                    del fn
                # kernel names, in batches so that operands do not pile up
                try:
                    for i in range(0, len(sh), 50):
                        fns = [calib_torch.gemm_operands(torch, dt, lay, m, n, k) for (m, n, k) in sh[i:i + 50]]
                        for p, ks in zip(pts[i:i + 50], kernels_of(torch, fns)):
                            p["kernels"] = ks
                        del fns
                        torch.cuda.empty_cache()
                except Exception as e:  # the times stand without the names
                    print("kernel names failed: %s" % str(e).split("\n")[0][:200], file=sys.stderr, flush=True)
                res["points"] += pts
                with open(a.out, "w") as f:  # what is done so far, should the call be cut
                    json.dump(res, f, indent=1)
                print("[%5.1f s] %s %s: %d points" % (time.time() - t0, dname, lay, len(pts)),
                      file=sys.stderr, flush=True)
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
