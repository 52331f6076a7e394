#!/usr/bin/env python3
"""layer_trace.py: does a real BERT layer's backward cost the host more than the tiny model's
that the profile's rows and the reference step are made of (hidden 64, 1 x 16)? Run 11's
profiled real BERT-base step put the per-layer backward host pace at 0.9x the rest of backward,
the tiny rows at 0.5-0.64x (data/compute/README.md, 2026-12-04m). Here, in one process and
round by round (the host's speed moves in levels lasting seconds), one training step of each
model under the PyTorch profiler: the autograd thread's per-layer pace (the start of every
layer's first linear backward, 6 a layer after the MLM head's 2) and the rest (backward's host
span minus layers x pace), bf16 autocast:
  tiny_l3      the reference step's model (calib_torch.hf_model tiny, 3 layers, 1 x 16)
  h768_l3      BERT-base's width and vocabulary at 3 layers, 16 x 512
  h768_l12     BERT-base, 16 x 512 (the captures' bert_base_b16_s512_bf16)
Prints one JSON object.  Usage (on the GPU machine): python3 tools/layer_trace.py [--rounds N]"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

HEAD = 2  # BertForMaskedLM's linear backwards before the layers': the decoder, the transform


def pace(prof, layers):
    """(backward host span, per-layer pace, rest) in us from one profiled step's events."""
    ev = [e for e in prof.events() if e.name.startswith("autograd::engine::evaluate_function")]
    if not ev:
        raise ValueError("no autograd events")
    tid = ev[0].thread
    ev = sorted((e for e in ev if e.thread == tid), key=lambda e: e.time_range.start)
    add = [e.time_range.start for e in ev if e.name.endswith("AddmmBackward0")]
    if len(add) != HEAD + 6 * layers:
        raise ValueError("%d linear backwards, expected %d" % (len(add), HEAD + 6 * layers))
    span = max(e.time_range.end for e in ev) - ev[0].time_range.start
    first = [add[HEAD + 6 * k] for k in range(layers)]
    p = (first[-1] - first[0]) / (layers - 1)
    return span, p, span - layers * p


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=6, help="profiled steps of each model, interleaved (default 6)")
    a = ap.parse_args(argv)
    import torch
    import transformers as tf
    from torch.profiler import profile, ProfilerActivity
    import calib_torch
    from hf_host_tokens import build
    models = {}
    torch.manual_seed(0)
    m, V = calib_torch.hf_model(tf, "bert", 3, "tiny")
    models["tiny_l3"] = (m.cuda().train(), torch.randint(0, V, (1, 16), device="cuda"), 3)
    for name, L in (("h768_l3", 3), ("h768_l12", 12)):
        m = build(torch, tf, "bert", 768, 12, 3072, L, vocab=30522, positions=512)
        models[name] = (m, torch.randint(0, 30522, (16, 512), device="cuda"), L)

    def step(m, ids):
        m.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = m(input_ids=ids, labels=ids).loss
        loss.backward()
        torch.cuda.synchronize()
    for m, ids, _ in models.values():
        for _ in range(3):
            step(m, ids)
    res = {"torch": torch.__version__, "transformers": tf.__version__, "gpu": torch.cuda.get_device_name(),
           "rounds": a.rounds, "steps": {k: [] for k in models}}
    for r in range(a.rounds):
        for k in (list(models) if r % 2 == 0 else list(models)[::-1]):
            m, ids, L = models[k]
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                step(m, ids)
            try:
                res["steps"][k].append([round(x, 1) for x in pace(prof, L)])
            except ValueError as e:  # one step's events not as expected: kept as the reason
                res["steps"][k].append(None)   # None keeps the rounds aligned across models
                res.setdefault("errors", []).append("%s round %d: %s" % (k, r, e))
                print("layer_trace: %s round %d: %s" % (k, r, e), file=sys.stderr, flush=True)
    med = {k: [round(statistics.median(s[i] for s in v if s), 1) for i in range(3)]
           for k, v in res["steps"].items() if any(v)}
    res["median_span_layer_rest_us"] = med
    ratio = [x[1] / y[1] for x, y in zip(res["steps"]["h768_l12"], res["steps"]["tiny_l3"]) if x and y]
    res["layer_ratio_l12_to_tiny"] = [round(x, 3) for x in ratio]
    print("medians (span, per layer, rest)", json.dumps(med), "per-layer ratio l12/tiny by round",
          res["layer_ratio_l12_to_tiny"], file=sys.stderr, flush=True)
    json.dump(res, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
