#!/bin/sh
# make_v5.sh FUSIM OUT.db: how tests/data/v5/v5.db was made (schema version 5, the last before
# fit_segments gained nodes, gpus_per_proc and gpu and its table was rebuilt, migration 006). It
# was run once with the fusim built from main at 53ac80b (2026-12-05) and the result committed;
# the database is the fixture, this script is its record. Inputs: ../v1's 2-GPU PCIe log and
# ring-tree-nodes.csv, exact lines t = a + bytes / (GB/s x 1e3) of NCCL_ALGO ring and tree at 8
# ranks on 1 node (nvlink) and 16 ranks on 2 nodes (net). Two fits: the default (profile name
# "fitted", algorithm names, the PCIe log's flags ci_spans_zero and over_link_limit) and a
# bisquare one of the PCIe curve alone.
set -eu
F=$1; DB=$2
cd "$(dirname "$0")"
rm -f "$DB" "$DB-wal" "$DB-shm"
"$F" import --db "$DB" ../v1/rtx2080tix2-pcie-allreduce.txt ring-tree-nodes.csv >/dev/null 2>&1
"$F" fit --db "$DB" --base none --out /dev/null >/dev/null 2>&1
"$F" fit --db "$DB" --robust --op allreduce --link pcie >/dev/null 2>&1
sqlite3 "$DB" "PRAGMA wal_checkpoint(TRUNCATE); VACUUM;" >/dev/null
