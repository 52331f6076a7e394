-- 004_layout.sql: schema version 4 (issue 12, process layout).
-- samples.gpus_per_proc: the GPUs one process drove in the run (nccl-tests -g x -t: the Rank lines
-- that share a host and Pid); NULL unknown. One process driving g GPUs puts their g network proxy
-- threads on the cores it is bound to, a per-call cost across nodes that one process per GPU
-- does not pay.
ALTER TABLE samples ADD COLUMN gpus_per_proc INTEGER CHECK (gpus_per_proc IS NULL OR gpus_per_proc >= 1);
