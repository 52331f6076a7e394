#!/usr/bin/env python3
"""host_thread_diag.py: does a host-speed probe follow the host time of the step it describes, round
by round, and on which thread (diagnosis for data/compute/README.md, issue 13). Forward runs on
Python's main thread, backward() on the autograd engine's device thread; BERT's backward host cost
moved 1.5x apart from forward's between leases (2026-12-04g). Each round, interleaved:
  main      torch_host.host_probe(): a Python loop of 200 small copies, main thread
  bwd       torch_host.bwd_probe(): the same loop inside a backward pass (autograd thread)
  chain     backward() of a chain of 200 multiplications of a 16-element tensor: the autograd
            thread's C++ work alone (a node, its kernel's dispatch and launch), us per node
  tiny_l1, tiny_l3, cap_l8   calibration's tiny BERT at 1 and 3 layers and bert_h512's shape (8
            layers), forward() and backward() CPU time, the GPU held (bwd_host_parts' models)
and the CPU each thread last ran on (/proc/thread-self/stat), then the same BERT steps back to back
(one model 10 times) against the rounds' rotation. Prints one JSON object.
Usage (on the GPU machine): python3 tools/host_thread_diag.py [--rounds N] > out.json"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def this_cpu():
    """The CPU the calling thread last ran on (field 39 of /proc/thread-self/stat), -1 where unknown."""
    try:
        with open("/proc/thread-self/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[36])
    except (OSError, IndexError, ValueError):
        return -1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=30)
    a = ap.parse_args(argv)
    import torch
    import transformers as tf
    import torch_host
    import bwd_host_parts as bp
    sleep = int(60000 * 2000)
    names = ("tiny_l1", "tiny_l3", "cap_l8")
    models = {k: bp.build(torch, tf, *bp.VARIANTS[k]) for k in names}
    ids = {k: torch.randint(0, bp.VARIANTS[k][3], (1, 16), device="cuda") for k in names}
    cpus = {}

    class Where(torch.autograd.Function):  # records the autograd thread's CPU in backward
        @staticmethod
        def forward(ctx, x):
            return x.view_as(x)

        @staticmethod
        def backward(ctx, g):
            cpus["autograd"] = this_cpu()
            return g

    def fwd(k):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            return Where.apply(models[k](input_ids=ids[k], labels=ids[k]).loss)

    def held(k):
        f, b = bp.held_step(torch, models[k], lambda: fwd(k), sleep)
        return round(f, 1), round(b, 1)

    x = torch.ones(16, device="cuda", requires_grad=True)

    def chain(n=200):
        y = x
        for _ in range(n):
            y = y * 1.0001
        loss = y.sum()
        torch.cuda.synchronize()
        torch.cuda._sleep(int(20000 * 2000))
        t0 = time.perf_counter()
        loss.backward()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        return round((t1 - t0) * 1e6 / n, 3)

    for _ in range(2):
        for k in names:
            held(k)
        chain()
        torch_host.host_probe()
        torch_host.bwd_probe()
    rounds = []
    for r in range(a.rounds):
        row = {"main_cpu": this_cpu(), "main": round(torch_host.host_probe(), 3),
               "bwd": round(torch_host.bwd_probe(), 3), "chain": chain()}
        for k in (names if r % 2 == 0 else names[::-1]):
            row[k] = held(k)
            row[k + "_cpus"] = [this_cpu(), cpus.get("autograd", -1)]
        rounds.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    blocks = {}
    for k in names:  # one model back to back, as a capture runs it
        v = [held(k) for _ in range(10)]
        blocks[k] = {"fwd_us": statistics.median(t[0] for t in v), "bwd_us": statistics.median(t[1] for t in v),
                     "all": v}
        print(k, "back to back", blocks[k]["fwd_us"], blocks[k]["bwd_us"], file=sys.stderr, flush=True)
    res = {"torch": torch.__version__, "cpu_model": torch_host.cpu_model(), "ncpu": os.cpu_count(),
           "affinity": sorted(os.sched_getaffinity(0)), "rounds": rounds, "back_to_back": blocks,
           "threads": len(os.listdir("/proc/self/task"))}
    json.dump(res, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
