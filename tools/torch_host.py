"""torch_host.py: the host side of a PyTorch training step, measured on the machine, for the
workload's "host" block (DESIGN.md; read by sim/fu_workload.c, used by sim/fu_predict.c).

Two parts:
  host_timeline()    for one model: when each gradient's hook fired on the CPU (counted from
                     the backward() call, the capturing hook's own cost removed) and when the
                     gradient was ready on the GPU with the GPU never waiting for the host (all of
                     the step enqueued behind a sleep kernel); the CPU time of forward, backward()
                     and the optimizer step, their GPU-only times, and the run-to-run spread of
                     the step (for the simulator's interval).
  framework_costs()  model-independent microbenchmarks of the frameworks' host costs, on a
                     synthetic chain of small parameters (so the numbers never come from the
                     model being predicted): PyTorch DDP's C++ Reducer (per parameter hook, with
                     and without the copy into the bucket, per bucket communication call for
                     DDP's default all-reduce and for a Python comm hook, the fixed finalize, the
                     per-iteration forward work and per buffer broadcast) and the Python hook
                     pattern (per hook with its copy into a fusion buffer, per bucket event
                     record + stream switch + copy issue), plus device copy bandwidth.

Every figure is the median of interleaved repetitions; costs are differences of backward() CPU
times between variants that differ only in the counted thing. Needs torch with CUDA; DDP parts
need torch.distributed with NCCL (a world of one rank is set up here when none is).
"""
import datetime
import os
import statistics
import time
import weakref

import torch_checks
from quantile import quantile

SCHEMA = 2  # host block version written by this module
# The model's own error (host.jitter.model_rel, which fusim adds to a host timeline's 95% interval
# in quadrature): a relative 95% half-width no input spread carries. 1.96 x the maximum-likelihood
# model_rel_mle (torch_interval) over the rows of the committed one-GPU runs 11-44b (46 runs, 1262
# rows, session 58; 2.34% over runs 11-43's 1214 rows, session 55). The torch bench prints it
# again, "model term from every run's rows", from
#   python3 tests/bench/torch_validation_bench.py build/fusim \
#     $(ls -d data/validation/torch_h*_run* | grep -v x2 | awk -F'run' '$NF+0 >= 11')
# Every capture writes it, so a user's own prediction carries it as the validation's stored rows do.
MODEL_REL = 0.0237


def _med(xs):
    return statistics.median(xs) if xs else 0.0


def host_timeline(model, params, run_fwd, opt, *, iters=20, warmup=3, set_to_none=True):
    """Measures the host timeline of one model. params: [(name, param)] that require grads.
    run_fwd(): the loss. Three passes, interleaved every iteration:
      plain    no hooks: the step's time (CUDA events), CPU time of forward, backward(), opt;
      stamped  hooks that only read the clock (a post-accumulate-grad hook per parameter and a
               forward hook per module that holds parameters), GPU not held: when the host got
               there; the stamps' own cost (stamped minus plain CPU time, per stamp) is removed;
      held     the whole step enqueued behind a sleep kernel, the same hooks recording CUDA
               events: GPU-only times (no kernel waits for its launch).
    Returns a dict (per-name cpu_us / gpu_us, forward points, the step's figures) or raises
    RuntimeError naming a parameter whose hook never fired."""
    import torch

    ev = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731
    names = [n for n, _ in params]
    P = len(params)
    mods = [(n, m) for n, m in model.named_modules()
            if any(True for _ in m.parameters(recurse=False))]

    def zero():
        if opt is not None:
            opt.zero_grad(set_to_none=set_to_none)
        else:
            model.zero_grad(set_to_none=set_to_none)

    mode = {"held": False}
    gstamp, fstamp, gev, fev = {}, {}, {}, {}

    def ghook(name):
        def hook(t):
            if mode["held"]:
                e = torch.cuda.Event(enable_timing=True)
                e.record()
                gev[name] = e
            else:
                gstamp[name] = time.perf_counter()
        return hook

    def fhook(name):
        def hook(m, i, o):
            if mode["held"]:
                e = torch.cuda.Event(enable_timing=True)
                e.record()
                fev[name] = e
            else:
                fstamp.setdefault(name, time.perf_counter())
        return hook

    def step(hooked, held):
        zero()
        gstamp.clear(); fstamp.clear(); gev.clear(); fev.clear()
        mode["held"] = held
        torch.cuda.synchronize()
        a, b, c, d, e = ev(), ev(), ev(), ev(), ev()
        a.record()
        if held:
            torch.cuda._sleep(cycles[0])
        b.record()
        t0 = time.perf_counter()
        loss = run_fwd()
        c.record()
        t1 = time.perf_counter()
        loss.backward()
        t2 = time.perf_counter()
        d.record()
        if opt is not None:
            opt.step()
        e.record()
        t3 = time.perf_counter()
        torch.cuda.synchronize()
        if hooked:
            problem = torch_checks.grad_problem(names, gev if held else gstamp)
            if problem:
                raise RuntimeError(problem)
        return {"t": (t0, t1, t2, t3), "ev": (a, b, c, d, e), "g": dict(gstamp), "f": dict(fstamp),
                "cpu": ((t1 - t0) * 1e6, (t2 - t1) * 1e6, (t3 - t2) * 1e6)}

    cycles = [1]
    plain, stamped, held = [], [], []
    cpu_g = {n: [] for n in names}
    gpu_g = {n: [] for n in names}
    cpu_f = {n: [] for n, _ in mods}
    gpu_f = {n: [] for n, _ in mods}
    short = 0
    handles = []
    try:
        for it in range(warmup + iters):
            for h in handles:
                h.remove()
            handles = []
            r = step(False, False)
            a, _, _, _, e = r["ev"]
            plain_us = a.elapsed_time(e) * 1e3
            cpu_est = sum(r["cpu"])
            cycles[0] = int(max(cpu_est * 3 + 2000, 5000) * 2000)  # ~3x the host time at <= 2 GHz
            handles = [p.register_post_accumulate_grad_hook(ghook(n)) for n, p in params]
            handles += [m.register_forward_hook(fhook(n)) for n, m in mods]
            s = step(True, False)
            t0, t1 = s["t"][0], s["t"][1]
            h = step(True, True)
            a, b, c, d, e = h["ev"]
            if a.elapsed_time(b) * 1e3 < (h["t"][3] - h["t"][0]) * 1e6:
                short += 1
            if it < warmup:
                continue
            plain.append((plain_us,) + r["cpu"])
            stamped.append(s["cpu"])
            held.append((b.elapsed_time(c) * 1e3, c.elapsed_time(d) * 1e3, d.elapsed_time(e) * 1e3))
            for n in names:   # s["g"]: the stamped pass's stamps, copied before the held pass
                cpu_g[n].append((s["g"][n] - t1) * 1e6)
                gpu_g[n].append(c.elapsed_time(gev[n]) * 1e3)
            for n, _ in mods:
                if n in s["f"]:
                    cpu_f[n].append((s["f"][n] - t0) * 1e6)
                if n in fev:
                    gpu_f[n].append(b.elapsed_time(fev[n]) * 1e3)
    finally:
        for h in handles:
            h.remove()
    P_f = max(1, len(mods))
    fwd_plain = _med([p[1] for p in plain])
    cpu_bwd = _med([p[2] for p in plain])
    # The stamps' own cost, spread evenly: stamped minus plain CPU time, per stamp.
    g_cost = max(0.0, (_med([x[1] for x in stamped]) - cpu_bwd) / P)
    f_cost = max(0.0, (_med([x[0] for x in stamped]) - fwd_plain) / P_f)

    def unstamp(d, cost):
        med = {n: _med(v) for n, v in d.items() if v}
        order = sorted(med, key=lambda n: med[n])
        return {n: max(0.0, med[n] - (k + 1) * cost) for k, n in enumerate(order)}, med

    cpu_us, cpu_raw = unstamp(cpu_g, g_cost)
    fcpu, _ = unstamp(cpu_f, f_cost)
    gpu_us = {n: _med(gpu_g[n]) for n in names}
    fwd_points = sorted(({"name": n, "cpu_us": fcpu[n], "gpu_us": _med(gpu_f[n])}
                         for n, _ in mods if n in fcpu and gpu_f[n]), key=lambda x: x["cpu_us"])
    steps = [p[0] for p in plain]
    mstep = _med(steps)
    cpus = [p[2] for p in plain]
    return {
        "cpu_us": cpu_us,
        "cpu_raw_us": cpu_raw,
        "gpu_us": gpu_us,
        "fwd_points": fwd_points,
        "fwd_cpu_us": fwd_plain,
        "bwd_cpu_us": cpu_bwd,
        "opt_cpu_us": _med([p[3] for p in plain]) if opt is not None else 0.0,
        "fwd_gpu_us": _med([x[0] for x in held]),
        "bwd_gpu_us": _med([x[1] for x in held]),
        "opt_gpu_us": _med([x[2] for x in held]) if opt is not None else 0.0,
        "step_us": mstep,
        "step_rel_lo": (quantile(steps, 0.05) - mstep) / mstep if mstep > 0 else 0.0,
        "step_rel_hi": (quantile(steps, 0.95) - mstep) / mstep if mstep > 0 else 0.0,
        "bwd_cpu_rel_lo": (quantile(cpus, 0.05) - cpu_bwd) / cpu_bwd if cpu_bwd else 0.0,
        "bwd_cpu_rel_hi": (quantile(cpus, 0.95) - cpu_bwd) / cpu_bwd if cpu_bwd else 0.0,
        "capture_hook_us": g_cost,
        "capture_fwd_hook_us": f_cost,
        "buffers": sum(1 for _ in model.buffers()),
        "sleep_too_short": short,
    }


# ---- framework microbenchmarks (model-independent) ---------------------------------------------

def same_optimizer(opt, params):
    """A new optimizer of opt's class and settings over params, for the copies of the model that
    torch_modelcost and torch_beside step as the recipe does. Only the settings its constructor
    takes: PyTorch 2.11's AdamW keeps decoupled_weight_decay in its defaults but does not accept
    it (AdamW(params, **opt.defaults) is a TypeError; the copies fell back to SGD or to no
    optimizer until session 37). None for opt None; a constructor that still refuses raises."""
    if opt is None:
        return None
    import inspect
    takes = inspect.signature(type(opt).__init__).parameters
    if any(p.kind == p.VAR_KEYWORD for p in takes.values()):
        settings = dict(opt.defaults)
    else:
        settings = {k: v for k, v in opt.defaults.items() if k in takes}
    return type(opt)(params, **settings)


def ensure_process_group():
    """An NCCL process group, unless one exists: this process's rank of RANK / WORLD_SIZE, on
    the GPU LOCAL_RANK (tools/validate_torch.py --world-size sets them, one process a GPU);
    without them one rank on cuda:0 (world size 1)."""
    import torch
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        return
    rank, world = int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))
    local = int(os.environ.get("LOCAL_RANK", str(rank)))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29531")
    torch.cuda.set_device(local)
    # several ranks: a rank that died leaves the others in a collective; give up after 5 minutes
    kw = {"timeout": datetime.timedelta(seconds=300)} if world > 1 else {}
    dist.init_process_group("nccl", rank=rank, world_size=world,
                            device_id=torch.device("cuda", local), **kw)


def align_ranks():
    """In a world of several ranks, a barrier: every rank starts the next step together, as in a
    real loop after the last step's all-reduce (validate_torch's rounds, and the calibrations'
    steps, so that what they measure at N ranks is measured as the rounds run). Nothing at one
    rank or without a process group."""
    import torch.distributed as dist
    if dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1:
        dist.barrier()


def fewest_ranks(n):
    """The least of a whole number n over the world's ranks (every rank must then take the same
    decision, e.g. how many model copies the GPU memory holds, before collectives that follow it);
    n itself at one rank or without a process group."""
    import torch
    import torch.distributed as dist
    if dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1:
        t = torch.tensor([int(n)], device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MIN)
        return int(t.item())
    return n


def device_ids():
    """DDP's device_ids: this process's GPU (cuda:0 in a world of one)."""
    import torch
    return [torch.cuda.current_device()]


class OffloadState:
    """State of the offload comm hook: a side stream and a pinned host buffer per bucket."""

    def __init__(self):
        import torch
        self.stream = torch.cuda.Stream()
        self.host = {}
        self.record = None   # when a list: the hook appends (index, [param data_ptr]) per bucket
        self.times = None    # when a list: the hook appends its own CPU time per call (ns)


def offload_hook(state, bucket):
    """DDP comm hook: copies the bucket to pinned host memory on a side stream (gradient
    offload over PCIe, as ZeRO-Offload does); the gradients themselves are left as they are."""
    import torch

    t0 = time.perf_counter_ns()
    buf = bucket.buffer()
    if state.record is not None:
        state.record.append((bucket.index(), [p.data_ptr() for p in bucket.parameters()]))
    h = state.host.get(bucket.index())
    if h is None or h.numel() != buf.numel():
        h = torch.empty(buf.numel(), dtype=buf.dtype, pin_memory=True)
        state.host[bucket.index()] = h
    s = state.stream
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        h.copy_(buf, non_blocking=True)
        fut = torch.futures.Future(devices=[buf.device])
        fut.set_result(buf)
    if state.times is not None:
        state.times.append(time.perf_counter_ns() - t0)
    return fut


def record_allreduce_hook(state, bucket):
    """DDP comm hook doing what the default does (all-reduce of the bucket, divided by the world
    size) while noting the bucket's parameters: used once, after the timed runs, to read DDP's
    actual buckets."""
    import torch.distributed as dist

    state.append((bucket.index(), [p.data_ptr() for p in bucket.parameters()]))
    buf = bucket.buffer()
    buf.div_(dist.get_world_size())
    return dist.all_reduce(buf, async_op=True).get_future().then(lambda f: f.value()[0])


class HookFuser:
    """The course text's pattern: Python post-accumulate-grad hooks copy each gradient into a
    fusion buffer (one copy per tensor, on the compute stream); when a bucket is full its
    transfer (offload to pinned host memory) is issued on a side stream after an event; with
    overlap off every transfer is issued after backward(). Buckets follow the order the hooks
    fired in the first step (close a bucket when it reaches cap bytes; cap 0: one per tensor;
    first_cap: the first bucket's cap, as DDP's first bucket has its own; every: close a bucket
    every that many gradients instead, whatever their bytes; issue=False: the hooks and copies
    alone, no bucket ever issued: torch_modelcost's spacing variants)."""

    def __init__(self, params, cap_bytes, overlap=True, first_cap=None, every=None, issue=True):
        import torch
        self.params = params              # [(name, param)]
        self.cap = cap_bytes
        self.first_cap = cap_bytes if first_cap is None else first_cap
        self.overlap = overlap
        self.every = every                # close a bucket every `every` gradients (not by bytes)
        self.issue = issue                # False: the copies into the buffers, no bucket issued
        self.stream = torch.cuda.Stream()
        self.order = []                   # first step: firing order (indices)
        self.ready = False
        self.issue_times = None           # when a list: each issue's own CPU time (ns), in order
        self.handles = [p.register_post_accumulate_grad_hook(self._make(i))
                        for i, (_, p) in enumerate(params)]

    def _make(self, i):
        # The hook holds the fuser weakly. A parameter's post-accumulate-grad hooks are also held
        # from its C++ side, which Python's cycle collector cannot see, so a hook holding the
        # fuser (and through self.params the parameters) was never freed: every fuser kept its
        # parameters, their gradients and its fusion buffers for the rest of the run (runs 31-33:
        # 12 per model, 3 x its parameter bytes each; tests/validate/test_torch_checks.py).
        ref = weakref.ref(self)

        def hook(p):
            f = ref()
            if f is None:   # the fuser is gone: so is the plan it served
                return
            if not f.ready:
                f.order.append(i)
                return
            b = f.bucket_of[i]
            o, n = f.off[i], f.numel[i]
            f.bufs[b][o:o + n].view(p.grad.shape).copy_(p.grad)
            f.count[b] += 1
            f._copied(b)
        return hook

    def _copied(self, b):
        """A gradient of bucket b is in the fusion buffer: issue the bucket once it is full."""
        if self.overlap and self.issue and self.count[b] == self.size[b]:
            self._issue(b)

    def _build(self):
        import torch
        self.bucket_of, self.off, self.numel = {}, {}, {}
        sizes, cur, cur_bytes = [], [], 0
        for i in self.order:
            cur.append(i)
            cur_bytes += self.params[i][1].numel() * self.params[i][1].element_size()
            if (len(cur) >= self.every if self.every else
                    cur_bytes >= (self.cap if sizes else self.first_cap)):
                sizes.append(cur)
                cur, cur_bytes = [], 0
        if cur:
            sizes.append(cur)
        self.buckets = sizes
        self.bufs, self.host, self.size = [], [], []
        for b, members in enumerate(sizes):
            o = 0
            for i in members:
                self.bucket_of[i] = b
                self.off[i] = o
                self.numel[i] = self.params[i][1].numel()
                o += self.numel[i]
            dt = self.params[members[0]][1].dtype
            self.bufs.append(torch.empty(o, dtype=dt, device="cuda"))
            self.host.append(torch.empty(o, dtype=dt, pin_memory=True))
            self.size.append(len(members))
        self.count = [0] * len(sizes)
        self.ready = True

    def _issue(self, b):
        import torch
        t0 = time.perf_counter_ns()
        e = torch.cuda.Event()
        e.record()
        self.stream.wait_event(e)
        with torch.cuda.stream(self.stream):
            self.host[b].copy_(self.bufs[b], non_blocking=True)
        if self.issue_times is not None:
            self.issue_times.append(time.perf_counter_ns() - t0)

    def after_backward(self):
        """Call after backward(): issues what is left (overlap off), then the compute stream
        waits for the transfers, as an optimizer step needs."""
        import torch
        if not self.ready:
            if len(self.order) != len(self.params):
                raise RuntimeError("hook pattern: %d of %d hooks fired"
                                   % (len(self.order), len(self.params)))
            self._build()
            return
        for b in self._left():
            self._issue(b)
        torch.cuda.current_stream().wait_stream(self.stream)
        self.count = [0] * len(self.buckets)

    def _left(self):
        """The buckets issued after backward(): every one with overlap off (none without issues)."""
        return [] if self.overlap or not self.issue else range(len(self.buckets))

    def bucket_names(self):
        return [[self.params[i][0] for i in m] for m in self.buckets]


class FirstIssueFuser(HookFuser):
    """The hook pattern with the model's first ready gradient alone in bucket 0 (a small
    offload) and 25 MiB buckets after it; inside: bucket 0 is issued from its hook, early in
    backward, every other bucket after backward(); not inside: all after backward (the
    baseline: the same hooks, copies and buckets). Each step stamps, by time.perf_counter(),
    t_a (bucket 0 copied, where the issue goes) and t_e (after the issue; t_a when not inside),
    so that backward's work after the issue can be set against the same work without it
    (tools/torch_beside.py: the slowdown after the first in-backward issue)."""

    def __init__(self, params, inside):
        self.inside = inside
        self.t_a = self.t_e = None
        super().__init__(params, 25 * 2**20, overlap=False, first_cap=1)

    def _copied(self, b):
        if b == 0:   # bucket 0 holds one gradient: it is full
            self.t_a = time.perf_counter()
            if self.inside:
                self._issue(0)
            self.t_e = time.perf_counter()

    def _left(self):
        return range(1 if self.inside else 0, len(self.buckets))


_BIAS_NUMEL = 1024   # a "layers" bank's bias: one row of the activation, broadcast over rows


def _bank(n, numel, nbuf, buf_numel=1024, graph="chain"):
    """n parameters. graph "chain": numel elements each, one multiply per parameter (backward: one
    node per gradient). "layers": pairs of a weight (numel) and a bias (_BIAS_NUMEL, broadcast over
    rows), y = gelu(y * w + b) per pair, so that as in a real layer some gradients are small,
    one needs a reduction, and several autograd nodes run between two gradients' hooks."""
    import torch

    class Bank(torch.nn.Module):
        def __init__(self):
            super().__init__()
            if graph == "layers":
                shapes = [(numel,) if k % 2 == 0 else (_BIAS_NUMEL,) for k in range(n)]
            else:
                shapes = [(numel,)] * n
            self.ps = torch.nn.ParameterList(
                [torch.nn.Parameter(torch.full(sh, 1.0 + 1e-3 * k)) for k, sh in enumerate(shapes)])
            for k in range(nbuf):
                self.register_buffer("buf%d" % k, torch.zeros(buf_numel))

        def forward(self, x):
            y = x
            if graph == "layers":
                y = y.view(-1, _BIAS_NUMEL)
                for w, b in zip(self.ps[0::2], self.ps[1::2]):
                    y = torch.nn.functional.gelu(y * w.view(-1, _BIAS_NUMEL) + b)
                return y.sum()
            for p in self.ps:
                y = y * p
            return y.sum()

    return Bank().cuda()


def framework_costs(*, iters=30, numel=262144, sizes=(32, 128), nbuf=128, buf_numel=1024,
                    busy_us=20000, graph="chain"):
    """Model-independent host costs of DDP and of the hook pattern (see the module docstring).
    numel: elements per parameter; busy_us > 0 keeps the GPU busy that long (a sleep kernel)
    before each forward, so the host runs ahead of a busy device as in a real step. The defaults
    (1 MiB parameters, a busy GPU) are the conditions of a real step: with 4 KiB parameters on
    an idle GPU the costs came out 1.3-2x below what real models paid on the H200
    (data/validation/README.md, torch_h200_fwcost_probe.jsonl). Buffers are 4 KiB each (128 of
    them; before run 5: 32 of 1 MiB), the size of a BatchNorm layer's running statistics, which
    are what real models broadcast. On one lease both sizes gave 11-12 us per buffer
    (torch_h200_run5/fwcost_probe_buffers.jsonl), so the size is not what moved the figure
    (21-51 us in runs 2-4); real ResNet forwards paid 14-26 us per buffer.
    Returns {"ddp": {...}, "hooks": {...}, "copy_gbps": x, "raw": {...}}."""
    import torch
    from torch.nn.parallel import DistributedDataParallel as DDP

    ensure_process_group()
    x = torch.ones(numel, device="cuda")

    def variant(kind, n, cap_mb, view=False, buffers=0):
        m = _bank(n, numel, buffers, buf_numel, graph)
        fuser = None
        if kind in ("ddp", "ddp_off"):
            m = DDP(m, device_ids=device_ids(), bucket_cap_mb=cap_mb, gradient_as_bucket_view=view,
                    broadcast_buffers=True)
            if kind == "ddp_off":
                m.register_comm_hook(OffloadState(), offload_hook)
        elif kind == "hooks":
            fuser = HookFuser(list(m.named_parameters()), int(cap_mb * 2**20))
        elif kind == "noop":
            for p in m.parameters():
                p.register_post_accumulate_grad_hook(lambda t: None)
        return m, fuser

    def one(m, fuser):
        m.zero_grad(set_to_none=False)
        torch.cuda.synchronize()
        if busy_us > 0:
            torch.cuda._sleep(int(busy_us * 2000))
        t0 = time.perf_counter()
        loss = m(x)
        t1 = time.perf_counter()
        loss.backward()
        if fuser is not None:
            fuser.after_backward()
        t2 = time.perf_counter()
        torch.cuda.synchronize()
        return (t1 - t0) * 1e6, (t2 - t1) * 1e6

    tiny, huge = 1e-9, 1e4   # MiB: one bucket per tensor / one bucket for all
    specs = {}
    for n in sizes:
        specs.update({
            ("plain", n): ("plain", n, 0, False, 0),
            ("plain_buf", n): ("plain", n, 0, False, nbuf),
            ("ddp_1", n): ("ddp", n, huge, False, 0),
            ("ddp_pt", n): ("ddp", n, tiny, False, 0),
            ("ddpv_1", n): ("ddp", n, huge, True, 0),
            ("ddpv_pt", n): ("ddp", n, tiny, True, 0),
            ("ddp_buf", n): ("ddp", n, huge, True, nbuf),
            ("off_1", n): ("ddp_off", n, huge, False, 0),
            ("off_pt", n): ("ddp_off", n, tiny, False, 0),
            ("hk_1", n): ("hooks", n, huge, False, 0),
            ("hk_pt", n): ("hooks", n, tiny, False, 0),
            ("noop", n): ("noop", n, 0, False, 0),
        })
    models = {k: variant(*v[:1], v[1], v[2], v[3], v[4]) for k, v in specs.items()}
    fw = {k: [] for k in specs}
    bw = {k: [] for k in specs}
    for r in range(iters + 3):
        for k, (m, fz) in models.items():
            f, b = one(m, fz)
            if r >= 3:
                fw[k].append(f)
                bw[k].append(b)
    B = {k: _med(v) for k, v in bw.items()}
    # The costs' own spread: each round's framework time (per-tensor variants minus plain, same
    # round) over its median, pooled over the variants and sizes; p5 / p95 minus 1. It sets the
    # framework costs' share of the 95% interval (jitter.fw_rel_lo / fw_rel_hi).
    ratios = []
    for kind in ("ddp_pt", "ddpv_pt", "off_pt", "hk_pt"):
        for n in sizes:
            d = [a - b for a, b in zip(bw[(kind, n)], bw[("plain", n)])]
            md = _med(d)
            if md > 0:
                ratios += [x / md for x in d]
    fw_rel_lo = min(0.0, quantile(ratios, 0.05) - 1) if ratios else 0.0
    fw_rel_hi = max(0.0, quantile(ratios, 0.95) - 1) if ratios else 0.0
    F = {k: _med(v) for k, v in fw.items()}
    lo, hi = sizes[0], sizes[-1]
    dn = hi - lo

    def per_param(key):   # slope over the two sizes, one bucket: cost per parameter
        return ((B[(key, hi)] - B[("plain", hi)]) - (B[(key, lo)] - B[("plain", lo)])) / dn

    def per_bucket(k1, kpt):   # per-tensor buckets minus one bucket, per extra bucket
        return _med([(B[(kpt, n)] - B[(k1, n)]) / (n - 1) for n in sizes])

    def fixed(key, a, b):   # what is left at the large size: per-iteration (finalize) work
        return B[(key, hi)] - B[("plain", hi)] - hi * a - b

    ddp_b = per_bucket("ddp_1", "ddp_pt")
    ddpv_b = per_bucket("ddpv_1", "ddpv_pt")
    off_b = per_bucket("off_1", "off_pt")
    ddp_a = per_param("ddp_1")
    ddpv_a = per_param("ddpv_1")
    hk_b = per_bucket("hk_1", "hk_pt")
    hk_a = per_param("hk_1")
    noop_a = per_param("noop")
    ddp = {
        "param_us": round(max(0.0, ddpv_a), 3),                 # hook, gradient in a bucket view
        "copy_us": round(max(0.0, ddp_a - ddpv_a), 3),           # + copy in and back (copy mode)
        "bucket_us": round(max(0.0, 0.5 * (ddp_b + ddpv_b)), 3),  # default NCCL all-reduce call
        "hook_bucket_us": round(max(0.0, off_b), 3),             # Python comm hook (offload) call
        "finalize_us": round(max(0.0, fixed("ddpv_1", ddpv_a, ddpv_b)), 3),
        "forward_us": round(max(0.0, F[("ddp_1", hi)] - F[("plain", hi)]), 3),
        "buffer_us": round(max(0.0, (F[("ddp_buf", hi)] - F[("ddpv_1", hi)]
                                     - (F[("plain_buf", hi)] - F[("plain", hi)])) / nbuf), 3),
    }
    hooks = {
        "hook_us": round(max(0.0, hk_a), 3),        # Python hook + copy into the fusion buffer
        "bucket_us": round(max(0.0, hk_b), 3),      # event record, stream switch, copy issue
        "noop_hook_us": round(max(0.0, noop_a), 3),
    }
    gbps = copy_gbps()
    del models
    return {"ddp": ddp, "hooks": hooks, "copy_gbps": round(gbps, 1),
            "fw_rel_lo": round(max(-1.0, fw_rel_lo), 4), "fw_rel_hi": round(min(10.0, fw_rel_hi), 4),
            "raw": {"bwd_cpu_us": {"%s/%d" % k: round(v, 1) for k, v in B.items()},
                    "fwd_cpu_us": {"%s/%d" % k: round(v, 1) for k, v in F.items()},
                    "sizes": list(sizes), "numel": numel, "iters": iters, "busy_us": busy_us}}


def copy_gbps():
    """Device copy bandwidth, for copies on the compute stream: bytes of a 256 MiB tensor copied
    (read + write) per second / 1e9, median of 5."""
    import torch

    a = torch.empty(64 * 2**20, device="cuda")
    b = torch.empty_like(a)
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(5):
        e0.record()
        b.copy_(a)
        e1.record()
        torch.cuda.synchronize()
        ts.append(e0.elapsed_time(e1) * 1e3)
    return a.numel() * a.element_size() / _med(ts) / 1e3


def host_probe(n=200):
    """The host's speed now: CPU time per launch of n small (4 KiB) copies enqueued on a GPU held
    by a sleep kernel (so no launch waits for the GPU), in us. Framework costs are mostly such
    launches and their dispatch; run in every round of the calibration and of the validation
    loops, the ratio of two medians carries costs measured in one to the other."""
    import torch

    if not hasattr(host_probe, "bufs"):
        host_probe.bufs = ([torch.ones(1024, device="cuda") for _ in range(n)],
                           [torch.empty(1024, device="cuda") for _ in range(n)])
    a, b = host_probe.bufs
    torch.cuda.synchronize()
    torch.cuda._sleep(int(5000 * 2000))   # 5 ms: longer than n launches
    t0 = time.perf_counter()
    for s, d in zip(a, b):
        d.copy_(s)
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) * 1e6 / len(a)


def cpu_model():
    """The host CPU's model name (/proc/cpuinfo), '' where unknown: host costs measured on one
    CPU model need not carry to another by a probe's ratio."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def bwd_probe(n=200):
    """host_probe() on the autograd engine's thread: the CPU time per launch of n small (4 KiB)
    copies enqueued from inside a backward pass (a custom Function's backward, run by the engine's
    device thread, where backward's own launches, DDP's Reducer and every gradient hook run), on a
    GPU held by a sleep kernel, in us. That thread's speed varies apart from the main thread's
    (forward's CPU time follows the optimizer's round by round, not backward()'s), so the costs paid
    in backward are carried by this probe, those of forward by host_probe()."""
    import torch

    if not hasattr(bwd_probe, "fn"):
        bufs = ([torch.ones(1024, device="cuda") for _ in range(n)],
                [torch.empty(1024, device="cuda") for _ in range(n)])
        took = []

        class Launches(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.clone()

            @staticmethod
            def backward(ctx, g):
                t0 = time.perf_counter()
                for s, d in zip(*bufs):
                    d.copy_(s)
                took.append((time.perf_counter() - t0) * 1e6 / n)
                return g

        bwd_probe.fn, bwd_probe.took = Launches.apply, took
    x = torch.ones(16, device="cuda", requires_grad=True)
    torch.cuda.synchronize()
    torch.cuda._sleep(int(5000 * 2000))   # 5 ms: longer than n launches
    bwd_probe.fn(x).sum().backward()
    torch.cuda.synchronize()
    return bwd_probe.took.pop()


def host_block(tl, fw, order_names):
    """The workload's host block (version 2) from host_timeline() and framework_costs();
    order_names: the grads' order in the workload."""
    blk = {
        "version": SCHEMA,
        "fwd_cpu_us": round(tl["fwd_cpu_us"], 1),
        "bwd_cpu_us": round(tl["bwd_cpu_us"], 1),
        "opt_cpu_us": round(tl["opt_cpu_us"], 1),
        "fwd_gpu_us": round(tl["fwd_gpu_us"], 1),
        "bwd_gpu_us": round(tl["bwd_gpu_us"], 1),
        "opt_gpu_us": round(tl["opt_gpu_us"], 1),
        "buffers": tl["buffers"],
        "fwd_points": [[round(f["cpu_us"], 1), round(min(f["gpu_us"], tl["fwd_gpu_us"]), 1)]
                       for f in tl["fwd_points"]],
        "grad_cpu_us": [round(tl["cpu_us"][n], 1) for n in order_names],
        "grad_gpu_us": [round(min(tl["gpu_us"][n], tl["bwd_gpu_us"]), 1) for n in order_names],
        "jitter": {"step_rel_lo": round(tl["step_rel_lo"], 4),
                   "step_rel_hi": round(tl["step_rel_hi"], 4),
                   "host_rel_lo": round(tl["bwd_cpu_rel_lo"], 4),
                   "host_rel_hi": round(tl["bwd_cpu_rel_hi"], 4),
                   "model_rel": MODEL_REL},
    }
    if fw is not None:
        blk["copy_gbps"] = fw["copy_gbps"]
        if "kernel_us" in fw:   # GPU time of one small kernel (tools/torch_fwcal.py)
            blk["kernel_us"] = fw["kernel_us"]
        blk["ddp"] = dict(fw["ddp"])       # copies: one calibration serves every model
        bcast = (fw.get("other") or {}).get("broadcast_fixed_us")
        if bcast is not None:   # the buffer broadcast's fixed part (torch_fwcal's intercept)
            blk["ddp"]["broadcast_us"] = round(max(0.0, bcast), 3)
        blk["hooks"] = dict(fw["hooks"])
        if "fw_rel_lo" in fw:   # the microbenchmark's own spread (absent in older runs)
            blk["jitter"]["fw_rel_lo"] = fw["fw_rel_lo"]
            blk["jitter"]["fw_rel_hi"] = fw["fw_rel_hi"]
    return blk
