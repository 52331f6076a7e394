#!/usr/bin/env python3
"""beside_d2h.py: how much a D2H copy slows the model's own kernels, and what the hook pattern's
device copies cost, from this run's Chrome traces (torch_trace: 2 profiled steps per plan).

For each hook-pattern plan, every compute-stream kernel is paired with the same kernel (same
index in its step) of the compute-only trace. "Beside": the kernel's whole duration lies under
D2H copies of the offload stream; "not beside": none of it. Ratio = the plan's summed kernel time
over compute-only's, for the two sets (fusim charges compute beside a copy engine at the
profile's copy_slowdown, 1.038). Then the hook pattern's DtoD copies: a least-squares line of
duration against bytes (fusim: bytes / copy_gbps + kernel_us, 2013.6 GB/s and 1.735 us here).

    python3 data/validation/torch_h200_run11/beside_d2h.py > data/validation/torch_h200_run11/beside_d2h.txt
"""
import gzip
import json
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = ("resnet50_b64", "bert_base_b8_s512")
PLANS = ("hooks_4MiB", "hooks_25MiB")


def steps(path):
    """Per profiled step (zero_grad's start to the optimizer step's end): its compute-stream
    kernels and all device copies, in time order."""
    ev = json.load(gzip.open(path))["traceEvents"]
    ann = sorted((e["ts"], e["ts"] + e["dur"], e["name"]) for e in ev
                 if e.get("cat") == "gpu_user_annotation")
    zero = [a for a in ann if "zero_grad" in a[2]]
    opt = [a for a in ann if "step" in a[2] and "zero_grad" not in a[2]]
    gpu = sorted((e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy")),
                 key=lambda e: e["ts"])
    out = []
    for z, s in zip(zero, opt):
        g = [e for e in gpu if z[0] <= e["ts"] < s[1]]
        out.append(([e for e in g if e["cat"] == "kernel"], [e for e in g if e["cat"] == "gpu_memcpy"]))
    return out


def covered(e, spans):
    a, b = e["ts"], e["ts"] + e["dur"]
    return sum(max(0.0, min(b, y) - max(a, x)) for x, y in spans) / e["dur"] if e["dur"] > 0 else 0.0


def line(x, y):
    mx, my = statistics.fmean(x), statistics.fmean(y)
    s = sum((a - mx) * (b - my) for a, b in zip(x, y)) / sum((a - mx) ** 2 for a in x)
    return my - s * mx, s


for m in MODELS:
    base = steps(os.path.join(HERE, "%s_torchval_compute-only.trace.json.gz" % m))
    for p in PLANS:
        for i, (kern, copies) in enumerate(steps(os.path.join(HERE, "%s_torchval_%s.trace.json.gz" % (m, p)))):
            ref = base[i][0]
            if len(ref) != len(kern):
                raise SystemExit("beside_d2h: %s %s step %d: %d kernels against %d"
                                 % (m, p, i, len(kern), len(ref)))
            d2h = [(e["ts"], e["ts"] + e["dur"]) for e in copies if "DtoH" in e["name"]]
            on = [(k, r) for k, r in zip(kern, ref) if covered(k, d2h) > 0.999]
            off = [(k, r) for k, r in zip(kern, ref) if covered(k, d2h) == 0]

            def ratio(pairs):
                return sum(k["dur"] for k, _ in pairs) / sum(r["dur"] for _, r in pairs)
            dd = [e for e in copies if "DtoD" in e["name"]]
            k0, s = line([e["args"]["bytes"] / 1e3 for e in dd], [e["dur"] for e in dd])
            print("%-18s %-12s step %d: kernels beside D2H %4d (%5.0f us) ratio %.4f; not beside %4d "
                  "ratio %.4f; D2H busy %5.0f us; DtoD copies %d, %.0f MB, %.0f us: %.2f us + %.0f GB/s"
                  % (m, p, i, len(on), sum(k["dur"] for k, _ in on), ratio(on), len(off), ratio(off),
                     sum(y - x for x, y in d2h), len(dd), sum(e["args"]["bytes"] for e in dd) / 1e6,
                     sum(e["dur"] for e in dd), k0, 1 / s))
