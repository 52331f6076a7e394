-- 005_nccl.sql: schema version 5 (issue 12, NCCL's algorithm choice).
-- samples.nccl_version: the NCCL the run used, "X.Y.Z" (the version NCCL or nccl-tests printed,
-- else one a comment of the log names; JSON logs' nccl_version code; CSV's nccl_version column);
-- NULL unknown. From 2.19 NCCL runs NVLS-tree across nodes in smaller chunks than 2.18, so a
-- profile fitted from these samples prices by the NCCL they ran (fusim cost / predict / plan).
ALTER TABLE samples ADD COLUMN nccl_version TEXT CHECK (nccl_version IS NULL OR length(nccl_version) BETWEEN 5 AND 15);
