/* cmd_rerun.c: fusim report rerun: a stored prediction simulated again from the database alone.
 *
 * Everything comes from the row: the workload and profile JSON stored by content, the plan as
 * asked, the comm target and the resolved buckets. The simulation is run on those buckets
 * (fu_sim_predict_buckets: what predict, plan and validate ran) and must give the stored
 * iteration time; where the plan resolves the buckets itself (not validate's executed buckets,
 * not a buckets:FILE whose file is not stored), resolving it again must give the stored buckets.
 * The simulator is deterministic, so the tolerance (1e-9 relative) only absorbs nothing; it is
 * there so that a change in floating-point evaluation order prints a number instead of a
 * verdict on the last bit. */
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"
#include "fu_db.h"
#include "fu_plan.h"
#include "fu_reprice.h"
#include "fu_coll.h"
#include "fu_predict.h"
#include "fu_report.h"
#include "fu_resolve.h"

#define FU__RERUN_TOL 1e-9 /* relative difference of iteration times still called the same */

typedef struct fu__rerun_row {
  int64_t id;                /* prediction id */
  char workload[128];        /* its workload's name */
  char plan[256];            /* plan as asked */
  double stored_us;          /* iteration time stored */
  double rerun_us;           /* iteration time now (NaN: not run) */
  double rel_diff;           /* |rerun - stored| / stored */
  const char *buckets;       /* "same", "differ", "not re-resolved" (validate, buckets:FILE) */
  const char *result;        /* "reproduces", "differs", "no content", "error" */
} fu__rerun_row;

/* "[[first,last],...]" into a bucket array (first/last only: what the engine reads). */
static int fu__parse_buckets(const char *text, fu_bucket **out, size_t *n) {
  *out = NULL;
  *n = 0;
  json_t *j = json_loads(text, 0, NULL);
  size_t k = json_array_size(j);
  if (!json_is_array(j) || k == 0) {
    json_decref(j);
    return FU_EDATA;
  }
  fu_bucket *b = calloc(k, sizeof *b);
  int st = b ? FU_OK : FU_ENOMEM;
  for (size_t i = 0; st == FU_OK && i < k; i++) {
    json_t *e = json_array_get(j, i);
    json_t *f = json_array_get(e, 0), *l = json_array_get(e, 1);
    if (!json_is_integer(f) || !json_is_integer(l) || json_integer_value(f) < 0 ||
        json_integer_value(l) < json_integer_value(f))
      st = FU_EDATA;
    else
      b[i].first = (size_t)json_integer_value(f), b[i].last = (size_t)json_integer_value(l);
  }
  json_decref(j);
  if (st != FU_OK) {
    free(b);
    return st;
  }
  *out = b;
  *n = k;
  return FU_OK;
}

/* Re-simulates one prediction row; r->result says how it went. */
static int fu__rerun_one(sqlite3_stmt *q, fu_profile *prof, fu__rerun_row *r) {
  r->id = sqlite3_column_int64(q, 0);
  const char *wname = (const char *)sqlite3_column_text(q, 1);
  const char *wjson = (const char *)sqlite3_column_text(q, 2);
  const char *pjson = (const char *)sqlite3_column_text(q, 3);
  const char *plan_s = (const char *)sqlite3_column_text(q, 4);
  const char *comm_s = (const char *)sqlite3_column_text(q, 5);
  const char *bjson = (const char *)sqlite3_column_text(q, 7);
  const char *kind = (const char *)sqlite3_column_text(q, 8);
  snprintf(r->workload, sizeof r->workload, "%s", wname ? wname : "");
  snprintf(r->plan, sizeof r->plan, "%s", plan_s ? plan_s : "");
  r->stored_us = sqlite3_column_double(q, 6);
  r->rerun_us = r->rel_diff = NAN;
  r->buckets = "-";
  if (!wjson || !pjson || !bjson) {
    r->result = "no content"; /* a schema 1 row, or a command that did not keep it */
    return FU_OK;
  }
  r->result = "error";
  char what[64];
  snprintf(what, sizeof what, "prediction %lld", (long long)r->id);
  fu_workload w;
  fu_workload_init(&w);
  fu_plan plan;
  fu_plan_init(&plan);
  fu_comm comm;
  fu_bucket *b = NULL, *b2 = NULL;
  size_t nb = 0, nb2 = 0;
  fu_result res;
  memset(&res, 0, sizeof res);
  int st = fu_workload_parse(wjson, what, 0, &w);
  if (st == FU_OK) st = fu_profile_parse(pjson, what, prof);
  /* a what-if predicted with another profile than the one that priced it is stored as given:
     priced again here as predict did (its warnings were predict's to give) */
  if (st == FU_OK) {
    /* the row's profile is stored by the hash fu_profile_hash gives: not computed again */
    const char *phash = (const char *)sqlite3_column_text(q, 10);
    if (phash && strlen(phash) != FU_HASH_HEX - 1) phash = NULL;
    int was = fu_warn_mute(1);
    st = fu_reprice("report rerun", &w, prof, prof->name, phash);
    fu_warn_mute(was);
  }
  /* the NCCL predict and plan price by default: the one the profile's logs ran */
  if (st == FU_OK) prof->cluster.job_nccl_version = fu_nccl_version_code(prof->nccl_version);
  if (st == FU_OK) prof->cluster.job_compcap = fu_gpu_compcap(prof->gpu);
  /* ... unless the prediction priced a job across nodes at a layout and an NCCL of its own
   * (--gpus-per-process, --nccl-version): its result JSON names both (fu_result.c) */
  if (st == FU_OK) {
    prof->cluster.job_gpus_per_proc = 1;
    const char *rjson = (const char *)sqlite3_column_text(q, 9);
    json_t *rj = rjson ? json_loads(rjson, 0, NULL) : NULL;
    json_t *gpp = json_object_get(rj, "gpus_per_process");
    const char *ver = json_string_value(json_object_get(rj, "nccl_version"));
    const char *src = json_string_value(json_object_get(rj, "nccl_source"));
    if (json_is_integer(gpp) && json_integer_value(gpp) >= 1 && json_integer_value(gpp) <= 1048576)
      prof->cluster.job_gpus_per_proc = (int)json_integer_value(gpp);
    if (ver && fu_nccl_version_code(ver)) prof->cluster.job_nccl_version = fu_nccl_version_code(ver);
    else if (src && !strcmp(src, "unknown")) prof->cluster.job_nccl_version = 0;
    json_decref(rj);
  }
  /* buckets:FILE is not read again (the file need not be here): the stored buckets are the plan */
  int from_file = plan_s && !strncmp(plan_s, "buckets:", 8);
  char swapped[300];
  snprintf(swapped, sizeof swapped, "none%s", from_file && strchr(plan_s, ' ') ? strchr(plan_s, ' ') : "");
  if (st == FU_OK) st = fu_plan_parse_string(from_file ? swapped : plan_s, what, &plan);
  if (st == FU_OK && from_file) plan.kind = FU_FUSION_BUCKETS;
  if (st == FU_OK) { /* a stored value, not an option: its line names the row */
    char cwhat[80];
    snprintf(cwhat, sizeof cwhat, "%s: comm", what);
    st = fu_comm_parse_as(cwhat, comm_s, &comm);
  }
  if (st == FU_OK && fu__parse_buckets(bjson, &b, &nb) != FU_OK) {
    fu_error("%s: stored buckets are not a list of [first, last] ranges", what);
    st = FU_EDATA;
  }
  if (st == FU_OK) st = fu_sim_predict_buckets(&w, &plan, &comm, prof, b, nb, NULL, &res);
  if (st == FU_OK) {
    r->rerun_us = res.iter_us;
    r->rel_diff = fabs(res.iter_us - r->stored_us) / r->stored_us;
    int same_t = r->rel_diff <= FU__RERUN_TOL;
    int same_b = 1;
    if ((kind && !strcmp(kind, "validate")) || from_file) {
      r->buckets = "not re-resolved";
    } else {
      st = fu_resolve_buckets(&w, &plan, &comm, prof, &b2, &nb2, NULL);
      same_b = st == FU_OK && nb2 == nb;
      for (size_t i = 0; same_b && i < nb; i++)
        same_b = b[i].first == b2[i].first && b[i].last == b2[i].last;
      r->buckets = same_b ? "same" : "differ";
    }
    if (st == FU_OK) r->result = same_t && same_b ? "reproduces" : "differs";
  }
  fu_result_finish(&res);
  free(b);
  free(b2);
  fu_workload_finish(&w);
  fu_plan_finish(&plan);
  return st == FU_ENOMEM ? st : FU_OK; /* a row that fails is reported, not fatal */
}

static void fu__rerun_print(fu_format fmt, const fu__rerun_row *v, size_t n) {
  char a[40], b[40], c[40];
  if (fmt == FU_FORMAT_JSON) {
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
      json_t *o = json_pack("{s:I, s:s, s:s, s:f, s:o, s:o, s:s, s:s}", "prediction_id",
                            (json_int_t)v[i].id, "workload", v[i].workload, "plan", v[i].plan,
                            "stored_us", v[i].stored_us, "rerun_us",
                            isnan(v[i].rerun_us) ? json_null() : json_real(v[i].rerun_us),
                            "rel_diff", isnan(v[i].rel_diff) ? json_null() : json_real(v[i].rel_diff),
                            "buckets", v[i].buckets, "result", v[i].result);
      if (o) json_array_append_new(arr, o);
    }
    char *s = json_dumps(arr, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (s) printf("%s\n", s);
    free(s);
    json_decref(arr);
    return;
  }
  if (fmt == FU_FORMAT_CSV) printf("prediction_id,workload,plan,stored_us,rerun_us,rel_diff,buckets,result\n");
  else
    printf("%-6s %-20s %-44s %18s %18s %9s %-15s %s\n", "id", "workload", "plan", "stored_us",
           "rerun_us", "rel_diff", "buckets", "result");
  for (size_t i = 0; i < n; i++) {
    fu_report_number(v[i].stored_us, a, sizeof a);
    if (isnan(v[i].rerun_us)) snprintf(b, sizeof b, "-"), snprintf(c, sizeof c, "-");
    else fu_report_number(v[i].rerun_us, b, sizeof b), fu_report_number(v[i].rel_diff, c, sizeof c);
    if (fmt == FU_FORMAT_CSV) {
      printf("%lld,", (long long)v[i].id);
      fu_csv_field(stdout, v[i].workload);
      putchar(',');
      fu_csv_field(stdout, v[i].plan);
      printf(",%s,%s,%s,%s,%s\n", a, isnan(v[i].rerun_us) ? "" : b, isnan(v[i].rerun_us) ? "" : c,
             v[i].buckets, v[i].result);
    } else {
      printf("%-6lld %-20.20s %-44.44s %18s %18s %9s %-15s %s\n", (long long)v[i].id, v[i].workload,
             v[i].plan, a, b, c, v[i].buckets, v[i].result);
    }
  }
}

int fu_report_rerun(const char *dbpath, fu_format fmt, int nids, char **ids) {
  int64_t *want = calloc(nids > 0 ? (size_t)nids : 1, sizeof *want);
  if (!want) return FU_ENOMEM;
  for (int i = 0; i < nids; i++) {
    long v;
    if (fu_parse_long(ids[i], 1, 0x7fffffffL, &v) != FU_OK) {
      fu_error("report rerun: '%s' is not a prediction id", ids[i]);
      free(want);
      return FU_EUSAGE;
    }
    want[i] = v;
  }
  fu_db *db = NULL;
  int st = fu_db_open(fu_db_path_default(dbpath), FU_DB_READONLY, &db);
  fu_profile *prof = st == FU_OK ? malloc(sizeof *prof) : NULL;
  if (st == FU_OK && !prof) st = FU_ENOMEM;
  sqlite3_stmt *q = NULL;
  if (st == FU_OK &&
      sqlite3_prepare_v2(fu_db_handle(db),
                         "SELECT p.id, w.name, w.json, pr.json, pl.plan, p.comm, p.iter_us, "
                         "p.buckets, r.kind, p.json, pr.hash FROM predictions p "
                         "JOIN workloads w ON w.id = p.workload_id "
                         "JOIN plans pl ON pl.id = p.plan_id "
                         "LEFT JOIN profiles pr ON pr.id = p.profile_id "
                         "LEFT JOIN runs r ON r.id = p.run_id "
                         "WHERE ?1 IS NULL OR p.id = ?1 ORDER BY p.id",
                         -1, &q, NULL) != SQLITE_OK) {
    fu_error("report rerun: %s: %s", fu_db_path(db), sqlite3_errmsg(fu_db_handle(db)));
    st = FU_EDB;
  }
  fu__rerun_row *rows = NULL;
  size_t n = 0, cap = 0, n_bad = 0, n_none = 0;
  for (int k = 0; st == FU_OK && k < (nids ? nids : 1); k++) {
    sqlite3_reset(q);
    if (nids) sqlite3_bind_int64(q, 1, want[k]);
    int rc, found = 0;
    while (st == FU_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
      found = 1;
      if (n == cap) {
        size_t nc = cap ? 2 * cap : 16;
        fu__rerun_row *nv = realloc(rows, nc * sizeof *nv);
        if (!nv) {
          st = FU_ENOMEM;
          break;
        }
        rows = nv;
        cap = nc;
      }
      memset(&rows[n], 0, sizeof rows[n]);
      st = fu__rerun_one(q, prof, &rows[n]);
      if (!strcmp(rows[n].result, "no content")) n_none++;
      else if (strcmp(rows[n].result, "reproduces")) n_bad++;
      n++;
    }
    if (st == FU_OK && nids && !found) {
      fu_error("report rerun: %s: no prediction with id %lld", fu_db_path(db), (long long)want[k]);
      st = FU_EDATA;
    }
  }
  if (st == FU_OK) {
    fu__rerun_print(fmt, rows, n);
    fprintf(stderr, "fusim: report rerun: %zu prediction%s: %zu reproduce, %zu differ or fail, %zu "
            "without stored content%s\n", n, n == 1 ? "" : "s", n - n_bad - n_none, n_bad, n_none,
            n_none ? " (schema 1 rows)" : "");
    /* asked for by id, a row that cannot be re-run is a failure too */
    if (n_bad || (nids && n_none)) st = FU_EDATA;
  }
  sqlite3_finalize(q);
  fu_db_close(db);
  free(prof);
  free(rows);
  free(want);
  return st;
}
