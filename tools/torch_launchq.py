#!/usr/bin/env python3
"""torch_launchq.py: how far the host can run ahead of the GPU, and how many launches a model's
step makes, measured on the machine (issue 10; data/validation/README.md, runs 11-12).

In every capture of runs 10-12 the host could not enqueue a whole step behind a sleep kernel
three times as long as the step's host time, except for ResNet-18: a full launch queue blocks the
host. Two measurements for modelling that bound:
  queue_depth()   behind a GPU held by a long sleep kernel, launch small kernels one by one and
                  time each launch on the host: the first launch that blocks (takes over
                  BLOCK_US) gives how many launches can be pending (per kind of launch: a kernel,
                  a device-to-device copy).
  phase_launches() a model's launches (kernels, copies, memsets) in forward, backward() and the
                  optimizer step, counted by torch.profiler over one step, and the host time
                  per launch of each phase (the CPU time of the phase over its launches), and
                  the launches in backward() that took over BLOCK_US when the GPU is not held
                  (the step as the validation runs it).

first_blocked() is pure Python (tests/validate/test_modelcost.py feeds it); the rest needs torch
with CUDA.

    python3 tools/torch_launchq.py --out launchq.json [--models resnet18:32,resnet50:64]
    python3 tools/torch_launchq.py --out syncprobe.json --sync-probe 6

--sync-probe ROUNDS tests whether the launch queue is what makes the per-parameter costs measured
on the model (tools/torch_modelcost.py) grow with the model: the same measurement ARMS times
(--sync-arms, default 3), plain and with the GPU drained before backward() alternately (ROUNDS
rounds each; the lease's drift shows between arms of one kind). Draining
removes forward's pending launches (hundreds where the host is ahead), so where DDP's copies
push the queue to its bound, the copy cost drops with it; fusim's simulated timelines say the
queue peaks at 630-860 of 1021 and it should not (data/validation/README.md).
"""
import argparse
import json
import os
import statistics
import sys
import time

BLOCK_US = 50.0   # a launch this long waited for the queue (unblocked launches take 2-30 us)
LAUNCH_NAMES = ("cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync")


def first_blocked(durations_us, block_us=BLOCK_US, skip=1):
    """Index of the first launch (after `skip` warm ones) that took over block_us, i.e. how many
    launches were pending when the queue was full; None when none blocked."""
    for i, d in enumerate(durations_us):
        if i >= skip and d > block_us:
            return i
    return None


def queue_depth(n=6000, kind="kernel", reps=3, sleep_ms=300):
    """The launches pending when the host first blocked, behind a GPU held by a sleep kernel
    (the most of reps: a rep reads short where a launch is slowed past BLOCK_US by the host
    itself, never long; runs 13-27 and x2 read 1-968 in 25 of 108 reps, 1018-1021 in the rest), with
    every rep's figure."""
    import torch
    a = torch.ones(256, device="cuda")
    b = torch.empty(256, device="cuda")
    found = []
    for _ in range(reps):
        torch.cuda.synchronize()
        torch.cuda._sleep(int(sleep_ms * 1000 * 2000))
        ds = []
        for _ in range(n):
            t0 = time.perf_counter()
            if kind == "kernel":
                a.add_(1.0)
            else:
                b.copy_(a)
            ds.append((time.perf_counter() - t0) * 1e6)
        torch.cuda.synchronize()
        found.append(first_blocked(ds))
    ok = [f for f in found if f is not None]
    return {"kind": kind, "depth": max(ok) if ok else None, "reps": found, "n": n}


def split_phases(events, phases=("fwd", "bwd", "opt")):
    """{phase: [launch durations us]} from (name, start_us, end_us, dur_us) events: a launch
    belongs to the phase (a "fusim_<phase>" range) its start lies in, whichever thread made it."""
    rng = {n[len("fusim_"):]: (s, e) for n, s, e, _ in events if n.startswith("fusim_")}
    out = {ph: [] for ph in phases}
    for n, s, _, d in events:
        if n in LAUNCH_NAMES:
            for ph in phases:
                if ph in rng and rng[ph][0] <= s <= rng[ph][1]:
                    out[ph].append(d)
    return out


def phase_launches(model, run_loss, opt, steps=3):
    """Launches per phase of one step (median of steps) and backward()'s blocked launches, from
    one profile per step (CPU activity only; each phase a record_function range)."""
    import torch
    from torch.autograd.profiler import record_function
    from torch.profiler import ProfilerActivity, profile
    out = {"fwd": [], "bwd": [], "opt": [], "cpu_us": [], "bwd_blocked": [], "bwd_longest_us": []}
    for s in range(steps + 1):
        (opt or model).zero_grad(set_to_none=False)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU]) as p:
            t0 = time.perf_counter()
            with record_function("fusim_fwd"):
                loss = run_loss(model)
            t1 = time.perf_counter()
            with record_function("fusim_bwd"):
                loss.backward()
            t2 = time.perf_counter()
            with record_function("fusim_opt"):
                if opt is not None:
                    opt.step()
            t3 = time.perf_counter()
        torch.cuda.synchronize()
        if s == 0:
            continue
        ev = [(e.name, e.time_range.start, e.time_range.end, e.cpu_time_total) for e in p.events()]
        ph = split_phases(ev)
        for k in ("fwd", "bwd", "opt"):
            out[k].append(len(ph[k]))
        out["cpu_us"].append([round((t1 - t0) * 1e6), round((t2 - t1) * 1e6), round((t3 - t2) * 1e6)])
        out["bwd_blocked"].append(sum(d > BLOCK_US for d in ph["bwd"]))
        out["bwd_longest_us"].append(round(max(ph["bwd"]) if ph["bwd"] else 0.0, 1))
    return {k: (statistics.median(v) if k in ("fwd", "bwd", "opt") else v) for k, v in out.items()}


def sync_probe(a, validate_torch):
    """torch_modelcost.measure plain and drained before backward() alternately, a.sync_arms
    times per model; the fixed parts are left at 0 (only the differences between arms are read)."""
    import torch
    import torch_modelcost
    res = {"rounds": a.sync_probe, "models": {}}
    for spec in validate_torch.parse_models(a.models):
        name, batch = spec
        torch.manual_seed(0)
        model, inputs, loss_fn, _ = validate_torch.build_model(name, batch, a.seq)
        opt = validate_torch.make_opt(model)
        out = []
        for sync in [k % 2 == 1 for k in range(a.sync_arms)]:
            r = torch_modelcost.measure(model, lambda m: loss_fn(m, inputs), opt,
                                        {"finalize_us": 0.0, "hooks_bucket_us": 0.0},
                                        rounds=a.sync_probe, warmup=2, cold=False, sync_fwd=sync)
            out.append({"sync_fwd": sync, "param_us": r["param_us"], "copy_us": r["copy_us"],
                        "hook_us": r["hook_us"], "bwd_cpu_us": r["bwd_cpu_us"], "ci": r["ci"],
                        "raw": r["raw"]})
            print(name, "sync" if sync else "plain", json.dumps({k: out[-1][k] for k in (
                "param_us", "copy_us", "hook_us", "bwd_cpu_us")}), flush=True)
        res["models"]["%s:%d" % spec] = out
        del model, opt, inputs
        torch.cuda.empty_cache()
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--models", default="resnet18:32,resnet50:64,vit_b_16:32,bert_base:8,gpt2_medium:4")
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--sync-probe", type=int, default=0, metavar="ROUNDS",
                    help="only the on-model costs plain / drained alternately (see above)")
    ap.add_argument("--sync-arms", type=int, default=3, metavar="N",
                    help="--sync-probe: arms in all (plain first)")
    a = ap.parse_args(argv)
    try:
        import torch
    except ImportError as e:
        print("torch_launchq: PyTorch is needed (%s)" % e, file=sys.stderr)
        return 69
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import validate_torch
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    if a.sync_probe:
        return sync_probe(a, validate_torch)
    res = {"queue": [queue_depth(kind="kernel"), queue_depth(kind="copy")], "models": {}}
    print("queue:", json.dumps(res["queue"]), flush=True)
    for spec in validate_torch.parse_models(a.models):
        name, batch = spec
        torch.manual_seed(0)
        model, inputs, loss_fn, _ = validate_torch.build_model(name, batch, a.seq)
        opt = validate_torch.make_opt(model)
        for _ in range(3):   # warm-up (cudnn.benchmark, the optimizer's state)
            opt.zero_grad(set_to_none=False)
            loss_fn(model, inputs).backward()
            opt.step()
        r = phase_launches(model, lambda m: loss_fn(m, inputs), opt)
        res["models"]["%s:%d" % spec] = r
        print(name, json.dumps(r), flush=True)
        del model, opt, inputs
        torch.cuda.empty_cache()
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
