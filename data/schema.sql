-- schema.sql: the fusim results database, schema version 1.
--
-- Applied by fu_db.c (migration 1) inside one transaction, after which it sets
-- PRAGMA user_version = 1. fu_db.c also turns on foreign_keys (per connection) and WAL (once
-- per file; it cannot change inside a transaction, so it is not set here). Later versions add
-- migrations to the list in fu_db.c; never edit a released version's statements.
--
-- Units: times in microseconds (us), sizes in bytes, bandwidths in GB/s (1e9 bytes/s), errors
-- as fractions. Timestamps are ISO-8601 UTC text. Empty provenance strings are stored as NULL.

-- A machine results came from; deduplicated on all its fields (NULL matches NULL).
CREATE TABLE hosts (
  id        INTEGER PRIMARY KEY,
  host_name TEXT,                 -- host name as the log or uname shows it
  gpu       TEXT,                 -- GPU model, e.g. 'NVIDIA H200'
  driver    TEXT,                 -- driver version
  cuda      TEXT,                 -- CUDA runtime version
  nccl      TEXT,                 -- NCCL version
  topology  TEXT,                 -- link topology, free text
  created   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
CREATE UNIQUE INDEX hosts_dedup ON hosts (
  coalesce(host_name, ''), coalesce(gpu, ''), coalesce(driver, ''), coalesce(cuda, ''),
  coalesce(nccl, ''), coalesce(topology, ''));

-- One invocation that wrote results: an import, a calibration, a fit, a prediction, a validation.
CREATE TABLE runs (
  id          INTEGER PRIMARY KEY,
  kind        TEXT NOT NULL CHECK (kind IN ('import', 'calib', 'fit', 'predict', 'validate')),
  host_id     INTEGER REFERENCES hosts (id),
  tool        TEXT,               -- 'nccl-tests 2.19.6', 'fusim calib', 'csv', ...
  source_file TEXT,               -- imported file, if any
  cmdline     TEXT,               -- fusim command line (or the benchmark's, see notes)
  notes       TEXT,               -- free text: device lines, clocks, 'time column is a mean', ...
  created     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
CREATE INDEX runs_kind ON runs (kind, created);

-- One measured point: an operation at one size (statistics over `count` iterations).
CREATE TABLE samples (
  id          INTEGER PRIMARY KEY,
  run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  op          TEXT NOT NULL CHECK (length(op) > 0),    -- fu_op name: 'allreduce', 'h2d', ...
  link        TEXT NOT NULL CHECK (length(link) > 0),  -- fu_link name: 'nvlink', 'pcie_h2d', ...
  ranks       INTEGER NOT NULL CHECK (ranks >= 1),
  bytes       INTEGER NOT NULL CHECK (bytes >= 0),     -- per-rank buffer size as nccl-tests prints it
  in_place    INTEGER NOT NULL DEFAULT 0 CHECK (in_place IN (0, 1)),
  dtype       TEXT,                                    -- 'float', 'bf16', ... (NULL unknown)
  algo        TEXT,                                    -- forced NCCL_ALGO, NULL = NCCL's choice
  proto       TEXT,                                    -- forced NCCL_PROTO, NULL = NCCL's choice
  graph       INTEGER NOT NULL DEFAULT 0 CHECK (graph IN (0, 1)),
  t_min_us    REAL CHECK (t_min_us IS NULL OR t_min_us > 0),
  t_median_us REAL CHECK (t_median_us IS NULL OR t_median_us > 0), -- nccl-tests logs: a mean
  t_p95_us    REAL CHECK (t_p95_us IS NULL OR t_p95_us > 0),
  count       INTEGER NOT NULL DEFAULT 1 CHECK (count >= 0),
  busbw_gbps  REAL CHECK (busbw_gbps IS NULL OR busbw_gbps >= 0),
  n_wrong     INTEGER                                  -- data errors; NULL when unknown
) STRICT;
-- The one index on samples serves the fit (op, link, ranks by bytes). There is deliberately no
-- index on run_id: finding one run's samples (report --run, deleting a run) scans the table,
-- O(samples), while a second index would cost about a quarter of the bulk-insert speed.
CREATE INDEX samples_key ON samples (op, link, ranks, bytes);

-- A fit: one `fusim fit` invocation; its segments below.
CREATE TABLE fits (
  id      INTEGER PRIMARY KEY,
  run_id  INTEGER REFERENCES runs (id) ON DELETE CASCADE,
  cmdline TEXT,
  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;

-- One size segment of a piecewise alpha-beta fit: t = alpha + beta * bytes on [lo, hi).
CREATE TABLE fit_segments (
  id               INTEGER PRIMARY KEY,
  fit_id           INTEGER NOT NULL REFERENCES fits (id) ON DELETE CASCADE,
  op               TEXT NOT NULL,
  link             TEXT NOT NULL,
  ranks            INTEGER NOT NULL CHECK (ranks >= 1),
  algo             TEXT,                     -- NULL = NCCL's choice
  segment          INTEGER NOT NULL CHECK (segment >= 0),
  lo_bytes         REAL NOT NULL CHECK (lo_bytes >= 0),
  hi_bytes         REAL NOT NULL CHECK (hi_bytes >= lo_bytes),  -- may be +Inf for the last one
  alpha_us         REAL NOT NULL,
  alpha_lo         REAL,                     -- 95% confidence interval of alpha
  alpha_hi         REAL,
  beta_us_per_byte REAL NOT NULL,
  beta_lo          REAL,                     -- 95% confidence interval of beta
  beta_hi          REAL,
  max_rel_err      REAL CHECK (max_rel_err IS NULL OR max_rel_err >= 0),
  n_samples        INTEGER NOT NULL CHECK (n_samples >= 0),
  method           TEXT,                     -- 'wls', 'bisquare'
  profile          TEXT,                     -- profile name written, NULL if none
  UNIQUE (fit_id, op, link, ranks, algo, segment)
) STRICT;
CREATE INDEX fit_segments_key ON fit_segments (op, link, ranks);

-- A training workload by name (the JSON is kept when known).
CREATE TABLE workloads (
  id      INTEGER PRIMARY KEY,
  name    TEXT NOT NULL UNIQUE,
  json    TEXT,
  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;

-- A fusion plan by its canonical string, e.g. 'cap:25MiB,first:1MiB overlap=on pack=copy'.
CREATE TABLE plans (
  id      INTEGER PRIMARY KEY,
  plan    TEXT NOT NULL UNIQUE,
  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;

-- A simulated iteration (fusim predict / plan).
CREATE TABLE predictions (
  id                  INTEGER PRIMARY KEY,
  run_id              INTEGER REFERENCES runs (id) ON DELETE CASCADE,
  workload_id         INTEGER NOT NULL REFERENCES workloads (id),
  plan_id             INTEGER NOT NULL REFERENCES plans (id),
  comm                TEXT NOT NULL,        -- 'allreduce:8:nvlink', 'offload'
  profile             TEXT,                 -- profile name
  iter_us             REAL NOT NULL CHECK (iter_us >= 0),
  iter_lo_us          REAL,                 -- interval from the fit CIs
  iter_hi_us          REAL,
  compute_us          REAL,
  comm_us             REAL,
  exposed_comm_us     REAL,
  n_ops               INTEGER CHECK (n_ops IS NULL OR n_ops >= 0),
  fusion_buffer_bytes INTEGER CHECK (fusion_buffer_bytes IS NULL OR fusion_buffer_bytes >= 0),
  json                TEXT,                 -- the full predict JSON object
  cmdline             TEXT,
  created             TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
CREATE INDEX predictions_key ON predictions (workload_id, plan_id, comm);

-- A plan executed for real, checking one prediction (fusim validate).
CREATE TABLE measurements (
  id                 INTEGER PRIMARY KEY,
  prediction_id      INTEGER NOT NULL REFERENCES predictions (id) ON DELETE CASCADE,
  measured_us        REAL NOT NULL CHECK (measured_us > 0),  -- median iteration time
  spread_us          REAL CHECK (spread_us IS NULL OR spread_us >= 0),
  iterations         INTEGER CHECK (iterations IS NULL OR iterations >= 0),
  compute_only_us    REAL,
  sm_clock_mhz_start REAL,
  sm_clock_mhz_end   REAL,
  power_w            REAL,
  git_commit         TEXT,
  json               TEXT,
  created            TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
CREATE INDEX measurements_prediction ON measurements (prediction_id);

-- One row per fitted segment with its parameters, 95% CIs and worst relative error.
CREATE VIEW v_fit_quality AS
SELECT s.fit_id, f.created, s.op, s.link, s.ranks, s.algo, s.segment, s.lo_bytes, s.hi_bytes,
       s.alpha_us, s.alpha_lo, s.alpha_hi, s.beta_us_per_byte, s.beta_lo, s.beta_hi,
       CASE WHEN s.beta_us_per_byte > 0 THEN 1e-3 / s.beta_us_per_byte END AS bw_gbps,
       s.max_rel_err, s.n_samples, s.method, s.profile, f.cmdline
FROM fit_segments s JOIN fits f ON f.id = s.fit_id;

-- One row per measured plan: prediction against measurement; rel_err is a fraction,
-- (predicted - measured) / measured, so positive means the model was pessimistic.
CREATE VIEW v_prediction_error AS
SELECT m.id AS measurement_id, p.id AS prediction_id, w.name AS workload, pl.plan AS plan,
       p.comm, p.profile, p.iter_us AS predicted_us, m.measured_us,
       (p.iter_us - m.measured_us) / m.measured_us AS rel_err,
       abs(p.iter_us - m.measured_us) / m.measured_us AS abs_rel_err,
       m.spread_us, m.iterations, m.created AS measured_at, m.git_commit
FROM measurements m
JOIN predictions p ON p.id = m.prediction_id
JOIN workloads w ON w.id = p.workload_id
JOIN plans pl ON pl.id = p.plan_id;
