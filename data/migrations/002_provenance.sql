-- 002_provenance.sql: schema version 2 (applied after schema.sql, version 1, in one transaction
-- with foreign keys off, as SQLite's table-rebuild procedure requires; fu_db.c checks
-- PRAGMA foreign_key_check before it commits). What it adds:
--  - runs: fusim_version and fusim_commit of the build that wrote the run, content_hash of an
--    imported file (a second import of the same bytes is skipped), kinds 'plan' and 'measure';
--  - workloads and profiles by content: hash (SHA-256 of the canonical JSON) plus the JSON; the
--    name is a label, so one name may hold several contents;
--  - predictions: run_id filled, profile_id, framework, ranks, and the resolved plan's buckets;
--  - measurements: may come from a CSV of measured iteration times (fusim import), matched to
--    predictions by workload, plan, GPUs and framework instead of by prediction id;
--  - views answering the usual questions (see README.md, "The results database").
-- Rows from schema 1 keep what they had: their version, commit and workload/profile content are
-- NULL (never recorded), their runs are made here and say so in notes.

DROP VIEW v_fit_quality;
DROP VIEW v_prediction_error;

-- ---- runs: provenance of the build, content hash of imports ---------------------------------
CREATE TABLE runs_v2 (
  id            INTEGER PRIMARY KEY,
  kind          TEXT NOT NULL CHECK (kind IN ('import', 'calib', 'fit', 'predict', 'plan',
                                              'validate', 'measure')),
  host_id       INTEGER REFERENCES hosts (id),
  tool          TEXT,             -- 'nccl-tests 2.19.6', 'fusim calib', 'csv', ...
  source_file   TEXT,             -- imported file, if any
  cmdline       TEXT,             -- fusim command line (or the benchmark's, see notes)
  notes         TEXT,             -- free text: device lines, clocks, 'time column is a mean', ...
  fusim_version TEXT,             -- fusim release that wrote the run ('0.1.0'); NULL: schema 1
  fusim_commit  TEXT,             -- source commit of that build (git describe --dirty)
  content_hash  TEXT CHECK (content_hash IS NULL OR length(content_hash) = 64),
                                  -- SHA-256 of an imported file's bytes
  created       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
INSERT INTO runs_v2 (id, kind, host_id, tool, source_file, cmdline, notes, created)
  SELECT id, kind, host_id, tool, source_file, cmdline, notes, created FROM runs;
DROP TABLE runs;
ALTER TABLE runs_v2 RENAME TO runs;
CREATE INDEX runs_kind ON runs (kind, created);
CREATE INDEX runs_content ON runs (content_hash) WHERE content_hash IS NOT NULL;

-- ---- workloads by content -------------------------------------------------------------------
CREATE TABLE workloads_v2 (
  id      INTEGER PRIMARY KEY,
  hash    TEXT UNIQUE CHECK (hash IS NULL OR length(hash) = 64),
                                  -- SHA-256 of json; NULL: a schema 1 row (content unknown)
  name    TEXT NOT NULL,          -- label (the workload's "name"); not unique
  json    TEXT CHECK (json IS NULL OR json_valid(json)),
                                  -- canonical JSON (sorted keys, compact), as simulated
  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
INSERT INTO workloads_v2 (id, hash, name, json, created)
  SELECT id, NULL, name, json, created FROM workloads;
DROP TABLE workloads;
ALTER TABLE workloads_v2 RENAME TO workloads;
CREATE INDEX workloads_name ON workloads (name);

-- ---- profiles by content --------------------------------------------------------------------
CREATE TABLE profiles (
  id      INTEGER PRIMARY KEY,
  hash    TEXT UNIQUE CHECK (hash IS NULL OR length(hash) = 64),
                                  -- SHA-256 of json; NULL: a schema 1 name (content unknown)
  name    TEXT NOT NULL,          -- label (the profile's "name"); not unique
  gpu     TEXT,                   -- the profile's "gpu": the machine it describes
  json    TEXT CHECK (json IS NULL OR json_valid(json)),
                                  -- canonical JSON (sorted keys, compact), as used
  run_id  INTEGER REFERENCES runs (id) ON DELETE SET NULL, -- run that first stored it
  created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
CREATE INDEX profiles_gpu ON profiles (gpu, created);
INSERT INTO profiles (name, created)
  SELECT profile, min(created) FROM predictions WHERE profile IS NOT NULL GROUP BY profile;

-- ---- fits: the profile a fit wrote ----------------------------------------------------------
ALTER TABLE fits ADD COLUMN profile_id INTEGER REFERENCES profiles (id) ON DELETE SET NULL;

-- ---- predictions: provenance and what was simulated -----------------------------------------
ALTER TABLE predictions ADD COLUMN profile_id INTEGER REFERENCES profiles (id);
ALTER TABLE predictions ADD COLUMN framework TEXT;  -- 'ideal', 'ddp', 'hooks'; NULL: not given
ALTER TABLE predictions ADD COLUMN ranks INTEGER CHECK (ranks IS NULL OR ranks >= 1);
                                                    -- GPUs taking part (nodes x GPUs)
ALTER TABLE predictions ADD COLUMN buckets TEXT CHECK (buckets IS NULL OR json_valid(buckets));
                                                    -- resolved plan: [[first, last], ...] ranges
                                                    -- of the workload's ready order, one a bucket
UPDATE predictions SET profile_id = (SELECT id FROM profiles WHERE profiles.name = predictions.profile
                                     AND profiles.hash IS NULL);
UPDATE predictions SET buckets = (
    SELECT json_group_array(json_array(json_extract(b.value, '$.first'),
                                       json_extract(b.value, '$.last')))
    FROM json_each(predictions.json, '$.buckets') b)
  WHERE json_valid(json) AND json_type(json, '$.buckets') = 'array';
-- comm 'allreduce:8:nvlink' or 'allreduce:2x8:net' -> 8, 16; 'offload' -> 1
UPDATE predictions SET ranks = CASE
    WHEN comm = 'offload' THEN 1
    WHEN instr(substr(comm, instr(comm, ':') + 1), 'x') BETWEEN 1 AND
         instr(substr(comm, instr(comm, ':') + 1) || ':', ':')
      THEN CAST(substr(comm, instr(comm, ':') + 1) AS INTEGER) *
           CAST(substr(substr(comm, instr(comm, ':') + 1),
                       instr(substr(comm, instr(comm, ':') + 1), 'x') + 1) AS INTEGER)
    ELSE CAST(substr(comm, instr(comm, ':') + 1) AS INTEGER) END
  WHERE instr(comm, ':') > 0 OR comm = 'offload';
-- schema 1 predictions had no run: one per command line and second, saying so
INSERT INTO runs (kind, tool, cmdline, notes, created)
  SELECT CASE WHEN cmdline LIKE 'fusim plan%' THEN 'plan'
              WHEN cmdline LIKE '%validate%' THEN 'validate' ELSE 'predict' END,
         'fusim', cmdline,
         'schema 1 prediction: fusim version, commit, host, workload and profile content were not recorded',
         min(created)
  FROM predictions WHERE run_id IS NULL
  GROUP BY cmdline, substr(created, 1, 19);
UPDATE predictions SET run_id = (
    SELECT r.id FROM runs r WHERE r.cmdline IS predictions.cmdline AND r.tool = 'fusim'
      AND r.notes LIKE 'schema 1 prediction:%'
      AND substr(r.created, 1, 19) = substr(predictions.created, 1, 19))
  WHERE run_id IS NULL;
CREATE INDEX predictions_run ON predictions (run_id);

-- ---- measurements: validate's, or imported from a CSV of measured iteration times -----------
CREATE TABLE measurements_v2 (
  id                 INTEGER PRIMARY KEY,
  prediction_id      INTEGER REFERENCES predictions (id) ON DELETE CASCADE,
                                  -- validate: the prediction made beside it; NULL: imported
  run_id             INTEGER REFERENCES runs (id) ON DELETE CASCADE,
  workload_id        INTEGER NOT NULL REFERENCES workloads (id),
  plan_id            INTEGER NOT NULL REFERENCES plans (id),
  gpus               INTEGER CHECK (gpus IS NULL OR gpus >= 1),  -- NULL: not said
  framework          TEXT,        -- 'ddp', 'hooks', 'ideal', ...; NULL: not said
  measured_us        REAL NOT NULL CHECK (measured_us > 0),  -- median iteration time
  spread_us          REAL CHECK (spread_us IS NULL OR spread_us >= 0),
  iterations         INTEGER CHECK (iterations IS NULL OR iterations >= 0),
  compute_only_us    REAL,
  sm_clock_mhz_start REAL,
  sm_clock_mhz_end   REAL,
  power_w            REAL,
  git_commit         TEXT,
  notes              TEXT,
  json               TEXT,
  created            TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
INSERT INTO measurements_v2 (id, prediction_id, run_id, workload_id, plan_id, gpus, measured_us,
                             spread_us, iterations, compute_only_us, sm_clock_mhz_start,
                             sm_clock_mhz_end, power_w, git_commit, json, created)
  SELECT m.id, m.prediction_id, p.run_id, p.workload_id, p.plan_id, p.ranks, m.measured_us,
         m.spread_us, m.iterations, m.compute_only_us, m.sm_clock_mhz_start, m.sm_clock_mhz_end,
         m.power_w, m.git_commit, m.json, m.created
  FROM measurements m JOIN predictions p ON p.id = m.prediction_id;
DROP TABLE measurements;
ALTER TABLE measurements_v2 RENAME TO measurements;
CREATE INDEX measurements_prediction ON measurements (prediction_id);
CREATE INDEX measurements_key ON measurements (workload_id, plan_id);

-- ---- views ----------------------------------------------------------------------------------
-- One row per fitted segment with its parameters, 95% CIs and worst relative error.
CREATE VIEW v_fit_quality AS
SELECT s.fit_id, f.created, s.op, s.link, s.ranks, s.algo, s.segment, s.lo_bytes, s.hi_bytes,
       s.alpha_us, s.alpha_lo, s.alpha_hi, s.beta_us_per_byte, s.beta_lo, s.beta_hi,
       CASE WHEN s.beta_us_per_byte > 0 THEN 1e-3 / s.beta_us_per_byte END AS bw_gbps,
       s.max_rel_err, s.n_samples, s.method, s.profile, f.cmdline
FROM fit_segments s JOIN fits f ON f.id = s.fit_id;

-- The prediction each measurement is compared with: validate's own; for an imported one, for
-- each profile and comm target, the latest prediction of the same workload and plan (and GPUs
-- and framework when the measurement says them).
CREATE VIEW v_measurement_prediction AS
SELECT m.id AS measurement_id, m.prediction_id
FROM measurements m WHERE m.prediction_id IS NOT NULL
UNION ALL
SELECT m.id, max(p.id)
FROM measurements m
JOIN predictions p ON p.workload_id = m.workload_id AND p.plan_id = m.plan_id
  AND (m.gpus IS NULL OR p.ranks IS NULL OR p.ranks = m.gpus)
  AND (m.framework IS NULL OR coalesce(p.framework, 'ideal') = m.framework)
WHERE m.prediction_id IS NULL
GROUP BY m.id, p.profile_id, p.comm;

-- One row per measured plan (and profile): prediction against measurement; rel_err is a
-- fraction, (predicted - measured) / measured, so positive means the model was pessimistic.
CREATE VIEW v_prediction_error AS
SELECT m.id AS measurement_id, p.id AS prediction_id, w.name AS workload, pl.plan AS plan,
       p.comm, p.profile, p.iter_us AS predicted_us, m.measured_us,
       (p.iter_us - m.measured_us) / m.measured_us AS rel_err,
       abs(p.iter_us - m.measured_us) / m.measured_us AS abs_rel_err,
       m.spread_us, m.iterations, m.created AS measured_at, m.git_commit,
       w.hash AS workload_hash, pr.hash AS profile_hash, p.framework, m.gpus, m.notes,
       CASE WHEN m.prediction_id IS NULL THEN 'import' ELSE 'validate' END AS source
FROM v_measurement_prediction mp
JOIN measurements m ON m.id = mp.measurement_id
JOIN predictions p ON p.id = mp.prediction_id
JOIN workloads w ON w.id = p.workload_id
JOIN plans pl ON pl.id = p.plan_id
LEFT JOIN profiles pr ON pr.id = p.profile_id;

-- Predictions against measurements per plan: how many measurements, their mean, the
-- prediction, and the mean and worst relative error.
CREATE VIEW v_plan_accuracy AS
SELECT workload, workload_hash, plan, comm, profile, profile_hash, framework,
       count(*) AS n_measured, avg(measured_us) AS mean_measured_us,
       avg(predicted_us) AS mean_predicted_us, avg(rel_err) AS mean_rel_err,
       max(abs_rel_err) AS max_abs_rel_err
FROM v_prediction_error
GROUP BY workload_hash, workload, plan, comm, profile_hash, profile, framework;

-- The latest profile stored for each machine (GPU model as the profile names it).
CREATE VIEW v_latest_profile AS
SELECT p.gpu, p.id AS profile_id, p.name, p.hash, p.created, r.kind AS stored_by,
       r.fusim_version, r.fusim_commit
FROM profiles p LEFT JOIN runs r ON r.id = p.run_id
WHERE p.json IS NOT NULL AND p.id = (
    SELECT q.id FROM profiles q WHERE q.gpu IS p.gpu AND q.json IS NOT NULL
    ORDER BY q.created DESC, q.id DESC LIMIT 1);

-- Fit error per size: every stored sample size against the segment of each fit that covers
-- it (same op, link, ranks and variant), averaged over the samples at that size.
CREATE VIEW v_fit_error_by_size AS
SELECT s.fit_id, s.op, s.link, s.ranks, s.algo, s.segment, x.bytes,
       count(*) AS n_samples, avg(x.t_median_us) AS measured_us,
       s.alpha_us + s.beta_us_per_byte * x.bytes AS fitted_us,
       (s.alpha_us + s.beta_us_per_byte * x.bytes - avg(x.t_median_us)) / avg(x.t_median_us)
         AS rel_err
FROM fit_segments s
JOIN samples x ON x.op = s.op AND x.link = s.link AND x.ranks = s.ranks
  AND coalesce(x.algo, '') = coalesce(s.algo, '') AND x.bytes >= s.lo_bytes
  AND x.bytes < s.hi_bytes AND x.t_median_us IS NOT NULL
GROUP BY s.id, x.bytes;

-- What produced each prediction, one row each: run, build, host, workload and profile content.
CREATE VIEW v_prediction_provenance AS
SELECT p.id AS prediction_id, r.kind, r.created, r.cmdline, r.fusim_version, r.fusim_commit,
       h.host_name, h.gpu, h.driver, h.cuda, h.nccl, w.name AS workload, w.hash AS workload_hash,
       pr.name AS profile, pr.hash AS profile_hash, pl.plan, p.buckets, p.comm, p.framework
FROM predictions p
LEFT JOIN runs r ON r.id = p.run_id
LEFT JOIN hosts h ON h.id = r.host_id
JOIN workloads w ON w.id = p.workload_id
JOIN plans pl ON pl.id = p.plan_id
LEFT JOIN profiles pr ON pr.id = p.profile_id;
