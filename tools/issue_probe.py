#!/usr/bin/env python3
"""issue_probe.py: why an offload issued from a Python hook inside backward costs more the more
backward work ran since the previous issue (issue 10; an experiment, used by no prediction).

The loops of runs 11-24 show it only as differences of whole backward() CPU times (run 11's
ResNet-50: 30 -> 55 -> 79 us a bucket at 36 / 302 / 1432 us apart), which jitter by ms. Here each
issue's own calls are timed directly (time.perf_counter_ns), part by part, as the hook pattern
(torch_host.HookFuser) makes them:
  event    torch.cuda.Event() and its record() on the compute stream
  wait     the side stream's wait_event
  enter    entering `with torch.cuda.stream(side)`
  copy     the D2H copy_ into pinned memory (non_blocking)
  exit     leaving the with block
  next     (part A) the next launch on the compute stream, right after the issue

Part A, no backward: the issue after filler work of W us of several kinds, so that each
candidate cause is switched on alone:
  spin     a Python loop reading the clock (time passes; little touched)
  thrash   memcpy of a 64 MiB host tensor 1 MiB at a time (the CPU caches and TLB made cold)
  launch   small kernels launched on the compute stream, the GPU keeping up (driver work)
  launchq  the same behind a long GPU sleep (the launches pile up in the queue, never full)
  ctl      (kind) spin, then a plain kernel launch timed in place of the issue: is any call
           after a gap slow, or the issue's calls only?
Part B, a real backward() on the model: the hook pattern with a bucket every N gradients
(N = 1, 4, 16, 64) and by 4 / 25 MiB, every issue timed by parts and every hook's entry and exit
stamped, so that each issue has its own spacing (the autograd thread's time since the previous
issue ended) and the hooks right after an issue can be set against the others. Variants:
  hk_0       the hooks and copies, no issue (the baseline)
  hk_eN      a bucket every N gradients
  hk_4m, hk_25m  buckets of 4 / 25 MiB
  hk_25m_pre 25 MiB, a dummy issue (4 KiB, same calls) right before each real one: if the cost
             is a "first call after a gap", the dummy takes it and the real issue is cheap
  hk_25m_gpu 25 MiB with timing events (backward's start on the compute stream, the issue's
             event, the side stream's start and end of the copy): does the GPU start the side
             work when the compute stream reaches the event, and is the hook late or early
             against the GPU?
  ddpo_eN / ddpa_eN  DDP, buckets of about N parameters' bytes, the offload comm hook / an
             all-reduce comm hook, each hook's body timed (the comm hook runs on the autograd
             thread from the Reducer)
Each round runs one step of every variant, rotated; backward() CPU per step is kept too, so the
directly timed costs can be set against the whole-backward differences the loops use.

    python3 tools/issue_probe.py --models resnet50:64,gpt2:8 --rounds 20 --out probe.json
Prints a summary; writes everything to --out (JSON).
"""
import argparse
import copy
import json
import os
import random
import statistics
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quantile import quantile  # noqa: E402

MiB = 2**20
PARTS = ("event", "wait", "enter", "copy", "exit")


def med(xs):
    return round(statistics.median(xs), 2) if xs else None


def q(xs, f):
    return round(quantile(xs, f), 2) if xs else None


def timed_issue(side, dst, src, ev_cls, tm=None):
    """The hook pattern's issue (torch_host.HookFuser._issue), each call timed: returns the
    parts' ns (PARTS order). tm: optional timing events (compute stream at the issue, side stream
    before and after the copy) -> [e, s0, s1]."""
    import torch
    c = time.perf_counter_ns
    t0 = c()
    e = ev_cls(enable_timing=tm is not None)
    e.record()
    t1 = c()
    side.wait_event(e)
    t2 = c()
    with torch.cuda.stream(side):
        t3 = c()
        if tm is not None:
            s0 = torch.cuda.Event(enable_timing=True)
            s0.record()
        t3b = c()
        dst.copy_(src, non_blocking=True)
        t4 = c()
        if tm is not None:
            s1 = torch.cuda.Event(enable_timing=True)
            s1.record()
            tm.append((e, s0, s1))
        t4b = c()
    t5 = c()
    return (t1 - t0, t2 - t1, t3 - t2, t4 - t3b, t5 - t4b)


# ---------------------------------------------------------------- part A: no backward

def part_a(rounds, widths, log):
    import torch
    side = torch.cuda.Stream()
    src = torch.empty(MiB, device="cuda")             # 4 MiB bucket
    dst = torch.empty(MiB, pin_memory=True)
    small = torch.zeros(1024, device="cuda")
    big_a = torch.zeros(16 * MiB)                      # 64 MiB host tensors
    big_b = torch.ones(16 * MiB)
    c = time.perf_counter_ns

    def fill(kind, w_us):
        end = c() + int(w_us * 1000)
        n = 0
        if kind in ("spin", "ctl"):
            while c() < end:
                n += 1
        elif kind == "thrash":
            i = 0
            while c() < end:
                o = (i % 64) * (MiB // 4)
                big_a[o:o + MiB // 4].copy_(big_b[o:o + MiB // 4])
                i += 1
                n += 1
        elif kind in ("launch", "launchq"):
            if kind == "launchq":
                torch.cuda._sleep(int(2e6 + w_us * 3000))   # GPU busy past the fill (~1.9 GHz)
            while c() < end:
                small.add_(1.0)
                n += 1
        return n

    kinds = ("spin", "thrash", "launch", "launchq", "ctl")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)   # the thrash's copies on this thread's core, as autograd's work
    cells = [(k, w) for k in kinds for w in widths]
    res = {(k, w): [] for k, w in cells}
    for r in range(rounds + 3):
        random.Random(r).shuffle(cells)
        for k, w in cells:
            torch.cuda.synchronize()
            for _ in range(3):            # the same few calls first, so "no gap" is warm
                timed_issue(side, dst, src, torch.cuda.Event)
                small.add_(1.0)
            torch.cuda.synchronize()
            n = fill(k, w)
            if k == "ctl":
                t0 = c()
                small.add_(1.0)
                t1 = c()
                small.add_(1.0)
                t2 = c()
                parts = (t1 - t0, t2 - t1, 0, 0, 0)
                nxt = 0
            else:
                parts = timed_issue(side, dst, src, torch.cuda.Event)
                t0 = c()
                small.add_(1.0)
                nxt = c() - t0
            torch.cuda.synchronize()
            if r >= 3:
                res[(k, w)].append([p / 1e3 for p in parts] + [nxt / 1e3, n])
    torch.set_num_threads(threads)
    out = []
    for k in kinds:
        for w in widths:
            xs = res[(k, w)]
            row = {"kind": k, "fill_us": w, "n_fill_ops": med([x[6] for x in xs])}
            names = ("launch1", "launch2") if k == "ctl" else PARTS
            for i, p in enumerate(names):
                row[p] = med([x[i] for x in xs])
            row["issue_total"] = med([sum(x[:5]) for x in xs])
            row["issue_p5_p95"] = [q([sum(x[:5]) for x in xs], .05), q([sum(x[:5]) for x in xs], .95)]
            if k != "ctl":
                row["next"] = med([x[5] for x in xs])
            out.append(row)
            log("A %-8s fill %6d us: issue %7.1f us [%s]  %s" % (
                k, w, row["issue_total"], ", ".join("%.1f" % v for v in row["issue_p5_p95"]),
                " ".join("%s %.1f" % (p, row[p]) for p in names if row.get(p) is not None)
                + ("  next %.1f" % row["next"] if "next" in row else "")))
    return out


# ---------------------------------------------------------------- part B: real backward

def make_fuser_cls():
    import torch
    import torch_host

    class ProbeFuser(torch_host.HookFuser):
        """HookFuser with every issue timed by parts and every hook stamped (entry, exit,
        autograd thread's clock); pre: a 4 KiB dummy issue right before each real one; gpu:
        timing events."""

        def __init__(self, params, cap, every=None, issue=True, pre=False, gpu=False):
            super().__init__(params, cap, every=every, issue=issue)
            self.pre, self.gpu = pre, gpu
            self.stamps = []       # per hook: (index in firing, entry ns, exit ns, issued)
            self.issues = []       # per issue: (hook index, start ns, parts, pre parts)
            self.tm = []
            self.tiny_src = torch.empty(1024, device="cuda")
            self.tiny_dst = torch.empty(1024, pin_memory=True)

        def _make(self, i):
            inner = super()._make(i)

            def hook(p):
                t0 = time.perf_counter_ns()
                n0 = len(self.issues)
                inner(p)
                self.stamps.append((t0, time.perf_counter_ns(), len(self.issues) > n0))
            return hook

        def _issue(self, b):
            pre = None
            if self.pre:
                pre = timed_issue(self.stream, self.tiny_dst, self.tiny_src, torch.cuda.Event)
            t = time.perf_counter_ns()
            parts = timed_issue(self.stream, self.host[b], self.bufs[b], torch.cuda.Event,
                                self.tm if self.gpu else None)
            self.issues.append((len(self.stamps), t, parts, pre))

        def reset(self):
            self.stamps, self.issues, self.tm = [], [], []

    return ProbeFuser


def ddp_hooks():
    """DDP comm hooks timed by parts: offload (torch_host.offload_hook's calls) and all-reduce
    (the default's work from Python)."""
    import torch
    import torch.distributed as dist

    class St:
        def __init__(self):
            self.stream = torch.cuda.Stream()
            self.host = {}
            self.calls = []   # (start ns, body ns, parts)
            self.t_prev = None

    def offload(state, bucket):
        c = time.perf_counter_ns
        t0 = c()
        buf = bucket.buffer()
        h = state.host.get(bucket.index())
        if h is None or h.numel() != buf.numel():
            h = torch.empty(buf.numel(), dtype=buf.dtype, pin_memory=True)
            state.host[bucket.index()] = h
        t1 = c()
        s = state.stream
        s.wait_stream(torch.cuda.current_stream())
        t2 = c()
        with torch.cuda.stream(s):
            t3 = c()
            h.copy_(buf, non_blocking=True)
            t4 = c()
            fut = torch.futures.Future(devices=[buf.device])
            fut.set_result(buf)
            t5 = c()
        t6 = c()
        state.calls.append((t0, t6 - t0, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5)))
        return fut

    def allreduce(state, bucket):
        c = time.perf_counter_ns
        t0 = c()
        buf = bucket.buffer()
        buf.div_(dist.get_world_size())
        t1 = c()
        w = dist.all_reduce(buf, async_op=True)
        t2 = c()
        fut = w.get_future().then(lambda f: f.value()[0])
        t3 = c()
        state.calls.append((t0, t3 - t0, (t1 - t0, t2 - t1, t3 - t2)))
        return fut

    return St, offload, allreduce


def part_b(name, batch, rounds, log, every=(1, 4, 16, 64)):
    import torch
    import torch_host
    import validate_torch as V
    from torch.nn.parallel import DistributedDataParallel as DDP

    torch_host.ensure_process_group()
    torch.manual_seed(0)
    base, inputs, loss_fn, desc = V.build_model(name, batch, 512)
    Fuser = make_fuser_cls()
    St, offload, allreduce = ddp_hooks()
    P = sum(1 for p in base.parameters() if p.requires_grad)
    param_mb = sum(p.numel() * p.element_size() for p in base.parameters() if p.requires_grad) / P / MiB
    variants = ["none", "hk_0"] + ["hk_e%d" % n for n in every] + \
        ["hk_4m", "hk_25m", "hk_25m_pre", "hk_25m_gpu", "ddpo_e16", "ddpa_e16", "ddpo_e64", "ddpa_e64"]
    runners = {}
    for v in variants:
        core = copy.deepcopy(base)
        m, f, st = core, None, None
        params = [(n, p) for n, p in core.named_parameters() if p.requires_grad]
        if v == "hk_0":
            f = Fuser(params, 1 << 60, issue=False)
        elif v.startswith("hk_e"):
            f = Fuser(params, 1 << 60, every=int(v[4:]))
        elif v.startswith("hk_4m"):
            f = Fuser(params, 4 * MiB)
        elif v.startswith("hk_25m"):
            f = Fuser(params, 25 * MiB, pre=v.endswith("_pre"), gpu=v.endswith("_gpu"))
        elif v.startswith("ddp"):
            m = DDP(core, device_ids=torch_host.device_ids(), bucket_cap_mb=param_mb * int(v[6:]),
                    gradient_as_bucket_view=True)
            st = St()
            m.register_comm_hook(st, offload if v.startswith("ddpo") else allreduce)
        runners[v] = (m, core, f, st, V.make_opt(core))
    del base

    def step(v):
        m, core, f, st, o = runners[v]
        o.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        loss = loss_fn(m, inputs)
        ev0 = None
        if f is not None and f.gpu and f.ready:
            ev0 = torch.cuda.Event(enable_timing=True)
            ev0.record()
        if f is not None:
            f.reset()
        if st is not None:
            st.calls = []
        t1 = time.perf_counter_ns()
        loss.backward()
        t2 = time.perf_counter_ns()
        if f is not None:
            f.after_backward()
        o.step()
        torch.cuda.synchronize()
        rec = {"bwd_us": (t2 - t1) / 1e3}
        if f is not None and f.ready:
            rec["issues"] = []
            prev_end = t1
            for k, (hi, ts, parts, pre) in enumerate(f.issues):
                d = {"hook": hi, "apart_us": (ts - prev_end) / 1e3, "at_us": (ts - t1) / 1e3,
                     "parts": [p / 1e3 for p in parts]}
                if pre:
                    d["pre"] = [p / 1e3 for p in pre]
                if f.gpu and ev0 is not None:
                    e, s0, s1 = f.tm[k]
                    d["gpu"] = [ev0.elapsed_time(e) * 1e3, ev0.elapsed_time(s0) * 1e3,
                                ev0.elapsed_time(s1) * 1e3]
                rec["issues"].append(d)
                prev_end = ts + sum(parts) + (sum(pre) if pre else 0)
            rec["hooks"] = [((a - t1) / 1e3, (b - a) / 1e3, iss) for a, b, iss in f.stamps]
        if st is not None:
            rec["calls"] = []
            prev_end = t1
            for t0, body, parts in st.calls:
                rec["calls"].append({"apart_us": (t0 - prev_end) / 1e3, "body_us": body / 1e3,
                                     "parts": [p / 1e3 for p in parts]})
                prev_end = t0 + body
        return rec

    for v in variants:               # the hook pattern's first step records the firing order
        step(v)
    recs = {v: [] for v in variants}
    warm = 2
    for r in range(warm + rounds):
        k = r % len(variants)
        for v in variants[k:] + variants[:k]:
            rec = step(v)
            if r >= warm:
                recs[v].append(rec)
    out = {"model": name, "batch": batch, "description": desc, "P": P, "variants": {}}
    out["raw"] = {v: [{k: x[k] for k in ("bwd_us", "issues", "calls") if k in x} for x in recs[v]]
                  for v in variants}
    try:
        summarize(out, variants, recs, log)
    except Exception:   # the raw records stand
        traceback.print_exc()
    runners.clear()
    torch.cuda.empty_cache()
    return out


def summarize(out, variants, recs, log):
    """Per variant: backward() CPU against none and hk_0, the issues' direct costs by part and
    against their spacing, the hooks after an issue, the GPU's side (hk_25m_gpu)."""
    name = out["model"]
    base_bwd = [x["bwd_us"] for x in recs["none"]]
    hk0 = [x["bwd_us"] for x in recs["hk_0"]]
    hk0_hook = med([h[1] for x in recs["hk_0"] for h in x["hooks"]])
    for v in variants:
        xs = recs[v]
        s = {"bwd_cpu_us": med([x["bwd_us"] for x in xs]),
             "bwd_over_none_us": med([a["bwd_us"] - b for a, b in zip(xs, base_bwd)])}
        if v.startswith("hk") and v != "hk_0":
            s["bwd_over_hk0_us"] = med([a["bwd_us"] - b for a, b in zip(xs, hk0)])
            iss = [d for x in xs for d in x["issues"]]
            s["issues_per_step"] = len(iss) / max(len(xs), 1)
            s["issue_us"] = med([sum(d["parts"]) for d in iss])
            s["parts_us"] = {p: med([d["parts"][i] for d in iss]) for i, p in enumerate(PARTS)}
            s["apart_us"] = med([d["apart_us"] for d in iss])
            # the issue against its own spacing: quartiles of spacing, issue cost within each
            iss_s = sorted(iss, key=lambda d: d["apart_us"])
            nq = 4 if len(iss_s) >= 40 else 1
            s["by_apart"] = []
            for j in range(nq):
                part = iss_s[j * len(iss_s) // nq:(j + 1) * len(iss_s) // nq]
                s["by_apart"].append([med([d["apart_us"] for d in part]),
                                      med([sum(d["parts"]) for d in part]), len(part)])
            first = [x["issues"][0] for x in xs if x["issues"]]
            s["first_issue_us"] = med([sum(d["parts"]) for d in first])
            if any("pre" in d for d in iss):
                s["pre_us"] = med([sum(d["pre"]) for d in iss])
                s["pre_parts_us"] = {p: med([d["pre"][i] for d in iss]) for i, p in enumerate(PARTS)}
            if any("gpu" in d for d in iss):
                # GPU: the compute stream's event (gradient's bucket ready), the side stream's
                # start and end; host: when the hook issued (at_us, from backward()'s call)
                s["gpu_side_start_after_event_us"] = med([d["gpu"][1] - d["gpu"][0] for d in iss if "gpu" in d])
                s["gpu_copy_us"] = med([d["gpu"][2] - d["gpu"][1] for d in iss if "gpu" in d])
                s["gpu_event_minus_host_issue_us"] = med([d["gpu"][0] - d["at_us"] for d in iss if "gpu" in d])
            # the hooks right after an issue (the next 1 and the next 2-5) against hk_0's hooks
            nxt1, nxt5, other = [], [], []
            for x in xs:
                hooks = x["hooks"]
                at = [d["hook"] for d in x["issues"]]   # the issuing hooks' indices
                for i, h in enumerate(hooks):
                    if h[2]:
                        continue
                    if any(i - a == 1 for a in at):
                        nxt1.append(h[1])
                    elif any(i - a in (2, 3, 4, 5) for a in at):
                        nxt5.append(h[1])
                    else:
                        other.append(h[1])
            s["hook_us"] = {"hk_0": hk0_hook, "other": med(other), "next1": med(nxt1),
                            "next2_5": med(nxt5)}
            s["direct_us_per_step"] = round(s["issues_per_step"] * statistics.mean(
                sum(d["parts"]) for d in iss) if iss else 0, 1)
        if v.startswith("ddp"):
            calls = [d for x in xs for d in x["calls"]]
            s["calls_per_step"] = len(calls) / max(len(xs), 1)
            s["body_us"] = med([d["body_us"] for d in calls])
            s["parts_us"] = [med([d["parts"][i] for d in calls]) for i in range(len(calls[0]["parts"]))] if calls else []
            s["apart_us"] = med([d["apart_us"] for d in calls])
            first = [x["calls"][0] for x in xs if x["calls"]]
            s["first_body_us"] = med([d["body_us"] for d in first])
        out["variants"][v] = s
        log("B %s %-11s %s" % (name, v, json.dumps(s)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="resnet50:64")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--a-rounds", type=int, default=30)
    ap.add_argument("--widths", default="0,30,100,300,1000,3000")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    import validate_torch as V
    # bad arguments and an --out that cannot be written: one line, exit 64 / 73, before the GPU
    # time they would otherwise waste (part A's widths were parsed inside its try; --out first
    # written after a model's part B)
    models = V.parse_models(a.models)
    try:
        widths = [int(w) for w in a.widths.split(",")]
    except ValueError:
        widths = []
    if not widths or min(widths) < 0 or a.rounds < 1 or a.a_rounds < 1:
        print("issue_probe: --widths takes whole us >= 0 (comma-separated), --rounds and "
              "--a-rounds at least 1", file=sys.stderr)
        return 64
    if not os.access(os.path.dirname(os.path.abspath(a.out)), os.W_OK):
        print("issue_probe: --out %s: its folder cannot be written" % a.out, file=sys.stderr)
        return 73
    import calib_torch
    torch = calib_torch.import_torch("issue_probe")   # no PyTorch or GPU: one line, exit 69
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True

    def log(msg):
        print(msg, flush=True)

    res = {"machine": V.machine_info(), "command": " ".join([sys.executable] + sys.argv)}
    t0 = time.time()
    try:
        res["part_a"] = part_a(a.a_rounds, widths, log)
    except Exception:   # an experiment: the other parts still run
        traceback.print_exc()
    log("part A %.1f s" % (time.time() - t0))
    res["part_b"] = []
    for n, b in models:
        t1 = time.time()
        try:
            res["part_b"].append(part_b(n, b, a.rounds, log))
        except Exception:
            traceback.print_exc()
        log("part B %s %.1f s" % (n, time.time() - t1))
        with open(a.out, "w") as fh:
            json.dump(res, fh)
    with open(a.out, "w") as fh:
        json.dump(res, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
