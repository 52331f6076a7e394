/* fu_result.c: printers of a prediction (see fu_result.h). */
#include "fu_result.h"

#include <stdlib.h>
#include <string.h>

#include "fu_builder.h"
#include "fu_memcheck.h"
#include "fu_common.h"

const char *fu_nccl_source_name(int src) {
  return src == FU_NCCL_GIVEN ? "given" : src == FU_NCCL_PROFILE ? "profile" : "unknown";
}

void fu_result_ops_outside(const fu_result *r, size_t *below, size_t *above) {
  *below = *above = 0;
  for (size_t k = 0; k < r->nbuckets; k++) {
    double b = (double)r->buckets[k].bytes;
    *below += r->comm_least_bytes > 0 && b < r->comm_least_bytes;
    *above += r->comm_most_bytes > 0 && b > r->comm_most_bytes;
  }
}

/* Whether the cost model priced the collective (the NCCL it runs then matters), not a curve
 * measured at this rank and node count. */
static int fu__model_priced(const fu_result *r) {
  return r->comm_basis[0] && strcmp(r->comm_basis, "measured") != 0;
}

const char *fu_result_comm_note(const fu_result *r, char *buf, size_t len) {
  char lay[112] = "", v[24];
  if (r->layout_gpus > 0 && !r->layout_given) snprintf(lay, sizeof lay, "; one process per GPU assumed");
  else if (r->layout_gpus > 0) snprintf(lay, sizeof lay, "; %d GPU%s a process", r->layout_gpus, r->layout_gpus == 1 ? "" : "s");
  if (r->nccl_version > 0) /* named by the command, or the profile's logs */
    snprintf(lay + strlen(lay), sizeof lay - strlen(lay), "; NCCL %s%s", fu_nccl_version_string(r->nccl_version, v, sizeof v),
             r->nccl_source == FU_NCCL_PROFILE ? " (the profile's logs)" : "");
  else if (r->layout_gpus > 0 && fu__model_priced(r))
    snprintf(lay + strlen(lay), sizeof lay - strlen(lay), "; NCCL unknown");
  snprintf(buf, len, "profile %s; %s at this rank and node count%s", r->profile,
           r->comm_basis[0] ? r->comm_basis : "measured", lay);
  return buf;
}

const char *fu_compute_note(const fu_compute_from *f, char *buf, size_t len) {
  if (!f->said) return NULL;
  buf[0] = '\0';
  if (f->repriced)
    snprintf(buf, len, "priced again with profile %s (%s) from the what-if's builder arguments; "
             "the file's times are %s's (%s)", f->profile, f->gpu, f->was_profile, f->was_gpu);
  else if (!f->estimated)
    snprintf(buf, len, "measured on %s (a capture), kept", f->gpu);
  else if (f->why[0] && f->profile[0])
    snprintf(buf, len, "priced with profile %s (%s), kept: %s", f->profile, f->gpu, f->why);
  else if (f->why[0])
    snprintf(buf, len, "priced with an unknown profile, kept: %s", f->why);
  size_t l = strlen(buf);
  if (f->tables_gpu[0] && l < len) /* a what-if's compute from tables of another GPU than the links' */
    snprintf(buf + l, len - l, "%spriced from %s tables; this profile's links are %s's", l ? "; " : "",
             f->tables_gpu, f->links_gpu);
  return buf;
}

/* "compute_priced_with": the profile the compute times come from and whether they were priced
 * again (present only where fu_compute_note says something). */
static json_t *fu__compute_from_json(const fu_compute_from *f) {
  json_t *j = json_pack("{s:o, s:o, s:b, s:b}", "profile", f->profile[0] ? json_string(f->profile) : json_null(),
                        "gpu", f->gpu[0] ? json_string(f->gpu) : json_null(), "repriced", f->repriced,
                        "measured", !f->estimated);
  if (j && f->repriced &&
      (json_object_set_new(j, "recorded_profile", json_string(f->was_profile)) != 0 ||
       json_object_set_new(j, "recorded_gpu", json_string(f->was_gpu)) != 0)) {
    json_decref(j);
    return NULL;
  }
  if (j && f->why[0] && json_object_set_new(j, "kept_because", json_string(f->why)) != 0) {
    json_decref(j);
    return NULL;
  }
  if (j && f->tables_gpu[0] &&
      (json_object_set_new(j, "tables_gpu", json_string(f->tables_gpu)) != 0 ||
       json_object_set_new(j, "links_gpu", json_string(f->links_gpu)) != 0)) {
    json_decref(j);
    return NULL;
  }
  return j;
}

int fu_result_print_table(FILE *out, const fu_result *r) {
  char sz[32], buf[32];
  fprintf(out, "workload       %s (%zu tensors, %s%s)\n", r->workload, r->ngrads,
          fu_format_size(r->grad_bytes, sz, sizeof sz), r->estimated ? "; times are estimates" : "");
  fprintf(out, "plan           %s\n", r->plan);
  char note[192];
  fprintf(out, "comm           %s  (%s)\n", r->comm, fu_result_comm_note(r, note, sizeof note));
  /* a measured curve says nothing of sizes its log did not have: how many ops lie outside */
  size_t below, above;
  fu_result_ops_outside(r, &below, &above);
  if (below > 0)
    fprintf(out, "               %zu of %zu ops below the smallest size measured (%s): extrapolated\n", below,
            r->nbuckets, fu_format_size((uint64_t)r->comm_least_bytes, sz, sizeof sz));
  if (above > 0)
    fprintf(out, "               %zu of %zu ops above the largest size measured (%s): extrapolated\n", above,
            r->nbuckets, fu_format_size((uint64_t)r->comm_most_bytes, sz, sizeof sz));
  fprintf(out, "iteration      %.1f us   [%.1f, %.1f] 95%% interval from %s\n", r->iter_us,
          r->iter_lo_us, r->iter_hi_us, r->interval_from ? r->interval_from : "the fits' CIs");
  fprintf(out, "compute        %.1f us\n", r->compute_us);
  char from[512];
  if (fu_compute_note(&r->compute_from, from, sizeof from)) fprintf(out, "               %s\n", from);
  fprintf(out, "communication  %.1f us in %zu op%s (+ %.1f us pack, hand-off, unpack)\n",
          r->comm_us, r->n_ops, r->n_ops == 1 ? "" : "s", r->pack_us);
  fprintf(out, "exposed        %.1f us   overlap %.1f%%\n", r->exposed_comm_us,
          100 * r->overlap_frac);
  if (r->host_split)
    fprintf(out, "               of which host overhead %.1f us, communication %.1f us\n",
            r->host_overhead_us, r->exposed_comm_only_us);
  fprintf(out, "bus util       %.1f%%\n", 100 * r->bus_util);
  fprintf(out, "fusion buffer  %s\n", fu_format_size(r->fusion_buffer_bytes, buf, sizeof buf));
  fprintf(out, "sim events     %llu\n\n", (unsigned long long)r->sim_events);
  fprintf(out, "%6s %7s %11s %11s %11s %11s %9s %11s %8s  %s\n", "bucket", "tensors", "bytes",
          "ready_us", "start_us", "end_us", "pack_us", "comm_us", "busbw", "last tensor");
  for (size_t k = 0; k < r->nbuckets; k++) {
    const fu_bucket *b = &r->buckets[k];
    fprintf(out, "%6zu %7zu %11s %11.1f %11.1f %11.1f %9.1f %11.1f %8.1f  %s\n", k,
            b->ntensors, fu_format_size(b->bytes, sz, sizeof sz), b->ready_us,
            b->start_us, b->end_us, b->pack_us, b->comm_us, b->busbw_gbps,
            b->last_tensor ? b->last_tensor : "");
  }
  return ferror(out) ? FU_EIO : FU_OK;
}

void fu_result_csv_fields(FILE *out, const fu_result *r) {
  fu_csv_field(out, r->workload);
  fputc(',', out);
  fu_csv_field(out, r->plan);
  fputc(',', out);
  fu_csv_field(out, r->comm);
  fputc(',', out);
  fu_csv_field(out, r->profile);
  fprintf(out, ",%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.6f,%.6f,%zu,%llu,%llu", r->iter_us,
          r->iter_lo_us, r->iter_hi_us, r->compute_us, r->comm_us, r->exposed_comm_us,
          r->overlap_frac, r->bus_util, r->n_ops, (unsigned long long)r->fusion_buffer_bytes,
          (unsigned long long)r->sim_events);
}

int fu_result_print_csv(FILE *out, const fu_result *r) {
  fputs(FU_RESULT_CSV_HEADER "\n", out);
  fu_result_csv_fields(out, r);
  fputc('\n', out);
  return ferror(out) ? FU_EIO : FU_OK;
}

int fu_result_print_buckets_csv(FILE *out, const fu_result *r) {
  fputs("bucket,first,last,tensors,bytes,ready_us,start_us,end_us,pack_us,comm_us,busbw_gbps,"
        "last_tensor\n",
        out);
  for (size_t k = 0; k < r->nbuckets; k++) {
    const fu_bucket *b = &r->buckets[k];
    fprintf(out, "%zu,%zu,%zu,%zu,%llu,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,", k, b->first, b->last,
            b->ntensors, (unsigned long long)b->bytes, b->ready_us, b->start_us,
            b->end_us, b->pack_us, b->comm_us, b->busbw_gbps);
    fu_csv_field(out, b->last_tensor ? b->last_tensor : "");
    fputc('\n', out);
  }
  return ferror(out) ? FU_EIO : FU_OK;
}

/* A bucket's JSON object with its values held, so that one object can be refilled per bucket:
 * the JSON printer streams buckets through one such object instead of building 200,000 (their
 * allocations and frees cost more than dumping them). */
enum { FU__BK_INDEX, FU__BK_FIRST, FU__BK_LAST, FU__BK_TENSORS, FU__BK_BYTES, FU__BK_READY,
       FU__BK_START, FU__BK_END, FU__BK_PACK, FU__BK_COMM, FU__BK_BUSBW, FU__BK_LAST_TENSOR,
       FU__BK_NKEYS };
static const char *const fu__bk_keys[FU__BK_NKEYS] = {
    "index", "first", "last", "tensors", "bytes", "ready_us", "start_us", "end_us", "pack_us",
    "comm_us", "busbw_gbps", "last_tensor"};

typedef struct fu__bk_json {
  json_t *obj;                /* the object (owns the values) */
  json_t *v[FU__BK_NKEYS];    /* its values in key order (borrowed from obj) */
} fu__bk_json;

static int fu__bk_json_create(fu__bk_json *t) {
  if (!(t->obj = json_object())) return FU_ENOMEM;
  for (int i = 0; i < FU__BK_NKEYS; i++) {
    t->v[i] = i == FU__BK_LAST_TENSOR ? json_string("")
              : i >= FU__BK_READY     ? json_real(0)
                                      : json_integer(0);
    if (json_object_set_new(t->obj, fu__bk_keys[i], t->v[i]) != 0) {
      json_decref(t->obj);
      return FU_ENOMEM;
    }
  }
  return FU_OK;
}

static int fu__bk_json_set(fu__bk_json *t, size_t k, const fu_bucket *b) {
  json_integer_set(t->v[FU__BK_INDEX], (json_int_t)k);
  json_integer_set(t->v[FU__BK_FIRST], (json_int_t)b->first);
  json_integer_set(t->v[FU__BK_LAST], (json_int_t)b->last);
  json_integer_set(t->v[FU__BK_TENSORS], (json_int_t)b->ntensors);
  json_integer_set(t->v[FU__BK_BYTES], (json_int_t)b->bytes);
  json_real_set(t->v[FU__BK_READY], b->ready_us);
  json_real_set(t->v[FU__BK_START], b->start_us);
  json_real_set(t->v[FU__BK_END], b->end_us);
  json_real_set(t->v[FU__BK_PACK], b->pack_us);
  json_real_set(t->v[FU__BK_COMM], b->comm_us);
  json_real_set(t->v[FU__BK_BUSBW], b->busbw_gbps);
  return json_string_set(t->v[FU__BK_LAST_TENSOR], b->last_tensor ? b->last_tensor : "") == 0
             ? FU_OK
             : FU_ENOMEM;
}

/* Everything but the buckets, in the order printed; the process layout (as fusim cost writes it)
 * where the cost model priced a job across nodes at one. */
/* A part of the memory check into j: null where the step's memory is unknown. */
static int fu__mem_part(json_t *j, const char *key, const fu_result *r, double v) {
  return json_object_set_new(j, key, r->mem_need_bytes > 0 ? json_real(v) : json_null());
}

static json_t *fu__summary_json(const fu_result *r) {
  char v[24];
  json_t *j = json_pack(
      "{s:s, s:s, s:s, s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:I, s:I, s:b}",
      "workload", r->workload, "plan", r->plan, "comm", r->comm, "profile", r->profile, "comm_basis",
      r->comm_basis[0] ? r->comm_basis : "measured", "iter_us",
      r->iter_us, "iter_lo_us", r->iter_lo_us, "iter_hi_us", r->iter_hi_us, "compute_us",
      r->compute_us, "comm_us", r->comm_us, "exposed_comm_us", r->exposed_comm_us, "overlap_frac",
      r->overlap_frac, "bus_util", r->bus_util, "pack_us", r->pack_us, "n_ops",
      (json_int_t)r->n_ops, "fusion_buffer_bytes", (json_int_t)r->fusion_buffer_bytes,
      "sim_events", (json_int_t)r->sim_events, "estimated", r->estimated);
  size_t below, above;
  fu_result_ops_outside(r, &below, &above);
  if (j && (json_object_set_new(j, "ops_below_measured", json_integer((json_int_t)below)) != 0 ||
            json_object_set_new(j, "ops_above_measured", json_integer((json_int_t)above)) != 0)) {
    json_decref(j);
    return NULL;
  }
  if (j && r->host_split &&
      (json_object_set_new(j, "host_overhead_us", json_real(r->host_overhead_us)) != 0 ||
       json_object_set_new(j, "exposed_comm_only_us", json_real(r->exposed_comm_only_us)) != 0)) {
    json_decref(j);
    return NULL;
  }
  if (j && r->layout_gpus > 0 &&
      (json_object_set_new(j, "gpus_per_process", json_integer(r->layout_gpus)) != 0 ||
       json_object_set_new(j, "layout", json_string(r->layout_given ? "given" : "assumed")) != 0 ||
       (r->nccl_version > 0 && json_object_set_new(j, "nccl_version", json_string(fu_nccl_version_string(r->nccl_version, v, sizeof v))) != 0) ||
       (fu__model_priced(r) &&
        json_object_set_new(j, "nccl_source", json_string(fu_nccl_source_name(r->nccl_version > 0 ? r->nccl_source : FU_NCCL_UNKNOWN))) != 0))) {
    json_decref(j);
    return NULL;
  }
  if (j && r->compute_from.said &&
      json_object_set_new(j, "compute_priced_with", fu__compute_from_json(&r->compute_from)) != 0) {
    json_decref(j);
    return NULL;
  }
  if (j && r->mem_checked &&
      (json_object_set_new(j, "fits", r->mem_fits < 0 ? json_null() : json_boolean(r->mem_fits)) != 0 ||
       json_object_set_new(j, "mem_need_bytes", r->mem_need_bytes > 0 ? json_real(r->mem_need_bytes) : json_null()) != 0 ||
       fu__mem_part(j, "mem_reserve_bytes", r, r->mem_reserve_bytes) != 0 ||
       fu__mem_part(j, "mem_context_bytes", r, r->mem_context_bytes) != 0 ||
       fu__mem_part(j, "mem_nccl_bytes", r, r->mem_nccl_bytes) != 0 ||
       fu__mem_part(j, "mem_device_bytes", r, r->mem_device_bytes) != 0 ||
       json_object_set_new(j, "mem_over_bytes", r->mem_fits < 0 ? json_null() : json_real(r->mem_over_bytes)) != 0)) {
    json_decref(j);
    return NULL;
  }
  return j;
}

void fu_result_mem(fu_result *r, const fu_mem *m, double nccl_bytes, double gpu_bytes) {
  fu_mem_need n;
  fu_mem_need_set(&n, fu_mem_allocated(m, (double)r->fusion_buffer_bytes, (double)r->view_buffer_bytes), nccl_bytes);
  r->mem_need_bytes = n.allocated;
  r->mem_reserve_bytes = n.reserve;
  r->mem_context_bytes = n.context;
  r->mem_nccl_bytes = n.nccl;
  r->mem_device_bytes = n.device;
  fu_mem_check(n.device, gpu_bytes, &r->mem_fits, &r->mem_over_bytes);
  r->mem_checked = 1;
}

#define FU__BUCKETS_KEY "buckets" /* the summary's last key, the bucket array */

json_t *fu_result_json(const fu_result *r) {
  json_t *j = fu__summary_json(r), *bk = json_array();
  if (!j || !bk || json_object_set_new(j, FU__BUCKETS_KEY, bk) != 0) {
    json_decref(j);
    return NULL;
  }
  for (size_t k = 0; k < r->nbuckets; k++) {
    fu__bk_json t;
    if (fu__bk_json_create(&t) != FU_OK) {
      json_decref(j);
      return NULL;
    }
    if (fu__bk_json_set(&t, k, &r->buckets[k]) != FU_OK) {
      json_decref(t.obj);
      json_decref(j);
      return NULL;
    }
    if (json_array_append_new(bk, t.obj) != 0) { /* took t.obj either way */
      json_decref(j);
      return NULL;
    }
  }
  return j;
}

/* Jansson's text gathered into one buffer and written in large pieces: json_dumpf writes each
 * token with its own fwrite, which cost about as much as formatting the numbers. */
typedef struct fu__json_out {
  FILE *f;         /* where the text goes */
  int err;         /* a write failed */
  size_t n;        /* bytes waiting in buf */
  char buf[65536]; /* text not yet written */
} fu__json_out;

static void fu__json_flush(fu__json_out *o) {
  if (o->n && fwrite(o->buf, 1, o->n, o->f) != o->n) o->err = 1;
  o->n = 0;
}

static int fu__json_put(const char *s, size_t n, void *data) { /* json_dump_callback's callback */
  fu__json_out *o = data;
  if (o->n + n > sizeof o->buf) fu__json_flush(o);
  if (n > sizeof o->buf) {
    if (fwrite(s, 1, n, o->f) != n) o->err = 1;
  } else {
    memcpy(o->buf + o->n, s, n);
    o->n += n;
  }
  return o->err ? -1 : 0;
}

static void fu__json_puts(fu__json_out *o, const char *s) { fu__json_put(s, strlen(s), o); }

/* The object of fu_result_json, streamed: the summary indented by Jansson (JSON_EMBED leaves out
 * its braces, so that the bucket array can follow), then one bucket per line, each the same
 * object refilled and dumped by Jansson. Only the punctuation between Jansson's pieces is
 * written here (tests/sim/test_result.c checks it against fu_result_json). */
int fu_result_print_json(FILE *out, const fu_result *r) {
  json_t *sum = fu__summary_json(r);
  fu__bk_json t;
  if (!sum) return FU_ENOMEM;
  if (fu__bk_json_create(&t) != FU_OK) {
    json_decref(sum);
    return FU_ENOMEM;
  }
  fu__json_out *o = malloc(sizeof *o);
  char *head = json_dumps(sum, JSON_INDENT(2) | JSON_EMBED); /* "\n  key: value,...\n" */
  json_decref(sum);
  int st = o && head ? FU_OK : FU_ENOMEM;
  if (st == FU_OK) {
    o->f = out;
    o->err = 0;
    o->n = 0;
    size_t hn = strlen(head);
    if (hn && head[hn - 1] == '\n') hn--; /* the line break before the closing brace */
    fu__json_puts(o, "{");
    fu__json_put(head, hn, o);
    fu__json_puts(o, ",\n  \"" FU__BUCKETS_KEY "\": [");
    for (size_t k = 0; k < r->nbuckets && st == FU_OK; k++) {
      fu__json_puts(o, k ? ",\n    " : "\n    ");
      st = fu__bk_json_set(&t, k, &r->buckets[k]);
      if (st == FU_OK && json_dump_callback(t.obj, fu__json_put, o, 0) != 0)
        st = o->err ? FU_EIO : FU_ENOMEM;
    }
    fu__json_puts(o, r->nbuckets ? "\n  ]\n}\n" : "]\n}\n");
    fu__json_flush(o);
    if (st == FU_OK && (o->err || ferror(out))) st = FU_EIO;
  }
  free(head);
  free(o);
  json_decref(t.obj);
  return st;
}
