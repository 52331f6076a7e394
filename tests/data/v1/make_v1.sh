#!/bin/sh
# make_v1.sh FUSIM OUT.db: how tests/data/v1/v1.db was made (schema version 1, the release before
# content-hashed workloads and provenance). It was run once with the fusim built from main at
# 570ca1f (2026-12-02) and the result committed; the database is the fixture, this script is its
# record. Inputs are the small files beside it. The measurement row is written with SQL because
# v1 wrote measurements only from `validate` on a GPU (its columns are v1's).
set -eu
F=$1; DB=$2
cd "$(dirname "$0")"
rm -f "$DB" "$DB-wal" "$DB-shm"
"$F" import --db "$DB" rtx2080tix2-pcie-allreduce.txt h200-pcie-copies.csv
"$F" fit --db "$DB" --op allreduce > /dev/null  # (made with --out /dev/null; the fit it stores is the same)
"$F" predict --db "$DB" --workload resnet50 --fusion cap:25MiB > /dev/null
"$F" plan --db "$DB" --workload resnet50 > /dev/null
# Two different workloads under one name (seq 4096 and seq 2048): v1 files them under one id.
for seq in 4096 2048; do
  "$F" workload --transformer --layers 2 --hidden 1024 --heads 8 --ffn 4096 --vocab 32000 \
    --seq $seq --micro-batch 1 --name tiny_llama --out tiny_$seq.json > /dev/null
  "$F" predict --db "$DB" --workload tiny_$seq.json --fusion optimal > /dev/null
  rm -f tiny_$seq.json
done
sqlite3 "$DB" "INSERT INTO measurements (prediction_id, measured_us, spread_us, iterations, git_commit)
               VALUES (1, 11500.25, 40.5, 50, '570ca1f');
               PRAGMA wal_checkpoint(TRUNCATE);"
