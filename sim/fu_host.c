/* fu_host.c: reading and writing the workload's host block, version 2 (see fu_host.h). */
#include "fu_host.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"

#define FU__HOST_MAX_US 1e12 /* as fu_workload's times */

void fu_host_init(fu_host *h) { memset(h, 0, sizeof *h); }

void fu_host_finish(fu_host *h) {
  if (!h) return;
  free(h->fwd_cpu);
  free(h->fwd_gpu);
  fu_host_init(h);
}

/* A number in [lo, hi] under key; `need` makes a missing key an error, else *out stays. */
static int fu__hnum(const json_t *obj, const char *key, const char *what, const char *prefix,
                    int need, double lo, double hi, double *out) {
  const json_t *v = json_object_get(obj, key);
  if (!v) {
    if (!need) return FU_OK;
    fu_error("%s: host.%s%s: missing", what, prefix, key);
    return FU_EDATA;
  }
  double d = json_is_number(v) ? json_number_value(v) : NAN;
  if (!isfinite(d) || d < lo || d > hi) {
    fu_error("%s: host.%s%s: not a number from %g to %g", what, prefix, key, lo, hi);
    return FU_EDATA;
  }
  *out = d;
  return FU_OK;
}

/* An optional whole number from 0 to 1e9 under key; a missing key leaves *out. */
static int fu__hint(const json_t *obj, const char *key, const char *what, int *out) {
  double d = *out;
  FU_CHECK(fu__hnum(obj, key, what, "", 0, 0, 1e9, &d));
  if (d != floor(d)) {
    fu_error("%s: host.%s: not a whole number", what, key);
    return FU_EDATA;
  }
  *out = (int)d;
  return FU_OK;
}

/* An array of n times (>= 0) under key into out. */
static int fu__harr(const json_t *obj, const char *key, const char *what, size_t n, double *out) {
  const json_t *a = json_object_get(obj, key);
  if (!json_is_array(a) || json_array_size(a) != n) {
    fu_error("%s: host.%s: not an array of %zu times (one per gradient)", what, key, n);
    return FU_EDATA;
  }
  for (size_t i = 0; i < n; i++) {
    const json_t *v = json_array_get(a, i);
    double d = json_is_number(v) ? json_number_value(v) : NAN;
    if (!isfinite(d) || d < 0 || d > FU__HOST_MAX_US) {
      fu_error("%s: host.%s[%zu]: not a time from 0 to %g us", what, key, i, FU__HOST_MAX_US);
      return FU_EDATA;
    }
    out[i] = d;
  }
  return FU_OK;
}

#define FU__DDP(k) {#k, offsetof(fu_host_ddp, k)}
#define FU__HOOKS(k) {#k, offsetof(fu_host_hooks, k)}
static const fu_host_cost FU__DDP_COSTS[] = {FU__DDP(param_us),    FU__DDP(copy_us),
                                             FU__DDP(bucket_us),   FU__DDP(hook_bucket_us),
                                             FU__DDP(finalize_us), FU__DDP(forward_us),
                                             FU__DDP(buffer_us),   FU__DDP(broadcast_us)};
static const fu_host_cost FU__HOOKS_COSTS[] = {FU__HOOKS(hook_us), FU__HOOKS(bucket_us),
                                               FU__HOOKS(noop_hook_us)};
#define FU__NDDP (sizeof FU__DDP_COSTS / sizeof FU__DDP_COSTS[0])
#define FU__NHOOKS (sizeof FU__HOOKS_COSTS / sizeof FU__HOOKS_COSTS[0])

const fu_host_cost *fu_host_ddp_costs(size_t *n) {
  *n = FU__NDDP;
  return FU__DDP_COSTS;
}

const fu_host_cost *fu_host_hooks_costs(size_t *n) {
  *n = FU__NHOOKS;
  return FU__HOOKS_COSTS;
}

double *fu_host_cost_at(void *costs, size_t off) { return (double *)((char *)costs + off); }

/* host.ci.<grp>: {cost: [lo, hi]} into lo / hi (which start as the costs' values); each pair
 * must hold 0 <= lo <= hi. */
static int fu__ci(const json_t *ci, const char *grp, const fu_host_cost *costs, size_t n,
                  const char *what, void *lo, void *hi) {
  const json_t *g = json_object_get(ci, grp);
  if (!g) return FU_OK;
  if (!json_is_object(g)) {
    fu_error("%s: host.ci.%s: not an object", what, grp);
    return FU_EDATA;
  }
  const char *key;
  const json_t *v;
  json_object_foreach((json_t *)g, key, v) {
    size_t k = 0;
    while (k < n && strcmp(costs[k].key, key) != 0) k++;
    double a = NAN, b = NAN;
    if (json_is_array(v) && json_array_size(v) == 2 && json_is_number(json_array_get(v, 0)) &&
        json_is_number(json_array_get(v, 1)))
      a = json_number_value(json_array_get(v, 0)), b = json_number_value(json_array_get(v, 1));
    if (k == n || !isfinite(a) || !isfinite(b) || a < 0 || b < a || b > FU__HOST_MAX_US) {
      fu_error("%s: host.ci.%s.%s: not a known cost with bounds [lo, hi], 0 <= lo <= hi", what,
               grp, key);
      return FU_EDATA;
    }
    *fu_host_cost_at(lo, costs[k].off) = a;
    *fu_host_cost_at(hi, costs[k].off) = b;
  }
  return FU_OK;
}

static json_t *fu__ci_json(const fu_host_cost *costs, size_t n, const void *lo, const void *hi) {
  json_t *o = json_object();
  for (size_t k = 0; o && k < n; k++)
    if (json_object_set_new(o, costs[k].key,
                            json_pack("[f, f]", *fu_host_cost_at((void *)lo, costs[k].off),
                                      *fu_host_cost_at((void *)hi, costs[k].off))) != 0) {
      json_decref(o);
      return NULL;
    }
  return o;
}

static int fu__obj(const json_t *host, const char *key, const char *what, const json_t **out) {
  *out = json_object_get(host, key);
  if (*out && !json_is_object(*out)) {
    fu_error("%s: host.%s: not an object", what, key);
    return FU_EDATA;
  }
  return FU_OK;
}

/* host.issue_spacing.<key>: 1 to FU_HOST_SPACING_MAX points [apart_us, us], apart_us > 0 and
 * increasing, us >= 0; a missing key leaves sp empty. */
static int fu__spacing(const json_t *isp, const char *key, const char *what, fu_host_spacing *sp) {
  const json_t *a = json_object_get(isp, key);
  if (!a) return FU_OK;
  size_t n = json_is_array(a) ? json_array_size(a) : 0;
  if (n < 1 || n > FU_HOST_SPACING_MAX) {
    fu_error("%s: host.issue_spacing.%s: not an array of 1 to %d points [apart_us, us]", what,
             key, FU_HOST_SPACING_MAX);
    return FU_EDATA;
  }
  for (size_t i = 0; i < n; i++) {
    const json_t *pt = json_array_get(a, i);
    double x = NAN, y = NAN;
    if (json_is_array(pt) && json_array_size(pt) == 2 && json_is_number(json_array_get(pt, 0)) &&
        json_is_number(json_array_get(pt, 1)))
      x = json_number_value(json_array_get(pt, 0)), y = json_number_value(json_array_get(pt, 1));
    if (!isfinite(x) || !isfinite(y) || x <= (i ? sp->apart_us[i - 1] : 0) || y < 0 ||
        x > FU__HOST_MAX_US || y > FU__HOST_MAX_US) {
      fu_error("%s: host.issue_spacing.%s[%zu]: not a point [apart_us, us] with apart_us above "
               "the point before's (and 0) and us >= 0", what, key, i);
      return FU_EDATA;
    }
    sp->apart_us[i] = x;
    sp->us[i] = y;
  }
  sp->n = n;
  return FU_OK;
}

static json_t *fu__spacing_json(const fu_host_spacing *sp) {
  json_t *a = json_array();
  for (size_t i = 0; a && i < sp->n; i++)
    if (json_array_append_new(a, json_pack("[f, f]", sp->apart_us[i], sp->us[i])) != 0) {
      json_decref(a);
      return NULL;
    }
  return a;
}

int fu_host_parse(const json_t *obj, const char *what, size_t ngrads, fu_host *h,
                  double *grad_cpu, double *grad_gpu) {
  fu_host_init(h);
  const json_t *ver = json_object_get(obj, "version");
  if (!json_is_integer(ver) || json_integer_value(ver) != FU_HOST_VERSION) {
    fu_error("%s: host.version: not %d (this fusim reads host blocks of version %d, or the older "
             "{\"hook_us\", \"issue_us\"})", what, FU_HOST_VERSION, FU_HOST_VERSION);
    return FU_EDATA;
  }
  h->version = FU_HOST_VERSION;
  const double T = FU__HOST_MAX_US;
  FU_CHECK(fu__hnum(obj, "fwd_cpu_us", what, "", 1, 0, T, &h->fwd_cpu_us));
  FU_CHECK(fu__hnum(obj, "bwd_cpu_us", what, "", 1, 0, T, &h->bwd_cpu_us));
  FU_CHECK(fu__hnum(obj, "opt_cpu_us", what, "", 1, 0, T, &h->opt_cpu_us));
  FU_CHECK(fu__hnum(obj, "fwd_gpu_us", what, "", 1, 0, T, &h->fwd_gpu_us));
  FU_CHECK(fu__hnum(obj, "bwd_gpu_us", what, "", 1, 0, T, &h->bwd_gpu_us));
  FU_CHECK(fu__hnum(obj, "opt_gpu_us", what, "", 1, 0, T, &h->opt_gpu_us));
  FU_CHECK(fu__harr(obj, "grad_cpu_us", what, ngrads, grad_cpu));
  FU_CHECK(fu__harr(obj, "grad_gpu_us", what, ngrads, grad_gpu));
  for (size_t i = 0; i < ngrads; i++) /* as a ready_us past bwd_us: rounding alone forgiven */
    if (grad_gpu[i] > h->bwd_gpu_us + 0.05) {
      fu_error("%s: host.grad_gpu_us[%zu]: %g is after the end of backward on the GPU "
               "(host.bwd_gpu_us %g)", what, i, grad_gpu[i], h->bwd_gpu_us);
      return FU_EDATA;
    }
  FU_CHECK(fu__hint(obj, "buffers", what, &h->buffers));
  FU_CHECK(fu__hnum(obj, "copy_gbps", what, "", 0, 0, 1e6, &h->copy_gbps));
  FU_CHECK(fu__hnum(obj, "kernel_us", what, "", 0, 0, 1e6, &h->kernel_us));
  FU_CHECK(fu__hint(obj, "queue_depth", what, &h->queue_depth));
  const json_t *l;
  FU_CHECK(fu__obj(obj, "launches", what, &l));
  if (l) {
    FU_CHECK(fu__hnum(l, "fwd", what, "launches.", 1, 0, 1e12, &h->launches_fwd));
    FU_CHECK(fu__hnum(l, "bwd", what, "launches.", 1, 0, 1e12, &h->launches_bwd));
    FU_CHECK(fu__hnum(l, "opt", what, "launches.", 1, 0, 1e12, &h->launches_opt));
  }
  if (h->queue_depth > 0 && !l) {
    fu_error("%s: host.queue_depth: given without host.launches {fwd, bwd, opt}", what);
    return FU_EDATA;
  }
  const json_t *fp = json_object_get(obj, "fwd_points");
  if (fp) {
    if (!json_is_array(fp)) {
      fu_error("%s: host.fwd_points: not an array of [cpu_us, gpu_us] pairs", what);
      return FU_EDATA;
    }
    size_t n = json_array_size(fp);
    h->fwd_cpu = calloc(n ? n : 1, sizeof *h->fwd_cpu);
    h->fwd_gpu = calloc(n ? n : 1, sizeof *h->fwd_gpu);
    if (!h->fwd_cpu || !h->fwd_gpu) return FU_ENOMEM;
    h->nfwd = n;
    for (size_t i = 0; i < n; i++) {
      const json_t *pt = json_array_get(fp, i);
      double c = NAN, g = NAN;
      if (json_is_array(pt) && json_array_size(pt) == 2) {
        c = json_is_number(json_array_get(pt, 0)) ? json_number_value(json_array_get(pt, 0)) : NAN;
        g = json_is_number(json_array_get(pt, 1)) ? json_number_value(json_array_get(pt, 1)) : NAN;
      }
      if (!isfinite(c) || !isfinite(g) || c < 0 || g < 0 || c > T || g > T) {
        fu_error("%s: host.fwd_points[%zu]: not a pair of times [cpu_us, gpu_us]", what, i);
        return FU_EDATA;
      }
      h->fwd_cpu[i] = c;
      h->fwd_gpu[i] = g;
    }
  }
  const json_t *j, *d, *k;
  FU_CHECK(fu__obj(obj, "jitter", what, &j));
  if (j) {
    FU_CHECK(fu__hnum(j, "step_rel_lo", what, "jitter.", 0, -1, 0, &h->step_rel_lo));
    FU_CHECK(fu__hnum(j, "step_rel_hi", what, "jitter.", 0, 0, 10, &h->step_rel_hi));
    FU_CHECK(fu__hnum(j, "host_rel_lo", what, "jitter.", 0, -1, 0, &h->host_rel_lo));
    FU_CHECK(fu__hnum(j, "host_rel_hi", what, "jitter.", 0, 0, 10, &h->host_rel_hi));
    /* older blocks lack the frameworks' own spread: their costs vary as backward()'s CPU time */
    h->fw_rel_lo = h->host_rel_lo;
    h->fw_rel_hi = h->host_rel_hi;
    FU_CHECK(fu__hnum(j, "fw_rel_lo", what, "jitter.", 0, -1, 0, &h->fw_rel_lo));
    FU_CHECK(fu__hnum(j, "fw_rel_hi", what, "jitter.", 0, 0, 10, &h->fw_rel_hi));
    FU_CHECK(fu__hnum(j, "model_rel", what, "jitter.", 0, 0, 1, &h->model_rel));
  }
  FU_CHECK(fu__obj(obj, "ddp", what, &d));
  if (d) {
    h->has_ddp = 1;
    FU_CHECK(fu__hnum(d, "param_us", what, "ddp.", 1, 0, T, &h->ddp.param_us));
    FU_CHECK(fu__hnum(d, "copy_us", what, "ddp.", 1, 0, T, &h->ddp.copy_us));
    FU_CHECK(fu__hnum(d, "bucket_us", what, "ddp.", 1, 0, T, &h->ddp.bucket_us));
    FU_CHECK(fu__hnum(d, "hook_bucket_us", what, "ddp.", 1, 0, T, &h->ddp.hook_bucket_us));
    FU_CHECK(fu__hnum(d, "finalize_us", what, "ddp.", 1, 0, T, &h->ddp.finalize_us));
    FU_CHECK(fu__hnum(d, "forward_us", what, "ddp.", 1, 0, T, &h->ddp.forward_us));
    FU_CHECK(fu__hnum(d, "buffer_us", what, "ddp.", 1, 0, T, &h->ddp.buffer_us));
    FU_CHECK(fu__hnum(d, "broadcast_us", what, "ddp.", 0, 0, T, &h->ddp.broadcast_us));
  }
  FU_CHECK(fu__obj(obj, "hooks", what, &k));
  if (k) {
    h->has_hooks = 1;
    FU_CHECK(fu__hnum(k, "hook_us", what, "hooks.", 1, 0, T, &h->hooks.hook_us));
    FU_CHECK(fu__hnum(k, "bucket_us", what, "hooks.", 1, 0, T, &h->hooks.bucket_us));
    FU_CHECK(fu__hnum(k, "noop_hook_us", what, "hooks.", 0, 0, T, &h->hooks.noop_hook_us));
  }
  const json_t *bd;
  FU_CHECK(fu__obj(obj, "beside_d2h", what, &bd));
  if (bd) {
    FU_CHECK(fu__hnum(bd, "compute", what, "beside_d2h.", 0, 1, 10, &h->d2h_compute));
  }
  const json_t *isp;
  FU_CHECK(fu__obj(obj, "issue_spacing", what, &isp));
  if (isp) {
    FU_CHECK(fu__spacing(isp, "hooks", what, &h->sp_hooks));
    FU_CHECK(fu__spacing(isp, "ddp_offload", what, &h->sp_offload));
    FU_CHECK(fu__spacing(isp, "ddp", what, &h->sp_ddp));
  }
  h->ddp_lo = h->ddp_hi = h->ddp;
  h->hooks_lo = h->hooks_hi = h->hooks;
  const json_t *ci;
  FU_CHECK(fu__obj(obj, "ci", what, &ci));
  if (ci) {
    h->has_ci = 1;
    FU_CHECK(fu__ci(ci, "ddp", FU__DDP_COSTS, FU__NDDP, what, &h->ddp_lo, &h->ddp_hi));
    FU_CHECK(fu__ci(ci, "hooks", FU__HOOKS_COSTS, FU__NHOOKS, what, &h->hooks_lo, &h->hooks_hi));
  }
  return FU_OK;
}

static int fu__put(json_t *o, const char *key, json_t *v) {
  return v && json_object_set_new(o, key, v) == 0 ? FU_OK : FU_ENOMEM;
}

json_t *fu_host_to_json(const fu_host *h, size_t ngrads, const double *grad_cpu,
                        const double *grad_gpu) {
  json_t *o = json_object(), *gc = json_array(), *gg = json_array(), *fp = json_array();
  int st = o && gc && gg && fp ? FU_OK : FU_ENOMEM;
  if (st == FU_OK) st = fu__put(o, "version", json_integer(FU_HOST_VERSION));
  if (st == FU_OK) st = fu__put(o, "fwd_cpu_us", json_real(h->fwd_cpu_us));
  if (st == FU_OK) st = fu__put(o, "bwd_cpu_us", json_real(h->bwd_cpu_us));
  if (st == FU_OK) st = fu__put(o, "opt_cpu_us", json_real(h->opt_cpu_us));
  if (st == FU_OK) st = fu__put(o, "fwd_gpu_us", json_real(h->fwd_gpu_us));
  if (st == FU_OK) st = fu__put(o, "bwd_gpu_us", json_real(h->bwd_gpu_us));
  if (st == FU_OK) st = fu__put(o, "opt_gpu_us", json_real(h->opt_gpu_us));
  if (st == FU_OK) st = fu__put(o, "buffers", json_integer(h->buffers));
  if (st == FU_OK && h->copy_gbps > 0) st = fu__put(o, "copy_gbps", json_real(h->copy_gbps));
  if (st == FU_OK && h->kernel_us > 0) st = fu__put(o, "kernel_us", json_real(h->kernel_us));
  if (st == FU_OK && h->queue_depth > 0) st = fu__put(o, "queue_depth", json_integer(h->queue_depth));
  if (st == FU_OK && (h->launches_fwd > 0 || h->launches_bwd > 0 || h->launches_opt > 0))
    st = fu__put(o, "launches", json_pack("{s:f, s:f, s:f}", "fwd", h->launches_fwd, "bwd",
                                          h->launches_bwd, "opt", h->launches_opt));
  for (size_t i = 0; st == FU_OK && i < h->nfwd; i++)
    if (json_array_append_new(fp, json_pack("[f, f]", h->fwd_cpu[i], h->fwd_gpu[i])) != 0)
      st = FU_ENOMEM;
  for (size_t i = 0; st == FU_OK && i < ngrads; i++)
    if (json_array_append_new(gc, json_real(grad_cpu[i])) != 0 ||
        json_array_append_new(gg, json_real(grad_gpu[i])) != 0)
      st = FU_ENOMEM;
  if (st == FU_OK) st = fu__put(o, "fwd_points", json_incref(fp));
  if (st == FU_OK) st = fu__put(o, "grad_cpu_us", json_incref(gc));
  if (st == FU_OK) st = fu__put(o, "grad_gpu_us", json_incref(gg));
  if (st == FU_OK)
    st = fu__put(o, "jitter",
                 json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "step_rel_lo", h->step_rel_lo,
                           "step_rel_hi", h->step_rel_hi, "host_rel_lo", h->host_rel_lo,
                           "host_rel_hi", h->host_rel_hi, "fw_rel_lo", h->fw_rel_lo, "fw_rel_hi",
                           h->fw_rel_hi, "model_rel", h->model_rel));
  if (st == FU_OK && h->has_ddp)
    st = fu__put(o, "ddp",
                 json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "param_us", h->ddp.param_us,
                           "copy_us", h->ddp.copy_us, "bucket_us", h->ddp.bucket_us,
                           "hook_bucket_us", h->ddp.hook_bucket_us, "finalize_us",
                           h->ddp.finalize_us, "forward_us", h->ddp.forward_us, "buffer_us",
                           h->ddp.buffer_us));
  if (st == FU_OK && h->has_ddp && h->ddp.broadcast_us > 0)
    st = json_object_set_new(json_object_get(o, "ddp"), "broadcast_us",
                             json_real(h->ddp.broadcast_us)) == 0 ? FU_OK : FU_ENOMEM;
  if (st == FU_OK && h->has_hooks)
    st = fu__put(o, "hooks", json_pack("{s:f, s:f, s:f}", "hook_us", h->hooks.hook_us, "bucket_us",
                                       h->hooks.bucket_us, "noop_hook_us", h->hooks.noop_hook_us));
  if (st == FU_OK && h->d2h_compute > 0)
    st = fu__put(o, "beside_d2h", json_pack("{s:f}", "compute", h->d2h_compute));
  if (st == FU_OK && (h->sp_hooks.n || h->sp_offload.n || h->sp_ddp.n)) {
    json_t *isp = json_object();
    st = isp ? FU_OK : FU_ENOMEM;
    if (st == FU_OK && h->sp_hooks.n) st = fu__put(isp, "hooks", fu__spacing_json(&h->sp_hooks));
    if (st == FU_OK && h->sp_offload.n)
      st = fu__put(isp, "ddp_offload", fu__spacing_json(&h->sp_offload));
    if (st == FU_OK && h->sp_ddp.n) st = fu__put(isp, "ddp", fu__spacing_json(&h->sp_ddp));
    if (st == FU_OK) st = fu__put(o, "issue_spacing", isp);
    else json_decref(isp);
  }
  if (st == FU_OK && h->has_ci) {
    json_t *ci = json_object();
    st = ci ? FU_OK : FU_ENOMEM;
    if (st == FU_OK && h->has_ddp)
      st = fu__put(ci, "ddp", fu__ci_json(FU__DDP_COSTS, FU__NDDP, &h->ddp_lo, &h->ddp_hi));
    if (st == FU_OK && h->has_hooks)
      st = fu__put(ci, "hooks",
                   fu__ci_json(FU__HOOKS_COSTS, FU__NHOOKS, &h->hooks_lo, &h->hooks_hi));
    if (st == FU_OK) st = fu__put(o, "ci", ci);
    else json_decref(ci);
  }
  json_decref(fp);
  json_decref(gc);
  json_decref(gg);
  if (st != FU_OK) {
    json_decref(o);
    return NULL;
  }
  return o;
}
