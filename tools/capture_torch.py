#!/usr/bin/env python3
"""capture_torch.py: measure a PyTorch model's training step on a GPU and write it as a
fusim-workload-1 file (DESIGN.md): forward, backward and optimizer times, and every gradient's
size and ready time, plus the framework's host-side costs.

How each number is measured (CUDA events; every iteration starts from an idle GPU):
  fwd_us, bwd_us, opt_us  a pass WITHOUT hooks: events before forward, between forward and
                          backward, after backward and after the optimizer step; medians.
  grads[].ready_us        a step with a post-accumulate-grad hook on every parameter
                          (Tensor.register_post_accumulate_grad_hook) that records a CUDA event
                          on the current stream, after each step without hooks (since
                          2026-12-04n; before, a pass of its own after them); ready = event -
                          backward start, median per tensor. The hooks add host time, so the
                          ready times are scaled by bwd(no hooks) / bwd(hooked), either way, and
                          kept <= bwd_us; the raw hooked backward, the hooked steps' own curve
                          (ready_hooked_us) and the hooks' host cost a gradient (ready_hook_us:
                          backward()'s CPU time with them minus without) are kept in meta, for
                          comparing the curve with a hooked step's estimate. Interleaved,
                          the two share the host's speed, which moves in levels of up to 1.7x
                          lasting seconds: a pass of its own ran 0.4-1.6x the plain steps' length
                          and, scaled, compressed the GPU-paced start of a partly host-bound
                          backward.
  hook_us                 host cost of one gradient-ready callback: host wall time
                          (time.perf_counter) of the backward() call with a hook that does
                          nothing on every parameter minus without hooks, divided by the number
                          of parameters (medians, interleaved).
  issue_us                host cost of one communication operation issued from Python: the host
                          wall time of issuing an async device-to-host copy (tensor.copy_(...,
                          non_blocking=True) into pinned memory), per copy, over 256 copies.
  launch-bound            backward's pure GPU time against bwd_us (kept in meta).
  launches                the step's launches in forward, backward() and the optimizer
                          (tools/torch_launchq.py, meta.launches; store_torch_validation puts
                          them with the run's queue depth into host.launches / host.queue_depth:
                          the host blocks once about 1021 launches are pending).
  host block              always written (--host never leaves it out): tools/torch_host.py
                          measures per gradient when its hook fired on the CPU and when it was
                          ready on the GPU with the GPU never waiting for the host, the CPU and
                          GPU-only times of forward, backward() and the optimizer, the step's
                          run-to-run spread, and the frameworks' host costs (DDP's Reducer, the
                          Python hook pattern) from model-independent microbenchmarks, with
                          the per-parameter ones (ddp.param_us, ddp.copy_us, hooks.hook_us)
                          measured on the model itself (tools/torch_modelcost.py; the
                          model-independent ones kept in meta.framework_on_model). Older
                          workloads' {"hook_us", "issue_us"} blocks still load (read as ideal).

Models: resnet50 (torchvision, weights=None: random init, no download), bert_large
(transformers BertForMaskedLM from a BertConfig, random init), or any factory
"package.module:function" returning (model, inputs, loss_fn, optimizer_or_None) for a batch size:
    def factory(batch, device): ... return model, inputs, lambda m, x: m(x).sum(), None

Example (on the GPU machine):
    python3 tools/capture_torch.py --model resnet50 --batch 64 --out data/workloads/resnet50_captured.json
    python3 tools/capture_torch.py --model bert_large --batch 8 --seq 512 --out data/workloads/bert_large_captured.json
"""
import argparse
import importlib
import json
import os
import statistics
import sys
import time

import torch_checks


def _die(msg, status=65):
    print("capture_torch: " + msg, file=sys.stderr)
    sys.exit(status)


class _ArgParser(argparse.ArgumentParser):
    """argparse with the project's usage exit status (64, EX_USAGE) in place of 2, one line."""

    def error(self, message):
        _die("%s (see --help)" % message, 64)


def grad_entry(name, p, ready_us):
    """A gradient of the workload: its size and element type are its parameter's (autograd gives a
    gradient its parameter's dtype; DDP buckets by it, so bf16 weights beside fp32 norms make two
    bucket sequences). The type as fusim spells it: torch.bfloat16 -> "bfloat16"."""
    return {"name": name, "bytes": p.numel() * p.element_size(), "ready_us": round(ready_us, 1),
            "dtype": str(p.dtype).replace("torch.", "")}


def build_resnet50(batch, device, channels_last=True, depth=50):
    """torchvision ResNet-50 (or -101 / -152: depth) with SGD momentum, channels-last (else
    PyTorch's default NCHW, as a loop that never asks for channels-last runs it)."""
    import torch
    import torchvision

    model = getattr(torchvision.models, "resnet%d" % depth)(weights=None).to(device)
    x = torch.randn(batch, 3, 224, 224, device=device)
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (batch,), device=device)
    crit = torch.nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return model, (x, y), (lambda m, inp: crit(m(inp[0]), inp[1])), opt


def build_bert_large(batch, device, seq=512):
    import torch
    from transformers import BertConfig, BertForMaskedLM

    cfg = BertConfig(vocab_size=30522, hidden_size=1024, num_hidden_layers=24,
                     num_attention_heads=16, intermediate_size=4096, max_position_embeddings=512,
                     type_vocab_size=2)
    try:
        cfg._attn_implementation = "sdpa"
    except Exception:  # older transformers: the default attention
        pass
    model = BertForMaskedLM(cfg).to(device)
    ids = torch.randint(0, cfg.vocab_size, (batch, seq), device=device)
    labels = ids.clone()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    return model, (ids, labels), (lambda m, inp: m(input_ids=inp[0], labels=inp[1]).loss), opt


def build(name, batch, device, seq, channels_last=True):
    if name == "resnet50":
        return build_resnet50(batch, device, channels_last)
    if name == "bert_large":
        return build_bert_large(batch, device, seq)
    if user_model_name(name):
        try:
            builder = load_builder(name)
        except ValueError as e:
            _die(str(e), 64)
        r = builder(batch, device)   # its own errors with their traceback, as validate_torch's
        if len(r) == 3:
            r = tuple(r) + (None,)
        return r
    _die("unknown model '%s' (resnet50, bert_large or package.module:function)" % name, 64)


def user_model_name(name):
    """Whether name is a model of the user's own: package.module:function, both parts given."""
    mod, colon, fn = name.partition(":")
    return bool(colon and mod and fn and ":" not in fn)


def load_builder(name):
    """The builder of a model of the user's own, name "package.module:function", its module found
    on sys.path (PYTHONPATH, tools/, or the current directory, as validate_torch looks). Raises
    ValueError, one line, where the module or the function cannot be loaded."""
    mod, _, fn = name.partition(":")
    if os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    try:
        return getattr(importlib.import_module(mod), fn)
    except (ImportError, AttributeError, ValueError) as e:
        raise ValueError("cannot load the model builder %s (%s: %s)" % (name, type(e).__name__, e))


class _ReadyHooks:
    """Post-accumulate-grad hooks that record a CUDA event per parameter, on while in a `with`
    block. The events are made once, outside the steps; each hook still costs the host 19-33 us
    (meta.ready_hook_us on 2026-12-04n), which `fusim workload --ready-hook-us` prices."""

    def __init__(self, torch, params):
        self.params = params
        self.events = {n: torch.cuda.Event(enable_timing=True) for n, _ in params}
        self.fired = {}
        self.handles = []

    def _hook(self, name):
        e = self.events[name]

        def hook(t):
            e.record()
            self.fired[name] = e
        return hook

    def __enter__(self):
        self.fired = {}
        self.handles = [p.register_post_accumulate_grad_hook(self._hook(n)) for n, p in self.params]
        return self

    def __exit__(self, *exc):
        for h in self.handles:
            h.remove()
        self.handles = []
        return False


def capture(model, inputs, loss_fn, opt, *, iters=20, warmup=5, amp="bf16", host="always",
            name="model", notes="", meta=None, framework=None, set_to_none=True,
            model_cost_rounds=16, beside_rounds=0, log=None, host_ref=None,
            first_issue_rounds=0, model_cost_buckets=False, ready_separate=False,
            model_cost_spacing=False, model_cost_spacing_every=(4, 16), model_cost_cold=True):
    """Measures one model and returns the workload as a dict (fusim-workload-1).
    framework: torch_host.framework_costs() (measured once per machine; None: measured here
    when host is not "never"); set_to_none: how the step clears gradients; model_cost_rounds:
    rounds of torch_modelcost.measure() (the frameworks' per-parameter costs on this model, in
    place of the model-independent ones; 0: none); beside_rounds: rounds of
    torch_beside.measure() (what an offload costs the model's step: compute beside it, the host
    beside it and offloads issued inside backward; 0: not measured); first_issue_rounds: its
    rounds of the first in-backward issue (the slowdown after it; 0: none); model_cost_buckets:
    torch_modelcost's per-bucket variants too (DDP's and the hook pattern's bucket costs on the
    model); model_cost_spacing: with model_cost_buckets, torch_modelcost's spacing variants
    (the in-backward issue's cost against the host work between issues,
    meta.framework_on_model.issue_spacing and the host block's issue_spacing curves);
    model_cost_spacing_every: their buckets' sizes in gradients (torch_modelcost.spacing_names);
    model_cost_cold: torch_modelcost's cache-flushed second step of every variant (an experiment
    no cost is taken from; False: each round takes about half the time);
    log(msg): progress lines;
    host_ref: a reference step (tools/host_ref.maker) timed 3 times before the timed steps, after
    each and 3 times after, as the probes are (meta.host_ref: its medians, which
    `fusim workload --host-ref-fwd/--host-ref-bwd` take); ready_separate: also time the ready
    curve as before 2026-12-04n, in a hooked pass of its own (meta.ready_separate)."""
    import torch

    dev = torch.device("cuda")
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(amp)
    # "tf32": fp32 training with TF32 matrix products (cuBLAS and cuDNN), no autocast
    torch.backends.cuda.matmul.allow_tf32 = amp == "tf32"
    torch.backends.cudnn.allow_tf32 = amp in ("tf32", "bf16", "fp16", "none")
    params = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    problem = torch_checks.grad_problem([n for n, _ in params])
    if problem:
        _die(problem)
    model.train()

    def fwd():
        if dtype is not None:
            with torch.autocast("cuda", dtype=dtype):
                return loss_fn(model, inputs)
        return loss_fn(model, inputs)

    ev = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731

    def step(events=None, cpu=None, cpu_fwd=None, cpu_opt=None):
        """One training step; returns (fwd_us, bwd_us, opt_us) from CUDA events."""
        model.zero_grad(set_to_none=set_to_none)
        torch.cuda.synchronize()
        e0, e1, e2, e3 = ev(), ev(), ev(), ev()
        e0.record()
        tf = time.perf_counter()
        loss = fwd()
        if cpu_fwd is not None:
            cpu_fwd.append((time.perf_counter() - tf) * 1e6)
        e1.record()
        if events is not None:
            events["bwd_start"] = e1
        t0 = time.perf_counter()
        loss.backward()
        t1 = time.perf_counter()
        e2.record()
        if opt is not None:
            opt.step()
        t2 = time.perf_counter()
        e3.record()
        torch.cuda.synchronize()
        if cpu_opt is not None:
            cpu_opt.append((t2 - t1) * 1e6)
        if cpu is not None:
            cpu.append((t1 - t0) * 1e6)
        return (e0.elapsed_time(e1) * 1e3, e1.elapsed_time(e2) * 1e3, e2.elapsed_time(e3) * 1e3)

    for _ in range(warmup):
        step()

    # 1. No hooks: the times the workload states, and the CPU time of backward(); the device
    #    memory in use between steps (parameters, optimizer state) and the peak over the steps.
    #    The host-speed probe (torch_host.host_probe) before, between the steps and after: host
    #    costs measured at another time can be carried to this step's host speed. Between the
    #    steps (after each step's events, before the next step's synchronize) because the host's
    #    speed moves within a capture: on 2026-12-04 the probes after the steps read up to 1.76x
    #    those before (data/compute/README.md).
    import torch_host
    plain, cpu_plain, cpu_fwd, cpu_opt = [], [], [], []
    probes = [torch_host.host_probe() for _ in range(3)]
    # the autograd thread's speed too: backward's launches run there, and its host cost per
    # layer moved 1.5x apart from forward's (and the main thread's probe) between leases
    # (data/compute/README.md, 2026-12-04g)
    bprobes = [torch_host.bwd_probe() for _ in range(3)]
    refs = [host_ref() for _ in range(3)] if host_ref else []
    torch.cuda.synchronize()
    # the reference step's model stays on the device: not the captured model's memory
    ref_bytes = getattr(host_ref, "resident_bytes", 0) if host_ref else 0
    mem_between = torch.cuda.memory_allocated() - ref_bytes
    mem_peak = 0
    # The ready times come from a hooked step after each plain one (3. below): the host's speed
    # moves in levels of up to 1.7x lasting seconds, so a hooked pass run on its own, after the
    # plain steps, ran at another speed (bwd_hooked / bwd 0.4-1.6x on 2026-12-04) and scaling
    # its curve to bwd_us also compressed the GPU-paced part of a partly host-bound backward
    # (data/compute/README.md, 2026-12-04n).
    ready = {n: [] for n, _ in params}
    hooked_bwd, cpu_hooked = [], []
    hooked = _ReadyHooks(torch, params)
    for i in range(warmup + iters):
        if i >= warmup:
            torch.cuda.reset_peak_memory_stats()  # each step's peak, read before the reference runs
            plain.append(step(cpu=cpu_plain, cpu_fwd=cpu_fwd, cpu_opt=cpu_opt))
            mem_peak = max(mem_peak, torch.cuda.max_memory_allocated() - ref_bytes)
            probes.append(torch_host.host_probe())
            bprobes.append(torch_host.bwd_probe())
            if host_ref:
                refs.append(host_ref())
        # 3. Ready times: a hook per parameter records an event where its gradient is
        #    accumulated (events made once: the hook only records); the warm-up rounds warm the
        #    hooked step alone
        evs = {}
        with hooked:
            _, b, _ = step(events=evs, cpu=cpu_hooked if i >= warmup else None)
        if i < warmup:
            continue
        problem = torch_checks.grad_problem([n for n, _ in params], hooked.fired)
        if problem:
            _die(problem)
        hooked_bwd.append(b)
        for n, _ in params:
            ready[n].append(evs["bwd_start"].elapsed_time(hooked.events[n]) * 1e3)
    probes += [torch_host.host_probe() for _ in range(3)]
    bprobes += [torch_host.bwd_probe() for _ in range(3)]
    refs += [host_ref() for _ in range(3)] if host_ref else []
    fwd_us = statistics.median(t[0] for t in plain)
    bwd_us = statistics.median(t[1] for t in plain)
    opt_us = statistics.median(t[2] for t in plain) if opt is not None else 0.0

    # 2. Host cost of a hook that does nothing: backward() CPU time with and without, interleaved.
    cpu_noop, cpu_none = [], []
    handles = [p.register_post_accumulate_grad_hook(lambda t: None) for _, p in params]
    for _ in range(warmup):
        step()
    for h in handles:
        h.remove()
    for _ in range(iters):
        handles = [p.register_post_accumulate_grad_hook(lambda t: None) for _, p in params]
        step(cpu=cpu_noop)
        for h in handles:
            h.remove()
        step(cpu=cpu_none)
    hook_us = max(0.0, (statistics.median(cpu_noop) - statistics.median(cpu_none)) / len(params))

    hooked_bwd_us = statistics.median(hooked_bwd)
    # the ready curve at the plain steps' backward length (hook costs only, the host's phase
    # being shared), whichever ran faster
    scale = bwd_us / hooked_bwd_us if hooked_bwd_us > 0 else 1.0
    separate = None
    if ready_separate:   # the protocol before 2026-12-04n, for comparison: a hooked pass on its
        sep, sep_bwd = {n: [] for n, _ in params}, []   # own, a new event made in each hook
        cur = {}

        def make_hook(pname):
            def hook(t):
                e = torch.cuda.Event(enable_timing=True)
                e.record()
                cur[pname] = e
            return hook
        handles = [p.register_post_accumulate_grad_hook(make_hook(n)) for n, p in params]
        for i in range(warmup + iters):
            cur.clear()
            evs = {}
            _, b, _ = step(events=evs)
            if i >= warmup and not torch_checks.grad_problem([n for n, _ in params], cur):
                sep_bwd.append(b)
                for n, _ in params:
                    sep[n].append(evs["bwd_start"].elapsed_time(cur[n]) * 1e3)
        for h in handles:
            h.remove()
        if sep_bwd:
            k = bwd_us / statistics.median(sep_bwd)
            separate = {"bwd_hooked_us": round(statistics.median(sep_bwd), 1), "ready_scale": round(k, 5),
                        "ready_us": {n: round(min(statistics.median(v) * k, bwd_us), 1) for n, v in sep.items()}}

    # 4. Host cost of issuing one async D2H copy from Python (as an offload hook would).
    src = [torch.empty(1024, device=dev) for _ in range(256)]
    dst = [torch.empty(1024, pin_memory=True) for _ in range(256)]
    per = []
    for r in range(iters + 3):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for s, d in zip(src, dst):
            d.copy_(s, non_blocking=True)
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        if r >= 3:
            per.append((t1 - t0) * 1e6 / len(src))
    issue_us = statistics.median(per)

    # 5. Pure GPU time of backward: enqueued behind a sleep kernel long enough for the host to
    #    launch all of it first (checked: the sleep must outlast the backward() call).
    cpu_bwd_us = statistics.median(cpu_plain)
    cycles = int(max(cpu_bwd_us, bwd_us) * 3 * 2000)   # ~3x the time at up to 2 GHz
    pure, short, pure_opt = [], 0, []
    for _ in range(7):
        model.zero_grad(set_to_none=set_to_none)
        loss = fwd()
        torch.cuda.synchronize()
        a, b, c = ev(), ev(), ev()
        a.record()
        torch.cuda._sleep(cycles)
        b.record()
        t0 = time.perf_counter()
        loss.backward()
        t1 = time.perf_counter()
        c.record()
        torch.cuda.synchronize()
        if a.elapsed_time(b) * 1e3 < (t1 - t0) * 1e6:
            short += 1
        pure.append(b.elapsed_time(c) * 1e3)
        if opt is not None:   # the optimizer step's device time alone, the same way
            a, b, c = ev(), ev(), ev()
            a.record()
            torch.cuda._sleep(int(max(statistics.median(cpu_opt), opt_us) * 3 * 2000))
            b.record()
            opt.step()
            c.record()
            torch.cuda.synchronize()
            pure_opt.append(b.elapsed_time(c) * 1e3)
    pure_bwd_us = statistics.median(pure)
    launch_bound = pure_bwd_us < 0.9 * bwd_us
    write_host = host != "never"
    if write_host:   # the host side, always (issue 10): timeline + framework costs
        import torch_host
        try:
            tl = torch_host.host_timeline(model, params, fwd, opt, iters=iters, warmup=2,
                                          set_to_none=set_to_none)
        except RuntimeError as e:   # a hook that never fired: one line, nothing written
            _die(str(e))
        if framework is None:
            framework = torch_host.framework_costs()
        def run_loss(m):
            if dtype is not None:
                with torch.autocast("cuda", dtype=dtype):
                    return loss_fn(m, inputs)
            return loss_fn(m, inputs)
        # The step's launches per phase (torch_launchq): the host blocks once 1021 are pending on
        # the H200; kept in meta, store_torch_validation moves them into the host block.
        launches = None
        try:
            import torch_launchq
            launches = torch_launchq.phase_launches(model, run_loss, opt)
        except Exception as e:   # a count for later use: the capture stands without it
            print("capture_torch: launches not counted (%s: %s)" % (type(e).__name__, e),
                  file=sys.stderr)
        fw_model = None
        if model_cost_rounds > 0:
            import torch_modelcost
            fixed = {"finalize_us": framework["ddp"]["finalize_us"],
                     "hooks_bucket_us": framework["hooks"]["bucket_us"]}
            try:
                fw_model = torch_modelcost.measure(model, run_loss, opt, fixed,
                                                   rounds=model_cost_rounds,
                                                   buckets=model_cost_buckets,
                                                   spacing_variants=model_cost_spacing,
                                                   spacing_every=model_cost_spacing_every,
                                                   cold=model_cost_cold,
                                                   set_to_none=set_to_none, log=log,
                                                   step_bytes=max(0, mem_peak - mem_between))
            except Exception as e:   # an extra measurement: keep the model-independent costs
                torch.cuda.empty_cache()
                print("capture_torch: the frameworks' costs on the model not measured (%s: %s); "
                      "the model-independent ones are kept" % (type(e).__name__, e),
                      file=sys.stderr)
        beside = None
        if beside_rounds > 0:
            import torch_beside
            try:
                beside = torch_beside.measure(model, run_loss, opt, rounds=beside_rounds,
                                              set_to_none=set_to_none,
                                              first_rounds=first_issue_rounds, log=log)
            except Exception as e:   # an extra measurement: the block stands without it
                torch.cuda.empty_cache()
                print("capture_torch: the step beside a D2H not measured (%s: %s)"
                      % (type(e).__name__, e), file=sys.stderr)

    grads = [grad_entry(n, p, min(statistics.median(ready[n]) * scale, bwd_us)) for n, p in params]
    grads.sort(key=lambda g: g["ready_us"])  # stable: ties keep the parameter order
    out = {
        "format": "fusim-workload-1",
        "name": name,
        "fwd_us": round(fwd_us, 1),
        "bwd_us": round(bwd_us, 1),
        "opt_us": round(opt_us, 1),
    }
    if write_host:
        out["host"] = torch_host.host_block(tl, framework, [g["name"] for g in grads])
        if fw_model is not None:   # the model's own per-parameter costs (torch_modelcost)
            tower = {"ddp": dict(out["host"].get("ddp", {})),
                     "hooks": dict(out["host"].get("hooks", {}))}
            fw_model["replaced"] = torch_modelcost.apply(out["host"], fw_model)
            fw_model["model_independent"] = tower
        if beside is not None and torch_beside.block(beside):
            out["host"]["beside_d2h"] = torch_beside.block(beside)
        try:   # each framework cost's bounds, from the rounds that measured it (fusim host.ci)
            import torch_interval
            ci = torch_interval.capture_ci(out["host"], framework, fw_model)
            if ci:
                out["host"]["ci"] = ci
        except (KeyError, ValueError, ZeroDivisionError) as e:   # bounds are extra
            print("capture_torch: the costs' bounds not derived (%s: %s)" % (type(e).__name__, e),
                  file=sys.stderr)
    out["estimated"] = False
    # the step's device memory peak (what fusim plan checks against the GPU's memory)
    out["memory"] = {"peak_bytes": mem_peak}
    out["notes"] = notes
    m = dict(meta or {})
    m.update({
        "tool": "tools/capture_torch.py",
        "torch": torch.__version__,
        "gpu": torch.cuda.get_device_name(0),
        "amp": amp,
        "iters": iters,
        "warmup": warmup,
        "params": sum(p.numel() for _, p in params),
        "tensors": len(params),
        "grad_bytes": sum(g["bytes"] for g in grads),
        "fwd_us_min_max": [round(min(t[0] for t in plain), 1), round(max(t[0] for t in plain), 1)],
        "bwd_us_min_max": [round(min(t[1] for t in plain), 1), round(max(t[1] for t in plain), 1)],
        "bwd_hooked_us": round(hooked_bwd_us, 1),
        "ready_scale": round(scale, 5),
        "ready_interleaved": True,
        # the recording hooks' host cost a gradient: backward()'s CPU time with them minus
        # without, the steps side by side (2026-12-04n: the hooked steps ran up to 1.5x the
        # plain ones' length where the host bounds backward, which no scale of the curve undoes)
        "ready_hook_us": round((statistics.median(cpu_hooked) - statistics.median(cpu_plain)) / len(params), 3),
        # the hooked steps' own curve, unscaled: what `fusim workload --ready-hook-us` prices
        "ready_hooked_us": {n: round(statistics.median(v), 1) for n, v in ready.items()},
        "cpu_backward_call_us": round(cpu_bwd_us, 1),
        "cpu_forward_call_us": round(statistics.median(cpu_fwd), 1),
        "host_probe_us": round(statistics.median(probes), 3),
        "host_probes_us": [round(p, 3) for p in probes],
        "host_bwd_probes_us": [round(p, 3) for p in bprobes],
        "cpu_model": torch_host.cpu_model(),
        "bwd_gpu_only_us": round(pure_bwd_us, 1),
        # opt.step()'s CPU time in the plain pass, and its device time alone (behind a sleep)
        "cpu_opt_call_us": round(statistics.median(cpu_opt), 1) if opt is not None else 0.0,
        "opt_gpu_only_us": round(statistics.median(pure_opt), 1) if pure_opt else 0.0,
        "bwd_gpu_only_sleep_too_short": short,
        "launch_bound": launch_bound,
        "hook_us": round(hook_us, 3),
        "issue_us": round(issue_us, 3),
        "host_block": write_host,
        "memory_allocated_between_steps": mem_between,
        "max_memory_allocated": mem_peak,
    })
    if separate:
        m["ready_separate"] = separate
    if refs:  # 3 before the timed steps, one after each, 3 after
        m["host_ref"] = {"fwd_us": round(statistics.median(r[0] for r in refs), 1),
                         "bwd_us": round(statistics.median(r[1] for r in refs), 1),
                         "steps_us": [[round(r[0], 1), round(r[1], 1)] for r in refs],
                         "resident_bytes": ref_bytes}
        if getattr(host_ref, "arch", None):   # the rows it carries: price the model as this arch
            m["host_ref"]["arch"] = host_ref.arch
    if write_host:
        m["host_capture"] = {"capture_hook_us": round(tl["capture_hook_us"], 3),
                             "capture_fwd_hook_us": round(tl["capture_fwd_hook_us"], 3),
                             "grad_cpu_raw_us": [round(tl["cpu_raw_us"][g["name"]], 1)
                                                 for g in grads],
                             "sleep_too_short": tl["sleep_too_short"],
                             "step_us": round(tl["step_us"], 1)}
        if "raw" in framework:
            m["framework_raw"] = framework["raw"]
        if fw_model is not None:
            m["framework_on_model"] = fw_model
        if launches is not None:
            m["launches"] = launches
        if beside is not None:
            m["beside_d2h"] = beside
    out["meta"] = m
    out["grads"] = grads
    return out


def main(argv=None):
    ap = _ArgParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True,
                    help="resnet50, bert_large or package.module:function")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--seq", type=int, default=512, help="sequence length (bert_large)")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--amp", choices=["bf16", "fp16", "tf32", "none"], default="bf16",
                    help="bf16/fp16 autocast, tf32 (fp32 with TF32 matrix products) or none (strict fp32)")
    ap.add_argument("--host", choices=["auto", "always", "never"], default="always",
                    help="write the host block (timeline and framework costs): always (default; "
                         "auto is kept as a synonym) or never")
    ap.add_argument("--model-cost-rounds", type=int, default=16,
                    help="rounds measuring the frameworks' per-parameter costs on the model "
                         "itself (tools/torch_modelcost.py; 0: keep the model-independent ones)")
    ap.add_argument("--model-cost-buckets", action="store_true",
                    help="with --model-cost-rounds: the per-bucket costs on the model too (a bucket "
                         "per parameter, DDP's and the hook pattern's; validate_torch always asks)")
    ap.add_argument("--model-cost-spacing", action="store_true",
                    help="with --model-cost-buckets: the in-backward issue's cost against the "
                         "host work between issues too (torch_modelcost's spacing variants)")
    ap.add_argument("--beside-rounds", type=int, default=10,
                    help="rounds measuring the step beside a transfer into host memory "
                         "(tools/torch_beside.py: host.beside_d2h; 0: not measured)")
    ap.add_argument("--first-issue-rounds", type=int, default=24,
                    help="with --beside-rounds: rounds measuring the slowdown of backward's host "
                         "work after the first in-backward issue (meta.beside_d2h.in_bwd_slow; "
                         "0: not measured)")
    ap.add_argument("--name", help="workload name (default: MODEL_bBATCH_captured)")
    ap.add_argument("--memory-format", choices=["channels-last", "nchw"], default="channels-last",
                    help="resnet50's layout: channels-last (default) or PyTorch's default NCHW, as a "
                         "training loop that never calls .to(memory_format=torch.channels_last) runs it "
                         "(meta.memory_format; fusim workload --cnn --memory-format prices either)")
    ap.add_argument("--host-ref", default="auto",
                    choices=["auto", "none", "bert", "gpt2", "llama", "qwen3", "resnet50"],
                    help="the reference step (tools/host_ref.py) timed between the steps, meta.host_ref: "
                         "the host's speed for the kind of work fusim prices the model as (fusim workload "
                         "--host-ref-fwd/--host-ref-bwd, tools/compare_compute.py). auto: resnet50's for "
                         "resnet50, bert's for bert_large, none for a model of your own (name its "
                         "architecture: the one you will price it as with --arch)")
    ap.add_argument("--out", required=True, help="output file ('-' for stdout)")
    a = ap.parse_args(argv)
    if a.memory_format == "nchw" and a.model != "resnet50":
        _die("--memory-format nchw is resnet50's (a model of your own lays its tensors out itself)", 64)
    if a.model not in ("resnet50", "bert_large") and not user_model_name(a.model):
        # before PyTorch is imported: a mistyped name was told to install it
        _die("unknown model '%s' (resnet50, bert_large or package.module:function)" % a.model, 64)
    if a.batch < 1 or a.iters < 3 or a.warmup < 1 or a.seq < 1:
        _die("--batch and --seq must be >= 1, --iters >= 3, --warmup >= 1", 64)
    if a.model_cost_spacing and not (a.model_cost_buckets and a.model_cost_rounds > 0):
        # torch_modelcost runs the spacing variants only beside the per-bucket ones
        _die("--model-cost-spacing needs --model-cost-buckets and --model-cost-rounds > 0", 64)
    try:
        import torch
    except ImportError as e:
        _die("PyTorch is needed (%s); run it where torch and a CUDA GPU are" % e, 69)

    if not torch.cuda.is_available():
        print("capture_torch: no CUDA GPU visible", file=sys.stderr)
        return 69
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = True
    nchw = a.memory_format == "nchw"
    model, inputs, loss_fn, opt = build(a.model, a.batch, torch.device("cuda"), a.seq, not nchw)
    name = a.name or "%s_b%d_captured" % (a.model.split(":")[-1], a.batch)
    desc = {"resnet50": "torchvision resnet50 (weights=None, random init), 224x224, %s, "
                        "SGD momentum" % ("NCHW" if nchw else "channels-last"),
            "bert_large": "HF BertForMaskedLM from BertConfig (24 layers, hidden 1024, 16 heads, "
                          "ffn 4096; random init), seq %d, AdamW" % a.seq}.get(a.model, a.model)
    notes = ("CAPTURED with tools/capture_torch.py on %s: %s, batch %d, AMP %s, fp32 gradients. "
             "fwd/bwd/opt from a pass without hooks; ready times from post-accumulate-grad hooks "
             "and CUDA events (medians of %d iterations after %d warm-up)."
             % (torch.cuda.get_device_name(0), desc, a.batch, a.amp, a.iters, a.warmup))
    meta = {"model": a.model, "batch": a.batch}
    if a.model == "resnet50":
        meta["memory_format"] = "nchw" if nchw else "channels_last"
    if a.model == "bert_large":
        meta["seq"] = a.seq
    ref = None
    if a.host_ref != "none":
        import host_ref
        ref = host_ref.maker_for(a.model, a.amp) if a.host_ref == "auto" else host_ref.maker(a.host_ref, a.amp)
        import compare_compute
        if ref is None and (a.host_ref != "auto" or a.model in compare_compute.KNOWN):
            print("capture_torch: no reference step for %s in AMP %s; the capture goes on without one"
                  % (a.model if a.host_ref == "auto" else a.host_ref, a.amp), file=sys.stderr)
    w = capture(model, inputs, loss_fn, opt, iters=a.iters, warmup=a.warmup, amp=a.amp,
                host=a.host, name=name, notes=notes, meta=meta, host_ref=ref,
                model_cost_rounds=max(0, a.model_cost_rounds),
                beside_rounds=max(0, a.beside_rounds),
                first_issue_rounds=max(0, a.first_issue_rounds),
                model_cost_buckets=a.model_cost_buckets,
                model_cost_spacing=a.model_cost_spacing)
    text = json.dumps(w, indent=1) + "\n"
    if a.out == "-":
        sys.stdout.write(text)
    else:
        with open(a.out, "w") as f:
            f.write(text)
    m = w["meta"]
    print("%s: %d tensors, %.1f MiB, fwd %.0f us, bwd %.0f us (hooked %.0f), opt %.0f us, "
          "backward() CPU %.0f us, backward GPU-only %.0f us, hook %.2f us, issue %.2f us, "
          "launch-bound %s"
          % (name, m["tensors"], m["grad_bytes"] / 2**20, w["fwd_us"], w["bwd_us"],
             m["bwd_hooked_us"], w["opt_us"], m["cpu_backward_call_us"], m["bwd_gpu_only_us"],
             m["hook_us"],
             m["issue_us"], m["launch_bound"]), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
