#!/usr/bin/env python3
"""host_ref_diag.py: why the reference step (tools/host_ref.py) reads slower inside a capture
than in a calibration process on the same lease (2026-12-04L: the tiny BERT's 3-layer step
5.4-6.0 ms of forward() between bert_h512's and BERT-base's steps, 3.8 ms from hf_host's rows
timed a minute later in a process of its own). The same reference step (BERT, bf16), in one
process, in phases:

  fresh        nothing else built yet
  heap         after building BERT-base (capture_set's bert_base_b16_s512_bf16) and its AdamW,
               no step run
  frozen       the same, after gc.freeze() (the cyclic collector no longer walks the model's
               objects: does the collector's work on a big heap cost the host?)
  interleaved  one BERT-base training step (autocast bf16, as capture_torch steps it), then the
               reference, round after round; the steps' forward() / backward() CPU too
  after        the model deleted, gc.collect(), the allocator's cache emptied

Each phase's forward() / backward() CPU medians (us) and the cyclic collector's collections per
generation in the phase, as JSON on stdout.

Usage (on the GPU machine): python3 tools/host_ref_diag.py [--rounds N] > diag.json
"""
import argparse
import gc
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=20)
    a = ap.parse_args(argv)
    import torch
    import capture_set
    import host_ref

    torch.backends.cudnn.benchmark = True
    ref = host_ref.maker("bert", "bf16")
    out = {"torch": torch.__version__, "rounds": a.rounds, "phases": {}}

    def phase(name, between=None):
        gc0 = [s["collections"] for s in gc.get_stats()]
        refs, steps = [], []
        for _ in range(a.rounds):
            if between:
                steps.append(between())
            refs.append(ref())
        gc1 = [s["collections"] for s in gc.get_stats()]
        med = lambda xs, i: round(statistics.median(x[i] for x in xs), 1)  # noqa: E731
        ph = {"ref_fwd_us": med(refs, 0), "ref_bwd_us": med(refs, 1),
              "gc_collections": [b - c for b, c in zip(gc1, gc0)], "gc_objects": len(gc.get_objects()),
              "refs": [[round(x, 1) for x in r] for r in refs]}
        if steps:
            ph["step_fwd_us"], ph["step_bwd_us"] = med(steps, 0), med(steps, 1)
        out["phases"][name] = ph
        print("%-12s ref fwd %7.0f bwd %7.0f us%s  gc %s" % (
            name, ph["ref_fwd_us"], ph["ref_bwd_us"],
            "  step fwd %7.0f bwd %7.0f" % (ph["step_fwd_us"], ph["step_bwd_us"]) if steps else "",
            ph["gc_collections"]), file=sys.stderr, flush=True)

    phase("fresh")
    arch, hp, batch, seq, amp = capture_set.ALL["bert_base_b16_s512_bf16"]
    model, inputs, loss_fn, opt = capture_set.build(arch, hp, batch, seq)
    model.train()

    def step():
        model.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = loss_fn(model, inputs)
        t1 = time.perf_counter()
        loss.backward()
        t2 = time.perf_counter()
        opt.step()
        torch.cuda.synchronize()
        return (t1 - t0) * 1e6, (t2 - t1) * 1e6

    for _ in range(3):  # warm-up (the optimizer's state, kernels)
        step()
    model.zero_grad(set_to_none=True)
    phase("heap")
    gc.freeze()
    phase("frozen")
    gc.unfreeze()
    phase("interleaved", step)
    del model, inputs, loss_fn, opt
    gc.collect()
    torch.cuda.empty_cache()
    phase("after")
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
