/* cmd_workload.c: fusim workload: make a workload from a model's hyper-parameters
 * (--transformer, --cnn; the model lives in fu_builder.c), summarise one (--info), validate one
 * (--check) or list the bundled ones. */
#include <dirent.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_builder.h"
#include "fu_common.h"
#include "fu_paths.h"
#include "fu_profile.h"
#include "fu_workload.h"


static void fu__usage(FILE *out) {
  fprintf(out,
"usage: fusim workload --transformer --layers L --hidden H --heads A [--kv-heads K] --ffn F\n"
"                      --vocab V --seq S --micro-batch B [--arch llama|bert|gpt2|custom]\n"
"                      [--precision autocast-bf16|bf16|tf32|fp32] [--dtype bf16|fp16|fp32]\n"
"                      [--grad-dtype bf16|fp16|fp32] [--optimizer adamw|adam|sgd] [--dropout P]\n"
"                      [--profile P.json] [--gated-ffn] [--bias] [--layernorm] [--tied-embeddings]\n"
"                      [--tflops T [--efficiency E] [--hbm-gbps G] [--kernel-us U]]\n"
"                      [--accum-steps K] [--name N] [--ops CSV] [--out FILE] [--format table|csv|json]\n"
"       fusim workload --cnn resnet50 --micro-batch B [--image PX] [--precision P]\n"
"                      [--optimizer sgd|adamw|adam] [--profile P.json] [--name N] [--out FILE]\n"
"       fusim workload --info FILE|NAME [--tensors] [--strict] [--format table|csv|json]\n"
"       fusim workload --check FILE|NAME [--strict] [--out FILE]\n"
"       fusim workload --list [--format table|csv|json]\n"
"\n"
"--transformer  turn a transformer's hyper-parameters into a workload (format fusim-workload-1)\n"
"               written to --out (default: stdout; with --out a summary and the memory breakdown\n"
"               are printed instead). --arch picks the layer structure and parameter names as\n"
"               Hugging Face builds them: llama (LlamaForCausalLM: RMSNorm, SwiGLU, rotary, no\n"
"               biases, untied head), bert (BertForMaskedLM: post-LayerNorm, GELU, biases, MLM\n"
"               head tied to the embedding), gpt2 (GPT2LMHeadModel: fused c_attn, gelu_new, tied\n"
"               head); custom (default) is the first version's Llama names with the switches\n"
"               --gated-ffn, --bias, --layernorm, --tied-embeddings.\n"
"               Each operation PyTorch runs is priced from the profile's compute tables (fusim\n"
"               calib --suite gemm's cuBLAS shape sweep for the GEMMs of forward, input and weight\n"
"               gradients; tools/calib_torch.py for SDPA attention, the memory-bound operations by\n"
"               element count, the host's cost to issue each, and the optimizer step); a host\n"
"               timeline and a GPU timeline run them, so a step whose kernels are shorter than\n"
"               their issue cost is host-bound. --precision: autocast-bf16 (fp32 parameters, bf16\n"
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
"--ops CSV      also write the priced operations (forward order: device and host times\n"
"               forward and backward, bytes kept for backward) as CSV.\n"
"--cnn          torchvision's resnet50 at --micro-batch and --image (default 224), channels-last,\n"
"               convolutions priced as their implicit GEMMs; SGD with momentum by default.\n"
"--info         summary: tensors, bytes, fwd/bwd/opt, memory, estimated or measured (--tensors:\n"
"               the gradient list). NAME is a bundled workload (fusim workload --list).\n"
"--check        validate; exit 0 if good, else one line naming the file and field, exit 65\n"
"               (66 when missing). --strict: ready times out of order and unknown fields are\n"
"               errors (otherwise sorted / ignored with a warning). A ready time after bwd_us\n"
"               is always an error (0.05 us of rounding is forgiven). With --out, writes the\n"
"               checked workload in normal form (\"grads\" in ready order; layers expanded).\n"
"Bundled workloads live in $FUSIM_DATA/workloads, else fusim's own data folder (share/fusim).\n");
}

/* ---- options -------------------------------------------------------------------------------- */

static int fu__opt_long(const char *opt, const char *s, long lo, long hi, long *out) {
  if (fu_parse_long(s, lo, hi, out) != FU_OK) {
    fu_error("workload: --%s: expected an integer from %ld to %ld, got '%s'", opt, lo, hi, s);
    return FU_EUSAGE;
  }
  return FU_OK;
}

static int fu__opt_double(const char *opt, const char *s, double lo, double hi, double *out) {
  if (fu_parse_double(s, out) != FU_OK || *out < lo || *out > hi) {
    fu_error("workload: --%s: expected a number from %g to %g, got '%s'", opt, lo, hi, s);
    return FU_EUSAGE;
  }
  return FU_OK;
}

static int fu__opt_dtype(const char *opt, const char *s, int *bytes, fu_precision *prec) {
  if (strcmp(s, "bf16") == 0 || strcmp(s, "fp16") == 0) *bytes = 2, *prec = FU_PREC_BF16;
  else if (strcmp(s, "fp32") == 0) *bytes = 4, *prec = FU_PREC_TF32;
  else {
    fu_error("workload: --%s: expected bf16, fp16 or fp32, got '%s'", opt, s);
    return FU_EUSAGE;
  }
  return FU_OK;
}

/* ---- summaries ------------------------------------------------------------------------------ */

static int fu__info(const fu_workload *w, fu_format fmt, int tensors) {
  uint64_t total = fu_workload_total_bytes(w), mn = UINT64_MAX, mx = 0;
  for (size_t i = 0; i < w->ngrads; i++) {
    if (w->grads[i].bytes < mn) mn = w->grads[i].bytes;
    if (w->grads[i].bytes > mx) mx = w->grads[i].bytes;
  }
  double first = w->ngrads ? w->grads[0].ready_us : 0;
  double last = w->ngrads ? w->grads[w->ngrads - 1].ready_us : 0;
  const char *kind = w->estimated ? "estimated" : "measured";
  if (fmt == FU_FORMAT_JSON) {
    json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:f, s:f, s:f, s:i, s:f, s:f, s:I, s:I, s:f, s:f}",
                          "name", w->name, "source", w->source, "kind", kind,
                          "tensors", (json_int_t)w->ngrads, "total_bytes", (json_int_t)total,
                          "fwd_us", w->fwd_us, "bwd_us", w->bwd_us, "opt_us", w->opt_us,
                          "accum_steps", w->accum_steps, "hook_us", w->hook_us,
                          "issue_us", w->issue_us, "min_tensor_bytes", (json_int_t)mn,
                          "max_tensor_bytes", (json_int_t)mx, "first_ready_us", first,
                          "last_ready_us", last);
    if (!o) return FU_ENOMEM;
    if (tensors) {
      json_t *arr = json_array();
      for (size_t i = 0; arr && i < w->ngrads; i++)
        json_array_append_new(arr, json_pack("{s:s, s:I, s:f}", "name", w->grads[i].name, "bytes",
                                             (json_int_t)w->grads[i].bytes, "ready_us",
                                             w->grads[i].ready_us));
      if (!arr) {
        json_decref(o);
        return FU_ENOMEM;
      }
      json_object_set_new(o, "grads", arr);
    }
    int st = json_dumpf(o, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    json_decref(o);
    fputc('\n', stdout);
    return st == 0 ? FU_OK : FU_EIO;
  }
  if (fmt == FU_FORMAT_CSV) {
    if (tensors) {
      printf("index,name,bytes,ready_us\n");
      for (size_t i = 0; i < w->ngrads; i++) {
        printf("%zu,", i);
        fu_csv_field(stdout, w->grads[i].name);
        printf(",%llu,%.6f\n", (unsigned long long)w->grads[i].bytes, w->grads[i].ready_us);
      }
      return FU_OK;
    }
    printf("name,source,kind,tensors,total_bytes,fwd_us,bwd_us,opt_us,accum_steps,hook_us,issue_us,"
           "min_tensor_bytes,max_tensor_bytes,first_ready_us,last_ready_us\n");
    fu_csv_field(stdout, w->name);
    putchar(',');
    fu_csv_field(stdout, w->source);
    printf(",%s,%zu,%llu,%.6f,%.6f,%.6f,%d,%.6g,%.6g,%llu,%llu,%.6f,%.6f\n", kind, w->ngrads, (unsigned long long)total, w->fwd_us, w->bwd_us, w->opt_us,
           w->accum_steps, w->hook_us, w->issue_us, (unsigned long long)mn,
           (unsigned long long)mx, first, last);
    return FU_OK;
  }
  char b1[32], b2[32], b3[32];
  printf("%-18s %s\n", "workload", w->name);
  printf("%-18s %s\n", "source", w->source[0] ? w->source : "-");
  printf("%-18s %s\n", "times", w->estimated ? "estimated (roofline, see the file's notes)" : "measured");
  printf("%-18s %zu\n", "tensors", w->ngrads);
  printf("%-18s %llu (%s)\n", "total bytes", (unsigned long long)total, fu_format_size(total, b1, sizeof b1));
  printf("%-18s %s .. %s\n", "tensor sizes", fu_format_size(mn, b2, sizeof b2), fu_format_size(mx, b3, sizeof b3));
  printf("%-18s %.1f\n", "fwd_us", w->fwd_us);
  printf("%-18s %.1f\n", "bwd_us", w->bwd_us);
  printf("%-18s %.1f\n", "opt_us", w->opt_us);
  printf("%-18s %d\n", "accum_steps", w->accum_steps);
  printf("%-18s %.3g / %.3g\n", "host hook/issue us", w->hook_us, w->issue_us);
  printf("%-18s %.1f .. %.1f\n", "ready_us", first, last);
  if (tensors) {
    printf("\n%6s  %-60s %14s %12s\n", "index", "name", "bytes", "ready_us");
    for (size_t i = 0; i < w->ngrads; i++)
      printf("%6zu  %-60s %14llu %12.1f\n", i, w->grads[i].name,
             (unsigned long long)w->grads[i].bytes, w->grads[i].ready_us);
  }
  return FU_OK;
}

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

/* Bundled workloads: *.json in the first data folder of fu_paths_data_dirs ($FUSIM_DATA, else
 * fusim's own: share/fusim in an install, data/ beside a build folder). */
static int fu__list(fu_format fmt) {
  char dirs[FU_DATA_NDIRS][FU_PATH_MAX];
  fu_paths_data_dirs(dirs);
  const char *dir = NULL;
  for (int d = 0; d < FU_DATA_NDIRS && !dir; d++)
    if (*dirs[d]) dir = dirs[d];
  if (!dir) {
    fu_error("workload: no data folder found beside this fusim; set FUSIM_DATA");
    return FU_ENOINPUT;
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/workloads", dir);
  struct dirent **ents;
  int n = scandir(path, &ents, NULL, alphasort);
  if (n < 0) {
    fu_error("%s: cannot list the bundled workloads", path);
    return FU_ENOINPUT;
  }
  json_t *arr = fmt == FU_FORMAT_JSON ? json_array() : NULL;
  if (fmt == FU_FORMAT_CSV) printf("name,file,tensors,total_bytes,kind\n");
  else if (fmt == FU_FORMAT_TABLE) printf("%-20s %8s %16s  %-9s %s\n", "name", "tensors", "bytes", "times", "workload");
  for (int i = 0; i < n; i++) {
    const char *f = ents[i]->d_name;
    size_t len = strlen(f);
    if (len > 5 && strcmp(f + len - 5, ".json") == 0) {
      char full[2048], base[256];
      snprintf(full, sizeof full, "%s/%s", path, f);
      snprintf(base, sizeof base, "%.*s", (int)(len - 5), f);
      fu_workload w;
      if (fu_workload_load(full, 0, &w) == FU_OK) {
        unsigned long long tb = (unsigned long long)fu_workload_total_bytes(&w);
        const char *kind = w.estimated ? "estimated" : "measured";
        if (arr)
          json_array_append_new(arr, json_pack("{s:s, s:s, s:I, s:I, s:s}", "name", base, "file", full,
                                               "tensors", (json_int_t)w.ngrads, "total_bytes",
                                               (json_int_t)tb, "kind", kind));
        else if (fmt == FU_FORMAT_CSV) {
          fu_csv_field(stdout, base);
          putchar(',');
          fu_csv_field(stdout, full);
          printf(",%zu,%llu,%s\n", w.ngrads, tb, kind);
        } else {
          printf("%-20s %8zu %16llu  %-9s %s\n", base, w.ngrads, tb, kind, w.name);
        }
      }
      fu_workload_finish(&w);
    }
    free(ents[i]);
  }
  free(ents);
  if (arr) {
    json_dumpf(arr, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
    json_decref(arr);
  }
  return FU_OK;
}

/* ---- the command ---------------------------------------------------------------------------- */

enum {
  O_TRANSFORMER = 256, O_LAYERS, O_HIDDEN, O_HEADS, O_KV, O_FFN, O_VOCAB, O_SEQ, O_BATCH, O_DTYPE,
  O_GDTYPE, O_TFLOPS, O_PROFILE, O_EFF, O_HBM, O_KERNEL, O_GATED, O_BIAS, O_LN, O_TIED, O_ACCUM,
  O_NAME, O_OUT, O_FORMAT, O_INFO, O_CHECK, O_STRICT, O_LIST, O_TENSORS, O_HELP, O_ARCH, O_PREC,
  O_OPTIM, O_DROPOUT, O_CNN, O_IMAGE, O_OPS
};

static int fu__opt_prec(const char *s, fu_precision *p) {
  if (!strcmp(s, "autocast-bf16") || !strcmp(s, "amp-bf16")) *p = FU_PREC_AUTOCAST;
  else if (!strcmp(s, "bf16")) *p = FU_PREC_BF16;
  else if (!strcmp(s, "tf32")) *p = FU_PREC_TF32;
  else if (!strcmp(s, "fp32")) *p = FU_PREC_FP32;
  else {
    fu_error("workload: --precision: expected autocast-bf16, bf16, tf32 or fp32, got '%s'", s);
    return FU_EUSAGE;
  }
  return FU_OK;
}

static int fu__opt_arch(const char *s, fu_arch *a) {
  if (!strcmp(s, "llama")) *a = FU_ARCH_LLAMA;
  else if (!strcmp(s, "bert")) *a = FU_ARCH_BERT;
  else if (!strcmp(s, "gpt2")) *a = FU_ARCH_GPT2;
  else if (!strcmp(s, "custom")) *a = FU_ARCH_CUSTOM;
  else {
    fu_error("workload: --arch: expected llama, bert, gpt2 or custom, got '%s'", s);
    return FU_EUSAGE;
  }
  return FU_OK;
}

static int fu__opt_name(const char *opt, const char *s, char *buf, size_t len) {
  if (!*s || strlen(s) >= len) {
    fu_error("workload: --%s: expected 1 to %zu characters", opt, len - 1);
    return FU_EUSAGE;
  }
  snprintf(buf, len, "%s", s);
  return FU_OK;
}

/* The memory breakdown against the GPU's memory (table format only). */
static void fu__print_mem(const fu_mem *m, double gpu) {
  char b[32];
  printf("%-18s", "memory");
  const double v[] = {m->params, m->grads, m->optimizer, m->casts, m->activations, m->transient};
  const char *const k[] = {"params", "grads", "optimizer", "casts", "activations", "transient"};
  for (int i = 0; i < 6; i++)
    printf("%s %s %s", i ? "," : "", k[i], fu_format_size((uint64_t)v[i], b, sizeof b));
  printf("\n%-18s %s", "memory peak", fu_format_size((uint64_t)m->peak, b, sizeof b));
  if (gpu > 0) {
    char g[32];
    fu_format_size((uint64_t)gpu, g, sizeof g);
    if (m->peak <= gpu) printf(" of %s: fits (%.0f%%)\n", g, 100.0 * m->peak / gpu);
    else printf(" of %s: DOES NOT FIT, %s over\n", g, fu_format_size((uint64_t)(m->peak - gpu), b, sizeof b));
  } else {
    printf(" (the profile gives no GPU memory)\n");
  }
}

int fu_cmd_workload(int argc, char **argv) {
  static const struct option opts[] = {
      {"transformer", no_argument, 0, O_TRANSFORMER}, {"layers", required_argument, 0, O_LAYERS},
      {"hidden", required_argument, 0, O_HIDDEN},     {"heads", required_argument, 0, O_HEADS},
      {"kv-heads", required_argument, 0, O_KV},       {"ffn", required_argument, 0, O_FFN},
      {"vocab", required_argument, 0, O_VOCAB},       {"seq", required_argument, 0, O_SEQ},
      {"micro-batch", required_argument, 0, O_BATCH}, {"dtype", required_argument, 0, O_DTYPE},
      {"grad-dtype", required_argument, 0, O_GDTYPE}, {"tflops", required_argument, 0, O_TFLOPS},
      {"profile", required_argument, 0, O_PROFILE},   {"efficiency", required_argument, 0, O_EFF},
      {"hbm-gbps", required_argument, 0, O_HBM},      {"kernel-us", required_argument, 0, O_KERNEL},
      {"gated-ffn", no_argument, 0, O_GATED},         {"bias", no_argument, 0, O_BIAS},
      {"layernorm", no_argument, 0, O_LN},            {"tied-embeddings", no_argument, 0, O_TIED},
      {"accum-steps", required_argument, 0, O_ACCUM}, {"name", required_argument, 0, O_NAME},
      {"out", required_argument, 0, O_OUT},           {"format", required_argument, 0, O_FORMAT},
      {"info", required_argument, 0, O_INFO},         {"check", required_argument, 0, O_CHECK},
      {"strict", no_argument, 0, O_STRICT},           {"list", no_argument, 0, O_LIST},
      {"tensors", no_argument, 0, O_TENSORS},         {"help", no_argument, 0, O_HELP},
      {"arch", required_argument, 0, O_ARCH},         {"precision", required_argument, 0, O_PREC},
      {"optimizer", required_argument, 0, O_OPTIM},   {"dropout", required_argument, 0, O_DROPOUT},
      {"cnn", required_argument, 0, O_CNN},           {"image", required_argument, 0, O_IMAGE},
      {"ops", required_argument, 0, O_OPS},
      {0, 0, 0, 0}};
  fu_tf_spec t;
  fu_tf_spec_init(&t);
  fu_cnn_spec cn;
  fu_cnn_spec_init(&cn);
  int gd_set = 0, gd_bytes = 2, transformer = 0, strict = 0, list = 0, tensors = 0, roof = 0;
  int prec_set = 0, optim_set = 0, dt_bytes = 2;
  fu_precision dt_prec = FU_PREC_BF16, gd_prec;
  const char *info = NULL, *check = NULL, *out = NULL, *profile = NULL, *cnn = NULL;
  long image = 224;
  fu_format fmt = FU_FORMAT_TABLE;
  int c, st = FU_OK;
  optind = 1;
  opterr = 0;
  while (st == FU_OK && (c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
    case O_TRANSFORMER: transformer = 1; break;
    case O_LAYERS: st = fu__opt_long("layers", optarg, 1, 10000, &t.layers); break;
    case O_HIDDEN: st = fu__opt_long("hidden", optarg, 1, 262144, &t.hidden); break;
    case O_HEADS: st = fu__opt_long("heads", optarg, 1, 65536, &t.heads); break;
    case O_KV: st = fu__opt_long("kv-heads", optarg, 1, 65536, &t.kv_heads); break;
    case O_FFN: st = fu__opt_long("ffn", optarg, 1, 1048576, &t.ffn); break;
    case O_VOCAB: st = fu__opt_long("vocab", optarg, 1, 4194304, &t.vocab); break;
    case O_SEQ: st = fu__opt_long("seq", optarg, 1, 16777216, &t.seq); break;
    case O_BATCH: st = fu__opt_long("micro-batch", optarg, 1, 1048576, &t.batch); break;
    case O_DTYPE: st = fu__opt_dtype("dtype", optarg, &dt_bytes, &dt_prec); break;
    case O_GDTYPE: st = fu__opt_dtype("grad-dtype", optarg, &gd_bytes, &gd_prec); gd_set = 1; break;
    case O_TFLOPS: st = fu__opt_double("tflops", optarg, 1e-6, 1e9, &t.tflops); break;
    case O_PROFILE: profile = optarg; break;
    case O_EFF: st = fu__opt_double("efficiency", optarg, 1e-6, 1, &t.efficiency); roof = 1; break;
    case O_HBM: st = fu__opt_double("hbm-gbps", optarg, 1e-6, 1e9, &t.hbm_gbps); roof = 1; break;
    case O_KERNEL: st = fu__opt_double("kernel-us", optarg, 0, 1e6, &t.kernel_us); roof = 1; break;
    case O_GATED: t.gated = 1; break;
    case O_BIAS: t.bias = 1; break;
    case O_LN: t.layernorm = 1; break;
    case O_TIED: t.tied = 1; break;
    case O_ACCUM: st = fu__opt_long("accum-steps", optarg, 1, 1048576, &t.accum); break;
    case O_NAME: st = fu__opt_name("name", optarg, t.name, sizeof t.name); break;
    case O_OUT: out = optarg; break;
    case O_FORMAT:
      if (fu_parse_format(optarg, &fmt) != FU_OK) {
        fu_error("workload: --format: expected table, csv or json, got '%s'", optarg);
        st = FU_EUSAGE;
      }
      break;
    case O_INFO: info = optarg; break;
    case O_CHECK: check = optarg; break;
    case O_STRICT: strict = 1; break;
    case O_LIST: list = 1; break;
    case O_TENSORS: tensors = 1; break;
    case O_ARCH: st = fu__opt_arch(optarg, &t.arch); break;
    case O_PREC: st = fu__opt_prec(optarg, &t.prec); prec_set = 1; break;
    case O_OPTIM: st = fu__opt_name("optimizer", optarg, t.optimizer, sizeof t.optimizer); optim_set = 1; break;
    case O_DROPOUT: st = fu__opt_double("dropout", optarg, 0, 0.99, &t.dropout); break;
    case O_CNN: cnn = optarg; break;
    case O_IMAGE: st = fu__opt_long("image", optarg, 32, 65536, &image); break;
    case O_OPS: t.ops_csv = optarg; break;
    case 'h':
    case O_HELP: fu__usage(stdout); return 0;
    default:
      if (optopt >= O_TRANSFORMER || optopt == 0)
        fu_error("workload: option '%s' is unknown or lacks its value; see fusim workload --help",
                 argv[optind - 1]);
      else
        fu_error("workload: option '-%c' is unknown; see fusim workload --help", optopt);
      st = FU_EUSAGE;
    }
  }
  if (st != FU_OK) return fu_exit_code(st);
  /* A bare argument is --info. */
  if (optind < argc && !info && !check && !transformer && !list && !cnn && optind + 1 == argc) info = argv[optind++];
  if (optind < argc) {
    fu_error("workload: unexpected argument '%s'; see fusim workload --help", argv[optind]);
    return fu_exit_code(FU_EUSAGE);
  }
  int modes = transformer + (info != NULL) + (check != NULL) + list + (cnn != NULL);
  if (modes != 1) {
    fu_error("workload: give exactly one of --transformer, --cnn, --info, --check, --list (see --help)");
    return fu_exit_code(FU_EUSAGE);
  }
  if (list) return fu_exit_code(fu__list(fmt));
  if (check || info) {
    fu_workload w;
    st = fu__load_arg(check ? check : info, strict, &w);
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
        st = fu__info(&w, fmt, tensors);
      }
    }
    fu_workload_finish(&w);
    return fu_exit_code(st);
  }
  /* --transformer / --cnn: the profile prices them */
  fu_profile *prof = malloc(sizeof *prof);
  if (!prof) return fu_exit_code(FU_ENOMEM);
  const char *pname = profile ? profile : "h200-default (embedded)";
  st = profile ? fu_profile_load(profile, prof) : fu_profile_load_default(prof);
  if (st != FU_OK) {
    free(prof);
    return fu_exit_code(st);
  }
  fu_workload w;
  fu_workload_init(&w);
  if (cnn) {
    snprintf(cn.model, sizeof cn.model, "%.31s", cnn);
    if (t.batch) cn.batch = t.batch;
    cn.image = image;
    if (prec_set) cn.prec = t.prec;
    if (optim_set) snprintf(cn.optimizer, sizeof cn.optimizer, "%s", t.optimizer);
    cn.accum = t.accum;
    snprintf(cn.name, sizeof cn.name, "%s", t.name);
    cn.ops_csv = t.ops_csv;
    st = fu_build_cnn(&cn, prof, pname, &w);
  } else {
    if (!prec_set) t.prec = dt_prec;
    t.grad_bytes = gd_set ? gd_bytes : (t.prec == FU_PREC_BF16 ? dt_bytes : 4);
    if (roof && !(t.tflops > 0)) { /* --efficiency etc. alone: the profile's throughput */
      t.tflops = t.prec == FU_PREC_BF16 || t.prec == FU_PREC_AUTOCAST ? prof->gpu_tflops_bf16 : prof->gpu_tflops_fp32;
      if (!(t.tflops > 0)) {
        fu_error("workload: %s gives no GEMM throughput for the roofline; pass --tflops", pname);
        st = FU_EUSAGE;
      }
    }
    if (st == FU_OK) st = fu_tf_spec_check(&t);
    if (st == FU_OK) st = fu_build_transformer(&t, prof, pname, &w);
  }
  if (st == FU_OK) st = fu_workload_save(out ? out : "-", &w);
  if (st == FU_OK && out) {
    snprintf(w.source, sizeof w.source, "%s", out);
    st = fu__info(&w, fmt, 0);
    if (st == FU_OK && fmt == FU_FORMAT_TABLE && w.mem.peak > 0) fu__print_mem(&w.mem, prof->gpu_mem_bytes);
  }
  fu_workload_finish(&w);
  free(prof);
  return fu_exit_code(st);
}
