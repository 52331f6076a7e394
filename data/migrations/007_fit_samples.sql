-- Schema version 7: a fitted curve records which samples it was fitted on. A curve is fitted on
-- one placement (in-place or out-of-place), one data type and one graph mode (model/fu_fitgroup.c
-- picks them), but v_fit_error_by_size compared it with every sample under its key: an
-- out-of-place bf16 fit was shown against in-place float samples it never saw. fit_segments
-- gains the three (NULL for fits stored before; v_fit_quality shows them), and the view
-- compares a curve only with samples of its own; a sample's type is compared by its canonical
-- name (model/fu_dtype.c's aliases; tests/data/cli_db.sh checks every one).
ALTER TABLE fit_segments ADD COLUMN in_place INTEGER CHECK (in_place IS NULL OR in_place IN (0, 1));
ALTER TABLE fit_segments ADD COLUMN dtype TEXT;   -- canonical: 'float', 'bf16', 'half', ...
ALTER TABLE fit_segments ADD COLUMN graph INTEGER CHECK (graph IS NULL OR graph IN (0, 1));

DROP VIEW v_fit_quality;
DROP VIEW v_fit_error_by_size;

CREATE VIEW v_fit_quality AS
SELECT s.fit_id, f.created, s.op, s.link, s.ranks, s.algo, s.segment, s.lo_bytes, s.hi_bytes,
       s.alpha_us, s.alpha_lo, s.alpha_hi, s.beta_us_per_byte, s.beta_lo, s.beta_hi,
       CASE WHEN s.beta_us_per_byte > 0 THEN 1e-3 / s.beta_us_per_byte END AS bw_gbps,
       s.max_rel_err, s.n_samples, s.method, s.profile, f.cmdline, s.flags,
       coalesce(instr(s.flags, 'ci_spans_zero') > 0, 0) AS ci_spans_zero,
       coalesce(instr(s.flags, 'over_link_limit') > 0, 0) AS over_link_limit,
       s.nodes, s.gpus_per_proc, s.gpu, s.in_place, s.dtype, s.graph
FROM fit_segments s JOIN fits f ON f.id = s.fit_id;

-- Fit error per size: every stored sample size against the segment of each fit that covers
-- it (same op, link, ranks and variant; same node count and GPU where both are known; same
-- placement, data type and graph mode where the fit recorded them), averaged over the samples
-- at that size.
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
  AND (s.in_place IS NULL OR x.in_place = s.in_place)
  AND (s.graph IS NULL OR x.graph = s.graph)
  AND (s.dtype IS NULL OR s.dtype = '' OR x.dtype IS NULL OR x.dtype = ''
       OR s.dtype = CASE lower(x.dtype)
                      WHEN 'char' THEN 'int8' WHEN 'i8' THEN 'int8' WHEN 'u8' THEN 'uint8'
                      WHEN 'int' THEN 'int32' WHEN 'i32' THEN 'int32' WHEN 'i64' THEN 'int64'
                      WHEN 'fp16' THEN 'half' WHEN 'float16' THEN 'half'
                      WHEN 'fp32' THEN 'float' WHEN 'float32' THEN 'float'
                      WHEN 'fp64' THEN 'double' WHEN 'float64' THEN 'double'
                      WHEN 'bfloat16' THEN 'bf16'
                      ELSE lower(x.dtype) END)
LEFT JOIN runs r ON r.id = x.run_id
LEFT JOIN hosts h ON h.id = r.host_id
WHERE s.gpu IS NULL OR h.gpu IS NULL OR h.gpu = '' OR h.gpu = s.gpu
GROUP BY s.id, x.bytes;
