#!/usr/bin/env python3
"""bwd_start.py: backward()'s own start on the host, before its first node runs (issue 13).

`fusim workload --cnn` scales every operation's host cost so that ResNet-50 adds up to the
profile's tv_resnet50_held row; the operations' own rows leave backward()'s start out
(calib_torch.chain_bwd_host takes a baseline backward() off), so the scale spread it over every
operation, while the transformer builder charges its start where backward starts. Where the GPU had
caught up with the host when forward returned, the captured CNNs' first gradient came 0.5-1.5 ms
after the estimate (17 of 17 captures; h58e's diagnosis). A start derived from ResNet-50's row less
its operations came out 2x too large in fp32, so this measures it directly.

Small graphs, each trained as the captures train (cross-entropy loss; bf16 autocast, or fp32 with
TF32 on), the GPU idle at the call (synchronised after forward): per call, from backward()'s call
  start  to the pre-hook of the loss's node (the first node the engine runs: before it, the seed
         gradient, the graph task, the walk over every node reachable, waking the autograd thread)
  hook   to the first post-accumulate-grad hook on the CPU (the first gradient, as the captures hook)
  ready  to that hook's CUDA event on the GPU (the first gradient ready, as the captures time it)
  call   to backward()'s return
Cases: one Linear, one Conv2d (global mean as logits), a small CNN of conv-BN-ReLU blocks at two
depths (cnn_s, cnn_l: one top, so their starts differ by the walk over more nodes), torchvision's
ResNet-50 at 64 px (a check). Nodes are counted by walking the loss's graph. From the pair, per round,
the per-node walk W = (start_l - start_s) / (nodes_l - nodes_s) and the fixed start S = start_s -
W nodes_s.

The host's speed moves between leases and within one, so each round also times ResNet-50's held step
as tv_resnet50_held is timed (calib_torch.held_step_host, batch 32, 224 px), and the round's S and W
are carried to the profile's host speed by the profile's tv_resnet50_held backward over the round's
(as tools/cnn_depth.py does). Rounds whose held call outlasted its sleep are left out. Rows (medians
over rounds, at the profile's host speed; fusim fit --compute OUT --merge-into PROFILE adds them):
  torch_bwd_start       host_bwd_us: S        (sim/fu_build_cnn.c fu__cnn_bwd_start)
  torch_bwd_start_node  host_bwd_us: W a node
diag: per mode and case the medians over rounds of the four times (this lease's us), the nodes,
the start at the profile's speed against S + W nodes (the checks: linear, conv, resnet50), and the
first kernels on the GPU from a torch.profiler pass after the rounds (its own host cost lengthens
the calls, so not in the rows): from the call to the first kernel (the seed gradient's fill) and to
the first kernel after the loss node's pre-hook.

--steps FILE re-derives the rows from an earlier output's rounds (no GPU needed).

Usage (on the GPU machine): python3 tools/bwd_start.py --profile data/profiles/h200-default.json
                                [--rounds 30] [--reps 7] --out F.json
The output is rewritten after every round, so a call cut short keeps the rounds it finished.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cnn_depth import write  # noqa: E402  (the output file: a record, its rows and diagnosis)
from host_ref import load_profile, out_writable, profile_host_row  # noqa: E402

MODES = ("bf16", "fp32")
CASES = ("linear", "conv", "cnn_s", "cnn_l", "resnet50")
PAIR = ("cnn_s", "cnn_l")       # one top at two depths: the fixed start and the walk per node
DEPTH = {"cnn_s": 2, "cnn_l": 64}  # conv-BN-ReLU blocks
TIMES = ("start", "hook", "ready", "call")
SLEEP_CYCLES = int(40000 * 2000)  # host_ref's: ~40 ms, longer than either held call


def ref_bwd(profile, mode):
    """The profile's tv_resnet50_held backward in mode (us); None without."""
    row = profile_host_row(profile, "tv_resnet50_held", mode)
    return row[1] if row else None


def pair_fit(r, nodes):
    """(S, W): the fixed start and the walk per node from one round's starts r[case] of PAIR."""
    (a, b), (na, nb) = ([r[c]["start"] for c in PAIR]), ([nodes[c] for c in PAIR])
    w = (b - a) / (nb - na)
    return a - w * na, w


def start_rows(steps, held, nodes, profile, past=None):
    """Rows and diagnosis from the rounds: steps[mode] = [{case: {time: us}} per round] (medians over
    the round's calls), held[mode] = [the held ResNet-50 backward() us per round], nodes[mode] =
    {case: autograd nodes}, past[mode] (optional) = [1 where the round's held call outlasted its
    sleep]. A row pair per mode whose profile has tv_resnet50_held and whose rounds time both of
    PAIR: the medians over rounds of S and W times k = the profile's held backward / the round's
    (not below 0)."""
    rows, diag = [], {}
    for mode, rounds in sorted(steps.items()):
        ref = ref_bwd(profile, mode)
        flags = (past or {}).get(mode) or [0] * len(rounds)
        ok = [(r, ref / h) for r, h, f in zip(rounds, held.get(mode, []), flags)
              if not f and h > 0 and all(c in r for c in PAIR)] if ref else []
        if not ok:
            continue
        n = nodes[mode]
        fits = [(pair_fit(r, n), k) for r, k in ok]
        S = max(0.0, statistics.median(s * k for (s, _), k in fits))
        W = max(0.0, statistics.median(w * k for (_, w), k in fits))
        for op, v in (("torch_bwd_start", round(S, 2)), ("torch_bwd_start_node", round(W, 4))):
            rows.append({"op": op, "dtype": mode, "numel": [], "fwd_us": [], "bwd_us": [], "host_fwd_us": 0.0,
                         "host_bwd_us": v})
        d = {"rounds": len(ok), "rounds_left_out": len(rounds) - len(ok),
             "host_k": round(statistics.median(k for _, k in ok), 4), "cases": {}}
        for c in CASES:
            have = [(r[c], k) for r, k in ok if c in r]
            if not have:
                continue
            at_ref = statistics.median(t["start"] * k for t, k in have)
            d["cases"][c] = dict({t: round(statistics.median(x[t] for x, _ in have), 1) for t in TIMES},
                                 nodes=n[c], start_profile_us=round(at_ref, 1),
                                 over_fit=round(at_ref / (S + W * n[c]), 3) if S + W * n[c] > 0 else None)
        diag[mode] = d
    return rows, diag


def first_kernels(calls, first_nodes, kernels):
    """From a profiler trace's timestamps (us; one clock): per backward() call (calls, sorted), the
    first kernel at or after it and the first at or after that call's first node (first_nodes: the
    pre-hook's marks), both from the call; the medians (None where none was found)."""
    to_first, to_node = [], []
    for i, c in enumerate(calls):
        end = calls[i + 1] if i + 1 < len(calls) else float("inf")
        k = next((t for t in kernels if t >= c), None)
        if k is not None and k < end:
            to_first.append(k - c)
        m = next((t for t in first_nodes if c <= t < end), None)
        k = next((t for t in kernels if m is not None and t >= m), None)
        if k is not None and k < end:
            to_node.append(k - c)
    med = lambda v: round(statistics.median(v), 1) if v else None  # noqa: E731
    return {"first_kernel_us": med(to_first), "first_node_kernel_us": med(to_node), "calls": len(calls)}


def report(rows, diag):
    for mode, v in diag.items():
        print("%s (%d rounds, %d left out; host k %.3f):" % (mode, v["rounds"], v["rounds_left_out"], v["host_k"]))
        for c, x in v["cases"].items():
            print("  %-8s nodes %4d  start %7.1f  hook %7.1f  ready %7.1f  call %8.1f us; start at the "
                  "profile's speed %7.1f (%s x S + W nodes)%s" % (
                      c, x["nodes"], x["start"], x["hook"], x["ready"], x["call"], x["start_profile_us"],
                      x["over_fit"], "".join(" %s %s" % kv for kv in sorted(x.get("profiler", {}).items()))),
                  flush=True)
    for r in rows:
        print("row %s %s host bwd %g us" % (r["op"], r["dtype"], r["host_bwd_us"]))


def rederive(a, profile):
    """--steps: the rows from an earlier output's rounds."""
    try:
        d = json.load(open(a.steps))
        rows, diag = start_rows(d["steps"], d["held"], d["nodes"], profile, d.get("past_sleep"))
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError, ZeroDivisionError) as e:
        print("bwd_start: --steps %s: not a bwd_start output (%s: %s)" % (a.steps, type(e).__name__, e),
              file=sys.stderr)
        return 65
    for mode, v in d.get("diag", {}).items():  # the profiler's figures are the GPU run's
        for c, x in v.get("cases", {}).items():
            if "profiler" in x and c in diag.get(mode, {}).get("cases", {}):
                diag[mode]["cases"][c]["profiler"] = x["profiler"]
    d["command_rows"] = "tools/bwd_start.py --profile %s --steps %s" % (a.profile, a.steps)
    write(a.out, d, rows, diag)
    report(rows, diag)
    return 0


class Case:
    """One small graph with its input, timed as the module's docstring says."""

    def __init__(self, torch, model, x, classes, batch):
        self.torch, self.model, self.x = torch, model, x
        self.y = torch.randint(0, classes, (batch,), device="cuda")
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.e0, self.e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        self.state, self.prof = {}, False
        for p in self.params:
            p.register_post_accumulate_grad_hook(self._hook)

    def _hook(self, _):
        if "hook" not in self.state:
            self.state["hook"] = time.perf_counter()
            self.e1.record()

    def _pre(self, _):
        if "start" not in self.state:
            self.state["start"] = time.perf_counter()
            if self.prof:
                with self.torch.profiler.record_function("fusim_first_node"):
                    pass

    def loss(self, bf16):
        F = self.torch.nn.functional
        if bf16:
            with self.torch.autocast("cuda", dtype=self.torch.bfloat16):
                return F.cross_entropy(self.model(self.x), self.y)
        return F.cross_entropy(self.model(self.x), self.y)

    def nodes(self, bf16):
        """The autograd nodes backward() walks (AccumulateGrad included)."""
        seen, todo = set(), [self.loss(bf16).grad_fn]
        while todo:
            f = todo.pop()
            if f is not None and f not in seen:
                seen.add(f)
                todo.extend(g for g, _ in f.next_functions)
        return len(seen)

    def run(self, bf16, prof=False):
        """One call with the GPU idle at it: {time: us from the call}."""
        torch = self.torch
        for p in self.params:
            p.grad = None
        loss = self.loss(bf16)
        loss.grad_fn.register_prehook(self._pre)
        self.state, self.prof = {}, prof
        torch.cuda.synchronize()
        self.e0.record()
        t0 = time.perf_counter()
        if prof:
            with torch.profiler.record_function("fusim_bwd_call"):
                loss.backward()
        else:
            loss.backward()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        s = self.state
        return {"start": (s["start"] - t0) * 1e6, "hook": (s["hook"] - t0) * 1e6,
                "ready": self.e0.elapsed_time(self.e1) * 1e3, "call": (t1 - t0) * 1e6}


def build_cases(torch, log):
    """The cases by name (resnet50 left out where torchvision is missing)."""
    nn = torch.nn
    cl = torch.channels_last
    torch.manual_seed(0)
    img = torch.randn(8, 16, 8, 8, device="cuda").to(memory_format=cl)

    class MeanConv(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(16, 1000, 3, padding=1)

        def forward(self, x):
            return self.conv(x).mean((2, 3))

    def cnn(depth):
        blocks = []
        for _ in range(depth):
            blocks += [nn.Conv2d(16, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(inplace=True)]
        return nn.Sequential(*blocks, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))

    cases = {"linear": Case(torch, nn.Linear(256, 1000).cuda(), torch.randn(32, 256, device="cuda"), 1000, 32),
             "conv": Case(torch, MeanConv().cuda().to(memory_format=cl), img, 1000, 8)}
    for c in PAIR:
        cases[c] = Case(torch, cnn(DEPTH[c]).cuda().to(memory_format=cl).train(), img, 10, 8)
    try:
        import torchvision
        m = torchvision.models.resnet50(weights=None).cuda().to(memory_format=cl).train()
        cases["resnet50"] = Case(torch, m, torch.randn(4, 3, 64, 64, device="cuda").to(memory_format=cl), 1000, 4)
    except Exception as e:  # a check only: the rows come from the pair
        log("resnet50: left out (%s)" % str(e).split("\n")[0][:160])
    return cases


def held_ref(torch, calib_torch):
    """ResNet-50's held step as tv_resnet50_held is timed: step(bf16) -> (backward() us, past sleep)."""
    import torchvision
    m = torchvision.models.resnet50(weights=None).cuda().to(memory_format=torch.channels_last).train()
    x = torch.randn(32, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)

    def step(bf16):
        def fwd():
            if bf16:
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    return m(x).float().sum()
            return m(x).sum()
        _, b, past = calib_torch.held_step_host(torch, m, fwd, SLEEP_CYCLES)
        m.zero_grad(set_to_none=True)
        return b, int(past)
    return step


def profile_pass(torch, cases, reps):
    """{mode: {case: first_kernels(...)}} from one torch.profiler pass of reps calls per case."""
    from torch.profiler import ProfilerActivity, profile
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for mode in MODES:
            for name, c in cases.items():
                with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
                    for _ in range(reps):
                        c.run(mode == "bf16", prof=True)
                path = os.path.join(tmp, "trace.json")
                p.export_chrome_trace(path)
                ev = json.load(open(path))["traceEvents"]
                ts = lambda n: sorted(float(e["ts"]) for e in ev  # noqa: E731
                                      if e.get("name") == n and e.get("cat") == "user_annotation")
                kernels = sorted(float(e["ts"]) for e in ev if e.get("cat") == "kernel")
                out.setdefault(mode, {})[name] = first_kernels(ts("fusim_bwd_call"), ts("fusim_first_node"), kernels)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--reps", type=int, default=7, help="calls per case and round (their median)")
    ap.add_argument("--steps", help="re-derive the rows from this earlier output (no GPU)")
    a = ap.parse_args(argv)
    if a.rounds < 1 or a.reps < 1:
        print("bwd_start: --rounds and --reps at least 1", file=sys.stderr)
        return 64
    profile, status = load_profile("bwd_start", a.profile, lambda p: [ref_bwd(p, mode) for mode in MODES])
    if profile is None:
        return status
    if not out_writable("bwd_start", a.out):
        return 73
    if a.steps:
        return rederive(a, profile)
    import calib_torch
    torch = calib_torch.import_torch("bwd_start")
    t0 = time.time()
    log = lambda m: print("[%.0f s] %s" % (time.time() - t0, m), flush=True)  # noqa: E731
    torch.backends.cudnn.benchmark = True  # as hf_host times tv_resnet50_held
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = True  # fp32: the TF32 captures'
    cases = build_cases(torch, log)
    held = held_ref(torch, calib_torch)
    nodes = {mode: {n: c.nodes(mode == "bf16") for n, c in cases.items()} for mode in MODES}
    for mode in MODES:  # cuDNN's benchmark, the allocator, the autograd thread
        for c in cases.values():
            for _ in range(3):
                c.run(mode == "bf16")
        held(mode == "bf16")
    log("built and warm; nodes %s" % nodes)
    rec = {"format": "fusim-compute-1", "gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "cuda": torch.version.cuda,
           "command": "tools/bwd_start.py " + " ".join(argv if argv is not None else sys.argv[1:]),
           "nodes": nodes}
    steps = {mode: [] for mode in MODES}
    held_b = {mode: [] for mode in MODES}
    past = {mode: [] for mode in MODES}
    names = list(cases)
    rows, diag = [], {}
    for i in range(a.rounds):
        for mode in MODES:
            b, f = held(mode == "bf16")
            got = {}
            for name in (names if i % 2 == 0 else names[::-1]):
                calls = [cases[name].run(mode == "bf16") for _ in range(a.reps)]
                got[name] = {t: round(statistics.median(c[t] for c in calls), 2) for t in TIMES}
            steps[mode].append(got)
            held_b[mode].append(round(b, 1))
            past[mode].append(f)
        rows, diag = start_rows(steps, held_b, nodes, profile, past)
        rec.update(compute={"source": "tools/bwd_start.py on %s (torch %s): backward()'s start, GPU idle at the "
                                      "call, %d rounds of %d calls, carried by ResNet-50's held step"
                                      % (rec["gpu"], torch.__version__, i + 1, a.reps)},
                   steps=steps, held=held_b, past_sleep=past, wall_s=round(time.time() - t0, 1))
        write(a.out, rec, rows, diag)
        log("round %d: %s" % (i + 1, "; ".join("%s %s" % (m, " ".join(
            "%s %.0f" % (n, steps[m][-1][n]["start"]) for n in names)) for m in MODES)))
    try:  # a diagnosis only: the rows are written already
        for mode, per in profile_pass(torch, cases, 5).items():
            for name, v in per.items():
                if name in diag.get(mode, {}).get("cases", {}):
                    diag[mode]["cases"][name]["profiler"] = v
        write(a.out, rec, rows, diag)
    except Exception as e:
        log("profiler pass: skipped (%s)" % str(e).split("\n")[0][:160])
    report(rows, diag)
    return 0


if __name__ == "__main__":
    sys.exit(main())
