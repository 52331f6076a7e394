#!/usr/bin/env python3
"""tools/calib_torch.py's hf_host part on stand-ins (no torch, no GPU): models whose forward
and backward() calls advance a fake clock by known host costs (1000 + 500 L us forward,
2000 + 700 L us backward for L layers, 300 us of the forward before the first layer is called,
with a call now and then 3x slower), at depths 1 and 3 and at 1, 3 and 6, and the part must
recover 500 / 700 us per layer, 1000 / 2000 us for the rest and 300 us before the first layer
(tiny only), per model and mode,
write its rows as it goes (flush after each model), and rebuild the same rows from its log
(tools/hf_host_from_log.py); models=("qwen3", "llama") (--hf-archs) measures those two alone, in
that order; the tiny Qwen3's configuration is the tiny Llama's with its head size stated."""
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import types

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import calib_torch as c  # noqa: E402

clock = [0.0]
calls = [0]
SLOW = 7


def cost(us):
    # every SLOW-th call runs 3x slower: the rounds' medians ignore it
    calls[0] += 1
    clock[0] += us * 1e-6 * (3 if calls[0] % SLOW == 0 else 1)


class Loss:
    def __init__(self, L):
        self.L = L

    def backward(self):
        cost(2000 + 700 * self.L)


class Layer:
    def __init__(self):
        self.hooks = []

    def register_forward_pre_hook(self, fn):
        self.hooks.append(fn)


class Model:
    """300 us of host work before the first layer is called, then the layers and the rest"""

    def __init__(self, L):
        self.L = L
        first = Layer()
        self.bert = types.SimpleNamespace(encoder=types.SimpleNamespace(layer=[first]))
        self.transformer = types.SimpleNamespace(h=[first])
        self.model = types.SimpleNamespace(layers=[first])
        self.first = first

    def cuda(self):
        return self

    def train(self):
        return self

    def zero_grad(self, set_to_none=True):
        pass

    def __call__(self, input_ids=None, labels=None):
        cost(300)
        for h in self.first.hooks:
            h(self.first, (input_ids,))
        cost(700 + 500 * self.L)
        return types.SimpleNamespace(loss=Loss(self.L))


class Event:
    def record(self):
        pass

    def elapsed_time(self, other):
        return 40.0  # ms: the sleep, longer than every call


torch = types.SimpleNamespace(
    cuda=types.SimpleNamespace(synchronize=lambda: None, Event=lambda enable_timing=True: Event(),
                               _sleep=lambda n: None, empty_cache=lambda: None),
    manual_seed=lambda s: None, randint=lambda a, b, shape, device=None: None,
    autocast=lambda *a, **k: contextlib.nullcontext(), bfloat16=None)
c.time = types.SimpleNamespace(perf_counter=lambda: clock[0])
real_hf_model = c.hf_model
c.hf_model = lambda tf, arch, L, size: (Model(L), 128)
sys.modules["transformers"] = types.SimpleNamespace()
sys.modules["torch_host"] = types.SimpleNamespace(host_probe=lambda: 5.0, bwd_probe=lambda: 6.0,
                                                 cpu_model=lambda: "Fake CPU")
sys.modules["torchvision"] = None  # the ResNet-50 pass is skipped (logged)

fails = []
# three depths: the slope of each round's line gives the same per-layer cost (a slow call now
# and then: every 23rd)
SLOW = 23
rows3, _, _, _ = c.measure_hf_host(torch, lambda m: None, depths=(1, 3, 6))
WANT = {"layer": (500.0, 700.0), "rest": (1000.0, 2000.0), "pre": (300.0, 0.0)}
for r in rows3:
    w = WANT[r["op"].split("_")[2]]
    if (round(r["host_fwd_us"], 6), round(r["host_bwd_us"], 6)) != w:
        fails.append("depths 1,3,6: %s %s: %s, expected %s" % (r["op"], r["dtype"], (r["host_fwd_us"], r["host_bwd_us"]), w))
# tiny only (--hf-sizes tiny): the _tiny rows alone, the same values
rows_t, _, _, _ = c.measure_hf_host(torch, lambda m: None, sizes=("tiny",))
if sorted(r["op"] for r in rows_t) != sorted("hf_%s_%s_tiny" % (a, p) for a in ("bert", "gpt2", "llama", "qwen3")
                                             for p in ("layer", "rest", "pre") for _ in (0, 1)):
    fails.append("tiny only: rows %s" % sorted(r["op"] for r in rows_t))
for r in rows_t:
    if (round(r["host_fwd_us"], 6), round(r["host_bwd_us"], 6)) != WANT[r["op"].split("_")[2]]:
        fails.append("tiny only: %s %s: %s" % (r["op"], r["dtype"], (r["host_fwd_us"], r["host_bwd_us"])))
SLOW = 7
lines, flushed = [], []
rows, probe, probes, diag = c.measure_hf_host(torch, lines.append, flush=lambda r, *a: flushed.append(len(r)))
if len(rows) != 40:
    fails.append("rows: %d, expected 40 (4 models x 2 modes x (layer/rest x real/tiny + pre tiny))" % len(rows))
for r in rows:
    w = WANT[r["op"].split("_")[2]]
    if (r["host_fwd_us"], r["host_bwd_us"]) != w:
        fails.append("%s %s: %s, expected %s" % (r["op"], r["dtype"], (r["host_fwd_us"], r["host_bwd_us"]), w))
if flushed != [5, 10, 15, 20, 25, 30, 35, 40]:
    fails.append("flushed after each model: %s" % flushed)
if probe != 5.0:
    fails.append("probe %s" % probe)
# the autograd thread's probe before and after each model, and the CPU, beside its raw rows
if [(d["bwd_probes_us"], d["cpu_model"]) for d in diag] != [([6.0, 6.0], "Fake CPU")] * 8:
    fails.append("diag's bwd probes: %s" % [(d.get("bwd_probes_us"), d.get("cpu_model")) for d in diag])
# --hf-archs qwen3,llama: those two alone, in the order given (Qwen3's block first), no ResNet-50
order = []
c.hf_model = lambda tf, arch, L, size: (order.append(arch), (Model(L), 128))[1]
rows_q, _, _, _ = c.measure_hf_host(torch, lambda m: None, sizes=("tiny",), models=("qwen3", "llama"))
if [r["op"] for r in rows_q if r["op"].endswith("layer_tiny")] != ["hf_qwen3_layer_tiny"] * 2 + ["hf_llama_layer_tiny"] * 2:
    fails.append("--hf-archs qwen3,llama: rows %s" % [r["op"] for r in rows_q])
if [a for a in dict.fromkeys(order)] != ["qwen3", "llama"]:
    fails.append("--hf-archs qwen3,llama: models built %s" % order)
c.hf_model = lambda tf, arch, L, size: (Model(L), 128)


# the tiny Qwen3 is the tiny Llama's configuration (hidden 64, 2 heads of 32, 2 KV heads, ffn 172,
# vocabulary 128, 64 positions, untied) with q_norm and k_norm: its head size stated, as Qwen3Config's
# default (128) is not hidden / heads
def config(**k):
    return k


fake_tf = types.SimpleNamespace(LlamaConfig=config, Qwen3Config=config, LlamaForCausalLM=lambda k: Model(0),
                                Qwen3ForCausalLM=lambda k: Model(0))
made = {}
for arch in ("llama", "qwen3"):
    cls = {"llama": "LlamaForCausalLM", "qwen3": "Qwen3ForCausalLM"}[arch]
    setattr(fake_tf, cls, lambda k, arch=arch: (made.__setitem__(arch, k), Model(0))[1])
    real_hf_model(fake_tf, arch, 3, "tiny")
want = dict(vocab_size=128, hidden_size=64, intermediate_size=172, num_hidden_layers=3, num_attention_heads=2,
            num_key_value_heads=2, max_position_embeddings=64)
if made.get("llama") != want:
    fails.append("tiny llama config %s" % made.get("llama"))
if made.get("qwen3") != dict(want, head_dim=32, tie_word_embeddings=False):
    fails.append("tiny qwen3 config %s" % made.get("qwen3"))
with tempfile.TemporaryDirectory() as tmp:
    log = os.path.join(tmp, "log.txt")
    open(log, "w").write("\n".join("[  1.0 s] " + x for x in lines) + "\n")
    out = os.path.join(tmp, "d.json")
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "hf_host_from_log.py"), log, out], check=True,
                   capture_output=True)
    back = json.load(open(out))["compute"]["ops"]
    if sorted((o["op"], o["dtype"], o["host_fwd_us"], o["host_bwd_us"]) for o in back) != \
            sorted((o["op"], o["dtype"], o["host_fwd_us"], o["host_bwd_us"]) for o in rows):
        fails.append("the log does not give back the rows")
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
