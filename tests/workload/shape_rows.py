#!/usr/bin/env python3
"""shape_rows.py (the test): tools/shape_rows.py's rows by hand, for three architectures and two
modes, and its bad input.

The bundled profile with hand-made real-size path rows: reduce_split 4 us and embedding_sort
178 us of host backward (both dtypes). What PyTorch adds at each shape, counted here by hand from
its kernels' switches (ATen's Reduce.cuh splits a column sum from 1024 rows at 128 outputs or
more; embedding_dense_backward_cuda sorts above 3072 indices), at hidden 512, 32 x 128 tokens and
more (4096+ rows and indices):
- BERT: a layer's 6 bias gradients split (24 us); the rest's MLM-head transform and decoder biases
  (8) and two embeddings on the sort path, the words' and the token types' (B x S indices each;
  the positions' are 1 x S): 8 + 356 = 364 us;
- GPT-2: a layer's 4 biases (c_attn, attn.c_proj, c_fc, mlp.c_proj: 16); the rest the word
  embedding's sort (178; positions 1 x S, the head tied without a bias);
- Llama: a layer's 2 RMSNorm weights (8); the rest the embedding's sort and the final norm's
  weight (182).
Three BERT bf16 shapes (32 x 128, 256, 384) whose layers' backward read 1000, 1050, 1100 us and
rests' 1300, 1320, 1200: the layer row is the median of 976, 1026, 1076 = 1026, the rest's of
936, 956, 836 = 936. GPT-2 bf16 one shape 900 / 1500: 884 / 1322; Llama bf16 2000 / 1800: 1992
/ 1618. BERT fp32 at 2 x 128 (256 tokens: no split, no sort) 700 / 1400: the rows as read.
Forward is not carried (0).
Bad input, one stderr line each and no file written: a shape file that is not JSON 66, a shape
fusim cannot build (heads not dividing hidden) 65, a mode that is not bf16 / fp32 65, a shape
file without its result 65, --fusim that is not there 66, --out in a missing folder 73.
Usage: shape_rows.py FUSIM"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, finish, start  # noqa: E402

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "shape_rows.py")
fusim, tmp, prof = start()


def put(name, doc):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def shape(arch, mode, batch, seq, layer, rest, heads=8):
    ffn = 1536 if arch == "llama" else 2048
    vocab = {"bert": 30522, "gpt2": 50257, "llama": 32000}[arch]
    return {"shape": {"arch": arch, "mode": mode, "hidden": 512, "heads": heads, "ffn": ffn, "vocab": vocab,
                      "batch": batch, "seq": seq, "depth": 8},
            "result": {"layer_us": [800.0, layer], "rest_us": [1500.0, rest]}}


def run(*args):
    return subprocess.run([sys.executable, TOOL, "--fusim", fusim] + list(args), capture_output=True, text=True)


hand = {"dtype": "bf16", "numel": [], "fwd_us": [], "bwd_us": [], "host_fwd_us": 0.0}
ops = [t for t in prof["compute"]["ops"] if t["op"] not in ("reduce_split", "embedding_sort")]
for dt in ("bf16", "fp32"):
    ops += [dict(hand, op="reduce_split", dtype=dt, host_bwd_us=4.0),
            dict(hand, op="embedding_sort", dtype=dt, host_bwd_us=178.0)]
prof["compute"]["ops"] = ops
pf = put("p.json", prof)
shapes = [put("b%d.json" % i, shape("bert", "bf16", 32, 128 * (i + 1), lay, rest))
          for i, (lay, rest) in enumerate(((1000.0, 1300.0), (1050.0, 1320.0), (1100.0, 1200.0)))]
shapes += [put("g.json", shape("gpt2", "bf16", 32, 128, 900.0, 1500.0)),
           put("l.json", shape("llama", "bf16", 32, 128, 2000.0, 1800.0)),
           put("f.json", shape("bert", "fp32", 2, 128, 700.0, 1400.0))]
out = os.path.join(tmp, "rows.json")
r = run("--profile", pf, "--out", out, *shapes)
check("exit", r.returncode, 0, 0)
got = {(o["op"], o["dtype"]): o for o in (json.load(open(out))["compute"]["ops"] if r.returncode == 0 else [])}
want = {("hf_bert_layer_shape", "bf16"): 1026.0, ("hf_bert_rest_shape", "bf16"): 936.0,
        ("hf_gpt2_layer_shape", "bf16"): 884.0, ("hf_gpt2_rest_shape", "bf16"): 1322.0,
        ("hf_llama_layer_shape", "bf16"): 1992.0, ("hf_llama_rest_shape", "bf16"): 1618.0,
        ("hf_bert_layer_shape", "fp32"): 700.0, ("hf_bert_rest_shape", "fp32"): 1400.0}
check("rows: as many as by hand", len(got), len(want), 0)
TOL = 0.02  # the --ops listing's 3 decimals over up to 8 operations
for k, us in want.items():
    o = got.get(k, {"host_bwd_us": -1.0, "host_fwd_us": -1.0})
    check("%s %s: host bwd" % k, o["host_bwd_us"], us, TOL)
    check("%s %s: host fwd not carried" % k, o["host_fwd_us"], 0.0, 0)
bad_heads = shape("bert", "bf16", 32, 128, 1000.0, 1300.0, heads=7)
no_result = {"shape": shape("bert", "bf16", 32, 128, 1.0, 1.0)["shape"]}
bad = (("not JSON", [put("junk.json", "{")], 66),
       ("heads not dividing hidden", [put("h7.json", bad_heads)], 65),
       ("mode fp16", [put("m.json", dict(bad_heads, shape=dict(bad_heads["shape"], heads=8, mode="fp16")))], 65),
       ("no result", [put("nr.json", no_result)], 65))
for what, files, code in bad:
    o = os.path.join(tmp, "bad.json")
    r = run("--profile", pf, "--out", o, *files)
    check(what + ": exit", r.returncode, code, 0)
    check(what + ": one stderr line", len(r.stderr.strip().splitlines()), 1, 0)
    check(what + ": nothing written", os.path.exists(o), False, 0)
o = os.path.join(tmp, "bad.json")
r = run("--fusim", os.path.join(tmp, "no-fusim"), "--profile", pf, "--out", o, *shapes[:1])   # the last --fusim
check("--fusim missing: exit", r.returncode, 66, 0)
check("--fusim missing: one stderr line", len(r.stderr.strip().splitlines()), 1, 0)
check("--fusim missing: nothing written", os.path.exists(o), False, 0)
r = run("--profile", pf, "--out", os.path.join(tmp, "no", "x.json"), *shapes[:1])
check("--out in a missing folder: exit", r.returncode, 73, 0)
check("--out in a missing folder: one stderr line", len(r.stderr.strip().splitlines()), 1, 0)
finish()
