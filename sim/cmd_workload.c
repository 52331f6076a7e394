/* cmd_workload.c: fusim workload: make a workload from a model's hyper-parameters (--transformer,
 * --cnn; the models live in fu_builder.c, fu_build_cnn.c, fu_build_mobile.c, fu_build_convnext.c
 * and fu_build_regnet.c), summarise one (--info), validate one (--check) or list the bundled ones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fu_builder.h"
#include "fu_common.h"
#include "fu_dtype.h"
#include "fu_options.h"
#include "fu_output.h"
#include "fu_profile.h"
#include "fu_reprice.h"
#include "fu_wlinfo.h"
#include "fu_workload.h"


static const char fu__workload_head[] =
"usage: fusim workload --transformer --layers L --hidden H --heads A [--kv-heads K] --ffn F\n"
"                      --vocab V --seq S --micro-batch B\n"
"                      [--arch llama|bert|gpt2|qwen3|phi3|olmo2|custom]\n"
"                      [--head-dim D]\n"
"                      [--precision autocast-bf16|bf16|tf32|fp32] [--dtype bf16|fp16|fp32]\n"
"                      [--grad-dtype bf16|fp16|fp32] [--optimizer adamw|adam|sgd] [--dropout P]\n"
"                      [--clip-grad-norm MAX]\n"
"                      [--profile P.json] [--gated-ffn] [--bias] [--layernorm] [--tied-embeddings]\n"
"                      [--qkv-bias]\n"
"                      [--tflops T [--efficiency E] [--hbm-gbps G] [--kernel-us U]]\n"
"                      [--accum-steps K] [--name N] [--ops CSV] [--out FILE] [--format table|csv|json]\n"
"                      [--host-probe US [--host-probe-bwd US] | --host-ref-fwd US --host-ref-bwd US]\n"
"                      [--ready-hook-us US]\n"
"       fusim workload --transformer --arch vit --layers L --hidden H --heads A --ffn F\n"
"                      --micro-batch B [--image PX] [--patch P] [--classes C] [the options above]\n"
"       fusim workload --cnn MODEL --micro-batch B [--image PX] [--memory-format F] [--precision P]\n"
"                      [--optimizer sgd|adamw|adam] [--clip-grad-norm MAX] [--profile P.json]\n"
"                      [--name N] [--out FILE]\n"
"                      [--host-probe US [--host-probe-bwd US] | --host-ref-fwd US --host-ref-bwd US]\n"
"                      [--ready-hook-us US]\n"
"       fusim workload --info FILE|NAME [--tensors] [--strict] [--format table|csv|json]\n"
"       fusim workload --check FILE|NAME [--strict] [--out FILE]\n"
"       fusim workload --list [--format table|csv|json]\n"
"\n"
"--transformer  turn a transformer's hyper-parameters into a workload (format fusim-workload-1)\n"
"               written to --out (default: stdout; with --out a summary and the memory breakdown\n"
"               are printed instead). --arch picks the layer structure and parameter names as\n"
"               Hugging Face builds them: llama (LlamaForCausalLM: RMSNorm, SwiGLU, rotary, no\n"
"               biases, untied head unless --tied-embeddings), bert (BertForMaskedLM:\n"
"               post-LayerNorm, GELU, biases, MLM head tied to the embedding), gpt2\n"
"               (GPT2LMHeadModel: fused c_attn, gelu_new, tied head), qwen3 (Qwen3ForCausalLM:\n"
"               Llama's layer with an RMSNorm on each head's queries and keys, q_norm and k_norm;\n"
"               untied unless --tied-embeddings; priced by the profile's own hf_qwen3_layer_tiny\n"
"               and hf_qwen3_rest_tiny host rows, refused, exit 65, where it has none); phi3\n"
"               (Phi3ForCausalLM, Phi-3 and Phi-4: Llama's layer with q, k and v in one\n"
"               projection, qkv_proj, and gate and up in one, gate_up_proj; the slices of both and\n"
"               its rotary step's concatenation priced as PyTorch runs them; full rotary, a head\n"
"               of --hidden / --heads; untied unless --tied-embeddings; by its own\n"
"               hf_phi3_layer_tiny and hf_phi3_rest_tiny host rows, as qwen3); olmo2\n"
"               (Olmo2ForCausalLM: Llama's layer with an RMSNorm after attention and after the\n"
"               MLP instead of before, and one on all of q and all of k; untied unless\n"
"               --tied-embeddings; by its own hf_olmo2_* host rows, as qwen3); custom\n"
"               (default) is the first version's Llama names with the switches --gated-ffn,\n"
"               --bias, --layernorm, --tied-embeddings. --head-dim: a head's size where it is\n"
"               not --hidden / --heads (Qwen3-0.6B: hidden 1024, 16 heads of 128); llama, qwen3,\n"
"               olmo2 and custom. --qkv-bias: biases on the q, k and v projections alone, as in\n"
"               Qwen2's attention (Qwen2ForCausalLM is llama's layer otherwise); llama, qwen3\n"
"               and custom. vit: torchvision's VisionTransformer (vit_b_16: --layers 12 --hidden\n"
"               768 --heads 12 --ffn 3072; vit_l_16: 24, 1024, 16, 4096) on --image PX images\n"
"               (default 224) in --patch P patches (default 16), (PX / P)^2 + 1 tokens with the\n"
"               class token, a head of --classes C (default 1000), dropout 0; its\n"
"               nn.MultiheadAttention's layout copies priced (a copy of the transposed input,\n"
"               the packed q/k/v split, the residual stream in (seq, batch) order after the\n"
"               first block, so each later LayerNorm copies its input), its host cost per\n"
"               layer from the profile's hf_vit_*_tiny rows where it has them.\n"
"               Each operation PyTorch runs is priced from the profile's compute tables (fusim\n"
"               calib --suite gemm's cuBLAS shape sweep for the GEMMs of forward, input and weight\n"
"               gradients; tools/calib_torch.py for SDPA attention (grouped keys outside bf16 by\n"
"               PyTorch's math path, which keeps every score: --parts attention_gqa, else priced as\n"
"               the fused kernels, with a warning), the memory-bound operations by element count,\n"
"               the host's cost to issue each, and the optimizer step); a host timeline and a\n"
"               GPU timeline run them, so a step whose kernels are shorter than their issue cost\n"
"               is host-bound. --precision: autocast-bf16 (fp32 parameters, bf16\n"
"               autocast: PyTorch AMP), bf16 (bf16 parameters and gradients, fp32 master weights),\n"
"               tf32 (fp32 with TF32 matrix products), fp32 (strict). --dtype bf16|fp16 means bf16,\n"
"               fp32 means tf32 (the first version's spelling). --dropout: default 0.1 for bert\n"
"               and gpt2, 0 otherwise. The memory breakdown (parameters, gradients, optimizer\n"
"               states, autocast weight copies, activations at the micro-batch, the peak) is in\n"
"               the file's \"memory\" block and compared with the profile's GPU memory.\n"
"               --tflops selects the first version's roofline instead: per operation\n"
"               max(flops/(T*E), bytes/HBM, kernels*U), backward 2x forward (HBM: --hbm-gbps,\n"
"               else the profile's; U: --kernel-us, else the profile's launch_us); --efficiency,\n"
"               --hbm-gbps or --kernel-us alone take T from the profile's gpu_tflops. Bad\n"
"               hyper-parameters (zero layers, heads not dividing hidden) give one line, exit 64,\n"
"               and write nothing.\n"
"--host-probe   the host's speed where the step runs, as a reading of tools/torch_host.host_probe\n"
"               (CPU time per launch, us) on the scale of the profile's fastest reading (its\n"
"               compute.host_probe_min_us; else host_probe_us; refused, exit 65, when it has\n"
"               none): the operations' host costs (forward's, the optimizer's, and backward's\n"
"               unless --host-probe-bwd) are scaled by US over it. The same CPU work took\n"
"               1.0-1.6x as long on one machine at different times. Which reading: where the\n"
"               probe was read only before and after the steps, the fastest; where it was read\n"
"               between them too (tools/capture_torch.py: meta.host_probes_us), their median,\n"
"               which follows forward's host time better (tools/probe_carriers.py over 69\n"
"               captures, sd of the log 0.14 against the fastest's 0.22), times the profile's\n"
"               host_probe_min_us / host_probe_us to put it on that scale\n"
"               (tools/compare_compute.py's host_args does both). Not with the roofline (it has\n"
"               no host rows).\n"
"--host-probe-bwd\n"
"               with --host-probe: the same probe run on the autograd engine's thread\n"
"               (tools/torch_host.bwd_probe), the median of readings taken between the steps\n"
"               (tools/capture_torch.py records them, meta.host_bwd_probes_us). Backward's host\n"
"               costs are scaled by US over the profile's median probe (compute.host_probe_us)\n"
"               instead of by --host-probe: backward's launches run on that thread, whose speed\n"
"               moves apart from the main thread's.\n"
"--host-ref-fwd, --host-ref-bwd\n"
"               the host's speed where the step runs, from a reference step of the same kind of\n"
"               work timed there (python3 tools/host_ref.py --arch A --amp M prints FWD,BWD;\n"
"               tools/capture_torch.py records it between a capture's steps, meta.host_ref): the\n"
"               CPU time of forward() and backward() of hf_host's tiny model of --arch at 3\n"
"               layers (--cnn: ResNet-50 at batch 32, the GPU held). Forward's host costs and the\n"
"               optimizer's are scaled by FWD over the profile's time for that step (its\n"
"               hf_<arch>_rest_tiny + 3 x hf_<arch>_layer_tiny; tv_resnet50_held), backward's by\n"
"               BWD over the profile's: the two threads' speeds move apart. Not with --host-probe\n"
"               or the roofline (it has no host rows).\n"
"--ready-hook-us\n"
"               a hook after every gradient (a post-accumulate-grad hook, on the autograd thread\n"
"               before the next node) costs the host US (after the host's speed is set): backward\n"
"               and the ready times are then a hooked step's, as a capture times its ready curve\n"
"               (tools/capture_torch.py, meta.ready_hook_us). Not with the roofline.\n"
"--clip-grad-norm\n"
"               the step calls torch.nn.utils.clip_grad_norm_(parameters, MAX) before\n"
"               opt.step() (HF Trainer's max_grad_norm, default 1.0 there): the step is priced\n"
"               by the profile's \"<optimizer>_clip\" fit (tools/calib_torch.py --parts optimizer\n"
"               --optimizers adamw_clip,...: measured with the clip inside the step); where the\n"
"               profile has none, one line and exit 65, nothing written. MAX goes into the\n"
"               notes; the time does not depend on it (no host sync). Not with the roofline.\n"
"--ops CSV      also write the priced operations (forward order: device and host times\n"
"               forward and backward, bytes kept for backward, and host_bwd_paths_us: of the\n"
"               backward host time, what the real-size paths add) as CSV. Not with the\n"
"               roofline (it lists no operations).\n"
"--cnn          (--precision autocast-bf16, the default, tf32 or fp32: the recipes captured; not\n"
"               bf16 weights) torchvision's resnet18 or resnet34 (basic blocks), resnet50,\n"
"               resnet101, resnet152,\n"
"               wide_resnet50_2 or wide_resnet101_2 (the bottleneck blocks twice as wide inside),\n"
"               resnext50_32x4d, resnext101_32x8d or resnext101_64x4d, regnet_y_400mf, _800mf,\n"
"               _1_6gf, _3_2gf, _8gf, _16gf, _32gf, _128gf or regnet_x_400mf .. regnet_x_32gf (their\n"
"               grouped 3x3 convolutions from the profile's grouped conv tables of wider groups:\n"
"               tools/calib_torch.py --parts gconv; refused, exit 65, where it has none),\n"
"               vgg11, vgg13, vgg16, vgg19 or their _bn twins (batch norm after each convolution),\n"
"               squeezenet1_0 or squeezenet1_1 (Fire modules: a 1x1 squeeze convolution whose\n"
"               output 1x1 and 3x3 expand convolutions share, their outputs concatenated),\n"
"               densenet121, densenet161, densenet169 or densenet201 (each layer's concatenation\n"
"               of the maps before it a copy, their gradients summed in backward),\n"
"               mobilenet_v2, mobilenet_v3_large, mobilenet_v3_small, efficientnet_b0 ..\n"
"               efficientnet_b7, efficientnet_v2_s, efficientnet_v2_m, efficientnet_v2_l (FusedMBConv\n"
"               stages: dense 3x3 convolutions), mnasnet0_5, mnasnet0_75, mnasnet1_0, mnasnet1_3,\n"
"               shufflenet_v2_x0_5, shufflenet_v2_x1_0, shufflenet_v2_x1_5 or shufflenet_v2_x2_0 (depthwise\n"
"               convolutions from the profile's grouped conv tables, their activations, SE blocks\n"
"               and stochastic depth from its rows: tools/calib_torch.py --parts dwconv,ops_mobile;\n"
"               refused, exit 65, where it has none), convnext_tiny, convnext_small, convnext_base\n"
"               or convnext_large (the 4x4 stem and 2x2 downsampling convolutions from the dense\n"
"               k4s4 and k2s2 tables, the 7x7 depthwise ones from the grouped dw7s1 tables,\n"
"               tools/calib_torch.py --parts conv,dwconv --conv-classes k4s4,k2s2,dw7s1, refused\n"
"               where it has none; LayerNorm, Linear, GELU, the layout copies) at\n"
"               --micro-batch and --image\n"
"               (default 224), channels-last, convolutions priced from the profile's cuDNN tables\n"
"               (else as their implicit GEMMs); SGD with momentum by default. --memory-format\n"
"               nchw: PyTorch's default layout, a training loop that never calls\n"
"               .to(memory_format=torch.channels_last) (torchvision's reference scripts without\n"
"               --channels-last, DDP examples): convolutions, batch norm and max pooling from the\n"
"               profile's NCHW tables (tools/calib_torch.py --parts conv,ops_nchw --conv-format\n"
"               nchw, or tools/derive_nchw.py from another GPU's ratio: the embedded profile's,\n"
"               with a warning), refused (exit 65, naming the table) where it has none; cuDNN\n"
"               runs them up to 3x slower than channels-last. The host total measured on ResNet-50\n"
"               (tv_resnet50_held) scales every operation alike; a block past ResNet-50's in its\n"
"               stage costs the profile's tv_resnet_block_deep row (tools/cnn_depth.py), where it\n"
"               has one; backward()'s own start, its torch_bwd_start rows (tools/bwd_start.py),\n"
"               where it has them, is taken off that total and charged where backward starts.\n"
"--info         summary: tensors, bytes, fwd/bwd/opt, estimated or measured; the table adds the\n"
"               memory breakdown where the file has one, its peak against the GPU memory of\n"
"               --profile (default: the embedded profile), as plan checks it (--tensors: the\n"
"               gradient list instead); json adds the block as \"memory\", as the file holds it\n"
"               (params_bytes, ..., inputs_bytes, workspace_bytes, peak_bytes). NAME is a bundled\n"
"               workload (fusim workload --list).\n"
"--check        validate; exit 0 if good, else one line naming the file and field, exit 65\n"
"               (66 when missing). --strict: ready times out of order and unknown fields are\n"
"               errors (otherwise sorted / ignored with a warning). A ready time after bwd_us\n"
"               is always an error (0.05 us of rounding is forgiven). With --out, writes the\n"
"               checked workload in normal form (\"grads\" in ready order; layers expanded).\n"
"Bundled workloads live in $FUSIM_DATA/workloads, else fusim's own data folder (share/fusim).\n"
"\n";

/* ---- options -------------------------------------------------------------------------------- */

/* --dtype / --grad-dtype: any spelling of a 2-byte float (bf16, half: bf16 compute) or of
 * float (tf32 compute: the first version's fp32); one value for both fields. */
typedef struct fu__dtype_opt {
  int bytes;                 /* bytes per element */
  fu_precision prec;         /* the precision it means */
} fu__dtype_opt;

static int fu__opt_dtype(void *value, const char *arg, char *why, size_t len) {
  fu__dtype_opt *d = value;
  fu_dtype dt;
  int ok = fu_dtype_parse(arg, &dt) == FU_OK;
  if (ok && (dt == FU_DT_BF16 || dt == FU_DT_HALF)) d->bytes = 2, d->prec = FU_PREC_BF16;
  else if (ok && dt == FU_DT_FLOAT) d->bytes = 4, d->prec = FU_PREC_TF32;
  else return snprintf(why, len, "expected bf16, fp16 or fp32 (also bfloat16, half, float16, float, float32)"), FU_EUSAGE;
  return FU_OK;
}

/* a type by its canonical name: --dtype float and --dtype fp32 make one workload */
static const char *fu__canon_dtype(const char *arg, char *buf, size_t len) {
  (void)buf, (void)len;
  return fu_dtype_canon(arg);
}

/* ---- summaries ------------------------------------------------------------------------------ */

static int fu__load_arg(const char *arg, int strict, fu_workload *w) {
  char *path = fu_workload_resolve(arg);
  if (!path) {
    fu_error("%s: no such file, and no bundled workload of that name (see fusim workload --list)", arg);
    fu_workload_init(w);
    return FU_ENOINPUT;
  }
  int st = fu_workload_load(path, strict, w);
  free(path);
  return st;
}

/* ---- the command ---------------------------------------------------------------------------- */

static int fu__opt_prec(void *value, const char *s, char *why, size_t len) {
  fu_precision *p = value;
  if (!strcmp(s, "autocast-bf16") || !strcmp(s, "amp-bf16")) *p = FU_PREC_AUTOCAST;
  else if (!strcmp(s, "bf16")) *p = FU_PREC_BF16;
  else if (!strcmp(s, "tf32")) *p = FU_PREC_TF32;
  else if (!strcmp(s, "fp32")) *p = FU_PREC_FP32;
  else return snprintf(why, len, "expected autocast-bf16, bf16, tf32 or fp32"), FU_EUSAGE;
  return FU_OK;
}

/* --precision amp-bf16 is autocast-bf16: the name the builder gives it */
static const char *fu__canon_prec(const char *arg, char *buf, size_t len) {
  fu_precision p;
  return fu__opt_prec(&p, arg, buf, len) == FU_OK ? fu_precision_name(p) : arg;
}

/* --name, --optimizer: 1 to 127 (15) characters into a char[128] ([16]). */
static int fu__opt_text(char *buf, size_t cap, const char *s, char *why, size_t len) {
  if (!*s || strlen(s) >= cap) return snprintf(why, len, "expected 1 to %zu characters", cap - 1), FU_EUSAGE;
  snprintf(buf, cap, "%s", s);
  return FU_OK;
}

static int fu__opt_name(void *v, const char *s, char *why, size_t len) {
  return fu__opt_text(v, sizeof ((fu_tf_spec *)0)->name, s, why, len);
}

static int fu__opt_optimizer(void *v, const char *s, char *why, size_t len) {
  return fu__opt_text(v, sizeof ((fu_tf_spec *)0)->optimizer, s, why, len);
}

/* The GPU memory (bytes) of the profile named, else of the embedded one: --info's memory lines
 * compare the workload's peak with it, as plan does. */
static int fu__gpu_mem(const char *profile, double *gpu) {
  fu_profile *prof = malloc(sizeof *prof);
  if (!prof) return FU_ENOMEM;
  int st = fu_profile_load_arg("--profile", profile, prof);
  *gpu = st == FU_OK ? prof->gpu_mem_bytes : 0;
  free(prof);
  return st;
}

/* What fusim workload's options hold once read. */
typedef struct fu__wl_opts {
  fu_tf_spec t;              /* --transformer's spec (and the options --cnn shares) */
  fu_cnn_spec cn;            /* --cnn's spec */
  fu_opt_output o;           /* --format */
  fu__dtype_opt dt, gd;      /* --dtype, --grad-dtype */
  int gd_set, transformer, strict, list, tensors, roof, prec_set, optim_set, arch;
  const char *info, *check, *out, *profile, *cnn, *ops_csv; /* the mode's and output's values */
  long image, classes;       /* --image, --classes */
  int seq_set, vocab_set, patch_set, classes_set, image_set, mformat, mformat_set;
} fu__wl_opts;

/* The options that say where the workload goes or which profile prices it, not what is built:
 * left out of a what-if's builder_args (predict and plan price it again with their own). */
static const char *const fu__not_builder[] = {"profile", "out", "ops", "format", "tensors", "strict",
                                              "info", "check", "list", NULL};

/* fu_opt_each: a builder option as its long name and value (in its one spelling, so that one
 * what-if is one workload in the database), onto the array ctx. */
static int fu__record_arg(void *ctx, const fu_option *row, const char *value) {
  for (const char *const *n = fu__not_builder; *n; n++)
    if (!strcmp(row->name, *n)) return FU_OK;
  char opt[64];
  snprintf(opt, sizeof opt, "--%s", row->name);
  if (json_array_append_new(ctx, json_string(opt)) != 0) return FU_ENOMEM;
  if (value && json_array_append_new(ctx, json_string(value)) != 0) return FU_ENOMEM;
  return FU_OK;
}

/* Reads argv into a (set up here); *args (NULL: not wanted) gets the builder's options in the
 * rows' order (fu_opt_each), each once by its long name and its value's one spelling
 * (fu__not_builder left out): what a what-if records to be built again. */
static int fu__wl_parse(fu__wl_opts *a, int argc, char **argv, int *optind, int *done, json_t **args) {
  static const char *const archs[] = {"llama", "bert", "gpt2", "qwen3", "phi3", "olmo2", "vit", "custom", NULL}; /* fu_arch order */
  static const char *const formats[] = {"channels-last", "nchw", NULL};
  memset(a, 0, sizeof *a);
  fu_tf_spec_init(&a->t);
  fu_cnn_spec_init(&a->cn);
  fu_opt_output_init(&a->o);
  a->dt = a->gd = (fu__dtype_opt){2, FU_PREC_BF16};
  a->arch = (int)a->t.arch;
  a->image = 224, a->classes = 1000;
  fu_tf_spec *t = &a->t;
  const fu_option rows[] = {
      FU_OPT_HEADER("what to do (one of)"),
      {FU_OPT_FLAG(0, "transformer", &a->transformer, "a transformer from its hyper-parameters")},
      {FU_OPT_STR(0, "cnn", &a->cnn, "MODEL", "a CNN (resnet18, resnet34, resnet50, resnet101, resnet152,\nwide_resnet50_2, wide_resnet101_2, resnext50_32x4d, resnext101_32x8d/64x4d,\nregnet_y_400mf..128gf, regnet_x_400mf..32gf, vgg11..vgg19[_bn], densenet121..201,\nsqueezenet1_0/1_1, mobilenet_v2, mobilenet_v3_large/small, efficientnet_b0..b7, efficientnet_v2_s/m/l,\nmnasnet0_5..1_3,\nshufflenet_v2_x0_5..x2_0, convnext_tiny/small/base/large)\nat --micro-batch and --image")},
      {FU_OPT_STR(0, "info", &a->info, "FILE|NAME", "summarise a workload (also: a bare FILE|NAME)")},
      {FU_OPT_STR(0, "check", &a->check, "FILE|NAME", "validate a workload")},
      {FU_OPT_FLAG(0, "list", &a->list, "list the bundled workloads")},
      FU_OPT_HEADER("model"),
      {FU_OPT_ENUM(0, "arch", &a->arch, archs, "layer structure and parameter names (default custom)")},
      {FU_OPT_INT(0, "layers", &t->layers, 1, 10000, "L", "transformer layers")},
      {FU_OPT_INT(0, "hidden", &t->hidden, 1, 262144, "H", "hidden size")},
      {FU_OPT_INT(0, "heads", &t->heads, 1, 65536, "A", "attention heads")},
      {FU_OPT_INT(0, "kv-heads", &t->kv_heads, 1, 65536, "K", "key/value heads (default: --heads)")},
      {FU_OPT_INT(0, "head-dim", &t->head_dim, 1, 65536, "D", "a head's size (default: --hidden / --heads; llama,\nqwen3, olmo2, custom)")},
      {FU_OPT_INT(0, "ffn", &t->ffn, 1, 1048576, "F", "feed-forward size")},
      {FU_OPT_INT(0, "vocab", &t->vocab, 1, 4194304, "V", "vocabulary size"), .seen = &a->vocab_set},
      {FU_OPT_INT(0, "seq", &t->seq, 1, 16777216, "S", "sequence length"), .seen = &a->seq_set},
      {FU_OPT_INT(0, "micro-batch", &t->batch, 1, 1048576, "B", "micro-batch")},
      {FU_OPT_INT(0, "image", &a->image, 32, 65536, "PX", "--cnn, --arch vit: input height = width (default 224)"),
       .seen = &a->image_set},
      {FU_OPT_INT(0, "patch", &t->patch, 1, 65536, "P", "--arch vit: patch height = width (default 16)"),
       .seen = &a->patch_set},
      {FU_OPT_INT(0, "classes", &a->classes, 1, 4194304, "C", "--arch vit: classes of its head (default 1000)"),
       .seen = &a->classes_set},
      {FU_OPT_ENUM(0, "memory-format", &a->mformat, formats, "--cnn: channels-last (default) or nchw"),
       .seen = &a->mformat_set},
      {FU_OPT_FLAG(0, "gated-ffn", &t->gated, "custom: gate, up, down as SwiGLU")},
      {FU_OPT_FLAG(0, "bias", &t->bias, "custom: biases")},
      {FU_OPT_FLAG(0, "layernorm", &t->layernorm, "custom: LayerNorm (norms get a bias)")},
      {FU_OPT_FLAG(0, "tied-embeddings", &t->tied, "custom, llama, qwen3, phi3, olmo2: lm head tied\nto the embedding")},
      {FU_OPT_FLAG(0, "qkv-bias", &t->qkv_bias, "llama, qwen3, custom: biases on q, k and v alone\n(Qwen2's attention)")},
      {FU_OPT_DOUBLE(0, "dropout", &t->dropout, 0, 0.99, "P", "dropout probability")},
      FU_OPT_HEADER("training"),
      {FU_OPT_CUSTOM(0, "precision", &t->prec, fu__opt_prec, "P", "autocast-bf16, bf16, tf32 or fp32"),
       .canon = fu__canon_prec, .bad = "fp8", .seen = &a->prec_set},
      {FU_OPT_CUSTOM(0, "dtype", &a->dt, fu__opt_dtype, "D", "bf16|fp16 (bf16 precision) or fp32 (tf32); the\nfirst version's spelling"),
       .canon = fu__canon_dtype, .bad = "fp8"},
      {FU_OPT_CUSTOM(0, "grad-dtype", &a->gd, fu__opt_dtype, "D", "gradients' type (default: from the precision)"),
       .canon = fu__canon_dtype, .bad = "fp8", .seen = &a->gd_set},
      {FU_OPT_CUSTOM(0, "optimizer", t->optimizer, fu__opt_optimizer, "NAME", "adamw, adam or sgd"),
       .bad = "", .seen = &a->optim_set},
      {FU_OPT_DOUBLE(0, "clip-grad-norm", &t->clip_norm, 1e-12, 1e12, "MAX",
                     "the step clips the gradients' total norm first\n(clip_grad_norm_; the profile's <optimizer>_clip fit)")},
      {FU_OPT_INT(0, "accum-steps", &t->accum, 1, 1048576, "K", "gradient accumulation steps")},
      FU_OPT_HEADER("pricing"),
      FU_OPT_ROW_PROFILE(&a->profile),
      {FU_OPT_DOUBLE(0, "tflops", &t->tflops, 1e-6, 1e9, "T", "the first version's roofline at T TFLOP/s")},
      {FU_OPT_DOUBLE(0, "efficiency", &t->efficiency, 1e-6, 1, "E", "roofline: fraction of T reached"), .seen = &a->roof},
      {FU_OPT_DOUBLE(0, "hbm-gbps", &t->hbm_gbps, 1e-6, 1e9, "G", "roofline: memory bandwidth"), .seen = &a->roof},
      {FU_OPT_DOUBLE(0, "kernel-us", &t->kernel_us, 0, 1e6, "U", "roofline: per-kernel floor"), .seen = &a->roof},
      {FU_OPT_DOUBLE(0, "host-probe", &t->host_probe_us, 1e-3, 1e6, "US", "host costs scaled to this host-speed probe")},
      {FU_OPT_DOUBLE(0, "host-probe-bwd", &t->host_bwd_probe_us, 1e-3, 1e6, "US",
                     "backward's host costs scaled to the autograd thread's probe (median)")},
      {FU_OPT_DOUBLE(0, "host-ref-fwd", &t->host_ref_us[0], 1e-3, 1e9, "US", "the reference step's forward CPU time here")},
      {FU_OPT_DOUBLE(0, "host-ref-bwd", &t->host_ref_us[1], 1e-3, 1e9, "US", "the reference step's backward CPU time here")},
      {FU_OPT_DOUBLE(0, "ready-hook-us", &t->ready_hook_us, 0, 1e6, "US", "a hook after every gradient costs the host US")},
      FU_OPT_HEADER("output"),
      {FU_OPT_CUSTOM(0, "name", t->name, fu__opt_name, "N", "workload name"), .bad = ""},
      {FU_OPT_OUT(0, "out", &a->out, "FILE", "write the workload here (default: stdout)")},
      {FU_OPT_OUT(0, "ops", &a->ops_csv, "CSV", "also write the priced operations as CSV")},
      FU_OPT_ROW_FORMAT(&a->o.format),
      {FU_OPT_FLAG(0, "tensors", &a->tensors, "--info: the gradient list too")},
      {FU_OPT_FLAG(0, "strict", &a->strict, "ready times out of order and unknown fields are errors")},
      FU_OPT_END,
  };
  const fu_opt_cmd cmd = {"workload", fu__workload_head, NULL, rows, -1};
  int st = fu_opt_parse(&cmd, argc, argv, optind, done);
  a->t.arch = (fu_arch)a->arch;
  if (st != FU_OK || *done || !args) return st;
  if (!(*args = json_array())) return FU_ENOMEM;
  return fu_opt_each(&cmd, *optind, argv, fu__record_arg, *args);
}

/* The checks between options that no profile changes (one line, FU_EUSAGE), and what follows
 * from them (a ViT's tokens). */
static int fu__wl_check(fu__wl_opts *a) {
  fu_tf_spec *t = &a->t;
  int modes = a->transformer + (a->info != NULL) + (a->check != NULL) + a->list + (a->cnn != NULL);
  const char *why = NULL;
  if (modes != 1) why = "give exactly one of --transformer, --cnn, --info, --check, --list (see --help)";
  else if ((a->patch_set || a->classes_set) && !(a->transformer && t->arch == FU_ARCH_VIT))
    why = "--patch and --classes are --arch vit options";
  else if (a->image_set && !a->cnn && !(a->transformer && t->arch == FU_ARCH_VIT))
    why = "--image is a --cnn and --arch vit option (a language model has no image)";
  else if (a->transformer && t->arch == FU_ARCH_VIT && (a->seq_set || a->vocab_set))
    why = "--arch vit takes --image, --patch and --classes, not --seq or --vocab "
          "(it runs (image / patch)^2 + 1 tokens)";
  else if (a->mformat_set && !a->cnn)
    why = "--memory-format is a --cnn option (a transformer has no image layout)";
  if (why) {
    fu_error("workload: %s", why);
    return FU_EUSAGE;
  }
  if (a->transformer && t->arch == FU_ARCH_VIT) { /* tokens and classes follow the image */
    t->image = a->image;
    t->vocab = a->classes;
    t->seq = fu_vit_seq(t);
  }
  return FU_OK;
}

/* Whether the what-if is priced from the profile's compute tables: a --cnn and a --transformer
 * but for the roofline's, which reads the profile's throughput, bandwidth and kernel floor alone. */
static int fu__wl_tables(const fu__wl_opts *a) { return a->cnn || !(a->t.tflops > 0 || a->roof); }

/* --transformer / --cnn priced with prof (named pname in the notes); the workload records
 * prof and the builder's arguments args (priced_with, a reference taken). */
static int fu__wl_build(fu__wl_opts *a, json_t *args, const fu_profile *prof, const char *pname,
                        fu_workload *w) {
  fu_tf_spec *t = &a->t;
  int st = FU_OK, tables = fu__wl_tables(a);
  fu_workload_init(w);
  if (a->cnn) {
    fu_cnn_spec *cn = &a->cn;
    snprintf(cn->model, sizeof cn->model, "%.31s", a->cnn);
    if (t->batch) cn->batch = t->batch;
    cn->image = a->image;
    cn->nchw = a->mformat == 1;
    if (a->prec_set) cn->prec = t->prec;
    if (a->optim_set) snprintf(cn->optimizer, sizeof cn->optimizer, "%s", t->optimizer);
    cn->accum = t->accum;
    snprintf(cn->name, sizeof cn->name, "%s", t->name);
    cn->ops = t->ops;
    cn->host_probe_us = t->host_probe_us;
    cn->host_bwd_probe_us = t->host_bwd_probe_us;
    cn->host_ref_us[0] = t->host_ref_us[0], cn->host_ref_us[1] = t->host_ref_us[1];
    cn->ready_hook_us = t->ready_hook_us;
    cn->clip_norm = t->clip_norm;
    st = fu_build_cnn(cn, prof, pname, w);
  } else {
    if (!a->prec_set) t->prec = a->dt.prec;
    t->grad_bytes = a->gd_set ? a->gd.bytes : (t->prec == FU_PREC_BF16 ? a->dt.bytes : 4);
    if (a->roof && !(t->tflops > 0)) { /* --efficiency etc. alone: the profile's throughput */
      t->tflops = t->prec == FU_PREC_BF16 || t->prec == FU_PREC_AUTOCAST ? prof->gpu_tflops_bf16 : prof->gpu_tflops_fp32;
      if (!(t->tflops > 0)) {
        fu_error("workload: %s gives no GEMM throughput for the roofline; pass --tflops", pname);
        st = FU_EUSAGE;
      }
    }
    if (st == FU_OK) st = fu_tf_spec_check(t);
    if (st == FU_OK) st = fu_build_transformer(t, prof, pname, w);
  }
  if (st == FU_OK) st = fu_reprice_record(w, prof, args, tables);
  if (st == FU_OK && fu_workload_compute_gpu(w)) /* muted when predict or plan builds it again */
    fu_warn("workload: %s's compute tables were measured on %s, not on its GPU (%s): this what-if's "
            "compute is %s's (fit --out took them from its base)", pname, fu_workload_compute_gpu(w),
            prof->gpu, fu_workload_compute_gpu(w));
  return st;
}

int fu_workload_build_args(const json_t *args, const fu_profile *prof, const char *pname, fu_workload *w,
                           int *no_tables) {
  size_t n = json_array_size(args);
  char **argv = calloc(n + 2, sizeof *argv);
  if (!argv) return FU_ENOMEM;
  argv[0] = "workload";
  for (size_t i = 0; i < n; i++) argv[i + 1] = (char *)json_string_value(json_array_get(args, i));
  fu__wl_opts a;
  json_t *again = NULL;
  int optind, done;
  int st = fu__wl_parse(&a, (int)n + 1, argv, &optind, &done, &again);
  if (st == FU_OK && (done || optind <= (int)n || !(a.transformer || a.cnn))) {
    fu_error("workload: builder_args: not the arguments of a --transformer or --cnn what-if");
    st = FU_EDATA;
  }
  if (st == FU_OK) st = fu__wl_check(&a);
  if (no_tables) *no_tables = st == FU_OK && fu__wl_tables(&a) && !fu_builder_has_tables(prof);
  if (st == FU_OK && !(no_tables && *no_tables)) st = fu__wl_build(&a, again, prof, pname, w);
  else fu_workload_init(w);
  json_decref(again);
  free(argv);
  return st == FU_EUSAGE ? FU_EDATA : st; /* what the file holds is wrong, not the command line */
}

int fu_cmd_workload(int argc, char **argv) {
  fu__wl_opts a;
  json_t *args = NULL;
  int optind, done;
  int st = fu__wl_parse(&a, argc, argv, &optind, &done, &args);
  if (st != FU_OK || done) {
    json_decref(args);
    return fu_exit_code(st);
  }
  fu_format fmt = a.o.format;
  const char *info = a.info, *check = a.check, *out = a.out, *profile = a.profile, *ops_csv = a.ops_csv;
  /* A bare argument is --info. */
  if (optind < argc && !info && !check && !a.transformer && !a.list && !a.cnn && optind + 1 == argc) info = argv[optind++];
  a.info = info;
  if (optind < argc) {
    fu_error("workload: unexpected argument '%s'; see fusim workload --help", argv[optind]);
    st = FU_EUSAGE;
  }
  if (st == FU_OK) st = fu__wl_check(&a);
  if (st != FU_OK) {
    json_decref(args);
    return fu_exit_code(st);
  }
  int info_mem = info && fmt == FU_FORMAT_TABLE && !a.tensors; /* --info's table: the memory lines */
  if (!a.transformer && !a.cnn && (ops_csv || (profile && !info_mem))) /* kept working, but never silently */
    fu_warn("workload: --profile and --ops price a generated workload (--transformer, --cnn; "
            "--info's table: --profile's GPU memory); ignored here");
  if (a.list || check || info) json_decref(args);
  if (a.list) return fu_exit_code(fu_wlinfo_list(fmt));
  if (check || info) {
    fu_workload w;
    st = fu__load_arg(check ? check : info, a.strict, &w);
    if (st == FU_OK) {
      if (check) {
        char b[32];
        uint64_t tb = fu_workload_total_bytes(&w);
        if (out) st = fu_workload_save(out, &w); /* normalised: grads form, ready order */
        if (st == FU_OK && !(out && strcmp(out, "-") == 0))
          printf("%s: ok: %zu tensors, %llu bytes (%s), fwd %.1f us, bwd %.1f us, %s\n", w.source,
                 w.ngrads, (unsigned long long)tb, fu_format_size(tb, b, sizeof b), w.fwd_us,
                 w.bwd_us, w.estimated ? "estimated" : "measured");
      } else {
        int mem = info_mem && w.mem.peak > 0;
        double gpu = 0;
        if (mem) st = fu__gpu_mem(profile, &gpu);
        if (st == FU_OK) st = fu_wlinfo_print(&w, fmt, a.tensors);
        if (st == FU_OK && mem) fu_wlinfo_print_mem(&w.mem, gpu);
      }
    }
    fu_workload_finish(&w);
    return fu_exit_code(st);
  }
  /* --transformer / --cnn: the profile prices them */
  fu_profile *prof = malloc(sizeof *prof);
  if (!prof) {
    json_decref(args);
    return fu_exit_code(FU_ENOMEM);
  }
  const char *pname = profile ? profile : FU_PROFILE_EMBEDDED_LABEL;
  st = fu_profile_load_arg("--profile", profile, prof);
  /* --ops is committed only once the workload passed its checks (fu_workload_savable), just
     before it is saved: a refused workload leaves it as it was */
  fu_outfile ops = {0};
  if (st == FU_OK && ops_csv) st = fu_outfile_open(&ops, ops_csv);
  if (st != FU_OK) {
    json_decref(args);
    free(prof);
    return fu_exit_code(st);
  }
  a.t.ops = ops_csv ? &ops : NULL;
  fu_workload w;
  st = fu__wl_build(&a, args, prof, pname, &w);
  json_decref(args);
  if (st == FU_OK) st = fu_workload_savable(out ? out : "-", &w);
  if (ops_csv) {
    if (st == FU_OK) st = fu_outfile_commit(&ops);
    else fu_outfile_abort(&ops);
  }
  if (st == FU_OK) st = fu_workload_save(out ? out : "-", &w);
  if (st == FU_OK && out) {
    snprintf(w.source, sizeof w.source, "%s", out);
    st = fu_wlinfo_print(&w, fmt, 0);
    if (st == FU_OK && fmt == FU_FORMAT_TABLE && w.mem.peak > 0) fu_wlinfo_print_mem(&w.mem, prof->gpu_mem_bytes);
  }
  fu_workload_finish(&w);
  free(prof);
  return fu_exit_code(st);
}
