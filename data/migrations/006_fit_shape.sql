-- 006_fit_shape.sql: schema version 6 (issue 12: hardware apart, in the database too).
-- fit_segments.nodes, gpus_per_proc, gpu: the machine a curve was fitted on (hosts its ranks
-- spanned, GPUs one process drove, the GPU model; NULL unknown, and for fits stored before this
-- version). Before, two curves of one fit with the same op, link and ranks (8 ranks on 2 nodes
-- and on 4) were two indistinguishable rows of v_fit_quality, and where they named an algorithm
-- the second broke UNIQUE (fit_id, op, link, ranks, algo, segment): the fit could not be stored.
-- The table is rebuilt for its new UNIQUE (SQLite's procedure: fu_db.c runs every step with
-- foreign keys off and checks them before the commit); v_fit_quality gains the three columns and
-- v_fit_error_by_size compares a fit only with samples of its own node count and GPU.
DROP VIEW v_fit_quality;
DROP VIEW v_fit_error_by_size;

CREATE TABLE fit_segments_v6 (
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
  flags            TEXT,                     -- ci_spans_zero, over_link_limit (003)
  nodes            INTEGER CHECK (nodes IS NULL OR nodes >= 1),  -- hosts the ranks spanned
  gpus_per_proc    INTEGER CHECK (gpus_per_proc IS NULL OR gpus_per_proc >= 1),
  gpu              TEXT,                     -- GPU model the samples came from
  UNIQUE (fit_id, op, link, ranks, nodes, algo, segment)
) STRICT;
INSERT INTO fit_segments_v6 (id, fit_id, op, link, ranks, algo, segment, lo_bytes, hi_bytes,
                             alpha_us, alpha_lo, alpha_hi, beta_us_per_byte, beta_lo, beta_hi,
                             max_rel_err, n_samples, method, profile, flags)
  SELECT id, fit_id, op, link, ranks, algo, segment, lo_bytes, hi_bytes, alpha_us, alpha_lo,
         alpha_hi, beta_us_per_byte, beta_lo, beta_hi, max_rel_err, n_samples, method, profile,
         flags
  FROM fit_segments;
DROP TABLE fit_segments;
ALTER TABLE fit_segments_v6 RENAME TO fit_segments;
CREATE INDEX fit_segments_key ON fit_segments (op, link, ranks);

CREATE VIEW v_fit_quality AS
SELECT s.fit_id, f.created, s.op, s.link, s.ranks, s.algo, s.segment, s.lo_bytes, s.hi_bytes,
       s.alpha_us, s.alpha_lo, s.alpha_hi, s.beta_us_per_byte, s.beta_lo, s.beta_hi,
       CASE WHEN s.beta_us_per_byte > 0 THEN 1e-3 / s.beta_us_per_byte END AS bw_gbps,
       s.max_rel_err, s.n_samples, s.method, s.profile, f.cmdline, s.flags,
       coalesce(instr(s.flags, 'ci_spans_zero') > 0, 0) AS ci_spans_zero,
       coalesce(instr(s.flags, 'over_link_limit') > 0, 0) AS over_link_limit,
       s.nodes, s.gpus_per_proc, s.gpu
FROM fit_segments s JOIN fits f ON f.id = s.fit_id;

-- Fit error per size: every stored sample size against the segment of each fit that covers
-- it (same op, link, ranks and variant; same node count and GPU where both are known),
-- averaged over the samples at that size.
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
  AND (s.nodes IS NULL OR x.nodes IS NULL OR x.nodes = s.nodes)
LEFT JOIN runs r ON r.id = x.run_id
LEFT JOIN hosts h ON h.id = r.host_id
WHERE s.gpu IS NULL OR h.gpu IS NULL OR h.gpu = '' OR h.gpu = s.gpu
GROUP BY s.id, x.bytes;
