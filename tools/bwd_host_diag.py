#!/usr/bin/env python3
"""bwd_host_diag.py: why a small BERT's backward() costs the host more in a capture than its
calibration rows (diagnosis for data/compute/README.md, issue 13). BERT h512 (8 layers, hidden 512,
bf16 autocast, capture_set's build) at the capture's batch (32 x 128) and at a tiny one (1 x 16),
forward() and backward() CPU time in interleaved rounds, three ways:
  held        forward, synchronise, a sleep kernel, backward(): nothing waits for the GPU (the
              calibration's rows)
  idle        forward, synchronise, backward() on an idle GPU
  plain       forward, backward() at once (the capture's plain pass)
with the host-speed probe in every round. Prints one JSON object.
Usage (on the GPU machine): python3 tools/bwd_host_diag.py [--rounds N] > out.json"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=15)
    a = ap.parse_args(argv)
    import torch
    import capture_set
    import torch_host
    arch, hp, batch, seq, _ = capture_set.ALL["bert_h512_l8_b32_s128_bf16"]
    torch.manual_seed(0)
    model, (ids, _), loss_fn, _ = capture_set.build(arch, hp, batch, seq)
    model.train()
    inputs = {"real": ids, "tiny": ids[:1, :16].contiguous()}

    def fwd(x):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            return model(input_ids=x, labels=x).loss

    def one(size, mode):
        model.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        loss = fwd(inputs[size])
        t1 = time.perf_counter()
        if mode != "plain":
            torch.cuda.synchronize()
        if mode == "held":
            torch.cuda._sleep(int(60000 * 2000))   # ~60 ms: longer than backward()'s issue
        t2 = time.perf_counter()
        loss.backward()
        t3 = time.perf_counter()
        torch.cuda.synchronize()
        return (t1 - t0) * 1e6, (t3 - t2) * 1e6

    keys = [(s, m) for s in ("real", "tiny") for m in ("held", "idle", "plain")]
    for k in keys * 3:   # warm-up
        one(*k)
    got = {k: [] for k in keys}
    probes = []
    for _ in range(a.rounds):
        probes.append(round(torch_host.host_probe(), 3))
        for k in keys:
            got[k].append(one(*k))
    res = {"model": "bert_h512_l8_b32_s128_bf16", "torch": torch.__version__, "rounds": a.rounds,
           "probes_us": probes, "cpu_us": {}}
    for (s, m), v in got.items():
        res["cpu_us"]["%s_%s" % (s, m)] = {"forward": round(statistics.median(x[0] for x in v), 1),
                                          "backward": round(statistics.median(x[1] for x in v), 1)}
        print(s, m, res["cpu_us"]["%s_%s" % (s, m)], file=sys.stderr, flush=True)
    json.dump(res, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
