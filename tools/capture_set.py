#!/usr/bin/env python3
"""capture_set.py: capture the compute model's comparison set on a GPU with
tools/capture_torch.py's capture(): real HF transformers of several widths and depths (built
from configs, random init, no downloads) in bf16 autocast and fp32/TF32, and torchvision
ResNet-50. Each becomes DIR/NAME.json (fusim-workload-1, with "meta" holding the model's
hyper-parameters and max_memory_allocated). The set is listed in SET below; tools/compare_compute.py
prices each with `fusim workload --transformer/--cnn` and prints estimate against capture.

NEW lists shapes never in SET (a held-out-like check); --only takes names from either.

Usage (on the GPU machine): python3 tools/capture_set.py --dir OUTDIR [--only NAME,..] [--iters N]
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import capture_torch  # noqa: E402
import host_ref  # noqa: E402

# name: (arch, hyper-parameters, micro-batch, seq, amp)
SET = {
    "bert_base_b16_s512_bf16": ("bert", dict(layers=12, hidden=768, heads=12, ffn=3072, vocab=30522), 16, 512, "bf16"),
    "bert_large_b8_s512_tf32": ("bert", dict(layers=24, hidden=1024, heads=16, ffn=4096, vocab=30522), 8, 512, "tf32"),
    "gpt2_medium_b8_s512_tf32": ("gpt2", dict(layers=24, hidden=1024, heads=16, ffn=4096, vocab=50257), 8, 512, "tf32"),
    "gpt2_small_b16_s1024_bf16": ("gpt2", dict(layers=12, hidden=768, heads=12, ffn=3072, vocab=50257), 16, 1024, "bf16"),
    "llama_h2048_l16_b4_s1024_bf16": ("llama", dict(layers=16, hidden=2048, heads=16, ffn=5632, vocab=32000), 4, 1024, "bf16"),
    "llama_h4096_l4_b2_s2048_bf16": ("llama", dict(layers=4, hidden=4096, heads=32, ffn=11008, vocab=32000), 2, 2048, "bf16"),
    "resnet50_b128_bf16": ("resnet50", {}, 128, 0, "bf16"),
}

# Shapes never in SET, for a held-out-like check (captured on another lease than the
# calibration): widths off the GEMM tables' powers of two (1280, 3072, 1536), a short sequence at
# a small width (host-bound), Llama in fp32/TF32, a deeper ResNet and ResNet-50 in fp32/TF32.
NEW = {
    "gpt2_h1280_l12_b4_s1024_tf32": ("gpt2", dict(layers=12, hidden=1280, heads=20, ffn=5120, vocab=50257), 4, 1024, "tf32"),
    "llama_h3072_l8_b2_s2048_bf16": ("llama", dict(layers=8, hidden=3072, heads=24, ffn=8192, vocab=32000), 2, 2048, "bf16"),
    "bert_h512_l8_b32_s128_bf16": ("bert", dict(layers=8, hidden=512, heads=8, ffn=2048, vocab=30522), 32, 128, "bf16"),
    "llama_h1536_l8_b4_s1024_tf32": ("llama", dict(layers=8, hidden=1536, heads=12, ffn=4096, vocab=32000), 4, 1024, "tf32"),
    "resnet101_b64_bf16": ("resnet101", {}, 64, 0, "bf16"),
    "resnet50_b64_tf32": ("resnet50", {}, 64, 0, "tf32"),
    # captured first on 2026-12-04 (compute8), a fresh held-out-like set: a small BERT in
    # fp32/TF32 (host-bound, 8192 tokens), a wide shallow BERT in bf16, GPT-2 at 8 layers in
    # bf16, a Llama of head size 128 at width 2560 in fp32/TF32, and ResNet-152
    "bert_h384_l6_b64_s128_tf32": ("bert", dict(layers=6, hidden=384, heads=6, ffn=1536, vocab=30522), 64, 128, "tf32"),
    "bert_h1024_l6_b16_s256_bf16": ("bert", dict(layers=6, hidden=1024, heads=16, ffn=4096, vocab=30522), 16, 256, "bf16"),
    "gpt2_h1024_l8_b8_s512_bf16": ("gpt2", dict(layers=8, hidden=1024, heads=16, ffn=4096, vocab=50257), 8, 512, "bf16"),
    "llama_h2560_l6_b2_s1024_tf32": ("llama", dict(layers=6, hidden=2560, heads=20, ffn=6912, vocab=32000), 2, 1024, "tf32"),
    "resnet152_b32_bf16": ("resnet152", {}, 32, 0, "bf16"),
    # captured first on 2026-12-04 (compute10), held out from the GEMM tables' off-grid model
    # (chosen before it was built): widths 1792, 1600, 1280 and 5120, between the sweep's powers of two
    "llama_h1792_l6_b4_s1024_bf16": ("llama", dict(layers=6, hidden=1792, heads=14, ffn=4864, vocab=32000), 4, 1024, "bf16"),
    "gpt2_h1600_l6_b4_s1024_tf32": ("gpt2", dict(layers=6, hidden=1600, heads=25, ffn=6400, vocab=50257), 4, 1024, "tf32"),
    "bert_h1280_l6_b16_s256_bf16": ("bert", dict(layers=6, hidden=1280, heads=20, ffn=5120, vocab=30522), 16, 256, "bf16"),
    "llama_h5120_l2_b2_s1024_tf32": ("llama", dict(layers=2, hidden=5120, heads=40, ffn=13824, vocab=32000), 2, 1024, "tf32"),
    # captured first on 2026-12-04 (compute12), held out from the tied-head and depth rows
    # (chosen and the model committed before the call): BERT-base's shape at seq 128 in TF32, a
    # narrow deep BERT in bf16 (host-bound), GPT-2 at 6 layers in bf16 and at 16 in TF32, a narrow
    # 12-layer Llama in bf16 and Llama h2048 in TF32; ResNet-50 at batch 32 (bf16, host-bound)
    # and ResNet-152 at batch 64 in TF32
    "bert_h768_l12_b32_s128_tf32": ("bert", dict(layers=12, hidden=768, heads=12, ffn=3072, vocab=30522), 32, 128, "tf32"),
    "bert_h384_l12_b32_s256_bf16": ("bert", dict(layers=12, hidden=384, heads=6, ffn=1536, vocab=30522), 32, 256, "bf16"),
    "gpt2_h768_l6_b8_s1024_bf16": ("gpt2", dict(layers=6, hidden=768, heads=12, ffn=3072, vocab=50257), 8, 1024, "bf16"),
    "gpt2_h1024_l16_b4_s1024_tf32": ("gpt2", dict(layers=16, hidden=1024, heads=16, ffn=4096, vocab=50257), 4, 1024, "tf32"),
    "llama_h1024_l12_b8_s1024_bf16": ("llama", dict(layers=12, hidden=1024, heads=16, ffn=2816, vocab=32000), 8, 1024, "bf16"),
    "llama_h2048_l8_b2_s2048_tf32": ("llama", dict(layers=8, hidden=2048, heads=16, ffn=5632, vocab=32000), 2, 2048, "tf32"),
    "resnet50_b32_bf16": ("resnet50", {}, 32, 0, "bf16"),
    "resnet152_b64_tf32": ("resnet152", {}, 64, 0, "tf32"),
    # torchvision's VisionTransformer (nn.MultiheadAttention, pre-LayerNorm, a class token; seq is
    # (image / patch)^2 + 1), added 2026-12-06 with fusim workload --transformer --arch vit:
    # ViT-B/16 in TF32 and bf16, ViT-B/32, ViT-L/16, and a small ViT-S/16 shape (host-bound)
    "vit_b16_b32_tf32": ("vit", dict(layers=12, hidden=768, heads=12, ffn=3072, image=224, patch=16, classes=1000), 32, 197, "tf32"),
    "vit_b16_b64_bf16": ("vit", dict(layers=12, hidden=768, heads=12, ffn=3072, image=224, patch=16, classes=1000), 64, 197, "bf16"),
    "vit_b32_b64_tf32": ("vit", dict(layers=12, hidden=768, heads=12, ffn=3072, image=224, patch=32, classes=1000), 64, 50, "tf32"),
    "vit_l16_b16_bf16": ("vit", dict(layers=24, hidden=1024, heads=16, ffn=4096, image=224, patch=16, classes=1000), 16, 197, "bf16"),
    "vit_s16_b32_bf16": ("vit", dict(layers=12, hidden=384, heads=6, ffn=1536, image=224, patch=16, classes=1000), 32, 197, "bf16"),
    # torchvision's DenseNet-121 (fusim workload --cnn densenet121, session 41: its backward priced
    # 21-24% fast on three validation captures), NCHW as a training loop without channels_last runs it
    "densenet121_b32_tf32": ("densenet121", {}, 32, 0, "tf32"),
    # session 42: the cat host rows (calib_torch ops_cat) checked on two more DenseNets and on
    # DenseNet-121 and -169 in the other precision (precision apart from the model)
    "densenet169_b32_bf16": ("densenet169", {}, 32, 0, "bf16"),
    "densenet201_b16_tf32": ("densenet201", {}, 16, 0, "tf32"),
    "densenet121_b32_bf16": ("densenet121", {}, 32, 0, "bf16"),
    "densenet169_b32_tf32": ("densenet169", {}, 32, 0, "tf32"),
    # the depthwise-convolution CNNs (fusim workload --cnn mobilenet_v2 ..., session 43: the grouped
    # conv tables and calib_torch's ops_mobile rows), NCHW as build_torchvision runs them
    "mobilenet_v2_b64_bf16": ("mobilenet_v2", {}, 64, 0, "bf16"),
    "mobilenet_v3_large_b64_tf32": ("mobilenet_v3_large", {}, 64, 0, "tf32"),
    "efficientnet_b0_b32_bf16": ("efficientnet_b0", {}, 32, 0, "bf16"),
    "mnasnet1_0_b64_tf32": ("mnasnet1_0", {}, 64, 0, "tf32"),
    # after the builder's first comparison (the copy before an in-place activation): shapes it
    # was not compared on
    "efficientnet_b2_b32_tf32": ("efficientnet_b2", {}, 32, 0, "tf32"),
    "efficientnet_b4_b16_bf16": ("efficientnet_b4", {}, 16, 0, "bf16"),
    "mobilenet_v3_small_b128_bf16": ("mobilenet_v3_small", {}, 128, 0, "bf16"),
    # the grouped convolutions of wider groups and ConvNeXt (session 44's builders, session 45's
    # tables): captured with the reference step between the steps, so that host and device can be
    # told apart (the validation runs' captures of them were all too fast, most host-bound)
    "resnext50_32x4d_b32_tf32": ("resnext50_32x4d", {}, 32, 0, "tf32"),
    "regnet_y_1_6gf_b32_bf16": ("regnet_y_1_6gf", {}, 32, 0, "bf16"),
    "regnet_x_3_2gf_b32_tf32": ("regnet_x_3_2gf", {}, 32, 0, "tf32"),
    "convnext_tiny_b32_bf16": ("convnext_tiny", {}, 32, 0, "bf16"),
    # Qwen3 and Phi-3 (fusim's --arch qwen3, phi3; session 50: their host rows measured beside
    # Llama's): validate_torch's qwen3_small and phi3_small shapes, and a Phi-3 in TF32 at another width
    "qwen3_h768_l12_b8_s512_bf16": ("qwen3", dict(layers=12, hidden=768, heads=12, kv_heads=4, head_dim=64, ffn=2048,
                                                  vocab=151936, tied=True), 8, 512, "bf16"),
    "phi3_h768_l12_b16_s512_bf16": ("phi3", dict(layers=12, hidden=768, heads=12, kv_heads=4, ffn=2048, vocab=32064),
                                    16, 512, "bf16"),
    "phi3_h1024_l8_b4_s1024_tf32": ("phi3", dict(layers=8, hidden=1024, heads=16, kv_heads=8, ffn=2816, vocab=32064),
                                    4, 1024, "tf32"),
    # held out from the math path's points (keys in groups of 2): a TF32 Qwen3 whose keys are in
    # groups of 4, at another length
    "qwen3_h1024_l6_b8_s512_tf32": ("qwen3", dict(layers=6, hidden=1024, heads=16, kv_heads=4, head_dim=64, ffn=3072,
                                                  vocab=151936, tied=True), 8, 512, "tf32"),
    # session 50, a held-out-like sweep for mechanisms the sets above do not exercise (chosen before
    # any was priced): a long sequence with grouped keys, heads of 96 (Phi-3-mini's), strict fp32
    # (grouped and not), a long TF32 GPT-2, ViT-L/14 (257 tokens), a wider Qwen3 of heads of 128
    "llama_h2048_l6_kv8_b2_s4096_bf16": ("llama", dict(layers=6, hidden=2048, heads=16, kv_heads=8, ffn=5632,
                                                       vocab=32000), 2, 4096, "bf16"),
    "phi3_h3072_l4_b2_s2048_bf16": ("phi3", dict(layers=4, hidden=3072, heads=32, ffn=8192, vocab=32064), 2, 2048, "bf16"),
    "llama_h1024_l8_kv4_b4_s1024_fp32": ("llama", dict(layers=8, hidden=1024, heads=16, kv_heads=4, ffn=2816,
                                                       vocab=32000), 4, 1024, "none"),
    "bert_h768_l12_b32_s256_fp32": ("bert", dict(layers=12, hidden=768, heads=12, ffn=3072, vocab=30522), 32, 256, "none"),
    "gpt2_h768_l12_b4_s2048_tf32": ("gpt2", dict(layers=12, hidden=768, heads=12, ffn=3072, vocab=50257), 4, 2048, "tf32"),
    "vit_l14_b32_bf16": ("vit", dict(layers=24, hidden=1024, heads=16, ffn=4096, image=224, patch=14, classes=1000),
                         32, 257, "bf16"),
    "qwen3_h2048_l8_b2_s2048_bf16": ("qwen3", dict(layers=8, hidden=2048, heads=16, kv_heads=8, head_dim=128, ffn=6144,
                                                   vocab=151936, tied=True), 2, 2048, "bf16"),
    # the sweep's second call: past the attention table's longest sequence (8192, bf16), one
    # sequence of 512 (small GEMMs), BERT-large at 384 tokens in TF32, GPT-2 XL's width (25 heads)
    "llama_h2048_l4_kv8_b1_s8192_bf16": ("llama", dict(layers=4, hidden=2048, heads=16, kv_heads=8, ffn=5632,
                                                       vocab=32000), 1, 8192, "bf16"),
    "llama_h2048_l8_b1_s512_bf16": ("llama", dict(layers=8, hidden=2048, heads=16, ffn=5632, vocab=32000), 1, 512, "bf16"),
    "bert_large_b16_s384_tf32": ("bert", dict(layers=24, hidden=1024, heads=16, ffn=4096, vocab=30522), 16, 384, "tf32"),
    "gpt2_h1600_l4_b4_s1024_bf16": ("gpt2", dict(layers=4, hidden=1600, heads=25, ffn=6400, vocab=50257), 4, 1024, "bf16"),
    # SqueezeNet (fusim's --cnn squeezenet1_0 / 1_1, session 50), NCHW as build_torchvision runs it
    "squeezenet1_1_b64_bf16": ("squeezenet1_1", {}, 64, 0, "bf16"),
    "squeezenet1_0_b128_tf32": ("squeezenet1_0", {}, 128, 0, "tf32"),
    # small CNNs with AdamW (session 51: the optimizer's cold form checked in real steps with an
    # optimizer that reuses lists within the step; meta's "optimizer" tells compare_compute)
    "squeezenet1_0_b128_tf32_adamw": ("squeezenet1_0", {"optimizer": "adamw"}, 128, 0, "tf32"),
    "mobilenet_v2_b64_bf16_adamw": ("mobilenet_v2", {"optimizer": "adamw"}, 64, 0, "bf16"),
    "efficientnet_b0_b32_bf16_adamw": ("efficientnet_b0", {"optimizer": "adamw"}, 32, 0, "bf16"),
    "densenet121_b32_tf32_adamw": ("densenet121", {"optimizer": "adamw"}, 32, 0, "tf32"),
    # OLMo 2 (fusim's --arch olmo2, session 50): validate_torch's olmo2_small shape, and a TF32 one
    # with grouped keys (the math path's points)
    "olmo2_h768_l12_b16_s512_bf16": ("olmo2", dict(layers=12, hidden=768, heads=12, ffn=2048, vocab=50304),
                                     16, 512, "bf16"),
    "olmo2_h1024_l8_kv4_b4_s1024_tf32": ("olmo2", dict(layers=8, hidden=1024, heads=16, kv_heads=4, ffn=2816,
                                                       vocab=50304), 4, 1024, "tf32"),
}
ALL = dict(SET, **NEW)
# the torchvision classifiers build_torchvision makes by name (NCHW, SGD with momentum)
TORCHVISION_NCHW = ("densenet", "mobilenet_v", "efficientnet_", "mnasnet", "shufflenet_v2", "convnext", "resnext",
                    "regnet_", "squeezenet")


def build(arch, hp, batch, seq):
    import torch
    dev = torch.device("cuda")
    if arch.startswith("resnet"):
        return capture_torch.build_resnet50(batch, dev, depth=int(arch[6:]))
    if arch == "vit":
        return build_vit(hp, batch, dev)
    if arch.startswith(TORCHVISION_NCHW):
        return build_torchvision(arch, batch, dev, hp.get("optimizer", "sgd"))
    import transformers as tf
    if arch == "bert":
        cfg = tf.BertConfig(vocab_size=hp["vocab"], hidden_size=hp["hidden"], num_hidden_layers=hp["layers"],
                            num_attention_heads=hp["heads"], intermediate_size=hp["ffn"],
                            max_position_embeddings=max(512, seq), type_vocab_size=2)
        cls = tf.BertForMaskedLM
    elif arch == "gpt2":
        cfg = tf.GPT2Config(vocab_size=hp["vocab"], n_embd=hp["hidden"], n_layer=hp["layers"],
                            n_head=hp["heads"], n_inner=hp["ffn"], n_positions=max(1024, seq))
        cls = tf.GPT2LMHeadModel
    elif arch in ("llama", "qwen3", "phi3", "olmo2"):  # the decoders: grouped keys, head size, tied head from hp
        common = dict(vocab_size=hp["vocab"], hidden_size=hp["hidden"], intermediate_size=hp["ffn"],
                      num_hidden_layers=hp["layers"], num_attention_heads=hp["heads"],
                      num_key_value_heads=hp.get("kv_heads", hp["heads"]), max_position_embeddings=max(2048, seq),
                      tie_word_embeddings=bool(hp.get("tied")))
        if arch == "llama":
            cfg = tf.LlamaConfig(**common)
            cls = tf.LlamaForCausalLM
        elif arch == "qwen3":
            cfg = tf.Qwen3Config(head_dim=hp.get("head_dim", hp["hidden"] // hp["heads"]), **common)
            cls = tf.Qwen3ForCausalLM
        elif arch == "phi3":
            cfg = tf.Phi3Config(original_max_position_embeddings=max(2048, seq), pad_token_id=0, **common)
            cls = tf.Phi3ForCausalLM
        else:
            cfg = tf.Olmo2Config(pad_token_id=0, bos_token_id=None, eos_token_id=None, **common)
            cls = tf.Olmo2ForCausalLM
    else:
        raise ValueError(arch)
    try:
        cfg._attn_implementation = "sdpa"
    except Exception:
        pass
    with dev:  # initialised on the GPU: the 1B-parameter Llamas' CPU init would take most of a call
        model = cls(cfg)
    ids = torch.randint(0, hp["vocab"], (batch, seq), device=dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    return model, (ids, ids.clone()), (lambda m, inp: m(input_ids=inp[0], labels=inp[1]).loss), opt


def classifier_step(model, batch, image, classes, opt):
    """(model, inputs, loss_fn, opt) of an image classifier: random NCHW images of image pixels
    on the model's device, labels of classes, cross-entropy."""
    import torch
    dev = next(model.parameters()).device
    x = torch.randn(batch, 3, image, image, device=dev)
    y = torch.randint(0, classes, (batch,), device=dev)
    crit = torch.nn.CrossEntropyLoss()
    return model, (x, y), (lambda m, inp: crit(m(inp[0]), inp[1])), opt


def build_torchvision(arch, batch, dev, optimizer="sgd"):
    """A torchvision classifier by name in PyTorch's default NCHW layout (random init), SGD with
    momentum as torchvision's reference recipe (or AdamW: optimizer "adamw")."""
    import torch
    import torchvision
    model = getattr(torchvision.models, arch)(weights=None).to(dev)
    opt = (torch.optim.AdamW(model.parameters(), lr=1e-4) if optimizer == "adamw" else
           torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9))
    return classifier_step(model, batch, 224, 1000, opt)


def build_vit(hp, batch, dev):
    """torchvision's VisionTransformer of hp's shape (NCHW images, random init), AdamW."""
    import torch
    from torchvision.models.vision_transformer import VisionTransformer
    model = VisionTransformer(image_size=hp["image"], patch_size=hp["patch"], num_layers=hp["layers"],
                              num_heads=hp["heads"], hidden_dim=hp["hidden"], mlp_dim=hp["ffn"],
                              num_classes=hp["classes"]).to(dev)
    return classifier_step(model, batch, hp["image"], hp["classes"], torch.optim.AdamW(model.parameters(), lr=1e-4))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--iters", type=int, default=12)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--no-host-ref", action="store_true",
                    help="leave out the reference step between the timed steps (tools/host_ref.py, "
                         "meta.host_ref)")
    ap.add_argument("--ready-separate", action="store_true",
                    help="also time the ready curve as before 2026-12-04n, in a hooked pass of its own "
                         "(meta.ready_separate; for comparison)")
    a = ap.parse_args(argv)
    names = [n for n in a.only.split(",") if n] if a.only else list(SET)  # in the order given
    bad = [n for n in names if n not in ALL]
    if bad:
        print("capture_set: --only: unknown model '%s' (expected %s)" % (bad[0], ",".join(ALL)), file=sys.stderr)
        return 64
    import torch
    os.makedirs(a.dir, exist_ok=True)
    for name in names:
        arch, hp, batch, seq, amp = ALL[name]
        t0 = time.time()
        model = inputs = opt = w = ref = None
        try:
            torch.manual_seed(0)
            torch.backends.cudnn.benchmark = True
            model, inputs, loss_fn, opt = build(arch, hp, batch, seq)
            # the host's speed for this kind of work, timed between the steps (fusim --host-ref)
            ref = None if a.no_host_ref else host_ref.maker(arch, amp)
            meta = dict(hp, arch=arch, batch=batch, seq=seq, model=name)
            if arch.startswith(TORCHVISION_NCHW):
                meta["memory_format"] = "nchw"   # build_torchvision's layout (compare_compute prices it so)
            notes = ("CAPTURED with tools/capture_set.py (capture_torch.capture) on %s: %s %s, micro-batch %d, "
                     "seq %d, %s, %s; random init." % (torch.cuda.get_device_name(0), arch, json.dumps(hp), batch,
                                                       seq, {"bf16": "autocast bf16", "tf32": "fp32 with TF32"}.get(amp, "strict fp32"),
                                                       "AdamW" if hp.get("optimizer") == "adamw" or not
                                                       arch.startswith(("resnet",) + TORCHVISION_NCHW) else "SGD momentum"))
            w = capture_torch.capture(model, inputs, loss_fn, opt, iters=a.iters, warmup=a.warmup, amp=amp,
                                      host="never", name=name, notes=notes, meta=meta, host_ref=ref,
                                      ready_separate=a.ready_separate)
            with open(os.path.join(a.dir, name + ".json"), "w") as f:
                json.dump(w, f, indent=1)
                f.write("\n")
            m = w["meta"]
            hr = m.get("host_ref", {})
            print("%-32s fwd %8.0f bwd %8.0f opt %7.0f us  peak %.2f GiB  host ref %s / %s us  (%.0f s)" % (
                name, w["fwd_us"], w["bwd_us"], w["opt_us"], m["max_memory_allocated"] / 2**30,
                hr.get("fwd_us"), hr.get("bwd_us"), time.time() - t0), flush=True)
        except (Exception, SystemExit) as e:  # one model failing leaves the others
            print("%s: FAILED: %s" % (name, repr(e)[:300]), flush=True)
        finally:
            model = inputs = opt = w = ref = None
            torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
