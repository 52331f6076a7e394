#!/usr/bin/env python3
"""calib_torch.py: calibrate the compute model's framework-side tables on a GPU with PyTorch,
the way eager PyTorch runs a training step. Writes one JSON object ("format":
"fusim-compute-1") whose "compute" part `fusim fit --compute FILE` merges into a profile
(GEMM tables come from `fusim calib`'s cuBLAS shape sweep instead).

What is measured (device times: the calls are queued behind torch.cuda._sleep so that the CUDA
events time the GPU alone; host times: wall time of back-to-back calls on tiny tensors, where
the GPU waits on the host):
  attention  F.scaled_dot_product_attention (what HF models call: flash in bf16, memory-efficient
             in fp32) forward and backward, for dtype x head size x causal x dropout x sequence
             length, at bh = batch x heads = 2^19 / seq (>= 16) and, below it, 16..256
             (attn_bhs; --quick: the first only).
  ops        memory-bound operations by element count of their input (2^16 .. 2^26), forward and
             backward, in bf16 and fp32 inputs, plus the host cost of one forward call and of its
             backward node: layernorm, rmsnorm (the HF Llama composite), gelu, gelu_tanh,
             gelu_new (the HF composite formula), silu_mul, dropout, add, bias_grad, cast,
             embedding, cross_entropy (fp32 over a [rows, 32768] input), rotary (HF composite),
             batchnorm2d, relu, maxpool, and host-only entries linear, sdpa, view, module, conv,
             gconv (conv's call with 4 groups).
  optimizer  torch.optim AdamW, Adam (PyTorch's default: foreach on CUDA) and SGD (momentum 0.9)
             stepped inside training steps of model-like nets (Linear + LayerNorm blocks, 16..1000
             tensors): device time behind a sleep kernel, least squares
             t = base + per_tensor * tensors + per_elem * elements; opt.step()'s CPU time after a
             forward and backward, host = host_base + host_per_tensor * tensors; the last
             kernel's share (tail_frac); the host-speed probe beside them (host_probe_us).
             --optimizers picks the rows; adamw_clip, adam_clip, sgd_clip step with
             torch.nn.utils.clip_grad_norm_(params, 1.0) before opt.step(), inside the timings.
  framework  host time of HF BertForMaskedLM, GPT2LMHeadModel and LlamaForCausalLM layers (tiny
             configs: 1 and 3 layers; per layer = difference / 2), forward and backward, with
             bf16 autocast and in fp32: ops "hf_bert_layer", "hf_bert_rest", ... (host only).
  ops_unaligned  cross_entropy over a vocabulary of 50257 (not a multiple of 8; also in ops):
             op "cross_entropy_unaligned".
  ops_loss   (not by default) cross_entropy as HF BERT's MLM loss runs under bf16 autocast
             (CrossEntropyLoss on the bf16 logits, no cast first: log-softmax in bf16, its output
             cast up for nll_loss) over a [rows, 32768] and a [rows, 30522] input: ops
             "cross_entropy_ac", "cross_entropy_ac_unal" (their bf16 rows; the fp32 rows are
             the fp32 loss again).
  ops_ln     (not by default) layernorm at widths 512, 768, 2048 and 4096 (ops "layernorm_w512",
             ...; "layernorm" is 1024 wide): its weight's gradient reduces over the rows.
  ops_ln_narrow (not by default) layernorm at widths 96, 192, 384 and 512 again (ConvNeXt's
             and small ViTs' norms): ops "layernorm_w96", ...
  ops_bn     (not by default) batch norm at 64, 128, 512, 1024 and 2048 channels (ops
             "batchnorm2d_c64", ...) and again at 256 ("batchnorm2d"): its statistics reduce over the pixels.
             Batch norm's tables (here and in ops) add sqrt(2)-spaced sizes 2^21..2^25 (BN_FINE_SIZES).
  memory     (not by default) the device memory PyTorch keeps through a training step beside the
             model's tensors: memory_allocated() after a Linear layer's forward and backward (plain
             and under bf16 autocast), its tensors freed, less before, from no cuBLAS workspace
             (each handle and stream takes one: forward's thread and autograd's):
             "workspace_bytes", which fusim workload counts in the step's memory.
  timer      (not by default) what device_us's per-call events add to a call of the tables above
             (op, GEMM, conv, attention calls; a stream of them against one event pair around
             it): "timer_overhead_us", which fusim subtracts from every table's time.
  ops_cat    (not by default) torch.cat's host cost over 1..48 inputs, forward and backward
             (CatBackward's narrows and the gradient adds of a map several cats take): ops "cat"
             (at one input) and "cat_input" (each input past it), host only; a DenseNet's
             concatenations.
  tv         host time of a whole torchvision ResNet-50 step (batch 2, 32x32): op "tv_resnet50".
  gemm_unaligned  cuBLAS fwd/dgrad/wgrad of a linear layer with a vocabulary not a multiple of 8
             (tokens x vocab x hidden), bf16 and TF32: the profile's "gemm_unaligned" tables.
  gemm       (not by default) the aligned fwd/dgrad/wgrad tables as torch.matmul runs them, on
             fusim calib's grid (fp32) and at the widths and token counts between its powers of
             two (bf16, TF32: GEMM_WIDTHS, GEMM_TOKENS): the profile's "gemm" tables.
  conv       (not by default) cuDNN convolutions (channels-last, benchmark mode) fwd, dgrad,
             wgrad by class (1x1 and 3x3 at stride 1 and 2, the 7x7 stride-2 stem, ViT's patch
             embeddings, ConvNeXt's 4x4 stem and 2x2 downsampling) over output
             pixels x input x output channels, bf16 and TF32: the profile's "conv" tables.
             --conv-format nchw: in PyTorch's default NCHW layout instead (tables "format": "nchw").
  ops_bn_small (not by default) batch norm at 16 and 32 channels, channels-last and NCHW
             ("batchnorm2d_c16", "batchnorm2d_nchw_c16", ...): MobileNet's narrow early norms.
  ops_nchw   (not by default) batch norm (at 256 channels and BN_CHANNELS) and max pooling in the
             NCHW layout: ops "batchnorm2d_nchw", "batchnorm2d_nchw_c64", ..., "maxpool_nchw".
  dwconv     (not by default) the depthwise convolutions (groups = channels; cuDNN channels-last,
             ATen's conv_depthwise2d kernels in NCHW, as F.conv2d dispatches them) of MobileNet,
             EfficientNet, MNASNet and ConvNeXt: 3x3 and 5x5 at stride 1 and 2, 7x7 at stride 1
             (classes dw3s1, ..., dw7s1), as the conv part (--conv-format, --conv-dtypes,
             --conv-classes): tables "groups": "grouped" with k = kernel x kernel.
  gconv      (not by default) grouped convolutions of wider groups (ResNeXt's, RegNet's): 3x3 at
             stride 1 and 2 (classes g3s1, g3s2) over group widths 4..256 and channels 128, 512,
             2048, as the conv part: tables "groups": "grouped" with k = width x 3 x 3.
  ops_mobile (in ops too) relu6, silu, sigmoid, hardswish, hardsigmoid; squeeze-and-excitation's
             gate multiply ("se_scale") and global average pool ("avgpool_global"), each also in
             NCHW ("_nchw"); EfficientNet's stochastic depth in training ("stochastic_depth"); the
             copy autograd makes before an in-place activation that keeps its input ("clone").
  ops_vit    (in ops too) torchvision's ViT layout operations (width 768, 197 tokens): a copy from
             (batch, seq) to (seq, batch) order ("copy_t"), a bias added apart onto a (tokens,
             2304) output ("bias_add"), and an add of operands in the two orders ("add_t").
Only the parts measured are written, so `fusim fit --compute FILE --merge-into P` updates those
tables of P and keeps the rest (op tables by name and dtype, GEMM and conv tables by key).
Usage: python3 tools/calib_torch.py --out compute.json [--quick] [--parts a,b,..] [--budget S]
"""
import argparse
import json
import math
import os
import statistics
import sys
import time


def _die(msg, status=65):
    print("calib_torch: " + msg, file=sys.stderr)
    sys.exit(status)


def _names(text, allowed, msg):
    """The comma-separated names of text, each once, in the order given; an empty list or a name
    not in allowed: msg, exit 64."""
    given = [z for z in text.split(",") if z]
    if not given or any(z not in allowed for z in given):
        _die(msg, 64)
    return tuple(dict.fromkeys(given))


def import_torch(prog):
    """torch, or one stderr line (prog: ...) and exit 69 where PyTorch or a CUDA GPU is missing."""
    try:
        import torch
    except ImportError as e:
        print("%s: PyTorch is needed (%s)" % (prog, e), file=sys.stderr)
        sys.exit(69)
    if not torch.cuda.is_available():
        print("%s: no CUDA GPU visible" % prog, file=sys.stderr)
        sys.exit(69)
    return torch


class Timer:
    """Device time of a callable: runs queued behind a sleep kernel, events around each."""

    def __init__(self, torch):
        self.t = torch

    def _sleep_cycles(self, fn, reps, warmup):
        """Warms fn up and returns the sleep (cycles) that outlasts the host's enqueueing of reps
        runs of it (~2000 cycles per us)."""
        torch = self.t
        for _ in range(warmup):
            fn()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        one = (time.perf_counter() - t0) * 1e6  # the host's enqueueing of one run
        torch.cuda.synchronize()
        return int(min(2e9, 2000 * (one * reps * 2 + 1000)))

    def device_us(self, fn, reps=10, warmup=2):
        torch = self.t
        cycles = self._sleep_cycles(fn, reps, warmup)
        evs = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
               for _ in range(reps)]
        torch.cuda._sleep(cycles)
        for a, b in evs:
            a.record()
            fn()
            b.record()
        torch.cuda.synchronize()
        return statistics.median(a.elapsed_time(b) * 1e3 for a, b in evs)

    def batch_us(self, fn, reps=20, warmup=2):
        """Device time per call of reps calls back to back behind the sleep, one event pair
        around them all: what a stream of the model's calls costs a call, with no events
        between them (device_us's per-call events add their own time to every call)."""
        torch = self.t
        cycles = self._sleep_cycles(fn, reps, warmup)
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(cycles)
        a.record()
        for _ in range(reps):
            fn()
        b.record()
        torch.cuda.synchronize()
        return a.elapsed_time(b) * 1e3 / reps

    def host_us(self, fn, calls=200, warmup=20):
        torch = self.t
        for _ in range(warmup):
            fn()
        torch.cuda.synchronize()
        best = []
        for _ in range(3):
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            best.append((time.perf_counter() - t0) * 1e6 / calls)
            torch.cuda.synchronize()
        return statistics.median(best)


def op_defs(torch, F):
    """name -> (make(numel, dtype) -> (inputs, fn, params)); fn(*inputs) is the forward."""
    H = 1024

    def rows(numel, h=H):
        return max(1, numel // h)

    def mk_ln_w(h):
        # its weight's and bias's gradients reduce over the rows: at one element count a
        # narrower layer has more rows, so the time depends on the width too
        def mk(numel, dt):
            x = torch.randn(rows(numel, h), h, device="cuda", dtype=dt, requires_grad=True)
            w = torch.ones(h, device="cuda", dtype=dt, requires_grad=True)
            b = torch.zeros(h, device="cuda", dtype=dt, requires_grad=True)
            return [x], (lambda x: F.layer_norm(x, (h,), w, b)), [w, b]
        return mk
    mk_ln = mk_ln_w(H)

    def mk_rms(numel, dt):
        x = torch.randn(rows(numel), H, device="cuda", dtype=dt, requires_grad=True)
        w = torch.ones(H, device="cuda", requires_grad=True)

        def rms(x):  # transformers' LlamaRMSNorm.forward
            dtype = x.dtype
            h = x.to(torch.float32)
            var = h.pow(2).mean(-1, keepdim=True)
            h = h * torch.rsqrt(var + 1e-6)
            return w * h.to(dtype)
        return [x], rms, [w]

    def mk_unary(f):
        def mk(numel, dt):
            x = torch.randn(numel, device="cuda", dtype=dt, requires_grad=True)
            return [x], f, []
        return mk

    def gelu_new(x):  # transformers' NewGELUActivation
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))

    def mk_silu_mul(numel, dt):
        g = torch.randn(numel, device="cuda", dtype=dt, requires_grad=True)
        u = torch.randn(numel, device="cuda", dtype=dt, requires_grad=True)
        return [g, u], (lambda g, u: F.silu(g) * u), []

    def mk_add(numel, dt):
        a = torch.randn(numel, device="cuda", dtype=dt, requires_grad=True)
        b = torch.randn(numel, device="cuda", dtype=dt, requires_grad=True)
        return [a, b], (lambda a, b: a + b), []

    def mk_bias_grad(numel, dt):
        x = torch.randn(rows(numel), H, device="cuda", dtype=dt, requires_grad=True)
        return [x], (lambda x: x.sum(0)), []

    def mk_cast(numel, dt):
        x = torch.randn(numel, device="cuda", dtype=torch.float32, requires_grad=True)
        return [x], (lambda x: x.to(torch.bfloat16)), []

    def mk_emb(numel, dt):
        w = torch.randn(1024, H, device="cuda", dtype=dt, requires_grad=True)
        ids = torch.randint(0, 1024, (rows(numel),), device="cuda")
        return [w], (lambda w: F.embedding(ids, w)), []

    def mk_ce_vocab(V):
        def mk(numel, dt):
            x = torch.randn(rows(numel, V), V, device="cuda", dtype=dt, requires_grad=True)
            y = torch.randint(0, V, (rows(numel, V),), device="cuda")
            return [x], (lambda x: F.cross_entropy(x.float(), y)), []
        return mk
    mk_ce = mk_ce_vocab(32768)

    def mk_ce_ac_vocab(V):
        # BERT's MLM loss under autocast: CrossEntropyLoss on the logits as they are (bf16),
        # where HF's causal-LM losses cast them to fp32 first (mk_ce_vocab)
        def mk(numel, dt):
            x = torch.randn(rows(numel, V), V, device="cuda", dtype=dt, requires_grad=True)
            y = torch.randint(0, V, (rows(numel, V),), device="cuda")

            def f(x):
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    return F.cross_entropy(x, y)
            return [x], f, []
        return mk

    def rotate_half(x):
        x1 = x[..., : x.shape[-1] // 2]
        x2 = x[..., x.shape[-1] // 2:]
        return torch.cat((-x2, x1), dim=-1)

    def mk_rot(numel, dt):
        hd = 128
        s = max(1, numel // (hd * 16))
        q = torch.randn(1, 16, s, hd, device="cuda", dtype=dt, requires_grad=True)
        cos = torch.randn(1, 1, s, hd, device="cuda", dtype=dt)
        sin = torch.randn(1, 1, s, hd, device="cuda", dtype=dt)
        return [q], (lambda q: (q * cos) + (rotate_half(q) * sin)), []

    def mk_rot_hf(numel, dt):
        # the rotary step as HF Llama runs it: q is a transposed view of its projection's output
        # (strided; bf16 under autocast) and cos / sin follow the fp32 residual stream, so the
        # products promote to fp32 through PyTorch's strided, type-converting elementwise path,
        # unlike "rotary" (contiguous q, cos and sin of q's dtype)
        hd, h = 128, 16
        s = max(1, numel // (hd * h))
        x = torch.randn(1, s, h * hd, device="cuda", dtype=dt, requires_grad=True)
        cos = torch.randn(1, 1, s, hd, device="cuda")
        sin = torch.randn(1, 1, s, hd, device="cuda")

        def rot(x):
            q = x.view(1, s, h, hd).transpose(1, 2)
            return (q * cos) + (rotate_half(q) * sin)
        return [x], rot, []

    def mk_gelu_new_ac(numel, dt):
        # GPT-2's gelu_new as autocast runs it: pow is on autocast's fp32 list, so its input is
        # cast up (PyTorch's unvectorised bf16 -> fp32 copy) and the rest mixes bf16 and fp32
        # operands (the unvectorised type-converting path), unlike "gelu_new" in one dtype
        x = torch.randn(numel, device="cuda", dtype=dt, requires_grad=True)

        def f(x):
            with torch.autocast("cuda", dtype=torch.bfloat16):
                return gelu_new(x)
        return [x], f, []

    def mk_add_mixed(numel, dt):
        # a residual add under autocast: the fp32 stream plus a branch's output in dt
        a = torch.randn(numel, device="cuda", requires_grad=True)
        b = torch.randn(numel, device="cuda", dtype=dt, requires_grad=True)
        return [a, b], (lambda a, b: a + b), []

    def mk_kv_cat(strided):
        # transformers 5's DynamicCache in a training forward: torch.cat onto an empty 1-D
        # tensor, i.e. one copy of the (batch, heads, seq, 64) keys or values into a new tensor;
        # GPT-2's keys and values (and Llama's values) are transposed views of a projection's
        # output (strided), Llama's keys come out of the rotary step contiguous
        def mk(numel, dt):
            hd, h = 64, 16
            s = max(1, numel // (hd * h))
            if strided:
                qkv = torch.randn(1, s, 3 * h * hd, device="cuda", dtype=dt, requires_grad=True)
                src = lambda x: x[..., h * hd:2 * h * hd].view(1, s, h, hd).transpose(1, 2)  # noqa: E731
            else:
                qkv = torch.randn(1, h, s, hd, device="cuda", dtype=dt, requires_grad=True)
                src = lambda x: x  # noqa: E731
            empty = torch.tensor([], device="cuda", dtype=dt)
            return [qkv], (lambda x: torch.cat([empty, src(x)], dim=-2)), []
        return mk

    def image_batch(numel, C, dt, fmt, min_hw=1):
        # 16 square images of C channels, about numel elements in all, in layout fmt, a leaf
        # that wants its gradient (the CNN operations' inputs below)
        hw = max(min_hw, int(math.sqrt(max(1, numel // (C * 16)))))
        return torch.randn(16, C, hw, hw, device="cuda", dtype=dt).to(memory_format=fmt).requires_grad_(True)

    def mk_bn_c(C, fmt=torch.channels_last):
        # batch 16, square images, channels-last (fmt: torch.contiguous_format for the NCHW
        # tables); fp32 parameters as a CNN has them (under autocast a bf16 input meets fp32
        # parameters: ATen's native kernel; in fp32 cuDNN's). Its per-channel statistics and
        # gradients reduce over batch x pixels: at one element count the time depends on the
        # channel count too
        def mk(numel, dt):
            x = image_batch(numel, C, dt, fmt)
            bn = torch.nn.BatchNorm2d(C).cuda()
            return [x], (lambda x: bn(x)), list(bn.parameters())
        return mk

    def mk_relu(numel, dt):
        x = torch.randn(numel, device="cuda", dtype=dt, requires_grad=True)
        return [x], (lambda x: F.relu(x)), []

    def mk_pool_f(fmt):
        def mk(numel, dt):
            x = image_batch(numel, 64, dt, fmt, min_hw=2)
            return [x], (lambda x: F.max_pool2d(x, 3, 2, 1)), []
        return mk
    mk_pool = mk_pool_f(torch.channels_last)
    nchw = torch.contiguous_format

    # torchvision's ViT (part ops_vit; sim/fu_builder.c fu__vit_ops): nn.MultiheadAttention's
    # layout copies between (batch, seq, hidden) and (seq, batch, hidden) order (rows of 768
    # elements moved whole), its packed in_proj's bias added apart onto a (tokens, 3 x 768)
    # output, and a residual add of two operands in the two orders
    def vit_bse(numel):
        E = 768
        S = 197
        return max(1, numel // (S * E)), S, E

    def mk_copy_t(numel, dt):
        B, S, E = vit_bse(numel)
        x = torch.randn(B, S, E, device="cuda", dtype=dt, requires_grad=True)
        return [x], (lambda x: x.transpose(0, 1).contiguous()), []

    def mk_bias_add(numel, dt):
        E3 = 3 * 768
        y = torch.randn(max(1, numel // E3), E3, device="cuda", dtype=dt, requires_grad=True)
        b = torch.randn(E3, device="cuda", dtype=dt, requires_grad=True)
        return [y, b], (lambda y, b: y + b), []

    def mk_add_t(numel, dt):
        B, S, E = vit_bse(numel)
        a = torch.randn(S, B, E, device="cuda", dtype=dt, requires_grad=True)
        b = torch.randn(B, S, E, device="cuda", dtype=dt, requires_grad=True)
        return [a, b], (lambda a, b: a.transpose(0, 1) + b), []

    # squeeze-and-excitation's gate (torchvision.ops.SqueezeExcitation: scale * input, the
    # scale (batch, C, 1, 1) from the pooled map) and its global average pool, at 256 channels
    # of 16 images (their reductions over the pixels depend on the layout)
    def mk_se_scale(fmt):
        def mk(numel, dt):
            x = image_batch(numel, BN_BASE_C, dt, fmt)
            g = torch.rand(16, x.shape[1], 1, 1, device="cuda", dtype=dt, requires_grad=True)
            return [x, g], (lambda x, g: g * x), []
        return mk

    def mk_avgpool_global(fmt):
        def mk(numel, dt):
            return [image_batch(numel, BN_BASE_C, dt, fmt)], (lambda x: F.adaptive_avg_pool2d(x, 1)), []
        return mk

    def mk_stochastic_depth(numel, dt):
        # EfficientNet's residual branch in training (torchvision.ops.stochastic_depth, mode
        # "row": a bernoulli draw per image, divided by the survival rate, times the map)
        from torchvision.ops import stochastic_depth
        x = torch.randn(16, max(1, numel // 16), device="cuda", dtype=dt, requires_grad=True)
        return [x], (lambda x: stochastic_depth(x, 0.2, "row", True)), []

    return {
        "layernorm": mk_ln, "rmsnorm": mk_rms,
        "gelu": mk_unary(F.gelu), "gelu_tanh": mk_unary(lambda x: F.gelu(x, approximate="tanh")),
        "gelu_new": mk_unary(gelu_new), "silu_mul": mk_silu_mul,
        "dropout": mk_unary(lambda x: F.dropout(x, 0.1, True)), "add": mk_add,
        "bias_grad": mk_bias_grad, "cast": mk_cast, "embedding": mk_emb,
        "cross_entropy": mk_ce, "rotary": mk_rot, "batchnorm2d": mk_bn_c(BN_BASE_C), "relu": mk_relu,
        "maxpool": mk_pool,
        # a vocabulary that is not a multiple of 8 (GPT-2's): rows misaligned for vector loads
        "cross_entropy_unaligned": mk_ce_vocab(50257),
        "kv_cat": mk_kv_cat(True), "kv_cat_contig": mk_kv_cat(False), "rotary_hf": mk_rot_hf,
        "gelu_new_ac": mk_gelu_new_ac, "add_mixed": mk_add_mixed,
        # BERT's vocabulary (30522, not a multiple of 8) for the unaligned one
        "cross_entropy_ac": mk_ce_ac_vocab(32768), "cross_entropy_ac_unal": mk_ce_ac_vocab(30522),
        # layernorm at other widths than H (part ops_ln)
        **{"layernorm_w%d" % w: mk_ln_w(w) for w in LN_WIDTHS + LN_NARROW_WIDTHS},
        # batch norm at other channel counts than BN_BASE_C (part ops_bn)
        **{"batchnorm2d_c%d" % c: mk_bn_c(c) for c in BN_CHANNELS},
        # batch norm and max pooling in PyTorch's default layout (part ops_nchw)
        "batchnorm2d_nchw": mk_bn_c(BN_BASE_C, nchw), "maxpool_nchw": mk_pool_f(nchw),
        **{"batchnorm2d_nchw_c%d" % c: mk_bn_c(c, nchw) for c in BN_CHANNELS},
        "copy_t": mk_copy_t, "bias_add": mk_bias_add, "add_t": mk_add_t,
        # MobileNet's, EfficientNet's and MNASNet's (part ops_mobile)
        "relu6": mk_unary(F.relu6), "silu": mk_unary(F.silu), "sigmoid": mk_unary(torch.sigmoid),
        "hardswish": mk_unary(F.hardswish), "hardsigmoid": mk_unary(F.hardsigmoid),
        "se_scale": mk_se_scale(torch.channels_last), "se_scale_nchw": mk_se_scale(nchw),
        "avgpool_global": mk_avgpool_global(torch.channels_last), "avgpool_global_nchw": mk_avgpool_global(nchw),
        "stochastic_depth": mk_stochastic_depth,
        # the copy autograd makes of an in-place activation's input that its backward needs
        # (ReLU6, SiLU, Hardswish with inplace=True: aten::clone before the op)
        "clone": mk_unary(torch.clone),
    }


# the operations as the HF models lay their inputs out (transposed views) and as autocast runs
# them (mixed dtypes): part ops_kv
LAYOUT_OPS = ["kv_cat", "kv_cat_contig", "rotary_hf", "gelu_new_ac", "add_mixed"]
# the loss as HF BERT runs it under autocast: part ops_loss
LOSS_AC_OPS = ["cross_entropy_ac", "cross_entropy_ac_unal"]
# layernorm's widths besides op_defs' H = 1024 ("layernorm"): part ops_ln
LN_WIDTHS = (512, 768, 2048, 4096)
# ConvNeXt's (96-768 wide) and small ViTs' narrower layernorms: part ops_ln_narrow, with 512
# again beside them (one lease's clocks from 96 to 512)
LN_NARROW_WIDTHS = (96, 192, 384)
LN_NARROW_OPS = ["layernorm_w%d" % w for w in LN_NARROW_WIDTHS + (512,)]
# batch norm's channel count in "batchnorm2d" and the others a ResNet has: part ops_bn
BN_BASE_C = 256
BN_CHANNELS = (16, 32, 64, 128, 512, 1024, 2048)
# MobileNet's and EfficientNet's narrow early norms (16-32 channels over 112x112 maps): part
# ops_bn_small, the two narrowest of BN_CHANNELS in both layouts (ATen's statistics kernel runs a
# block per channel: at 16 channels the GPU is mostly idle)
BN_SMALL_OPS = ["batchnorm2d%s_c%d" % (f, c) for f in ("", "_nchw") for c in (16, 32)]
# the layout-bound operations of a CNN in PyTorch's default NCHW layout: part ops_nchw
NCHW_OPS = ["batchnorm2d_nchw", "maxpool_nchw"] + ["batchnorm2d_nchw_c%d" % c for c in BN_CHANNELS]
# torchvision's ViT layout copies and adds: part ops_vit
VIT_OPS = ["copy_t", "bias_add", "add_t"]
# MobileNet's, EfficientNet's and MNASNet's activations, gates, pools and stochastic depth: part ops_mobile
MOBILE_OPS = ["relu6", "silu", "sigmoid", "hardswish", "hardsigmoid", "se_scale", "se_scale_nchw",
              "avgpool_global", "avgpool_global_nchw", "stochastic_depth", "clone"]
# cuDNN's fp32 batch norm doubles its time between 2^21.5 and 2^22 elements (backward) and 2^22 and
# 2^22.5 (forward), at every channel count (its semi-persistent kernels; tools/bn_probe.py, 2026-12-04s):
# the batch norm tables add sqrt(2)-spaced sizes from 2^21 to 2^25 to the sweep, where ResNets' norms lie
BN_FINE_SIZES = tuple(int(round(2 ** (21 + k / 2))) for k in range(9))


def op_sizes(name, sizes):
    """The element counts an op table is measured at: the sweep's, and for batch norm the fine ones."""
    return sorted(set(sizes) | set(BN_FINE_SIZES)) if name.startswith("batchnorm2d") else sizes


def measure_ops(torch, F, tm, sizes, log, only=None):
    """The memory-bound operation tables (only: a list of op_defs names, default all)."""
    out = []
    defs = op_defs(torch, F)
    for name, mk in defs.items():
        if only is not None and name not in only:
            continue
        for dname, dt in (("bf16", torch.bfloat16), ("fp32", torch.float32)):
            ent = {"op": name, "dtype": dname, "numel": [], "fwd_us": [], "bwd_us": []}
            try:
                for n in op_sizes(name, sizes):
                    inputs, fn, params = mk(n, dt)
                    # element count: the input's (the embedding's rows, the cache copy's output)
                    real_n = (n if name == "embedding" else fn(*inputs).numel() if name.startswith("kv_cat")
                              else inputs[0].numel())
                    if ent["numel"] and real_n <= ent["numel"][-1]:
                        continue  # a shape that rounds sizes down (ops_vit's whole images): counts must rise
                    f_us = tm.device_us(lambda: fn(*inputs))
                    y = fn(*inputs)
                    g = torch.randn_like(y)
                    wrt = [t for t in inputs + params if t.requires_grad]
                    b_us = tm.device_us(lambda: torch.autograd.grad(y, wrt, g, retain_graph=True))
                    ent["numel"].append(real_n)
                    ent["fwd_us"].append(round(f_us, 3))
                    ent["bwd_us"].append(round(b_us, 3))
                    del y, g, inputs, params
                # host: tiny input, forward calls back to back; backward of a chain of 32
                inputs, fn, params = mk(4096, dt)
                ent["host_fwd_us"] = round(tm.host_us(lambda: fn(*inputs)), 3)
                ent["host_bwd_us"] = round(chain_bwd_host(torch, fn, inputs), 3)
            except Exception as e:  # an op this torch cannot run in this dtype: left out
                log("op %s %s: skipped (%s)" % (name, dname, str(e).split("\n")[0][:120]))
                continue
            out.append(ent)
            log("op %-14s %s fwd %s bwd %s host %.1f/%.1f us" % (
                name, dname, ent["fwd_us"], ent["bwd_us"], ent["host_fwd_us"], ent["host_bwd_us"]))
    return out


def chain_bwd_host(torch, fn, inputs, depth=32, reps=5):
    """Host time per backward node: backward() of `depth` applications of fn (a chain where the
    shapes allow, else independent calls summed), wall time / depth."""
    ts = []
    for _ in range(reps + 1):
        outs = []
        for _ in range(depth):
            outs.append(fn(*inputs).sum())
        loss = torch.stack(outs).sum()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        loss.backward()
        ts.append((time.perf_counter() - t0) * 1e6)
        torch.cuda.synchronize()
        for t in inputs:
            t.grad = None
    base = []
    for _ in range(reps + 1):  # the sum/stack nodes alone
        x = inputs[0].detach().requires_grad_(True)
        loss = torch.stack([x.sum() for _ in range(depth)]).sum()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        loss.backward()
        base.append((time.perf_counter() - t0) * 1e6)
        torch.cuda.synchronize()
    return max(0.0, (statistics.median(ts[1:]) - statistics.median(base[1:])) / depth)


def measure_host_only(torch, F, tm, log):
    """Host costs of calls whose device time the GEMM and attention tables price."""
    out = []
    ac = lambda: torch.autocast("cuda", dtype=torch.bfloat16)  # noqa: E731
    lin = torch.nn.Linear(64, 64).cuda()
    x = torch.randn(8, 64, device="cuda", requires_grad=True)
    conv = torch.nn.Conv2d(16, 16, 3, padding=1).cuda().to(memory_format=torch.channels_last)
    # the same call with 4 groups of 4 channels (a grouped convolution of wider groups, ResNeXt's
    # and RegNet's): its own row, "gconv", where its host path differs from the dense one's
    gconv = torch.nn.Conv2d(16, 16, 3, padding=1, groups=4).cuda().to(memory_format=torch.channels_last)
    xi = torch.randn(1, 16, 8, 8, device="cuda").to(memory_format=torch.channels_last).requires_grad_(True)
    mod = torch.nn.Identity()
    for mode in ("bf16", "fp32"):
        q = torch.randn(1, 2, 16, 64, device="cuda", requires_grad=True,
                        dtype=torch.bfloat16 if mode == "bf16" else torch.float32)

        def wrap(f):
            if mode == "bf16":
                def g(*a):
                    with ac():
                        return f(*a)
                return g
            return f
        cases = {
            "linear": (wrap(lambda x: lin(x)), [x]),
            "sdpa": (lambda q: F.scaled_dot_product_attention(q, q, q, dropout_p=0.0), [q]),
            "view": (lambda x: x.view(2, 4, 64).transpose(0, 1), [x]),
            "module": (lambda x: mod(x), [x]),
            "conv": (wrap(lambda xi: conv(xi)), [xi]),
            "gconv": (wrap(lambda xi: gconv(xi)), [xi]),
        }
        for name, (fn, inp) in cases.items():
            try:
                hf = tm.host_us(lambda: fn(*inp))
                hb = chain_bwd_host(torch, fn, inp) if name not in ("module",) else 0.0
            except Exception as e:
                log("host %s %s: skipped (%s)" % (name, mode, str(e).split("\n")[0][:120]))
                continue
            out.append({"op": name, "dtype": mode, "numel": [], "fwd_us": [], "bwd_us": [],
                        "host_fwd_us": round(hf, 3), "host_bwd_us": round(hb, 3)})
            log("host %-8s %s fwd %.1f bwd %.1f us" % (name, mode, hf, hb))
    return out


def measure_hf_layers(torch, log):
    """Host time per HF transformer layer and for the rest of the model (tiny configs)."""
    out = []
    try:
        import transformers as tf
    except ImportError as e:
        log("hf layers: skipped (%s)" % e)
        return out

    def bert(L):
        c = tf.BertConfig(vocab_size=128, hidden_size=64, num_hidden_layers=L, num_attention_heads=2,
                          intermediate_size=256, max_position_embeddings=64)
        return tf.BertForMaskedLM(c), "labels"

    def gpt2(L):
        c = tf.GPT2Config(vocab_size=128, n_embd=64, n_layer=L, n_head=2, n_positions=64)
        return tf.GPT2LMHeadModel(c), "labels"

    def llama(L):
        c = tf.LlamaConfig(vocab_size=128, hidden_size=64, intermediate_size=172, num_hidden_layers=L,
                           num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=64)
        return tf.LlamaForCausalLM(c), "labels"

    for arch, mk in (("bert", bert), ("gpt2", gpt2), ("llama", llama)):
        for mode in ("bf16", "fp32"):
            res = {}
            try:
                for L in (1, 3):
                    m, _ = mk(L)
                    try:
                        m.config._attn_implementation = "sdpa"
                    except Exception:
                        pass
                    m = m.cuda().train()
                    ids = torch.randint(0, 128, (1, 16), device="cuda")
                    fw, bw = [], []
                    for i in range(25):
                        m.zero_grad(set_to_none=True)
                        torch.cuda.synchronize()
                        t0 = time.perf_counter()
                        if mode == "bf16":
                            with torch.autocast("cuda", dtype=torch.bfloat16):
                                loss = m(input_ids=ids, labels=ids).loss
                        else:
                            loss = m(input_ids=ids, labels=ids).loss
                        t1 = time.perf_counter()
                        loss.backward()
                        t2 = time.perf_counter()
                        torch.cuda.synchronize()
                        if i >= 5:
                            fw.append((t1 - t0) * 1e6)
                            bw.append((t2 - t1) * 1e6)
                    res[L] = (statistics.median(fw), statistics.median(bw))
                    del m
            except Exception as e:
                log("hf %s %s: skipped (%s)" % (arch, mode, str(e).split("\n")[0][:160]))
                continue
            lf = (res[3][0] - res[1][0]) / 2
            lb = (res[3][1] - res[1][1]) / 2
            out.append({"op": "hf_%s_layer" % arch, "dtype": mode, "numel": [], "fwd_us": [],
                        "bwd_us": [], "host_fwd_us": round(lf, 2), "host_bwd_us": round(lb, 2)})
            out.append({"op": "hf_%s_rest" % arch, "dtype": mode, "numel": [], "fwd_us": [],
                        "bwd_us": [], "host_fwd_us": round(res[1][0] - lf, 2),
                        "host_bwd_us": round(res[1][1] - lb, 2)})
            log("hf %-5s %s per layer fwd %.0f bwd %.0f us; rest fwd %.0f bwd %.0f us" % (
                arch, mode, lf, lb, res[1][0] - lf, res[1][1] - lb))
    return out


# hf_host: the reference sizes, one per architecture, where the framework's host cost per layer
# is measured (realistic head sizes and sequence, batch 1): BERT and GPT-2 at head size 64,
# Llama at 128
HF_REAL = {"bert": dict(hidden=1024, heads=16, ffn=4096), "gpt2": dict(hidden=1024, heads=16, ffn=4096),
           "llama": dict(hidden=1024, heads=8, ffn=2816), "qwen3": dict(hidden=1024, heads=8, ffn=2816),
           "phi3": dict(hidden=1024, heads=8, ffn=2816), "olmo2": dict(hidden=1024, heads=8, ffn=2816), "vit": dict(hidden=1024, heads=16, ffn=4096)}
# hf_host's models (--hf-archs): the HF architectures, then "resnet50" (torchvision, held; rows
# tv_resnet50_held / _plain). Qwen3 is Llama's layer plus an RMSNorm on each head's queries and
# keys (q_norm, k_norm): its rows say what those add to a layer's host cost. Phi-3 is Llama's layer
# with q, k and v in one projection (qkv_proj) and gate and up in one (gate_up_proj): two Linear
# calls fewer, the slices and the chunk views more. OLMo 2 is Llama's with its two norms after
# attention and the MLP and one on all of q and of k. "vit" is torchvision's
# VisionTransformer (nn.MultiheadAttention's Python path; not an HF model, built and fed alike:
# hf_model, hf_input), measured where --hf-archs names it (calib/device_compute_vit.sh)
HF_HOST_ARCHS = ("bert", "gpt2", "llama", "qwen3", "phi3", "olmo2", "vit")
HF_HOST_MODELS = HF_HOST_ARCHS + ("resnet50",)
HF_HOST_DEFAULT = ("bert", "gpt2", "llama", "qwen3", "resnet50")  # --hf-archs' default
HF_REAL_SEQ, HF_REAL_VOCAB = 512, 32000
HF_REAL_POSITIONS = 1024   # a real-size model's position table (BERT, GPT-2): the longest sequence


# --hf-archs vit: the image's side for each size (patches of 16: 17 tokens tiny, as the language
# models' 16, and 197 real, ViT-B/16's and ViT-L/16's)
VIT_IMAGE = {"tiny": 64, "real": 224}


def hf_model(tf, arch, L, size, shape=None):
    """An HF model of L layers: "tiny" (hidden 64, 2 heads, vocab 128, the hf part's) or "real"
    (HF_REAL and HF_REAL_VOCAB, or shape: {hidden, heads, ffn, vocab} in their place). "vit":
    torchvision's VisionTransformer of that width at VIT_IMAGE[size], the vocabulary its classes
    (tf unused)."""
    if size == "tiny":
        h, nh, f, V, P = 64, 2, 256 if arch not in ("llama", "qwen3", "phi3", "olmo2") else 172, 128, 64
    else:
        r = shape or dict(HF_REAL[arch], vocab=HF_REAL_VOCAB)
        h, nh, f, V, P = r["hidden"], r["heads"], r["ffn"], r["vocab"], HF_REAL_POSITIONS
    if arch == "vit":
        from torchvision.models.vision_transformer import VisionTransformer
        V = V if size == "tiny" else 1000
        return VisionTransformer(image_size=VIT_IMAGE[size], patch_size=16, num_layers=L, num_heads=nh,
                                 hidden_dim=h, mlp_dim=f, num_classes=V), V
    if arch == "bert":
        c = tf.BertConfig(vocab_size=V, hidden_size=h, num_hidden_layers=L, num_attention_heads=nh,
                          intermediate_size=f, max_position_embeddings=P)
        m = tf.BertForMaskedLM(c)
    elif arch == "gpt2":
        c = tf.GPT2Config(vocab_size=V, n_embd=h, n_layer=L, n_head=nh, n_inner=f, n_positions=P)
        m = tf.GPT2LMHeadModel(c)
    else:  # the decoders: Llama's layer (untied: LlamaConfig's default), as each HF class varies it
        dec = dict(vocab_size=V, hidden_size=h, intermediate_size=f, num_hidden_layers=L, num_attention_heads=nh,
                   num_key_value_heads=nh, max_position_embeddings=P)
        untied = dict(dec, tie_word_embeddings=False)
        if arch == "qwen3":  # q_norm and k_norm on each head (head size h / nh)
            m = tf.Qwen3ForCausalLM(tf.Qwen3Config(head_dim=h // nh, **untied))
        elif arch == "phi3":  # the fused qkv_proj and gate_up_proj
            m = tf.Phi3ForCausalLM(tf.Phi3Config(original_max_position_embeddings=P, pad_token_id=0, **untied))
        elif arch == "olmo2":  # its norms moved after attention and the MLP, q and k normed
            m = tf.Olmo2ForCausalLM(tf.Olmo2Config(pad_token_id=0, bos_token_id=None, eos_token_id=None, **untied))
        else:
            m = tf.LlamaForCausalLM(tf.LlamaConfig(**dec))
    try:
        m.config._attn_implementation = "sdpa"
    except Exception:
        pass
    return m, V


def hf_input(torch, arch, V, batch, seq, size="tiny"):
    """The input of a model built by hf_model: token ids (batch x seq, the labels too), or for
    "vit" (images of VIT_IMAGE[size], labels of V classes) a pair."""
    if arch == "vit":
        img = VIT_IMAGE[size]
        return (torch.randn(batch, 3, img, img, device="cuda"), torch.randint(0, V, (batch,), device="cuda"))
    return torch.randint(0, V, (batch, seq), device="cuda")


def hf_loss(torch, m, ids, bf16):
    """The forward() a step times for an HF model built by hf_model: its language-model loss on
    ids (the labels too), or a ViT's cross-entropy on hf_input's (images, labels), under bf16
    autocast where bf16, else as the model's dtype."""
    def loss():
        if isinstance(ids, tuple):
            return torch.nn.functional.cross_entropy(m(ids[0]), ids[1])
        return m(input_ids=ids, labels=ids).loss

    def fwd():
        if bf16:
            with torch.autocast("cuda", dtype=torch.bfloat16):
                return loss()
        return loss()
    return fwd


def first_layer(m, arch):
    """The first transformer layer of an HF model built by hf_model."""
    return {"bert": lambda: m.bert.encoder.layer[0], "gpt2": lambda: m.transformer.h[0],
            "llama": lambda: m.model.layers[0], "qwen3": lambda: m.model.layers[0],
            "phi3": lambda: m.model.layers[0], "olmo2": lambda: m.model.layers[0],
            "vit": lambda: m.encoder.layers[0]}[arch]()


def held_step_host(torch, m, fwd, sleep_cycles):
    """Host time of one forward and one backward() call with the GPU held behind a sleep kernel
    (nothing waits for the GPU, so the CPU time is the host's issue time at these sizes), and
    whether a call outlasted the sleep (then the host waited: the time is not the host's)."""
    m.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    torch.cuda._sleep(sleep_cycles)
    b.record()
    t0 = time.perf_counter()
    loss = fwd()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    sleep_f = a.elapsed_time(b) * 1e3
    a.record()
    torch.cuda._sleep(sleep_cycles)
    b.record()
    t2 = time.perf_counter()
    loss.backward()
    t3 = time.perf_counter()
    torch.cuda.synchronize()
    sleep_b = a.elapsed_time(b) * 1e3
    f, bw = (t1 - t0) * 1e6, (t3 - t2) * 1e6
    return f, bw, f > 0.9 * sleep_f or bw > 0.9 * sleep_b


def plain_step_host(torch, m, fwd, tail=False):
    """Wall time of one forward and one backward() call as a training step runs them (the GPU
    idle at the start, not held), us; the gradients are freed after. tail: also the time from
    backward()'s return until the GPU is done (near 0 where the host bounds the step; long where
    the GPU is behind, and then backward() may have waited on a full launch queue)."""
    m.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    loss = fwd()
    t1 = time.perf_counter()
    loss.backward()
    t2 = time.perf_counter()
    torch.cuda.synchronize()
    t3 = time.perf_counter()
    m.zero_grad(set_to_none=True)
    if tail:
        return (t1 - t0) * 1e6, (t2 - t1) * 1e6, (t3 - t2) * 1e6
    return (t1 - t0) * 1e6, (t2 - t1) * 1e6


def tiny_step_host(torch, m, fwd, first):
    """hf_host's unheld step of a tiny model, as the hf part times it (the wall time of the forward
    and backward() calls, us) and the forward's time before the first layer was called (first: the
    dict its pre-hook fills; None where the hook did not run)."""
    m.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    first.clear()
    t0 = time.perf_counter()
    loss = fwd()
    t1 = time.perf_counter()
    loss.backward()
    t2 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) * 1e6, (t2 - t1) * 1e6, (first["t"] - t0) * 1e6 if "t" in first else None


def hf_rows(arch, mode, suffix, layer, rest, pre_us=None):
    """hf_host's rows of one architecture in one mode (measure_hf_host's and measure_hf_pairs'):
    hf_<arch>_layer<suffix> and _rest<suffix> from (forward, backward) host us, and, where pre_us
    is given, _pre<suffix>: the forward's host time before the first layer (no backward)."""
    row = {"numel": [], "fwd_us": [], "bwd_us": [], "dtype": mode}
    out = [dict(row, op="hf_%s_layer%s" % (arch, suffix), host_fwd_us=round(layer[0], 2),
                host_bwd_us=round(layer[1], 2)),
           dict(row, op="hf_%s_rest%s" % (arch, suffix), host_fwd_us=round(rest[0], 2),
                host_bwd_us=round(rest[1], 2))]
    if pre_us is not None:
        out.append(dict(row, op="hf_%s_pre%s" % (arch, suffix), host_fwd_us=round(pre_us, 2), host_bwd_us=0.0))
    return out


def round_lines(depths, v):
    """Each round's least-squares line over the depths (v: {depth: [(fwd, bwd) per round]}):
    [((layer fwd, layer bwd), (rest fwd, rest bwd))] per round, the slopes and intercepts."""
    out = []
    for r in range(len(v[depths[0]])):
        fits = [statistics.linear_regression(depths, [v[L][r][k] for L in depths]) for k in (0, 1)]
        out.append(((fits[0].slope, fits[1].slope), (fits[0].intercept, fits[1].intercept)))
    return out


def median_lines(lines):
    """([layer fwd, bwd], [rest fwd, bwd]): round_lines' medians over the rounds."""
    return ([statistics.median(x[0][k] for x in lines) for k in (0, 1)],
            [statistics.median(x[1][k] for x in lines) for k in (0, 1)])


def measure_hf_host(torch, log, iters=8, warmup=2, flush=None, depths=(1, 3), sizes=("real", "tiny"),
                    models=HF_HOST_DEFAULT):
    """hf_host part: the HF layers' host time at realistic sizes (HF_REAL, seq 512, batch 1) with
    the GPU held, beside the tiny configurations of the hf part (held too, and unheld as the hf part
    times them), and the host-speed probe (tools/torch_host.host_probe) around each: rows
    hf_<arch>_layer_real / hf_<arch>_rest_real (realistic), hf_<arch>_layer_tiny / _rest_tiny (the hf
    part's method), hf_<arch>_pre_tiny (forward: the part of the rest before the first layer is
    called, from a pre-hook on it; median over rounds and depths), and the probe's median
    (returned beside the rows). Per layer: the slope of
    each round's times over the depths (least squares; with 1 and 3 layers the difference / 2),
    median over rounds; the rest: the rounds' intercepts' median. flush(rows, probe, probes,
    diag), when given, after each model, so that a run cut short keeps what it measured. The builder prices HF
    layers from hf_<arch>_layer (the hf part's); the _real rows are kept for comparison: on the
    H200 (2026-12-03) they were within the per-layer method's noise of the tiny ones for BERT
    and GPT-2 (data/compute/README.md). sizes: which of "real" and "tiny" to measure; models: which
    of HF_HOST_MODELS (the HF ones in the order given, then resnet50)."""
    import torch_host
    import transformers as tf
    out, probes, diag = [], [], []
    sleep_cycles = int(40000 * 2000)  # ~40 ms: longer than any forward or backward call here
    for arch in [m_ for m_ in models if m_ in HF_HOST_ARCHS]:
        for mode in ("bf16", "fp32"):
            probes.append(torch_host.host_probe())
            bprobes = [torch_host.bwd_probe()]  # the autograd thread's, where backward's rows run
            res, pres = {}, {}  # pres: the forward host time before the first layer, per size
            for size in sizes:
                # both depths built, their steps alternated in every round: the host's speed
                # drifts within a lease, and a layer is the same round's difference
                built, fwds = {}, {}
                seq = HF_REAL_SEQ if size == "real" else 16
                for L in depths:
                    torch.manual_seed(0)
                    m, V = hf_model(tf, arch, L, size)
                    built[L] = m.cuda().train()
                    ids = hf_input(torch, arch, V, 1, seq, size)
                    fwds[L] = hf_loss(torch, built[L], ids, mode == "bf16")
                held, plain = {L: [] for L in depths}, {L: [] for L in depths}
                short = {L: 0 for L in depths}
                # when the first layer is called: the host time before it (embeddings, positions,
                # mask, rotary tables), the part of the rest that comes before any layer
                first, pre = {}, []

                def at_first(mod, args, first=first):
                    first.setdefault("t", time.perf_counter())
                for L in depths:
                    first_layer(built[L], arch).register_forward_pre_hook(at_first)
                for i in range(warmup + iters):
                    for L in depths:
                        f, b, s_ = held_step_host(torch, built[L], fwds[L], sleep_cycles)
                        if i >= warmup:
                            held[L].append((f, b))
                            short[L] += s_
                        if size == "tiny":  # unheld, as the hf part: wall time of the calls
                            f, b, p_ = tiny_step_host(torch, built[L], fwds[L], first)
                            if i >= warmup:
                                plain[L].append((f, b))
                                if p_ is not None:
                                    pre.append(p_)
                for how, v in (("held", held), ("plain", plain)):
                    if v[depths[0]]:
                        lay, rest = median_lines(round_lines(depths, v))
                        res[size, how] = (lay, rest, tuple(short[L] for L in depths))
                if pre:
                    pres[size] = statistics.median(pre)
                del built, fwds
                torch.cuda.empty_cache()
            probes.append(torch_host.host_probe())
            bprobes.append(torch_host.bwd_probe())
            for size, how, suffix in (("real", "held", "_real"), ("tiny", "plain", "_tiny")):
                if (size, how) not in res:
                    continue
                (lf, lb), (rf, rb), sh = res[size, how]
                out += hf_rows(arch, mode, suffix, (lf, lb), (rf, rb),
                               pres[size] if how == "plain" and size in pres else None)
                log("hf_host %-5s %s %-4s per layer fwd %.0f bwd %.0f us; rest fwd %.0f bwd %.0f us; "
                    "calls past the sleep %s (depths %s)" % (arch, mode, size, lf, lb, rf, rb,
                                                             "/".join(map(str, sh)), ",".join(map(str, depths))))
            if "tiny" in pres:
                log("hf_host %-5s %s tiny before the first layer fwd %.0f us" % (arch, mode, pres["tiny"]))
            (tf_, tb), _, _ = res.get(("tiny", "held"), res.get(("real", "held")))
            diag.append({"arch": arch, "dtype": mode, "bwd_probes_us": [round(p, 3) for p in bprobes],
                         "cpu_model": torch_host.cpu_model(), "raw": {"%s_%s" % k: [[round(v, 1) for v in x[0]],
                                                                            [round(v, 1) for v in x[1]]]
                                                               for k, x in res.items()}})
            log("hf_host %-5s %s tiny held per layer fwd %.0f bwd %.0f us; host probe %.3f %.3f us" % (
                arch, mode, tf_, tb, probes[-2], probes[-1]))
            if flush:
                flush(out, statistics.median(probes), probes, diag)
    # torchvision ResNet-50 at a realistic size (batch 32, 224 x 224, channels-last), held: the
    # whole model's host time (op "tv_resnet50_held"; the tv part's tv_resnet50 is unheld, tiny)
    try:
        if "resnet50" not in models:
            raise RuntimeError("not in --hf-archs")
        import torchvision
        m = torchvision.models.resnet50(weights=None).cuda().to(memory_format=torch.channels_last).train()
        x = torch.randn(32, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
        torch.backends.cudnn.benchmark = True
        for mode in ("bf16", "fp32"):
            def fwd():
                if mode == "bf16":
                    with torch.autocast("cuda", dtype=torch.bfloat16):
                        return m(x).float().sum()
                return m(x).sum()
            # and unheld, as a training step runs (the wall time of the calls; at batch 32 the
            # host is behind the GPU, so no call waits for it): on 2026-12-04 the held forward
            # (9.6 ms, bf16) was 1.4x the forward() CPU time of a ResNet-50 capture at batch 128
            # on the same lease (6.8 ms), so the two are kept side by side (tv_resnet50_plain,
            # not used by the builder)
            held, plain, short = [], [], 0
            for i in range(warmup + iters):
                f, b, s_ = held_step_host(torch, m, fwd, sleep_cycles)
                p = plain_step_host(torch, m, fwd)
                if i >= warmup:
                    held.append((f, b))
                    plain.append(p)
                    short += s_
            for how, v in (("held", held), ("plain", plain)):
                hf, hb = statistics.median(h[0] for h in v), statistics.median(h[1] for h in v)
                out.append({"op": "tv_resnet50_" + how, "dtype": mode, "numel": [], "fwd_us": [], "bwd_us": [],
                            "host_fwd_us": round(hf, 2), "host_bwd_us": round(hb, 2)})
                log("hf_host tv resnet50 %s %s host fwd %.0f bwd %.0f us; calls past the sleep %d" % (
                    mode, how, hf, hb, short))
            if flush:
                flush(out, statistics.median(probes), probes, diag)
        del m, x
        torch.cuda.empty_cache()
    except Exception as e:
        log("hf_host tv resnet50: skipped (%s)" % str(e).split("\n")[0][:160])
    probes.append(torch_host.host_probe())
    return out, statistics.median(probes), probes, diag


def paired_ratio(num, den):
    """The median over rounds of num[i] / den[i] (two models' values from the same round, so at the
    same host speed) and the bootstrap 95% interval of that median (torch_interval.median_rel):
    {"median", "ci95": [lo, hi], "rounds"}, over the rounds where both were measured and den[i] > 0;
    None where no round has a ratio."""
    import torch_interval
    rs = [n / d for n, d in zip(num, den) if n is not None and d is not None and d > 0]
    if not rs:
        return None
    m = statistics.median(rs)
    lo, hi = torch_interval.median_rel(rs)
    return {"median": round(m, 4), "ci95": [round(m * (1 + lo), 4), round(m * (1 + hi), 4)], "rounds": len(rs)}


def pair_ratios(rounds, ref, arch):
    """{part: [fwd, bwd]} of paired_ratio(arch's rounds, ref's rounds) for part in layer, rest, pre
    (pre: forward only, bwd None), from a pairs record's rounds_us of one mode."""
    a, r = rounds[arch], rounds[ref]
    out = {}
    for part in ("layer", "rest"):
        out[part] = [paired_ratio([x[k] for x in a[part]], [x[k] for x in r[part]]) for k in (0, 1)]
    out["pre"] = [paired_ratio(a["pre"], r["pre"]), None]
    return out


def measure_hf_pairs(torch, log, models, depths=(1, 3), rounds=8, warmup=2, seconds=0, seed=1, flush=None):
    """hf_host --hf-interleave: the tiny models of every HF architecture in models (at least two)
    timed round by round in one process. Per mode (bf16 autocast, fp32) all architectures are built
    at all depths, and each round times every (architecture, depth) once, in an order shuffled per
    round (random.Random(seed)), each step as hf_host times its tiny models (held_step_host, then
    tiny_step_host: the rows are the plain ones). A host whose speed switches between modes seconds
    apart then moves all models of a round alike, and the ratio of two architectures' per-layer
    costs taken within each round cancels it.
    Rows as hf_host's for tiny (hf_<arch>_layer_tiny / _rest_tiny / _pre_tiny, medians over rounds)
    and a pairs record: per mode the rounds' per-layer, rest and pre values of each architecture
    (rounds_us), each round's order, and the median over rounds of each architecture's / the first
    one's (ref) with a bootstrap 95% interval (paired_ratio). rounds: timed rounds per mode after
    warmup; seconds > 0: a mode's rounds also stop once that many seconds have passed since its
    first timed round. flush(rows, probe, probes, diag, pairs) after each mode.
    Returns (rows, probe median, probes, diag, pairs)."""
    import random
    import torch_host
    import transformers as tf
    archs = [m_ for m_ in models if m_ in HF_HOST_ARCHS]
    if len(archs) < 2:
        raise ValueError("--hf-interleave: at least two HF architectures")
    units = [(a, L) for a in archs for L in depths]
    rng = random.Random(seed)
    out, probes, diag = [], [], []
    pairs = {"ref": archs[0], "archs": archs, "depths": list(depths), "seed": seed, "modes": {}}
    sleep_cycles = int(40000 * 2000)  # as hf_host's
    for mode in ("bf16", "fp32"):
        probes.append(torch_host.host_probe())
        bprobes = [torch_host.bwd_probe()]
        built, fwds, first = {}, {}, {}

        def at_first(mod, args, first=first):
            first.setdefault("t", time.perf_counter())
        for a, L in units:
            torch.manual_seed(0)
            m, V = hf_model(tf, a, L, "tiny")
            built[a, L] = m.cuda().train()
            ids = hf_input(torch, a, V, 1, 16)
            fwds[a, L] = hf_loss(torch, built[a, L], ids, mode == "bf16")
            first_layer(built[a, L], a).register_forward_pre_hook(at_first)
        held, plain = {u: [] for u in units}, {u: [] for u in units}
        pre, short, orders = {u: [] for u in units}, {u: 0 for u in units}, []
        i, end = 0, float("inf")
        while i < warmup + rounds:
            if i == warmup and seconds > 0:
                end = time.perf_counter() + seconds
            order = list(units)
            rng.shuffle(order)
            for u in order:
                f, b, s_ = held_step_host(torch, built[u], fwds[u], sleep_cycles)
                pf, pb, pp = tiny_step_host(torch, built[u], fwds[u], first)
                if i >= warmup:
                    held[u].append((f, b))
                    short[u] += s_
                    plain[u].append((pf, pb))
                    pre[u].append(pp)
            if i >= warmup:
                orders.append(",".join("%s:%d" % u for u in order))
            i += 1
            if time.perf_counter() > end:
                break
        probes.append(torch_host.host_probe())
        bprobes.append(torch_host.bwd_probe())
        rounds_us = {}
        for a in archs:
            lines = {how: round_lines(depths, {L: v[a, L] for L in depths}) for how, v in (("held", held),
                                                                                          ("plain", plain))}
            (lf, lb), (rf, rb) = median_lines(lines["plain"])
            per_round = [statistics.median(x) if None not in x else None
                         for x in zip(*(pre[a, L] for L in depths))]
            got = [p_ for L in depths for p_ in pre[a, L] if p_ is not None]
            pre_us = statistics.median(got) if got else None
            out += hf_rows(a, mode, "_tiny", (lf, lb), (rf, rb), pre_us)
            log("hf_host %-5s %s %-4s per layer fwd %.0f bwd %.0f us; rest fwd %.0f bwd %.0f us; "
                "calls past the sleep %s (depths %s)" % (a, mode, "tiny", lf, lb, rf, rb,
                                                         "/".join(str(short[a, L]) for L in depths),
                                                         ",".join(map(str, depths))))
            if got:
                log("hf_host %-5s %s tiny before the first layer fwd %.0f us" % (a, mode, pre_us))
            (hf_, hb), _ = median_lines(lines["held"])
            log("hf_host %-5s %s tiny held per layer fwd %.0f bwd %.0f us; host probe %.3f %.3f us (interleaved, "
                "%d rounds)" % (a, mode, hf_, hb, probes[-2], probes[-1], len(orders)))
            rounds_us[a] = {"layer": [[round(v, 2) for v in x[0]] for x in lines["plain"]],
                            "rest": [[round(v, 2) for v in x[1]] for x in lines["plain"]],
                            "pre": [None if p_ is None else round(p_, 2) for p_ in per_round]}
            diag.append({"arch": a, "dtype": mode, "bwd_probes_us": [round(p, 3) for p in bprobes],
                         "cpu_model": torch_host.cpu_model(), "interleaved": True,
                         "raw": {"tiny_held": [[round(v, 1) for v in (hf_, hb)],
                                               [round(v, 1) for v in median_lines(lines["held"])[1]]],
                                 "tiny_plain": [[round(v, 1) for v in (lf, lb)], [round(v, 1) for v in (rf, rb)]]}})
        ratios = {a: pair_ratios(rounds_us, archs[0], a) for a in archs[1:]}
        pairs["modes"][mode] = {"rounds": len(orders), "orders": orders, "rounds_us": rounds_us, "ratios": ratios}
        for a, rr in ratios.items():
            for part in ("layer", "rest", "pre"):
                log("hf_host pairs %s/%s %s %-5s %s" % (a, archs[0], mode, part, "; ".join(
                    "%s %.3f [%.3f, %.3f] over %d rounds" % (side, x["median"], x["ci95"][0], x["ci95"][1], x["rounds"])
                    if x else "%s none" % side for side, x in zip(("fwd", "bwd"), rr[part]) if part != "pre" or side == "fwd")))
        del built, fwds
        torch.cuda.empty_cache()
        if flush:
            flush(out, statistics.median(probes), probes, diag, pairs)
    return out, statistics.median(probes), probes, diag, pairs


# the input counts torch.cat is timed at (part ops_cat): a DenseNet concatenates 1..49 maps (each
# block's first layer a cat of its one input; DenseNet-201's third block 49 at its end)
CAT_INPUTS = (1, 2, 4, 8, 16, 32, 48)


def measure_cat_host(torch, log, reps=40):
    """Host cost of torch.cat over k inputs, as a DenseNet runs it (part ops_cat; tiny tensors,
    so the wall time is the host's): forward, the calls back to back; backward, the backward() of
    a cat of one map k times (CatBackward's narrow of every input and the k - 1 gradient adds
    that sum them into the map, as each DenseNet map's gradient sums its consumers' slices) less
    the same step without the cat, timed beside it in every round (the median of the rounds'
    differences: a baseline timed once would put its drift into every point). Each a line over k
    (statistics.linear_regression), written at one input: op "cat" the line at k = 1 ("at_inputs":
    1), op "cat_input" its slope, each input past the first; host only (device time is a copy's)."""
    out = []
    for dname, dt in (("bf16", torch.bfloat16), ("fp32", torch.float32)):
        leaf = torch.randn(2, 32, 4, 4, device="cuda", dtype=dt, requires_grad=True)
        xs = [torch.randn(2, 32, 4, 4, device="cuda", dtype=dt, requires_grad=True) for _ in range(max(CAT_INPUTS))]

        def step_us(k):
            x = leaf.relu()
            loss = (torch.cat([x] * k, 1) if k else x).sum()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            loss.backward()
            t1 = time.perf_counter()
            torch.cuda.synchronize()
            leaf.grad = None
            return (t1 - t0) * 1e6

        def bwd_us(k):
            ds = []
            for i in range(reps + 5):  # the two steps in alternating order, round by round
                if i % 2:
                    with_cat, without = step_us(k), step_us(0)
                else:
                    without, with_cat = step_us(0), step_us(k)
                ds.append(with_cat - without)
            return statistics.median(ds[5:])
        tm = Timer(torch)
        fwd = [tm.host_us(lambda: torch.cat(xs[:k], 1)) for k in CAT_INPUTS]
        bwd = [bwd_us(k) for k in CAT_INPUTS]
        (sf, af), (sb, ab) = (statistics.linear_regression(CAT_INPUTS, v) for v in (fwd, bwd))
        out.append({"op": "cat", "dtype": dname, "numel": [], "fwd_us": [], "bwd_us": [], "at_inputs": 1,
                    "host_fwd_us": round(max(0.0, af + sf), 3), "host_bwd_us": round(max(0.0, ab + sb), 3)})
        out.append({"op": "cat_input", "dtype": dname, "numel": [], "fwd_us": [], "bwd_us": [],
                    "host_fwd_us": round(max(0.0, sf), 3), "host_bwd_us": round(max(0.0, sb), 3)})
        log("cat %s host over %s inputs: fwd %s us, bwd %s us (over the step without it); per input "
            "%.2f / %.2f us, at one input %.2f / %.2f us" % (dname, list(CAT_INPUTS), [round(v, 1) for v in fwd],
                                                             [round(v, 1) for v in bwd], sf, sb, af + sf, ab + sb))
    return out


def measure_tv_host(torch, log):
    """Host time of a whole torchvision ResNet-50 step (op "tv_resnet50", host only)."""
    out = []
    # at 32x32, batch 2 (training-mode BatchNorm refuses a batch of 1 at the 1x1 feature map of
    # the last stage): the device work is tiny, so the wall times are the host's
    try:
        import torchvision
        m = torchvision.models.resnet50(weights=None).cuda().to(memory_format=torch.channels_last)
        x = torch.randn(2, 3, 32, 32, device="cuda").to(memory_format=torch.channels_last)
        for mode in ("bf16", "fp32"):
            fw, bw = [], []
            for i in range(25):
                m.zero_grad(set_to_none=True)
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                if mode == "bf16":
                    with torch.autocast("cuda", dtype=torch.bfloat16):
                        loss = m(x).float().sum()
                else:
                    loss = m(x).sum()
                t1 = time.perf_counter()
                loss.backward()
                t2 = time.perf_counter()
                torch.cuda.synchronize()
                if i >= 5:
                    fw.append((t1 - t0) * 1e6)
                    bw.append((t2 - t1) * 1e6)
            out.append({"op": "tv_resnet50", "dtype": mode, "numel": [], "fwd_us": [], "bwd_us": [],
                        "host_fwd_us": round(statistics.median(fw), 2),
                        "host_bwd_us": round(statistics.median(bw), 2)})
            log("tv resnet50 %s host fwd %.0f bwd %.0f us" % (mode, statistics.median(fw), statistics.median(bw)))
    except Exception as e:
        log("tv resnet50: skipped (%s)" % str(e).split("\n")[0][:160])
    return out


def attn_bhs(seq, quick):
    """The batch x heads counts SDPA is timed at for one sequence length: up to 2^19 / seq (the
    GPU full of work), and below it 16..256, where a launch's fixed part is a larger share of its
    time (2026-12-04o, tools/attn_bh.py: bf16 at seq 1024, head 128, bh 40 runs 1.46x its time
    per problem at 512), which a price linear in bh from the full point alone does not show."""
    top = max(16, (1 << 19) // seq)
    return [top] if quick else sorted({b for b in (16, 32, 64, 128, 256) if b < top} | {top})


# The calls the timer part compares (per-call events against one pair around a batch): op tables
# at a small, a middle and a large size, forward and backward; GEMMs, convolutions and attention
# from small to large. Each kind of table the profile holds is timed by device_us.
TIMER_OPS = (("layernorm", "bf16"), ("gelu", "bf16"), ("add", "fp32"), ("dropout", "bf16"),
             ("cast", "fp32"), ("batchnorm2d", "fp32"), ("batchnorm2d", "bf16"), ("relu", "bf16"))
TIMER_SIZES = (1 << 16, 1 << 20, 1 << 24)
TIMER_GEMMS = (("bf16", "fwd", 128, 128, 128), ("bf16", "wgrad", 1024, 1024, 1024),
               ("bf16", "fwd", 4096, 4096, 4096), ("tf32", "dgrad", 1024, 1024, 1024),
               ("tf32", "fwd", 8192, 1024, 1024))
TIMER_CONVS = (("bf16", 32, 14, 256, 256, 3, 1), ("tf32", 32, 14, 256, 256, 3, 1),
               ("bf16", 32, 56, 64, 256, 1, 1))
TIMER_SDPA = (("bf16", 128, 16, 64), ("bf16", 1024, 128, 64), ("fp32", 512, 64, 64))


def timer_cases(torch, F):
    """(label, kind, fn) of every call the timer part times; the tensors live in the closures."""
    cases = []
    defs = op_defs(torch, F)
    for name, dname in TIMER_OPS:
        dt = torch.bfloat16 if dname == "bf16" else torch.float32
        for n in TIMER_SIZES:
            inputs, fn, params = defs[name](n, dt)
            y = fn(*inputs)
            g = torch.randn_like(y)
            wrt = [t for t in inputs + params if t.requires_grad]
            lab = "%s %s %d" % (name, dname, n)
            cases.append((lab + " fwd", "op", lambda fn=fn, i=inputs: fn(*i)))
            cases.append((lab + " bwd", "op", lambda y=y, w=wrt, g=g: torch.autograd.grad(y, w, g, retain_graph=True)))
    for dname, lay, m, n, k in TIMER_GEMMS:
        with Tf32(torch, dname):
            fn = gemm_operands(torch, torch.bfloat16 if dname == "bf16" else torch.float32, lay, m, n, k)
        cases.append(("gemm %s %s %dx%dx%d" % (dname, lay, m, n, k), "gemm:" + dname, fn))
    for dname, b, ho, cin, cout, k, s in TIMER_CONVS:
        with Tf32(torch, dname):
            f, dg, wg = conv_calls(torch, torch.bfloat16 if dname == "bf16" else torch.float32, b, ho, cin, cout, k, s)
        lab = "conv %s k%ds%d %dx%d %d->%d" % (dname, k, s, b, ho, cin, cout)
        cases += [(lab + " fwd", "conv:" + dname, f), (lab + " dgrad", "conv:" + dname, dg),
                  (lab + " wgrad", "conv:" + dname, wg)]
    for dname, seq, bh, hd in TIMER_SDPA:
        dt = torch.bfloat16 if dname == "bf16" else torch.float32
        q, k, v = (torch.randn(1, bh, seq, hd, device="cuda", dtype=dt, requires_grad=True) for _ in range(3))
        fn = lambda q=q, k=k, v=v: F.scaled_dot_product_attention(q, k, v)  # noqa: E731
        y = fn()
        g = torch.randn_like(y)
        lab = "sdpa %s s%d bh%d hd%d" % (dname, seq, bh, hd)
        cases.append((lab + " fwd", "sdpa", fn))
        cases.append((lab + " bwd", "sdpa", lambda y=y, q=q, k=k, v=v, g=g:
                      torch.autograd.grad(y, (q, k, v), g, retain_graph=True)))
    return cases


def kernels_per_call(torch, fn, calls=3):
    """GPU kernels (and memsets, copies) one call of fn launches, by torch.profiler."""
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    n = sum(e.count for e in prof.key_averages()
            if (getattr(e, "self_device_time_total", 0) or 0) > 0 and not e.key.startswith("aten::"))
    return n / calls


def stream_excess(row):
    """A stream's per-call time sum over its time with one event pair, per call (us)."""
    return (row["per_call_us"] - row["batched_us"]) / row["calls"]


def timer_overhead(rows):
    """The per-call timer overhead (us): the median over the model-like streams among rows of
    what per-call events add to a call (stream_excess)."""
    return statistics.median(stream_excess(r) for r in rows if r["kind"] == "stream")


def measure_workspace(torch, log):
    """The bytes PyTorch's allocator holds after a training step's matrix products once their
    tensors are freed: the cuBLAS workspaces (32 MiB a handle and stream on Hopper in PyTorch 2.x),
    forward's on this thread and backward's on autograd's, which max_memory_allocated counts."""
    clear = getattr(torch._C, "_cuda_clearCublasWorkspaces", None)
    torch.cuda.synchronize()
    if clear:
        clear()
    before = torch.cuda.memory_allocated()
    net = torch.nn.Linear(512, 512, device="cuda")
    x = torch.randn(256, 512, device="cuda")
    for amp in (False, True):
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=amp):
            y = net(x)
        y.float().sum().backward()
    torch.cuda.synchronize()
    del net, x, y
    held = torch.cuda.memory_allocated() - before
    log("memory: %.1f MiB held beside the tensors (cuBLAS workspaces%s)" % (
        held / 2**20, "" if clear else "; none cleared first: this PyTorch has no _cuda_clearCublasWorkspaces"))
    return held


def measure_timer(torch, F, tm, log, rounds=3):
    """The device time device_us's per-call events add to every call of the op, GEMM, conv and
    attention tables. Each call timed as the tables are (device_us, reps 10) and repeating itself
    with one event pair around 20 (batch_us), in alternating order over rounds (the clock drifts),
    medians, its kernel count beside them; then model-like streams of those calls (calls of
    different kinds one after another), the sum of their per-call times against the stream with
    one event pair. Returns (overhead_us: timer_overhead over the streams, rows)."""
    bench = torch.backends.cudnn.benchmark
    torch.backends.cudnn.benchmark = True  # as measure_conv times convolutions
    cases = timer_cases(torch, F)
    rows = []
    for lab, kind, fn in cases:
        dname = kind.split(":")[1] if ":" in kind else "bf16"
        with Tf32(torch, dname):
            per, bat = [], []
            for r in range(rounds):
                order = (0, 1) if r % 2 == 0 else (1, 0)
                for o in order:
                    if o == 0:
                        per.append(tm.device_us(fn, reps=10))
                    else:
                        bat.append(tm.batch_us(fn, reps=20))
            try:
                kern = kernels_per_call(torch, fn)
            except Exception:  # a profiler this torch lacks: the count is left out (-1)
                kern = -1
        row = {"call": lab, "kind": kind.split(":")[0], "kernels": round(kern, 2),
               "per_call_us": round(statistics.median(per), 3), "batched_us": round(statistics.median(bat), 3)}
        rows.append(row)
        log("timer %-44s kernels %4.1f per-call %9.2f batched %9.2f diff %6.2f us" % (
            lab, kern, row["per_call_us"], row["batched_us"], row["per_call_us"] - row["batched_us"]))
    # what a model's stream pays: calls of different kinds one after another (a kernel that
    # follows another kind costs a little more than one repeating itself), the stream timed with
    # one event pair against the sum of its calls' per-call times, both in every round
    labels = [c[0] for c in cases]

    def pick(*keys):
        return [i for i, l in enumerate(labels) if all(k in l.split() for k in keys)]
    streams = [("op forwards at 2^16", pick("65536", "fwd")), ("op forwards at 2^20", pick("1048576", "fwd")),
               ("op backwards at 2^20", pick("1048576", "bwd")), ("ops at 2^24", pick("16777216")),
               ("convolutions, batch norm and relu", [i for i in range(len(labels)) if labels[i].split()[0] in
                                                     ("conv", "relu", "batchnorm2d")
                                                     and "16777216" not in labels[i].split()]),
               ("GEMMs, attention and small ops", [i for i in range(len(labels)) if labels[i].split()[0] in
                                                   ("gemm", "sdpa", "layernorm", "gelu", "dropout", "add", "cast")
                                                   and "16777216" not in labels[i].split()]),
               ("every call", list(range(len(labels)))), ("every call, reversed", list(range(len(labels)))[::-1])]
    for name, idx in streams:
        fns = [cases[i][2] for i in idx]
        if not fns:
            continue

        def stream(fns=fns):
            for f in fns:
                f()
        with Tf32(torch, "tf32"):  # the TF32 calls as measured above; bf16 ones do not see it
            sums, whole = [], []
            for r in range(rounds):
                sums.append(sum(tm.device_us(f, reps=10) for f in fns))
                whole.append(tm.batch_us(stream, reps=5))
        row = {"call": "stream: " + name, "kind": "stream", "calls": len(fns),
               "per_call_us": round(statistics.median(sums), 3), "batched_us": round(statistics.median(whole), 3)}
        rows.append(row)
        log("timer stream %-36s %3d calls: per-call sum %9.2f, batched %9.2f us: %.2f us a call" % (
            name, len(fns), row["per_call_us"], row["batched_us"], stream_excess(row)))
    torch.backends.cudnn.benchmark = bench
    alone = [r for r in rows if r["kind"] != "stream"]
    over = timer_overhead(rows)
    log("timer: per-call events add %.2f us a call in a stream (median of %d streams); a call "
        "repeating itself %.2f (median of %d calls, %.2f..%.2f)" % (
            over, len(rows) - len(alone), statistics.median(r["per_call_us"] - r["batched_us"] for r in alone),
            len(alone), min(r["per_call_us"] - r["batched_us"] for r in alone),
            max(r["per_call_us"] - r["batched_us"] for r in alone)))
    return over, rows


def sdpa_us(torch, F, tm, dt, bh, kv, s, hd, **kw):
    """Forward and backward device time of SDPA (kw: its options) on bh query heads and kv key and
    value heads of s x hd in dtype dt."""
    q = torch.randn(1, bh, s, hd, device="cuda", dtype=dt, requires_grad=True)
    k, v = (torch.randn(1, kv, s, hd, device="cuda", dtype=dt, requires_grad=True) for _ in range(2))
    fn = lambda: F.scaled_dot_product_attention(q, k, v, **kw)  # noqa: E731
    f_us = tm.device_us(fn, reps=5)
    y = fn()
    g = torch.randn_like(y)
    return f_us, tm.device_us(lambda: torch.autograd.grad(y, (q, k, v), g, retain_graph=True), reps=5)


def measure_attention(torch, F, tm, quick, log):
    out = []
    for dname, dt in (("bf16", torch.bfloat16), ("fp32", torch.float32)):
        seqs = [128, 512, 2048] if quick else [128, 256, 512, 1024, 2048] + ([4096] if dname == "bf16" else [])
        for hd in (64, 128):
            for causal in (0, 1):
                for p in (0.0, 0.1):
                    n0 = len(out)
                    for s, bh in ((s, bh) for s in seqs for bh in attn_bhs(s, quick)):
                        try:
                            f_us, b_us = sdpa_us(torch, F, tm, dt, bh, bh, s, hd, dropout_p=p, is_causal=bool(causal))
                        except Exception as e:
                            log("sdpa %s hd %d: skipped (%s)" % (dname, hd, str(e).split("\n")[0][:120]))
                            continue
                        out.append({"dtype": dname, "head_dim": hd, "causal": causal, "dropout": p,
                                    "seq": s, "bh": bh, "fwd_us": round(f_us, 2), "bwd_us": round(b_us, 2)})
                    log("sdpa %s hd %d causal %d p %.1f: %s" % (dname, hd, causal, p,
                        [(e["seq"], e["bh"], e["fwd_us"], e["bwd_us"]) for e in out[n0:]]))
    return out


# attention_gqa: keys in groups of GQA_GROUP query heads, as transformers passes them to SDPA
# (enable_gqa=True where no mask is needed). Outside bf16 no fused kernel takes grouped keys (flash
# is 16-bit only, the memory-efficient kernel has no grouped keys), so PyTorch runs its math path:
# the keys and values repeated to every head, two batched products, the causal mask, softmax, every
# score written (a TF32 Phi-3 and Mistral forward 27-38% over the fused kernels' price, session 50).
# The path's matrix products follow the TF32 switch: "tf32" and "fp32" apart, as the GEMM tables.
GQA_GROUP = 2


def measure_attention_gqa(torch, F, tm, quick, log):
    out = []
    seqs = [128, 512, 2048] if quick else [128, 256, 512, 1024, 2048]
    for dname in ("tf32", "fp32"):
        with Tf32(torch, dname):
            for hd in (64, 128):
                n0 = len(out)
                for s, bh in ((s, bh) for s in seqs for bh in attn_bhs(s, quick)):
                    try:
                        f_us, b_us = sdpa_us(torch, F, tm, torch.float32, bh, bh // GQA_GROUP, s, hd,
                                             is_causal=True, enable_gqa=True)
                    except Exception as e:
                        log("sdpa gqa %s hd %d seq %d bh %d: skipped (%s)" % (dname, hd, s, bh, str(e).split("\n")[0][:120]))
                        continue
                    out.append({"dtype": dname, "head_dim": hd, "causal": 1, "dropout": 0.0,
                                "seq": s, "bh": bh, "fwd_us": round(f_us, 2), "bwd_us": round(b_us, 2)})
                    torch.cuda.empty_cache()
                log("sdpa gqa %s hd %d causal: %s" % (dname, hd, [(e["seq"], e["bh"], e["fwd_us"], e["bwd_us"])
                                                                  for e in out[n0:]]))
    return out


def gemm_operands(torch, dt, layout, m, n, k):
    """Operands and the call of one product in fusim's (m, n, k) convention of a linear layer's
    layouts: fwd y[m,n] = x[m,k] W[n,k]^T; dgrad dx[m,n] = dy[m,k] W[k,n]; wgrad
    dW[m,n] = dy[k,m]^T x[k,n] (the transposes as autograd passes them)."""
    if layout == "fwd":
        a = torch.randn(m, k, device="cuda", dtype=dt)
        b = torch.randn(n, k, device="cuda", dtype=dt)
        return lambda: torch.matmul(a, b.t())
    if layout == "dgrad":
        a = torch.randn(m, k, device="cuda", dtype=dt)
        b = torch.randn(k, n, device="cuda", dtype=dt)
        return lambda: torch.matmul(a, b)
    a = torch.randn(k, m, device="cuda", dtype=dt)
    b = torch.randn(k, n, device="cuda", dtype=dt)
    return lambda: torch.matmul(a.t(), b)


class Deadline:
    """A part's time budget: sweeps stop adding points once it has passed (the missing points
    are written as null, which fusim skips when it interpolates)."""

    def __init__(self, seconds):
        self.end = time.time() + seconds if seconds > 0 else float("inf")

    def passed(self):
        return time.time() > self.end


def measure_gemm_grid(torch, tm, dname, layout, axes, dl, reps=5):
    """One GEMM table (fusim's JSON form) over the grid axes = (ms, ns, ks); null where not
    measured (deadline passed, or the product failed)."""
    dt = torch.bfloat16 if dname == "bf16" else torch.float32
    us = []
    for m in axes[0]:
        for n in axes[1]:
            for k in axes[2]:
                t = None
                if not dl.passed():
                    try:
                        fn = gemm_operands(torch, dt, layout, m, n, k)
                        t = round(tm.device_us(fn, reps=reps), 3)
                        del fn
                    except RuntimeError:
                        t = None
                us.append(t)
    return {"dtype": dname, "layout": layout, "m": list(axes[0]), "n": list(axes[1]),
            "k": list(axes[2]), "us": us}


class Tf32:
    """Sets torch's TF32 switches for one dtype ("tf32": on, else off) and restores them."""

    def __init__(self, torch, dname):
        self.t, self.on = torch, dname == "tf32"

    def __enter__(self):
        b = self.t.backends
        self.saved = (b.cuda.matmul.allow_tf32, b.cudnn.allow_tf32)
        b.cuda.matmul.allow_tf32 = self.on
        b.cudnn.allow_tf32 = self.on
        return self

    def __exit__(self, *exc):
        self.t.backends.cuda.matmul.allow_tf32, self.t.backends.cudnn.allow_tf32 = self.saved
        return False


def measure_gemm_unaligned(torch, tm, quick, log, dl):
    """cuBLAS GEMMs of a linear layer whose output features are not a multiple of 8 (a
    vocabulary: GPT-2 50257, BERT 30522), as autograd runs them: fwd y = x W^T, dgrad dx = dy W,
    wgrad dW = dy^T x. Tables in fusim's (m, n, k) convention of each layout (fwd M x V x H,
    dgrad M x H x V, wgrad V x H x M), the vocabulary axis at unaligned sizes."""
    vocab = [4097, 16385, 50257] if quick else [1025, 4097, 16385, 30522, 50257]
    tokens = [512, 4096, 16384]
    hidden = [256, 1024, 4096]
    out = []
    for dname in ("bf16", "tf32"):
        with Tf32(torch, dname):
            for lay, axes in (("fwd", (tokens, vocab, hidden)), ("dgrad", (tokens, hidden, vocab)),
                              ("wgrad", (vocab, hidden, tokens))):
                out.append(measure_gemm_grid(torch, tm, dname, lay, axes, dl))
        fwd = out[-3]
        i = (len(tokens) - 1) * len(vocab) * len(hidden) + (len(vocab) - 1) * len(hidden) + 1
        log("gemm unaligned %s: fwd 16384x50257x1024 %s us" % (dname, fwd["us"][i]))
    return out


# The widths (a linear layer's features) the bf16 and TF32 tables sample: the powers of two and
# the multiples of 256 models use between them. cuBLAS's speed is not smooth between powers of two
# (2026-12-04o, tools/gemm_offgrid.py: TF32 products 768, 1280 or 1792 wide run 10-20% below the
# log-linear interpolation of their power-of-two neighbours, bf16 1792 wide 10%), so a grid of
# powers alone prices such widths fast.
GEMM_WIDTHS = [128, 256, 512, 768, 1024, 1280, 1536, 1792, 2048, 2560, 3072, 4096, 5120, 6144, 8192, 16384]
# The tokens (fwd's and dgrad's rows, wgrad's inner dimension): the powers of two and the 1.5x
# steps between them. TF32 products run cuBLAS's 128 x 128-tile kernels in whole waves over the
# SMs, so their time climbs in steps between powers of two: at 6304 tokens (ViT-B/16, batch 32)
# up to 18.5% above the interpolation of 4096 and 8192 (H100, gemm-tokens-h100-2026-12-07c.json),
# where bf16's persistent kernels stay within 3%. A point halfway (in log terms) halves the span
# a step can hide in.
GEMM_TOKENS = sorted([128 << i for i in range(8)] + [192 << i for i in range(7)])


def measure_gemm_aligned(torch, tm, quick, log, dl):
    """The aligned GEMM tables as PyTorch runs them (torch.matmul: cuBLASLt with PyTorch's
    workspace and heuristics): bf16 and TF32 over the tokens GEMM_TOKENS (128..16384) and the
    widths GEMM_WIDTHS (fwd and dgrad (tokens, width, width), wgrad (width, width, tokens)), fp32
    256..16384 by 4 in every axis. A profile merging them prices GEMMs from the framework's own
    calls."""
    out = []
    for dname in ("bf16", "tf32", "fp32"):
        ax = [256, 1024, 4096, 16384] if dname == "fp32" or quick else GEMM_TOKENS
        wx = ax if dname == "fp32" or quick else GEMM_WIDTHS
        with Tf32(torch, dname):
            for lay in ("fwd", "dgrad", "wgrad"):
                axes = (wx, wx, ax) if lay == "wgrad" else (ax, wx, wx)
                t = measure_gemm_grid(torch, tm, dname, lay, axes, dl)
                out.append(t)
                got = [u for u in t["us"] if u]
                log("gemm %s %s: %d of %d points" % (dname, lay, len(got), len(t["us"])))
    return out


# Convolution classes (kernel, stride) and their grid: output pixels M = batch x Ho x Wo (as
# batch, Ho), input and output channels. Torchvision's ResNets (and most CNNs) are made of
# these: 1x1 and 3x3 at stride 1 and 2, the 7x7 stride-2 stem on 3 channels; a ViT's 14x14, 16x16
# and 32x32 patch embeddings (kernel = stride, no padding).
CONV_M = [(32, 7), (32, 14), (32, 28), (32, 56), (128, 56)]  # M = 1568 .. 401408
CONV_CLASSES = [
    (1, 1, CONV_M, [64, 128, 256, 512, 1024, 2048], [64, 128, 256, 512, 1024, 2048]),
    (3, 1, CONV_M, [64, 128, 256, 512], [64, 128, 256, 512]),
    (3, 2, CONV_M[:4], [3, 64, 128, 256, 512], [32, 64, 128, 256, 512]),  # cin 3: MobileNet, EfficientNet stems
    (1, 2, CONV_M[:4], [64, 256, 512, 1024], [128, 256, 512, 1024, 2048]),
    (7, 2, [(2, 112), (8, 112), (32, 112), (128, 112)], [3], [32, 64]),
    # a ViT's patch embedding: P x P at stride P, no padding, on the 3-channel 224x224 image
    (14, 14, [(8, 16), (32, 16), (64, 16), (128, 16)], [3], [384, 768, 1024, 1280]),
    (16, 16, [(8, 14), (32, 14), (64, 14), (128, 14)], [3], [384, 768, 1024, 1280]),
    (32, 32, [(8, 7), (32, 7), (64, 7), (128, 7)], [3], [384, 768, 1024, 1280]),
    # ConvNeXt's stem (4x4 at stride 4 on the image) and its downsampling (2x2 at stride 2 to twice
    # the channels: tiny and small 96..768, base 128..1024, large 192..1536)
    (4, 4, [(8, 56), (32, 56), (128, 56)], [3], [96, 128, 192]),
    (2, 2, [(32, 7), (32, 14), (32, 28), (128, 28)], [96, 192, 384, 768], [192, 384, 768, 1536]),
]
# Depthwise convolutions (part dwconv; groups = channels): MobileNet's, EfficientNet's and
# MNASNet's 3x3 and 5x5 at stride 1 and 2, ConvNeXt's 7x7, over output pixels (as CONV_M, and
# the 112x112 maps of the first blocks) and channels (16: MobileNetV3-small's first; 3840:
# EfficientNet-B7's widest). Tables "groups": "grouped" with k = k x k (one input channel a
# group); shapes of more than DW_MAX_ELEMS input elements are left out (memory; no torchvision
# model at batch <= 128 and 224 pixels has them).
DW_M = CONV_M[:4] + [(32, 112), (128, 112)]
DW_CHANNELS = [16, 48, 144, 432, 1296, 3888]
DW_CLASSES = [(3, 1, DW_M), (3, 2, DW_M[:5]), (5, 1, DW_M), (5, 2, DW_M[:5]), (7, 1, DW_M[:5])]
DW_MAX_ELEMS = 2 ** 28
# Grouped convolutions of wider groups (part gconv): ResNeXt's and RegNet's 3x3 at stride 1 and 2,
# over group widths (input channels a group: ResNeXt-50 32x4d's 4..32, RegNet's 8..264) and
# channels (each a multiple of every width below it; a width of all the channels, one group, is a
# dense convolution, left out: the 128-channel row stops at 64), output pixels as CONV_M.
# Tables "groups": "grouped" with per-group K = width x 3 x 3 (fusim keeps them apart from the
# depthwise ones, whose K is 3 x 3); inputs of more than DW_MAX_ELEMS elements left out.
GCONV_WIDTHS = [4, 8, 16, 32, 64, 128, 256]
GCONV_CHANNELS = [128, 512, 2048]
GCONV_CLASSES = [(3, 1, CONV_M), (3, 2, CONV_M[:4])]


def conv_calls(torch, dt, batch, ho, cin, cout, k, s, nchw=False, groups=1):
    """fwd, dgrad, wgrad of one channels-last (nchw: NCHW, PyTorch's default) convolution
    (padding k // 2; none where kernel = stride) of `groups` groups (depthwise: groups = cin =
    cout) as autograd runs them (aten::convolution_backward with one output asked for); dgrad
    None for 3 channels (an image needs no gradient)."""
    hin = ho * s
    cl = torch.contiguous_format if nchw else torch.channels_last
    x = torch.randn(batch, cin, hin, hin, device="cuda", dtype=dt).to(memory_format=cl)
    w = torch.randn(cout, cin // groups, k, k, device="cuda", dtype=dt).to(memory_format=cl)
    pad = [0, 0] if k == s else [k // 2, k // 2]  # a patch embedding's tiles do not overlap
    y = torch.nn.functional.conv2d(x, w, None, s, pad, 1, groups)
    gy = torch.randn_like(y)

    def bwd(mask):
        return lambda: torch.ops.aten.convolution_backward(gy, x, w, None, [s, s], pad, [1, 1], False,
                                                            [0, 0], groups, mask)
    f = lambda: torch.nn.functional.conv2d(x, w, None, s, pad, 1, groups)  # noqa: E731
    return f, (bwd([True, False, False]) if cin != 3 else None), bwd([False, True, False])


def conv_todo(groups):
    """The classes a conv part measures: (kernel, stride, output pixels (batch, Ho), [(cin, cout,
    groups)], name) for groups "dense" (part conv), "depthwise" (dwconv) or "grouped" (gconv)."""
    if groups == "depthwise":
        return [(k, s, ms, [(c, c, c) for c in DW_CHANNELS], "dw%ds%d" % (k, s)) for k, s, ms in DW_CLASSES]
    if groups == "grouped":
        return [(k, s, ms, [(c, c, c // w) for c in GCONV_CHANNELS for w in GCONV_WIDTHS if w < c],
                 "g%ds%d" % (k, s)) for k, s, ms in GCONV_CLASSES]
    return [(k, s, ms, [(ci, co, 1) for ci in cins for co in couts], "k%ds%d" % (k, s))
            for k, s, ms, cins, couts in CONV_CLASSES]


def conv_tables(pts, dname, k, s, nchw, groups):
    """One class's tables (fusim's JSON form) from its timed points pts[layout][(m, n, k)]; null
    where a grid point was not timed."""
    out = []
    for lay, p in pts.items():
        if not p:
            continue
        ax = [sorted({q[i] for q in p}) for i in range(3)]
        out.append({"dtype": dname, "layout": lay, "kernel": k, "stride": s,
                    "m": ax[0], "n": ax[1], "k": ax[2],
                    "us": [round(p[(a, b_, c)], 3) if (a, b_, c) in p else None
                           for a in ax[0] for b_ in ax[1] for c in ax[2]]})
        if nchw:
            out[-1]["format"] = "nchw"
        if groups != "dense":
            out[-1]["groups"] = "grouped"
    return out


def measure_conv(torch, tm, dtypes, log, dl, classes=None, nchw=False, groups="dense", into=None,
                 flush=None):
    """Convolution tables by class (kernel, stride) and layout, in fusim's (m, n, k) of the
    implicit GEMM: fwd (M, Cout, Cin k k), dgrad (M, Cin k k, Cout), wgrad (Cout, Cin k k, M),
    M = batch x Ho x Wo. cuDNN with benchmark mode on (the algorithm search runs in the
    warm-up), channels-last, as tools/capture_set.py runs torchvision models; nchw: in
    PyTorch's default layout, as a training loop that never asks for channels-last runs them
    (tables marked "format": "nchw"). groups "depthwise": DW_CLASSES instead (named dwKsS in
    classes), one input channel a group, so K = k x k; "grouped": GCONV_CLASSES (gKsS), K = the
    group's width x k x k (tables marked "groups": "grouped"). The tables go into the list into
    (a new one by default), which is returned; with flush, the class's tables so far are put there
    and flush() called after every batch x map size: a sweep killed by its timeout (a cuDNN search
    can run past --budget) keeps what it timed."""
    out = [] if into is None else into
    bench = torch.backends.cudnn.benchmark
    torch.backends.cudnn.benchmark = True
    for dname in dtypes:
        dt = torch.bfloat16 if dname == "bf16" else torch.float32
        with Tf32(torch, dname):
            for k, s, ms, shapes, cname in conv_todo(groups):
                if classes and cname not in classes:
                    continue
                pts = {"fwd": {}, "dgrad": {}, "wgrad": {}}
                base = len(out)
                for b, ho in ms:
                    M = b * ho * ho
                    for cin, cout, g in shapes:
                        if dl.passed() or (groups != "dense" and M * s * s * cin > DW_MAX_ELEMS):
                            continue
                        K = cin // g * k * k
                        try:
                            f, dg, wg = conv_calls(torch, dt, b, ho, cin, cout, k, s, nchw, g)
                            pts["fwd"][(M, cout, K)] = tm.device_us(f, reps=5)
                            if dg:
                                pts["dgrad"][(M, K, cout)] = tm.device_us(dg, reps=5)
                            pts["wgrad"][(cout, K, M)] = tm.device_us(wg, reps=5)
                            del f, dg, wg
                        except RuntimeError as e:
                            log("conv %s %s %dx%d %d->%d /%d: %s" % (dname, cname, b, ho, cin, cout, g,
                                                                     str(e).split("\n")[0][:100]))
                    if flush and pts["fwd"]:
                        out[base:] = conv_tables(pts, dname, k, s, nchw, groups)
                        flush()
                torch.cuda.empty_cache()
                out[base:] = conv_tables(pts, dname, k, s, nchw, groups)
                log("conv %s%s %s: %d shapes" % (dname, " nchw" if nchw else "", cname, len(pts["fwd"])))
    torch.backends.cudnn.benchmark = bench
    return out


# (tensors in the step, elements) come from model-like nets: LAYERS blocks of Linear(W, W) +
# LayerNorm(W) (4 tensors each, mixed sizes as in a transformer), WIDTH as below
OPT_NETS = [(4, 256), (32, 256), (16, 1024), (8, 4096), (100, 128), (128, 64), (64, 2048),
            (200, 512), (250, 32)]


def opt_net(torch, L, W):
    """The optimizer part's model-like net: L blocks of Linear(W, W) + LayerNorm(W) on the GPU.
    Returns its parameters and fwd_bwd(): set_to_none gradients from a forward and backward."""
    F = torch.nn.functional
    blocks = torch.nn.ModuleList(torch.nn.ModuleList([torch.nn.Linear(W, W, device="cuda"),
                                                      torch.nn.LayerNorm(W, device="cuda")]) for _ in range(L))
    x = torch.randn(8, W, device="cuda")

    def fwd_bwd():
        blocks.zero_grad(set_to_none=True)
        h = x
        for lin, ln in blocks:
            h = F.gelu(ln(lin(h)))
        h.square().mean().backward()
    return list(blocks.parameters()), fwd_bwd


# PyTorch's foreach optimizer steps (torch/optim/adam.py _multi_tensor_adam, sgd.py
# _multi_tensor_sgd), per operation: the lists it takes (they set the launch cut), 1 where it
# takes a scalar per tensor, and for the cold form (fit_optim_cold, fu_compute.h) the times it
# reads or writes each element (in place: every list read, one written; the same tensor twice
# reads once), the lists it reads and the one it creates, as letters: P parameters, G gradients,
# A momentum buffer / exp_avg, S exp_avg_sq, D the denominator AdamW's sqrt creates. The same
# table as model/fu_compute.c's fu__*_ops.
OPT_FOREACH = {
    "sgd": [(1, 0, 2, "A", ""), (2, 0, 3, "AG", ""), (2, 0, 3, "PA", "")],  # mul_, add_ (buffer), add_
    # mul_ (decay), lerp_, mul_, addcmul_ (the gradient twice), sqrt (new tensors), div_, add_ (eps), addcdiv_
    "adamw": [(1, 0, 2, "P", ""), (2, 0, 3, "AG", ""), (1, 0, 2, "S", ""), (3, 0, 3, "SG", ""),
              (2, 0, 2, "S", "D"), (1, 1, 2, "D", ""), (1, 0, 2, "D", ""), (3, 1, 4, "PAD", "")],
}
OPT_FOREACH["adam"] = OPT_FOREACH["adamw"][1:]   # no decay


# torch.nn.utils.clip_grad_norm_(params, max_norm) on its foreach path (PyTorch 2.x, CUDA, one
# device and dtype), inside the timed step as a training loop calls it before step() (the
# "<optimizer>_clip" rows): _foreach_norm over the gradients (one list, read only: half the bytes
# of a one-list in-place operation such as mul_, so half its moved and chunk elements), then,
# after a few one-element kernels (clip_small_launches), _foreach_mul_ of every gradient by the
# clamped coefficient (one list, in place: read and written, as mul_ above). No host sync
# (error_if_nonfinite False, the default). As (lists, scalarlist, share of a one-list in-place
# operation's bytes), then OPT_FOREACH's cold-form fields.
CLIP_FOREACH = [(1, 0, 0.5, 1, "G", ""), (1, 0, 1.0, 2, "G", "")]
CLIP_FIXED = 6          # one-element kernels whatever the tensor count (clip_small_launches)
NORM_CLEANUP_BATCH = 400  # tensors one _foreach_norm cleanup kernel finishes (MAX_TENSORS_PER_KERNEL)
CAT_BATCH = 128         # inputs one cat kernel copies (ATen's CAT_ARRAY_BATCH_SIZE)


def clip_small_launches(ntensors):
    """The small kernels of clip_grad_norm_ over ntensors gradients besides its two foreach
    operations (ATen ForeachReduceOp.cu, TensorShape.cu; torch/nn/utils/clip_grad.py):
    _foreach_norm's zeroed per-chunk buffer (1) and its per-tensor cleanup (a kernel per
    NORM_CLEANUP_BATCH tensors), torch.stack of the n norms (a cat kernel per CAT_BATCH inputs),
    linalg.vector_norm (1), total + 1e-6 (1), max_norm / that (reciprocal and mul, 2), clamp (1):
    CLIP_FIXED + ceil(n / 400) + ceil(n / 128)."""
    n = int(ntensors)
    return CLIP_FIXED + (-(-n // NORM_CLEANUP_BATCH) - (-n // CAT_BATCH) if n > 0 else 0)


def optim_base(name):
    """The optimizer of a row's name: "adamw" for "adamw" and for "adamw_clip"."""
    return name[:-5] if name.endswith("_clip") else name


def optim_ops(name):
    """(lists, scalarlist, byte share) of each foreach operation of a row's step: OPT_FOREACH's
    (share 1), after CLIP_FOREACH's for an "<optimizer>_clip" row; KeyError for another name."""
    base = optim_base(name)
    ops = [(lists, sl, 1.0) for lists, sl, *_ in OPT_FOREACH[base]]
    return [op[:3] for op in CLIP_FOREACH] + ops if base != name else ops


def has_launch_form(name):
    """Whether a row's step is counted in launches (optim_ops knows its operations)."""
    try:
        optim_ops(name)
        return True
    except KeyError:
        return False


def mta_launch_list(sizes, lists, scalarlist):
    """Each launch of one foreach operation over tensors of `sizes` elements, as ATen's
    MultiTensorApply.cuh cuts them, as (elements, largest chunk): chunks of 65536, at most 320 a
    launch, at most 110 / 64 / 48 / 36 / 30 tensors for 1..5 lists (96 for one scalarlist); a
    tensor cut by the chunk limit carries on in the next launch. The same rule as fusim's
    fu_optim_launches."""
    max_t = 96 if scalarlist and lists == 1 else (110, 64, 48, 36, 30)[min(max(lists, 1), 5) - 1]
    out = []
    nt = nb = 0
    tot = big = 0.0
    for e in sizes:
        nch = -(-int(e) // 65536)
        if nch <= 0:   # ATen skips an empty tensor: it takes no tensor slot
            continue
        nt += 1
        for c in range(nch):
            sz = e - c * 65536 if c == nch - 1 else 65536
            nb, tot, big = nb + 1, tot + sz, max(big, sz)
            last = c == nch - 1
            if nb == 320 or (nt == max_t and last):
                out.append((tot, big))
                nb, tot, big, nt = 0, 0.0, 0.0, (0 if last else 1)
    if nb:
        out.append((tot, big))
    return out


def mta_launches(sizes, lists, scalarlist):
    """(launches, elements touched x lists, largest chunk of each launch x lists) of one foreach
    operation (mta_launch_list's launches)."""
    ls = mta_launch_list(sizes, lists, scalarlist)
    return float(len(ls)), sum(e for e, _ in ls) * lists, sum(c for _, c in ls) * lists


def opt_point_sizes(p):
    """The tensor sizes of an optimizer point, in parameter order: its net's (L blocks of
    Linear(W, W) + LayerNorm(W): weight, bias, LN weight, LN bias), by its recorded L and W, else
    the OPT_NETS entry with its tensor and element counts."""
    lw = [(p["L"], p["W"])] if "L" in p else [(L, W) for L, W in OPT_NETS
                                              if 4 * L == p["n"] and L * (W * W + 3 * W) == p["numel"]]
    if not lw:
        raise ValueError("optimizer point of %d tensors, %d elements: not an OPT_NETS net" % (p["n"], p["numel"]))
    L, W = lw[0]
    return [W * W, W, W, W] * L


def optim_launch_features(name, sizes):
    """Launches, elements touched x lists, largest chunks x lists over the optimizer's foreach
    operations (optim_ops: OPT_FOREACH's, and the clip's with its one-element kernels as launches
    for an "_clip" row)."""
    f = [0.0, 0.0, 0.0]
    for lists, sl, w in optim_ops(name):
        n, moved, chunk = mta_launches(sizes, lists, sl)
        f = [a + b for a, b in zip(f, (n, moved * w, chunk * w))]
    if name.endswith("_clip"):
        f[0] += clip_small_launches(sum(1 for e in sizes if e > 0))
    return f


def fit_optim_launch(name, pts):
    """Device time of the optimizer's step as launch_us x launches + per_moved_elem_us x elements
    touched + per_chunk_elem_us x largest chunks (optim_launch_features of each point's net), by
    relative least squares over the points (the 3 x 3 normal equations); the largest relative
    error beside it."""
    X = [optim_launch_features(name, opt_point_sizes(p)) for p in pts]
    y = [p["dev_us"] for p in pts]
    coef = rel_lsq(X, y)
    err = max(abs(sum(c * x for c, x in zip(coef, row)) / v - 1) for row, v in zip(X, y))
    return coef[0], coef[1], coef[2], err


LAUNCH_FIELDS = ("launch_us", "per_moved_elem_us", "per_chunk_elem_us", "launch_max_rel_err")


def launch_ok(lu, lm, lc):
    """Whether fusim's profile parser takes a launch form (model/fu_compute.c: launch_us 1e-6 to
    1e6, per_moved_elem_us and per_chunk_elem_us 0 to 1); least squares is unconstrained."""
    return 1e-6 <= lu <= 1e6 and 0 <= lm <= 1 and 0 <= lc <= 1


def optim_launch_fields(name, pts):
    """The launch form's fields of an optimizer row (fit_optim_launch), or {} where the fit gives
    a coefficient fusim refuses (launch_ok): the row then keeps base + per tensor + per element
    alone, and fusim prices it by those."""
    lu, lm, lc, lerr = fit_optim_launch(name, pts)
    if not launch_ok(lu, lm, lc):
        return {}
    return {"launch_us": round(lu, 4), "per_moved_elem_us": float("%.6g" % lm),
            "per_chunk_elem_us": float("%.6g" % lc), "launch_max_rel_err": round(lerr, 4)}


HBM_FIELDS = ("hbm_launch_us", "hbm_per_moved_elem_us", "hbm_sat_blocks", "cache_bytes")


def optim_streams(name, numel, cache_bytes):
    """Whether every foreach operation of the optimizer's step over numel fp32 elements touches
    more bytes than the GPU's L2 cache holds (its lists x numel x 4), so that it streams from HBM."""
    return min(lists for lists, _, _ in optim_ops(name)) * numel * 4 > cache_bytes


def optim_hbm_features(name, sizes, sat_blocks):
    """(launches, the sum over them of lists x max(elements, sat_blocks x largest chunk)) over the
    optimizer's foreach operations (optim_ops; an "_clip" row's one-element kernels add launches):
    the HBM form's features (fit_optim_hbm)."""
    n = t = 0.0
    for lists, sl, w in optim_ops(name):
        ls = mta_launch_list(sizes, lists, sl)
        n += len(ls)
        t += lists * sum(max(e, sat_blocks * c) for e, c in ls) * w
    if name.endswith("_clip"):   # one-element kernels: a launch each
        n += clip_small_launches(sum(1 for e in sizes if e > 0))
    return n, t


def optim_dev_us(row, sizes):
    """The device time fusim gives a fitted row's step over tensors of `sizes` elements in
    parameter order (model/fu_compute.c fu_optim_dev_us, the same rule): the cold form where the
    row has it (cold_features; without a warm pair every operation is priced cold); else per foreach operation
    (optim_ops) the HBM form where the row has one and the operation's lists x elements x 4 bytes
    pass its cache, else the launch form; an "_clip" row's one-element kernels at the launch cost
    of its one-list operations. A row without a launch form: base + per tensor + per element."""
    name, n = row["name"], sum(1 for e in sizes if e > 0)
    total = sum(e for e in sizes if e > 0)
    if not row.get("launch_us", 0) > 0 or not has_launch_form(name):
        return row["base_us"] + row["per_tensor_us"] * len(sizes) + row["per_elem_us"] * total
    if row.get("cold_launch_us", 0) > 0:   # the cold form, at every size
        n, cold, warm = cold_features(name, sizes, row["cold_chunk_touches"], row["warm_chunk_touches"],
                                      row["cache_bytes"] if row.get("warm_per_touch_us", 0) > 0 else 0)
        return row["cold_launch_us"] * n + row["cold_per_touch_us"] * cold + row.get("warm_per_touch_us", 0) * warm
    hbm = row.get("hbm_launch_us", 0) > 0
    us = 0.0
    for lists, sl, share in optim_ops(name):
        ls = mta_launch_list(sizes, lists, sl)
        if hbm and lists * total * 4 > row["cache_bytes"]:
            sat = lists * sum(max(e, row["hbm_sat_blocks"] * c) for e, c in ls)
            us += row["hbm_launch_us"] * len(ls) + row["hbm_per_moved_elem_us"] * sat * share
        else:
            us += row["launch_us"] * len(ls) + (row["per_moved_elem_us"] * lists * sum(e for e, _ in ls) +
                                                row["per_chunk_elem_us"] * lists * sum(c for _, c in ls)) * share
    if name.endswith("_clip"):
        small = clip_small_launches(n)
        us += small * (row["hbm_launch_us"] if hbm and total * 4 > row["cache_bytes"] else row["launch_us"])
    return us


def fit_optim_hbm(name, pts, cache_bytes):
    """The device time of a step that streams from HBM (optim_streams): each launch costs
    hbm_launch_us plus hbm_per_moved_elem_us for each element of each list it touches, but at
    least for hbm_sat_blocks full chunks per list: a block has a fixed number of loads in flight,
    so a launch of fewer full chunks than that runs at the blocks' rate, not HBM's (the
    calibration's 800-tensor net, 200 x (512 x 512, 3 x 512), runs its launches of 64-112 full
    chunks at 2.0 TB/s against 3.7 for 320; the additive launch form reads it 11-16% short).
    By relative least squares over the points whose every operation streams (at least 3 nets),
    hbm_sat_blocks over 1..320 whole blocks. {} where too few points stream or a coefficient is
    not positive."""
    hbm = [p for p in pts if optim_streams(name, p["numel"], cache_bytes)]
    if len({(p["n"], p["numel"]) for p in hbm}) < 3:
        return {}
    best = None
    for r in range(1, 321):
        rows = [optim_hbm_features(name, opt_point_sizes(p), r) + (p["dev_us"],) for p in hbm]
        uu = uv = vv = su = sv = 0.0
        for n, t, y in rows:
            u, v = n / y, t / y
            uu, uv, vv, su, sv = uu + u * u, uv + u * v, vv + v * v, su + u, sv + v
        det = uu * vv - uv * uv
        if det <= 0:
            continue
        a, m = (su * vv - sv * uv) / det, (sv * uu - su * uv) / det
        err = sum(((a * n + m * t) / y - 1) ** 2 for n, t, y in rows)
        if a > 0 and m > 0 and (best is None or err < best[0]):
            best = (err, r, a, m, max(abs((a * n + m * t) / y - 1) for n, t, y in rows))
    if best is None:
        return {}
    _, r, a, m, worst = best
    return {"hbm_launch_us": round(a, 4), "hbm_per_moved_elem_us": float("%.6g" % m),
            "hbm_sat_blocks": r, "cache_bytes": int(cache_bytes), "hbm_max_rel_err": round(worst, 4)}


# The cold form's fields (2026-12-07, fu_compute.h)
COLD_FIELDS = ("cold_launch_us", "cold_per_touch_us", "cold_chunk_touches", "warm_per_touch_us",
               "warm_chunk_touches", "cache_bytes")


def cold_ops(name):
    """(lists, scalarlist, touches, reads, creates) of each foreach operation of a row's step
    (OPT_FOREACH's), the clip's first for an "<optimizer>_clip" row; KeyError else."""
    base = optim_base(name)
    clip = [op[:2] + op[3:] for op in CLIP_FOREACH] if base != name else []   # without the share
    return clip + OPT_FOREACH[base]


def op_warm(ops, k, list_bytes, cache_bytes):
    """Whether every list operation k reads was touched earlier in the step, with its own and the
    other lists touched since within cache_bytes (fu_compute.c fu__op_warm)."""
    for x in ops[k][3]:
        last = max((j for j in range(k) if x in ops[j][3] + ops[j][4]), default=-1)
        if last < 0:
            return False
        since = set("".join(ops[j][3] + ops[j][4] for j in range(last + 1, k))) - {x}
        if (1 + len(since)) * list_bytes > cache_bytes:
            return False
    return True


def cold_launches(name, sizes, cache_bytes):
    """[(warm, touches x elements, largest chunk)] of each launch of a step over tensors of
    `sizes` elements (op_warm of its operation), and the one-element kernels' count of an "_clip"
    row."""
    ops, total = cold_ops(name), sum(e for e in sizes if e > 0)
    out = []
    for k, (lists, sl, touches, _, _) in enumerate(ops):
        hot = op_warm(ops, k, 4 * total, cache_bytes)
        out += [(hot, touches * e, c) for e, c in mta_launch_list(sizes, lists, sl)]
    small = clip_small_launches(sum(1 for e in sizes if e > 0)) if name.endswith("_clip") else 0
    return out, small


def cold_sum(launches, warm, chunk):
    """The sum over the warm (or cold) launches of hypot(touches x elements, chunk x largest chunk)."""
    return sum(math.hypot(te, chunk * c) for hot, te, c in launches if hot == warm)


def cold_features(name, sizes, cold_chunk, warm_chunk, cache_bytes):
    """(launches, the cold operations' cold_sum, the warm ones') of a step over tensors of
    `sizes` elements: the cold form's features (an "_clip" row's one-element kernels add
    launches)."""
    ls, small = cold_launches(name, sizes, cache_bytes)
    return len(ls) + small, cold_sum(ls, False, cold_chunk), cold_sum(ls, True, warm_chunk)


def rel_lsq(X, y):
    """Coefficients c minimising sum((X c / y - 1)^2) (relative least squares, the normal
    equations by Gauss-Jordan with partial pivoting); None where they are singular."""
    k = len(X[0])
    A = [[x / v for x in row] for row, v in zip(X, y)]
    M = [[sum(a[i] * a[j] for a in A) for j in range(k)] + [sum(a[i] for a in A)] for i in range(k)]
    for i in range(k):
        r = max(range(i, k), key=lambda q: abs(M[q][i]))
        M[i], M[r] = M[r], M[i]
        if abs(M[i][i]) < 1e-300:
            return None
        for q in range(k):
            if q != i:
                f = M[q][i] / M[i][i]
                M[q] = [a - f * b for a, b in zip(M[q], M[i])]
    return [M[i][k] / M[i][i] for i in range(k)]


def fit_optim_cold(name, pts, cache_bytes, chunk_grid=range(8, 401, 4)):
    """The cold form's fields of row `name` from cold steps (dicts: sizes, cold_dev_us): launch
    cost and the cold and warm operations' time per touched element by relative least squares,
    their chunk weights over chunk_grid, the pair with the smallest largest-plus-median relative
    error (a step's error, not a kernel's, is what a price is held to). The warm pair is left 0
    where no operation of the step is warm on these points. {} where no fit has every coefficient
    positive."""
    y = [p["cold_dev_us"] for p in pts]
    ls = [cold_launches(name, p["sizes"], cache_bytes) for p in pts]
    any_warm = any(hot for launches, _ in ls for hot, _, _ in launches)
    cold = {sc: [cold_sum(launches, False, sc) for launches, _ in ls] for sc in chunk_grid}
    warm = {sw: [cold_sum(launches, True, sw) for launches, _ in ls] for sw in chunk_grid} if any_warm else {0: None}
    best = None
    for sw, wf in warm.items():
        for sc, cf in cold.items():
            X = [[len(launches) + small, cf[i]] + ([wf[i]] if any_warm else []) for i, (launches, small) in enumerate(ls)]
            c = rel_lsq(X, y)
            if not c or min(c) <= 0:
                continue
            errs = sorted(abs(sum(a * b for a, b in zip(c, row)) / v - 1) for row, v in zip(X, y))
            score = errs[-1] + errs[len(errs) // 2]
            if best is None or score < best[0]:
                best = (score, sc, sw, c, errs[-1], errs[len(errs) // 2])
    if best is None:
        return {}
    _, sc, sw, c, worst, med = best
    return {"cold_launch_us": round(c[0], 4), "cold_per_touch_us": float("%.6g" % c[1]), "cold_chunk_touches": sc,
            "warm_per_touch_us": float("%.6g" % c[2]) if any_warm else 0.0, "warm_chunk_touches": sw,
            "cache_bytes": int(cache_bytes), "cold_max_rel_err": round(worst, 4),
            "cold_median_rel_err": round(med, 4)}


def fit_optim_host(pts):
    """Host part of the optimizer step from points (dicts: n tensors, host_us = opt.step()'s CPU
    time inside a training step, dev_us = its device time alone, gap_us = the GPU's time from
    backward's end to the step's end, lag_us = how far the GPU was behind the host when
    backward() returned): host = host_base + host_per_tensor x n by relative least squares
    (times span 0.5..25 ms: absolute residuals let the noise of the 1000-tensor points set the
    base, 2x the 16-tensor points' whole time on 2026-12-04d), and the device time after the
    host's last issue (the last kernel) as a fraction of the device time, from the host-bound
    points (gap = host - lag + tail_frac x dev there); 0 when none."""
    # minimise sum(((base + per_t n) / y - 1)^2): the 2 x 2 normal equations in u = 1/y, v = n/y
    uu = uv = vv = su = sv = 0.0
    for p in pts:
        u, v = 1.0 / p["host_us"], p["n"] / p["host_us"]
        uu, uv, vv, su, sv = uu + u * u, uv + u * v, vv + v * v, su + u, sv + v
    det = uu * vv - uv * uv
    base, per_t = (su * vv - sv * uv) / det, (sv * uu - su * uv) / det
    if per_t < 0:
        per_t, base = 0.0, statistics.fmean(p["host_us"] for p in pts)
    fr = [(p["gap_us"] - (p["host_us"] - p["lag_us"])) / p["dev_us"] for p in pts
          if p["dev_us"] > 0 and p["host_us"] - p["lag_us"] > 1.2 * p["dev_us"]]
    tail = min(1.0, max(0.0, statistics.median(fr))) if fr else 0.0
    return max(0.0, base), per_t, tail


def fit_optim_overlap(pts):
    """How the step's host and device overlap, from points as fit_optim_host's: (prologue_frac,
    tail_us). opt.step() runs Python over its parameters before it launches anything: where the
    device time is not hidden by the host's (host - lag <= 1.2 x dev), the step is the prologue
    beyond the lag plus the device time, so prologue_frac = (gap - dev + lag) / host there (the
    median, 0 to 1); where the host is behind, the GPU runs the kernels as they are issued and what
    is left after the host's last issue is a launch or two less the Python after it: tail_us =
    gap - (host - lag) there (the median, >= 0), a time, not a share of the device time (on
    2026-12-04d/e 24-234 us at device times of 30-2400 us). 0 for a part without points."""
    bound = [p for p in pts if p["dev_us"] > 0 and p["host_us"] - p["lag_us"] > 1.2 * p["dev_us"]]
    free = [p for p in pts if p["dev_us"] > 0 and p["host_us"] > 0 and p not in bound]
    pro = statistics.median((p["gap_us"] - p["dev_us"] + p["lag_us"]) / p["host_us"] for p in free) if free else 0.0
    tail = statistics.median(p["gap_us"] - (p["host_us"] - p["lag_us"]) for p in bound) if bound else 0.0
    return min(1.0, max(0.0, pro)), max(0.0, tail)


def optim_host_fields(pts):
    """An optimizer row's host fields from its points: fit_optim_host's parts inside a training
    step and back to back (host_loop_us), and fit_optim_overlap's."""
    hbase, hper, tail = fit_optim_host(pts)
    _, loop_per, _ = fit_optim_host([dict(q, host_us=q["host_loop_us"]) for q in pts])
    pro, tail_us = fit_optim_overlap(pts)
    return {"host_base_us": round(hbase, 2), "host_per_tensor_us": round(hper, 3),
            "tail_frac": round(tail, 3), "prologue_frac": round(pro, 3), "tail_us": round(tail_us, 1),
            "host_loop_per_tensor_us": round(loop_per, 3)}


def l2_cache_bytes(torch):
    """The GPU's L2 cache in bytes (the optimizer's HBM form: which steps stream)."""
    return int(torch.cuda.get_device_properties(0).L2_cache_size)


OPT_NAMES = ("adamw", "adam", "sgd", "adamw_clip", "adam_clip", "sgd_clip")
CLIP_MAX_NORM = 1.0   # HF Trainer's max_grad_norm (the time does not depend on it: no host sync)


class clipped_step:
    """An optimizer whose step() clips its parameters' gradients to total norm CLIP_MAX_NORM
    first (torch.nn.utils.clip_grad_norm_, PyTorch's default foreach path), as
    validate_torch.clipped_optimizer's does."""

    def __init__(self, torch, opt, params):
        self.torch, self.opt, self.params = torch, opt, params

    def step(self):
        self.torch.nn.utils.clip_grad_norm_(self.params, CLIP_MAX_NORM)
        self.opt.step()


def measure_optimizers(torch, log, names=("adamw", "adam", "sgd")):
    """Each optimizer's step as it runs in a training step: after a forward and backward over
    the same parameters, with set_to_none gradients (PyTorch's default), measured three ways in
    every round: (a) as the captures time it (events from backward's end to the step's end, and
    opt.step()'s CPU time), (b) behind a sleep kernel (the device time alone, and the CPU time
    again), (c) a step right after (b)'s, back to back (the old calibration's context, kept as a
    comparison: in real steps the host pays 2.4-6x its per-tensor cost, data/compute/README.md).
    Writes the device fit (base + per tensor + per element, from (b)), the host fit (base + per
    tensor, from (a)), the last kernel's share and the host-speed probe's readings beside it.
    names: from OPT_NAMES; an "<optimizer>_clip" one steps as validate_torch's clipped_optimizer
    does: torch.nn.utils.clip_grad_norm_(parameters, CLIP_MAX_NORM), then opt.step(), the clip
    inside every timing of the step."""
    import gc
    import numpy as np
    import torch_host
    out, probes = [], []
    ncoll = [0]

    def on_gc(phase, info):
        if phase == "start":
            ncoll[0] += 1
    gc.callbacks.append(on_gc)
    ev = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731
    try:
        for name in names:
            pts, temp = [], []
            base = optim_base(name)
            for L, W in OPT_NETS:
                probes.append(torch_host.host_probe())
                torch.manual_seed(0)
                ps, fwd_bwd = opt_net(torch, L, W)
                if base == "adamw":
                    opt = torch.optim.AdamW(ps, lr=1e-4)
                elif base == "adam":
                    opt = torch.optim.Adam(ps, lr=1e-4)
                else:
                    opt = torch.optim.SGD(ps, lr=0.01, momentum=0.9)
                if base != name:
                    opt = clipped_step(torch, opt, ps)
                for _ in range(2):
                    fwd_bwd()
                    t0 = time.perf_counter()
                    opt.step()
                    warm = (time.perf_counter() - t0) * 1e6
                torch.cuda.synchronize()
                before = torch.cuda.memory_allocated()
                torch.cuda.reset_peak_memory_stats()
                cycles = int(2000 * max(5000.0, 4 * warm))
                a_host, a_gap, a_lag, b_dev, b_host, c_host, short, gcs = [], [], [], [], [], [], 0, 0
                for _ in range(5):
                    # (a) as a capture times it
                    torch.cuda.synchronize()
                    e0, e1, e2 = ev(), ev(), ev()
                    e0.record()
                    t0 = time.perf_counter()
                    fwd_bwd()
                    t1 = time.perf_counter()
                    e1.record()
                    g0 = ncoll[0]
                    opt.step()
                    t2 = time.perf_counter()
                    e2.record()
                    torch.cuda.synchronize()
                    gcs += ncoll[0] - g0
                    a_host.append((t2 - t1) * 1e6)
                    a_gap.append(e1.elapsed_time(e2) * 1e3)
                    a_lag.append(max(0.0, e0.elapsed_time(e1) * 1e3 - (t1 - t0) * 1e6))
                    # (b) the device alone: the step queued behind a sleep kernel
                    fwd_bwd()
                    torch.cuda.synchronize()
                    e0, e1, e2 = ev(), ev(), ev()
                    e0.record()
                    torch.cuda._sleep(cycles)
                    e1.record()
                    t0 = time.perf_counter()
                    opt.step()
                    t1 = time.perf_counter()
                    e2.record()
                    torch.cuda.synchronize()
                    if e0.elapsed_time(e1) * 1e3 < (t1 - t0) * 1e6:
                        short += 1
                    b_dev.append(e1.elapsed_time(e2) * 1e3)
                    b_host.append((t1 - t0) * 1e6)
                    # (c) back to back after (b)'s step
                    t0 = time.perf_counter()
                    opt.step()
                    c_host.append((time.perf_counter() - t0) * 1e6)
                    torch.cuda.synchronize()
                n, numel = len(ps), sum(p.numel() for p in ps)
                temp.append((torch.cuda.max_memory_allocated() - before) / numel)
                med = statistics.median
                p = {"n": n, "numel": numel, "L": L, "W": W, "dev_us": med(b_dev), "host_us": med(a_host),
                     "gap_us": med(a_gap), "lag_us": med(a_lag), "host_held_us": med(b_host),
                     "host_loop_us": med(c_host), "sleep_short": short, "gc_collections": gcs}
                pts.append({k: (round(v, 2) if isinstance(v, float) else v) for k, v in p.items()})
                log("optimizer %s %d x %d: %d tensors, %.3g elements: dev %.0f us, host in a step %.0f "
                    "(held %.0f, back to back %.0f), gap %.0f, lag %.0f, gc %d, sleep short %d" % (
                        name, L, W, n, numel, p["dev_us"], p["host_us"], p["host_held_us"],
                        p["host_loop_us"], p["gap_us"], p["lag_us"], gcs, short))
                del ps, fwd_bwd, opt
                torch.cuda.empty_cache()
            # device: relative least squares (times span decades)
            A = np.array([[1.0, q["n"], q["numel"]] for q in pts])
            y = np.array([q["dev_us"] for q in pts])
            w = 1.0 / y
            coef, *_ = np.linalg.lstsq(A * w[:, None], y * w, rcond=None)
            base, per_t, per_e = (max(0.0, float(c)) for c in coef)
            err = float(np.max(np.abs(A @ np.array([base, per_t, per_e]) - y) / y))
            hf = optim_host_fields(pts)
            out.append({"name": name, "base_us": round(base, 3), "per_tensor_us": round(per_t, 4),
                        "per_elem_us": float("%.6g" % per_e), "max_rel_err": round(err, 4),
                        **optim_launch_fields(name, pts), **hf,
                        "temp_bytes_per_elem": round(max(temp), 3), "points": pts})
            if "launch_us" in out[-1]:   # the HBM form falls back to the launch form
                out[-1].update(fit_optim_hbm(name, pts, l2_cache_bytes(torch)))
            log("optimizer %s: device %.1f us + %.3f us/tensor + %.3g us/elem (max err %.0f%%); host in a "
                "step %.0f + %.2f us/tensor (back to back %.2f); last kernel %.2f of the device time" % (
                    name, base, per_t, per_e, 100 * err, hf["host_base_us"], hf["host_per_tensor_us"],
                    hf["host_loop_per_tensor_us"], hf["tail_frac"]))
        probes.append(torch_host.host_probe())
    finally:
        gc.callbacks.remove(on_gc)
    for o in out:  # the host speed the host parts were measured at (the fastest reading)
        o["host_probe_us"] = round(min(probes), 3)
    return out, probes


def refit_optimizer(path):
    """Refits the host parts of path's optimizer rows (fit_optim_host) and their launch form
    (fit_optim_launch) from their points, in place."""
    try:
        with open(path) as f:
            d = json.load(f)
        for o in d["compute"]["optimizer"]:
            o.update(optim_host_fields(o["points"]))
            if has_launch_form(o["name"]):
                for k in LAUNCH_FIELDS:   # a refit that gives none drops the old ones
                    o.pop(k, None)
                o.update(optim_launch_fields(o["name"], o["points"]))
    except (OSError, ValueError, KeyError, TypeError, ZeroDivisionError) as e:
        _die("--refit-optimizer: %s: %s" % (path, e), 65)
    with open(path, "w") as f:
        json.dump(d, f, indent=1)
        f.write("\n")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true", help="fewer sizes and sequence lengths")
    ap.add_argument("--parts", default="ops,host,attention,optimizer,hf,tv,gemm_unaligned",
                    help="comma list of " + ",".join(PARTS))
    ap.add_argument("--conv-dtypes", default="bf16,tf32", help="dtypes of the conv part")
    ap.add_argument("--conv-classes", default="", help="conv classes to measure, e.g. k3s1,k1s2 (default all)")
    ap.add_argument("--conv-format", choices=("channels_last", "nchw"), default="channels_last",
                    help="the conv part's memory format: channels_last (default) or nchw (PyTorch's default "
                         "layout; tables marked \"format\": \"nchw\", fusim workload --cnn --memory-format nchw)")
    ap.add_argument("--hf-depths", default="1,3",
                    help="hf_host: layer counts of each model (at least 2; more test whether a layer's "
                         "host cost grows with depth)")
    ap.add_argument("--hf-sizes", default="real,tiny",
                    help="hf_host: the sizes measured: real (HF_REAL, the GPU held) and/or tiny (the hf part's)")
    ap.add_argument("--hf-archs", default=",".join(HF_HOST_DEFAULT),
                    help="hf_host: the models measured, from " + ",".join(HF_HOST_MODELS) +
                         " (the HF ones in the order given, resnet50 last; e.g. llama,qwen3: the two side by side)")
    ap.add_argument("--hf-interleave", action="store_true",
                    help="hf_host: the tiny models of the --hf-archs (at least two HF ones; --hf-sizes tiny) "
                         "timed round by round in one process, each round every architecture and depth once "
                         "(order shuffled), and their per-round ratios to the first (the hf_pairs record)")
    ap.add_argument("--hf-rounds", type=int, default=8,
                    help="hf_host --hf-interleave: timed rounds per mode (--budget stops them sooner)")
    ap.add_argument("--budget", type=float, default=0,
                    help="seconds each sweep (gemm, gemm_unaligned, conv) may take, and hf_host --hf-interleave's "
                         "rounds of each mode; 0: no limit")
    ap.add_argument("--optimizers", default="adamw,adam,sgd",
                    help="the optimizer part's rows, from " + ",".join(OPT_NAMES) + " (an _clip one "
                         "clips the gradients' total norm inside the step; e.g. adamw_clip,sgd_clip)")
    ap.add_argument("--refit-optimizer", action="store_true",
                    help="no GPU: refit the host parts and launch form of --out's optimizer rows from their points")
    a = ap.parse_args(argv)
    if a.refit_optimizer:
        return refit_optimizer(a.out)
    parts = a.parts.split(",")
    try:
        a.hf_depths = tuple(sorted(set(int(d) for d in a.hf_depths.split(","))))
    except ValueError:
        a.hf_depths = ()
    if len(a.hf_depths) < 2 or a.hf_depths[0] < 1:
        _die("--hf-depths: at least two layer counts >= 1, e.g. 1,3", 64)
    given = _names(a.hf_sizes, ("real", "tiny"), "--hf-sizes: real and/or tiny, e.g. tiny")
    a.hf_sizes = tuple(z for z in ("real", "tiny") if z in given)
    # in the order given (resnet50 last whatever it is)
    a.hf_archs = _names(a.hf_archs, HF_HOST_MODELS, "--hf-archs: from %s, e.g. llama,qwen3" % ",".join(HF_HOST_MODELS))
    if a.hf_interleave:
        if a.hf_sizes != ("tiny",):
            _die("--hf-interleave: the tiny models only: give --hf-sizes tiny", 64)
        if len(a.hf_archs) < 2 or any(z not in HF_HOST_ARCHS for z in a.hf_archs):
            _die("--hf-interleave: --hf-archs of at least two from %s, e.g. llama,qwen3" % ",".join(HF_HOST_ARCHS), 64)
    if a.hf_rounds < 1:
        _die("--hf-rounds: at least 1", 64)
    a.optimizers = _names(a.optimizers, OPT_NAMES, "--optimizers: from %s, e.g. adamw_clip,sgd_clip" % ",".join(OPT_NAMES))
    bad = [p for p in parts if p not in PARTS]
    if bad:
        _die("--parts: unknown part '%s' (expected %s)" % (bad[0], ",".join(PARTS)), 64)
    torch = import_torch("calib_torch")
    import torch.nn.functional as F
    t_start = time.time()

    def log(msg):
        print("[%6.1f s] %s" % (time.time() - t_start, msg), file=sys.stderr, flush=True)

    torch.manual_seed(0)
    tm = Timer(torch)
    sizes = [1 << 16, 1 << 20, 1 << 24] if a.quick else [1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24, 1 << 26]
    prop = torch.cuda.get_device_properties(0)
    # only the parts measured appear: `fusim fit --compute` then updates those tables alone
    comp = {"source": "tools/calib_torch.py --parts %s on %s (torch %s, CUDA %s)" % (
        a.parts, prop.name, torch.__version__, torch.version.cuda)}
    out = {"format": "fusim-compute-1", "gpu": prop.name, "gpu_mem_bytes": prop.total_memory,
           "torch": torch.__version__, "cuda": torch.version.cuda, "command": " ".join(sys.argv),
           "compute": comp}
    def write():  # whole or not at all: a timeout may kill the sweep between two writes
        with open(a.out + ".tmp", "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
        os.replace(a.out + ".tmp", a.out)

    for part in parts:  # in the order given; the file is rewritten after each
        dl = Deadline(a.budget)
        try:
            run_part(part, a, comp, torch, F, tm, sizes, log, dl, write)
        except Exception as e:  # one part failing leaves the others
            log("%s: failed (%s)" % (part, str(e).split("\n")[0][:200]))
        write()
        log("%s done; wrote %s" % (part, a.out))
    return 0


def run_part(part, a, comp, torch, F, tm, sizes, log, dl, flush=None):
    """Measures one part into comp (flush(): writes the file so far, for parts that call it)."""
    if part == "gemm_unaligned":
        comp["gemm_unaligned"] = measure_gemm_unaligned(torch, tm, a.quick, log, dl)
    elif part == "gemm":
        comp["gemm"] = measure_gemm_aligned(torch, tm, a.quick, log, dl)
    elif part in ("conv", "dwconv", "gconv"):
        groups = {"conv": "dense", "dwconv": "depthwise", "gconv": "grouped"}[part]
        measure_conv(torch, tm, a.conv_dtypes.split(","), log, dl, [c for c in a.conv_classes.split(",") if c],
                     a.conv_format == "nchw", groups, into=comp.setdefault("conv", []), flush=flush)
    elif part == "ops":
        comp.setdefault("ops", []).extend(measure_ops(torch, F, tm, sizes, log))
    elif part == "ops_unaligned":
        comp.setdefault("ops", []).extend(measure_ops(torch, F, tm, sizes, log, ["cross_entropy_unaligned"]))
    elif part == "host":
        comp.setdefault("ops", []).extend(measure_host_only(torch, F, tm, log))
    elif part == "hf":
        comp.setdefault("ops", []).extend(measure_hf_layers(torch, log))
    elif part == "hf_host":
        before = list(comp.get("ops", []))

        def put(rows, probe, probes, diag, pairs=None):
            comp["ops"] = before + rows
            comp["host_probe_us"] = round(probe, 3)
            comp.setdefault("diag", {})["hf_host"] = {"probes_us": [round(p, 3) for p in probes], "raw": diag}
            if pairs:  # tools/qwen3_rows.py takes its ratios from here
                comp["hf_pairs"] = pairs
            if flush:
                flush()
        if a.hf_interleave:
            put(*measure_hf_pairs(torch, log, a.hf_archs, depths=a.hf_depths, rounds=a.hf_rounds,
                                  seconds=a.budget, flush=put))
        else:
            put(*measure_hf_host(torch, log, flush=put, depths=a.hf_depths, sizes=a.hf_sizes, models=a.hf_archs))
    elif part == "ops_kv":
        comp.setdefault("ops", []).extend(measure_ops(torch, F, tm, sizes, log, LAYOUT_OPS))
    elif part == "ops_loss":
        comp.setdefault("ops", []).extend(measure_ops(torch, F, tm, sizes, log, LOSS_AC_OPS))
    elif part == "ops_ln":
        comp.setdefault("ops", []).extend(measure_ops(torch, F, tm, sizes, log,
                                                      ["layernorm_w%d" % w for w in LN_WIDTHS]))
    elif part == "ops_ln_narrow":
        comp.setdefault("ops", []).extend(measure_ops(torch, F, tm, sizes, log, LN_NARROW_OPS))
    elif part == "ops_bn":
        # "batchnorm2d" again beside them: one lease's clocks for the whole channel axis
        comp.setdefault("ops", []).extend(measure_ops(torch, F, tm, sizes, log, ["batchnorm2d"] +
                                                      ["batchnorm2d_c%d" % c for c in BN_CHANNELS]))
    elif part == "ops_bn_small":
        comp.setdefault("ops", []).extend(measure_ops(torch, F, tm, sizes, log, BN_SMALL_OPS))
    elif part == "ops_nchw":
        comp.setdefault("ops", []).extend(measure_ops(torch, F, tm, sizes, log, NCHW_OPS))
    elif part == "ops_vit":
        comp.setdefault("ops", []).extend(measure_ops(torch, F, tm, sizes, log, VIT_OPS))
    elif part == "ops_mobile":
        comp.setdefault("ops", []).extend(measure_ops(torch, F, tm, sizes, log, MOBILE_OPS))
    elif part == "ops_cat":
        comp.setdefault("ops", []).extend(measure_cat_host(torch, log))
    elif part == "tv":
        comp.setdefault("ops", []).extend(measure_tv_host(torch, log))
    elif part == "attention":
        comp["attention"] = measure_attention(torch, F, tm, a.quick, log)
    elif part == "attention_gqa":
        comp["attention_gqa"] = measure_attention_gqa(torch, F, tm, a.quick, log)
    elif part == "memory":
        comp["workspace_bytes"] = measure_workspace(torch, log)
    elif part == "timer":
        over, rows = measure_timer(torch, F, tm, log)
        comp["timer_overhead_us"] = round(over, 3)
        comp.setdefault("diag", {})["timer"] = rows
    elif part == "optimizer":
        comp["optimizer"], probes = measure_optimizers(torch, log, a.optimizers)
        comp.setdefault("diag", {})["optimizer"] = {"probes_us": [round(p, 3) for p in probes],
                                                    "l2_cache_bytes": l2_cache_bytes(torch)}


PARTS = ("ops", "ops_unaligned", "host", "attention", "attention_gqa", "optimizer", "hf", "tv", "gemm_unaligned", "gemm", "conv",
         "dwconv", "gconv", "hf_host", "ops_kv", "ops_loss", "ops_ln", "ops_ln_narrow", "ops_bn", "ops_nchw", "ops_bn_small", "ops_vit", "ops_mobile",
         "ops_cat", "timer", "memory")

if __name__ == "__main__":
    sys.exit(main())
