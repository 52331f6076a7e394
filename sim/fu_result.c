/* fu_result.c: printers of a prediction (see fu_result.h). */
#include "fu_result.h"

#include "fu_common.h"

int fu_result_print_table(FILE *out, const fu_result *r) {
  char sz[32], buf[32];
  fprintf(out, "workload       %s (%zu tensors, %s%s)\n", r->workload, r->ngrads,
          fu_format_size(r->grad_bytes, sz, sizeof sz), r->estimated ? "; times are estimates" : "");
  fprintf(out, "plan           %s\n", r->plan);
  fprintf(out, "comm           %s  (profile %s; %s at this rank and node count)\n", r->comm, r->profile,
          r->comm_basis[0] ? r->comm_basis : "measured");
  fprintf(out, "iteration      %.1f us   [%.1f, %.1f] from the fits' 95%% CIs\n", r->iter_us,
          r->iter_lo_us, r->iter_hi_us);
  fprintf(out, "compute        %.1f us\n", r->compute_us);
  fprintf(out, "communication  %.1f us in %zu op%s (+ %.1f us pack, hand-off, unpack)\n",
          r->comm_us, r->n_ops, r->n_ops == 1 ? "" : "s", r->pack_us);
  fprintf(out, "exposed        %.1f us   overlap %.1f%%\n", r->exposed_comm_us,
          100 * r->overlap_frac);
  fprintf(out, "bus util       %.1f%%\n", 100 * r->bus_util);
  fprintf(out, "fusion buffer  %s\n", fu_format_size(r->fusion_buffer_bytes, buf, sizeof buf));
  fprintf(out, "sim events     %llu\n\n", (unsigned long long)r->sim_events);
  fprintf(out, "%6s %7s %11s %11s %11s %11s %9s %11s %8s  %s\n", "bucket", "tensors", "bytes",
          "ready_us", "start_us", "end_us", "pack_us", "comm_us", "busbw", "last tensor");
  for (size_t k = 0; k < r->nbuckets; k++) {
    const fu_bucket *b = &r->buckets[k];
    fprintf(out, "%6zu %7zu %11s %11.1f %11.1f %11.1f %9.1f %11.1f %8.1f  %s\n", k,
            b->last - b->first + 1, fu_format_size(b->bytes, sz, sizeof sz), b->ready_us,
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
            b->last - b->first + 1, (unsigned long long)b->bytes, b->ready_us, b->start_us,
            b->end_us, b->pack_us, b->comm_us, b->busbw_gbps);
    fu_csv_field(out, b->last_tensor ? b->last_tensor : "");
    fputc('\n', out);
  }
  return ferror(out) ? FU_EIO : FU_OK;
}

json_t *fu_result_json(const fu_result *r) {
  json_t *bk = json_array();
  if (!bk) return NULL;
  for (size_t k = 0; k < r->nbuckets; k++) {
    const fu_bucket *b = &r->buckets[k];
    json_t *jb = json_pack("{s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:s}", "index",
                           (json_int_t)k, "first", (json_int_t)b->first, "last",
                           (json_int_t)b->last, "tensors", (json_int_t)(b->last - b->first + 1),
                           "bytes", (json_int_t)b->bytes, "ready_us", b->ready_us, "start_us",
                           b->start_us, "end_us", b->end_us, "pack_us", b->pack_us, "comm_us",
                           b->comm_us, "busbw_gbps", b->busbw_gbps, "last_tensor",
                           b->last_tensor ? b->last_tensor : "");
    if (!jb || json_array_append_new(bk, jb) != 0) {
      json_decref(bk);
      return NULL;
    }
  }
  return json_pack(
      "{s:s, s:s, s:s, s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:I, s:I, s:b, s:o}",
      "workload", r->workload, "plan", r->plan, "comm", r->comm, "profile", r->profile, "comm_basis",
      r->comm_basis[0] ? r->comm_basis : "measured", "iter_us",
      r->iter_us, "iter_lo_us", r->iter_lo_us, "iter_hi_us", r->iter_hi_us, "compute_us",
      r->compute_us, "comm_us", r->comm_us, "exposed_comm_us", r->exposed_comm_us, "overlap_frac",
      r->overlap_frac, "bus_util", r->bus_util, "pack_us", r->pack_us, "n_ops",
      (json_int_t)r->n_ops, "fusion_buffer_bytes", (json_int_t)r->fusion_buffer_bytes,
      "sim_events", (json_int_t)r->sim_events, "estimated", r->estimated, "buckets", bk);
}

int fu_result_print_json(FILE *out, const fu_result *r) {
  json_t *j = fu_result_json(r);
  if (!j) return FU_ENOMEM;
  int rc = json_dumpf(j, out, JSON_INDENT(2));
  json_decref(j);
  fputc('\n', out);
  return rc != 0 || ferror(out) ? FU_EIO : FU_OK;
}
