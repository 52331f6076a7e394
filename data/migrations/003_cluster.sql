-- 003_cluster.sql: schema version 3 (issue 12, cluster calibration).
-- samples.nodes: the hosts the ranks ran on (CSV column `nodes`; for logs fusim reads the host
-- names of the run's host row, "a; b", when the column is NULL). fit_segments.flags: what a
-- fitted segment should not be trusted for, comma separated: ci_spans_zero (the 95% CI of alpha
-- or beta includes 0), over_link_limit (its bandwidth is above the link's physical limit).
ALTER TABLE samples ADD COLUMN nodes INTEGER CHECK (nodes IS NULL OR nodes >= 1);
ALTER TABLE fit_segments ADD COLUMN flags TEXT;

DROP VIEW v_fit_quality;
CREATE VIEW v_fit_quality AS
SELECT s.fit_id, f.created, s.op, s.link, s.ranks, s.algo, s.segment, s.lo_bytes, s.hi_bytes,
       s.alpha_us, s.alpha_lo, s.alpha_hi, s.beta_us_per_byte, s.beta_lo, s.beta_hi,
       CASE WHEN s.beta_us_per_byte > 0 THEN 1e-3 / s.beta_us_per_byte END AS bw_gbps,
       s.max_rel_err, s.n_samples, s.method, s.profile, f.cmdline, s.flags,
       coalesce(instr(s.flags, 'ci_spans_zero') > 0, 0) AS ci_spans_zero,
       coalesce(instr(s.flags, 'over_link_limit') > 0, 0) AS over_link_limit
FROM fit_segments s JOIN fits f ON f.id = s.fit_id;
