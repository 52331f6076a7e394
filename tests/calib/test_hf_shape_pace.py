#!/usr/bin/env python3
"""test_hf_shape_pace.py: tools/hf_shape_pace.py's figures from hand-made steps, and its bad
arguments. Profile rows (bf16): rest 1000 / 2000 us, layer 500 / 1000, deep 600 / 1200, so the
reference step (3 layers) is 2500 / 5000. Each round runs at its own host speed s (1, 1.5, 0.8):
the reference at s x 2500 / 5000, the shape at 3 layers at s x 3000 / 6500 and at 8 layers at
s x (3000 + 5 x 720) / (6500 + 5 x 1440). So a layer at the shape is 720 / 1440 us at the
profile's speed whatever s, 1.2 / 1.2 x the deep row; the 3-layer step 3000 / 6500 us, 1.2 / 1.3 x
the reference; the rest 3000 - 3 x 720 = 840 and 6500 - 3 x 1440 = 2180. Without a deep row the
layer row (500 / 1000) is the one compared: 1.44 / 1.44."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import hf_shape_pace  # noqa: E402

fails = []


def check(what, got, want, tol=1e-6):
    if not abs(got - want) <= tol:
        fails.append("%s: got %r, expected %r" % (what, got, want))


rows = [{"op": "hf_bert_rest_tiny", "dtype": "bf16", "host_fwd_us": 1000.0, "host_bwd_us": 2000.0},
        {"op": "hf_bert_layer_tiny", "dtype": "bf16", "host_fwd_us": 500.0, "host_bwd_us": 1000.0}]
deep = {"op": "hf_bert_deep_tiny", "dtype": "bf16", "host_fwd_us": 600.0, "host_bwd_us": 1200.0}
rounds = [((s * 2500, s * 5000), (s * 3000, s * 6500), (s * (3000 + 5 * 720), s * (6500 + 5 * 1440)))
          for s in (1.0, 1.5, 0.8)]
r = hf_shape_pace.shape_pace(rounds, {"compute": {"ops": rows + [deep]}}, "bert", "bf16", 8) or {}
for key, want in (("layer_us", (720, 1440)), ("layer_over_row", (1.2, 1.2)), ("row_us", (600, 1200)),
                  ("step_ref_layers_us", (3000, 6500)), ("step_over_ref", (1.2, 1.3)),
                  ("rest_us", (840, 2180)), ("rest_row_us", (1000, 2000))):
    got = r.get(key, [])
    check("%s: two" % key, len(got), 2)
    for k, g in enumerate(got[:2]):
        check("%s[%d]" % (key, k), g, want[k], 0.01)
check("rounds", r.get("rounds", 0), 3)
r = hf_shape_pace.shape_pace(rounds, {"compute": {"ops": rows}}, "bert", "bf16", 8) or {}
check("no deep row: over the layer row", (r.get("layer_over_row") or [0])[0], 1.44, 1e-3)
check("another mode: none", hf_shape_pace.shape_pace(rounds, {"compute": {"ops": rows}}, "bert", "fp32", 8)
      is None, True)
# bad arguments: one line, exit 64 / 65 / 66 (a missing profile, as hf_depth and cnn_depth) / 73,
# before torch is imported, nothing written
tool = os.path.join(HERE, "..", "..", "tools", "hf_shape_pace.py")
with tempfile.TemporaryDirectory() as tmp:
    for name, d in (("ok.json", {"compute": {"ops": rows}}), ("list.json", [1])):
        with open(os.path.join(tmp, name), "w") as f:
            json.dump(d, f)
    for args, want in ((["--depth", "3"], 64), (["--rounds", "0"], 64), (["--arch", "vit"], 64),
                       (["--heads", "7"], 64), (["--mode", "fp16"], 64), (["--seq", "0"], 64),
                       (["--seq", "1025"], 64),
                       (["--profile", "list.json"], 65), (["--mode", "fp32"], 65),
                       (["--profile", "missing.json"], 66),
                       (["--out", os.path.join("missing", "x.json")], 73)):
        cmd = [sys.executable, tool, "--profile", "ok.json", "--out", "x.json"] + args
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
        check("%s: exit" % " ".join(args), p.returncode, want)
        check("%s: one line" % " ".join(args), len(p.stderr.strip().splitlines()), 1)
    check("nothing written", sorted(os.listdir(tmp)) == ["list.json", "ok.json"], True)
# the shape given reaches the model's config (calib_torch.hf_model's shape, in place of HF_REAL):
# a stand-in for transformers that keeps the config it is given
import calib_torch  # noqa: E402


class _Cfg(dict):
    def __init__(self, **kw):
        super().__init__(kw)


class _Model:
    def __init__(self, cfg):
        self.cfg, self.config = cfg, type("C", (), {})()


tf = type("TF", (), {"BertConfig": _Cfg, "BertForMaskedLM": _Model})
m, V = calib_torch.hf_model(tf, "bert", 8, "real", dict(hidden=512, heads=8, ffn=2048, vocab=30522))
check("shape: vocabulary", V, 30522)
check("shape: config", (m.cfg["hidden_size"], m.cfg["num_attention_heads"], m.cfg["intermediate_size"],
                        m.cfg["num_hidden_layers"], m.cfg["vocab_size"]) == (512, 8, 2048, 8, 30522), True)
m, V = calib_torch.hf_model(tf, "bert", 2, "real")
check("no shape: HF_REAL's", (m.cfg["hidden_size"], V) == (calib_torch.HF_REAL["bert"]["hidden"],
                                                           calib_torch.HF_REAL_VOCAB), True)
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
