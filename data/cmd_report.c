/* cmd_report.c: fusim report: print stored samples, fits, predictions, errors, runs, or the
 * result of any read-only SQL query, as a table, CSV or JSON.
 *
 * The database is opened read-only (SQLITE_OPEN_READONLY and PRAGMA query_only), so `report sql`
 * cannot change it whatever the query says; a writing statement is refused before it runs. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_check.h"
#include "fu_common.h"
#include "fu_db.h"
#include "fu_model.h"
#include "fu_options.h"
#include "fu_report.h"

static const char fu__report_head[] =
    "usage: fusim report [options] samples|fits|predictions|errors|runs|accuracy|profiles|\n"
    "                              fit-error|provenance|check\n"
    "       fusim report [options] sql \"SELECT ...\"\n"
    "       fusim report [options] rerun [ID...]\n"
    "\n"
    "  samples       stored samples with their nodes and GPUs a process (filter with --op,\n"
    "                --link, --ranks, --run); its CSV imports back as the same samples\n"
    "  fits          v_fit_quality: every fitted segment, alpha/beta with 95% CIs, max_rel_err\n"
    "  predictions   stored predictions\n"
    "  errors        v_prediction_error: predicted vs measured, rel_err as a fraction\n"
    "  runs          imports, calibrations, fits, ... with their provenance\n"
    "  check         is the database whole? PRAGMA integrity_check, foreign keys, and the\n"
    "                schema's own rules (CHECK, NOT NULL, STRICT types, content hashes) over\n"
    "                every row; problems on stdout, exit 65 when there are any\n"
    "  accuracy      v_plan_accuracy: predictions against measurements per plan\n"
    "  profiles      v_latest_profile: the latest profile stored for each machine (GPU)\n"
    "  fit-error     v_fit_error_by_size: each fit against the samples, size by size\n"
    "  provenance    v_prediction_provenance: what produced each prediction\n"
    "  sql QUERY     any read-only query (tables: hosts, runs, samples, fits, fit_segments,\n"
    "                workloads, profiles, plans, predictions, measurements; the views above)\n"
    "  rerun [ID]    simulate stored predictions again from the database alone (their\n"
    "                workload, profile, plan, resolved buckets and comm) and check that each\n"
    "                reproduces: the same iteration time (relative difference <= 1e-9) and,\n"
    "                re-resolving the plan, the same buckets; exit 65 if one does not\n"
    "                (default: every prediction whose content was stored)\n"
    "\n"
    "Numbers in table and CSV output are the shortest decimals that read back exactly.\n"
    "\n";

/* Queries of the named reports; ?1..?4 are the sample filters (NULL = any). The samples report's
 * %s is its node count, process layout and NCCL (fu_db_sample_layout_sql: columns nodes,
 * gpus_per_process and nccl_version, as `fusim import` reads them from CSV), whatever the
 * database's version. */
static const struct {
  const char *name;          /* report name */
  const char *sql;           /* its query */
} fu__reports[] = {
    {"samples",
     "SELECT s.id, s.run_id, s.op, s.link, s.ranks, s.bytes, s.in_place, s.dtype, s.algo, "
     "s.proto, s.graph, s.t_min_us, s.t_median_us, s.t_p95_us, s.count, s.busbw_gbps, s.n_wrong, %s "
     "FROM samples s LEFT JOIN runs r ON r.id = s.run_id LEFT JOIN hosts h ON h.id = r.host_id "
     "WHERE (?1 IS NULL OR s.op = ?1) AND (?2 IS NULL OR s.link = ?2) "
     "AND (?3 IS NULL OR s.ranks = ?3) AND (?4 IS NULL OR s.run_id = ?4) "
     "ORDER BY s.op, s.link, s.ranks, s.bytes, s.in_place, s.id"},
    {"fits", "SELECT * FROM v_fit_quality ORDER BY fit_id, op, link, ranks, algo, segment"},
    {"predictions",
     "SELECT p.id, w.name AS workload, pl.plan, p.comm, p.profile, p.iter_us, p.iter_lo_us, "
     "p.iter_hi_us, p.compute_us, p.comm_us, p.exposed_comm_us, p.n_ops, p.fusion_buffer_bytes, "
     "p.created FROM predictions p JOIN workloads w ON w.id = p.workload_id "
     "JOIN plans pl ON pl.id = p.plan_id ORDER BY p.id"},
    {"errors", "SELECT * FROM v_prediction_error ORDER BY measurement_id"},
    {"runs",
     "SELECT r.id, r.kind, r.created, r.tool, r.source_file, h.host_name, h.gpu, h.driver, h.cuda, "
     "h.nccl, (SELECT count(*) FROM samples s WHERE s.run_id = r.id) AS samples, r.cmdline, "
     "r.fusim_version, r.fusim_commit, r.content_hash, r.notes "
     "FROM runs r LEFT JOIN hosts h ON h.id = r.host_id ORDER BY r.id"},
    {"accuracy", "SELECT * FROM v_plan_accuracy ORDER BY workload, plan, profile"},
    {"profiles", "SELECT * FROM v_latest_profile ORDER BY gpu"},
    /* a curve is (op, link, ranks, nodes, algo) of a fit: its rows together, by size */
    {"fit-error", "SELECT * FROM v_fit_error_by_size ORDER BY fit_id, op, link, ranks, nodes, algo, bytes"},
    {"provenance", "SELECT * FROM v_prediction_provenance ORDER BY prediction_id"},
};


/* report check: the database whole and keeping its schema's rules (fu_check.h); problems one a
 * line on stdout, then one line on stderr and exit 65. */
static int fu__check(const char *path) {
  size_t problems = 0, checks = 0;
  int st = fu_db_check(path, stdout, &problems, &checks);
  if (st != FU_OK) return fu_exit_code(st);
  if (problems) {
    fu_error("report check: %s: %zu problem%s (listed on stdout)", path, problems, problems == 1 ? "" : "s");
    return fu_exit_code(FU_EDATA);
  }
  printf("%s: ok (integrity_check, foreign keys, schema version and %zu rules of the schema)\n", path,
         checks);
  return 0;
}

int fu_cmd_report(int argc, char **argv) {
  fu_opt_output out;
  fu_opt_output_init(&out);
  const char *op = NULL, *link = NULL;
  long ranks = 0, run = 0;
  const fu_option rows[] = {
      FU_OPT_ROW_DB(&out.db),
      FU_OPT_ROW_FORMAT(&out.format),
      {FU_OPT_STR(0, "op", &op, "OP", "samples of this operation only")},
      {FU_OPT_STR(0, "link", &link, "L", "samples of this link class only")},
      {FU_OPT_INT(0, "ranks", &ranks, 1, 1048576, "N", "samples at this rank count only")},
      {FU_OPT_INT(0, "run", &run, 1, 0x7fffffffL, "ID", "samples of this run only")},
      FU_OPT_END,
  };
  const fu_opt_cmd cmd = {"report", fu__report_head, NULL, rows, -1};
  int optind, done;
  int pst = fu_opt_parse(&cmd, argc, argv, &optind, &done);
  if (pst != FU_OK || done) return fu_exit_code(pst);
  /* Filters name an operation or a link class: an unknown name would match nothing and print an
   * empty table as if there were no samples. Stored names are the canonical ones. */
  fu_op op_v;
  fu_link link_v;
  if (op && fu_op_parse(op, &op_v) != FU_OK) {
    fu_opt_usage_error(&cmd, "--op '%s': not an operation (allreduce, allgather, reducescatter, ...)", op);
    return fu_exit_code(FU_EUSAGE);
  }
  if (link && fu_link_parse(link, &link_v) != FU_OK) {
    fu_opt_usage_error(&cmd, "--link '%s': not a link class (nvlink, pcie, hbm, net, ...)", link);
    return fu_exit_code(FU_EUSAGE);
  }
  if (op) op = fu_op_name(op_v);
  if (link) link = fu_link_name(link_v);
  fu_format fmt = out.format;
  if (optind >= argc) {
    fu_error("report: say what to report: samples, fits, predictions, errors, runs, accuracy, "
             "profiles, fit-error, provenance, sql QUERY or rerun");
    return fu_exit_code(FU_EUSAGE);
  }
  const char *what = argv[optind];
  const char *sql = NULL;
  /* the filters select samples: given to another report they would be ignored, and the whole
   * table printed as if it were the selection */
  if ((op || link || ranks || run) && strcmp(what, "samples") != 0) {
    fu_opt_usage_error(&cmd, "--op, --link, --ranks and --run filter the samples report only, not '%s' "
                       "(for the others: fusim report sql \"SELECT ... WHERE ...\")", what);
    return fu_exit_code(FU_EUSAGE);
  }
  int is_sql = strcmp(what, "sql") == 0;
  if (!strcmp(what, "rerun")) return fu_exit_code(fu_report_rerun(out.db, out.format, argc - optind - 1, argv + optind + 1));
  if (!strcmp(what, "check")) {
    if (optind + 1 != argc) {
      fu_opt_usage_error(&cmd, "report check takes no argument after 'check'");
      return fu_exit_code(FU_EUSAGE);
    }
    if (out.format != FU_FORMAT_TABLE) { /* a script asking for JSON must not get text back */
      fu_opt_usage_error(&cmd, "report check prints its findings as text, one a line; it takes no --format");
      return fu_exit_code(FU_EUSAGE);
    }
    return fu__check(fu_db_path_default(out.db));
  }
  if (is_sql) {
    if (optind + 2 != argc) {
      fu_error("report sql: give the query as one argument, e.g. fusim report sql \"SELECT * FROM runs\"");
      return fu_exit_code(FU_EUSAGE);
    }
    sql = argv[optind + 1];
  } else {
    for (size_t i = 0; i < sizeof fu__reports / sizeof fu__reports[0]; i++)
      if (!strcmp(what, fu__reports[i].name)) sql = fu__reports[i].sql;
    if (!sql || optind + 1 != argc) {
      fu_error("report: '%s' is not a report (samples, fits, predictions, errors, runs, accuracy, "
               "profiles, fit-error, provenance, sql QUERY, rerun, check)",
               sql ? argv[optind + 1] : what);
      return fu_exit_code(FU_EUSAGE);
    }
  }
  fu_db *db = NULL;
  int st = fu_db_open(fu_db_path_default(out.db), FU_DB_READONLY, &db);
  if (st != FU_OK) return fu_exit_code(st);
  int is_samples = !is_sql && !strcmp(what, "samples");
  char samples_sql[1024];
  if (is_samples) {
    snprintf(samples_sql, sizeof samples_sql, sql, fu_db_sample_layout_sql(db));
    sql = samples_sql;
  }
  sqlite3_stmt *stmt = NULL;
  const char *tail = NULL;
  int rc = sqlite3_prepare_v2(fu_db_handle(db), sql, -1, &stmt, &tail);
  if (rc != SQLITE_OK || !stmt) {
    fu_error("report %s: %s", what, rc != SQLITE_OK ? sqlite3_errmsg(fu_db_handle(db)) : "empty query");
    fu_db_close(db);
    return fu_exit_code(FU_EUSAGE);
  }
  while (tail && (*tail == ' ' || *tail == '\n' || *tail == '\t' || *tail == ';' || *tail == '\r')) tail++;
  if (is_sql && tail && *tail) {
    fu_error("report sql: one statement only (found more after the first: '%.30s')", tail);
    st = FU_EUSAGE;
  } else if (is_sql && !sqlite3_stmt_readonly(stmt)) {
    fu_error("report sql: only read-only queries are allowed; the database is opened read-only");
    st = FU_EUSAGE;
  }
  if (st == FU_OK && is_samples) {
    if (op) sqlite3_bind_text(stmt, 1, op, -1, SQLITE_TRANSIENT);
    if (link) sqlite3_bind_text(stmt, 2, link, -1, SQLITE_TRANSIENT);
    if (ranks) sqlite3_bind_int64(stmt, 3, ranks);
    if (run) sqlite3_bind_int64(stmt, 4, run);
  }
  if (st == FU_OK) st = fu_report_print_rows(stmt, fmt, what, is_sql);
  sqlite3_finalize(stmt);
  fu_db_close(db);
  return fu_exit_code(st);
}
