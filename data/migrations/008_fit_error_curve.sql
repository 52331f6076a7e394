-- Schema version 8: v_fit_error_by_size names the curve each row is of. A fit stores one curve per
-- (op, link, ranks, variant) and machine shape (nodes, GPUs a process, GPU) and per placement, data
-- type and graph mode, but the view showed only (fit_id, op, link, ranks, algo, segment): two
-- curves of one fit (16 ranks over 2 nodes and over 4) gave rows that could not be told apart at
-- a size. It gains the segment's id and the columns v_fit_quality has for the curve; and it leaves
-- out the samples whose run found wrong results (nccl-tests' #wrong > 0), as fit does.
DROP VIEW v_fit_error_by_size;

CREATE VIEW v_fit_error_by_size AS
SELECT s.fit_id, s.op, s.link, s.ranks, s.algo, s.segment, x.bytes,
       count(*) AS n_samples, avg(x.t_median_us) AS measured_us,
       s.alpha_us + s.beta_us_per_byte * x.bytes AS fitted_us,
       (s.alpha_us + s.beta_us_per_byte * x.bytes - avg(x.t_median_us)) / avg(x.t_median_us)
         AS rel_err,
       s.id AS segment_id, s.nodes, s.gpus_per_proc, s.gpu, s.in_place, s.dtype, s.graph
FROM fit_segments s
JOIN samples x ON x.op = s.op AND x.link = s.link AND x.ranks = s.ranks
  AND coalesce(x.algo, '') = coalesce(s.algo, '') AND x.bytes >= s.lo_bytes
  AND x.bytes < s.hi_bytes AND x.t_median_us IS NOT NULL AND (x.n_wrong IS NULL OR x.n_wrong <= 0)
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
