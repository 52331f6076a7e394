/* test_validate_store.c: what `fusim validate` stores (issue 11), on any machine. validate's own
 * driver (fu_validate_run) runs over a test double of the GPU executor (validate/fu_exec.h) whose
 * "measurement" of slot s is the workload's compute time x (1 + (s + 2) / 100); everything else,
 * the plans, their buckets, the predictions and the rows in the database, is the real code. Every
 * prediction row must reach its workload JSON, profile JSON, resolved buckets, fusim version and
 * commit with one query each (the README's queries), and join its measurement in
 * v_prediction_error with rel_err = (predicted - measured) / measured. */
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fu_common.h"
#include "fu_db.h"
#include "fu_exec.h"
#include "fu_test.h"
#include "fu_validate.h"

/* ---- the test double of the executor --------------------------------------------------- */

struct fu_exec {
  double compute_us;         /* the workload's fwd + bwd + opt: the "measured" compute-only time */
  int nslots;                /* plans added */
};

int fu_exec_probe(fu_exec_info *info) {
  memset(info, 0, sizeof *info);
  info->ndev = 1;
  info->sm_count = 132;
  snprintf(info->gpu, sizeof info->gpu, "test double");
  info->mem_free = info->mem_total = 64ull << 30;
  return FU_OK;
}

uint64_t fu_exec_device_bytes(const fu_workload *w, uint64_t max_bucket_bytes, int streams) {
  return fu_workload_total_bytes(w) + max_bucket_bytes * (uint64_t)(streams > 0 ? streams : 1);
}

int fu_exec_create(const fu_workload *w, const fu_exec_opts *o, fu_exec **out) {
  (void)o;
  *out = calloc(1, sizeof **out);
  if (!*out) return FU_ENOMEM;
  (*out)->compute_us = w->fwd_us + w->bwd_us + w->opt_us;
  return FU_OK;
}

void fu_exec_destroy(fu_exec *e) { free(e); }

int fu_exec_add_plan(fu_exec *e, const fu_plan *p, const fu_bucket *b, size_t nb, int *slot) {
  (void)p, (void)b, (void)nb;
  *slot = e->nslots++;
  return FU_OK;
}

int fu_exec_prepare(fu_exec *e) { return e ? FU_OK : FU_EINTERNAL; }

int fu_exec_iteration(fu_exec *e, int slot, double *iter_us) {
  *iter_us = e->compute_us * (1 + (slot + 2) / 100.0);
  return FU_OK;
}

int fu_exec_verify(fu_exec *e, int slot, uint32_t seed, char *msg, size_t len) {
  (void)e, (void)slot, (void)seed;
  if (len) msg[0] = 0;
  return FU_OK;
}

int fu_exec_comm(const fu_exec *e, fu_comm *c) {
  (void)e;
  return fu_comm_parse("offload", c);
}

int fu_exec_bench_fusion(const int *k, const uint64_t *m, size_t n, int reps, fu_fusion_row *out) {
  (void)k, (void)m, (void)n, (void)reps, (void)out;
  return FU_ENODEV;
}

/* ---- the test ---------------------------------------------------------------------------- */

/* The text of the first column of the first row of sql with ?1 = id, malloc'd, or NULL. */
static char *text_of(sqlite3 *db, const char *sql, sqlite3_int64 id) {
  sqlite3_stmt *s = NULL;
  char *out = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
    fprintf(stderr, "test: %s: %s\n", sql, sqlite3_errmsg(db));
    return NULL;
  }
  sqlite3_bind_int64(s, 1, id);
  if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
    out = strdup((const char *)sqlite3_column_text(s, 0));
  sqlite3_finalize(s);
  return out;
}

int main(void) {
  const char *root = getenv("FUSIM_SOURCE_ROOT");
  char dir[] = "/tmp/fusim_validate_store.XXXXXX", db_path[256], wl_path[1024];
  if (!root || !mkdtemp(dir)) return 1;
  snprintf(db_path, sizeof db_path, "%s/v.db", dir);
  snprintf(wl_path, sizeof wl_path, "%s/data/workloads/resnet50.json", root);

  fu_validate_opts o;
  fu_validate_opts_init(&o);
  o.workloads = wl_path;
  o.plans = "default";
  o.db_path = db_path;
  o.cmdline = "fusim validate (test double of the executor)";
  o.iters = 3;
  o.warmup = 1;
  o.format = FU_FORMAT_CSV;
  EXPECT_INT_EQ(fu_validate_run(&o), FU_OK);

  fu_plan *plans = NULL;
  size_t nplans = 0;
  EXPECT_INT_EQ(fu_validate_default_plans(&plans, &nplans), FU_OK);
  free(plans);

  sqlite3 *db = NULL;
  EXPECT_INT_EQ(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  sqlite3_stmt *s = NULL;
  EXPECT_INT_EQ(sqlite3_prepare_v2(db,
                    "SELECT p.id, r.kind, e.predicted_us, e.measured_us, e.rel_err FROM predictions p "
                    "JOIN runs r ON r.id = p.run_id JOIN v_prediction_error e ON e.prediction_id = p.id",
                    -1, &s, NULL),
                SQLITE_OK);
  size_t nrows = 0;
  char want_version[160];
  snprintf(want_version, sizeof want_version, "%s", fu_db_build_version());
  while (s && sqlite3_step(s) == SQLITE_ROW) {
    sqlite3_int64 id = sqlite3_column_int64(s, 0);
    nrows++;
    EXPECT_STR_EQ((const char *)sqlite3_column_text(s, 1), "validate");
    double pred = sqlite3_column_double(s, 2), meas = sqlite3_column_double(s, 3);
    EXPECT(meas > 0);
    EXPECT_REL(sqlite3_column_double(s, 4), (pred - meas) / meas, 1e-9);
    /* one query per item, as the README shows them */
    char *wl = text_of(db, "SELECT w.json FROM predictions p JOIN workloads w ON w.id = p.workload_id WHERE p.id = ?1", id);
    char *pf = text_of(db, "SELECT pr.json FROM predictions p JOIN profiles pr ON pr.id = p.profile_id WHERE p.id = ?1", id);
    char *bk = text_of(db, "SELECT buckets FROM predictions WHERE id = ?1", id);
    char *vs = text_of(db, "SELECT r.fusim_version FROM predictions p JOIN runs r ON r.id = p.run_id WHERE p.id = ?1", id);
    char *cm = text_of(db, "SELECT r.fusim_commit FROM predictions p JOIN runs r ON r.id = p.run_id WHERE p.id = ?1", id);
    json_t *w = wl ? json_loads(wl, 0, NULL) : NULL, *p = pf ? json_loads(pf, 0, NULL) : NULL;
    json_t *b = bk ? json_loads(bk, 0, NULL) : NULL;
    EXPECT(w && json_array_size(json_object_get(w, "grads")) == 161); /* resnet50's tensors */
    EXPECT(p && json_is_string(json_object_get(p, "name")));
    /* the buckets cover the ready order from the first gradient to the last, in order */
    size_t nb = json_array_size(b);
    EXPECT(nb >= 1);
    if (nb >= 1) {
      EXPECT_INT_EQ(json_integer_value(json_array_get(json_array_get(b, 0), 0)), 0);
      EXPECT_INT_EQ(json_integer_value(json_array_get(json_array_get(b, nb - 1), 1)), 160);
    }
    EXPECT(vs && strcmp(vs, want_version) == 0);
    EXPECT(cm && *cm);
    json_decref(w), json_decref(p), json_decref(b);
    free(wl), free(pf), free(bk), free(vs), free(cm);
  }
  sqlite3_finalize(s);
  EXPECT_INT_EQ(nrows, nplans); /* one measured prediction per plan */
  sqlite3_close(db);

  /* one plan from the command's flags (validate --fusion cap:4MiB --overlap off): one row, that
     plan, in a database of its own */
  fu_plan one;
  fu_plan_init(&one);
  EXPECT_INT_EQ(fu_plan_parse_fusion("cap:4MiB", &one), FU_OK);
  EXPECT_INT_EQ(fu_plan_parse_overlap("off", &one), FU_OK);
  snprintf(db_path, sizeof db_path, "%s/one.db", dir);
  o.plan = &one;
  EXPECT_INT_EQ(fu_validate_run(&o), FU_OK);
  fu_plan_finish(&one);
  EXPECT_INT_EQ(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  char *plan1 = text_of(db, "SELECT group_concat(plan, ';') || ' ' || count(*) FROM v_prediction_error WHERE ?1 = 1", 1);
  EXPECT(plan1 && strncmp(plan1, "cap:4MiB overlap=off", 20) == 0 && strcmp(plan1 + strlen(plan1) - 2, " 1") == 0);
  if (plan1 && strncmp(plan1, "cap:4MiB overlap=off", 20) != 0) fprintf(stderr, "one plan stored as '%s'\n", plan1);
  free(plan1);
  sqlite3_close(db);

  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) return 1;
  return fu_test_report("test_validate_store");
}
