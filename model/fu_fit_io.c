/* fu_fit_io.c: what `fusim fit` does around the fitting itself (fu_fit_io.h): samples from the
 * database, segment rows into it, the printed result, compute tables into a profile. */
#include "fu_fit_io.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"
#include "fu_compute.h"

/* The database rows of the fitted segments (*rows malloc'd, *nrows of them). */
int fu_fit_rows_build(const fu_fitgroup *g, size_t ng, const char *method, const char *profile,
                      fu_fit_row **rows, size_t *nrows) {
  size_t n = 0, r = 0;
  for (size_t k = 0; k < ng; k++) n += (size_t)g[k].curve.nseg;
  *rows = calloc(n ? n : 1, sizeof **rows);
  *nrows = n;
  if (!*rows) return FU_ENOMEM;
  for (size_t k = 0; k < ng; k++)
    for (int s = 0; s < g[k].curve.nseg; s++, r++) {
      const fu_curve *cv = &g[k].curve;
      const fu_segment *x = &cv->seg[s];
      fu_fit_row *w = &(*rows)[r];
      snprintf(w->op, sizeof w->op, "%s", cv->op);
      snprintf(w->link, sizeof w->link, "%s", cv->link);
      snprintf(w->algo, sizeof w->algo, "%s", cv->algo);
      w->ranks = cv->ranks;
      w->nodes = cv->nodes;
      w->gpus_per_proc = cv->gpus_per_proc;
      snprintf(w->gpu, sizeof w->gpu, "%s", cv->gpu);
      w->in_place = g[k].in_place;
      snprintf(w->dtype, sizeof w->dtype, "%s", g[k].dtype);
      w->graph = g[k].graph;
      w->segment = s;
      w->lo_bytes = x->lo_bytes;
      w->hi_bytes = x->hi_bytes;
      w->alpha_us = x->alpha_us;
      w->alpha_lo = x->alpha_ci[0];
      w->alpha_hi = x->alpha_ci[1];
      w->beta_us_per_byte = x->beta_us_per_byte;
      w->beta_lo = x->beta_ci[0];
      w->beta_hi = x->beta_ci[1];
      w->max_rel_err = x->max_rel_err;
      w->n_samples = x->n_samples;
      fu_segment_flags_str(x, w->flags, sizeof w->flags);
      snprintf(w->method, sizeof w->method, "%s", method);
      if (profile) snprintf(w->profile, sizeof w->profile, "%s", profile);
    }
  return FU_OK;
}

/* Prints the fitted groups in the chosen format. */
int fu_fit_print(fu_format fmt, const fu_fitgroup *g, size_t ng, const fu_fit_options *fo,
                 const fu_profile *prof, const char *written, const char *plot) {
  if (fmt == FU_FORMAT_TABLE) {
    for (size_t k = 0; k < ng; k++) fu_fitgroup_print_table(stdout, &g[k], fo);
    /* a node's network that does not scale with its GPUs prices every layout across nodes */
    if (written && prof->cluster.node_net_gbps > 0)
      printf("node network: at most %.1f GB/s a node, one direction (NICs of %.1f GB/s; %s)\n",
             prof->cluster.node_net_gbps, prof->cluster.nic_gbps, prof->cluster.node_net_source);
    if (written) printf("profile %s written to %s (%d curves)\n", prof->name, written, prof->ncurves);
    return FU_OK;
  }
  if (fmt == FU_FORMAT_CSV) {
    for (size_t k = 0; k < ng; k++) fu_fitgroup_print_csv(stdout, &g[k], k == 0);
    return FU_OK;
  }
  json_t *arr = json_array();
  for (size_t k = 0; arr && k < ng; k++) json_array_append_new(arr, fu_fitgroup_json(&g[k], fo));
  json_t *j = json_pack("{s:o, s:s?, s:s?}", "fits", arr, "profile", written, "plot", plot);
  if (j && written && prof->cluster.node_net_gbps > 0 &&
      (json_object_set_new(j, "node_net_gbps", json_real(prof->cluster.node_net_gbps)) != 0 ||
       json_object_set_new(j, "node_net_source", json_string(prof->cluster.node_net_source)) != 0)) {
    json_decref(j);
    j = NULL;
  }
  char *text = j ? json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) : NULL;
  if (text) printf("%s\n", text);
  free(text);
  json_decref(j);
  return text ? FU_OK : FU_ENOMEM;
}

/* The samples of the database that match the filters, as the fit driver reads them (*out points
 * into *smp; both malloc'd). */
int fu_fit_samples_load(fu_db *db, const char *op, const char *link, long ranks, long run,
                        fu_sample **smp, fu_fitgroup_sample **out, size_t *n) {
  FU_CHECK(fu_db_samples_select(db, op, link, (int)ranks, run, smp, n));
  *out = malloc((*n ? *n : 1) * sizeof **out);
  if (!*out) return FU_ENOMEM;
  for (size_t i = 0; i < *n; i++) {
    const fu_sample *x = &(*smp)[i];
    (*out)[i] = (fu_fitgroup_sample){x->op, x->link, x->algo, x->proto, x->dtype, x->ranks, x->in_place, x->graph,
                                      x->bytes, isfinite(x->t_median_us) ? x->t_median_us : x->t_min_us,
                                      x->nodes, x->gpu, x->host, x->gpus_per_proc, x->nccl_version,
                                      x->n_wrong};
  }
  return FU_OK;
}

/* The compute tables' GPU after tables measured on gpu were merged into p (what names p's file):
 * compute.gpu follows the tables merged, the newest measurement, "" where they are p's own
 * GPU's; tables of another GPU that p held are said, since the merge may leave some of them. */
static void fu__compute_gpu_follow(fu_profile *p, int had_tables, const char *gpu, const char *what) {
  const char *was = p->compute.gpu[0] ? p->compute.gpu : p->gpu;
  if (had_tables && was[0] && !fu_gpu_same(was, gpu))
    fu_warn("%s: compute tables measured on %s merged into tables of %s: compute.gpu now names %s, though "
            "the tables this merge does not replace are still %s's", what, gpu, was, gpu, was);
  fu_profile_set_compute_gpu(p, gpu);
}

/* fit --gemm-table / --compute: the compute tables of a profile (model/fu_compute.h) from calib's
 * GEMM shape sweep in the database and/or tools/calib_torch.py's JSON; written to out, else back
 * to merge. */
int fu_fit_compute_tables(const char *db_opt, long run, const char *compute_f, int gemm_table,
                          const char *merge, const char *out, const char *name) {
  fu_profile *prof = malloc(sizeof *prof);
  if (!prof) return FU_ENOMEM;
  int st = merge ? fu_profile_load(merge, prof) : (fu_profile_init(prof), FU_OK);
  char src[1024] = ""; /* entries whole: fu_compute_set_source fits them to the field */
  char gemm_gpu[64] = "", torch_gpu[64] = ""; /* the GPUs the sweep and the file name ("" none) */
  const fu_compute *c = &prof->compute;
  int had_tables = st == FU_OK && c->ngemm + c->nconv + c->nattn + c->nops + c->noptim > 0;
  if (st == FU_OK && gemm_table) {
    const char *dbpath = fu_db_path_default(db_opt);
    fu_db *db = NULL;
    fu_sample *smp = NULL;
    fu_fitgroup_sample *fs = NULL;
    size_t ns = 0;
    int npts = 0;
    st = fu_db_open(dbpath, FU_DB_READONLY, &db);
    if (st == FU_OK) st = fu_fit_samples_load(db, "gemm", NULL, 0, run, &smp, &fs, &ns);
    if (st == FU_OK) st = fu_fitgroup_gemm_table(fs, ns, dbpath, &prof->compute, &npts, gemm_gpu, sizeof gemm_gpu);
    snprintf(src, sizeof src, "GEMM: fusim calib --suite gemm sweep in %.100s (%d points)", dbpath, npts);
    free(fs);
    free(smp);
    fu_db_close(db);
  }
  if (st == FU_OK && compute_f)
    st = fu_compute_load_torch(compute_f, &prof->compute, &prof->gpu_mem_bytes, torch_gpu, sizeof torch_gpu, src,
                               sizeof src);
  if (st == FU_OK && gemm_gpu[0] && torch_gpu[0] && !fu_gpu_same(gemm_gpu, torch_gpu)) {
    fu_error("fit: the GEMM sweep was measured on %s, %s on %s; one profile's compute tables are one GPU's",
             gemm_gpu, compute_f, torch_gpu);
    st = FU_EUSAGE;
  }
  if (st == FU_OK && (gemm_gpu[0] || torch_gpu[0]))
    fu__compute_gpu_follow(prof, had_tables, gemm_gpu[0] ? gemm_gpu : torch_gpu, out ? out : merge);
  if (st == FU_OK) st = fu_compute_set_source(&prof->compute, src, gemm_table && compute_f);
  if (st == FU_OK) {
    if (name) snprintf(prof->name, sizeof prof->name, "%s", name);
    else if (!prof->name[0]) snprintf(prof->name, sizeof prof->name, "fitted");
    st = fu_profile_save(out ? out : merge, prof);
  }
  if (st == FU_OK)
    printf("profile %s written to %s: %d GEMM tables, %d conv tables, %d attention points, %d operation "
           "tables, %d optimizer fits\n",
           prof->name, out ? out : merge, prof->compute.ngemm, prof->compute.nconv, prof->compute.nattn,
           prof->compute.nops, prof->compute.noptim);
  free(prof);
  return st;
}
