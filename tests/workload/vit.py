#!/usr/bin/env python3
"""vit.py: fusim workload --transformer --arch vit builds torchvision's VisionTransformer as
torchvision does, checked against independent data and by hand:
- parameters against torchvision's published counts (its model documentation): vit_b_16
  86,567,656, vit_b_32 88,224,232, vit_l_16 304,326,632, vit_l_32 306,535,400, in 152 / 296
  tensors (4 + 12 a block + 4); by hand: in_proj_weight 3 x 768 x 768 (nn.MultiheadAttention's
  packed q, k, v), in_proj_bias 2304, the position embedding 197 x 768 ((224 / 16)^2 patches and
  the class token), conv_proj.weight 768 x 3 x 16 x 16, the head 1000 x 768;
- gradients ready as backward runs: the head's first, the patch convolution's last;
- no dropout kernels at torchvision's default 0;
- the residual stream's layout (fu__vit_ops): block 0's ln_1 reads a contiguous input and its
  forward costs what BERT's LayerNorm costs at the same tokens and width (another builder's op,
  same table); every LayerNorm after block 0's attention copies its input, forward and backward,
  so block 1's ln_1 and block 0's ln_2 cost the same forward, one copy above block 0's ln_1, and in
  backward each is one input copy above its contiguous twin (ln_1 also copies its gradient);
- the ops_vit tables where a profile has them (tools/calib_torch.py: copy_t, bias_add, add_t): two
  profiles, the repository's H200 profile with hand-made tables A (10 us at 1e6 elements, 1000 at
  1e8: 10 us per million) and B (twice A); each table value is a power law, so at block 0's 32 x
  197 x 768 = 4,841,472 tokens x width B - A is 48.415 us (whatever fusim subtracts as timer
  overhead cancels): block 1's ln_1 forward (one copy) moves by that, block 0's in_proj forward
  (a copy of the input, the bias add and the q/k/v copy at 3x the elements) by 48.415 + 2 x
  145.244, block 0's MLP residual add by 48.415; tables in bf16 alone price a tf32 build as no tables do;
- the patch embedding's NCHW conv table (k16s16) where a profile has one: flat hand-made tables
  of 100 and 300 us move the patch convolution's forward and backward by 200 us each, nothing else;
- rows marked derived are named in one warning where the build prices with them: the bundled
  profile's deep row at TF32 (its layout tables measured), nothing at 2 layers, bf16 marks at
  --precision bf16 but not at TF32, the fp32 copy under autocast but not add_t (not priced
  there), none without marks; a mark over 47 bytes is refused in one line;
- bad input: a patch that does not tile the image, --seq or --vocab with vit, --patch or --image
  without vit, --kv-heads with vit: one line naming it, exit 64, nothing written.
Usage: vit.py FUSIM"""
import copy
import csv
import json
import os
import subprocess
import sys
import tempfile

fusim = sys.argv[1]
SHAPES = {"vit_b_16": (12, 768, 12, 3072, 16), "vit_b_32": (12, 768, 12, 3072, 32),
          "vit_l_16": (24, 1024, 16, 4096, 16), "vit_l_32": (24, 1024, 16, 4096, 32)}
PUBLISHED = {"vit_b_16": (86567656, 152), "vit_b_32": (88224232, 152),
             "vit_l_16": (304326632, 296), "vit_l_32": (306535400, 296)}
fails = []


def vit_args(model, batch=8, extra=()):
    L, H, A, F, P = SHAPES[model]
    return [fusim, "workload", "--transformer", "--arch", "vit", "--layers", str(L), "--hidden", str(H),
            "--heads", str(A), "--ffn", str(F), "--patch", str(P), "--micro-batch", str(batch)] + list(extra)


def ops(path):
    return list(csv.DictReader(open(path)))


with tempfile.TemporaryDirectory() as tmp:
    grads = {}
    for model, (params, tensors) in PUBLISHED.items():
        out = os.path.join(tmp, model + ".json")
        r = subprocess.run(vit_args(model, extra=["--precision", "tf32", "--out", out]), capture_output=True, text=True)
        if r.returncode != 0:
            fails.append("%s: exit %d: %s" % (model, r.returncode, r.stderr.strip()))
            continue
        w = json.load(open(out))
        g = [(x["name"], x["bytes"] // 4) for x in w["grads"]]  # fp32 parameters, in ready order
        grads[model] = dict(g)
        if (sum(n for _, n in g), len(g)) != (params, tensors):
            fails.append("%s: %d parameters in %d tensors, torchvision has %d in %d"
                         % (model, sum(n for _, n in g), len(g), params, tensors))
        if model == "vit_b_16" and g:
            if not g[0][0].startswith("heads.head.") or not g[-1][0].startswith("conv_proj."):
                fails.append("vit_b_16: ready first %s, last %s; expected the head's, the convolution's"
                             % (g[0][0], g[-1][0]))
    b16 = grads.get("vit_b_16", {})
    for name, numel in (("encoder.layers.encoder_layer_0.self_attention.in_proj_weight", 3 * 768 * 768),
                        ("encoder.layers.encoder_layer_0.self_attention.in_proj_bias", 2304),
                        ("encoder.layers.encoder_layer_11.self_attention.out_proj.weight", 768 * 768),
                        ("encoder.layers.encoder_layer_0.mlp.3.weight", 3072 * 768),
                        ("encoder.pos_embedding", 197 * 768), ("class_token", 768),
                        ("conv_proj.weight", 768 * 3 * 16 * 16), ("heads.head.weight", 1000 * 768),
                        ("encoder.ln.bias", 768)):
        if b16.get(name) != numel:
            fails.append("vit_b_16 %s: %r, expected %d" % (name, b16.get(name), numel))

    # the layout copies, against BERT's LayerNorm at the same tokens (32 x 197) and width
    vcsv, bcsv = os.path.join(tmp, "vit.csv"), os.path.join(tmp, "bert.csv")
    r = subprocess.run(vit_args("vit_b_16", 32, ["--precision", "tf32", "--ops", vcsv, "--out", os.path.join(tmp, "v.json")]),
                       capture_output=True, text=True)
    r2 = subprocess.run([fusim, "workload", "--transformer", "--arch", "bert", "--layers", "1", "--hidden", "768",
                         "--heads", "12", "--ffn", "3072", "--vocab", "1000", "--seq", "197", "--micro-batch", "32",
                         "--precision", "tf32", "--ops", bcsv, "--out", os.path.join(tmp, "b.json")],
                        capture_output=True, text=True)
    if r.returncode or r2.returncode:
        fails.append("ops listings: exit %d / %d: %s %s" % (r.returncode, r2.returncode, r.stderr, r2.stderr))
    else:
        v = ops(vcsv)
        if any(o["op"] == "dropout" for o in v):
            fails.append("vit: dropout operations at torchvision's default dropout 0")
        ln = {(o["layer"], o["param"].rsplit(".", 2)[-2]): o for o in v if o["op"] == "layernorm"}
        bert_ln = next(o for o in ops(bcsv) if o["param"].endswith("attention.output.LayerNorm.weight"))
        l0, l0b, l1 = ln[("0", "ln_1")], ln[("0", "ln_2")], ln[("1", "ln_1")]
        f = lambda o, k: float(o[k])  # noqa: E731
        # forward: block 0's ln_1 is BERT's; block 1's ln_1 and block 0's ln_2 add one input copy
        if abs(f(l0, "fwd_us") - f(bert_ln, "fwd_us")) > 0.01:
            fails.append("block 0's ln_1 forward %.3f, BERT's LayerNorm %.3f" % (f(l0, "fwd_us"), f(bert_ln, "fwd_us")))
        if abs(f(l1, "fwd_us") - f(l0b, "fwd_us")) > 0.01:
            fails.append("block 1's ln_1 forward %.3f, block 0's ln_2 %.3f: both copy their input"
                         % (f(l1, "fwd_us"), f(l0b, "fwd_us")))
        # backward: ln_2 is BERT's plus the input's copy; ln_1 adds its gradient's copy, and from
        # block 1 on the input's copy as ln_2 does
        if abs((f(l1, "bwd_us") - f(l0, "bwd_us")) - (f(l0b, "bwd_us") - f(bert_ln, "bwd_us"))) > 0.01:
            fails.append("backward: block 1's ln_1 - block 0's %.3f, block 0's ln_2 - BERT's %.3f: one input copy each"
                         % (f(l1, "bwd_us") - f(l0, "bwd_us"), f(l0b, "bwd_us") - f(bert_ln, "bwd_us")))
        if not f(l1, "fwd_us") > f(l0, "fwd_us") + 1:
            fails.append("block 1's ln_1 forward %.3f not above block 0's %.3f (its input copy)"
                         % (f(l1, "fwd_us"), f(l0, "fwd_us")))

    # the ops_vit tables, A and B by hand
    base = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data",
                                       "profiles", "h200-default.json")))

    def with_tables(k, dtype):
        """The H200 profile with hand-made ops_vit tables (k x A) in dtype alone (k 0: none)."""
        p = copy.deepcopy(base)
        p["compute"]["ops"] = [o for o in p["compute"]["ops"] if o["op"] not in ("copy_t", "bias_add", "add_t")]
        for op in ("copy_t", "bias_add", "add_t") if k else ():
            p["compute"]["ops"].append({"op": op, "dtype": dtype, "numel": [1e6, 1e8], "fwd_us": [10.0 * k, 1000.0 * k],
                                        "bwd_us": [1.0, 1.0], "host_fwd_us": 5.0, "host_bwd_us": 0.0})
        path = os.path.join(tmp, "prof_%g_%s.json" % (k, dtype))
        json.dump(p, open(path, "w"))
        return path

    def b16_ops(prof, what):
        """ViT-B/16 b32 TF32's --ops rows under prof (None, and a failure named what, where it fails)."""
        out = os.path.join(tmp, "o.csv")
        r = subprocess.run(vit_args("vit_b_16", 32, ["--precision", "tf32", "--profile", prof, "--ops", out,
                                                     "--out", os.path.join(tmp, "t.json")]), capture_output=True, text=True)
        if r.returncode:
            fails.append("%s: exit %d: %s" % (what, r.returncode, r.stderr.strip()))
            return None
        return ops(out)

    def layer_ops(prof):
        rows = b16_ops(prof, "ops_vit tables")
        if rows is None:
            return None
        l0 = [o for o in rows if o["layer"] == "0"]
        return {"ln_1@1": float(next(o for o in rows if o["param"].endswith("encoder_layer_1.ln_1.weight"))["fwd_us"]),
                "in_proj@0": float(next(o for o in l0 if o["param"].endswith("in_proj_weight"))["fwd_us"]),
                "mlp_add@0": float([o for o in l0 if o["op"] == "add"][-1]["fwd_us"])}
    a, b = layer_ops(with_tables(1, "fp32")), layer_ops(with_tables(2, "fp32"))
    if a and b:
        u = 10.0 * 4841472 / 1e6
        for k, want in (("ln_1@1", u), ("in_proj@0", u + 2 * 3 * u), ("mlp_add@0", u)):
            if abs((b[k] - a[k]) - want) > 0.01:
                fails.append("ops_vit tables: %s forward moves %.3f from A to B, expected %.3f" % (k, b[k] - a[k], want))
    plain = layer_ops(with_tables(0, "fp32"))
    bf = layer_ops(with_tables(1, "bf16"))
    if plain and bf and plain != bf:
        fails.append("ops_vit tables in bf16 alone changed a tf32 build: %s against %s" % (bf, plain))

    # the patch embedding's NCHW table (calib_torch --conv-format nchw --conv-classes k16s16):
    # hand-made A (every point 100 us) and B (300 us), fwd and wgrad; the table is flat, so the
    # convolution's forward and backward each move by 200 us, and it is the ViT's one convolution,
    # so nothing else does
    def with_patch(us):
        p = copy.deepcopy(base)
        p["compute"]["conv"] = [t for t in p["compute"].get("conv", []) if t["kernel"] != 16] + [
            {"dtype": "tf32", "layout": lay, "kernel": 16, "stride": 16, "format": "nchw", "m": m, "n": n, "k": k,
             "us": [us] * 4} for lay, m, n, k in (("fwd", [1568, 25088], [384, 1280], [768]),
                                                  ("wgrad", [384, 1280], [768], [1568, 25088]))]
        path = os.path.join(tmp, "patch_%g.json" % us)
        json.dump(p, open(path, "w"))
        return b16_ops(path, "patch table")
    pa, pb = with_patch(100), with_patch(300)
    if pa and pb:
        for x, y in zip(pa, pb):
            moved = [float(y[c]) - float(x[c]) for c in ("fwd_us", "bwd_us")]
            want = [200.0, 200.0] if x["op"] == "conv" else [0.0, 0.0]
            if any(abs(m - w) > 0.01 for m, w in zip(moved, want)):
                fails.append("patch table: %s %s moves %s from A to B, expected %s" % (x["op"], x["param"], moved, want))
                break

    # derived rows (tools/derive_gpu_ops.py, tools/deep_row_carry.py) are named in one warning, each
    # where the build prices with it: the bundled H200 profile's deep row (a layer past the
    # reference's 3; its ViT layout tables were measured in session 49), layout tables marked by
    # hand; none with the marks taken out or when no derived row is used (2 layers: no deep row;
    # bf16 marks alone and a TF32 build)
    def derived_warning(extra, prof=None):
        r = subprocess.run(vit_args("vit_b_16", 32, extra + (["--profile", prof] if prof else []) +
                                    ["--out", os.path.join(tmp, "d.json")]), capture_output=True, text=True)
        said = [ln for ln in r.stderr.splitlines()   # the tables' warning (the optimizer's has its own)
                if "not measured on its GPU" in ln and "optimizer fit" not in ln]
        if r.returncode or len(said) > 1:
            fails.append("derived rows %s: exit %d, %r" % (extra, r.returncode, r.stderr))
        return said[0] if said else ""

    def marked(dtypes):
        """The H200 profile with its ops_vit rows marked derived in dtypes only, the deep row unmarked."""
        p = copy.deepcopy(base)
        for o in p["compute"]["ops"]:
            o.pop("derived", None)
            if o["op"] in ("copy_t", "bias_add", "add_t") and o["dtype"] in dtypes:
                o["derived"] = "by hand"
        path = os.path.join(tmp, "marked_%s.json" % "_".join(dtypes) if dtypes else "unmarked")
        json.dump(p, open(path, "w"))
        return path
    said = derived_warning(["--precision", "tf32"])
    if "hf_vit_deep_tiny fp32 (" not in said or any(k in said for k in ("copy_t", "bias_add", "add_t")):
        fails.append("bundled profile, TF32: the deep row alone expected named in %r" % said)
    said = derived_warning(["--precision", "tf32", "--layers", "2"])
    if said:
        fails.append("bundled profile, 2 layers: no derived row priced, yet %r" % said)
    for extra, dtypes, want, unwanted in ((["--precision", "bf16"], ["bf16"], ["copy_t bf16", "bias_add bf16"], []),
                                          (["--precision", "tf32"], ["bf16"], [], ["copy_t", "bias_add", "add_t"]),
                                          (["--precision", "autocast-bf16"], ["bf16", "fp32"], ["copy_t fp32"], ["add_t"]),
                                          (["--precision", "tf32"], [], [], ["copy_t", "bias_add", "add_t"])):
        said = derived_warning(extra, marked(dtypes))
        if any(k not in said for k in want) or any(k in said for k in unwanted):
            fails.append("%s with %s rows marked: %r (expected %s named, %s not)" % (extra, dtypes, said, want, unwanted))
    # a mark longer than 47 bytes: one line, exit 65, nothing written
    p = copy.deepcopy(base)
    next(o for o in p["compute"]["ops"] if o["op"] == "copy_t")["derived"] = "x" * 48
    json.dump(p, open(os.path.join(tmp, "long.json"), "w"))
    no = os.path.join(tmp, "long_out.json")
    r = subprocess.run(vit_args("vit_b_16", 8, ["--profile", os.path.join(tmp, "long.json"), "--out", no]),
                       capture_output=True, text=True)
    if r.returncode == 0 or len(r.stderr.strip().splitlines()) != 1 or "47 bytes" not in r.stderr or os.path.exists(no):
        fails.append("a 48-byte derived mark: exit %d, %r" % (r.returncode, r.stderr))

    for what, extra, says in (("patch 15 of 224", ["--patch", "15"], "does not tile"), ("--seq", ["--seq", "197"], "--seq"),
                              ("--vocab", ["--vocab", "1000"], "--vocab"), ("--kv-heads", ["--kv-heads", "4"], "--kv-heads")):
        no = os.path.join(tmp, "no.json")
        r = subprocess.run(vit_args("vit_b_16", extra=extra + ["--out", no]), capture_output=True, text=True)
        if r.returncode != 64 or len(r.stderr.strip().splitlines()) != 1 or os.path.exists(no) or says not in r.stderr:
            fails.append("%s: exit %d, %r (expected one line naming %s)" % (what, r.returncode, r.stderr, says))
    r = subprocess.run([fusim, "workload", "--transformer", "--arch", "bert", "--layers", "2", "--hidden", "64",
                        "--heads", "2", "--ffn", "256", "--vocab", "100", "--seq", "16", "--micro-batch", "1",
                        "--patch", "16", "--out", os.path.join(tmp, "no.json")], capture_output=True, text=True)
    if r.returncode != 64 or len(r.stderr.strip().splitlines()) != 1 or os.path.exists(os.path.join(tmp, "no.json")):
        fails.append("--patch without vit: exit %d, %r" % (r.returncode, r.stderr))
    r = subprocess.run([fusim, "workload", "--transformer", "--arch", "bert", "--layers", "2", "--hidden", "64",
                        "--heads", "2", "--ffn", "256", "--vocab", "100", "--seq", "16", "--micro-batch", "1",
                        "--image", "384", "--out", os.path.join(tmp, "no.json")], capture_output=True, text=True)
    if r.returncode != 64 or "--image" not in r.stderr or os.path.exists(os.path.join(tmp, "no.json")):
        fails.append("--image without vit or --cnn: exit %d, %r" % (r.returncode, r.stderr))
for f_ in fails:
    print("FAIL: " + f_, file=sys.stderr)
sys.exit(1 if fails else 0)
