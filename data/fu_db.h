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
sqlite3 *fu_db_handle(fu_db *db);     /* for ad-hoc queries (report) */
const char *fu_db_path(const fu_db *db);
/* The schema version this build migrates to (PRAGMA user_version). */
int fu_db_schema_version(void);

/* BEGIN IMMEDIATE (waits on the busy timeout) / COMMIT / ROLLBACK. */
int fu_db_begin(fu_db *db);
int fu_db_commit(fu_db *db);
int fu_db_rollback(fu_db *db);

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
} fu_provenance;

/* A calibration or import run: creates the host row (deduplicated) and the run row. */
int fu_db_run_begin(fu_db *db, const char *kind, const fu_provenance *prov, int64_t *run_id);
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
} fu_sample;

void fu_sample_init(fu_sample *s);    /* zero, NaN statistics, n_wrong -1, count 1, ranks 1 */

/* Prepared statement cached inside db; call between fu_db_begin and fu_db_commit for bulk. */
int fu_db_sample_insert(fu_db *db, int64_t run_id, const fu_sample *s);

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
} fu_fit_row;

/* A fit: rows stored under one fit run (kept with the command line and time). */
int fu_db_fit_store(fu_db *db, const char *cmdline, const fu_fit_row *rows, size_t n,
                    int64_t *fit_id);

typedef struct fu_prediction_row {
  char workload[128];        /* workload name */
  char plan[256];            /* plan string, e.g. "cap:25MiB,first:1MiB overlap=on pack=copy" */
  char comm[64];             /* "allreduce:8:nvlink", "offload" */
  char profile[64];          /* profile name */
  double iter_us, iter_lo_us, iter_hi_us;
  double compute_us, comm_us, exposed_comm_us;
  int n_ops;
  uint64_t fusion_buffer_bytes;
  const char *json;          /* the full predict JSON object (may be NULL) */
  char cmdline[1024];
} fu_prediction_row;

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

#endif
