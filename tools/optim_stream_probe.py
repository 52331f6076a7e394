#!/usr/bin/env python3
"""optim_stream_probe.py: the optimizer step's device time on parameter lists where the
calibration has no point, against the profile's price. Its nets (L blocks of W x W + 3 x W, the
calibration's layout) stop at 25 MB a list, below the 60 MiB L2, and resume at 67 MB. The HBM
form (2026-12-05, data/compute/README.md) switches per operation at lists x elements x 4 bytes
> cache_bytes. So this times nets whose lists straddle the cache (W 512 and 2048, 17-134 MB a
list) and torchvision ResNet-50/101/152's own lists, the layout the form was made for. Each
step runs alone behind a sleep kernel, as calib_torch's part (b) times it (after two warm steps,
with gradients of the parameters' shapes), and the median of five is kept. Beside each: the
profile's price, as fusim's fu_optim_dev_us computes it (price_us).

--lists small times instead the calibration's own nets (OPT_NETS) and small torchvision models'
lists (0.7-20M parameters, every list within the L2): a training step's optimizer follows a
forward and backward that stream far more than the L2 through it, so its parameters and
optimizer states come from HBM, while the calibration's nets (batch 8) leave them in the cache.
--states warm,cold times each step both ways, interleaved: warm as above, cold after a write of
four times the L2 (the flush) ahead of the sleep; dev_us is the first state's, cold_dev_us the
cold one's. --kernels adds one step per list under torch.profiler (cold where --states has cold):
each kernel's name and device time, in order.

--dry-run needs no torch: it prints the lists and their prices, and with --fusim checks that
price_us gives fusim's own "Optimizer step: device" note for ResNet-50/101/152
(fusim workload --cnn), whose lists it takes from fusim's gradients.

Usage: python3 tools/optim_stream_probe.py --out FILE.json [--optimizers sgd,adamw] (any of
         calib_torch.OPT_NAMES: an "<optimizer>_clip" one clips the gradients first)
         [--lists nets|small] [--states warm[,cold]] [--kernels]
       python3 tools/optim_stream_probe.py --dry-run [--fusim build/fusim] [--profile P]"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import calib_torch  # noqa: E402
from host_ref import out_writable  # noqa: E402

# (L, W): W 512's 4-chunk weights (the layout that runs at the blocks' rate) and W 2048's
# 64-chunk ones, from 17 MB a list (every operation in the cache) to 134 MB (none)
NETS = [(16, 512), (24, 512), (40, 512), (64, 512), (128, 512), (2, 2048), (4, 2048), (8, 2048)]
CNNS = ("resnet50", "resnet101", "resnet152")
# --lists small: torchvision models whose lists fit the L2 (one 2-list operation of DenseNet-121
# and ResNet-18 does not), and ResNet-50 as one that streams
SMALL_CNNS = ("squeezenet1_0", "squeezenet1_1", "shufflenet_v2_x1_0", "mobilenet_v3_small", "mnasnet1_0",
              "mobilenet_v2", "mobilenet_v3_large", "efficientnet_b0", "efficientnet_b2", "regnet_y_1_6gf",
              "efficientnet_b4", "densenet121", "regnet_x_3_2gf", "densenet169", "resnet18", "resnet50")


def price_us(row, name, sizes):
    """The device time of optimizer `name`'s step over tensors of `sizes` elements by the
    profile's row, as fu_optim_dev_us prices it (calib_torch.optim_dev_us)."""
    return calib_torch.optim_dev_us(dict(row, name=name), sizes)


def fusim_cnn(fusim, profile, model):
    """(the gradients' element counts in the optimizer's order, fusim's priced device time) of
    `fusim workload --cnn model` (SGD)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "w.json")
        subprocess.run([fusim, "workload", "--cnn", model, "--micro-batch", "32", "--precision", "autocast-bf16",
                        "--profile", profile, "--out", out], check=True, capture_output=True, text=True)
        w = json.load(open(out))
    m = re.search(r"Optimizer step: device ([0-9.]+) us", w["notes"])
    if not m:
        raise ValueError("fusim's notes for %s name no optimizer device time" % model)
    return [g["bytes"] / 4 for g in reversed(w["grads"])], float(m.group(1))


def lists(fusim, profile):
    """[(label, L, W, sizes)]: the nets, then the ResNets' lists (fusim's, in the dry run)."""
    out = [("net %dx%d" % (L, W), L, W, [W * W, W, W, W] * L) for L, W in NETS]
    if fusim:
        out += [(m, 0, 0, fusim_cnn(fusim, profile, m)[0]) for m in CNNS]
    return out


def dry_run(a, rows):
    fails = 0
    for label, L, W, sizes in lists(a.fusim, a.profile):
        print("%-14s %5d tensors %10d elements %7.1f MB a list  %s" % (
            label, len(sizes), sum(sizes), 4 * sum(sizes) / 1e6,
            "  ".join("%s %.1f us" % (n, price_us(rows[n], n, sizes)) for n in a.optimizers)))
    for m in CNNS if a.fusim else ():
        sizes, dev = fusim_cnn(a.fusim, a.profile, m)
        mine = price_us(rows["sgd"], "sgd", sizes)
        ok = abs(mine - dev) <= 0.05 + 1e-4 * dev   # fusim's note rounds to 0.1 us
        fails += not ok
        print("%s: price_us %.2f us, fusim's note %.1f us: %s" % (m, mine, dev, "same" if ok else "DIFFERENT"))
    return 1 if fails else 0


def kernel_times(torch, step):
    """[(kernel name, device us)] of one step() under torch.profiler, in launch order."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        step()
        torch.cuda.synchronize()
    ks = [e for e in prof.events() if e.device_type.name == "CUDA"]
    ks.sort(key=lambda e: e.time_range.start)
    return [(e.name[:120], round(e.time_range.elapsed_us(), 2)) for e in ks]


def measure(a, rows):
    import torch
    import torchvision
    ev = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731
    l2 = calib_torch.l2_cache_bytes(torch) or 50 << 20
    buf = torch.empty(4 * l2 // 4, device="cuda") if "cold" in a.states else None
    pts = []
    if a.lists == "small":
        items = [("net %dx%d" % (L, W), L, W, None) for L, W in calib_torch.OPT_NETS]
        items += [(m, 0, 0, m) for m in SMALL_CNNS]
    else:
        items = [(lab, L, W, None) for lab, L, W, _ in lists(None, None)] + [(m, 0, 0, m) for m in CNNS]
    for label, L, W, cnn in items:
        for name in a.optimizers:
            torch.manual_seed(0)
            if cnn:
                ps = [p for p in getattr(torchvision.models, cnn)().cuda().parameters()]
            else:   # the calibration's own net
                ps = calib_torch.opt_net(torch, L, W)[0]
            opt = {"sgd": lambda: torch.optim.SGD(ps, lr=0.01, momentum=0.9),
                   "adamw": lambda: torch.optim.AdamW(ps, lr=1e-4),
                   "adam": lambda: torch.optim.Adam(ps, lr=1e-4)}[calib_torch.optim_base(name)]()
            if calib_torch.optim_base(name) != name:   # "<optimizer>_clip": clip_grad_norm_ first
                opt = calib_torch.clipped_step(torch, opt, ps)
            devs, short = {s: [] for s in a.states}, 0
            for i in range(7):
                for state in a.states:
                    for p in ps:   # fresh gradients, as set_to_none and backward leave them
                        p.grad = torch.randn_like(p)
                    if state == "cold":   # write four times the L2: what was in the cache is evicted
                        buf.fill_(float(i))
                    torch.cuda.synchronize()
                    e0, e1, e2 = ev(), ev(), ev()
                    e0.record()
                    torch.cuda._sleep(int(2000 * 20000))   # ~20 ms at up to 2 GHz: the host issues all first
                    e1.record()
                    t0 = time.perf_counter()
                    opt.step()
                    host = (time.perf_counter() - t0) * 1e6
                    e2.record()
                    torch.cuda.synchronize()
                    if i >= 2:
                        devs[state].append(e1.elapsed_time(e2) * 1e3)
                        short += e0.elapsed_time(e1) * 1e3 < host   # the sleep ended before the host did
            sizes = [float(p.numel()) for p in ps]
            first = a.states[0]
            pts.append({"label": label, "optimizer": name, "L": L, "W": W, "n": len(ps), "numel": sum(sizes),
                        "dev_us": round(statistics.median(devs[first]), 2),
                        "dev_all_us": [round(d, 2) for d in devs[first]],
                        "sleep_short": short,
                        "est_us": round(price_us(rows[name], name, sizes), 2),
                        "sizes": sizes if cnn else None})
            p = pts[-1]
            for state in (s for s in a.states if s != "warm"):
                p[state + "_dev_us"] = round(statistics.median(devs[state]), 2)
                p[state + "_dev_all_us"] = [round(d, 2) for d in devs[state]]
            if a.kernels:
                for q in ps:
                    q.grad = torch.randn_like(q)
                if buf is not None:
                    buf.fill_(0.0)
                p["kernels"] = kernel_times(torch, opt.step)
            print("%-18s %-6s %5d tensors %7.1f MB a list: device %8.1f us%s, priced %8.1f (%+.1f%%)" % (
                label, name, p["n"], 4 * p["numel"] / 1e6, p["dev_us"],
                "".join(", %s %.1f" % (s, p[s + "_dev_us"]) for s in a.states if s != "warm"), p["est_us"],
                100 * (p["est_us"] / p["dev_us"] - 1)), flush=True)
            del ps, opt
            torch.cuda.empty_cache()
    doc = {"tool": "tools/optim_stream_probe.py", "torch": torch.__version__,
           "gpu": torch.cuda.get_device_name(0), "l2_cache_bytes": calib_torch.l2_cache_bytes(torch),
           "profile": a.profile, "lists": a.lists, "states": a.states, "points": pts}
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--fusim", help="with --dry-run: check price_us against fusim's ResNet notes")
    ap.add_argument("--profile", default=os.path.join(os.path.dirname(HERE), "data", "profiles", "h200-default.json"))
    ap.add_argument("--optimizers", default="sgd,adamw")
    ap.add_argument("--lists", choices=("nets", "small"), default="nets")
    ap.add_argument("--states", default="warm", help="warm, cold or both (comma-separated; the first is dev_us)")
    ap.add_argument("--kernels", action="store_true", help="one cold step per list under torch.profiler")
    a = ap.parse_args(argv)
    a.states = [s for s in a.states.split(",") if s]
    if not a.states or any(s not in ("warm", "cold") for s in a.states):
        print("optim_stream_probe: --states takes warm and/or cold", file=sys.stderr)
        return 64
    a.optimizers = [n for n in a.optimizers.split(",") if n]
    try:
        with open(a.profile) as f:
            rows = {r["name"]: r for r in json.load(f)["compute"]["optimizer"]}
    except OSError as e:
        print("optim_stream_probe: %s: %s" % (a.profile, e.strerror or e), file=sys.stderr)
        return 66
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        print("optim_stream_probe: %s: not a profile with optimizer rows (%s: %s)"
              % (a.profile, type(e).__name__, e), file=sys.stderr)
        return 65
    for n in a.optimizers:
        if n not in rows or n not in calib_torch.OPT_NAMES or "launch_us" not in rows[n]:
            print("optim_stream_probe: %s: no launch-form row for optimizer %r" % (a.profile, n), file=sys.stderr)
            return 65
    if a.dry_run:
        return dry_run(a, rows)
    if not a.out:
        print("optim_stream_probe: --out FILE (or --dry-run)", file=sys.stderr)
        return 64
    if not out_writable("optim_stream_probe", a.out):   # before the GPU time, not after it
        return 73
    return measure(a, rows)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
