/* fu_workload.c: reading, checking and writing workloads in format "fusim-workload-1".
 *
 * Two forms are accepted (DESIGN.md):
 *   "grads":  [{"name", "bytes", "ready_us"}, ...] in the order backward makes them ready;
 *   "layers": [{"name", "fwd_us", "bwd_us", "grad_bytes": [..], "grad_names": [..]}] in forward
 *             order; backward runs the layers in reverse and a layer's gradients are ready at the
 *             end of its backward ("grad_names" is optional; names default to "<layer>.<k>").
 * Giving both, or neither, is an error.
 *
 * Rules (one line on stderr naming the file and the field for every violation; FU_EDATA):
 *   - "format" must be "fusim-workload-1";
 *   - times are numbers >= 0, sizes whole numbers > 0 (Jansson already rejects NaN/Infinity
 *     literals; strings such as "NaN" are rejected as "not a number");
 *   - the gradient list is not empty and names are unique, non-empty strings;
 *   - ready times out of order: an error with `strict`, otherwise sorted (stable) with a warning;
 *   - a ready time after the end of backward (ready_us > bwd_us) is ALWAYS an error (a gradient
 *     cannot be ready after backward ends). Only rounding is forgiven: up to 0.05 us past bwd_us
 *     (captured files round to 0.1 us) is clamped to bwd_us without a message;
 *   - with "layers", top-level "fwd_us"/"bwd_us" are optional; given, they must not be below the
 *     layers' sums (beyond 1e-6 relative). Extra backward time (loss, head) is placed before the
 *     last layer's backward, so it delays every ready time;
 *   - "accum_steps" is an integer >= 1 (fwd_us and bwd_us are per micro-batch; ready_us counts
 *     from the start of the LAST micro-batch's backward, the only one that communicates);
 *     "host": {"hook_us", "issue_us"} numbers >= 0 (version 1, read as before), or a version-2
 *     block (fu_host.h: the host timeline and the frameworks' costs, per-gradient arrays in
 *     the order of "grads" as written);
 *     "estimated" a boolean, "notes" a string, "meta" anything (for tools; kept and written
 *     back); "memory" {"peak_bytes" > 0 and its parts, fu_mem_keys} byte counts;
 *     "priced_with" (an estimate's: {"profile", "profile_hash", "gpu": strings, "builder_args":
 *     an array of strings, and "compute_gpu" where the profile's tables were another GPU's},
 *     what `fusim workload` priced it with; kept and written back);
 *     "compute_rel" a number in [0, 1): the 95% relative error of estimated compute times
 *     (predict's interval varies them by it); absent is 0. Not with a version-2 host block,
 *     whose model error is host.jitter.model_rel;
 *   - element types (optional; DDP and Horovod never reduce two types in one bucket): a
 *     gradient's "dtype" (with "layers": "grad_dtypes", as long as grad_bytes), else the
 *     top-level "dtype"; any spelling fu_dtype_parse takes, kept canonical. Without either, a
 *     workload has one unnamed type; naming some gradients' types but not others' is an error
 *     (which bucket the rest share would be a guess). A gradient's bytes are whole elements;
 *   - other top-level keys: a warning, or an error with `strict` (catches typos like "opt_usec").
 * Duplicate keys in one object are rejected by the JSON reader (JSON_REJECT_DUPLICATES). */
#include "fu_workload.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fu_common.h"
#include "fu_dtype.h"
#include "fu_output.h"
#include "fu_paths.h"

#define FU__FORMAT "fusim-workload-1"
#define FU__READY_SLACK_US 0.05      /* rounding forgiven past bwd_us */
#define FU__MAX_WHOLE 9007199254740992.0 /* 2^53: larger sizes lose integer precision in JSON */
#define FU__MAX_ACCUM 1048576        /* accum_steps upper bound (a sanity limit) */

const char *const fu_mem_keys[FU_MEM_KEYS] = {
    "params_bytes", "grads_bytes", "optimizer_bytes", "casts_bytes", "activations_bytes",
    "inputs_bytes", "workspace_bytes", "transient_bytes", "peak_bytes", "forward_peak_bytes"};

double *fu_mem_field(fu_mem *m, int i) {
  double *f[FU_MEM_KEYS] = {&m->params, &m->grads, &m->optimizer, &m->casts, &m->activations,
                            &m->inputs, &m->workspace, &m->transient, &m->peak, &m->forward};
  return f[i];
}

double fu_mem_value(const fu_mem *m, int i) { return *fu_mem_field((fu_mem *)m, i); }

json_t *fu_mem_to_json(const fu_mem *m) {
  json_t *o = json_object();
  for (int i = 0; o && i < FU_MEM_KEYS; i++)
    if (fu_mem_value(m, i) > 0 && json_object_set_new(o, fu_mem_keys[i], json_real(round(fu_mem_value(m, i))))) {
      json_decref(o);
      return NULL;
    }
  return o;
}

void fu_workload_init(fu_workload *w) {
  memset(w, 0, sizeof *w);
  w->accum_steps = 1;
}

void fu_workload_finish(fu_workload *w) {
  if (!w) return;
  for (size_t i = 0; i < w->ngrads; i++) free(w->grads[i].name);
  free(w->grads);
  free(w->notes);
  json_decref(w->meta);
  json_decref(w->priced_with);
  json_decref(w->as_given);
  fu_host_finish(&w->host);
  fu_workload_init(w);
}

int fu_grad_same_dtype(const fu_grad *a, const fu_grad *b) { return strcmp(a->dtype, b->dtype) == 0; }

int fu_workload_mixed_dtypes(const fu_workload *w) {
  for (size_t i = 1; i < w->ngrads; i++)
    if (!fu_grad_same_dtype(&w->grads[0], &w->grads[i])) return 1;
  return 0;
}

uint64_t fu_workload_total_bytes(const fu_workload *w) {
  uint64_t s = 0;
  for (size_t i = 0; i < w->ngrads; i++) s += w->grads[i].bytes;
  return s;
}

/* ---- checked field access: every failure prints "what: field: reason" ---------------------- */

/* A number >= 0 (and finite). `field` is the full field path for messages. */
static int fu__num(const json_t *v, const char *what, const char *field, double *out) {
  if (!json_is_number(v)) {
    fu_error("%s: %s: not a number (%s)", what, field,
             json_is_string(v) ? json_string_value(v) : "wrong JSON type");
    return FU_EDATA;
  }
  double d = json_number_value(v);
  if (!isfinite(d)) {
    fu_error("%s: %s: not a finite number", what, field);
    return FU_EDATA;
  }
  if (d < 0) {
    fu_error("%s: %s: negative (%g)", what, field, d);
    return FU_EDATA;
  }
  *out = d;
  return FU_OK;
}

/* A time in microseconds: a number >= 0 and at most FU__MAX_TIME_US (11.6 days: a phase of one
 * training iteration is never longer; 1e300 us went through and printed 300-digit times). */
#define FU__MAX_TIME_US 1e12
static int fu__time(const json_t *v, const char *what, const char *field, double *out) {
  double d;
  FU_CHECK(fu__num(v, what, field, &d));
  if (d > FU__MAX_TIME_US) {
    fu_error("%s: %s: too large (%g us; at most %g)", what, field, d, FU__MAX_TIME_US);
    return FU_EDATA;
  }
  *out = d;
  return FU_OK;
}

/* Optional time under key; leaves *out alone when absent. */
static int fu__opt_num(const json_t *obj, const char *key, const char *what, const char *prefix,
                       double *out) {
  const json_t *v = json_object_get(obj, key);
  if (!v) return FU_OK;
  char field[160];
  snprintf(field, sizeof field, "%s%s", prefix, key);
  return fu__time(v, what, field, out);
}

static int fu__req_num(const json_t *obj, const char *key, const char *what, const char *prefix,
                       double *out) {
  const json_t *v = json_object_get(obj, key);
  char field[160];
  snprintf(field, sizeof field, "%s%s", prefix, key);
  if (!v) {
    fu_error("%s: %s: missing", what, field);
    return FU_EDATA;
  }
  return fu__time(v, what, field, out);
}

/* A size in bytes: a whole number > 0 and <= 2^53. */
static int fu__bytes(const json_t *v, const char *what, const char *field, uint64_t *out) {
  if (!v) {
    fu_error("%s: %s: missing", what, field);
    return FU_EDATA;
  }
  double d;
  FU_CHECK(fu__num(v, what, field, &d));
  if (d != floor(d)) {
    fu_error("%s: %s: not a whole number of bytes (%g)", what, field, d);
    return FU_EDATA;
  }
  if (d == 0) {
    fu_error("%s: %s: zero (a gradient has at least one byte)", what, field);
    return FU_EDATA;
  }
  if (d > FU__MAX_WHOLE) {
    fu_error("%s: %s: too large (%g bytes)", what, field, d);
    return FU_EDATA;
  }
  *out = (uint64_t)d;
  return FU_OK;
}

static int fu__name(const json_t *v, const char *what, const char *field, char **out) {
  if (!v) {
    fu_error("%s: %s: missing", what, field);
    return FU_EDATA;
  }
  if (!json_is_string(v) || json_string_length(v) == 0) {
    fu_error("%s: %s: not a non-empty string", what, field);
    return FU_EDATA;
  }
  if (strlen(json_string_value(v)) != json_string_length(v)) {
    fu_error("%s: %s: holds a NUL character", what, field);
    return FU_EDATA;
  }
  *out = strdup(json_string_value(v));
  return *out ? FU_OK : FU_ENOMEM;
}

/* An element type (optional: absent leaves out alone) as its canonical name. */
static int fu__dtype(const json_t *v, const char *what, const char *field, char out[8]) {
  fu_dtype dt;
  if (!v) return FU_OK;
  if (!json_is_string(v) || fu_dtype_parse(json_string_value(v), &dt) != FU_OK) {
    fu_error("%s: %s: not a data type (bf16, half, float, ...)", what, field);
    return FU_EDATA;
  }
  snprintf(out, 8, "%s", fu_dtype_name(dt));
  return FU_OK;
}

/* ---- gradients ------------------------------------------------------------------------------ */

static int fu__grads_alloc(fu_workload *w, size_t n) {
  w->grads = calloc(n ? n : 1, sizeof *w->grads);
  if (!w->grads) return FU_ENOMEM;
  return FU_OK;
}

static int fu__parse_grads(const json_t *arr, const char *what, fu_workload *w) {
  if (!json_is_array(arr)) {
    fu_error("%s: grads: not an array", what);
    return FU_EDATA;
  }
  size_t n = json_array_size(arr);
  if (n == 0) {
    fu_error("%s: grads: empty (a workload needs at least one gradient)", what);
    return FU_EDATA;
  }
  FU_CHECK(fu__grads_alloc(w, n));
  for (size_t i = 0; i < n; i++) {
    const json_t *g = json_array_get(arr, i);
    char field[96];
    if (!json_is_object(g)) {
      fu_error("%s: grads[%zu]: not an object", what, i);
      return FU_EDATA;
    }
    fu_grad *o = &w->grads[w->ngrads];
    /* the field path for messages: one snprintf per gradient, not one per field (200,000
     * gradients spent 0.03 s formatting paths that no message used) */
    size_t at = (size_t)snprintf(field, sizeof field, "grads[%zu].", i);
    memcpy(field + at, "name", sizeof "name");
    FU_CHECK(fu__name(json_object_get(g, "name"), what, field, &o->name));
    w->ngrads++;              /* owns o->name from here on, freed by finish */
    memcpy(field + at, "bytes", sizeof "bytes");
    FU_CHECK(fu__bytes(json_object_get(g, "bytes"), what, field, &o->bytes));
    const json_t *ready = json_object_get(g, "ready_us");
    memcpy(field + at, "ready_us", sizeof "ready_us");
    if (!ready) {
      fu_error("%s: %s: missing", what, field);
      return FU_EDATA;
    }
    FU_CHECK(fu__time(ready, what, field, &o->ready_us));
    memcpy(field + at, "dtype", sizeof "dtype");
    FU_CHECK(fu__dtype(json_object_get(g, "dtype"), what, field, o->dtype));
  }
  return FU_OK;
}

/* Layers in forward order -> gradients in ready order. bwd_given < 0 when absent. */
static int fu__parse_layers(const json_t *arr, const char *what, double fwd_given, double bwd_given,
                            fu_workload *w) {
  if (!json_is_array(arr)) {
    fu_error("%s: layers: not an array", what);
    return FU_EDATA;
  }
  size_t nl = json_array_size(arr), total = 0;
  if (nl == 0) {
    fu_error("%s: layers: empty (a workload needs at least one gradient)", what);
    return FU_EDATA;
  }
  double fwd_sum = 0, bwd_sum = 0;
  /* Pass 1: check every layer and count gradients. */
  for (size_t l = 0; l < nl; l++) {
    const json_t *L = json_array_get(arr, l);
    char field[96];
    if (!json_is_object(L)) {
      fu_error("%s: layers[%zu]: not an object", what, l);
      return FU_EDATA;
    }
    const json_t *nm = json_object_get(L, "name");
    snprintf(field, sizeof field, "layers[%zu].name", l);
    if (!nm || !json_is_string(nm) || json_string_length(nm) == 0) {
      fu_error("%s: %s: %s", what, field, nm ? "not a non-empty string" : "missing");
      return FU_EDATA;
    }
    double f, b;
    snprintf(field, sizeof field, "layers[%zu].", l);
    FU_CHECK(fu__req_num(L, "fwd_us", what, field, &f));
    FU_CHECK(fu__req_num(L, "bwd_us", what, field, &b));
    fwd_sum += f;
    bwd_sum += b;
    const json_t *gb = json_object_get(L, "grad_bytes");
    if (!gb) {
      fu_error("%s: layers[%zu].grad_bytes: missing (use [] for a layer without parameters)", what, l);
      return FU_EDATA;
    }
    if (!json_is_array(gb)) {
      fu_error("%s: layers[%zu].grad_bytes: not an array", what, l);
      return FU_EDATA;
    }
    const char *same[] = {"grad_names", "grad_dtypes"};
    for (int k = 0; k < 2; k++) {
      const json_t *a = json_object_get(L, same[k]);
      if (a && (!json_is_array(a) || json_array_size(a) != json_array_size(gb))) {
        fu_error("%s: layers[%zu].%s: not an array as long as grad_bytes (%zu)", what, l, same[k],
                 json_array_size(gb));
        return FU_EDATA;
      }
    }
    total += json_array_size(gb);
  }
  if (total == 0) {
    fu_error("%s: layers: no layer has gradients (grad_bytes all empty)", what);
    return FU_EDATA;
  }
  if (fwd_given >= 0 && fwd_given < fwd_sum * (1 - 1e-6)) {
    fu_error("%s: fwd_us: %g is less than the layers' sum %g", what, fwd_given, fwd_sum);
    return FU_EDATA;
  }
  if (bwd_given >= 0 && bwd_given < bwd_sum * (1 - 1e-6)) {
    fu_error("%s: bwd_us: %g is less than the layers' sum %g", what, bwd_given, bwd_sum);
    return FU_EDATA;
  }
  /* each layer's time is checked against the limit; their sums are checked here (they were
     predicted and stored, then refused on re-reading the stored copy) */
  if (fwd_sum > FU__MAX_TIME_US || bwd_sum > FU__MAX_TIME_US) {
    fu_error("%s: layers: the layers' %s times add up to %g us, above the %g us a workload may hold",
             what, fwd_sum > FU__MAX_TIME_US ? "fwd_us" : "bwd_us",
             fwd_sum > FU__MAX_TIME_US ? fwd_sum : bwd_sum, FU__MAX_TIME_US);
    return FU_EDATA;
  }
  w->fwd_us = fwd_given >= 0 && fwd_given > fwd_sum ? fwd_given : fwd_sum;
  w->bwd_us = bwd_given >= 0 && bwd_given > bwd_sum ? bwd_given : bwd_sum;
  FU_CHECK(fu__grads_alloc(w, total));
  /* Pass 2: backward runs the layers in reverse; extra backward time comes first. */
  double t = w->bwd_us - bwd_sum;
  for (size_t l = nl; l-- > 0;) {
    const json_t *L = json_array_get(arr, l);
    t += json_number_value(json_object_get(L, "bwd_us"));
    if (t > w->bwd_us) t = w->bwd_us; /* summation rounding */
    const json_t *gb = json_object_get(L, "grad_bytes");
    const json_t *gn = json_object_get(L, "grad_names");
    const char *lname = json_string_value(json_object_get(L, "name"));
    for (size_t k = 0; k < json_array_size(gb); k++) {
      char field[96];
      fu_grad *o = &w->grads[w->ngrads];
      if (gn) {
        snprintf(field, sizeof field, "layers[%zu].grad_names[%zu]", l, k);
        FU_CHECK(fu__name(json_array_get(gn, k), what, field, &o->name));
      } else {
        size_t len = strlen(lname) + 24;
        o->name = malloc(len);
        if (!o->name) return FU_ENOMEM;
        snprintf(o->name, len, "%s.%zu", lname, k);
      }
      w->ngrads++;
      snprintf(field, sizeof field, "layers[%zu].grad_bytes[%zu]", l, k);
      FU_CHECK(fu__bytes(json_array_get(gb, k), what, field, &o->bytes));
      snprintf(field, sizeof field, "layers[%zu].grad_dtypes[%zu]", l, k);
      FU_CHECK(fu__dtype(json_array_get(json_object_get(L, "grad_dtypes"), k), what, field, o->dtype));
      o->ready_us = t;
    }
  }
  return FU_OK;
}

/* ---- whole-workload checks ------------------------------------------------------------------ */

typedef struct fu__ready_idx {
  fu_grad g;                 /* the gradient */
  size_t idx;                /* position in the file, the tie-break that makes the sort stable */
} fu__ready_idx;

static int fu__cmp_ready(const void *a, const void *b) {
  const fu__ready_idx *x = a, *y = b;
  if (x->g.ready_us < y->g.ready_us) return -1;
  if (x->g.ready_us > y->g.ready_us) return 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Names sorted with their positions to find repeats: 16-byte elements, not whole gradients. */
typedef struct fu__name_idx {
  const char *name;          /* the gradient's name */
  size_t idx;                /* its position in ready order */
} fu__name_idx;

static int fu__cmp_name(const void *a, const void *b) {
  const fu__name_idx *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  if (c) return c;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Ready order, end of backward, unique names. O(n log n) for the sorts. */
/* The gradients' total size is at most 2^53 bytes (8 PiB), so that no sum of sizes (a bucket, a
 * plan's buffers, the total) can wrap around in 64 bits or lose precision as a double: 2048
 * tensors of 2^53 bytes summed to "0 bytes". Checked where a workload is read and written. */
static int fu__check_total(const char *what, const fu_workload *w) {
  uint64_t total = 0;
  for (size_t i = 0; i < w->ngrads; i++) {
    if (w->grads[i].bytes > (uint64_t)FU__MAX_WHOLE - total) {
      fu_error("%s: grads: the sizes add up to more than 2^53 bytes (8 PiB) by grads[%zu] "
               "(\"%s\")", what, i, w->grads[i].name ? w->grads[i].name : "");
      return FU_EDATA;
    }
    total += w->grads[i].bytes;
  }
  return FU_OK;
}

static int fu__check_grads(const char *what, int strict, fu_workload *w) {
  FU_CHECK(fu__check_total(what, w));
  size_t n = w->ngrads, first_bad = 0;
  for (size_t i = 0; i < n; i++) {
    fu_grad *g = &w->grads[i];
    if (g->ready_us > w->bwd_us) {
      if (g->ready_us > w->bwd_us + FU__READY_SLACK_US) {
        fu_error("%s: grads[%zu].ready_us: %g is after the end of backward (bwd_us %g)", what, i,
                 g->ready_us, w->bwd_us);
        return FU_EDATA;
      }
      g->ready_us = w->bwd_us;
    }
    if (i > 0 && !first_bad && g->ready_us < w->grads[i - 1].ready_us) first_bad = i;
  }
  if (first_bad) {
    if (strict) {
      fu_error("%s: grads[%zu].ready_us: %g is before grads[%zu].ready_us %g (out of order)", what,
               first_bad, w->grads[first_bad].ready_us, first_bad - 1,
               w->grads[first_bad - 1].ready_us);
      return FU_EDATA;
    }
    fu_warn("%s: grads[%zu].ready_us: %g is before grads[%zu].ready_us %g; sorted by ready time",
            what, first_bad, w->grads[first_bad].ready_us, first_bad - 1,
            w->grads[first_bad - 1].ready_us);
    fu__ready_idx *tmp = malloc(n * sizeof *tmp);
    if (!tmp) return FU_ENOMEM;
    for (size_t i = 0; i < n; i++) tmp[i] = (fu__ready_idx){w->grads[i], i};
    qsort(tmp, n, sizeof *tmp, fu__cmp_ready);
    for (size_t i = 0; i < n; i++) w->grads[i] = tmp[i].g;
    free(tmp);
  }
  fu__name_idx *names = malloc(n * sizeof *names);
  if (!names) return FU_ENOMEM;
  for (size_t i = 0; i < n; i++) names[i] = (fu__name_idx){w->grads[i].name, i};
  qsort(names, n, sizeof *names, fu__cmp_name);
  for (size_t i = 1; i < n; i++) {
    if (strcmp(names[i].name, names[i - 1].name) == 0) {
      fu_error("%s: grads[%zu].name: \"%s\" repeats grads[%zu].name", what, names[i].idx,
               names[i].name, names[i - 1].idx);
      free(names);
      return FU_EDATA;
    }
  }
  free(names);
  return FU_OK;
}

/* The version-2 host block: per-gradient times go into the grads (so that sorting keeps them). */
static int fu__parse_host2(const json_t *host, const char *what, fu_workload *w) {
  double *c = calloc(w->ngrads ? w->ngrads : 1, sizeof *c);
  double *g = calloc(w->ngrads ? w->ngrads : 1, sizeof *g);
  int st = c && g ? fu_host_parse(host, what, w->ngrads, &w->host, c, g) : FU_ENOMEM;
  for (size_t i = 0; st == FU_OK && i < w->ngrads; i++) {
    w->grads[i].cpu_us = c[i];
    w->grads[i].gpu_us = g[i];
  }
  free(c);
  free(g);
  return st;
}

/* The workload's "dtype" for the gradients that name none; then every gradient has a type or
 * none has, and its bytes are whole elements. ("grads[i]" indexes the gradients as read.) */
static int fu__grad_dtypes(const json_t *dflt, const char *what, fu_workload *w) {
  char d[8] = "";
  FU_CHECK(fu__dtype(dflt, what, "dtype", d));
  for (size_t i = 0; i < w->ngrads; i++) {
    fu_grad *g = &w->grads[i];
    if (!g->dtype[0]) memcpy(g->dtype, d, sizeof d);
    if (!g->dtype[0] != !w->grads[0].dtype[0]) {
      fu_error("%s: grads[%zu] (\"%s\"): %s a dtype and grads[0] (\"%s\") %s; give every "
               "gradient one, or the workload's \"dtype\"", what, i, g->name,
               g->dtype[0] ? "has" : "has no", w->grads[0].name, g->dtype[0] ? "has none" : "has");
      return FU_EDATA;
    }
    fu_dtype dt;
    int es = g->dtype[0] && fu_dtype_parse(g->dtype, &dt) == FU_OK ? fu_dtype_size(dt) : 1;
    if (g->bytes % (uint64_t)es) {
      fu_error("%s: grads[%zu] (\"%s\"): %llu bytes is not a whole number of %s elements (%d bytes)",
               what, i, g->name, (unsigned long long)g->bytes, g->dtype, es);
      return FU_EDATA;
    }
  }
  return FU_OK;
}

/* "priced_with": what predict and plan need to price the what-if again (fu_reprice.c), checked
 * here so that they can trust it. */
static int fu__priced_with(const json_t *pw, const char *what) {
  static const char *const text[] = {"profile", "profile_hash", "gpu"};
  if (!json_is_object(pw)) {
    fu_error("%s: priced_with: not an object", what);
    return FU_EDATA;
  }
  for (size_t k = 0; k < sizeof text / sizeof *text; k++)
    if (!json_is_string(json_object_get(pw, text[k]))) {
      fu_error("%s: priced_with.%s: missing or not a string", what, text[k]);
      return FU_EDATA;
    }
  const json_t *cg = json_object_get(pw, "compute_gpu"); /* optional: tables of another GPU */
  if (cg && !(json_is_string(cg) && json_string_length(cg) > 0)) {
    fu_error("%s: priced_with.compute_gpu: not a GPU's name (a non-empty string)", what);
    return FU_EDATA;
  }
  const char *hash = json_string_value(json_object_get(pw, "profile_hash"));
  if (strlen(hash) != 64 || strspn(hash, "0123456789abcdef") != 64) {
    fu_error("%s: priced_with.profile_hash: not a SHA-256 in hex (64 lower-case digits)", what);
    return FU_EDATA;
  }
  const json_t *args = json_object_get(pw, "builder_args"), *a;
  size_t i;
  if (!json_is_array(args) || json_array_size(args) == 0) {
    fu_error("%s: priced_with.builder_args: missing or not a list of fusim workload's arguments", what);
    return FU_EDATA;
  }
  json_array_foreach(args, i, a) if (!json_is_string(a)) {
    fu_error("%s: priced_with.builder_args[%zu]: not a string", what, i);
    return FU_EDATA;
  }
  return FU_OK;
}

const char *fu_workload_compute_gpu(const fu_workload *w) {
  return json_string_value(json_object_get(w->priced_with, "compute_gpu"));
}

static const char *const fu__known_keys[] = {
    "format", "name", "fwd_us", "bwd_us", "opt_us", "host", "accum_steps",
    "estimated", "notes", "meta", "grads", "layers", "memory", "dtype", "compute_rel", "priced_with"};

/* Unknown keys of obj (prefix: its place, "host.ddp."): an error with strict, else a warning
 * each; *seen set when there was one (an array's elements then stop at the first that has). */
static int fu__fields(const json_t *obj, const char *const *known, size_t nk, const char *what,
                      const char *prefix, int strict, int *seen) {
  const char *key;
  const json_t *val;
  if (!json_is_object(obj)) return FU_OK; /* the parser said what it should be */
  json_object_foreach((json_t *)obj, key, val) {
    size_t k = 0;
    while (k < nk && strcmp(key, known[k]) != 0) k++;
    if (k < nk) continue;
    if (strict) {
      fu_error("%s: %s%s: unknown field", what, prefix, key);
      return FU_EDATA;
    }
    fu_warn("%s: %s%s: unknown field, ignored", what, prefix, key);
    *seen = 1;
  }
  return FU_OK;
}
#define FU__NK(a) (sizeof(a) / sizeof(a)[0])

/* Every key below the top level that this reader knows (typos such as host.ddp.broadcst_us
 * were ignored in silence, even with --strict). */
static int fu__nested_fields(const json_t *root, const char *what, int strict) {
  static const char *const grad[] = {"name", "bytes", "ready_us", "dtype"};
  static const char *const layer[] = {"name", "fwd_us", "bwd_us", "grad_bytes", "grad_names",
                                      "grad_dtypes"};
  static const char *const host1[] = {"hook_us", "issue_us"};
  static const char *const host2[] = {
      "version", "fwd_cpu_us", "bwd_cpu_us", "opt_cpu_us", "fwd_gpu_us", "bwd_gpu_us",
      "opt_gpu_us", "grad_cpu_us", "grad_gpu_us", "buffers", "copy_gbps", "kernel_us",
      "queue_depth", "launches", "fwd_points", "jitter", "ddp", "hooks", "beside_d2h",
      "issue_spacing", "ci"};
  static const char *const launches[] = {"fwd", "bwd", "opt"};
  static const char *const jitter[] = {"step_rel_lo", "step_rel_hi", "host_rel_lo",
                                       "host_rel_hi", "fw_rel_lo", "fw_rel_hi", "model_rel"};
  static const char *const ddp[] = {"param_us", "copy_us", "bucket_us", "hook_bucket_us",
                                    "finalize_us", "forward_us", "buffer_us", "broadcast_us"};
  static const char *const hooks[] = {"hook_us", "bucket_us", "noop_hook_us"};
  static const char *const beside[] = {"compute"};
  static const char *const spacing[] = {"hooks", "ddp_offload", "ddp"};
  static const char *const ci[] = {"ddp", "hooks"};
  int seen = 0;
  const json_t *a = json_object_get(root, "grads");
  for (size_t i = 0; !seen && i < json_array_size(a); i++) {
    char pre[48];
    snprintf(pre, sizeof pre, "grads[%zu].", i);
    FU_CHECK(fu__fields(json_array_get(a, i), grad, FU__NK(grad), what, pre, strict, &seen));
  }
  seen = 0;
  a = json_object_get(root, "layers");
  for (size_t i = 0; !seen && i < json_array_size(a); i++) {
    char pre[48];
    snprintf(pre, sizeof pre, "layers[%zu].", i);
    FU_CHECK(fu__fields(json_array_get(a, i), layer, FU__NK(layer), what, pre, strict, &seen));
  }
  FU_CHECK(fu__fields(json_object_get(root, "memory"), fu_mem_keys, FU_MEM_KEYS, what, "memory.", strict,
                      &seen));
  const json_t *h = json_object_get(root, "host");
  if (h && !json_object_get(h, "version"))
    return fu__fields(h, host1, FU__NK(host1), what, "host.", strict, &seen);
  FU_CHECK(fu__fields(h, host2, FU__NK(host2), what, "host.", strict, &seen));
  static const struct {
    const char *key, *prefix;
    const char *const *known;
    size_t n;
  } sub[] = {{"launches", "host.launches.", launches, FU__NK(launches)},
             {"jitter", "host.jitter.", jitter, FU__NK(jitter)},
             {"ddp", "host.ddp.", ddp, FU__NK(ddp)},
             {"hooks", "host.hooks.", hooks, FU__NK(hooks)},
             {"beside_d2h", "host.beside_d2h.", beside, FU__NK(beside)},
             {"issue_spacing", "host.issue_spacing.", spacing, FU__NK(spacing)},
             {"ci", "host.ci.", ci, FU__NK(ci)}};
  for (size_t i = 0; h && i < FU__NK(sub); i++) /* ci's own costs: fu_host_parse refuses others */
    FU_CHECK(fu__fields(json_object_get(h, sub[i].key), sub[i].known, sub[i].n, what, sub[i].prefix,
                        strict, &seen));
  return FU_OK;
}

/* Default name: the file's base name without ".json". */
static void fu__default_name(const char *what, char *out, size_t len) {
  const char *base = strrchr(what, '/');
  base = base ? base + 1 : what;
  snprintf(out, len, "%s", base);
  size_t l = strlen(out);
  if (l > 5 && strcmp(out + l - 5, ".json") == 0) out[l - 5] = '\0';
}

static int fu__from_json(const json_t *root, const char *what, int strict, fu_workload *w) {
  if (!json_is_object(root)) {
    fu_error("%s: not a JSON object (a workload is an object with \"format\": \"%s\")", what,
             FU__FORMAT);
    return FU_EDATA;
  }
  const json_t *fmt = json_object_get(root, "format");
  if (!fmt) {
    fu_error("%s: format: missing (expected \"%s\")", what, FU__FORMAT);
    return FU_EDATA;
  }
  if (!json_is_string(fmt) || strcmp(json_string_value(fmt), FU__FORMAT) != 0) {
    fu_error("%s: format: unknown format \"%s\" (expected \"%s\")", what,
             json_is_string(fmt) ? json_string_value(fmt) : "(not a string)", FU__FORMAT);
    return FU_EDATA;
  }
  int seen = 0;
  FU_CHECK(fu__fields(root, fu__known_keys, FU__NK(fu__known_keys), what, "", strict, &seen));
  FU_CHECK(fu__nested_fields(root, what, strict));

  const json_t *nm = json_object_get(root, "name");
  if (nm) {
    if (!json_is_string(nm) || json_string_length(nm) == 0) {
      fu_error("%s: name: not a non-empty string", what);
      return FU_EDATA;
    }
    if (json_string_length(nm) >= sizeof w->name) {
      fu_error("%s: name: longer than %zu characters", what, sizeof w->name - 1);
      return FU_EDATA;
    }
    snprintf(w->name, sizeof w->name, "%s", json_string_value(nm));
  } else {
    fu__default_name(what, w->name, sizeof w->name);
  }
  snprintf(w->source, sizeof w->source, "%s", what);

  FU_CHECK(fu__opt_num(root, "opt_us", what, "", &w->opt_us));
  const json_t *memo = json_object_get(root, "memory");
  if (memo) {
    if (!json_is_object(memo)) {
      fu_error("%s: memory: not an object", what);
      return FU_EDATA;
    }
    for (int i = 0; i < FU_MEM_KEYS; i++) {
      const json_t *v = json_object_get(memo, fu_mem_keys[i]);
      if (!v) continue;
      double d = json_is_number(v) ? json_number_value(v) : NAN;
      if (!isfinite(d) || d < 0 || d > 1e18) {
        fu_error("%s: memory.%s: not a byte count from 0 to 1e18", what, fu_mem_keys[i]);
        return FU_EDATA;
      }
      *fu_mem_field(&w->mem, i) = d;
    }
    if (!(w->mem.peak > 0)) { /* the check compares the peak; parts alone were dropped unused */
      fu_error("%s: memory.peak_bytes: missing or 0 (the memory check compares the step's peak "
               "with the GPU's memory; the other keys are its parts)", what);
      return FU_EDATA;
    }
  }
  const json_t *host = json_object_get(root, "host");
  if (host) {
    if (!json_is_object(host)) {
      fu_error("%s: host: not an object", what);
      return FU_EDATA;
    }
    if (!json_object_get(host, "version")) { /* version 1; version 2 is read after grads */
      FU_CHECK(fu__opt_num(host, "hook_us", what, "host.", &w->hook_us));
      FU_CHECK(fu__opt_num(host, "issue_us", what, "host.", &w->issue_us));
      if (json_object_get(host, "hook_us") || json_object_get(host, "issue_us")) w->host.version = 1;
    }
  }
  const json_t *acc = json_object_get(root, "accum_steps");
  if (acc) {
    if (!json_is_integer(acc) || json_integer_value(acc) < 1 ||
        json_integer_value(acc) > FU__MAX_ACCUM) {
      fu_error("%s: accum_steps: not an integer from 1 to %d", what, FU__MAX_ACCUM);
      return FU_EDATA;
    }
    w->accum_steps = (int)json_integer_value(acc);
  }
  const json_t *est = json_object_get(root, "estimated");
  if (est) {
    if (!json_is_boolean(est)) {
      fu_error("%s: estimated: not true or false", what);
      return FU_EDATA;
    }
    w->estimated = json_is_true(est);
  }
  const json_t *rel = json_object_get(root, "compute_rel");
  if (rel) {
    double d = json_is_number(rel) ? json_number_value(rel) : NAN;
    if (!(d >= 0 && d < 1)) { /* NaN fails too */
      fu_error("%s: compute_rel: not a number from 0 to below 1 (the compute estimate's 95%% "
               "relative error)", what);
      return FU_EDATA;
    }
    if (host && json_object_get(host, "version")) {
      fu_error("%s: compute_rel: not with a host timeline (its model's error is "
               "host.jitter.model_rel)", what);
      return FU_EDATA;
    }
    w->compute_rel = d;
  }
  const json_t *notes = json_object_get(root, "notes");
  if (notes && !json_is_string(notes)) {
    fu_error("%s: notes: not a string", what);
    return FU_EDATA;
  }
  if (notes && !(w->notes = strdup(json_string_value(notes)))) return FU_ENOMEM;
  const json_t *meta = json_object_get(root, "meta"); /* tools' data: kept, written back */
  if (meta && !(w->meta = json_deep_copy(meta))) return FU_ENOMEM;
  const json_t *pw = json_object_get(root, "priced_with");
  if (pw) FU_CHECK(fu__priced_with(pw, what));
  if (pw && !(w->priced_with = json_deep_copy(pw))) return FU_ENOMEM;

  const json_t *grads = json_object_get(root, "grads"), *layers = json_object_get(root, "layers");
  if (grads && layers) {
    fu_error("%s: grads, layers: give one of them, not both", what);
    return FU_EDATA;
  }
  if (!grads && !layers) {
    fu_error("%s: grads: missing (give \"grads\" or \"layers\")", what);
    return FU_EDATA;
  }
  if (grads) {
    FU_CHECK(fu__req_num(root, "fwd_us", what, "", &w->fwd_us));
    FU_CHECK(fu__req_num(root, "bwd_us", what, "", &w->bwd_us));
    FU_CHECK(fu__parse_grads(grads, what, w));
  } else {
    double f = -1, b = -1;
    FU_CHECK(fu__opt_num(root, "fwd_us", what, "", &f));
    FU_CHECK(fu__opt_num(root, "bwd_us", what, "", &b));
    FU_CHECK(fu__parse_layers(layers, what, f, b, w));
  }
  FU_CHECK(fu__grad_dtypes(json_object_get(root, "dtype"), what, w));
  if (host && json_object_get(host, "version")) FU_CHECK(fu__parse_host2(host, what, w));
  /* the step repeats forward and backward accum_steps times: held to the limit of one time
     (2^20 steps of 1e12 us printed an iteration below its compute, and took a minute to plan) */
  double step = (double)w->accum_steps * (w->fwd_us + w->bwd_us) + w->opt_us;
  if (w->accum_steps > 1 && step > FU__MAX_TIME_US) {
    fu_error("%s: accum_steps: %d micro-batches of fwd_us + bwd_us %g us make a step of %g us, "
             "above the %g us a workload may hold", what, w->accum_steps, w->fwd_us + w->bwd_us,
             step, FU__MAX_TIME_US);
    return FU_EDATA;
  }
  return fu__check_grads(what, strict, w);
}

int fu_workload_parse(const char *json_text, const char *what, int strict, fu_workload *w) {
  fu_workload_init(w);
  if (!what) what = "(workload)";
  if (!json_text) {
    fu_error("%s: no text to read", what);
    return FU_EDATA;
  }
  json_error_t err;
  json_t *root = json_loads(json_text, JSON_REJECT_DUPLICATES, &err);
  if (!root) {
    fu_error("%s:%d:%d: not valid JSON: %s", what, err.line, err.column, err.text);
    return FU_EDATA;
  }
  int st = fu__from_json(root, what, strict, w);
  json_decref(root);
  if (st != FU_OK) fu_workload_finish(w);
  return st;
}

int fu_workload_load(const char *path, int strict, fu_workload *w) {
  fu_workload_init(w);
  char *text = NULL;
  size_t len = 0;
  FU_CHECK(fu_read_file(path, &text, &len));
  int st = fu_workload_parse(text, path, strict, w);
  free(text);
  return st;
}

/* ---- writing -------------------------------------------------------------------------------- */

static int fu__set(json_t *obj, const char *key, json_t *v) {
  return (v && json_object_set_new(obj, key, v) == 0) ? FU_OK : FU_ENOMEM;
}

int fu_workload_to_json(const fu_workload *w, json_t **out) {
  const char *notes = w->notes;
  json_t *root = json_object();
  if (!root) return FU_ENOMEM;
  int st = FU_OK;
  if (st == FU_OK) st = fu__set(root, "format", json_string(FU__FORMAT));
  if (st == FU_OK) st = fu__set(root, "name", json_string(w->name[0] ? w->name : "workload"));
  if (st == FU_OK && w->estimated) st = fu__set(root, "estimated", json_true());
  if (st == FU_OK && w->compute_rel > 0) st = fu__set(root, "compute_rel", json_real(w->compute_rel));
  if (st == FU_OK && w->priced_with) st = fu__set(root, "priced_with", json_deep_copy(w->priced_with));
  if (st == FU_OK && notes) st = fu__set(root, "notes", json_string(notes));
  if (st == FU_OK && w->meta) st = fu__set(root, "meta", json_deep_copy(w->meta));
  if (st == FU_OK) st = fu__set(root, "fwd_us", json_real(w->fwd_us));
  if (st == FU_OK) st = fu__set(root, "bwd_us", json_real(w->bwd_us));
  if (st == FU_OK) st = fu__set(root, "opt_us", json_real(w->opt_us));
  if (st == FU_OK && w->accum_steps > 1)
    st = fu__set(root, "accum_steps", json_integer(w->accum_steps));
  if (st == FU_OK && w->host.version == FU_HOST_VERSION) {
    double *c = calloc(w->ngrads ? w->ngrads : 1, sizeof *c);
    double *g = calloc(w->ngrads ? w->ngrads : 1, sizeof *g);
    for (size_t i = 0; c && g && i < w->ngrads; i++) {
      c[i] = w->grads[i].cpu_us;
      g[i] = w->grads[i].gpu_us;
    }
    st = c && g ? fu__set(root, "host", fu_host_to_json(&w->host, w->ngrads, c, g)) : FU_ENOMEM;
    free(c);
    free(g);
  } else if (st == FU_OK && (w->hook_us > 0 || w->issue_us > 0)) {
    json_t *h = json_object();
    st = fu__set(root, "host", h);
    if (st == FU_OK) st = fu__set(h, "hook_us", json_real(w->hook_us));
    if (st == FU_OK) st = fu__set(h, "issue_us", json_real(w->issue_us));
  }
  if (st == FU_OK && w->mem.peak > 0) st = fu__set(root, "memory", fu_mem_to_json(&w->mem));
  json_t *arr = json_array();
  if (st == FU_OK) st = fu__set(root, "grads", arr);
  for (size_t i = 0; st == FU_OK && i < w->ngrads; i++) {
    json_t *g = json_object();
    if (!g || json_array_append_new(arr, g) != 0) {
      st = FU_ENOMEM;
      break;
    }
    st = fu__set(g, "name", json_string(w->grads[i].name));
    if (st == FU_OK) st = fu__set(g, "bytes", json_integer((json_int_t)w->grads[i].bytes));
    if (st == FU_OK) st = fu__set(g, "ready_us", json_real(w->grads[i].ready_us));
    if (st == FU_OK && w->grads[i].dtype[0]) st = fu__set(g, "dtype", json_string(w->grads[i].dtype));
  }
  if (st != FU_OK) {
    json_decref(root);
    return st;
  }
  *out = root;
  return FU_OK;
}

int fu_workload_savable(const char *path, const fu_workload *w) {
  if (w->ngrads == 0) {
    fu_error("%s: refusing to write a workload without gradients", path);
    return FU_EDATA;
  }
  FU_CHECK(fu__check_total(strcmp(path, "-") ? path : "(stdout)", w));
  double tmax = w->fwd_us;
  const double more[] = {w->bwd_us, w->opt_us, w->hook_us, w->issue_us};
  for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
    if (more[i] > tmax || isnan(more[i])) tmax = more[i];
  if (!(tmax <= FU__MAX_TIME_US)) { /* what fu_workload_load would refuse to read back */
    fu_error("%s: refusing to write a workload with a time of %g us (fwd_us %g, bwd_us %g, opt_us "
             "%g): above the %g us a workload may hold",
             strcmp(path, "-") ? path : "(stdout)", tmax, w->fwd_us, w->bwd_us, w->opt_us,
             FU__MAX_TIME_US);
    return FU_EDATA;
  }
  return FU_OK;
}

int fu_workload_save(const char *path, const fu_workload *w) {
  FU_CHECK(fu_workload_savable(path, w));
  json_t *root;
  FU_CHECK(fu_workload_to_json(w, &root));
  const size_t flags = JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12);
  int st = FU_OK;
  if (strcmp(path, "-") == 0) {
    if (json_dumpf(root, stdout, flags) != 0 || fputc('\n', stdout) == EOF || fflush(stdout) != 0)
      st = FU_EIO;
    if (st != FU_OK) fu_error("(stdout): cannot write the workload");
    json_decref(root);
    return st;
  }
  /* a temporary file (mkstemp, beside the target) renamed over it: see fu_output.h */
  st = fu_json_save(path, root, flags, "the workload");
  json_decref(root);
  return st;
}

/* ---- resolving names ------------------------------------------------------------------------ */

char *fu_workload_resolve(const char *arg) { return fu_paths_resolve(arg, "workloads"); }
