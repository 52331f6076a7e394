/* fu_db.h: the results database (SQLite). Schema in data/schema.sql, migrations by
 * PRAGMA user_version, STRICT tables, foreign keys on, WAL, busy timeout so that two writers
 * both succeed. One transaction per logical write: a failed command leaves the file as it was. */
#ifndef FU_DB_H
#define FU_DB_H

#include <stddef.h>
#include <stdint.h>

typedef struct fu_db fu_db;
typedef struct sqlite3 sqlite3;

enum { FU_DB_READWRITE = 0, FU_DB_READONLY = 1 };

/* Opens (creating and migrating when writable) the database. Prints "PATH: what is wrong"
 * on failure (corrupt, not a database, read-only, locked) and returns FU_EDB / FU_ENOINPUT. */
int fu_db_open(const char *path, int flags, fu_db **out);
void fu_db_close(fu_db *db);          /* accepts NULL */
/* The name to give sqlite3_open_v2 for the file `path`: path itself, or "./path" where SQLite
 * would read path as something else than that file (a "file:" URI, which the system's SQLite
 * may be built to take without SQLITE_OPEN_URI, or ":memory:"). malloc'd; NULL: out of memory. */
char *fu_db_sqlite_name(const char *path);
/* A WAL database in a folder we may not write cannot be read the usual way: readers need the
 * -shm file. When the first read on *h (opened read-only on path) fails so, *h is reopened as
 * immutable (no other process can be writing it either: nobody can create the WAL files there)
 * and *reopened set. SQLite result code of the reopen, SQLITE_OK where none was needed. */
int fu_db_reopen_immutable(sqlite3 **h, const char *path, int *reopened);
sqlite3 *fu_db_handle(fu_db *db);     /* for ad-hoc queries (report) */
const char *fu_db_path(const fu_db *db);
/* The schema version this build migrates to (PRAGMA user_version). */
int fu_db_schema_version(void);

/* BEGIN IMMEDIATE (waits on the busy timeout) / COMMIT / ROLLBACK. */
int fu_db_begin(fu_db *db);
int fu_db_commit(fu_db *db);
int fu_db_rollback(fu_db *db);

/* The build: fusim's release ("0.1.0") and the source commit it was built from (meson's
 * vcs_tag: `git describe --always --dirty`, "unknown" when built outside git). Every run row
 * stores both. */
const char *fu_db_build_version(void);
const char *fu_db_build_commit(void);

/* Where a set of results came from. Empty strings are stored as NULL. */
typedef struct fu_provenance {
  char host[128];            /* host name */
  char gpu[128];             /* GPU model, e.g. "NVIDIA H200" */
  char driver[64];           /* driver version */
  char cuda[64];             /* CUDA runtime version */
  char nccl[64];             /* NCCL version */
  char topology[256];        /* link topology, e.g. "PCIe Gen5 x16; NVLink x0" */
  char source_file[512];     /* input file (import) or "" */
  char cmdline[1024];        /* fusim command line, or the benchmark's when the log shows it */
  char tool[64];             /* "nccl-tests 2.19.6", "fusim calib", "csv" ... */
  char notes[512];           /* free text: clocks at start/end, device lines, ... */
  char content_hash[65];     /* import: SHA-256 (hex) of the file's bytes, or "" */
} fu_provenance;

/* Provenance of a command run here: host name (uname), the command line "fusim ARGV..." and
 * tool; GPU, driver, CUDA and NCCL are left empty (CPU commands do not know them). */
void fu_provenance_local(fu_provenance *p, const char *tool, int argc, char **argv);

/* A run: creates the host row (deduplicated) and the run row, with this build's version and
 * commit. kind: import, calib, fit, predict, plan, validate or measure. */
int fu_db_run_begin(fu_db *db, const char *kind, const fu_provenance *prov, int64_t *run_id);
/* The latest run that imported a file with this content hash (0 when none): a second import of
 * the same bytes is skipped unless asked for again. */
int fu_db_import_find(fu_db *db, const char *content_hash, int64_t *run_id);
/* Stores a note (clocks at the end, counts) on a finished run. */
int fu_db_run_note(fu_db *db, int64_t run_id, const char *notes);

typedef struct fu_sample {
  char op[24];               /* fu_op name */
  char link[16];             /* fu_link name */
  char dtype[16];            /* "float", "bf16", ... or "" */
  char algo[16];             /* NCCL_ALGO forced, or "" for NCCL's choice */
  char proto[16];            /* NCCL_PROTO forced, or "" */
  int ranks;                 /* ranks taking part */
  int in_place;              /* 1 in-place, 0 out-of-place */
  int graph;                 /* 1 when captured in a CUDA graph */
  uint64_t bytes;            /* message size as nccl-tests prints it (per rank buffer) */
  double t_min_us;           /* fastest iteration (NaN when unknown) */
  double t_median_us;        /* median (or the mean a log reports; see provenance) */
  double t_p95_us;           /* 95th percentile (NaN when unknown) */
  int count;                 /* iterations behind the statistics */
  double busbw_gbps;         /* bus bandwidth as reported or computed, GB/s (NaN when unknown) */
  int n_wrong;               /* data errors seen (-1 when unknown) */
  int nodes;                 /* nodes the ranks ran on (insert: 0 = not given; select: the
                                column, else the hosts of the run's host row, at least 1) */
  int gpus_per_proc;         /* GPUs one process drove (nccl-tests -g x -t), 0 unknown */
  char nccl_version[16];     /* the NCCL the run used, "2.29.2" ("" unknown) */
  char gpu[64];              /* select only: GPU model of the run's host row ("" unknown) */
  char host[128];            /* select only: host name(s) of the run ("a; b" for two nodes) */
} fu_sample;

void fu_sample_init(fu_sample *s);    /* zero, NaN statistics, n_wrong -1, count 1, ranks 1 */

/* Prepared statement cached inside db; call between fu_db_begin and fu_db_commit for bulk. */
int fu_db_sample_insert(fu_db *db, int64_t run_id, const fu_sample *s);

/* Three result columns for a query over `samples s` joined to its run's host row `hosts h`:
 * `nodes` (the column, else the hosts the host row names, "a; b": at least 1),
 * `gpus_per_process` and `nccl_version` (NULL unknown), as far as this database's schema has them
 * (an older file opened read-only keeps its version). */
const char *fu_db_sample_layout_sql(const fu_db *db);

/* Samples matching a filter (NULL / 0 = any), ordered by op, link, ranks, bytes.
 * *out is malloc'd; free with free(). */
int fu_db_samples_select(fu_db *db, const char *op, const char *link, int ranks, int64_t run_id,
                         fu_sample **out, size_t *n);

/* One fitted segment. */
typedef struct fu_fit_row {
  char op[24];
  char link[16];
  int ranks;
  char algo[16];
  int segment;               /* 0-based segment index */
  double lo_bytes, hi_bytes; /* size range */
  double alpha_us, alpha_lo, alpha_hi;   /* estimate and 95% CI */
  double beta_us_per_byte, beta_lo, beta_hi;
  double max_rel_err;        /* fraction */
  int n_samples;
  char method[32];           /* "wls", "bisquare" */
  char profile[64];          /* profile name written, or "" */
  char flags[64];            /* "ci_spans_zero", "over_link_limit" (comma separated) or "" */
  int nodes;                 /* hosts the curve's ranks spanned (0 unknown) */
  int gpus_per_proc;         /* GPUs one process drove (0 unknown or mixed) */
  char gpu[64];              /* GPU model the samples came from ("" unknown) */
  int in_place;              /* the samples fitted: 1 in-place, 0 out-of-place, -1 unknown */
  char dtype[16];            /* their data type, canonical ("" unknown) */
  int graph;                 /* 1 captured in a CUDA graph, 0 not, -1 unknown */
} fu_fit_row;

/* A fit: rows stored under one fit run (kept with the command line and time). */
int fu_db_fit_store(fu_db *db, const char *cmdline, const fu_fit_row *rows, size_t n,
                    int64_t *fit_id);

/* Workloads and profiles by content: the JSON is put in canonical form (fu_hash_json), hashed,
 * and stored once; the id of the row holding that content is returned (made if absent, under
 * the name the JSON gives, else `name`). A profile stored for a fit (fit_id > 0) is recorded as
 * that fit's profile. FU_EDATA when the text is not JSON. */
int fu_db_workload_store(fu_db *db, const char *json, const char *name, int64_t *workload_id);
int fu_db_profile_store(fu_db *db, const char *json, const char *name, int64_t run_id,
                        int64_t fit_id, int64_t *profile_id);

typedef struct fu_prediction_row {
  char workload[128];        /* workload name (a label; the content is workload_json) */
  char plan[256];            /* plan as asked, canonical: "cap:25MiB,first:1MiB overlap=on pack=copy streams=1" */
  char comm[64];             /* "allreduce:8:nvlink", "offload" */
  char profile[64];          /* profile name (a label; the content is profile_json) */
  double iter_us, iter_lo_us, iter_hi_us; /* iteration time and its interval from the fits' CIs */
  double compute_us, comm_us, exposed_comm_us; /* the result's parts */
  int n_ops;                 /* communication operations */
  uint64_t fusion_buffer_bytes; /* largest fusion buffer */
  const char *json;          /* the full predict JSON object (may be NULL) */
  char cmdline[1024];        /* "fusim predict ..." (used for the run made when run_id is 0) */
  /* schema 2: what was simulated, so that the prediction can be re-run from the database */
  int64_t run_id;            /* the command's run (fu_db_run_begin); 0: one is made (kind below) */
  char kind[16];             /* run kind when one is made: "predict" (default), "plan", "validate" */
  const char *workload_json; /* the workload as simulated (fusim-workload-1); NULL: not kept */
  const char *profile_json;  /* the profile as simulated (fusim-profile-1); NULL: not kept */
  const char *buckets_json;  /* resolved buckets "[[first,last],...]" (sim/fu_content.h); NULL:
                                taken from json's "buckets" */
  char framework[16];        /* "ideal", "ddp", "hooks"; "" when the command has no such notion */
  int ranks;                 /* GPUs taking part (nodes x GPUs per node); 0 unknown */
} fu_prediction_row;

/* Stores a prediction: workload and profile by content, the plan, the run (made when
 * p->run_id is 0), the resolved buckets. One transaction (or a savepoint in the caller's). */
int fu_db_prediction_store(fu_db *db, const fu_prediction_row *p, int64_t *prediction_id);

typedef struct fu_measurement_row {
  int64_t prediction_id;     /* the prediction this measurement checks */
  double measured_us;        /* median iteration time */
  double spread_us;          /* p95 - p5 (or IQR) of the iterations */
  int iterations;            /* timed iterations */
  double compute_only_us;    /* compute-only iteration measured in the same run */
  double sm_clock_mhz_start, sm_clock_mhz_end, power_w; /* clocks and power beside it */
  char git_commit[64];       /* fusim commit used */
  const char *json;          /* extra detail (may be NULL) */
} fu_measurement_row;

int fu_db_measurement_store(fu_db *db, const fu_measurement_row *m, int64_t *measurement_id);

/* An iteration time measured outside fusim (a CSV row of fusim import): matched to predictions
 * by workload, plan, GPUs and framework in v_prediction_error. */
typedef struct fu_measured_row {
  int64_t workload_id;       /* workloads.id (fu_db_workload_find / fu_db_workload_store) */
  char plan[256];            /* canonical plan string, as predictions store it */
  double measured_us;        /* iteration time */
  double spread_us;          /* NaN when not given */
  int gpus;                  /* 0 when not given */
  char framework[16];        /* "" when not given */
  char notes[512];           /* free text */
} fu_measured_row;

int fu_db_measured_store(fu_db *db, int64_t run_id, const fu_measured_row *m, int64_t *measurement_id);

/* Workload ids by label or hash: a 64-hex-digit string is a hash (or unique hash prefix of at
 * least 8 digits), else a name. *n is the number of matches (0, 1, or more: ambiguous), *id the
 * first (by id). */
int fu_db_workload_find(fu_db *db, const char *name_or_hash, int64_t *id, int *n);

#endif
