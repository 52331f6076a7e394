#!/usr/bin/env python3
"""validate_torch.py: runs real PyTorch under fusion plans on a GPU, for fusim's validation
against real frameworks (issue 10). The GPU half; tools/store_torch_validation.py is the CPU half
that predicts every row with fusim and stores predictions and measurements in the results
database (v_prediction_error shows them).

For every model it
  1. captures the workload (tools/capture_torch.py, host block included; the frameworks' host
     costs come from a model-independent calibration, tools/torch_fwcal.py, measured once, the
     per-parameter ones from the model itself, tools/torch_modelcost.py);
  2. builds one copy of the model per plan (same initial weights) and runs them interleaved,
     iteration by iteration, with a compute-only iteration (no framework at all) in every round:
       ddp  real DistributedDataParallel (world size 1, or N: --world-size), DDP's own
            Reducer: per-tensor, 1, 4, 25 (default, first bucket 1 MiB) and 100 MiB caps,
            gradient_as_bucket_view,
            DDP's default NCCL all-reduce or an offload comm hook (pinned host copy over PCIe on
            a side stream);
       hooks the course text's pattern: post-accumulate-grad hooks copying each gradient into a
            fusion buffer, one offload per bucket on a side stream, overlap on or off;
  3. records each plan's actual buckets (DDP's, read through a recording comm hook after the
     timed rounds) and every iteration time (CUDA events from an idle GPU to the end of the
     optimizer step).
Everything goes to OUTDIR: wl_<model>.json (workloads), runs.json (rows, buckets, machine,
versions, command line; per model the host's speed probes and its state a round, host_state: what
the CPUs did, tools/host_state.py).

--world-size N (issue 10, item 4): N processes, one a GPU, each a rank of one NCCL process group
(torch_host.ensure_process_group), all running the same program (run_ranks), so DDP's all-reduce
is over all N GPUs and every calibration that builds DDP (the tower, the costs on the model)
measures at N ranks too; a barrier before every timed step; only DDP's all-reduce plans unless
--plans says otherwise (select_plans). Rank 0 writes OUTDIR; rank r OUTDIR/rank<r>; every rank's
times are then merged into OUTDIR/runs.json (merge_ranks: per row rank_times_us and the skew).

Before anything is written, every model is built and stepped once: a model with no trainable
parameters, or a parameter whose gradient hook never fires, is one line on stderr and exit 65
(an unknown model or a bad MODEL:BATCH, 64; no PyTorch or no GPU, or fewer GPUs than
--world-size, 69). A second step measures its footprint: where its loop's runners will not fit
the GPU memory free when its turn comes (loop_bytes, a floor), its plans are timed in groups
(plan_groups: as few as fit, each in a loop of its own beside its own compute-only runner, no
probe runners; one runs.json entry a group, "plan_group": [i, n]; one capture), or, where not
even one plan fits beside compute-only or with --no-plan-groups, the model is skipped with one
line before its capture (at several ranks the run stops, 70).

A model of your own: --models package.module:function:BATCH, where function(batch, device)
returns (model on the GPU, inputs, loss_fn[, optimizer]) as tools/capture_torch.py takes it
(tools/examples/torch_user_model.py is one; the module is looked up on PYTHONPATH and in the
current directory).

    python3 tools/validate_torch.py --out /tmp/tv [--models resnet18:32,resnet50:64,vit_b_16:32,gpt2_medium:4]
"""
import argparse
import copy
import gc
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import capture_torch  # noqa: E402
import host_state  # noqa: E402
import torch_checks  # noqa: E402
import torch_fwcal  # noqa: E402
import torch_host  # noqa: E402
import torch_trace  # noqa: E402
from quantile import quantile  # noqa: E402

MiB = 2**20


def die(msg, status=65):
    print("validate_torch: " + msg, file=sys.stderr)
    sys.exit(status)


def build_model(name, batch, seq):
    """(model, inputs, loss_fn, description); random init, no downloads. A name with a colon is
    the user's own model (user_model)."""
    if ":" in name:
        return user_model(name, batch)
    import torch
    import torchvision

    if name in TORCHVISION:
        model = getattr(torchvision.models, name)(weights=None).cuda()
        x = torch.randn(batch, 3, 224, 224, device="cuda")
        y = torch.randint(0, 1000, (batch,), device="cuda")
        crit = torch.nn.CrossEntropyLoss()
        return model, (x, y), (lambda m, inp: crit(m(inp[0]), inp[1])), \
            "torchvision %s (weights=None), 224x224, NCHW" % name
    if name in HF_MODELS:
        if name == "t5_small":   # an encoder-decoder: labels shifted right feed the decoder
            from transformers import T5Config, T5ForConditionalGeneration
            cfg = T5Config(d_model=512, d_kv=64, d_ff=2048, num_layers=6, num_heads=8,
                           decoder_start_token_id=0)
            cls = T5ForConditionalGeneration
        elif name == "distilbert":   # an encoder of 6 layers, its own attention module, no pooler
            from transformers import DistilBertConfig, DistilBertForMaskedLM
            cfg = DistilBertConfig(max_position_embeddings=512)
            cls = DistilBertForMaskedLM
        elif name == "llama_small":   # a decoder of another kind: RMSNorm, SwiGLU, rotary, untied
            from transformers import LlamaConfig, LlamaForCausalLM
            cfg = LlamaConfig(hidden_size=1024, intermediate_size=2816, num_hidden_layers=12,
                              num_attention_heads=16, num_key_value_heads=16, vocab_size=32000,
                              max_position_embeddings=1024)
            cls = LlamaForCausalLM
        elif name == "qwen2_small":   # grouped-query attention (2 KV heads of 14), tied 152k vocab
            from transformers import Qwen2Config, Qwen2ForCausalLM
            cfg = Qwen2Config(hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
                              num_attention_heads=14, num_key_value_heads=2, vocab_size=151936,
                              max_position_embeddings=1024, tie_word_embeddings=True)
            cls = Qwen2ForCausalLM
        elif name == "mistral_small":   # grouped-query attention (4 KV heads of 12), untied 32k vocab
            from transformers import MistralConfig, MistralForCausalLM
            cfg = MistralConfig(hidden_size=768, intermediate_size=3072, num_hidden_layers=12,
                                num_attention_heads=12, num_key_value_heads=4, vocab_size=32000,
                                max_position_embeddings=1024, sliding_window=None)
            cls = MistralForCausalLM
        elif name == "qwen3_small":   # RMSNorm on queries and keys, 4 KV heads of 12, tied 152k vocab
            from transformers import Qwen3Config, Qwen3ForCausalLM
            cfg = Qwen3Config(hidden_size=768, intermediate_size=2048, num_hidden_layers=12,
                              num_attention_heads=12, num_key_value_heads=4, head_dim=64,
                              vocab_size=151936, max_position_embeddings=1024,
                              tie_word_embeddings=True)
            cls = Qwen3ForCausalLM
        elif name == "phi3_small":   # fused projections: one qkv_proj, one gate_up_proj a layer
            from transformers import Phi3Config, Phi3ForCausalLM
            cfg = Phi3Config(hidden_size=768, intermediate_size=2048, num_hidden_layers=12,
                             num_attention_heads=12, num_key_value_heads=4, vocab_size=32064,
                             max_position_embeddings=1024, original_max_position_embeddings=1024,
                             pad_token_id=0)
            cls = Phi3ForCausalLM
        elif name == "gpt_neox_small":   # Pythia-style: attention and MLP side by side, LayerNorm
            from transformers import GPTNeoXConfig, GPTNeoXForCausalLM
            cfg = GPTNeoXConfig(hidden_size=768, intermediate_size=3072, num_hidden_layers=12,
                                num_attention_heads=12, vocab_size=50304,
                                max_position_embeddings=1024, use_parallel_residual=True)
            cls = GPTNeoXForCausalLM
        elif name == "opt_small":   # OPT: learned positions, ReLU MLP, pre-LayerNorm, tied head
            from transformers import OPTConfig, OPTForCausalLM
            cfg = OPTConfig(hidden_size=768, ffn_dim=3072, num_hidden_layers=12,
                            num_attention_heads=12, vocab_size=50272, max_position_embeddings=1024,
                            word_embed_proj_dim=768)
            cls = OPTForCausalLM
        elif name == "olmo2_small":   # OLMo 2: norms after attention and MLP, RMSNorm on q and k
            from transformers import Olmo2Config, Olmo2ForCausalLM
            cfg = Olmo2Config(hidden_size=768, intermediate_size=2048, num_hidden_layers=12,
                              num_attention_heads=12, num_key_value_heads=12, vocab_size=50304,
                              max_position_embeddings=1024)
            cls = Olmo2ForCausalLM
        elif name == "roberta_base":   # BERT's layer, learned positions offset by the padding index
            from transformers import RobertaConfig, RobertaForMaskedLM
            cfg = RobertaConfig(vocab_size=50265, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                                intermediate_size=3072, max_position_embeddings=514, type_vocab_size=1)
            cls = RobertaForMaskedLM
        elif name == "electra_base":   # ELECTRA's generator head on a BERT-base encoder
            from transformers import ElectraConfig, ElectraForMaskedLM
            cfg = ElectraConfig(embedding_size=768, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                                intermediate_size=3072)
            cls = ElectraForMaskedLM
        elif name == "albert_base":   # one layer's weights shared by all 12: each gradient summed 12 times
            from transformers import AlbertConfig, AlbertForMaskedLM
            cfg = AlbertConfig(embedding_size=128, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
                               intermediate_size=3072)
            cls = AlbertForMaskedLM
        elif name == "bart_small":   # an encoder-decoder with learned positions, labels shifted right
            from transformers import BartConfig, BartForConditionalGeneration
            cfg = BartConfig(vocab_size=50265, d_model=512, encoder_layers=6, decoder_layers=6,
                             encoder_attention_heads=8, decoder_attention_heads=8, encoder_ffn_dim=2048,
                             decoder_ffn_dim=2048, max_position_embeddings=1024)
            cls = BartForConditionalGeneration
        elif name == "gemma_small":   # GeGLU, RMSNorm (1 + w), scaled embeddings, tied head, 4 KV heads of 12
            from transformers import GemmaConfig, GemmaForCausalLM
            cfg = GemmaConfig(hidden_size=768, intermediate_size=3072, num_hidden_layers=12,
                              num_attention_heads=12, num_key_value_heads=4, head_dim=64, vocab_size=32000,
                              max_position_embeddings=1024)
            cls = GemmaForCausalLM
        elif name == "falcon_small":   # attention and MLP in parallel off one LayerNorm, one KV head
            from transformers import FalconConfig, FalconForCausalLM
            cfg = FalconConfig(hidden_size=768, num_hidden_layers=12, num_attention_heads=12, vocab_size=50304,
                               new_decoder_architecture=False, multi_query=True, parallel_attn=True,
                               alibi=False, bias=False, max_position_embeddings=1024)
            cls = FalconForCausalLM
        elif name.startswith("gpt2"):
            from transformers import GPT2Config, GPT2LMHeadModel
            big = name == "gpt2_medium"
            cfg = GPT2Config(n_embd=1024 if big else 768, n_layer=24 if big else 12,
                             n_head=16 if big else 12, n_positions=1024)
            cls = GPT2LMHeadModel
        else:   # bert_base, bert_large
            from transformers import BertConfig, BertForMaskedLM
            big = name == "bert_large"
            cfg = BertConfig(hidden_size=1024 if big else 768, num_hidden_layers=24 if big else 12,
                             num_attention_heads=16 if big else 12,
                             intermediate_size=4096 if big else 3072)
            cls = BertForMaskedLM
        try:
            cfg._attn_implementation = "sdpa"
        except Exception:
            pass
        model = cls(cfg).cuda()
        ids = torch.randint(0, cfg.vocab_size, (batch, seq), device="cuda")
        return model, (ids, ids.clone()), \
            (lambda m, inp: m(input_ids=inp[0], labels=inp[1]).loss), \
            "transformers %s from config (random init), seq %d" % (cls.__name__, seq)
    die("unknown model '%s' (%s, %s)" % (name, ", ".join(TORCHVISION), ", ".join(HF_MODELS)), 64)


def user_model(name, batch):
    """A model of the user's own, name "package.module:function": function(batch, device) returns
    (model on the GPU, inputs, loss_fn[, optimizer]) with loss_fn(model, inputs) the loss, as
    tools/capture_torch.py takes it (the optimizer, if any, is not used: every runner trains with
    make_opt's, --optimizer). The module is found on sys.path (PYTHONPATH, or the current directory).
    A module or function that cannot be loaded, or a result of the wrong shape, exits 64."""
    try:
        build = capture_torch.load_builder(name)
    except ValueError as e:
        die("--models: %s" % e, 64)
    r = build(batch, "cuda")
    if not isinstance(r, (tuple, list)) or len(r) not in (3, 4) or not callable(r[2]):
        die("--models: %s must return (model, inputs, loss_fn[, optimizer]) with loss_fn(model, "
            "inputs) the loss" % name, 64)
    return r[0], r[1], r[2], "%s(batch=%d), the user's own builder" % (name, batch)


def workload_name(name, batch, seq):
    """The workload's name (and its files'): the model, the batch, the sequence for the
    transformers models; a user's package.module:function with every character that is not a
    letter, digit or underscore made an underscore; _bf16, _adamw, _none (gradients set to None)
    and _clip where the recipe has them (RECIPE)."""
    safe = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    recipe = ("_bf16" if RECIPE["amp"] == "bf16" else "") + \
        ("_adamw" if RECIPE["optimizer"] == "adamw" else "") + \
        ("_none" if RECIPE["set_to_none"] else "") + ("_clip" if RECIPE["clip"] else "")
    return "%s_b%d%s%s_torchval" % (safe, batch, "_s%d" % seq if name in HF_MODELS else "", recipe)


# transformers models the harness builds from their configs (random weights, token ids of --seq)
HF_MODELS = ("gpt2", "gpt2_medium", "bert_base", "bert_large", "llama_small", "distilbert", "t5_small",
             "qwen2_small", "mistral_small", "qwen3_small", "phi3_small", "gpt_neox_small",
             "opt_small", "olmo2_small", "roberta_base", "electra_base", "albert_base", "bart_small",
             "gemma_small", "falcon_small")

# torchvision classifiers the harness builds (random weights, 224x224 images)
TORCHVISION = ("resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "wide_resnet50_2",
               "vit_b_16", "vit_b_32", "maxvit_t", "convnext_tiny", "efficientnet_b0",
               "efficientnet_b1", "regnet_y_400mf", "regnet_y_1_6gf", "swin_t",
               "mobilenet_v3_large", "densenet121", "resnext50_32x4d", "swin_v2_t", "mobilenet_v2",
               "vgg16", "shufflenet_v2_x1_0", "efficientnet_v2_s", "convnext_small", "mnasnet1_0",
               "regnet_x_3_2gf", "mobilenet_v3_small", "swin_s", "densenet169",
               "resnext101_32x8d", "vit_l_16", "wide_resnet101_2", "convnext_base", "swin_b",
               "efficientnet_b3", "regnet_y_3_2gf", "efficientnet_b2", "densenet201", "regnet_y_8gf",
               "efficientnet_v2_m", "regnet_x_8gf", "resnext101_64x4d", "swin_v2_s", "efficientnet_b4",
               "regnet_y_16gf", "regnet_x_16gf", "convnext_large", "efficientnet_b5", "mnasnet1_3",
               "shufflenet_v2_x2_0", "swin_v2_b", "densenet161", "vgg19_bn", "squeezenet1_1")


# The training recipe every step of the run uses (--amp, --optimizer, --set-to-none; set_recipe
# sets it): fp32 with TF32 matrix products, SGD with momentum and gradients zeroed in place
# by default; bf16 autocast (fp32 parameters and gradients, as torch.amp trains), AdamW and
# gradients set to None (PyTorch's default zero_grad) are what most training loops use; so is
# clipping the gradients' total norm before each step (--clip-grad-norm; HF Trainer's default 1.0).
RECIPE = {"amp": "tf32", "optimizer": "sgd", "set_to_none": False, "clip": None}
# optimizer states a trainable parameter holds on the GPU (runner_bytes)
OPT_STATES = {"sgd": 1, "adamw": 2}


def set_recipe(a):
    """RECIPE from the parsed options (main, before the preflight's probe steps with it; run
    again, since a spawned rank's module starts anew)."""
    RECIPE.update(amp=a.amp, optimizer=a.optimizer, set_to_none=a.set_to_none,
                  clip=a.clip_grad_norm)


def make_opt(model):
    """The recipe's optimizer (RECIPE): SGD with momentum 0.9, or AdamW (PyTorch's default
    multi-tensor implementation); with RECIPE["clip"], one whose step() first clips the
    gradients' total norm (clipped_optimizer)."""
    import torch
    cls = torch.optim.AdamW if RECIPE["optimizer"] == "adamw" else torch.optim.SGD
    if RECIPE["clip"]:
        cls = clipped_optimizer(cls, RECIPE["clip"])
    if RECIPE["optimizer"] == "adamw":
        return cls(model.parameters(), lr=1e-4)
    return cls(model.parameters(), lr=1e-3, momentum=0.9)


def clipped_optimizer(cls, max_norm):
    """A subclass of the optimizer cls whose step() runs torch.nn.utils.clip_grad_norm_ over its
    parameters first, as a training loop calls it between backward() and step(). Inside step(),
    so every timing of the optimizer's phase (the capture's, the runners') includes it; a
    subclass, so that a copy made as torch_modelcost makes one (torch_host.same_optimizer: the
    class with its settings) clips too."""
    import torch

    class Clipped(cls):
        def step(self, closure=None):
            torch.nn.utils.clip_grad_norm_(
                [p for g in self.param_groups for p in g["params"]], max_norm)
            return super().step(closure)
    Clipped.__name__ = "Clipped" + cls.__name__
    return Clipped


def with_amp(loss_fn):
    """loss_fn under the recipe's autocast (RECIPE; the capture wraps its own forward the same
    way, capture_torch.capture's amp): bf16 autocast, or loss_fn itself for fp32/TF32."""
    if RECIPE["amp"] != "bf16":
        return loss_fn

    def amp_loss(model, inputs):
        import torch
        with torch.autocast("cuda", dtype=torch.bfloat16):
            return loss_fn(model, inputs)
    return amp_loss


def recipe_words():
    """The recipe in words, for the workload's notes."""
    return ("bf16 autocast (fp32 parameters and gradients)" if RECIPE["amp"] == "bf16"
            else "fp32 (TF32 matmul)") + \
        (", AdamW" if RECIPE["optimizer"] == "adamw" else ", SGD momentum") + \
        ", zero_grad(set_to_none=%s)" % RECIPE["set_to_none"] + \
        (", gradients clipped to total norm %g" % RECIPE["clip"] if RECIPE["clip"] else "")


# One row per plan: label, fusim flags, how to run it.
PLANS = [
    # label          framework comm        fusion          pack    overlap kind  cap_mb  view
    ("ddp none",     "ddp", "allreduce:1", "none",          "copy", "on", "ddp", 1e-9, False),
    ("ddp 1MiB",     "ddp", "allreduce:1", "cap:1MiB",      "copy", "on", "ddp", 1, False),
    ("ddp 4MiB",     "ddp", "allreduce:1", "cap:4MiB",      "copy", "on", "ddp", 4, False),
    ("ddp default",  "ddp", "allreduce:1", "cap:25MiB,first:1MiB", "copy", "on", "ddp", None, False),
    ("ddp 100MiB",   "ddp", "allreduce:1", "cap:100MiB",    "copy", "on", "ddp", 100, False),
    ("ddp default view", "ddp", "allreduce:1", "cap:25MiB,first:1MiB", "view", "on", "ddp", None, True),
    ("ddp offload default", "ddp", "offload", "cap:25MiB,first:1MiB", "copy", "on", "ddp_off", None, False),
    ("ddp offload 4MiB", "ddp", "offload", "cap:4MiB", "copy", "on", "ddp_off", 4, False),
    ("hooks none",   "hooks", "offload", "none",          "copy", "on", "hooks", 0, False),
    ("hooks 4MiB",   "hooks", "offload", "cap:4MiB",      "copy", "on", "hooks", 4, False),
    ("hooks 25MiB",  "hooks", "offload", "cap:25MiB",     "copy", "on", "hooks", 25, False),
    ("hooks 25MiB overlap off", "hooks", "offload", "cap:25MiB", "copy", "off", "hooks", 25, False),
]


# The world this process runs in (run_ranks sets them): ranks, and this rank's GPU.
WORLD, RANK, GPU = 1, 0, 0


def select_plans(labels, world):
    """The plans to run: those labelled (all where None); in a world of several ranks only DDP's
    default all-reduce (runner "ddp") unless labelled. Why: at N > 1 the matrix is DDP's NCCL
    all-reduce over every GPU (issue 10, item 4); the offload hook and the hook pattern send
    nothing between GPUs (each rank offloads its own gradients: the one-GPU rows again), and with
    every rank's copies at once over the host's PCIe they would test a shared host link fusim does
    not model, at twice the loop's time."""
    if labels:
        return [p for p in PLANS if p[0] in labels]
    return [p for p in PLANS if world == 1 or p[6] == "ddp"]


def row_comm(comm, world):
    """A plan's --comm in a world of `world` ranks: DDP's all-reduce over all of them."""
    return "allreduce:%d" % world if comm.startswith("allreduce") else comm


# Probes run in the same rounds as the plans, never scored as rows (--no-loop-probes: none):
# the frameworks' per-parameter costs at the loop's own host speed (torch_modelcost's variants:
# ONE bucket, so per bucket the cost is paid once; store_torch_validation derives the costs from
# them in place of the capture's, which a host whose speed moves between capture and loop carried
# badly: ResNet-101 on run 17, 15.6 us [4.2, 22.4] per parameter), and the first in-backward
# issue's pair (torch_host.FirstIssueFuser), a check in the loop of the capture's in_bwd_slow.
PROBES = [
    ("probe ddpv_1",    "ddp",   "allreduce:1", "single", "view", "on",  "ddp",        1e4, True),
    ("probe ddpc_h",    "ddp",   "allreduce:1", "single", "copy", "on",  "ddp_noop",   1e4, False),
    ("probe hk_1",      "hooks", "offload",     "single", "copy", "on",  "hooks",      1e4, False),
    ("probe first on",  "hooks", "offload",     "single", "copy", "on",  "hooks_first", 0, False),
    ("probe first off", "hooks", "offload",     "single", "copy", "off", "hooks_first", 0, False),
]
# A second framework-free runner (--baseline-twin), never a row, kept with the probes (runs.json
# loop_probes["baseline twin"]): its step and CPU phases less compute-only's, paired by round,
# should be 0 within the loop's noise (torch_run_report's baseline section). On runs 22-28 the
# hook plans' forward CPU sat 100-350 us below compute-only's on the BatchNorm models (same-round
# medians; data/validation/README.md, "The rows predicted too slow"): a twin there tells a
# compute-only runner slower than any other from one slower than the plans only.
BASELINE_TWIN = ("baseline twin", None, None, None, None, "off", "plain", None, False)


def extra_runners(loop_probes, twin):
    """The plans of the runners after the rows: PROBES (loop_probes) and BASELINE_TWIN (twin)."""
    return (PROBES if loop_probes else []) + ([BASELINE_TWIN] if twin else [])


# The plans --trace profiles: the hook pattern's and DDP's mid-sized buckets (about 1 ms a step
# above the line through their other plans in runs 8-10) beside their neighbours.
TRACE_PLANS = ("compute-only", "hooks 4MiB", "hooks 25MiB", "ddp 1MiB", "ddp 4MiB", "ddp default")


class Runner:
    """One plan on its own copy of the model."""

    def __init__(self, base, plan, inputs, loss_fn):
        from torch.nn.parallel import DistributedDataParallel as DDP
        self.label = plan[0] if plan else "compute-only"
        self.plan = plan
        self.inputs = inputs
        self.loss_fn = loss_fn
        m = copy.deepcopy(base)
        self.core = m
        self.fuser = None
        self.off = None
        self.names = {p.data_ptr(): n for n, p in m.named_parameters() if p.requires_grad}
        if plan and plan[6] in ("ddp", "ddp_off"):
            kw = {} if plan[7] is None else {"bucket_cap_mb": plan[7]}
            m = DDP(m, device_ids=torch_host.device_ids(), gradient_as_bucket_view=plan[8], **kw)
            if plan[6] == "ddp_off":
                self.off = torch_host.OffloadState()
                m.register_comm_hook(self.off, torch_host.offload_hook)
        elif plan and plan[6] == "ddp_noop":   # DDP copying into its bucket, communicating nothing
            import torch_modelcost
            m = DDP(m, device_ids=torch_host.device_ids(), bucket_cap_mb=plan[7], gradient_as_bucket_view=plan[8])
            m.register_comm_hook(None, torch_modelcost._noop_comm_hook)
        elif plan and plan[6] == "hooks_first":
            params = [(n, p) for n, p in m.named_parameters() if p.requires_grad]
            self.fuser = torch_host.FirstIssueFuser(params, inside=plan[5] == "on")
        elif plan and plan[6] == "hooks":
            params = [(n, p) for n, p in m.named_parameters() if p.requires_grad]
            self.fuser = torch_host.HookFuser(params, int(plan[7] * MiB), overlap=plan[5] == "on")
        self.model = m
        self.opt = make_opt(self.core)
        self.times = []
        self.cpu = []              # per timed step: CPU time of forward, backward(), the rest
        self.rest = []             # FirstIssueFuser: per timed step, backward() after its issue

    def step(self, ev0, ev1):
        import torch
        self.opt.zero_grad(set_to_none=RECIPE["set_to_none"])
        torch.cuda.synchronize()
        torch_host.align_ranks()   # at N ranks every rank starts the step together
        ev0.record()
        t0 = time.perf_counter()
        loss = self.loss_fn(self.model, self.inputs)
        t1 = time.perf_counter()
        first = isinstance(self.fuser, torch_host.FirstIssueFuser)
        if first:
            self.fuser.t_e = None
        loss.backward()
        t2 = time.perf_counter()
        self.last_rest = (t2 - self.fuser.t_e) * 1e6 if first and self.fuser.t_e else None
        if self.fuser is not None:
            self.fuser.after_backward()
        self.opt.step()
        t3 = time.perf_counter()
        ev1.record()
        torch.cuda.synchronize()
        self.last_cpu = ((t1 - t0) * 1e6, (t2 - t1) * 1e6, (t3 - t2) * 1e6)
        return ev0.elapsed_time(ev1) * 1e3

    def buckets(self, ev0, ev1):
        """The buckets this plan really used, as lists of parameter names, in DDP's order."""
        if self.plan is None:
            return None
        if self.fuser is not None:
            return self.fuser.bucket_names()
        rec = []
        if self.off is not None:
            self.off.record = rec
        else:
            self.model.register_comm_hook(rec, torch_host.record_allreduce_hook)
        self.step(ev0, ev1)
        rec.sort(key=lambda t: t[0])
        return [[self.names[d] for d in ptrs] for _, ptrs in rec]


def machine_info():
    import torch
    info = {"host": platform.node(), "python": platform.python_version(),
            "torch": torch.__version__, "cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version(), "gpu": torch.cuda.get_device_name(0)}
    try:
        info["nccl"] = ".".join(str(v) for v in torch.cuda.nccl.version())
    except Exception:
        pass
    for mod in ("torchvision", "transformers"):
        try:
            info[mod] = __import__(mod).__version__
        except Exception:
            pass
    try:
        info["driver"] = subprocess.run(
            ["nvidia-smi", "-i", smi_id(GPU), "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception:
        pass
    info["world_size"] = WORLD
    if WORLD > 1:   # how the GPUs are linked (NVLink or PCIe): the prediction's --comm link
        # the ranks' GPUs (rank r on cuda:r, _rank_main), not every one visible
        info["gpus"] = [torch.cuda.get_device_name(i) for i in range(WORLD)]
        try:
            info["topology"] = subprocess.run(["nvidia-smi", "topo", "-m"], capture_output=True,
                                              text=True, timeout=20).stdout
        except Exception:
            pass
    return info


def smi_id(device, props=None):
    """nvidia-smi's name of torch's GPU `device`: its UUID. torch numbers only the GPUs that
    CUDA_VISIBLE_DEVICES leaves, in that order, while nvidia-smi -i numbers all of them, so the
    index alone can name another GPU; the index is the fallback where torch gives no UUID."""
    if props is None:
        import torch
        props = torch.cuda.get_device_properties(device)
    uuid = getattr(props, "uuid", None)
    return "GPU-%s" % uuid if uuid else str(device)


def clocks():
    try:
        out = subprocess.run(["nvidia-smi", "-i", smi_id(GPU),
                              "--query-gpu=clocks.sm,power.draw,temperature.gpu",
                              "--format=csv,noheader,nounits"], capture_output=True, text=True,
                             timeout=20).stdout.strip()
        return [float(v) for v in out.split(",")]
    except Exception:
        return None


def reference_step(name, log):
    """The reference step (tools/host_ref.py) of the architecture fusim's builder prices the model
    as (tools/compare_compute.py's KNOWN), which the capture times between its steps
    (meta.host_ref): the capture, a check of fusim's what-if pricing, is then priced at its own
    host's speed (compare_compute.host_args: "ref", where run 40's captures had only the probes,
    whose speed missed RoBERTa's and Gemma's forward by 1.3x either way). None for a model no
    builder makes, or where the step cannot be made (logged; the capture goes on without it)."""
    import host_ref
    try:
        return host_ref.maker_for(name, RECIPE["amp"])
    except Exception as e:
        log("%s: no reference step (%s: %s)" % (name, type(e).__name__, e))
        return None


def run_model(name, batch, seq, a, fw, log, plans=None, wl=None):
    """One model's capture and loop: (its workload, its runs.json entry). plans: the loop's plans
    (default: select_plans's); wl: the model's capture already made (a later group of
    plan_groups: not captured again, and no probe runners in its loop)."""
    import torch
    # GPU memory allocated at points of the model's run, logged beside the loop's peak: what the
    # models before it left, what the capture left, what the runners and their first steps hold
    mem = [("start", torch.cuda.memory_allocated())]
    torch.manual_seed(0)
    base, inputs, raw_loss, desc = build_model(name, batch, seq)
    loss_fn = with_amp(raw_loss)   # the runners'; the capture autocasts raw_loss itself
    wname = workload_name(name, batch, seq)
    grouped = plans is not None
    if wl is None:
        t0 = time.time()
        cap_model = copy.deepcopy(base)
        wl = capture_torch.capture(cap_model, inputs, raw_loss, make_opt(cap_model), iters=a.capture_iters,
                                   warmup=3, amp=RECIPE["amp"], host="always", name=wname,
                                   notes="CAPTURED by tools/validate_torch.py on %s: %s, batch %d, %s"
                                         % (torch.cuda.get_device_name(0), desc, batch, recipe_words()),
                                   meta={"model": name, "batch": batch, "seq": seq,
                                         "optimizer": RECIPE["optimizer"],
                                         "clip_grad_norm": RECIPE["clip"]},
                                   framework=fw, set_to_none=RECIPE["set_to_none"],
                                   model_cost_rounds=a.model_cost_rounds,
                                   beside_rounds=a.beside_rounds,
                                   first_issue_rounds=a.first_issue_rounds,
                                   model_cost_buckets=a.model_cost_rounds > 0,
                                   model_cost_spacing=a.spacing_variants,
                                   model_cost_spacing_every=a.spacing_every,
                                   model_cost_cold=a.model_cost_cold, log=log,
                                   host_ref=reference_step(name, log))
        del cap_model
        free_gpu_memory()
        # written now, not after the loop: a run cut in the loop (run 40c's DenseNet-161) keeps
        # the capture, a check of fusim's what-if pricing on its own (tools/compare_compute.py)
        with open(os.path.join(a.out, "wl_%s.json" % wname), "w") as f:
            json.dump(wl, f, separators=(",", ":"))
        log("%s: captured in %.1f s (fwd %.0f bwd %.0f opt %.0f us, %d tensors)"
            % (wname, time.time() - t0, wl["fwd_us"], wl["bwd_us"], wl["opt_us"], len(wl["grads"])))
    mem.append(("captured", torch.cuda.memory_allocated()))
    try:   # the model's own autograd graph (torch_fwcal.graph_stats); a failure costs only that
        gm = copy.deepcopy(base)
        graph = torch_fwcal.graph_stats(loss_fn(gm, inputs))
        del gm
    except Exception as e:
        graph = None
        log("%s: graph not counted (%s: %s)" % (wname, type(e).__name__, e))
    mem.append(("graph", torch.cuda.memory_allocated()))
    if plans is None:
        plans = select_plans(a.plans, WORLD)
    torch.cuda.reset_peak_memory_stats()   # the loop's own peak, beside the preflight's floor
    runners = [Runner(base, None, inputs, loss_fn)] + [Runner(base, p, inputs, loss_fn) for p in plans]
    probes_at = len(runners)   # runners from here on are probes, not rows
    runners += [Runner(base, p, inputs, loss_fn)
                for p in extra_runners(a.loop_probes and not grouped, a.baseline_twin and not grouped)]
    mem.append(("runners", torch.cuda.memory_allocated()))
    ev0, ev1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ck = [clocks()]
    probes = []   # the host's speed, once a round (store_torch_validation.probe_factor)
    bprobes = []  # the autograd thread's (torch_host.bwd_probe)
    states = []   # what the host's CPUs did (host_state: the slow mode's cause), before the
    #               first timed round and after each (its probes included): round i between i, i + 1
    t0 = time.time()
    # A new order every round, drawn at random (seeded): no plan always follows the same one. A
    # rotation (runs up to 12) kept every plan behind the same neighbour in every round, so
    # whatever a plan leaves behind (host caches, the allocators, Python's garbage) was always
    # paid by the same next plan. The orders are kept (round_orders) to test exactly that.
    rng = random.Random(a.order_seed)
    orders = []
    for r in range(a.warmup + a.iters):
        n = len(runners)
        order = list(range(n))
        if a.order == "shuffle":
            rng.shuffle(order)
        else:
            order = order[r % n:] + order[:r % n]
        if r >= a.warmup:
            orders.append(order)
        if r == a.warmup:
            states.append(host_state.host_state())
        for k in order:
            run = runners[k]
            t = run.step(ev0, ev1)
            if r >= a.warmup:
                run.times.append(t)
                run.cpu.append(run.last_cpu)
                run.rest.append(run.last_rest)
        if r == 0:
            mem.append(("round 1", torch.cuda.memory_allocated()))
        if r >= a.warmup:
            probes.append(round(torch_host.host_probe(), 4))
            bprobes.append(round(torch_host.bwd_probe(), 4))
            states.append(host_state.host_state())
    mem.append(("loop end", torch.cuda.memory_allocated()))
    ck.append(clocks())
    log("%s: %d rounds x %d runners in %.1f s" % (wname, a.warmup + a.iters, len(runners),
                                                  time.time() - t0))
    fp = a.footprints.get((name, batch))
    log("%s: GPU memory allocated at the loop's peak %.1f GiB (the preflight's floor %s)"
        % (wname, torch.cuda.max_memory_allocated() / 2**30, "%.1f GiB" % (loop_bytes(
            fp, [r.plan for r in runners[1:]]) / 2**30) if fp else "not measured"))
    log("%s: GPU memory allocated (GiB): %s" % (wname, ", ".join(
        "%s %.1f" % (k, v / 2**30) for k, v in mem)))
    if name in a.trace:   # where the host time goes, plan by plan (torch_trace; an experiment)
        try:
            torch_trace.trace_plans(runners, TRACE_PLANS, ev0, ev1, a.out, wname, log=log)
        except Exception as e:
            log("%s: trace failed (%s: %s)" % (wname, type(e).__name__, e))
    # A probe of the loop's own effect (not used for the rows): each runner a.blocked steps in a
    # row, as a training loop of one plan runs, after the interleaved rounds; its first step
    # dropped. Do the frameworks' costs differ when no other model ran in between?
    blocked = {}
    for run in runners if a.blocked > 1 else []:
        ts, cs = [], []
        for _ in range(a.blocked):
            ts.append(round(run.step(ev0, ev1), 1))
            cs.append([round(v, 1) for v in run.last_cpu])
        blocked[run.label] = {"times_us": ts[1:], "cpu_times_us": cs[1:]}
    co = runners[0].times
    rows = []
    loop_probes = {run.label: {"times_us": [round(t, 1) for t in run.times],
                               "cpu_times_us": [[round(v, 1) for v in c] for c in run.cpu],
                               "rest_us": [None if x is None else round(x, 1) for x in run.rest]}
                   for run in runners[probes_at:]}
    if a.loop_probes and loop_probes:
        try:   # a log line; store_torch_validation derives both again from the rounds
            import torch_beside
            import torch_modelcost
            est = torch_modelcost.from_loop(
                {"compute-only": {"cpu_times_us": [list(c) for c in runners[0].cpu]},
                 **loop_probes}, sum(1 for p in base.parameters() if p.requires_grad),
                {"finalize_us": fw["ddp"]["finalize_us"],
                 "hooks_bucket_us": fw["hooks"]["bucket_us"]})
            sl = torch_beside.estimate({"fi_on_rest": loop_probes["probe first on"]["rest_us"],
                                        "fi_off_rest": loop_probes["probe first off"]["rest_us"]})
            log("  probes in the loop: ddp param %.1f us %s, copy %.1f %s; hooks hook %.1f %s; "
                "DDP's forward %.0f us %s; after the first in-backward issue x (1 + %s) %s"
                % (est["param_us"], est["ci"]["param_us"], est["copy_us"], est["ci"]["copy_us"],
                   est["hook_us"], est["ci"]["hook_us"], est["ddp_forward"]["forward_us"],
                   est["ddp_forward"]["ci"], sl["in_bwd_slow"], sl["ci"].get("in_bwd_slow")))
        except Exception as e:
            log("  probes in the loop: not estimated (%s: %s)" % (type(e).__name__, e))
    labels = [r.label for r in runners]   # the rounds' orders index every runner, probes too
    runners = runners[:probes_at]
    for run in runners[1:]:
        p = run.plan
        med = statistics.median(run.times)
        rows.append({
            "plan_label": p[0], "framework": p[1], "comm": row_comm(p[2], WORLD), "fusion": p[3],
            "pack": p[4],
            "overlap": p[5], "runner": p[6], "bucket_cap_mb": p[7], "gradient_as_bucket_view": p[8],
            "measured_us": med, "p5_us": quantile(run.times, 0.05), "p95_us": quantile(run.times, 0.95),
            "times_us": [round(t, 1) for t in run.times],
            "compute_only_us": statistics.median(co),
            "cpu_fwd_bwd_rest_us": [round(statistics.median(c[k] for c in run.cpu), 1) for k in range(3)],
            "cpu_times_us": [[round(v, 1) for v in c] for c in run.cpu],   # every iteration's
            "buckets": None,
        })
        try:
            rows[-1]["buckets"] = run.buckets(ev0, ev1)
        except Exception as e:   # keep the timing; the store step then uses fusim's own rule
            log("  %s: buckets not recorded (%s: %s)" % (p[0], type(e).__name__, e))
        log("  %-26s %9.0f us  (+%6.0f over compute-only, %s buckets)"
            % (p[0], med, med - statistics.median(co),
               len(rows[-1]["buckets"]) if rows[-1]["buckets"] else "?"))
    res = {"workload": wname, "model": name, "batch": batch, "seq": seq, "description": desc,
           **RECIPE,
           "compute_only_us": statistics.median(co), "compute_only_times_us": [round(t, 1) for t in co],
           "compute_only_p5_us": quantile(co, 0.05), "compute_only_p95_us": quantile(co, 0.95),
           "compute_only_cpu_fwd_bwd_rest_us": [round(statistics.median(c[k] for c in runners[0].cpu), 1)
                                                for k in range(3)],
           "compute_only_cpu_times_us": [[round(v, 1) for v in c] for c in runners[0].cpu],
           "clocks_sm_mhz_power_w_temp_c": ck, "host_probe_us": probes, "host_bwd_probe_us": bprobes,
           "host_state": states,
           "blocked": blocked or None,
           "round_orders": {"runners": labels, "order": a.order,
                            "timed": orders},
           "graph": graph, "rows": rows, "loop_probes": loop_probes or None}
    del runners, base
    free_gpu_memory()
    return wl, res


def write_runs(path, results):
    """runs.json without indentation: the repository keeps every run's (data/validation), and the
    device tool carries the whole tree in 64 MiB; indented, they took a third more."""
    with open(path, "w") as f:
        json.dump(results, f, separators=(",", ":"))
        f.write("\n")


def run_or_skip(run, oom_error, what, log, floor_bytes=None, free=None):
    """run() -> its result, or None where it ran out of GPU memory (oom_error): one line logged
    (with the preflight's floor where known) and the memory freed. At several ranks it stops the
    run instead: the other ranks go on to this model's collectives, so no rank skips alone."""
    try:
        return run()
    except oom_error as e:
        if WORLD > 1:
            die("%s: out of GPU memory on rank %d; at several ranks the run stops (the models done "
                "stay in each rank's runs.json: merge_ranks joins them)" % (what, RANK), 70)
        log("%s: out of GPU memory, skipped (%s)%s"
            % (what, str(e).splitlines()[0], "" if floor_bytes is None else
               "; the preflight's floor was %.1f GiB" % (floor_bytes / 2**30)))
    # Freed only here, after the except block: until it ends, the exception's traceback holds
    # run's frames and through them the model's runners (run 32's first call held 41 GiB after
    # ViT-L/16's skip, and so skipped the two models after it; most of that was the hook
    # fusers' leak, torch_host.HookFuser._make).
    (free or free_gpu_memory)()
    return None


def free_gpu_memory():
    """Gives back the GPU memory of models no longer used: the cyclic garbage first (whatever
    the runners and the capture's variants left in reference cycles), then the allocator's
    cache. A cycle through a parameter's post-accumulate-grad hooks is not garbage to Python's
    collector (PyTorch holds the hooks from C++ too): the hook pattern's fuser held by its hooks
    was never freed until its hooks held it weakly (torch_host.HookFuser._make)."""
    import torch
    gc.collect()
    torch.cuda.empty_cache()


def probe_model(name, batch, seq):
    """(names of the trainable parameters, names whose post-accumulate-grad hook fired, the
    model's footprint) in one forward and backward of the model, then a second one for the
    footprint (footprint: its bytes, and the second step's peak above the first's gradients,
    which a loop's runners keep from step to step). Out of GPU memory (the run then skips the
    model, as it does any model out of memory): None when the model did not fit, fired None
    when its step did not."""
    import torch
    torch.manual_seed(0)
    try:
        model, inputs, loss_fn, _ = build_model(name, batch, seq)
    except torch.cuda.OutOfMemoryError:
        torch.cuda.empty_cache()
        return None
    loss_fn = with_amp(loss_fn)
    params = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    fired = set()
    hooks = [p.register_post_accumulate_grad_hook(lambda t, n=n: fired.add(n)) for n, p in params]
    fp = None
    try:
        loss = loss_fn(model, inputs)
        if loss.requires_grad:   # else no gradient reaches any parameter: none fired
            loss.backward()
    except torch.cuda.OutOfMemoryError:
        fired = None
    loss = None
    if fired:   # the footprint's step (its own: out of memory here leaves the hooks' answer)
        try:
            before = torch.cuda.memory_allocated()
            torch.cuda.reset_peak_memory_stats()
            loss_fn(model, inputs).backward()
            fp = footprint(model, torch.cuda.max_memory_allocated() - before)
        except torch.cuda.OutOfMemoryError:
            pass
    for h in hooks:
        h.remove()
    names = [n for n, _ in params]
    del model, inputs, params, hooks
    free_gpu_memory()
    return names, fired, fp


def footprint(model, step_bytes):
    """What the loop's memory estimate (loop_bytes) needs of a model: the bytes of its parameters
    and buffers, of its trainable parameters (a gradient, the optimizer's states, a bucket or
    fusion buffer each), their count, and one step's peak above the memory held before it."""
    trainable = [p for p in model.parameters() if p.requires_grad]
    return {"model_bytes": sum(t.numel() * t.element_size()
                               for t in list(model.parameters()) + list(model.buffers())),
            "grad_bytes": sum(p.numel() * p.element_size() for p in trainable),
            "params": sum(p.numel() for p in trainable), "step_bytes": max(0, step_bytes)}


def runner_bytes(plan, fp):
    """GPU bytes a runner of plan (None: compute-only) holds between steps: its copy of the
    model, a gradient and the optimizer's states a trainable parameter (make_opt, OPT_STATES:
    SGD's momentum, AdamW's two moments; the gradients counted as zero_grad keeps them unless
    --set-to-none: a floor either way), and one more copy of the gradients where its framework
    keeps one apart: DDP copying into its buckets (not a bucket view; the offload hook's copies
    are in host memory) and the hook pattern's fusion buffers."""
    apart = plan is not None and (plan[6] in ("hooks", "hooks_first") or
                                  plan[6] in ("ddp", "ddp_off", "ddp_noop") and not plan[8])
    return fp["model_bytes"] + (1 + OPT_STATES[RECIPE["optimizer"]] + int(apart)) * fp["grad_bytes"]


def loop_bytes(fp, plans):
    """The loop's GPU memory, a floor: the model every runner is copied from, compute-only's
    runner and every plan's (runner_bytes), and one step's activations (one runner steps at a
    time). Not counted: the allocator's fragments, the libraries' workspaces."""
    return (fp["model_bytes"] + runner_bytes(None, fp) + sum(runner_bytes(p, fp) for p in plans)
            + fp["step_bytes"])


def memory_short(name, batch, fp, plans, free_bytes, held_bytes=None):
    """One line where the loop's runners (compute-only and plans) will not fit free_bytes of GPU
    memory (loop_bytes), else None. held_bytes: what PyTorch's tensors still hold then (said in
    the line: run 31 skipped ViT-L/16 with 38.6 of 80 GiB free after the model before it, and
    could not tell live tensors from memory held outside PyTorch)."""
    need = loop_bytes(fp, plans)
    if need <= free_bytes:
        return None
    g = 2.0 ** 30
    # what would fit: the cheapest runners first beside compute-only's (a bucket view holds no
    # second copy of the gradients)
    fits, left = 0, free_bytes - loop_bytes(fp, [])
    for b in sorted(runner_bytes(p, fp) for p in plans):
        if b > left:
            break
        fits, left = fits + 1, left - b
    hint = ("at most %d of its %d plan and probe runners would fit: fewer --plans, --no-loop-probes, or a "
            "smaller batch" % (fits, len(plans)) if left >= 0 else "not even compute-only's runner fits: a "
            "smaller batch")
    return ("%s:%d: skipped before its capture: its %d runners need at least %.1f GiB of GPU "
            "memory (%.2f B parameters; a runner %.1f-%.1f GiB with gradients and optimizer states, one "
            "step's activations %.1f GiB), %.1f GiB free; %s"
            % (name, batch, len(plans) + 1, need / g, fp["params"] / 1e9,
               runner_bytes(None, fp) / g, max(runner_bytes(p, fp) for p in [None] + list(plans)) / g,
               fp["step_bytes"] / g, free_bytes / g, hint)
            + ("" if held_bytes is None else
               "; PyTorch's tensors hold %.1f GiB" % (held_bytes / g)))


# Of the free GPU memory a plan group's floor (loop_bytes) may take: the floor leaves out the
# allocator's fragments and the libraries' workspaces (run 40's loops peaked 0.3-0.5 GiB above it).
GROUP_SHARE = 0.9


def plan_groups(fp, plans, free_bytes):
    """plans in as few groups as fit (each group's loop: its own compute-only runner beside its
    plans, loop_bytes, within GROUP_SHARE of free_bytes), consecutive in plans' order (DDP's plans
    beside each other, the hook pattern's beside each other) and of near-equal counts; None where
    not even one plan fits beside compute-only. A model whose runners do not fit one loop is then
    timed group by group (run, --no-plan-groups: skipped instead): every row against its own
    group's compute-only rounds."""
    room = GROUP_SHARE * free_bytes - loop_bytes(fp, [])
    if not plans or room < max(runner_bytes(p, fp) for p in plans):
        return None
    for n in range(1, len(plans) + 1):
        size, extra = divmod(len(plans), n)
        groups, at = [], 0
        for g in range(n):
            k = size + (g < extra)
            groups.append(plans[at:at + k])
            at += k
        if all(sum(runner_bytes(p, fp) for p in g) <= room for g in groups):
            return groups
    return None


def preflight(specs, seq, probe):
    """(the first model's problem as one line (torch_checks.grad_problem) or None, {(name,
    batch): footprint} of the models whose probe gave one); probe(name, batch, seq) ->
    (trainable names, fired names[, footprint]), or None for a model that did not fit."""
    footprints = {}
    for name, batch in specs:
        seen = probe(name, batch, seq)
        problem = torch_checks.grad_problem(*seen[:2]) if seen is not None else None
        if problem:
            return "%s (batch %d): %s" % (name, batch, problem), footprints
        if seen is not None and len(seen) > 2 and seen[2]:
            footprints[(name, batch)] = seen[2]
    return None, footprints


def parse_models(text):
    """[(name, batch)] from "name:batch,..." (batch 32 where left out; a model of the user's own,
    package.module:function:BATCH, always with its batch); bad input exits 64."""
    specs = []
    for spec in text.split(","):
        if spec.count(":") >= 2:   # package.module:function:BATCH
            name, _, b = spec.rpartition(":")
        else:
            name, _, b = spec.partition(":")
        try:
            batch = int(b or 32)
        except ValueError:
            batch = 0
        if not name or batch < 1 or name.endswith(":") or name.startswith(":"):
            die("--models: '%s' is not MODEL[:BATCH] with BATCH >= 1 (a model of your own: "
                "package.module:function:BATCH)" % spec, 64)
        specs.append((name, batch))
    return specs


def main(argv=None, probe=None):
    """probe: what preflight steps each model with (default probe_model, on the GPU)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--models", default="resnet18:32,resnet50:64,vit_b_16:32,gpt2_medium:4",
                    help="comma-separated MODEL[:BATCH], MODEL one of the torchvision and "
                         "transformers models built in (an unknown name lists them), or a model "
                         "of your own as package.module:function:BATCH "
                         "(tools/examples/torch_user_model.py)")
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--amp", choices=("tf32", "bf16"), default="tf32",
                    help="fp32 training with TF32 matrix products (default), or bf16 autocast "
                         "over fp32 parameters and gradients (torch.amp); in the capture and "
                         "every runner alike")
    ap.add_argument("--optimizer", choices=tuple(OPT_STATES), default="sgd",
                    help="SGD with momentum (default) or AdamW, in the capture and every runner")
    ap.add_argument("--set-to-none", action="store_true",
                    help="zero_grad(set_to_none=True), PyTorch's default (the gradients freed "
                         "after each step and made anew by the next backward), in the capture and "
                         "every runner; without it the gradients are zeroed in place")
    ap.add_argument("--clip-grad-norm", type=float, metavar="MAX",
                    help="torch.nn.utils.clip_grad_norm_(parameters, MAX) before every optimizer "
                         "step, in the capture and every runner (HF Trainer's default is 1.0); "
                         "default: no clipping")
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--capture-iters", type=int, default=15)
    ap.add_argument("--plans", help="comma-separated plan labels (default: all %d; at --world-size "
                    "N > 1 DDP's %d all-reduce plans, select_plans)"
                    % (len(PLANS), len(select_plans(None, 2))))
    ap.add_argument("--fw-cal", choices=("tower", "chain"), default="tower",
                    help="whose framework costs go into the workloads: tools/torch_fwcal.py's tower "
                         "(default) or torch_host's chain; both are measured and kept")
    ap.add_argument("--fw-rounds", type=int, default=20, help="rounds of the tower calibration")
    ap.add_argument("--fw-held", choices=("interleaved", "separate", "both"), default="interleaved",
                    help="the tower's held (GPU-only) passes after each as-is pass, or in rounds of "
                         "their own after the as-is rounds (torch_fwcal.framework_costs); both: "
                         "interleaved for the workloads, then separate as an experiment kept in "
                         "runs.json (framework_costs_separate)")
    ap.add_argument("--order", choices=("shuffle", "rotate"), default="shuffle",
                    help="the runners' order in each round: a seeded random permutation, or "
                         "rotated by one (runs up to 12: every plan behind the same neighbour)")
    ap.add_argument("--order-seed", type=int, default=1)
    ap.add_argument("--blocked", type=int, default=0,
                    help="after the interleaved rounds, every runner N steps in a row (the first "
                         "dropped), kept in runs.json 'blocked' (a probe; 0: none)")
    ap.add_argument("--model-cost-rounds", type=int, default=16,
                    help="rounds measuring the frameworks' per-parameter and per-bucket costs on "
                         "each captured model (tools/torch_modelcost.py; 0: the tower's go into "
                         "the workloads)")
    ap.add_argument("--beside-rounds", type=int, default=10,
                    help="rounds measuring each model's step beside a transfer into host memory "
                         "(tools/torch_beside.py: host.beside_d2h; 0: not measured)")
    ap.add_argument("--first-issue-rounds", type=int, default=24,
                    help="with --beside-rounds: rounds measuring the slowdown of backward's host "
                         "work after the first in-backward issue (meta.beside_d2h.in_bwd_slow; "
                         "0: not measured)")
    ap.add_argument("--no-spacing-variants", dest="spacing_variants", action="store_false",
                    help="leave out torch_modelcost's spacing variants (the in-backward issue's "
                         "cost on the model against the host work between issues, which "
                         "prices the in-backward issues (host.issue_spacing); about 70%% more "
                         "model-cost time)")
    ap.add_argument("--spacing-every", default="4,16",
                    help="the spacing variants' bucket sizes in gradients, comma-separated "
                         "(a hook-pattern variant each, a DDP pair each from 16 on; run 24 added "
                         "64: ResNet-50's 25 MiB buckets are several ms apart)")
    ap.add_argument("--no-model-cost-cold", dest="model_cost_cold", action="store_false",
                    help="leave out torch_modelcost's cache-flushed second step of every variant "
                         "(an experiment no cost is taken from; about half of each model-cost "
                         "round's time: data/validation/budget_split.py)")
    ap.add_argument("--no-plan-groups", dest="plan_groups", action="store_false",
                    help="skip a model whose plan and probe runners do not fit the GPU together "
                         "(the preflight's line) instead of timing its plans in groups, each in "
                         "a loop of its own beside its own compute-only runner (plan_groups)")
    ap.add_argument("--no-loop-probes", dest="loop_probes", action="store_false",
                    help="leave out the probes run in the loop's rounds (the frameworks' "
                         "per-parameter costs at the loop's host speed, the first in-backward "
                         "issue's pair; PROBES)")
    ap.add_argument("--baseline-twin", action="store_true",
                    help="a second framework-free runner in every round, never a row (runs.json "
                         "loop_probes['baseline twin']): a check of the compute-only baseline "
                         "(torch_run_report's baseline section; BASELINE_TWIN)")
    ap.add_argument("--trace", default="",
                    help="comma-separated models whose plans %s are profiled after the rounds "
                         "(torch_trace: OUT/<workload>_trace.txt and gzipped Chrome traces)"
                         % ", ".join(TRACE_PLANS))
    ap.add_argument("--no-chain", action="store_true",
                    help="skip torch_host's chain microbenchmark (it then runs only if the tower fails)")
    ap.add_argument("--structure-rounds", type=int, default=0,
                    help="rounds of torch_fwcal.structure_experiment (synthetic block kinds; 0: none)")
    ap.add_argument("--world-size", type=int, default=1, metavar="N",
                    help="ranks, one process a GPU (the first N visible): DDP's default NCCL "
                         "all-reduce over all N; at N > 1 only DDP's all-reduce plans unless "
                         "--plans names others (select_plans says why); rank 0's files in OUT, "
                         "rank r's runs.json and log in OUT/rank<r>, every rank's times merged "
                         "into OUT/runs.json (merge_ranks). Default 1")
    a = ap.parse_args(argv)
    if a.clip_grad_norm is not None and not 0 < a.clip_grad_norm < float("inf"):
        die("--clip-grad-norm %s: expected a total norm above 0, e.g. 1.0" % a.clip_grad_norm, 64)
    set_recipe(a)
    if a.world_size < 1:
        die("--world-size %d: expected 1 or more ranks" % a.world_size, 64)
    a.plans = a.plans.split(",") if a.plans else None
    unknown = [p for p in a.plans or [] if p not in [q[0] for q in PLANS]]
    if unknown:
        die("--plans: no plan labelled '%s' (%s)" % (unknown[0], ", ".join(q[0] for q in PLANS)), 64)
    a.trace = [t for t in a.trace.split(",") if t]
    a.model_cost_rounds = max(0, a.model_cost_rounds)
    try:
        every = tuple(int(n) for n in a.spacing_every.split(","))
    except ValueError:
        every = ()
    if not every or min(every) < 2:
        die("--spacing-every %s: expected gradients a bucket, integers of 2 or more, "
            "comma-separated" % a.spacing_every, 64)
    a.spacing_every = every
    a.beside_rounds = max(0, a.beside_rounds)
    a.first_issue_rounds = max(0, a.first_issue_rounds)
    specs = a.specs = parse_models(a.models)
    if probe is None:
        try:
            import torch
        except ImportError as e:
            die("PyTorch is needed (%s); run it where torch and a CUDA GPU are" % e, 69)
        if not torch.cuda.is_available():
            die("no CUDA GPU visible", 69)
        if torch.cuda.device_count() < a.world_size:
            die("--world-size %d: only %d GPU(s) visible" % (a.world_size, torch.cuda.device_count()),
                69)
        loop_backends(torch)   # the preflight's footprint step as the loop will run it
        probe = probe_model
    # bad models: one line, before anything is written; the footprints for memory_short
    problem, a.footprints = preflight(specs, a.seq, probe)
    if problem:
        die(problem)
    if a.world_size == 1:
        world_of_one(os.environ)
        return run(a)
    return run_ranks(a)


def loop_backends(torch):
    """The backends' settings every step of the run uses: cuDNN's autotuner (its algorithms, and
    so their workspaces, are the loop's) and TF32 matrix products, the fp32 ones only in fp32
    training (as capture_torch.capture sets them for its amp)."""
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = RECIPE["amp"] == "tf32"
    torch.backends.cudnn.allow_tf32 = True


def free_port():
    """A TCP port free on this host now, for a process group's rendezvous."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def world_of_one(env):
    """A run at --world-size 1 is rank 0 of its own world on the first visible GPU, meeting itself
    on a free local port: a RANK / WORLD_SIZE left by torchrun or SLURM would make its process
    group wait for ranks that never come (torch_host.ensure_process_group reads them), and their
    MASTER_PORT (or a fixed default) would clash between runs on one host."""
    env.update({"RANK": "0", "LOCAL_RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1",
                "MASTER_PORT": str(free_port())})


def _rank_main(rank, a, port):
    """One rank of run_ranks (torch.multiprocessing.spawn's function): the world from the
    environment (torch_host.ensure_process_group reads it), this rank's GPU, its own folder."""
    import torch
    os.environ.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "RANK": str(rank),
                       "LOCAL_RANK": str(rank), "WORLD_SIZE": str(a.world_size)})
    torch.cuda.set_device(rank)
    if rank > 0:
        a.out = os.path.join(a.out, "rank%d" % rank)
    run(a)


def run_ranks(a):
    """Every rank runs the same program (run): the same models, calibrations and plans in the same
    seeded order, so DDP's collectives (its construction's broadcast, buffer broadcasts, the
    buckets' all-reduce) match across ranks; each times its own steps. Then merge_ranks."""
    import torch.multiprocessing as mp
    port = free_port()   # the ranks' rendezvous
    try:   # the children inherit this environment: NCCL_NVLS_ENABLE=0 and its kin stay set
        mp.spawn(_rank_main, args=(a, port), nprocs=a.world_size, join=True)
    except Exception as e:
        die("a rank failed (%s: %s)" % (type(e).__name__, str(e).strip().splitlines()[-1]
                                        if str(e).strip() else ""), 70)
    merge_ranks(a.out, a.world_size)
    return 0


def _med_skew(series):
    """(median over iterations of the largest minus the smallest rank's time, max over ranks of
    their medians minus the min) for per-rank lists of times of the same iterations."""
    n = min(len(t) for t in series)
    per_iter = [max(t[i] for t in series) - min(t[i] for t in series) for i in range(n)]
    meds = [statistics.median(t) for t in series]
    return (round(statistics.median(per_iter), 1) if per_iter else None,
            round(max(meds) - min(meds), 1))


def merge_ranks(out, world):
    """Puts every rank's times beside rank 0's in OUT/runs.json: per row and for the compute-only
    iteration, rank_times_us (one list a rank), rank_measured_us (their medians), and the skew
    (rank_skew_iter_us: the median over iterations of the slowest minus the fastest rank;
    rank_skew_median_us: the ranks' medians' spread). The rows' figures stay rank 0's. A rank's
    file missing or a model it lacks: one line on stderr, exit 65, OUT/runs.json unchanged."""
    path = os.path.join(out, "runs.json")
    with open(path) as f:
        res = json.load(f)
    ranks = []
    for r in range(1, world):
        rp = os.path.join(out, "rank%d" % r, "runs.json")
        try:
            with open(rp) as f:
                ranks.append({m["workload"]: m for m in json.load(f)["models"]})
        except (OSError, ValueError, KeyError) as e:
            die("%s: %s" % (rp, getattr(e, "strerror", None) or e))
    for m in res["models"]:
        others = [rk.get(m["workload"]) for rk in ranks]
        if any(o is None for o in others):
            die("%s: a rank has no model %s" % (path, m["workload"]))
        series = [m["compute_only_times_us"]] + [o["compute_only_times_us"] for o in others]
        m["rank_times_us"] = series
        m["rank_measured_us"] = [statistics.median(t) for t in series]
        m["rank_skew_iter_us"], m["rank_skew_median_us"] = _med_skew(series)
        for row in m["rows"]:
            orows = [{r["plan_label"]: r for r in o["rows"]}.get(row["plan_label"]) for o in others]
            if any(o is None for o in orows):
                die("%s: a rank has no row %s / %s" % (path, m["workload"], row["plan_label"]))
            series = [row["times_us"]] + [o["times_us"] for o in orows]
            row["rank_times_us"] = series
            row["rank_measured_us"] = [statistics.median(t) for t in series]
            row["rank_skew_iter_us"], row["rank_skew_median_us"] = _med_skew(series)
    res["world_size"] = world
    res["ranks_merged"] = world
    tmp = path + ".tmp"
    write_runs(tmp, res)
    os.replace(tmp, path)
    return res


def run(a):
    """The run of one rank (the whole run in a world of one): calibrations, then every model."""
    global WORLD, RANK, GPU
    import torch
    WORLD, RANK = a.world_size, int(os.environ.get("RANK", "0"))
    if WORLD > 1:
        torch_host.ensure_process_group()
    GPU = torch.cuda.current_device()
    set_recipe(a)
    os.makedirs(a.out, exist_ok=True)
    loop_backends(torch)
    logf = open(os.path.join(a.out, "log.txt"), "a")

    def log(msg):
        if RANK == 0:   # the other ranks' logs stay in their folders
            print(msg, flush=True)
        logf.write(msg + "\n")
        logf.flush()

    info = machine_info()
    log("machine: %s" % json.dumps(info))
    torch_host.ensure_process_group()
    def run_chain():
        t0 = time.time()
        c = torch_host.framework_costs()
        log("framework costs, chain (%.1f s): ddp %s hooks %s copy %.0f GB/s"
            % (time.time() - t0, json.dumps(c["ddp"]), json.dumps(c["hooks"]), c["copy_gbps"]))
        return c

    chain = None if a.no_chain else run_chain()
    queue = None
    try:   # how many launches may be pending before the host blocks (torch_launchq)
        import torch_launchq
        queue = [torch_launchq.queue_depth(kind=k) for k in ("copy", "kernel")]
        log("launch queue: %s" % json.dumps(queue))
    except Exception as e:
        log("launch queue not measured (%s: %s)" % (type(e).__name__, e))
    tower = None
    try:
        tower = torch_fwcal.framework_costs(rounds=a.fw_rounds, log=log,
                                            held="interleaved" if a.fw_held == "both" else a.fw_held)
    except Exception as e:   # keep the run: the chain's costs then go into the workloads
        log("tower calibration failed (%s: %s); using the chain's costs" % (type(e).__name__, e))
    separate = None
    if a.fw_held == "both":   # the experiment: the same tower without interleaved held passes
        try:
            separate = torch_fwcal.framework_costs(rounds=a.fw_rounds, log=log, held="separate")
        except Exception as e:
            log("separate tower failed (%s: %s)" % (type(e).__name__, e))
    if chain is None and (tower is None or a.fw_cal == "chain"):
        chain = run_chain()
    fw = tower if tower is not None and a.fw_cal == "tower" else chain
    with open(os.path.join(a.out, "fwcal.jsonl"), "w") as f:   # for store --framework-costs
        for label, c in (("chain", chain), ("tower", tower)):
            if c is not None:
                f.write(json.dumps({"label": label, "ddp": c["ddp"], "hooks": c["hooks"],
                                    "copy_gbps": c["copy_gbps"],
                                    **{k: c[k] for k in ("kernel_us", "probe_us", "bwd_probe_us")
                                       if k in c}})
                        + "\n")
    results = {"format": "fusim-torch-validation-1", "machine": info,
               "world_size": WORLD, "rank": RANK,
               "command": " ".join([sys.executable] + sys.argv),
               "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               **RECIPE,
               "framework_costs": fw,   # the costs in the workloads; the other set beside it
               "framework_costs_chain" if fw is tower else "framework_costs_tower":
                   chain if fw is tower else tower,
               "framework_costs_separate": separate,
               "queue_depth": queue,
               "models": []}
    if a.structure_rounds > 0:
        try:
            results["structure_experiment"] = torch_fwcal.structure_experiment(
                rounds=a.structure_rounds, log=log)
        except Exception as e:   # an experiment: the validation runs without it
            log("structure experiment failed (%s: %s)" % (type(e).__name__, e))
        torch.cuda.empty_cache()
    write_runs(os.path.join(a.out, "runs.json"), results)   # before the models: survives a cut
    plans = select_plans(a.plans, WORLD)
    loop_plans = plans + extra_runners(a.loop_probes, a.baseline_twin)
    for name, batch in a.specs:
        fp = a.footprints.get((name, batch))
        groups = [None]   # one loop of every plan and probe runner
        if fp is not None:   # before the capture's minutes are spent
            free_gpu_memory()
            free = torch.cuda.mem_get_info()[0]
            short = memory_short(name, batch, fp, loop_plans, free, torch.cuda.memory_allocated())
            if short and WORLD > 1:   # every rank goes on to the model's collectives
                die(short + " on rank %d; at several ranks the run stops" % RANK, 70)
            if short:
                groups = plan_groups(fp, plans, free) if a.plan_groups else None
                if not groups:
                    log(short)
                    continue
                log("%s:%d: its runners do not fit one loop (%.1f GiB free): its %d plans run in %d groups "
                    "(%s), each in a loop of its own with its own compute-only runner; no probe runners"
                    % (name, batch, free / 2**30, len(plans), len(groups),
                       " | ".join(", ".join(p[0] for p in g) for g in groups)))
        wl = None
        for gi, group in enumerate(groups):
            done = run_or_skip(lambda: run_model(name, batch, a.seq, a, fw, log, plans=group, wl=wl),
                               torch.cuda.OutOfMemoryError, "%s:%d" % (name, batch), log,
                               loop_bytes(fp, group if group is not None else loop_plans) if fp else None)
            if done is None:
                break
            wl, res = done   # its capture written by run_model
            if group is not None:   # store and bench pair rows by (workload, plan): groups apart
                res["plan_group"] = [gi + 1, len(groups)]
            results["models"].append(res)
            write_runs(os.path.join(a.out, "runs.json"), results)   # after every loop: partial runs survive
    results["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    write_runs(os.path.join(a.out, "runs.json"), results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
