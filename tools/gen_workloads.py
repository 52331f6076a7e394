#!/usr/bin/env python3
"""Generate the bundled fusim workloads (data/workloads/*.json, format "fusim-workload-1").

    python3 tools/gen_workloads.py [--out DIR] [--check]

Layer shapes and parameter names follow the real architectures (torchvision resnet50,
HF BertForMaskedLM bert-large-uncased, HF LlamaForCausalLM Llama-2-7b). Compute times are
ESTIMATES from a simple roofline, not measurements; every file says so ("estimated": true) and
states the assumptions in "notes". Python 3 standard library only.

The roofline (one rule for every operation, forward and backward):

    t = max(flops / (peak_flops * EFF_MATH),  bytes / (hbm_bw * EFF_MEM),  kernels * KERNEL_US)

  peak_flops  H200 SXM datasheet, dense: bf16 989.4 TFLOP/s (1,979 with sparsity), tf32 494.7,
              fp32 66.9; HBM3e 4.8 TB/s.
  EFF_MATH    0.5: GEMMs and convolutions reach half the dense tensor-core peak.
  EFF_MEM     0.8: memory-bound kernels (norms, activations, pooling) reach 80% of HBM bandwidth.
  KERNEL_US   5 us per kernel: eager PyTorch's host cost to dispatch and launch one op; a kernel
              shorter than that leaves the GPU waiting on the host (this is what makes
              ResNet-50 at batch 64 launch-bound).
  backward    2x the forward FLOPs and bytes (input and weight gradients), 2x the kernels.
  flops       2 * m * n * k per matrix product (convolutions: 2*Cin*Cout*k*k*Hout*Wout per image);
              attention core 4 * B * S^2 * H per layer (QK^T and PV, no causal saving, fused
              flash-style kernel so the S x S scores never reach HBM).
  bytes       activations read + written once (+ the weights), at the activation precision.
  ready time  a parameter's gradient is ready when its operation's backward ends; backward runs
              the operations in exactly the reverse of forward order; within an operation the
              weight comes before the bias. This ready ORDER equals the one tools/capture_torch.py
              measured on the H200 (data/workloads/*_captured.json; tests/workload checks it).
              The TIMES are optimistic there: captured ResNet-50 fwd/bwd 12.2/13.9 ms against
              3.6/7.3 ms here (launch-bound), BERT-large 26.8/23.8 ms against 7.2/14.4 ms.
  optimizer   one fused multi-tensor pass at HBM speed (EFF_MEM): SGD+momentum 20 B/param,
              AdamW: read the gradient (2 or 4 B) + read and write the fp32 master weights,
              m and v (24 B) + write the bf16 copy of the weights for bf16 models (2 B): 28 B per
              parameter for both BERT (fp32 grads) and Llama (bf16 grads).
"""
import argparse
import json
import os
import sys

GPU = "NVIDIA H200 SXM (datasheet)"
PEAK_TFLOPS = {"bf16": 989.4, "tf32": 494.7, "fp32": 66.9}
HBM_TBPS = 4.8
EFF_MATH = 0.5
EFF_MEM = 0.8
KERNEL_US = 5.0


class Op:
    """One forward operation: its cost and the parameters whose gradients it produces."""

    def __init__(self, name, flops=0.0, bytes_=0.0, kernels=1, params=()):
        self.name = name          # operation name (for reading the generator; not written)
        self.flops = flops        # forward FLOPs
        self.bytes = bytes_       # forward HBM traffic, bytes
        self.kernels = kernels    # forward kernels
        self.params = list(params)  # [(parameter name, number of elements)] in module order


def op_time_us(op, mult, peak):
    t_math = op.flops * mult / (peak * 1e12 * EFF_MATH) * 1e6
    t_mem = op.bytes * mult / (HBM_TBPS * 1e12 * EFF_MEM) * 1e6
    return max(t_math, t_mem, op.kernels * mult * KERNEL_US)


def build(name, ops, grad_bytes_per_param, peak_key, opt_bytes_per_param, notes, meta):
    """Forward ops -> workload dict with gradients in ready order (reverse of forward)."""
    peak = PEAK_TFLOPS[peak_key]
    fwd = sum(op_time_us(o, 1, peak) for o in ops)
    grads, t = [], 0.0
    for o in reversed(ops):
        t += op_time_us(o, 2, peak)
        # Within an op the weight's gradient is accumulated before the bias's (module order), as
        # tools/capture_torch.py measured on the H200 with post-accumulate-grad hooks.
        for pname, numel in o.params:
            grads.append({"name": pname, "bytes": numel * grad_bytes_per_param, "ready_us": round(t, 3)})
    bwd = t
    nparams = sum(n for o in ops for _, n in o.params)
    opt = nparams * opt_bytes_per_param / (HBM_TBPS * 1e12 * EFF_MEM) * 1e6
    meta = dict(meta)
    meta.update({"params": nparams, "tensors": len(grads),
                 "grad_bytes": sum(g["bytes"] for g in grads),
                 "forward_tflop": round(sum(o.flops for o in ops) / 1e12, 4),
                 "generator": "tools/gen_workloads.py"})
    return {"format": "fusim-workload-1", "name": name, "estimated": True,
            "notes": notes, "meta": meta,
            "fwd_us": round(fwd, 3), "bwd_us": round(bwd, 3),
            "opt_us": round(opt, 3), "grads": grads}


COMMON_NOTES = (
    "ESTIMATE, not a measurement. Roofline per operation: t = max(flops/(peak*{em}), "
    "bytes/({bw} TB/s*{mm}), kernels*{k} us) on {gpu}: dense peak bf16 {bf} TFLOP/s, "
    "tf32 {tf}, fp32 {fp}; {em:.0%} of peak for GEMM/conv, {mm:.0%} of HBM for memory-bound "
    "kernels, {k} us eager-PyTorch host cost per kernel as a floor. Backward = 2x forward FLOPs, "
    "bytes and kernels; backward runs the operations in reverse and a gradient is ready when "
    "its operation's backward ends. opt_us: one fused optimizer pass at {mm:.0%} of HBM. "
    "No host block: hook/issue costs come from the profile. Generated by tools/gen_workloads.py."
).format(em=EFF_MATH, mm=EFF_MEM, bw=HBM_TBPS, k=KERNEL_US, gpu=GPU,
         bf=PEAK_TFLOPS["bf16"], tf=PEAK_TFLOPS["tf32"], fp=PEAK_TFLOPS["fp32"])


# ---- ResNet-50 (torchvision.models.resnet50, v1.5: stride in the 3x3 conv) -------------------

def resnet50(batch=64, img=224):
    act = 2  # bf16 activations under autocast
    ops = []

    def conv(pname, cin, cout, k, stride, hin):
        hout = (hin + 2 * (k // 2) - k) // stride + 1
        flops = 2.0 * cin * cout * k * k * hout * hout * batch
        byts = (cin * hin * hin + cout * hout * hout) * batch * act + cin * cout * k * k * act
        ops.append(Op(pname, flops, byts, 1, [(pname + ".weight", cin * cout * k * k)]))
        return hout

    def bn(pname, c, h, relu):
        # training BN reads its input twice (statistics, normalize) and writes once; ReLU 1r+1w
        byts = (3 + (2 if relu else 0)) * c * h * h * batch * act
        ops.append(Op(pname, 0.0, byts, 2 if relu else 1,
                      [(pname + ".weight", c), (pname + ".bias", c)]))

    h = conv("conv1", 3, 64, 7, 2, img)
    bn("bn1", 64, h, True)
    ops.append(Op("maxpool", 0.0, 64 * h * h * batch * act * 1.25, 1))
    h = (h + 2 - 3) // 2 + 1
    cin = 64
    for li, (blocks, width, stride) in enumerate([(3, 64, 1), (4, 128, 2), (6, 256, 2), (3, 512, 2)], 1):
        for b in range(blocks):
            p = "layer%d.%d" % (li, b)
            s = stride if b == 0 else 1
            hin = h
            conv(p + ".conv1", cin, width, 1, 1, hin)
            bn(p + ".bn1", width, hin, True)
            h = conv(p + ".conv2", width, width, 3, s, hin)
            bn(p + ".bn2", width, h, True)
            conv(p + ".conv3", width, width * 4, 1, 1, h)
            bn(p + ".bn3", width * 4, h, False)
            if b == 0:
                conv(p + ".downsample.0", cin, width * 4, 1, s, hin)
                bn(p + ".downsample.1", width * 4, h, False)
            ops.append(Op(p + ".add_relu", 0.0, 5 * width * 4 * h * h * batch * act, 2))
            cin = width * 4
    ops.append(Op("avgpool", 0.0, cin * h * h * batch * act, 1))
    ops.append(Op("fc", 2.0 * cin * 1000 * batch, (cin + 1000) * batch * act + cin * 1000 * act, 1,
                  [("fc.weight", cin * 1000), ("fc.bias", 1000)]))
    ops.append(Op("loss", 0.0, 1000 * batch * 4 * 3, 2))
    notes = ("ResNet-50 (torchvision resnet50, v1.5), ImageNet 224x224, batch 64 per GPU, AMP: "
             "bf16 autocast for convolutions and fc (bf16 activations, channels-last), "
             "fp32 parameters and gradients (161 tensors, 25,557,032 params, 97.5 MiB); "
             "SGD with momentum. " + COMMON_NOTES)
    return build("resnet50_b64", ops, 4, "bf16", 20, notes,
                 {"model": "torchvision resnet50", "batch": batch, "image": img,
                  "precision": "amp bf16, fp32 grads"})


# ---- Transformers (BERT-large encoder, Llama-2-7B decoder) ------------------------------------

def transformer(L, H, A, F, V, S, B, act, kv_heads=None, gated=False, bias=True, ln_bias=True,
                names=None, post_ln=False, extra_embed=(), tied=False, head_transform=False):
    """Forward ops of a transformer. `names` maps roles to parameter-name templates."""
    kv = kv_heads or A
    Hkv = H * kv // A
    T = B * S
    ops = []

    def lin(role, i, din, dout, has_bias=None):
        pname = names[role].format(i=i)
        hb = bias if has_bias is None else has_bias
        params = [(pname + ".weight", din * dout)] + ([(pname + ".bias", dout)] if hb else [])
        ops.append(Op(pname, 2.0 * T * din * dout, (T * din + T * dout) * act + din * dout * act,
                      1, params))

    def norm(role, i):
        pname = names[role].format(i=i)
        params = [(pname + ".weight", H)] + ([(pname + ".bias", H)] if ln_bias else [])
        # residual add + norm: read x and the residual, write the sum and the normalized output
        ops.append(Op(pname, 0.0, 4 * T * H * act, 1, params))

    emb = names["embed"] + ".weight"
    ops.append(Op("embed", 0.0, 2 * T * H * act, 1, [(emb, V * H)]))
    for pname, numel in extra_embed:  # further embeddings added to it, in forward order
        ops.append(Op(pname, 0.0, 3 * T * H * act, 1, [(pname, numel)]))
    if names.get("embed_norm"):
        norm("embed_norm", 0)
    for i in range(L):
        if not post_ln:
            norm("norm1", i)
        lin("q", i, H, H)
        lin("k", i, H, Hkv)
        lin("v", i, H, Hkv)
        ops.append(Op("attn%d" % i, 4.0 * B * S * S * H, T * (2 * H + 2 * Hkv) * act, 1))
        lin("o", i, H, H)
        if post_ln:
            norm("norm1", i)
        else:
            norm("norm2", i)
        if gated:
            lin("gate", i, H, F)
            lin("up", i, H, F)
            ops.append(Op("act%d" % i, 0.0, 3 * T * F * act, 1))
        else:
            lin("up", i, H, F)
            ops.append(Op("act%d" % i, 0.0, 2 * T * F * act, 1))
        lin("down", i, F, H)
        if post_ln:
            norm("norm2", i)
    if head_transform:  # BERT MLM head: dense + GELU + LayerNorm before the decoder
        lin("head_dense", 0, H, H, True)
        norm("head_norm", 0)
    if names.get("final_norm"):
        norm("final_norm", 0)
    head_params = []
    if not tied:
        head_params.append((names["lm_head"] + ".weight", V * H))
    if names.get("lm_bias"):
        head_params.append((names["lm_bias"], V))
    ops.append(Op("lm_head", 2.0 * T * H * V, (T * H + T * V) * act + V * H * act, 1, head_params))
    ops.append(Op("loss", 0.0, 3 * T * V * 4, 2))  # fp32 softmax cross-entropy over the logits
    return ops


def bert_large(batch=8, seq=512):
    L, H, A, F, V, P = 24, 1024, 16, 4096, 30522, 512
    e = "bert.embeddings."
    lay = "bert.encoder.layer.{i}."
    names = {
        "embed": e + "word_embeddings", "embed_norm": e + "LayerNorm",
        "q": lay + "attention.self.query", "k": lay + "attention.self.key",
        "v": lay + "attention.self.value", "o": lay + "attention.output.dense",
        "norm1": lay + "attention.output.LayerNorm", "up": lay + "intermediate.dense",
        "down": lay + "output.dense", "norm2": lay + "output.LayerNorm",
        "head_dense": "cls.predictions.transform.dense",
        "head_norm": "cls.predictions.transform.LayerNorm",
        "lm_bias": "cls.predictions.bias",
    }
    # HF BertEmbeddings adds token_type_embeddings first, then position_embeddings
    extra = [(e + "token_type_embeddings.weight", 2 * H), (e + "position_embeddings.weight", P * H)]
    ops = transformer(L, H, A, F, V, seq, batch, 2, names=names, post_ln=True, extra_embed=extra,
                      tied=True, head_transform=True)
    notes = ("BERT-large uncased as HF BertForMaskedLM (24 layers, hidden 1024, 16 heads, ffn 4096, "
             "vocab 30522, post-LN; the MLM decoder weight is tied to word_embeddings and its bias "
             "to cls.predictions.bias, so they are one tensor each): 394 gradient tensors, "
             "335,174,458 params, fp32 gradients = 1.25 GiB. (BertForPreTraining adds the pooler and "
             "the NSP head: 398 tensors.) Sequence 512, batch 8 per GPU, AMP bf16 autocast, "
             "flash-style attention; AdamW. " + COMMON_NOTES)
    return build("bert_large_b8", ops, 4, "bf16", 28, notes,
                 {"model": "HF BertForMaskedLM bert-large-uncased", "batch": batch, "seq": seq,
                  "precision": "amp bf16, fp32 grads"})


def llama2_7b(batch=1, seq=4096):
    L, H, A, F, V = 32, 4096, 32, 11008, 32000
    lay = "model.layers.{i}."
    names = {
        "embed": "model.embed_tokens",
        "norm1": lay + "input_layernorm", "norm2": lay + "post_attention_layernorm",
        "q": lay + "self_attn.q_proj", "k": lay + "self_attn.k_proj",
        "v": lay + "self_attn.v_proj", "o": lay + "self_attn.o_proj",
        "gate": lay + "mlp.gate_proj", "up": lay + "mlp.up_proj", "down": lay + "mlp.down_proj",
        "final_norm": "model.norm", "lm_head": "lm_head",
    }
    ops = transformer(L, H, A, F, V, seq, batch, 2, gated=True, bias=False, ln_bias=False,
                      names=names)
    notes = ("Llama-2-7B as HF LlamaForCausalLM (32 layers, hidden 4096, 32 heads, SwiGLU ffn 11008, "
             "vocab 32000, RMSNorm, untied lm_head): 291 gradient tensors, 6,738,415,616 params, "
             "bf16 gradients = 12.55 GiB. Sequence 4096, micro-batch 1 per GPU, bf16 parameters and "
             "activations, flash-style attention (no causal saving counted); AdamW with fp32 master "
             "weights and states. Whether it fits in memory (without ZeRO/FSDP or activation "
             "checkpointing) is not modelled. " + COMMON_NOTES)
    return build("llama2_7b_s4096", ops, 2, "bf16", 28, notes,
                 {"model": "HF LlamaForCausalLM Llama-2-7b", "batch": batch, "seq": seq,
                  "precision": "bf16"})


# Stated facts each workload must reproduce (independent of the generator's arithmetic).
EXPECT = {
    "resnet50": (resnet50, 161, 25557032, 4),
    "bert_large": (bert_large, 394, 335174458, 4),
    "llama2_7b": (llama2_7b, 291, 6738415616, 2),
}


def dump(w):
    """JSON with one gradient per line (readable diffs), via the json module."""
    head = {k: v for k, v in w.items() if k != "grads"}
    text = json.dumps(head, indent=1)[:-2]  # drop the closing "\n}"
    lines = [" " + json.dumps(g) for g in w["grads"]]
    return text + ',\n "grads": [\n' + ",\n".join(lines) + "\n ]\n}\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(here, "..", "data", "workloads"))
    ap.add_argument("--check", action="store_true",
                    help="compare with the files in --out instead of writing them")
    args = ap.parse_args()
    status = 0
    for fname, (fn, ntensors, nparams, bpp) in EXPECT.items():
        w = fn()
        got_t, got_p = len(w["grads"]), w["meta"]["params"]
        if got_t != ntensors or got_p != nparams or w["meta"]["grad_bytes"] != nparams * bpp:
            sys.exit("%s: %d tensors, %d params; expected %d, %d" % (fname, got_t, got_p, ntensors, nparams))
        if fname == "resnet50":  # torchvision documents 4.09 GFLOPS (multiply-adds) per image
            macs = w["meta"]["forward_tflop"] * 1e12 / 2 / w["meta"]["batch"]
            if abs(macs / 4.09e9 - 1) > 0.01:
                sys.exit("resnet50: %.4g multiply-adds per image; torchvision says 4.09e9" % macs)
        path = os.path.join(args.out, fname + ".json")
        text = dump(w)
        json.loads(text)  # the output is valid JSON
        if args.check:
            with open(path) as f:
                if f.read() != text:
                    print("%s: differs from the generator's output" % path, file=sys.stderr)
                    status = 1
            continue
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
        print("%-40s %4d tensors %14d params %8.1f MiB fwd %10.1f us bwd %10.1f us opt %8.1f us" % (
            os.path.relpath(path), got_t, got_p, w["meta"]["grad_bytes"] / 2**20, w["fwd_us"],
            w["bwd_us"], w["opt_us"]))
    return status


if __name__ == "__main__":
    sys.exit(main())
