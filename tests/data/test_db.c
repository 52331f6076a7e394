/* test_db.c: the results database layer: migrations, host dedup, samples round trip, fits,
 * predictions, measurements and the two contract views (values checked by hand). */
#include <math.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fu_common.h"
#include "fu_db.h"
#include "fu_hash.h"
#include "fu_test.h"

static int64_t query_int(fu_db *db, const char *sql) {
  sqlite3_stmt *st;
  int64_t v = -999;
  if (sqlite3_prepare_v2(fu_db_handle(db), sql, -1, &st, NULL) != SQLITE_OK) return -999;
  if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return v;
}

static double query_real(fu_db *db, const char *sql) {
  sqlite3_stmt *st;
  double v = NAN;
  if (sqlite3_prepare_v2(fu_db_handle(db), sql, -1, &st, NULL) != SQLITE_OK) return NAN;
  if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_double(st, 0);
  sqlite3_finalize(st);
  return v;
}

/* SHA-256 against FIPS 180-2's test vectors (appendix B) and the empty string. */
static void test_hash(void) {
  char hex[FU_HASH_HEX];
  fu_hash_bytes("abc", 3, hex);
  EXPECT_STR_EQ(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  fu_hash_bytes("", 0, hex);
  EXPECT_STR_EQ(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  const char *m2 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"; /* two blocks */
  fu_hash_bytes(m2, strlen(m2), hex);
  EXPECT_STR_EQ(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  fu_sha256 s; /* a million 'a', fed in uneven pieces */
  char a[1001];
  memset(a, 'a', sizeof a);
  fu_sha256_init(&s);
  for (int i = 0; i < 1000; i++) fu_sha256_update(&s, a, i % 2 ? 999 : 1001);
  fu_sha256_final(&s, hex);
  EXPECT_STR_EQ(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  /* canonical JSON: layout and key order do not change the hash, a value does */
  char h1[FU_HASH_HEX], h2[FU_HASH_HEX], h3[FU_HASH_HEX];
  char *c1 = NULL, *c2 = NULL, *c3 = NULL;
  EXPECT_INT_EQ(fu_hash_json("{\"b\": 1, \"a\": [1.5, 2]}", "t", &c1, h1), FU_OK);
  EXPECT_INT_EQ(fu_hash_json("{ \"a\":[1.5,2],\n \"b\":1 }", "t", &c2, h2), FU_OK);
  EXPECT_INT_EQ(fu_hash_json("{\"a\": [1.5, 3], \"b\": 1}", "t", &c3, h3), FU_OK);
  EXPECT_STR_EQ(c1, "{\"a\":[1.5,2],\"b\":1}");
  EXPECT_STR_EQ(h1, h2);
  EXPECT(strcmp(h1, h3) != 0);
  free(c1), free(c2), free(c3);
  EXPECT_INT_EQ(fu_hash_json("{not json", "t", &c1, h1), FU_EDATA);
}

static int exists(const char *path, const char *suffix) {
  char name[300];
  snprintf(name, sizeof name, "%s%s", path, suffix);
  return access(name, F_OK) == 0;
}

/* A database that fu_db_open created and nothing was stored in is gone after fu_db_close, with
 * its -wal and -shm; a file that existed before, one holding a row, and one another connection
 * has open are kept. */
static void test_remove_unused(const char *dir) {
  char path[256];
  fu_db *a = NULL, *b = NULL;
  snprintf(path, sizeof path, "%s/unused.db", dir);
  EXPECT_INT_EQ(fu_db_open(path, FU_DB_READWRITE, &a), FU_OK); /* created and migrated */
  EXPECT(exists(path, "") && exists(path, "-wal") && exists(path, "-shm"));
  fu_db_close(a);
  EXPECT(!exists(path, "") && !exists(path, "-wal") && !exists(path, "-shm"));

  /* existed before (empty, as a failed command of an older fusim left it): kept */
  FILE *fp = fopen(path, "w");
  if (fp) fclose(fp);
  EXPECT_INT_EQ(fu_db_open(path, FU_DB_READWRITE, &a), FU_OK);
  fu_db_close(a);
  EXPECT(exists(path, ""));
  unlink(path);

  /* another connection has it open (and has read it): kept */
  sqlite3 *other = NULL;
  EXPECT_INT_EQ(fu_db_open(path, FU_DB_READWRITE, &a), FU_OK);
  EXPECT_INT_EQ(sqlite3_open_v2(path, &other, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  EXPECT_INT_EQ(sqlite3_exec(other, "SELECT count(*) FROM runs", NULL, NULL, NULL), SQLITE_OK);
  fu_db_close(a);
  EXPECT(exists(path, ""));
  sqlite3_close_v2(other);

  /* another writer stored a run into the file this one created: kept */
  unlink(path);
  int64_t run = 0;
  EXPECT_INT_EQ(fu_db_open(path, FU_DB_READWRITE, &a), FU_OK);
  EXPECT_INT_EQ(fu_db_open(path, FU_DB_READWRITE, &b), FU_OK);
  EXPECT_INT_EQ(fu_db_run_begin(b, "import", NULL, &run), FU_OK);
  fu_db_close(b);
  fu_db_close(a);
  EXPECT(exists(path, ""));
  EXPECT_INT_EQ(fu_db_open(path, FU_DB_READONLY, &a), FU_OK);
  EXPECT_INT_EQ(query_int(a, "SELECT count(*) FROM runs"), 1);
  fu_db_close(a);

  /* --db a symlink to where the database should be (none there yet): SQLite creates the target
   * and names its -wal and -shm after it. The target goes with them; the user's link stays (it
   * was the link that was removed, the target and its -wal left behind). */
  char link[256], target[256];
  struct stat lsb;
  snprintf(link, sizeof link, "%s/link.db", dir);
  snprintf(target, sizeof target, "%s/target.db", dir);
  EXPECT_INT_EQ(symlink(target, link), 0);
  EXPECT_INT_EQ(fu_db_open(link, FU_DB_READWRITE, &a), FU_OK);
  EXPECT(exists(target, "") && exists(target, "-wal"));
  fu_db_close(a);
  EXPECT(lstat(link, &lsb) == 0 && S_ISLNK(lsb.st_mode));
  EXPECT(!exists(target, "") && !exists(target, "-wal") && !exists(target, "-shm"));
  unlink(link);
}

int main(void) {
  test_hash();
  char dir[] = "/tmp/fusim-test-db-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char path[256];
  snprintf(path, sizeof path, "%s/t.db", dir);

  fu_db *db = NULL;
  EXPECT_INT_EQ(fu_db_open(path, FU_DB_READONLY, &db), FU_ENOINPUT); /* missing, read-only */
  EXPECT(db == NULL);
  EXPECT_INT_EQ(fu_db_open(path, FU_DB_READWRITE, &db), FU_OK);
  EXPECT_INT_EQ(query_int(db, "PRAGMA user_version"), fu_db_schema_version());
  EXPECT_INT_EQ(query_int(db, "PRAGMA foreign_keys"), 1);
  EXPECT_INT_EQ(query_int(db, "SELECT count(*) FROM sqlite_schema WHERE name IN "
                              "('v_fit_quality','v_prediction_error')"), 2);

  fu_provenance p;
  memset(&p, 0, sizeof p);
  strcpy(p.host, "node1");
  strcpy(p.gpu, "NVIDIA H200");
  strcpy(p.nccl, "2.28.3");
  strcpy(p.tool, "test");
  int64_t r1 = 0, r2 = 0, r3 = 0;
  EXPECT_INT_EQ(fu_db_run_begin(db, "import", &p, &r1), FU_OK);
  EXPECT_INT_EQ(fu_db_run_begin(db, "calib", &p, &r2), FU_OK);
  strcpy(p.nccl, "2.29.7");
  EXPECT_INT_EQ(fu_db_run_begin(db, "import", &p, &r3), FU_OK);
  EXPECT(r1 != r2 && r2 != r3);
  EXPECT_INT_EQ(query_int(db, "SELECT count(*) FROM hosts"), 2);  /* same host twice -> one row */
  EXPECT_INT_EQ(query_int(db, "SELECT count(DISTINCT host_id) FROM runs"), 2);
  EXPECT_INT_EQ(query_int(db, "SELECT count(*) FROM hosts WHERE driver IS NULL"), 2); /* "" -> NULL */
  EXPECT(fu_db_run_begin(db, "bogus", &p, &r3) != FU_OK);          /* CHECK on kind */
  EXPECT_INT_EQ(fu_db_run_note(db, r1, "first"), FU_OK);
  EXPECT_INT_EQ(fu_db_run_note(db, r1, "second"), FU_OK);
  EXPECT_INT_EQ(query_int(db, "SELECT notes = 'first' || char(10) || 'second' FROM runs WHERE id = 1"), 1);
  EXPECT_INT_EQ(fu_db_run_note(db, 9999, "x"), FU_EDATA);

  /* Samples round trip, NaN -> NULL -> NaN. */
  fu_sample s;
  fu_sample_init(&s);
  EXPECT(isnan(s.t_min_us) && s.n_wrong == -1 && s.count == 1 && s.ranks == 1);
  strcpy(s.op, "allreduce");
  strcpy(s.link, "nvlink");
  s.ranks = 8;
  EXPECT_INT_EQ(fu_db_begin(db), FU_OK);
  for (int i = 0; i < 10; i++) {
    s.bytes = 1024ull << i;
    s.in_place = i & 1;
    s.t_median_us = 10.0 + i;
    EXPECT_INT_EQ(fu_db_sample_insert(db, r1, &s), FU_OK);
  }
  EXPECT_INT_EQ(fu_db_commit(db), FU_OK);
  s.t_median_us = -1.0;                                            /* CHECK t > 0 */
  EXPECT_INT_EQ(fu_db_sample_insert(db, r1, &s), FU_EDATA);
  fu_sample *v = NULL;
  size_t n = 0;
  EXPECT_INT_EQ(fu_db_samples_select(db, "allreduce", "nvlink", 8, 0, &v, &n), FU_OK);
  EXPECT_INT_EQ(n, 10);
  if (n == 10) {
    EXPECT_INT_EQ(v[3].bytes, 8192);
    EXPECT_NEAR(v[3].t_median_us, 13.0, 0);
    EXPECT_INT_EQ(v[3].in_place, 1);
    EXPECT(isnan(v[3].t_min_us));
    EXPECT_INT_EQ(v[3].n_wrong, -1);
    EXPECT_STR_EQ(v[3].dtype, "");
  }
  free(v);
  EXPECT_INT_EQ(fu_db_samples_select(db, "allgather", NULL, 0, 0, &v, &n), FU_OK);
  EXPECT_INT_EQ(n, 0);
  free(v);

  /* A rolled-back transaction leaves nothing. */
  EXPECT_INT_EQ(fu_db_begin(db), FU_OK);
  EXPECT_INT_EQ(fu_db_sample_insert(db, r1, &s), FU_EDATA); /* still t = -1 */
  s.t_median_us = 5;
  EXPECT_INT_EQ(fu_db_sample_insert(db, r1, &s), FU_OK);
  EXPECT_INT_EQ(fu_db_rollback(db), FU_OK);
  EXPECT_INT_EQ(query_int(db, "SELECT count(*) FROM samples"), 10);

  /* Fit: two segments; beta 1e-5 us/B is 100 GB/s. */
  fu_fit_row f[2];
  memset(f, 0, sizeof f);
  for (int i = 0; i < 2; i++) {
    strcpy(f[i].op, "allreduce");
    strcpy(f[i].link, "nvlink");
    f[i].ranks = 8;
    f[i].segment = i;
    f[i].lo_bytes = i ? 65536 : 8;
    f[i].hi_bytes = i ? INFINITY : 65536;
    f[i].alpha_us = 20 + i;
    f[i].alpha_lo = 19;
    f[i].alpha_hi = NAN;
    f[i].beta_us_per_byte = 1e-5;
    f[i].max_rel_err = 0.03;
    f[i].n_samples = 7;
    strcpy(f[i].method, "wls");
  }
  int64_t fit_id = 0;
  EXPECT_INT_EQ(fu_db_fit_store(db, "fusim fit --op allreduce", f, 2, &fit_id), FU_OK);
  EXPECT(fit_id > 0);
  EXPECT_INT_EQ(query_int(db, "SELECT count(*) FROM v_fit_quality"), 2);
  EXPECT_NEAR(query_real(db, "SELECT bw_gbps FROM v_fit_quality WHERE segment = 1"), 100.0, 1e-9);
  EXPECT_INT_EQ(query_int(db, "SELECT alpha_hi IS NULL FROM v_fit_quality WHERE segment = 0"), 1);
  EXPECT_INT_EQ(query_int(db, "SELECT hi_bytes > 1e308 FROM v_fit_quality WHERE segment = 1"), 1);
  f[1].alpha_us = NAN;                                             /* rejected, all or nothing */
  EXPECT_INT_EQ(fu_db_fit_store(db, "x", f, 2, &fit_id), FU_EDATA);
  EXPECT_INT_EQ(query_int(db, "SELECT count(*) FROM fit_segments"), 2);
  EXPECT_INT_EQ(query_int(db, "SELECT count(*) FROM fits"), 1);

  /* Prediction 110 us against measured 100 us: rel_err +0.10. */
  fu_prediction_row pr;
  memset(&pr, 0, sizeof pr);
  strcpy(pr.workload, "bert_large_b8");
  strcpy(pr.plan, "cap:25MiB overlap=on pack=copy");
  strcpy(pr.comm, "allreduce:8:nvlink");
  strcpy(pr.profile, "h200-default");
  pr.iter_us = 110;
  pr.iter_lo_us = pr.iter_hi_us = NAN;
  pr.json = "{\"iter_us\": 110}";
  int64_t pid = 0, pid2 = 0, mid = 0;
  EXPECT_INT_EQ(fu_db_prediction_store(db, &pr, &pid), FU_OK);
  pr.iter_us = 90;
  EXPECT_INT_EQ(fu_db_prediction_store(db, &pr, &pid2), FU_OK);
  EXPECT_INT_EQ(query_int(db, "SELECT count(*) FROM workloads"), 1);
  EXPECT_INT_EQ(query_int(db, "SELECT count(*) FROM plans"), 1);
  fu_measurement_row m;
  memset(&m, 0, sizeof m);
  m.prediction_id = pid;
  m.measured_us = 100;
  m.spread_us = 2;
  m.iterations = 50;
  strcpy(m.git_commit, "abc123");
  EXPECT_INT_EQ(fu_db_measurement_store(db, &m, &mid), FU_OK);
  m.prediction_id = pid2;
  EXPECT_INT_EQ(fu_db_measurement_store(db, &m, &mid), FU_OK);
  m.prediction_id = 12345;
  EXPECT_INT_EQ(fu_db_measurement_store(db, &m, &mid), FU_EDATA);
  EXPECT_INT_EQ(query_int(db, "SELECT count(*) FROM v_prediction_error"), 2);
  EXPECT_NEAR(query_real(db, "SELECT rel_err FROM v_prediction_error WHERE predicted_us = 110"), 0.10, 1e-12);
  EXPECT_NEAR(query_real(db, "SELECT rel_err FROM v_prediction_error WHERE predicted_us = 90"), -0.10, 1e-12);
  EXPECT_NEAR(query_real(db, "SELECT abs_rel_err FROM v_prediction_error WHERE predicted_us = 90"), 0.10, 1e-12);
  fu_db_close(db);
  fu_db_close(NULL);

  /* Reopen: no second migration, data kept; read-only refuses writes. */
  EXPECT_INT_EQ(fu_db_open(path, FU_DB_READONLY, &db), FU_OK);
  EXPECT_INT_EQ(query_int(db, "SELECT count(*) FROM samples"), 10);
  EXPECT(fu_db_run_begin(db, "import", &p, &r1) != FU_OK);
  fu_db_close(db);

  /* Not a database: text file. Opening fails with one message and the file is unchanged. */
  char bad[256];
  snprintf(bad, sizeof bad, "%s/bad.db", dir);
  FILE *fp = fopen(bad, "w");
  for (int i = 0; i < 200; i++) fputs("this is not an sqlite file\n", fp);
  fclose(fp);
  EXPECT_INT_EQ(fu_db_open(bad, FU_DB_READWRITE, &db), FU_EDATA); /* bad data: exit 65 */
  EXPECT_INT_EQ(fu_db_open(dir, FU_DB_READWRITE, &db), FU_EUSAGE); /* a directory */
  test_remove_unused(dir);

  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) return 1;
  return fu_test_report("test_db");
}
