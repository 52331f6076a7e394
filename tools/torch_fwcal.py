"""torch_fwcal.py: the frameworks' costs (PyTorch DDP's Reducer, the Python hook pattern) measured
the way a real training step pays them, for the workload's host block (issue 10).

Why not torch_host.framework_costs(): it runs a chain of parameters whose backward is one multiply
each, on a GPU held by one sleep kernel, and real steps paid 1.5-2.5x its per-parameter costs
(data/validation/README.md, runs 4-7); it also sees no GPU-side cost. Here the model is a tower of
L blocks [Linear(d, d) -> BatchNorm1d(d) -> GELU] on T x d activations, so that, as in a real
model, backward launches GEMMs, normalisation, activation and accumulation kernels between two
gradients' hooks, the GPU is busy with real work while the host runs ahead of it, parameters mix a
4 MiB weight with 4 KiB vectors, and DDP broadcasts BatchNorm's running statistics. It is none of
the validated models. The tower runs at several depths (P = 4L parameters, 3L buffers); every
variant below runs one iteration per round at every depth, in an order rotated every round, and
each iteration twice: as is (CPU times, the step's time) and held (the whole step enqueued behind
a sleep kernel: the GPU-only time, no kernel waiting for its launch).

Each cost is a least-squares line over the depths through the medians of per-round differences
(a variant minus the framework-free iteration of the same depth and round, or minus its sibling):
  ddp.param_us         slope on P of backward() CPU, DDP with bucket views, one bucket
  ddp.finalize_us      that line's intercept (fixed work at the end of backward)
  ddp.copy_us          slope on P of DDP copying into one bucket, minus param_us
  ddp.bucket_us        slope on the extra buckets of (one per tensor - one bucket), views and
                       copies averaged (DDP's default NCCL all-reduce)
  ddp.hook_bucket_us   the same with the offload comm hook
  ddp.forward_us       forward CPU of DDP without buffer broadcast, median over depths
  ddp.buffer_us        slope on the buffer count of forward CPU (broadcast - no broadcast)
  hooks.hook_us        slope on P of backward() + after_backward CPU, hook pattern, one bucket
  hooks.bucket_us      slope on the extra buckets of (one per tensor - one bucket)
  hooks.noop_hook_us   slope on P of no-op hooks
  gpu.*                the same lines on the held GPU-only time: the frameworks' kernels on the
                       compute stream (DDP's per-parameter scale or copy into the bucket, the copy
                       back at finalize, the buffers' copies after broadcast, the hooks' copies)
  kernel_us            GPU time of one small copy kernel queued behind others, timed directly
  probe_us             the host's speed while measuring (torch_host.host_probe, once a round)
  bwd_probe_us         the same on the autograd engine's thread (torch_host.bwd_probe)
Spread: fw_rel_lo / fw_rel_hi as torch_host.framework_costs() defines them (each round's
framework time over its median, pooled, p5 and p95, minus 1), and per cost the p5 / p95 of a
bootstrap over rounds (ci).

estimate() is pure Python (tests/model/test_fwcal.py checks it on hand-made data); measure()
needs torch with CUDA and NCCL (a world of one rank is set up here when none is).
"""
import copy
import random
import statistics
import time

import bad_input
import torch_host
from quantile import quantile

MiB = 2**20
TINY, HUGE = 1e-9, 1e4         # bucket caps in MiB: one bucket per tensor / one for all
DEPTHS = (6, 16, 32, 48)       # blocks; 4 parameters and 3 buffers each
WIDTH = 1024                   # d: a 4 MiB weight per block
TOKENS = 8192                  # T: backward's GPU time about twice its host time per block

# name: (kind, bucket cap MiB, gradient_as_bucket_view, broadcast_buffers)
VARIANTS = {
    "none": ("plain", None, False, False),
    "ddpv_1": ("ddp", HUGE, True, True),
    "ddpv_pt": ("ddp", TINY, True, True),
    "ddp_1": ("ddp", HUGE, False, True),
    "ddp_pt": ("ddp", TINY, False, True),
    "off_1": ("ddp_off", HUGE, False, True),
    "off_pt": ("ddp_off", TINY, False, True),
    "ddpv_nb": ("ddp", HUGE, True, False),
    "hk_1": ("hooks", HUGE, False, False),
    "hk_pt": ("hooks", 0.0, False, False),
    "noop": ("noop", None, False, False),
}
QUANTITIES = ("fwd", "bwd", "gpu", "step")   # per iteration: CPU fwd, CPU bwd, held GPU, step


def ols(xs, ys):
    """Least-squares line through (xs, ys): (intercept, slope); a flat line when xs are equal."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return my, 0.0
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return my - b * mx, b


def estimate(data, rounds=None):
    """The costs from measured data: data["P"][L], data["nbuf"][L] (per depth L), data["B"][v][L]
    (buckets each variant really used), data[q][v][L] = [per-round values] for q in QUANTITIES.
    rounds: indices of the rounds to use (default all; the bootstrap passes resamples)."""
    depths = sorted(data["P"], key=int)
    n = len(data["bwd"]["none"][depths[0]])
    rs = list(range(n)) if rounds is None else rounds

    def med_diff(q, a, b, L):
        xa, xb = data[q][a][L], data[q][b][L]
        return statistics.median(xa[r] - xb[r] for r in rs)

    def line(q, a, b, x):   # x(L): the regressor
        return ols([x(L) for L in depths], [med_diff(q, a, b, L) for L in depths])

    P = lambda L: data["P"][L]                         # noqa: E731
    nbuf = lambda L: data["nbuf"][L]                   # noqa: E731

    def extra(v_pt, v_1):   # buckets of the per-tensor variant beyond the one-bucket variant's
        return lambda L: data["B"][v_pt][L] - data["B"][v_1][L]

    fin, param = line("bwd", "ddpv_1", "none", P)
    _, param_copy = line("bwd", "ddp_1", "none", P)
    _, bk_v = line("bwd", "ddpv_pt", "ddpv_1", extra("ddpv_pt", "ddpv_1"))
    _, bk_c = line("bwd", "ddp_pt", "ddp_1", extra("ddp_pt", "ddp_1"))
    _, bk_off = line("bwd", "off_pt", "off_1", extra("off_pt", "off_1"))
    fwd_fixed = statistics.median(med_diff("fwd", "ddpv_nb", "none", L) for L in depths)
    bcast, buf = line("fwd", "ddpv_1", "ddpv_nb", nbuf)
    _, hook = line("bwd", "hk_1", "none", P)
    _, hk_bk = line("bwd", "hk_pt", "hk_1", extra("hk_pt", "hk_1"))
    _, noop = line("bwd", "noop", "none", P)
    g_fin, g_view = line("gpu", "ddpv_nb", "none", P)      # no buffers: their copies apart
    _, g_copy = line("gpu", "ddp_1", "ddpv_1", P)
    _, g_hook = line("gpu", "hk_1", "none", P)
    _, g_buf = line("gpu", "ddpv_1", "ddpv_nb", nbuf)
    _, g_bk = line("gpu", "ddpv_pt", "ddpv_1", extra("ddpv_pt", "ddpv_1"))
    pos = lambda v: round(max(0.0, v), 3)              # noqa: E731
    return {
        "ddp": {"param_us": pos(param), "copy_us": pos(param_copy - param),
                "bucket_us": pos(0.5 * (bk_v + bk_c)), "hook_bucket_us": pos(bk_off),
                "finalize_us": pos(fin), "forward_us": pos(fwd_fixed), "buffer_us": pos(buf)},
        "hooks": {"hook_us": pos(hook), "bucket_us": pos(hk_bk), "noop_hook_us": pos(noop)},
        "gpu": {"ddp_view_param_us": round(g_view, 3), "ddp_copy_param_us": round(g_view + g_copy, 3),
                "ddp_fixed_us": round(g_fin, 3), "ddp_bucket_us": round(g_bk, 3),
                "hook_param_us": round(g_hook, 3), "buffer_us": round(g_buf, 3)},
        "other": {"broadcast_fixed_us": round(bcast, 3)},
    }


def data_from_run(fw):
    """estimate()'s data from what framework_costs() returned (as stored in runs.json)."""
    raw = fw["raw"]
    depths = [int(L) for L in raw["depths"]]
    key = lambda d, L: d[L] if L in d else d[str(L)]   # noqa: E731  (JSON keys are strings)
    data = {q: {v: {L: fw["rounds"][q]["%s/%d" % (v, L)] for L in depths} for v in VARIANTS}
            for q in QUANTITIES}
    data["P"] = {L: key(raw["P"], L) for L in depths}
    data["nbuf"] = {L: key(raw["nbuf"], L) for L in depths}
    data["B"] = {v: {L: key(raw["buckets"][v], L) for L in depths} for v in VARIANTS}
    return data


def spread(data, boot=200, seed=1):
    """fw_rel_lo / fw_rel_hi (torch_host's definition, over the depths) and per cost the p5 / p95
    of a bootstrap over rounds."""
    depths = list(data["P"])
    ratios = []
    for v in ("ddp_pt", "ddpv_pt", "off_pt", "hk_pt"):
        for L in depths:
            d = [a - b for a, b in zip(data["bwd"][v][L], data["bwd"]["none"][L])]
            md = statistics.median(d)
            if md > 0:
                ratios += [x / md for x in d]
    n = len(data["bwd"]["none"][depths[0]])
    rng = random.Random(seed)
    samples = [estimate(data, [rng.randrange(n) for _ in range(n)]) for _ in range(boot)]
    ci = {grp: {k: [round(quantile([s[grp][k] for s in samples], 0.05), 3),
                    round(quantile([s[grp][k] for s in samples], 0.95), 3)]
                for k in samples[0][grp]} for grp in ("ddp", "hooks", "gpu")}
    lo = min(0.0, quantile(ratios, 0.05) - 1) if ratios else 0.0
    hi = max(0.0, quantile(ratios, 0.95) - 1) if ratios else 0.0
    return round(max(-1.0, lo), 4), round(min(10.0, hi), 4), ci


# ---- on the GPU ----------------------------------------------------------------------------------

def _tower(L, width):
    import torch

    class Tower(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = torch.nn.ModuleList(
                torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.BatchNorm1d(width),
                                    torch.nn.GELU()) for _ in range(L))

        def forward(self, x):
            for b in self.blocks:
                x = b(x)
            return x.square().mean()

    return Tower().cuda()


class _Runner:
    """One variant on its own copy of a tower, with its own SGD (momentum), as validate_torch's."""

    def __init__(self, base, variant):
        import torch
        from torch.nn.parallel import DistributedDataParallel as DDP
        kind, cap, view, bcast = VARIANTS[variant]
        m = copy.deepcopy(base)
        self.core, self.fuser, self.off, self.kind = m, None, None, kind
        if kind in ("ddp", "ddp_off"):
            m = DDP(m, device_ids=torch_host.device_ids(), bucket_cap_mb=cap, gradient_as_bucket_view=view,
                    broadcast_buffers=bcast)
            if kind == "ddp_off":
                self.off = torch_host.OffloadState()
                m.register_comm_hook(self.off, torch_host.offload_hook)
        elif kind == "hooks":
            self.fuser = torch_host.HookFuser(list(m.named_parameters()), int(cap * MiB))
        elif kind == "noop":
            for p in m.parameters():
                p.register_post_accumulate_grad_hook(lambda t: None)
        self.model = m
        self.opt = torch.optim.SGD(self.core.parameters(), lr=1e-4, momentum=0.9)
        self.ev = [torch.cuda.Event(enable_timing=True) for _ in range(3)]
        self.host_us = 50000.0   # the last step's host time, for the held pass's sleep

    def step(self, x, held):
        """(fwd CPU, bwd CPU, GPU after the sleep, whole step, host enqueue time, sleep) in us."""
        import torch
        e0, e1, e2 = self.ev
        self.opt.zero_grad(set_to_none=False)
        torch.cuda.synchronize()
        torch_host.align_ranks()   # at N ranks, as validate_torch's rounds
        ts = time.perf_counter()
        e0.record()
        if held:   # about 3x the host's time at <= 2 GHz, as torch_host.host_timeline does
            torch.cuda._sleep(int(max(3 * self.host_us + 2000, 5000) * 2000))
        e1.record()
        t0 = time.perf_counter()
        loss = self.model(x)
        t1 = time.perf_counter()
        loss.backward()
        if self.fuser is not None:
            self.fuser.after_backward()
        t2 = time.perf_counter()
        self.opt.step()
        e2.record()
        t3 = time.perf_counter()
        torch.cuda.synchronize()
        if not held:
            self.host_us = (t3 - ts) * 1e6
        return ((t1 - t0) * 1e6, (t2 - t1) * 1e6, e1.elapsed_time(e2) * 1e3,
                e0.elapsed_time(e2) * 1e3, (t3 - ts) * 1e6, e0.elapsed_time(e1) * 1e3)

    def buckets(self, x):
        """How many buckets this variant really used (DDP's, read through a recording hook)."""
        if self.fuser is not None:
            return len(self.fuser.buckets)
        if self.kind not in ("ddp", "ddp_off"):
            return 0
        rec = []
        if self.off is not None:
            self.off.record = rec
        else:
            self.model.register_comm_hook(rec, torch_host.record_allreduce_hook)
        self.step(x, False)
        return len(rec)


def kernel_us(n=400, reps=5):
    """GPU time of one small (4 KiB) copy kernel queued behind others: n copies enqueued behind a
    sleep kernel, their GPU time over n; median of reps."""
    import torch
    a = [torch.ones(1024, device="cuda") for _ in range(n)]
    b = [torch.empty(1024, device="cuda") for _ in range(n)]
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(reps):
        torch.cuda.synchronize()
        torch.cuda._sleep(int(20000 * 2000))   # 20 ms: longer than enqueuing n copies
        e0.record()
        for s, d in zip(a, b):
            d.copy_(s)
        e1.record()
        torch.cuda.synchronize()
        ts.append(e0.elapsed_time(e1) * 1e3 / n)
    return statistics.median(ts)


def run_rounds(runners, x, rounds, warmup, held, probe):
    """The tower's loop: runners[(variant, depth)].step(x, held_pass) every round in an order
    rotated every round, warm-up rounds dropped. held "interleaved": each as-is pass followed by
    its held pass (runs <= 9); "separate": all as-is rounds first, as the validation's loops run,
    then the held rounds (run 9's experiment paid more per parameter without held passes than the
    interleaved tower: the test of this option). probe() once an as-is round. Returns (data[q][v][L]
    lists for q in QUANTITIES, held passes whose host enqueue outlasted their sleep, probes)."""
    data = {q: {v: {L: [] for (_, L) in runners} for (v, _) in runners} for q in QUANTITIES}
    keys = list(runners)
    short, probes = 0, []
    phases = [(True, True)] if held == "interleaved" else [(True, False), (False, True)]
    for as_is, hold in phases:
        for r in range(warmup + rounds):
            k0 = r % len(keys)
            for k in keys[k0:] + keys[:k0]:
                run = runners[k]
                if as_is:
                    f, b, _, st, _, _ = run.step(x, False)
                if hold:
                    _, _, g, _, host, slept = run.step(x, True)
                if r < warmup:
                    continue
                v, L = k
                if hold:
                    short += host > slept
                    data["gpu"][v][L].append(g)
                if as_is:
                    for q, val in (("fwd", f), ("bwd", b), ("step", st)):
                        data[q][v][L].append(val)
            if r >= warmup and as_is:
                probes.append(probe())
    return data, short, probes


def framework_costs(*, rounds=20, warmup=3, depths=DEPTHS, width=WIDTH, tokens=TOKENS, log=None,
                    held="interleaved"):
    """Measures and estimates (see the module docstring). Returns what torch_host.host_block
    takes ({"ddp", "hooks", "copy_gbps", "fw_rel_lo", "fw_rel_hi"}) plus "kernel_us", "gpu", "ci",
    "raw" (medians per variant and depth) and "rounds" (every iteration's figures).
    held: "interleaved" (each as-is iteration followed by its held one) or "separate" (the as-is
    rounds, then the held rounds)."""
    if held not in ("interleaved", "separate"):
        raise ValueError("held must be 'interleaved' or 'separate', not %r" % held)
    import torch
    t_start = time.time()
    torch_host.ensure_process_group()
    x = torch.randn(tokens, width, device="cuda")
    runners = {}
    for L in depths:
        torch.manual_seed(L)
        base = _tower(L, width)
        for v in VARIANTS:
            runners[(v, L)] = _Runner(base, v)
        del base
    bprobes = []   # the autograd thread's speed, beside the main thread's, once a round

    def probe():
        bprobes.append(torch_host.bwd_probe())
        return torch_host.host_probe()
    data, short, probes = run_rounds(runners, x, rounds, warmup, held, probe)
    data["P"] = {L: sum(1 for _ in runners[("none", L)].core.parameters()) for L in depths}
    data["nbuf"] = {L: sum(1 for _ in runners[("none", L)].core.buffers()) for L in depths}
    data["B"] = {v: {L: runners[(v, L)].buckets(x) for L in depths} for v in VARIANTS}
    del runners
    torch.cuda.empty_cache()
    est = estimate(data)
    lo, hi, ci = spread(data)
    copy_gbps = torch_host.copy_gbps()
    k_us = kernel_us()
    bytes_per_param = (width * width + 3 * width) * 4 / 4
    out = {"method": "tower", "ddp": est["ddp"], "hooks": est["hooks"], "gpu": est["gpu"],
           "other": est["other"], "copy_gbps": round(copy_gbps, 1), "kernel_us": round(k_us, 3),
           "fw_rel_lo": lo, "fw_rel_hi": hi, "ci": ci,
           "probe_us": round(statistics.median(probes), 4),   # the host's speed meanwhile
           "bwd_probe_us": round(statistics.median(bprobes), 4),   # its autograd thread's
           "raw": {"depths": list(depths), "width": width, "tokens": tokens, "rounds": rounds,
                   "P": data["P"], "nbuf": data["nbuf"], "buckets": data["B"],
                   "bytes_per_param": bytes_per_param, "held_short": short, "held": held,
                   "seconds": round(time.time() - t_start, 1),
                   "probe_us": [round(t, 4) for t in probes],
                   "bwd_probe_us": [round(t, 4) for t in bprobes],
                   "median_us": {q: {"%s/%d" % (v, L): round(statistics.median(data[q][v][L]), 1)
                                     for v in VARIANTS for L in depths} for q in QUANTITIES}},
           "rounds": {q: {"%s/%d" % (v, L): [round(t, 1) for t in data[q][v][L]]
                          for v in VARIANTS for L in depths} for q in QUANTITIES}}
    if log:
        log("tower costs (%.1f s, %d rounds, depths %s, %d held passes short): ddp %s hooks %s "
            "gpu %s kernel %.2f us copy %.0f GB/s fw_rel %.3f/%.3f"
            % (out["raw"]["seconds"], rounds, list(depths), short, est["ddp"], est["hooks"],
               est["gpu"], k_us, copy_gbps, lo, hi))
    return out


# ---- the structure experiment (run 9) --------------------------------------------------------------
# Real steps paid 1.3-1.7x the tower's DDP cost per parameter (run 8) while matching it per bucket.
# Does that cost follow the autograd work around each parameter's hook, or the parameter's size?
# Five synthetic block kinds (none of them a validated model), interleaved in one loop so that the
# host's drift is the same for all, each at three depths; per kind the same lines as estimate().
FAMILIES = {   # name: (depths, what a block is)
    "lin": ((6, 24, 48), "Linear(1024) -> BatchNorm1d -> GELU on 8192 x 1024 (the tower's block)"),
    "lin_ops": ((6, 24, 48), "the same + 5 elementwise autograd nodes (tanh, scale, add, sigmoid, "
                             "mul) on 4096 x 1024 (about the same GPU time a block): the same "
                             "parameters, more host work and graph between their hooks"),
    "lin_small": ((6, 24, 48), "Linear(256) -> BatchNorm1d -> GELU on 65536 x 256 (twice the "
                               "activations, to keep the GPU time): 16x smaller parameters"),
    "conv": ((4, 16, 32), "basic residual block Conv3x3 -> BN -> ReLU -> Conv3x3 -> BN, + x, ReLU; "
                          "32 x 128 x 28 x 28, no biases"),
    "tfm": ((2, 8, 16), "torch.nn.TransformerEncoderLayer(512, 8 heads, 2048, dropout 0, "
                        "batch first), 8 x 512 tokens"),
}
EXP_VARIANTS = ("none", "ddpv_1", "ddp_1", "ddp_pt", "hk_1", "hk_pt")
EXP_QUANTITIES = ("fwd", "bwd", "step")


def family_estimate(data, rounds=None):
    """One block kind's costs from data["P"][L], data["B"][v][L] and data[q][v][L] (per-round
    values, q in EXP_QUANTITIES), as estimate() defines them, plus the framework-free backward's
    own CPU per parameter (bwd_cpu_per_param_us: the slope of "none" on P)."""
    depths = sorted(data["P"], key=int)
    n = len(data["bwd"]["none"][depths[0]])
    rs = list(range(n)) if rounds is None else rounds
    P = [data["P"][L] for L in depths]

    def med(v, L, w=None):
        xa = data["bwd"][v][L]
        xb = data["bwd"][w][L] if w else [0.0] * len(xa)
        return statistics.median(xa[r] - xb[r] for r in rs)

    def extra(a, b):
        return [data["B"][a][L] - data["B"][b][L] for L in depths]

    _, own = ols(P, [med("none", L) for L in depths])
    fin, param = ols(P, [med("ddpv_1", L, "none") for L in depths])
    _, copy_ = ols(P, [med("ddp_1", L, "ddpv_1") for L in depths])
    _, bk = ols(extra("ddp_pt", "ddp_1"), [med("ddp_pt", L, "ddp_1") for L in depths])
    _, hook = ols(P, [med("hk_1", L, "none") for L in depths])
    _, hk_bk = ols(extra("hk_pt", "hk_1"), [med("hk_pt", L, "hk_1") for L in depths])
    r3 = lambda v: round(v, 3)                       # noqa: E731  (signed: nothing clipped here)
    return {"param_us": r3(param), "finalize_us": r3(fin), "copy_us": r3(copy_), "bucket_us": r3(bk),
            "hook_us": r3(hook), "hook_bucket_us": r3(hk_bk), "bwd_cpu_per_param_us": r3(own)}


def family_ci(data, boot=200, seed=1):
    """p5 / p95 of family_estimate() over a bootstrap of rounds."""
    n = len(data["bwd"]["none"][next(iter(data["P"]))])
    rng = random.Random(seed)
    samples = [family_estimate(data, [rng.randrange(n) for _ in range(n)]) for _ in range(boot)]
    return {k: [round(quantile([s[k] for s in samples], 0.05), 3),
                round(quantile([s[k] for s in samples], 0.95), 3)] for k in samples[0]}


def graph_stats(loss):
    """The autograd graph behind loss: nodes other than AccumulateGrad ("nodes") and
    AccumulateGrad nodes ("leaves", one per parameter that gets a gradient). Walks next_functions,
    so anything shaped like torch's grad_fn works (the test uses stand-ins)."""
    seen, stack, leaves = {}, [loss.grad_fn], 0   # id -> node: holds each wrapper, so ids stay unique
    while stack:
        f = stack.pop()
        if f is None or id(f) in seen:
            continue
        seen[id(f)] = f
        leaves += type(f).__name__ == "AccumulateGrad"
        stack.extend(g for g, _ in f.next_functions)
    return {"nodes": len(seen) - leaves, "leaves": leaves}


def _family(name, L):
    """(the model of L blocks of kind name, on the GPU, whose forward returns a scalar loss; its input)."""
    import torch
    nn = torch.nn

    class Ops(nn.Module):      # five elementwise nodes, no parameters
        def forward(self, x):
            return (x + 0.5 * torch.tanh(x)) * torch.sigmoid(x)

    class Basic(nn.Module):    # a ResNet basic block, identity shortcut
        def __init__(self, c):
            super().__init__()
            self.c1, self.b1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
            self.c2, self.b2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)

        def forward(self, x):
            return torch.relu(x + self.b2(self.c2(torch.relu(self.b1(self.c1(x))))))

    if name in ("lin", "lin_ops", "lin_small"):
        d, t = {"lin": (WIDTH, TOKENS), "lin_ops": (WIDTH, TOKENS // 2), "lin_small": (256, 65536)}[name]
        blocks = [nn.Sequential(nn.Linear(d, d), nn.BatchNorm1d(d), nn.GELU(),
                                *([Ops()] if name == "lin_ops" else [])) for _ in range(L)]
        x = torch.randn(t, d, device="cuda")
    elif name == "conv":
        blocks = [Basic(128) for _ in range(L)]
        x = torch.randn(32, 128, 28, 28, device="cuda")
    elif name == "tfm":
        blocks = [nn.TransformerEncoderLayer(512, 8, 2048, dropout=0.0, batch_first=True)
                  for _ in range(L)]
        x = torch.randn(8, 512, 512, device="cuda")
    else:
        raise ValueError("unknown block kind %r" % name)

    class Stack(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList(blocks)

        def forward(self, x):
            for b in self.blocks:
                x = b(x)
            return x.square().mean()

    return Stack().cuda(), x


def structure_experiment(*, rounds=20, warmup=3, families=tuple(FAMILIES), log=None):
    """Every (block kind, variant, depth) one iteration per round, as is (no held pass), in an
    order rotated every round, the host-speed probe once a round; then per kind the costs
    (family_estimate), their bootstrap CI and the graph (graph_stats) at every depth."""
    import torch
    t_start = time.time()
    torch_host.ensure_process_group()
    runners, inputs = {}, {}
    for fam in families:
        for L in FAMILIES[fam][0]:
            torch.manual_seed(L)
            base, inputs[(fam, L)] = _family(fam, L)
            for v in EXP_VARIANTS:
                runners[(fam, v, L)] = _Runner(base, v)
            del base
    keys = list(runners)
    data = {fam: {q: {v: {L: [] for L in FAMILIES[fam][0]} for v in EXP_VARIANTS}
                  for q in EXP_QUANTITIES} for fam in families}
    probes = []
    for r in range(warmup + rounds):
        k0 = (r * 7) % len(keys)
        for k in keys[k0:] + keys[:k0]:
            fam, v, L = k
            f, b, _, st, _, _ = runners[k].step(inputs[(fam, L)], False)
            if r >= warmup:
                for q, val in zip(EXP_QUANTITIES, (f, b, st)):
                    data[fam][q][v][L].append(val)
        if r >= warmup:
            probes.append(torch_host.host_probe())
    out = {"method": "structure", "rounds": rounds, "variants": list(EXP_VARIANTS),
           "probe_us": round(statistics.median(probes), 4), "probe_rounds_us": [round(t, 4) for t in probes],
           "families": {}}
    for fam in families:   # the raw rounds first: a failure below loses only what it computes
        d = data[fam]
        depths = FAMILIES[fam][0]
        out["families"][fam] = f = {
            "what": FAMILIES[fam][1], "depths": list(depths),
            "rounds": {q: {"%s/%d" % (v, L): [round(t, 1) for t in d[q][v][L]]
                           for v in EXP_VARIANTS for L in depths} for q in EXP_QUANTITIES}}
        try:
            d["P"] = {L: sum(1 for _ in runners[(fam, "none", L)].core.parameters()) for L in depths}
            d["B"] = {v: {L: runners[(fam, v, L)].buckets(inputs[(fam, L)]) for L in depths}
                      for v in EXP_VARIANTS}
            f["P"], f["buckets"] = d["P"], d["B"]
            f["graph"] = {}
            for L in depths:
                core = runners[(fam, "none", L)].core
                g = f["graph"][L] = graph_stats(core(inputs[(fam, L)]))
                g["param_bytes"] = sum(p.numel() * p.element_size() for p in core.parameters())
            f["est"], f["ci"] = family_estimate(d), family_ci(d)
            f["median_us"] = {q: {"%s/%d" % (v, L): round(statistics.median(d[q][v][L]), 1)
                                  for v in EXP_VARIANTS for L in depths} for q in EXP_QUANTITIES}
        except Exception as e:
            f["error"] = "%s: %s" % (type(e).__name__, e)
        if log:
            g = f.get("graph", {}).get(depths[-1], {"nodes": 0, "leaves": 0, "param_bytes": 0})
            log("structure %-9s nodes/param %.2f bytes/param %.0f: %s"
                % (fam, g["nodes"] / max(1, g["leaves"]), g["param_bytes"] / max(1, g["leaves"]),
                   f.get("est", f.get("error"))))
    del runners
    torch.cuda.empty_cache()
    out["seconds"] = round(time.time() - t_start, 1)
    if log:
        log("structure experiment: %.1f s, %d rounds, probe %.3f us" % (out["seconds"], rounds, out["probe_us"]))
    return out


# ---- reading the structure experiment --------------------------------------------------------------

def per_param(fam):
    """A kind's regressors from its stored figures: autograd nodes per parameter (the slope of nodes
    on parameters over the depths: the loss's own nodes apart), bytes per parameter, and the
    framework-free backward's CPU per parameter."""
    depths = fam["depths"]
    g = [fam["graph"][str(L)] if str(L) in fam["graph"] else fam["graph"][L] for L in depths]
    _, npp = ols([x["leaves"] for x in g], [x["nodes"] for x in g])
    return {"nodes_per_param": npp, "bytes_per_param": g[-1]["param_bytes"] / g[-1]["leaves"],
            "bwd_cpu_per_param_us": fam["est"]["bwd_cpu_per_param_us"]}


def fit_across(exp, cost, regressor):
    """Least-squares line of one per-parameter cost over the block kinds against one regressor:
    (intercept, slope, r2, [(kind, x, y)])."""
    pts = [(k, per_param(f)[regressor], f["est"][cost]) for k, f in exp["families"].items()
           if "est" in f]
    xs, ys = [p[1] for p in pts], [p[2] for p in pts]
    a, b = ols(xs, ys)
    my = sum(ys) / len(ys)
    sst = sum((y - my) ** 2 for y in ys)
    sse = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys))
    return a, b, (1 - sse / sst) if sst > 0 else 0.0, pts


def probe_tracking(exp):
    """Does the host-speed probe follow the frameworks' cost from round to round? Per round, the
    framework time of every kind's per-tensor variants at the deepest depth (DDP views... as
    spread() pools them: ddp_pt and hk_pt minus none) over its median, averaged; against that
    round's probe over the median probe: (slope, correlation). 1 and high: the probe carries the
    costs' drift."""
    probes = exp["probe_rounds_us"]
    mp = statistics.median(probes)
    per_round = [[] for _ in probes]
    for f in exp["families"].values():
        L = f["depths"][-1]
        none = f["rounds"]["bwd"]["none/%d" % L]
        for v in ("ddp_pt", "hk_pt"):
            d = [a - b for a, b in zip(f["rounds"]["bwd"]["%s/%d" % (v, L)], none)]
            md = statistics.median(d)
            for r, x in enumerate(d):
                per_round[r].append(x / md)
    ys = [sum(x) / len(x) for x in per_round]
    xs = [p / mp for p in probes]
    _, b = ols(xs, ys)
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return b, sxy / (sxx * syy) ** 0.5 if sxx > 0 and syy > 0 else 0.0


def report(run):
    """The structure experiment of a validation run (runs.json) as text lines."""
    exp = run["structure_experiment"]
    out = ["kind       nodes/P  bytes/P  bwd CPU/P | DDP param [p5, p95]    copy   bucket | "
           "hook [p5, p95]      hook bucket | step / host CPU"]
    for k, f in exp["families"].items():
        if "est" not in f:
            out.append("%-10s %s" % (k, f.get("error", "no estimate")))
            continue
        x, e, ci = per_param(f), f["est"], f["ci"]
        L = f["depths"][-1]
        m = f["median_us"]
        ratio = m["step"]["none/%d" % L] / (m["fwd"]["none/%d" % L] + m["bwd"]["none/%d" % L])
        out.append("%-10s %6.2f %8.0f %9.1f | %6.1f [%5.1f, %5.1f] %6.1f %7.1f | %5.1f [%5.1f, %5.1f] %9.1f | %5.2f"
                   % (k, x["nodes_per_param"], x["bytes_per_param"], x["bwd_cpu_per_param_us"],
                      e["param_us"], ci["param_us"][0], ci["param_us"][1], e["copy_us"], e["bucket_us"],
                      e["hook_us"], ci["hook_us"][0], ci["hook_us"][1], e["hook_bucket_us"], ratio))
    for cost in ("param_us", "hook_us", "copy_us", "bucket_us"):
        for reg in ("nodes_per_param", "bwd_cpu_per_param_us", "bytes_per_param"):
            a, b, r2, _ = fit_across(exp, cost, reg)
            out.append("fit %-9s on %-21s: %8.3f + %9.5f x   r2 %.2f" % (cost, reg, a, b, r2))
    b, c = probe_tracking(exp)
    out.append("probe: median %.3f us (p5-p95 %.3f-%.3f); per-round framework cost vs probe: slope %.2f, r %.2f"
               % (exp["probe_us"], quantile(exp["probe_rounds_us"], 0.05),
                  quantile(exp["probe_rounds_us"], 0.95), b, c))
    return out


def _main(path):
    import torch_runs
    r = torch_runs.load(path)
    if "structure_experiment" not in r:
        return bad_input.fail("torch_fwcal", path, "no structure experiment", bad_input.DATAERR)
    print("\n".join(report(r)))


if __name__ == "__main__":
    import sys
    if len(sys.argv) != 2:
        sys.exit("usage: torch_fwcal.py RUNDIR/runs.json[.gz]  (prints the structure experiment)")
    sys.exit(bad_input.run("torch_fwcal", _main, sys.argv[1]))
