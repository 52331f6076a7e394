#!/usr/bin/env python3
"""test_modelcost_standin.py: tools/torch_modelcost.measure()'s control flow on a stand-in for
torch (no torch, no GPU): every variant built and stepped, the spacing variants' buckets counted,
and a spacing variant that fails dropped while the other costs stand.

The stand-in model has P = 32 parameters of 1000 floats each (4000 bytes). Its backward() fires
the parameters' post-accumulate-grad hooks in reverse order, as autograd does, and the stand-in
DDP calls its comm hook for each bucket once the bucket's last gradient is in. DDP's buckets are
filled by bytes up to bucket_cap_mb, so ddpo_e16's cap (16 parameters' bytes) gives 32 / 16 = 2
buckets. hk_e4 closes a bucket every 4 gradients (8 buckets) and hk_e16 every 16 (2). The times
are the host's own, so only the structure is checked, not the costs.
"""
import contextlib
import os
import sys
import types
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))

class Tensor:
    """Just enough of a tensor for the hook pattern and the offload hook."""

    def __init__(self, n=1):
        self.n, self.shape, self.dtype, self.device = n, (n,), "float32", "cuda:0"

    def numel(self):
        return self.n

    def __getitem__(self, s):
        return Tensor(len(range(*s.indices(self.n))))

    def view(self, *shape):
        return self

    def copy_(self, other, non_blocking=False):
        return self

    def add_(self, x):
        return self


class Param(Tensor):
    count = 0

    def __init__(self, n):
        super().__init__(n)
        Param.count += 1
        self.ptr, self.requires_grad, self.grad, self.hooks = Param.count, True, None, []

    def element_size(self):
        return 4

    def data_ptr(self):
        return self.ptr

    def register_post_accumulate_grad_hook(self, fn):
        self.hooks.append(fn)
        return fn


class Model:
    def __init__(self, P, n):
        self.params = [Param(n) for _ in range(P)]

    def parameters(self):
        return iter(self.params)

    def named_parameters(self):
        return (("p%d" % i, p) for i, p in enumerate(self.params))

    def __deepcopy__(self, memo):
        return Model(len(self.params), self.params[0].n)


class Bucket:
    def __init__(self, index, params):
        self.i, self.ps = index, params

    def buffer(self):
        return Tensor(sum(p.n for p in self.ps))

    def index(self):
        return self.i

    def parameters(self):
        return self.ps


class DDP:
    """DDP's Reducer as far as measure() sees it: buckets by bytes in the gradients' ready order
    (the first capped at 1 MiB, as DDP's), the comm hook called as each bucket fills."""

    def __init__(self, module, device_ids=None, bucket_cap_mb=25, gradient_as_bucket_view=False):
        self.module, self.state, self.hook = module, None, None
        cap, first, self.buckets, cur, size = bucket_cap_mb * 2**20, 2**20, [], [], 0
        for p in reversed(module.params):
            cur.append(p)
            size += p.n * 4
            if size >= (cap if self.buckets else min(cap, first)):
                self.buckets.append(cur)
                cur, size = [], 0
        if cur:
            self.buckets.append(cur)

    def register_comm_hook(self, state, hook):
        self.state, self.hook = state, hook


class Loss:
    def __init__(self, m):
        self.m = m

    def backward(self):
        model = self.m.module if isinstance(self.m, DDP) else self.m
        done = set()
        for p in reversed(model.params):
            p.grad = Tensor(p.n)
            for h in p.hooks:
                h(p)
            done.add(p.ptr)
            if isinstance(self.m, DDP) and self.m.hook:
                for i, b in enumerate(self.m.buckets):
                    if b[-1] is p and all(q.ptr in done for q in b):
                        self.m.hook(self.m.state, Bucket(i, b))


class SGD:
    def __init__(self, params, lr=1e-3, momentum=0.9):
        self.defaults = {"lr": lr, "momentum": momentum}
        self.state = {}   # no step yet: runner_bytes counts a momentum buffer

    def zero_grad(self, set_to_none=True):
        pass

    def step(self):
        pass


class Future:
    def __init__(self, devices=None):
        self.v = None

    def set_result(self, v):
        self.v = v


class Stream:
    def wait_stream(self, other):
        pass

    def wait_event(self, e):
        pass


def standin(free=1 << 40):
    """The stand-in torch as modules: torch, torch.nn, torch.nn.parallel; free: the GPU's free
    bytes (nothing allocated, no step's peak)."""
    torch = types.ModuleType("torch")
    torch.cuda = types.SimpleNamespace(
        mem_get_info=lambda: (free, 1 << 40), max_memory_allocated=lambda: 0,
        memory_allocated=lambda: 0,
        synchronize=lambda: None, empty_cache=lambda: None, Stream=Stream,
        Event=lambda: types.SimpleNamespace(record=lambda: None),
        stream=lambda s: contextlib.nullcontext(), current_stream=Stream)
    torch.empty = lambda n, **kw: Tensor(n)
    torch.zeros = lambda n, **kw: Tensor(n)
    torch.futures = types.SimpleNamespace(Future=Future)
    torch.optim = types.SimpleNamespace(SGD=SGD)
    nn = types.ModuleType("torch.nn")
    par = types.ModuleType("torch.nn.parallel")
    par.DistributedDataParallel = DDP
    torch.nn, nn.parallel = nn, par
    return {"torch": torch, "torch.nn": nn, "torch.nn.parallel": par}


class MeasureOnStandin(unittest.TestCase):
    P = 32
    FIXED = {"finalize_us": 0.0, "hooks_bucket_us": 0.0}

    def setUp(self):
        patches = [mock.patch.dict(sys.modules, standin())]
        import torch_host
        self.th = torch_host
        patches += [mock.patch.object(torch_host, "ensure_process_group", lambda: None),
                    mock.patch.object(torch_host, "align_ranks", lambda: None),
                    mock.patch.object(torch_host, "device_ids", lambda: [0]),
                    mock.patch.object(torch_host, "fewest_ranks", lambda n: n)]
        for p in patches:
            p.start()
            self.addCleanup(p.stop)
        import torch_modelcost
        self.mc = torch_modelcost

    def measure(self, **kw):
        model = Model(self.P, 1000)
        lines = []
        out = self.mc.measure(model, Loss, SGD(model.parameters()), self.FIXED, warmup=1,
                              buckets=True, log=lines.append, **kw)
        return out, lines

    def test_every_variant_and_buckets(self):
        mc = self.mc
        out, lines = self.measure(rounds=3, cold=True, spacing_variants=True)
        every = mc.VARIANTS + mc.BUCKET_VARIANTS + mc.SPACING_VARIANTS
        self.assertEqual(sorted(out["raw"]), sorted(every))
        self.assertTrue(all(len(v) == 3 for v in out["raw"].values()))
        sp = out["issue_spacing"]
        self.assertEqual(sp["buckets"], {"hk_e4": 8, "hk_e16": 2, "ddpo_e16": 2})
        self.assertEqual([p[0] for p in sp["hooks"]], [32, 8, 2])
        self.assertEqual([p[0] for p in sp["ddp_offload"]], [32, 2])
        self.assertTrue(all(len(p) == 4 for k in ("hooks", "ddp_offload") for p in sp[k]))
        for k in ("param_us", "copy_us", "hook_us", "ddp_bucket_us", "hooks_bucket_us",
                  "ddp_hook_bucket_us"):
            self.assertIn(k, out)
        self.assertTrue(any("hooks issue per bucket against its spacing" in x for x in lines))
        # the issues timed call by call (issue_direct): every issuing variant a point, densest
        # first, each round's median of a step's issues but its first (hk_e16 and ddpo_e16 issue
        # 2 a step, so one each is timed); the stand-in's times are the host's own, only >= 0
        di = out["issue_direct"]
        self.assertEqual([p[0] for p in di["hooks"]], [32, 8, 2])
        self.assertEqual([p[0] for p in di["ddp_offload"]], [32, 2])
        self.assertTrue(all(len(p) == 5 and p[2] >= 0 for k in di for p in di[k]))
        self.assertEqual(sorted(out["raw_direct"]), ["ddpo_e16", "ddpo_n", "hk_e16", "hk_e4", "hk_n"])
        self.assertTrue(all(len(v) == 3 and None not in v for v in out["raw_direct"].values()))
        self.assertTrue(any("hooks issue timed call by call" in x for x in lines))

    def test_spacing_every(self):
        # run 24's farther spacing: every 32 gradients of 32 is one hook-pattern bucket, and DDP's
        # cap of 32 parameters' bytes one bucket too; the default names are unchanged
        mc = self.mc
        self.assertEqual(mc.spacing_names(), mc.SPACING_VARIANTS)
        out, _ = self.measure(rounds=2, cold=False, spacing_variants=True, spacing_every=(4, 16, 32))
        self.assertEqual(sorted(out["raw"]), sorted(mc.VARIANTS + mc.BUCKET_VARIANTS + mc.SPACING_VARIANTS
                                                    + ("hk_e32", "ddpv_e32", "ddpo_e32")))
        sp = out["issue_spacing"]
        self.assertEqual(sp["buckets"], {"hk_e4": 8, "hk_e16": 2, "hk_e32": 1, "ddpo_e16": 2,
                                         "ddpo_e32": 1})
        self.assertEqual([p[0] for p in sp["hooks"]], [32, 8, 2, 1])
        self.assertEqual([p[0] for p in sp["ddp_offload"]], [32, 2, 1])

    def test_failing_spacing_variant_dropped(self):
        real = self.th.HookFuser.after_backward

        def failing(fuser):
            if fuser.every == 16:
                raise RuntimeError("stand-in failure")
            return real(fuser)
        with mock.patch.object(self.th.HookFuser, "after_backward", failing):
            out, lines = self.measure(rounds=3, cold=False, spacing_variants=True)
        self.assertNotIn("hk_e16", out["raw"])
        self.assertTrue(any("hk_e16 dropped" in x for x in lines))
        self.assertEqual([p[0] for p in out["issue_spacing"]["hooks"]], [32, 8])
        self.assertIn("ddp_hook_bucket_us", out)
        self.assertIn("param_us", out)

    def test_failing_variant_of_before_still_raises(self):
        def failing(fuser):
            raise RuntimeError("stand-in failure")
        with mock.patch.object(self.th.HookFuser, "after_backward", failing):
            with self.assertRaises(RuntimeError):
                self.measure(rounds=2, cold=False, spacing_variants=True)

    def test_capture_spacing_needs_buckets(self):
        # capture_torch --model-cost-spacing alone would measure nothing of it (measure() runs the
        # spacing variants only beside the per-bucket ones): a usage error before torch is needed
        import subprocess
        tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools",
                            "capture_torch.py")
        for extra in ([], ["--model-cost-buckets", "--model-cost-rounds", "0"]):
            p = subprocess.run([sys.executable, tool, "--model", "resnet50", "--out", "-",
                                "--model-cost-spacing"] + extra, capture_output=True, text=True)
            self.assertEqual(p.returncode, 64)
            self.assertEqual(len(p.stderr.splitlines()), 1)
            self.assertIn("--model-cost-buckets", p.stderr)

    def test_groups_where_copies_do_not_fit(self):
        # a copy holds 512000 bytes (32 x 4000 of parameters, gradients, a bucket, SGD's momentum):
        # with 2560000 free, 0.9 of it holds 4 copies, so the 12 variants run in groups of "none"
        # and 3 others (4 groups), every variant measured and every round kept
        mc = self.mc
        with mock.patch.dict(sys.modules, standin(free=2560000)):
            out, lines = self.measure(rounds=3, cold=True, spacing_variants=True, step_bytes=0)
        every = mc.VARIANTS + mc.BUCKET_VARIANTS + mc.SPACING_VARIANTS
        self.assertEqual(sorted(out["raw"]), sorted(every))
        self.assertTrue(all(len(v) == 3 for v in out["raw"].values()))
        self.assertEqual(len(out["variant_groups"]), 4)
        self.assertTrue(all(g[0] == "none" and len(g) <= 4 for g in out["variant_groups"]))
        self.assertEqual(out["variant_groups"][0], ["none", "ddpv_1", "ddpc_h", "hk_1"])
        self.assertEqual(out["issue_spacing"]["buckets"], {"hk_e4": 8, "hk_e16": 2, "ddpo_e16": 2})
        self.assertTrue(any("run in 4 groups" in x for x in lines))
        # all in one group where they fit, or where the step's bytes are not given (torch_launchq's
        # probe): no groups recorded
        out, _ = self.measure(rounds=2, cold=False, step_bytes=0)
        self.assertNotIn("variant_groups", out)
        with mock.patch.dict(sys.modules, standin(free=2560000)):
            out, _ = self.measure(rounds=2, cold=False)
        self.assertNotIn("variant_groups", out)

    def test_not_two_copies_fit(self):
        # 1000000 free: 0.9 of it holds one copy, not one beside the framework-free one
        with mock.patch.dict(sys.modules, standin(free=1000000)):
            with self.assertRaises(RuntimeError):
                self.measure(rounds=2, cold=False, step_bytes=0)

    def test_without_spacing_variants(self):
        out, _ = self.measure(rounds=2, cold=False)
        self.assertFalse(any(v in out["raw"] for v in self.mc.SPACING_VARIANTS))
        self.assertNotIn("issue_spacing", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
