#!/usr/bin/env python3
"""optim_host_diag.py: which property of a parameter list sets opt.step()'s host cost per tensor
(diagnosis for data/compute/README.md, issue 13). On one lease, in interleaved rounds, the CPU
time of opt.step() (AdamW and SGD momentum, PyTorch defaults) over 256 tensors laid out as:
  flat_fixed   1-D nn.Parameters of 65536 elements, p.grad set once (the old calibration's lists)
  flat_fresh   the same, with fresh gradients from a backward every step (set_to_none)
  square_fixed 2-D 256 x 256 nn.Parameters, p.grad set once
  blocks_step  64 blocks of Linear(128, 128) + LayerNorm(128), stepped after a forward and backward
               (calib_torch's optimizer part)
  blocks_fixed the same blocks, stepped again right after (gradients kept)
with the host-speed probe (tools/torch_host.host_probe) in every round. Prints one JSON object.
Usage (on the GPU machine): python3 tools/optim_host_diag.py [--rounds N] > out.json"""
import argparse
import json
import statistics
import sys
import time


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args(argv)
    import torch
    import calib_torch
    import torch_host
    n = 256

    def flat(fresh):
        ps = [torch.nn.Parameter(torch.randn(65536, device="cuda")) for _ in range(n)]
        if fresh:
            def prep():
                for p in ps:
                    p.grad = None
                sum(p.sum() for p in ps).backward()
        else:
            for p in ps:
                p.grad = torch.randn_like(p)
            prep = None
        return ps, prep

    def square():
        ps = [torch.nn.Parameter(torch.randn(256, 256, device="cuda")) for _ in range(n)]
        for p in ps:
            p.grad = torch.randn_like(p)
        return ps, None

    def blocks(step):
        ps, fb = calib_torch.opt_net(torch, n // 4, 128)
        fb()
        return ps, (fb if step else None)

    kinds = {"flat_fixed": lambda: flat(False), "flat_fresh": lambda: flat(True), "square_fixed": square,
             "blocks_step": lambda: blocks(True), "blocks_fixed": lambda: blocks(False)}
    res = {"torch": torch.__version__, "tensors": n, "rounds": a.rounds, "probes_us": [], "us_per_tensor": {}}
    for name in ("adamw", "sgd"):
        made = {}
        for k, mk in kinds.items():
            ps, prep = mk()
            opt = (torch.optim.AdamW(ps, lr=1e-4) if name == "adamw" else
                   torch.optim.SGD(ps, lr=0.01, momentum=0.9))
            for _ in range(2):
                if prep:
                    prep()
                opt.step()
            made[k] = (ps, prep, opt)
        times = {k: [] for k in kinds}
        for _ in range(a.rounds):
            res["probes_us"].append(round(torch_host.host_probe(), 3))
            for k, (ps, prep, opt) in made.items():
                if prep:
                    prep()
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                opt.step()
                times[k].append((time.perf_counter() - t0) * 1e6 / n)
                torch.cuda.synchronize()
        res["us_per_tensor"][name] = {k: round(statistics.median(v), 2) for k, v in times.items()}
        print(name, res["us_per_tensor"][name], file=sys.stderr, flush=True)
        del made
        torch.cuda.empty_cache()
    json.dump(res, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
