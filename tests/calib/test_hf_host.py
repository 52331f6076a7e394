#!/usr/bin/env python3
"""tools/calib_torch.py's hf_host part on stand-ins (no torch, no GPU): models whose forward
and backward() calls advance a fake clock by known host costs (1000 + 500 L us forward,
2000 + 700 L us backward for L layers, 300 us of the forward before the first layer is called,
with a call now and then 3x slower), at depths 1 and 3 and at 1, 3 and 6, and the part must
recover 500 / 700 us per layer, 1000 / 2000 us for the rest and 300 us before the first layer
(tiny only), per model and mode,
write its rows as it goes (flush after each model), and rebuild the same rows from its log
(tools/hf_host_from_log.py); models=("qwen3", "llama") (--hf-archs) measures those two alone, in
that order; the tiny Qwen3's configuration is the tiny Llama's with its head size stated.
--hf-interleave (measure_hf_pairs), on a host whose speed switches 1.5x between rounds and with a
Qwen3 layer 1.3x / 1.2x a Llama layer (forward / backward): every round's qwen3/llama is 1.3 / 1.2,
so the paired ratio is, in both modes, while hf_host timing the two one after another on the same
host gives 1.95 / 1.8 (the host's 1.5 x the cost's), and where the host is slow in about half the
rounds one odd round moves one model's median to the other mode (rows' ratio 1.95, paired 1.3);
each round times every (architecture, depth) once, the order shuffled, the same with the same seed;
the time budget; the command line's refusals."""
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
# the host's speed: 1 unless HOST_SLOW is set: then every call runs 1.5x slower while the model
# forward calls begun so far, counted in periods of 8 (FWD), are in one of HOST_SLOW's periods
FWD = [0]
HOST_SLOW = None


SPIKE = set()  # the forward calls (numbered as FWD counts them) that run 3x slower


def cost(us, spike=1):
    # every SLOW-th call runs 3x slower: the rounds' medians ignore it
    calls[0] += 1
    speed = 1.5 if HOST_SLOW is not None and (FWD[0] - 1) // 8 in HOST_SLOW else 1.0
    clock[0] += us * 1e-6 * (3 if calls[0] % SLOW == 0 else 1) * speed * spike


# an architecture's host costs, us: before the first layer, the rest of the forward, a layer's
# forward, the backward's rest, a layer's backward
LLAMA = dict(pre=300, fwd=700, layer_f=500, bwd=2000, layer_b=700)


class Loss:
    def __init__(self, L, k=LLAMA):
        self.L, self.k = L, k

    def backward(self):
        cost(self.k["bwd"] + self.k["layer_b"] * self.L)


class Layer:
    def __init__(self):
        self.hooks = []

    def register_forward_pre_hook(self, fn):
        self.hooks.append(fn)


class Model:
    """300 us of host work before the first layer is called, then the layers and the rest"""

    def __init__(self, L, k=LLAMA, name="llama"):
        self.L, self.k, self.name = L, k, name
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
        FWD[0] += 1
        forwards.append((self.name, self.L))
        spike = 3 if FWD[0] in SPIKE else 1
        cost(self.k["pre"], spike)
        for h in self.first.hooks:
            h(self.first, (input_ids,))
        cost(self.k["fwd"] + self.k["layer_f"] * self.L, spike)
        return types.SimpleNamespace(loss=Loss(self.L, self.k))


forwards = []  # (architecture, layers) of every forward call


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

# --hf-interleave (measure_hf_pairs) on a host whose speed switches between two modes (1.5x apart)
# round by round: slow in the periods of 8 forward calls listed in HOST_SLOW, fast in the others.
# A Qwen3 layer costs 1.3x a Llama layer forward (650 against 500 us) and 1.2x backward (840 against
# 700), its rest 1.1x forward (330 + 770 against 300 + 700) and 1.0x backward, its part before the
# first layer 1.1x (330 against 300); no other noise.
QWEN3 = dict(pre=330, fwd=770, layer_f=650, bwd=2000, layer_b=840)
COSTS = {"llama": LLAMA, "qwen3": QWEN3}
SLOW = 10 ** 9
HOST_SLOW = {3, 7, 10, 11, 12, 13, 15, 16, 17, 18}
c.hf_model = lambda tf, arch, L, size: (Model(L, COSTS[arch], arch), 128)


def fresh():
    FWD[0] = 0
    del forwards[:]


def ratio_of(rows, op, mode, k):
    got = {(r["op"], r["dtype"]): r for r in rows}
    return got["hf_qwen3_%s_tiny" % op, mode][k] / got["hf_llama_%s_tiny" % op, mode][k]


# Interleaved, 2 warmup + 9 timed rounds a mode: a round is 4 steps of 2 forward calls (held, then
# plain), 8 forwards, one period, so round g of the run (bf16: 0-10, fp32: 11-21) is slow where g is
# in HOST_SLOW: bf16's timed rounds 2-10 are slow at 3, 7 and 10 (3 of 9), fp32's 13-21 at 13, 15,
# 16, 17, 18 (5 of 9). Each round's models share its speed, so every round's qwen3 / llama is the
# costs' ratio: layer 1.3 / 1.2, rest 1.1 / 1.0, pre 1.1, whatever the mode, the interval a point.
# The rows (medians over rounds) carry the host's speed: bf16 at the fast mode (500 / 700 us a Llama
# layer), fp32 at the slow one (750 / 1050).
fresh()
flushed, lines_i = [], []
rows_i, _, _, _, pairs = c.measure_hf_pairs(torch, lines_i.append, ("llama", "qwen3"), rounds=9,
                                             flush=lambda *a: flushed.append(sorted(a[4]["modes"])))
WANT_R = {"layer": [1.3, 1.2], "rest": [1.1, 1.0], "pre": [1.1, None]}
for mode in ("bf16", "fp32"):
    got = pairs["modes"][mode]["ratios"]["qwen3"]
    for part, w in WANT_R.items():
        for k in (0, 1):
            x = got[part][k]
            want = None if w[k] is None else {"median": w[k], "ci95": [w[k], w[k]], "rounds": 9}
            if x != want:
                fails.append("interleaved %s %s %s: %s, expected %s" % (mode, part, ("fwd", "bwd")[k], x, want))
want_rows = {}
for arch, k in COSTS.items():
    for mode, s in (("bf16", 1.0), ("fp32", 1.5)):
        want_rows["hf_%s_layer_tiny" % arch, mode] = (k["layer_f"] * s, k["layer_b"] * s)
        want_rows["hf_%s_rest_tiny" % arch, mode] = ((k["pre"] + k["fwd"]) * s, k["bwd"] * s)
        want_rows["hf_%s_pre_tiny" % arch, mode] = (k["pre"] * s, 0.0)
got_rows = {(r["op"], r["dtype"]): (round(r["host_fwd_us"], 6), round(r["host_bwd_us"], 6)) for r in rows_i}
if got_rows != want_rows:
    fails.append("interleaved rows %s, expected %s" % (sorted(got_rows.items()), sorted(want_rows.items())))
if flushed != [["bf16"], ["bf16", "fp32"]]:
    fails.append("interleaved: flushed after each mode: %s" % flushed)
# every round times each (architecture, depth) once, held then plain, in the order it records, and
# the order is shuffled (not the same in every round), the same again with the same seed
units = {("llama", 1), ("llama", 3), ("qwen3", 1), ("qwen3", 3)}
seen = forwards[:]
steps = [seen[j] for j in range(0, len(seen), 2)]
if any(seen[j] != seen[j + 1] for j in range(0, len(seen), 2)) or len(steps) != 2 * 11 * 4:
    fails.append("interleaved: forwards not in held/plain pairs, or %d steps (want 88)" % len(steps))
rounds_seen = [steps[j:j + 4] for j in range(0, len(steps), 4)]
if any(set(r) != units for r in rounds_seen):
    fails.append("interleaved: a round without every (architecture, depth) once: %s" % rounds_seen)
timed = rounds_seen[2:11] + rounds_seen[13:22]
orders = pairs["modes"]["bf16"]["orders"] + pairs["modes"]["fp32"]["orders"]
if orders != [",".join("%s:%d" % u for u in r) for r in timed]:
    fails.append("interleaved: recorded orders %s against the calls' %s" % (orders, timed))
if len(set(orders)) < 4:
    fails.append("interleaved: the order barely changes: %s" % orders)
fresh()
again = c.measure_hf_pairs(torch, lambda m: None, ("llama", "qwen3"), rounds=9)[4]
if [again["modes"][m]["orders"] for m in ("bf16", "fp32")] != [pairs["modes"][m]["orders"] for m in ("bf16", "fp32")]:
    fails.append("interleaved: another run with the same seed, other orders")
# The same host timing the two one after another, as hf_host does (each model and mode 10 rounds of 2
# steps, 40 forwards, 5 periods; timed rounds 2-9 in periods 1-4 of each block): Llama's blocks
# (periods 0-9) are slow in 2 of 8 rounds (median: fast), Qwen3's (periods 10-19) in 6 of 8 (slow):
# the ratios of its rows are the host's 1.5 times the costs', layer 1.95 / 1.8, rest 1.65, pre 1.65.
fresh()
rows_s, _, _, _ = c.measure_hf_host(torch, lambda m: None, sizes=("tiny",), models=("llama", "qwen3"))
for op, k, w in (("layer", "host_fwd_us", 1.95), ("layer", "host_bwd_us", 1.8), ("rest", "host_fwd_us", 1.65),
                 ("pre", "host_fwd_us", 1.65)):
    for mode in ("bf16", "fp32"):
        r = ratio_of(rows_s, op, mode, k)
        if round(r, 6) != w:
            fails.append("one after another %s %s %s: ratio %.4f, expected %s" % (op, k, mode, r, w))
# the interleaved run's own rows give the same ratios as its pairs here (each round's models move
# alike); the pairs add the interval over rounds
for op, k, w in (("layer", "host_fwd_us", 1.3), ("layer", "host_bwd_us", 1.2)):
    for mode in ("bf16", "fp32"):
        if round(ratio_of(rows_i, op, mode, k), 6) != w:
            fails.append("interleaved rows' %s %s %s ratio %.4f" % (op, k, mode, ratio_of(rows_i, op, mode, k)))
# Where the host is slow in about half the rounds, the medians of each model's rounds are where one
# odd round puts them, and their ratio is off; the paired ratio is not. bf16's timed rounds 2-10 slow
# at 2, 4, 6, 8 (4 of 9), and in round 3 (fast) Qwen3's 3-layer plain forward 3x slower: Qwen3's layer
# forward that round (3 x 3050 - 1750) / 2 = 3700 us. Its rows' median: the 5th of 650 x 4, 975 x 4,
# 3700 = 975 (slow); Llama's: the 5th of 500 x 5, 750 x 4 = 500 (fast): a ratio of 1.95. The rounds'
# ratios: 1.3 in 8 rounds, 7.4 in one: median 1.3. (The orders are the first run's: the same seed.)
fresh()
HOST_SLOW = {2, 4, 6, 8}
pos = pairs["modes"]["bf16"]["orders"][1].split(",").index("qwen3:3")
SPIKE = {8 * 3 + 2 * pos + 2}
odd = c.measure_hf_pairs(torch, lambda m: None, ("llama", "qwen3"), rounds=9)
SPIKE = set()
if forwards[8 * 3 + 2 * pos + 1] != ("qwen3", 3):
    fails.append("odd round: the spiked forward was %s" % (forwards[8 * 3 + 2 * pos + 1],))
if round(ratio_of(odd[0], "layer", "bf16", "host_fwd_us"), 6) != 1.95:
    fails.append("odd round: the rows' ratio %.4f, expected 1.95" % ratio_of(odd[0], "layer", "bf16", "host_fwd_us"))
x = odd[4]["modes"]["bf16"]["ratios"]["qwen3"]["layer"][0]
if x["median"] != 1.3 or not x["ci95"][0] <= 1.3 <= x["ci95"][1] or x["rounds"] != 9:
    fails.append("odd round: the paired ratio %s, expected 1.3" % x)
if sorted(v[0] for v in odd[4]["modes"]["bf16"]["rounds_us"]["qwen3"]["layer"]) != [650.0] * 4 + [975.0] * 4 + [3700.0]:
    fails.append("odd round: Qwen3's rounds %s" % odd[4]["modes"]["bf16"]["rounds_us"]["qwen3"]["layer"])
# seconds: a mode's rounds stop once that long has passed since its first timed round (here after one)
fresh()
short = c.measure_hf_pairs(torch, lambda m: None, ("llama", "qwen3"), rounds=9, seconds=1e-9)[4]
if [short["modes"][m]["rounds"] for m in ("bf16", "fp32")] != [1, 1]:
    fails.append("interleaved seconds=1e-9: rounds %s" % [short["modes"][m]["rounds"] for m in ("bf16", "fp32")])
# the part as calib_torch.py --parts hf_host --hf-interleave writes it (rows, and the rounds under
# compute.hf_pairs), and tools/qwen3_rows.py on that file: the bundled profile's Llama rows x the
# rounds' 1.3 / 1.2 (layer), 1.1 / 1.0 (rest), 1.1 (pre)
fresh()
comp = {}
args = types.SimpleNamespace(hf_interleave=True, hf_archs=("llama", "qwen3"), hf_depths=(1, 3), hf_rounds=9, budget=0)
c.run_part("hf_host", args, comp, torch, None, None, None, lambda m: None, None)
prof_ops = {(o["op"], o["dtype"]): o for o in json.load(open(os.path.join(ROOT, "data", "profiles", "h200-default.json")))
            ["compute"]["ops"]}
with tempfile.TemporaryDirectory() as tmp:
    cf, qf = os.path.join(tmp, "calib.json"), os.path.join(tmp, "q.json")
    json.dump({"format": "fusim-compute-1", "compute": comp}, open(cf, "w"))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "qwen3_rows.py"), "--profile",
                        os.path.join(ROOT, "data", "profiles", "h200-default.json"), "--out", qf, cf],
                       capture_output=True, text=True)
    got = {(o["op"], o["dtype"]): o for o in json.load(open(qf))["compute"]["ops"]} if r.returncode == 0 else {}
    for (part, rf, rb) in (("layer", 1.3, 1.2), ("rest", 1.1, 1.0), ("pre", 1.1, 0.0)):
        for mode in ("bf16", "fp32"):
            base, g = prof_ops.get(("hf_llama_%s_tiny" % part, mode)), got.get(("hf_qwen3_%s_tiny" % part, mode))
            if base is None:
                continue
            if g is None or abs(g["host_fwd_us"] - round(base["host_fwd_us"] * rf, 2)) > 0.011 or \
                    abs(g["host_bwd_us"] - round(base["host_bwd_us"] * rb, 2)) > 0.011:
                fails.append("qwen3_rows on the part's file: %s %s: %s against %s x %s / %s (%s)"
                             % (part, mode, g, base, rf, rb, r.stderr.strip()))
HOST_SLOW = None
# the command line: --hf-interleave refused (one line, exit 64) without --hf-sizes tiny, with fewer
# than two HF architectures, with resnet50; --hf-rounds below 1
for args in (["--hf-interleave"], ["--hf-interleave", "--hf-sizes", "tiny", "--hf-archs", "llama"],
             ["--hf-interleave", "--hf-sizes", "tiny", "--hf-archs", "llama,qwen3,resnet50"],
             ["--hf-interleave", "--hf-sizes", "tiny", "--hf-archs", "llama,qwen3", "--hf-rounds", "0"]):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "calib_torch.py"), "--out", "/nonexistent/x.json",
                        "--parts", "hf_host"] + args, capture_output=True, text=True)
    if r.returncode != 64 or len(r.stderr.strip().splitlines()) != 1:
        fails.append("%s: exit %d, stderr %r" % (args, r.returncode, r.stderr))
# the log gives back the rows (hf_host's, and --hf-interleave's: the same lines)
for name, ls, rs in (("hf_host", lines, rows), ("interleaved", lines_i, rows_i)):
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "log.txt")
        open(log, "w").write("\n".join("[  1.0 s] " + x for x in ls) + "\n")
        out = os.path.join(tmp, "d.json")
        subprocess.run([sys.executable, os.path.join(ROOT, "tools", "hf_host_from_log.py"), log, out], check=True,
                       capture_output=True)
        back = json.load(open(out))["compute"]["ops"]
        if sorted((o["op"], o["dtype"], o["host_fwd_us"], o["host_bwd_us"]) for o in back) != \
                sorted((o["op"], o["dtype"], o["host_fwd_us"], o["host_bwd_us"]) for o in rs):
            fails.append("%s: the log does not give back the rows" % name)
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
