#!/usr/bin/env python3
"""hook_issue_diag.py: where the hook pattern's per-bucket host time goes when a bucket's
offload is issued inside backward (an experiment for issue 10; not used by any prediction).

Runs 8-15 show the hook pattern's backward() CPU time over the overlap-off plan's growing with
the bytes of the buckets issued inside backward (1.8-36 us per MiB), while the same issues after
backward cost little, and run 15's torch_beside showed no host slowdown beside a transfer that
depends on nothing. So: does the issue call itself wait? Each variant is the course text's
HookFuser (tools/torch_host.py) on the model, one step of each per round, the issue timed part
by part (the event's record and the side stream's wait on it; the copy_ call):
  none      no framework (the framework-free backward())
  hk25      25 MiB buckets, overlap on, as the harness runs it (event, wait, D2H into pinned memory)
  hk25_nw   the same with no wait on the compute stream (the copy depends on nothing)
  hk25_dev  the same with the copy into a device buffer instead of pinned host memory
  hk25_tiny the same issue, but of 4 KiB of each bucket
  hk4       4 MiB buckets, overlap on
  hk25_off  25 MiB buckets, overlap off (issued after backward)
Prints one JSON document: per model and variant the median backward() CPU time and, per
bucket, its bytes and the median times of the two parts of its issue.

    python3 tools/hook_issue_diag.py --models resnet34:32,vit_b_32:64 --rounds 10 > diag.json
"""
import argparse
import copy
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_host  # noqa: E402
import validate_torch as V  # noqa: E402

MiB = 2**20


class TimedFuser(torch_host.HookFuser):
    """HookFuser whose issue is timed part by part; mode: "event" (as the harness), "nowait"
    (no wait on the compute stream), "dev" (the copy into a device buffer), "tiny" (4 KiB)."""

    def __init__(self, params, cap, overlap=True, mode="event"):
        super().__init__(params, cap, overlap)
        self.mode = mode
        self.times = {}      # bucket -> [(event+wait us, copy_ us)]
        self.dev = None

    def _issue(self, b):
        import torch
        if self.mode == "dev" and self.dev is None:
            self.dev = [torch.empty_like(x) for x in self.bufs]
        t0 = time.perf_counter()
        if self.mode != "nowait":
            e = torch.cuda.Event()
            e.record()
            self.stream.wait_event(e)
        t1 = time.perf_counter()
        with torch.cuda.stream(self.stream):
            dst = self.dev[b] if self.mode == "dev" else self.host[b]
            src = self.bufs[b]
            if self.mode == "tiny":   # the same issue of 4 KiB
                dst, src = dst[:1024], src[:1024]
            t2 = time.perf_counter()
            dst.copy_(src, non_blocking=True)
            t3 = time.perf_counter()
        if self.ready:
            self.times.setdefault(b, []).append(((t1 - t0) * 1e6, (t3 - t2) * 1e6))


VARIANTS = (("none", None, True, None), ("hk25", 25, True, "event"), ("hk25_nw", 25, True, "nowait"),
            ("hk25_dev", 25, True, "dev"), ("hk25_tiny", 25, True, "tiny"), ("hk4", 4, True, "event"),
            ("hk25_off", 25, False, "event"))


def run_model(name, batch, rounds, warmup=3):
    import torch
    torch.manual_seed(0)
    base, inputs, loss_fn, desc = V.build_model(name, batch, 512)
    runs = {}
    for label, cap, overlap, mode in VARIANTS:
        m = copy.deepcopy(base)
        f = None
        if cap is not None:
            f = TimedFuser([(n, p) for n, p in m.named_parameters() if p.requires_grad],
                           int(cap * MiB), overlap, mode)
        runs[label] = (m, f, V.make_opt(m), [])
    del base

    def step(label):
        m, f, opt, cpu = runs[label]
        opt.zero_grad(set_to_none=False)
        torch.cuda.synchronize()
        loss = loss_fn(m, inputs)
        t1 = time.perf_counter()
        loss.backward()
        t2 = time.perf_counter()
        if f is not None:
            f.after_backward()
        opt.step()
        torch.cuda.synchronize()
        return (t2 - t1) * 1e6

    for r in range(warmup + rounds):
        labels = [v[0] for v in VARIANTS]
        k = r % len(labels)
        for label in labels[k:] + labels[:k]:
            t = step(label)
            if r >= warmup:
                runs[label][3].append(t)
            elif runs[label][1] is not None:
                runs[label][1].times = {}
    out = {"model": name, "batch": batch, "description": desc, "variants": {}}
    for label, (m, f, _, cpu) in runs.items():
        v = {"bwd_cpu_us": round(statistics.median(cpu), 1), "bwd_cpu_rounds_us": [round(t, 1) for t in cpu]}
        if f is not None:
            v["buckets"] = [{"bytes": f.bufs[b].numel() * f.bufs[b].element_size(),
                             "event_wait_us": round(statistics.median(t[0] for t in f.times[b]), 1),
                             "copy_call_us": round(statistics.median(t[1] for t in f.times[b]), 1)}
                            for b in sorted(f.times)]
        out["variants"][label] = v
    del runs
    torch.cuda.empty_cache()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="resnet34:32,vit_b_32:64")
    ap.add_argument("--rounds", type=int, default=10)
    a = ap.parse_args()
    import torch
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    res = {"machine": V.machine_info(), "command": " ".join([sys.executable] + sys.argv),
           "models": [run_model(n, b, a.rounds) for n, b in V.parse_models(a.models)]}
    print(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
