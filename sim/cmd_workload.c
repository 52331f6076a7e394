/* cmd_workload.c: fusim workload: make a workload from a transformer's hyper-parameters
 * (--transformer), summarise one (--info), validate one (--check) or list the bundled ones.
 *
 * The transformer model (the same rule tools/gen_workloads.py uses for the bundled files):
 *   tokens T = micro-batch * seq; a = bytes per activation element (dtype); Hkv = H*K/A.
 *   Forward operations, in order, with their parameters (HF Llama names):
 *     embed           bytes 2*T*H*a                           model.embed_tokens.weight [V*H]
 *     per layer i:
 *       input norm    bytes 4*T*H*a (residual add + norm)     input_layernorm.weight [H] (+bias)
 *       q, k, v, o    flops 2*T*din*dout, bytes (T*din + T*dout + din*dout)*a   *_proj.weight (+bias)
 *       attention     flops 4*B*S^2*H (QK^T and PV, no causal saving), bytes T*(2H + 2Hkv)*a
 *       post norm     as input norm                           post_attention_layernorm
 *       ffn           gated: gate, up (H->F), act bytes 3*T*F*a, down (F->H);
 *                     plain: up, act bytes 2*T*F*a, down
 *     final norm      as above                                model.norm.weight
 *     lm head         flops 2*T*H*V, bytes (T*H + T*V + H*V)*a  lm_head.weight [V*H] (unless tied)
 *     loss            bytes 3*T*V*4 (fp32 softmax cross-entropy), 2 kernels
 *   Forward FLOPs are therefore 2 * (matrix parameters) * T plus 4*B*S^2*H per layer.
 *   Time of an operation: max(flops / (TFLOPS * efficiency), bytes / HBM, kernels * kernel_us);
 *   backward is 2x forward (FLOPs, bytes and kernels), runs the operations in reverse, and a
 *   gradient is ready when its operation's backward ends (within an operation: weight, then
 *   bias, the order tools/capture_torch.py measured). Optimizer (AdamW, one fused pass at HBM
 *   speed): per param, read the gradient (g bytes) + read and write fp32 master, m and v (24 B)
 *   + write a low precision copy (a bytes) when the dtype is not fp32.
 * With --tflops 989.4 --efficiency 0.5 --hbm-gbps 3840 --kernel-us 5 and Llama-2-7B's
 * hyper-parameters it reproduces data/workloads/llama2_7b.json. */
#include <dirent.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"
#include "fu_paths.h"
#include "fu_profile.h"
#include "fu_workload.h"

#define FU__DEFAULT_HBM_GBPS 3840.0 /* 80% of the H200's 4.8 TB/s datasheet bandwidth */
#define FU__DEFAULT_KERNEL_US 5.0   /* eager PyTorch host cost per op, as tools/gen_workloads.py */

static void fu__usage(FILE *out) {
  fprintf(out,
"usage: fusim workload --transformer --layers L --hidden H --heads A [--kv-heads K] --ffn F\n"
"                      --vocab V --seq S --micro-batch B [--dtype bf16|fp16|fp32]\n"
"                      [--grad-dtype bf16|fp16|fp32] [--tflops T] [--profile P.json]\n"
"                      [--efficiency E] [--hbm-gbps G] [--kernel-us U] [--gated-ffn] [--bias]\n"
"                      [--layernorm] [--tied-embeddings] [--accum-steps K] [--name N]\n"
"                      [--out FILE] [--format table|csv|json]\n"
"       fusim workload --info FILE|NAME [--tensors] [--strict] [--format table|csv|json]\n"
"       fusim workload --check FILE|NAME [--strict] [--out FILE]\n"
"       fusim workload --list [--format table|csv|json]\n"
"\n"
"--transformer  turn a transformer's hyper-parameters into a workload (format fusim-workload-1)\n"
"               written to --out (default: stdout; with --out a summary is printed instead).\n"
"               Parameters per layer: q,k,v,o projections (k,v: hidden*kv-heads/heads wide),\n"
"               ffn (--gated-ffn: gate, up, down as SwiGLU; else up, down), two norms; plus the\n"
"               embedding, a final norm and the lm head. Default style is Llama's: no biases,\n"
"               RMSNorm (weight only), untied lm head; --bias, --layernorm (norms get a bias),\n"
"               --tied-embeddings change that. Names follow HF Llama (model.layers.N...).\n"
"               Forward FLOPs: 2*matrix params*tokens + 4*micro-batch*seq^2*hidden per layer;\n"
"               backward 2x forward. Per operation time = max(flops/(T*E), bytes/HBM,\n"
"               kernels*U). T: --tflops, else the profile's measured gpu_tflops_bf16 (bf16,\n"
"               fp16) or gpu_tflops_fp32 (fp32); the profile is --profile or the embedded\n"
"               default. E: --efficiency (default 1: T is already an achieved rate; pass\n"
"               --tflops 989.4 --efficiency 0.5 for half the H200 datasheet peak). HBM:\n"
"               --hbm-gbps, else the profile's hbm_gbps, else %.0f GB/s. U: --kernel-us,\n"
"               else the profile's launch_us, else %.0f us. --dtype sets activations and,\n"
"               unless --grad-dtype, gradients (default bf16). The result is marked estimated.\n"
"--info         summary: tensors, bytes, fwd/bwd/opt, estimated or measured (--tensors: the\n"
"               gradient list). NAME is a bundled workload (fusim workload --list).\n"
"--check        validate; exit 0 if good, else one line naming the file and field, exit 65\n"
"               (66 when missing). --strict: ready times out of order and unknown fields are\n"
"               errors (otherwise sorted / ignored with a warning). A ready time after bwd_us\n"
"               is always an error (0.05 us of rounding is forgiven). With --out, writes the\n"
"               checked workload in normal form (\"grads\" in ready order; layers expanded).\n"
"Bundled workloads live in $FUSIM_DATA/workloads, else fusim's own data folder (share/fusim).\n",
          FU__DEFAULT_HBM_GBPS, FU__DEFAULT_KERNEL_US);
}

/* ---- options -------------------------------------------------------------------------------- */

typedef struct fu__tf_opts {
  long layers, hidden, heads, kv_heads, ffn, vocab, seq, batch; /* hyper-parameters */
  int act_bytes;             /* bytes per activation element */
  int grad_bytes;            /* bytes per gradient element */
  int fp32;                  /* 1: use the fp32 throughput */
  double tflops;             /* --tflops (0 = from the profile) */
  double efficiency;         /* fraction of tflops the operations reach */
  double hbm_gbps;           /* --hbm-gbps (0 = from the profile) */
  double kernel_us;          /* --kernel-us (< 0 = from the profile) */
  int gated, bias, layernorm, tied; /* architecture switches */
  long accum;                /* accum_steps */
  const char *profile;       /* --profile path or NULL */
  const char *name;          /* --name or NULL */
} fu__tf_opts;

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

static int fu__opt_dtype(const char *opt, const char *s, int *bytes, int *fp32) {
  if (strcmp(s, "bf16") == 0 || strcmp(s, "fp16") == 0) *bytes = 2, *fp32 = 0;
  else if (strcmp(s, "fp32") == 0) *bytes = 4, *fp32 = 1;
  else {
    fu_error("workload: --%s: expected bf16, fp16 or fp32, got '%s'", opt, s);
    return FU_EUSAGE;
  }
  return FU_OK;
}

/* ---- the transformer model ------------------------------------------------------------------ */

typedef struct fu__op {
  double flops;              /* forward FLOPs */
  double bytes;              /* forward HBM bytes */
  int kernels;               /* forward kernels */
  int nparams;               /* parameters it owns (0..2) */
  char pname[2][128];        /* parameter names, module order (weight, bias) */
  uint64_t numel[2];         /* their element counts */
} fu__op;

typedef struct fu__oplist {
  fu__op *ops;               /* forward order (malloc'd) */
  size_t n, cap;             /* used, allocated */
} fu__oplist;

static fu__op *fu__push(fu__oplist *l, double flops, double bytes, int kernels) {
  if (l->n == l->cap) {
    size_t nc = l->cap ? 2 * l->cap : 64;
    fu__op *p = realloc(l->ops, nc * sizeof *p);
    if (!p) return NULL;
    l->ops = p;
    l->cap = nc;
  }
  fu__op *o = &l->ops[l->n++];
  memset(o, 0, sizeof *o);
  o->flops = flops;
  o->bytes = bytes;
  o->kernels = kernels;
  return o;
}

static void fu__param(fu__op *o, const char *name, const char *suffix, uint64_t numel) {
  snprintf(o->pname[o->nparams], sizeof o->pname[0], "%s%s", name, suffix);
  o->numel[o->nparams++] = numel;
}

/* Builds the forward operations. O(layers). */
static int fu__tf_ops(const fu__tf_opts *t, fu__oplist *l) {
  double T = (double)t->batch * t->seq, a = t->act_bytes, H = t->hidden, F = t->ffn;
  double V = t->vocab, Hkv = (double)t->hidden * t->kv_heads / t->heads;
  char nm[100];
  fu__op *o;
#define FU__PUSH(fl, by, k) \
  if (!(o = fu__push(l, (fl), (by), (k)))) return FU_ENOMEM
#define FU__NORM(name)                                       \
  do {                                                       \
    FU__PUSH(0, 4 * T * H * a, 1);                           \
    fu__param(o, name, ".weight", (uint64_t)H);              \
    if (t->layernorm) fu__param(o, name, ".bias", (uint64_t)H); \
  } while (0)
#define FU__LIN(name, din, dout)                                              \
  do {                                                                        \
    FU__PUSH(2 * T * (din) * (dout), (T * (din) + T * (dout) + (din) * (dout)) * a, 1); \
    fu__param(o, name, ".weight", (uint64_t)(din) * (uint64_t)(dout));        \
    if (t->bias) fu__param(o, name, ".bias", (uint64_t)(dout));               \
  } while (0)

  FU__PUSH(0, 2 * T * H * a, 1);
  fu__param(o, "model.embed_tokens", ".weight", (uint64_t)(V * H));
  for (long i = 0; i < t->layers; i++) {
    char p[64];
    snprintf(p, sizeof p, "model.layers.%ld.", i);
#define FU__NAME(s) (snprintf(nm, sizeof nm, "%s%s", p, s), nm)
    FU__NORM(FU__NAME("input_layernorm"));
    FU__LIN(FU__NAME("self_attn.q_proj"), H, H);
    FU__LIN(FU__NAME("self_attn.k_proj"), H, Hkv);
    FU__LIN(FU__NAME("self_attn.v_proj"), H, Hkv);
    FU__PUSH(4 * (double)t->batch * t->seq * t->seq * H, T * (2 * H + 2 * Hkv) * a, 1);
    FU__LIN(FU__NAME("self_attn.o_proj"), H, H);
    FU__NORM(FU__NAME("post_attention_layernorm"));
    if (t->gated) {
      FU__LIN(FU__NAME("mlp.gate_proj"), H, F);
      FU__LIN(FU__NAME("mlp.up_proj"), H, F);
      FU__PUSH(0, 3 * T * F * a, 1);
    } else {
      FU__LIN(FU__NAME("mlp.up_proj"), H, F);
      FU__PUSH(0, 2 * T * F * a, 1);
    }
    FU__LIN(FU__NAME("mlp.down_proj"), F, H);
#undef FU__NAME
  }
  FU__NORM("model.norm");
  FU__PUSH(2 * T * H * V, (T * H + T * V + H * V) * a, 1);
  if (!t->tied) fu__param(o, "lm_head", ".weight", (uint64_t)(V * H)); /* tied: the embedding's */
  FU__PUSH(0, 3 * T * V * 4, 2);
#undef FU__PUSH
#undef FU__NORM
#undef FU__LIN
  return FU_OK;
}

static double fu__op_us(const fu__op *o, double mult, double flops_per_us, double bytes_per_us,
                        double kernel_us) {
  double tm = o->flops * mult / flops_per_us, tb = o->bytes * mult / bytes_per_us;
  double tk = o->kernels * mult * kernel_us;
  double t = tm > tb ? tm : tb;
  return t > tk ? t : tk;
}

/* The achieved rates: throughput from --tflops or the profile, HBM and kernel floor likewise. */
static int fu__tf_rates(fu__tf_opts *t, char *src, size_t srclen) {
  fu_profile *prof = malloc(sizeof *prof);
  if (!prof) return FU_ENOMEM;
  int have_prof = 0;
  if (t->profile) {
    int st = fu_profile_load(t->profile, prof);
    if (st != FU_OK) {
      free(prof);
      return st;
    }
    have_prof = 1;
  } else if (fu_profile_load_default(prof) == FU_OK) {
    have_prof = 1;
  }
  const char *pname = t->profile ? t->profile : "the embedded default profile";
  char tsrc[160];
  if (t->tflops > 0) {
    snprintf(tsrc, sizeof tsrc, "--tflops %g", t->tflops);
  } else {
    double v = have_prof ? (t->fp32 ? prof->gpu_tflops_fp32 : prof->gpu_tflops_bf16) : 0;
    if (!(v > 0)) {
      fu_error("workload: %s gives no %s throughput; pass --tflops", pname,
               t->fp32 ? "gpu_tflops_fp32" : "gpu_tflops_bf16");
      free(prof);
      return FU_EUSAGE;
    }
    t->tflops = v;
    snprintf(tsrc, sizeof tsrc, "%s from %s (%g TFLOP/s)",
             t->fp32 ? "gpu_tflops_fp32" : "gpu_tflops_bf16", pname, v);
  }
  if (!(t->hbm_gbps > 0))
    t->hbm_gbps = have_prof && prof->hbm_gbps > 0 ? prof->hbm_gbps : FU__DEFAULT_HBM_GBPS;
  if (t->kernel_us < 0)
    t->kernel_us = have_prof && prof->launch_us > 0 ? prof->launch_us : FU__DEFAULT_KERNEL_US;
  snprintf(src, srclen, "%s", tsrc);
  free(prof);
  return FU_OK;
}

static int fu__tf_build(fu__tf_opts *t, fu_workload *w, char *notes, size_t nlen) {
  char src[200];
  FU_CHECK(fu__tf_rates(t, src, sizeof src));
  fu__oplist l = {0};
  int st = fu__tf_ops(t, &l);
  if (st != FU_OK) {
    free(l.ops);
    return st;
  }
  double fps = t->tflops * t->efficiency * 1e6; /* FLOPs per microsecond */
  double bps = t->hbm_gbps * 1e3;                /* bytes per microsecond */
  size_t ngrads = 0;
  double fwd = 0, fwd_flops = 0;
  uint64_t nparam = 0;
  for (size_t i = 0; i < l.n; i++) {
    ngrads += (size_t)l.ops[i].nparams;
    fwd += fu__op_us(&l.ops[i], 1, fps, bps, t->kernel_us);
    fwd_flops += l.ops[i].flops;
    for (int k = 0; k < l.ops[i].nparams; k++) nparam += l.ops[i].numel[k];
  }
  fu_workload_init(w);
  w->grads = calloc(ngrads, sizeof *w->grads);
  if (!w->grads) {
    free(l.ops);
    return FU_ENOMEM;
  }
  double tb = 0;
  for (size_t i = l.n; i-- > 0;) {
    const fu__op *o = &l.ops[i];
    tb += fu__op_us(o, 2, fps, bps, t->kernel_us);
    for (int k = 0; k < o->nparams; k++) {
      fu_grad *g = &w->grads[w->ngrads];
      if (!(g->name = strdup(o->pname[k]))) {
        free(l.ops);
        fu_workload_finish(w);
        return FU_ENOMEM;
      }
      w->ngrads++;
      g->bytes = o->numel[k] * (uint64_t)t->grad_bytes;
      g->ready_us = tb;
    }
  }
  free(l.ops);
  w->fwd_us = fwd;
  w->bwd_us = tb;
  double opt_bytes = t->grad_bytes + 24.0 + (t->act_bytes < 4 ? t->act_bytes : 0);
  w->opt_us = (double)nparam * opt_bytes / bps;
  w->accum_steps = (int)t->accum;
  w->estimated = 1;
  if (t->name) snprintf(w->name, sizeof w->name, "%s", t->name);
  else
    snprintf(w->name, sizeof w->name, "transformer_l%ld_h%ld_s%ld_b%ld", t->layers, t->hidden,
             t->seq, t->batch);
  snprintf(notes, nlen,
           "ESTIMATE from fusim workload --transformer: %ld layers, hidden %ld, %ld heads (%ld kv), "
           "ffn %ld%s, vocab %ld, seq %ld, micro-batch %ld, %d-byte activations, %d-byte gradients, "
           "%s%s%s; %llu params, %.4g forward TFLOP. Per operation t = max(flops/(%g TFLOP/s x %g), "
           "bytes/%g GB/s, kernels x %g us); throughput %s; backward 2x forward (FLOPs, bytes, "
           "kernels), in reverse; a gradient is ready when its operation's backward ends; "
           "attention 4*B*S^2*H per layer; opt_us: fused AdamW at HBM speed (%g B/param).",
           t->layers, t->hidden, t->heads, t->kv_heads, t->ffn, t->gated ? " gated" : "",
           t->vocab, t->seq, t->batch, t->act_bytes, t->grad_bytes,
           t->bias ? "biases" : "no biases", t->layernorm ? ", LayerNorm" : ", RMSNorm",
           t->tied ? ", tied embeddings" : ", untied lm head", (unsigned long long)nparam,
           fwd_flops / 1e12, t->tflops, t->efficiency, t->hbm_gbps, t->kernel_us, src, opt_bytes);
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
  O_NAME, O_OUT, O_FORMAT, O_INFO, O_CHECK, O_STRICT, O_LIST, O_TENSORS, O_HELP
};

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
      {0, 0, 0, 0}};
  fu__tf_opts t = {0};
  t.efficiency = 1.0;
  t.kernel_us = -1;
  t.accum = 1;
  t.act_bytes = 2;
  int gd_set = 0, gd_bytes = 2, gd_fp32 = 0, transformer = 0, strict = 0, list = 0, tensors = 0;
  const char *info = NULL, *check = NULL, *out = NULL;
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
    case O_DTYPE: st = fu__opt_dtype("dtype", optarg, &t.act_bytes, &t.fp32); break;
    case O_GDTYPE: st = fu__opt_dtype("grad-dtype", optarg, &gd_bytes, &gd_fp32); gd_set = 1; break;
    case O_TFLOPS: st = fu__opt_double("tflops", optarg, 1e-6, 1e9, &t.tflops); break;
    case O_PROFILE: t.profile = optarg; break;
    case O_EFF: st = fu__opt_double("efficiency", optarg, 1e-6, 1, &t.efficiency); break;
    case O_HBM: st = fu__opt_double("hbm-gbps", optarg, 1e-6, 1e9, &t.hbm_gbps); break;
    case O_KERNEL: st = fu__opt_double("kernel-us", optarg, 0, 1e6, &t.kernel_us); break;
    case O_GATED: t.gated = 1; break;
    case O_BIAS: t.bias = 1; break;
    case O_LN: t.layernorm = 1; break;
    case O_TIED: t.tied = 1; break;
    case O_ACCUM: st = fu__opt_long("accum-steps", optarg, 1, 1048576, &t.accum); break;
    case O_NAME:
      if (strlen(optarg) == 0 || strlen(optarg) >= 128) {
        fu_error("workload: --name: expected 1 to 127 characters");
        st = FU_EUSAGE;
      }
      t.name = optarg;
      break;
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
  if (optind < argc && !info && !check && !transformer && !list && optind + 1 == argc) info = argv[optind++];
  if (optind < argc) {
    fu_error("workload: unexpected argument '%s'; see fusim workload --help", argv[optind]);
    return fu_exit_code(FU_EUSAGE);
  }
  int modes = transformer + (info != NULL) + (check != NULL) + list;
  if (modes != 1) {
    fu_error("workload: give exactly one of --transformer, --info, --check, --list (see --help)");
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
  /* --transformer */
  static const struct {
    const char *opt;
    size_t off;
  } need[] = {{"layers", offsetof(fu__tf_opts, layers)}, {"hidden", offsetof(fu__tf_opts, hidden)},
              {"heads", offsetof(fu__tf_opts, heads)},   {"ffn", offsetof(fu__tf_opts, ffn)},
              {"vocab", offsetof(fu__tf_opts, vocab)},   {"seq", offsetof(fu__tf_opts, seq)},
              {"micro-batch", offsetof(fu__tf_opts, batch)}};
  for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
    if (*(const long *)((const char *)&t + need[i].off) == 0) {
      fu_error("workload: --transformer needs --%s", need[i].opt);
      return fu_exit_code(FU_EUSAGE);
    }
  }
  if (t.kv_heads == 0) t.kv_heads = t.heads;
  if (t.hidden % t.heads != 0) {
    fu_error("workload: --hidden %ld is not a multiple of --heads %ld", t.hidden, t.heads);
    return fu_exit_code(FU_EUSAGE);
  }
  if (t.kv_heads > t.heads || t.heads % t.kv_heads != 0) {
    fu_error("workload: --kv-heads %ld does not divide --heads %ld", t.kv_heads, t.heads);
    return fu_exit_code(FU_EUSAGE);
  }
  t.grad_bytes = gd_set ? gd_bytes : t.act_bytes;
  (void)gd_fp32;
  fu_workload w;
  fu_workload_init(&w);
  char notes[1536];
  st = fu__tf_build(&t, &w, notes, sizeof notes);
  if (st == FU_OK && !(w.notes = strdup(notes))) st = FU_ENOMEM;
  if (st == FU_OK) st = fu_workload_save(out ? out : "-", &w);
  if (st == FU_OK && out) {
    snprintf(w.source, sizeof w.source, "%s", out);
    st = fu__info(&w, fmt, 0);
  }
  fu_workload_finish(&w);
  return fu_exit_code(st);
}
