"""torch_beside.py: what an offload (a device-to-host copy into pinned memory over PCIe) costs the
model's own step beside it, measured at capture for the workload's host.beside_d2h (fusim:
sim/fu_predict.c).

Why: in every real-PyTorch run on the H200 (runs 8-16), the hook pattern's backward() CPU time
over the overlap-off plan's is the buckets' issue cost (close to the tower's per-bucket cost)
plus a part X that the bucketing does not change (0.04-12 ms; data/validation/issue_bytes.py).
It is not the host beside the DMA (a transfer issued from the main thread before backward leaves
backward() at x0.93-1.01), not the issue calls (event and wait 30-80 us, copy_ 10-25 us at any
size) and not the bytes (4 KiB per bucket costs the same); issuing the same buckets inside
backward instead of after adds 80-170 us per bucket beyond the calls
(tools/hook_issue_diag.py, data/validation/hookdiag-2026-12-04). So the capture records that
comparison on the model (hk_on against hk_off) for the next model step; the compute side is
measured here too: the profile's copy_slowdown comes from bf16 GEMMs near the power limit, not
from this model's kernels.

How: rounds of six steps of the model (on copies for the hook pattern), in an order alternated
every round:
  host      backward() CPU time, no framework, the GPU free to follow the host;
  host_d2h  the same with a chain of device-to-host copies on a side stream issued from the main
            thread just before backward(), long enough to outlast it;
  gpu       backward's GPU-only time: the step enqueued behind a sleep kernel (capture_torch's
            way), from the sleep's end to backward's end;
  gpu_d2h   the same with the copies starting when the sleep ends;
  hk_on     the hook pattern (torch_host.HookFuser, 25 MiB buckets, overlap on): every bucket
            offloaded from its last gradient's hook, the first issue's offset into backward()
            stamped;
  hk_off    the same hooks and buckets, overlap off: every offload issued after backward().
and, in rounds of their own after those (first_rounds), a pair that measures the slowdown s of
backward's host work after the first in-backward issue (runs 11-17's loops: s about 0.1 per plan,
data/validation/in_bwd_issue_per_plan.txt; hk_on / hk_off cannot give it where the first 25 MiB
bucket fills at the end of backward), on copies with torch_host.FirstIssueFuser:
  fi_on     the model's first ready gradient alone in a bucket, offloaded from its hook (early
            in backward, so most of backward follows it), every other bucket after backward();
  fi_off    the same hooks, copies and buckets, all offloaded after backward().
Per round, fi_on's backward() time after the issue call over fi_off's after the same point,
minus 1: in_bwd_slow (the issue call itself apart), with the p5 / p95 of a bootstrap of its
median, kept in meta. On run 18 (24 rounds) it was 0.001 [-0.026, 0.023] on ResNet-101, 0.006
[-0.010, 0.042] on Swin-T and 0.011 [-0.008, 0.044] on MobileNetV3-L: no slowdown after a small
early issue, so fusim prices none (the extra of issuing inside backward goes with the buckets
issued: torch_modelcost's per-bucket variants measure it on the model).
(Run 16's captures ran hk_full / hk_tiny instead: full buckets against 4 KiB of each, inside
backward; that told nothing from none, and tools/hook_issue_diag.py then showed where the extra
is: in issuing inside backward at all.)
host = median over rounds of host_d2h / host, compute = median of gpu_d2h / gpu (paired within a
round: the host's speed moves between rounds), in_bwd_issue_us = median of hk_on - hk_off (the
issue calls and whatever issuing inside backward adds to it), each with the p5 / p95 of a
bootstrap of its median. Only compute goes into the host block (where its p5 is above 1); the
host factor (0.93-1.01 on runs 15-16) and in_bwd_issue_us stay in the workload's meta
(meta.beside_d2h, with the raw rounds): fusim does not model the in-backward issue yet.

A check rides along: the CPU time of one non-blocking device-to-host copy_ call of 4 KiB and of
32 MiB, the copy engine idle (issue_us_small / issue_us_large).

estimate() is pure Python (tests/validate/test_beside.py checks it on hand-made rounds);
measure() needs torch with CUDA.
"""
import math
import random
import statistics
import time

MiB = 2**20


PAIRS = (("host", "host", "host_d2h"), ("compute", "gpu", "gpu_d2h"))


def _ratios(raw, a, b):
    return [y / x for x, y in zip(raw.get(a, []), raw.get(b, [])) if x and y and x > 0 and y > 0]


def _boot_ci(xs, rng, boot, nd, scale=1.0):
    """[p5, p95] (rounded to nd places) of the median of xs / scale over xs resampled boot times."""
    meds = sorted(statistics.median(rng.choice(xs) for _ in xs) / scale for _ in range(boot))
    return [round(meds[int(0.05 * (boot - 1))], nd), round(meds[int(round(0.95 * (boot - 1)))], nd)]


def estimate(raw, boot=200, seed=1):
    """{"host": H, "compute": C, "ci": {"host": [p5, p95], ...}} from raw = {"host": [us],
    "host_d2h": [us], "gpu": [us], "gpu_d2h": [us]} (one value per round, paired by index):
    medians of the per-round ratios, and the p5 / p95 of that median over rounds resampled
    (a bootstrap); None for a pair with no valid round."""
    rng = random.Random(seed)
    out = {"ci": {}}
    for key, a, b in PAIRS:
        r = _ratios(raw, a, b)
        out[key] = round(statistics.median(r), 4) if r else None
        if r:
            out["ci"][key] = _boot_ci(r, rng, boot, 4)
    # the hook pattern's buckets issued inside backward against after it (backward() CPU time,
    # the issue calls included): the whole extra, per round
    d = [y - x for x, y in zip(raw.get("hk_off", []), raw.get("hk_on", [])) if x > 0 and y > 0]
    out["in_bwd_issue_us"] = round(statistics.median(d), 1) if d else None
    if d:
        out["ci"]["in_bwd_issue_us"] = _boot_ci(d, rng, boot, 1)
    # the slowdown of backward's host work after the first in-backward issue (the model's first
    # ready gradient offloaded from its hook, against the same step issuing it after backward):
    # backward's time after the issue over the same stretch without it, per round, minus 1
    r = _ratios(raw, "fi_off_rest", "fi_on_rest")
    out["in_bwd_slow"] = round(statistics.median(r) - 1, 4) if r else None
    if r:
        out["ci"]["in_bwd_slow"] = [round(x - 1, 4) for x in _boot_ci(r, rng, boot, 6)]
    # run 16's captures: full buckets against 4 KiB of each, per MiB
    d = [y - x for x, y in zip(raw.get("hk_tiny", []), raw.get("hk_full", [])) if x > 0 and y > 0]
    mib = raw.get("hk_mib") or 0
    out["issue_mib_us"] = round(statistics.median(d) / mib, 4) if d and mib > 0 else None
    if out["issue_mib_us"] is not None:
        out["ci"]["issue_mib_us"] = _boot_ci(d, rng, boot, 4, mib)
    return out


def block(est):
    """The host block's beside_d2h from estimate()'s result: {"compute": C} where the bootstrap p5
    of C is above 1 (the rounds tell it from no slowdown; fusim reads factors >= 1), else None.
    The host factor, the per-MiB issue cost and the slowdown after the first in-backward issue
    are measured and kept in meta, not written: none was told from none (runs 15-16; run 18 for
    the slowdown, data/validation/README.md)."""
    c, ci = est.get("compute"), est.get("ci", {}).get("compute", [0])
    return {"compute": c} if c is not None and ci[0] > 1.0 else None


def measure(model, run_loss, opt, *, rounds=10, warmup=2, set_to_none=True, chunk_mib=128,
            first_rounds=0, log=None):
    """Runs the rounds on model (run_loss(m) -> the loss of one forward; opt: its optimizer or
    None). Returns {"host", "compute"} (estimate()) with "raw", "chunk_us" (one chunk's transfer
    alone), "chunks" (per host / gpu step), "issue_us_small", "issue_us_large", "seconds".
    first_rounds: rounds of the first-issue pair (fi_on / fi_off, see the module docstring) after
    the others (0: none)."""
    import torch

    t_start = time.time()
    ev = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731
    n = chunk_mib * MiB // 4
    src = torch.ones(n, device="cuda")
    dst = torch.empty(n, pin_memory=True)
    side = torch.cuda.Stream()

    def chunks(k, after=None):
        with torch.cuda.stream(side):
            if after is not None:
                side.wait_event(after)
            for _ in range(k):
                dst.copy_(src, non_blocking=True)

    # one chunk's transfer time alone
    ts = []
    for _ in range(4):
        torch.cuda.synchronize()
        a, b = ev(), ev()
        with torch.cuda.stream(side):
            a.record(side)
            dst.copy_(src, non_blocking=True)
            b.record(side)
        torch.cuda.synchronize()
        ts.append(a.elapsed_time(b) * 1e3)
    chunk_us = statistics.median(ts[1:])

    def host_step(k):
        model.zero_grad(set_to_none=set_to_none)
        torch.cuda.synchronize()
        loss = run_loss(model)
        if k:
            chunks(k)
        t0 = time.perf_counter()
        loss.backward()
        t1 = time.perf_counter()
        if opt is not None:
            opt.step()
        torch.cuda.synchronize()
        return (t1 - t0) * 1e6

    def gpu_step(k, cycles):
        model.zero_grad(set_to_none=set_to_none)
        loss = run_loss(model)
        torch.cuda.synchronize()
        a, b, c = ev(), ev(), ev()
        a.record()
        torch.cuda._sleep(cycles)
        b.record()
        if k:
            chunks(k, after=b)
        loss.backward()
        c.record()
        torch.cuda.synchronize()
        if opt is not None:
            opt.step()
            torch.cuda.synchronize()
        return b.elapsed_time(c) * 1e3

    # the hook pattern's offloads (as the harness runs it, 25 MiB buckets) issued inside backward
    # (overlap on) or after it (overlap off), on copies of the model; the first issue inside
    # backward is stamped (its offset into backward())
    import copy as _copy
    import torch_host

    class _Fuser(torch_host.HookFuser):
        t_first = None

        def _issue(self, b):
            if self.t_first is None:
                self.t_first = time.perf_counter()
            super()._issue(b)

    hk = {}
    for name in ("hk_on", "hk_off"):
        mc = _copy.deepcopy(model)
        f = _Fuser([(n_, p) for n_, p in mc.named_parameters() if p.requires_grad], 25 * MiB,
                   overlap=name == "hk_on")
        o = torch_host.same_optimizer(opt, mc.parameters())
        hk[name] = (mc, f, o)
    first = []   # the first in-backward issue's offset over backward()'s time, per hk_on step

    def hk_step(name):
        mc, f, o = hk[name]
        mc.zero_grad(set_to_none=set_to_none)
        torch.cuda.synchronize()
        loss = run_loss(mc)
        f.t_first = None
        t0 = time.perf_counter()
        loss.backward()
        t1 = time.perf_counter()
        if name == "hk_on" and f.t_first is not None:
            first.append((f.t_first - t0) / (t1 - t0))
        f.after_backward()
        if o is not None:
            o.step()
        torch.cuda.synchronize()
        return (t1 - t0) * 1e6

    for _ in range(warmup):
        host_step(0)
        hk_step("hk_on")
        hk_step("hk_off")
    cpu0 = statistics.median(host_step(0) for _ in range(3))
    cycles = int(cpu0 * 4 * 2000)   # a sleep outlasting backward()'s enqueue (~4x at 2 GHz)
    gpu0 = statistics.median(gpu_step(0, cycles) for _ in range(3))
    # copies enough to outlast backward by half again (the chunk's time alone; compute beside
    # it barely slows PCIe)
    k_host = max(1, math.ceil(1.5 * cpu0 / chunk_us))
    k_gpu = max(1, math.ceil(1.5 * gpu0 / chunk_us))
    first.clear()
    raw = {"host": [], "host_d2h": [], "gpu": [], "gpu_d2h": [], "hk_on": [], "hk_off": [],
           "hk_mib": round(sum(b.numel() * b.element_size() for b in hk["hk_on"][1].bufs) / MiB, 3),
           "hk_buckets": len(hk["hk_on"][1].bufs)}
    for r in range(rounds):
        order = (("host", 0), ("host_d2h", k_host), ("gpu", 0), ("gpu_d2h", k_gpu),
                 ("hk_on", 0), ("hk_off", 0))
        if r % 2:
            order = order[1::-1] + order[3:1:-1] + order[:3:-1]
        for name, k in order:
            t = host_step(k) if name.startswith("host") else \
                hk_step(name) if name.startswith("hk") else gpu_step(k, cycles)
            raw[name].append(round(t, 1))
    raw["hk_first_frac"] = round(statistics.median(first), 4) if first else None
    del hk
    if first_rounds > 0:
        _first_issue(model, run_loss, opt, raw, first_rounds, warmup, set_to_none)

    # the copy_ call's own CPU time, small and large, the copy engine idle
    def issue(nbytes, reps=20):
        s = src[:nbytes // 4]
        d = dst[:nbytes // 4]
        per = []
        for _ in range(reps):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            d.copy_(s, non_blocking=True)
            per.append((time.perf_counter() - t0) * 1e6)
        torch.cuda.synchronize()
        return round(statistics.median(per), 2)

    out = estimate(raw)
    out.update({"raw": raw, "chunk_us": round(chunk_us, 1), "chunk_mib": chunk_mib,
                "chunks": {"host": k_host, "gpu": k_gpu},
                "issue_us_small": issue(4096), "issue_us_large": issue(32 * MiB),
                "rounds": rounds, "seconds": round(time.time() - t_start, 1)})
    del src, dst
    torch.cuda.empty_cache()
    if log and out.get("in_bwd_slow") is not None:
        log("  the first in-backward issue (%d rounds, at %s of backward(), its call %s us): "
            "backward's host work after it x (1 + %s) %s"
            % (first_rounds, raw["fi_frac"], raw["fi_call_us"], out["in_bwd_slow"],
               out["ci"]["in_bwd_slow"]))
    if log:
        log("  beside a D2H (%.1f s, %d rounds, %d MiB chunks of %.0f us x %d / %d): backward() "
            "CPU x %s, GPU x %s; copy_ call 4 KiB %.1f us, 32 MiB %.1f us; the hook pattern's %d "
            "buckets (%.0f MiB) issued inside backward against after: backward() +%s us %s, "
            "the first issue at %s of it"
            % (out["seconds"], rounds, chunk_mib, chunk_us, k_host, k_gpu, out["host"],
               out["compute"], out["issue_us_small"], out["issue_us_large"], raw["hk_buckets"],
               raw["hk_mib"], out["in_bwd_issue_us"], out["ci"].get("in_bwd_issue_us"),
               raw["hk_first_frac"]))
    return out


def _first_issue(model, run_loss, opt, raw, rounds, warmup, set_to_none):
    """The first-issue pair (torch_host.FirstIssueFuser, on copies of model): per round one step
    with the model's first ready gradient offloaded from its hook (fi_on) and one with it issued
    after backward (fi_off), in an order alternated every round. Into raw: backward() CPU time
    of each (fi_on, fi_off), backward's time after the issue (fi_on_rest) and after the same
    point without it (fi_off_rest), and the medians of the issue call (fi_call_us) and of where
    it falls in backward() (fi_frac)."""
    import copy as _copy
    import torch
    import torch_host

    arms = {}
    for name in ("fi_on", "fi_off"):
        mc = _copy.deepcopy(model)
        f = torch_host.FirstIssueFuser([(n_, p) for n_, p in mc.named_parameters() if p.requires_grad],
                                       inside=name == "fi_on")
        o = torch_host.same_optimizer(opt, mc.parameters())
        arms[name] = (mc, f, o)

    def step(name):
        mc, f, o = arms[name]
        mc.zero_grad(set_to_none=set_to_none)
        torch.cuda.synchronize()
        loss = run_loss(mc)
        f.t_a = f.t_e = None
        t0 = time.perf_counter()
        loss.backward()
        t1 = time.perf_counter()
        f.after_backward()
        if o is not None:
            o.step()
        torch.cuda.synchronize()
        if f.t_e is None:   # the first step builds the buckets
            return None
        return (t1 - t0) * 1e6, (t1 - f.t_e) * 1e6, (f.t_e - f.t_a) * 1e6, (f.t_a - t0) / (t1 - t0)

    for _ in range(warmup + 1):
        step("fi_on")
        step("fi_off")
    for k in ("fi_on", "fi_off", "fi_on_rest", "fi_off_rest"):
        raw[k] = []
    call, frac = [], []
    for r in range(rounds):
        for name in (("fi_on", "fi_off") if r % 2 == 0 else ("fi_off", "fi_on")):
            bwd, rest, c, fr = step(name)
            raw[name].append(round(bwd, 1))
            raw[name + "_rest"].append(round(rest, 1))
            if name == "fi_on":
                call.append(c)
                frac.append(fr)
    raw["fi_call_us"] = round(statistics.median(call), 1)
    raw["fi_frac"] = round(statistics.median(frac), 4)
    raw["fi_bytes"] = arms["fi_on"][1].bufs[0].numel() * arms["fi_on"][1].bufs[0].element_size()
    del arms
