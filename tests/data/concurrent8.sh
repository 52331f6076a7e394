#!/bin/sh
# concurrent8.sh FUSIM [ROUNDS]: 8 processes write one new database at once, 4 importing and 4
# predicting (2 predict, 2 plan), racing to create it, switch it to WAL and migrate it. Each
# must succeed and every row must be there: 22 + 62 + 50 + 45 samples (the four files, counted
# by hand in cli_import.sh's public case), 1 + 1 + 6 + 6 predictions, 8 runs; then
# PRAGMA integrity_check says ok and no foreign key is broken. Exit 0 pass, 1 fail.
set -u
FUSIM=$1
ROUNDS=${2:-3}
D=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d /tmp/fusim-conc8-XXXXXX)
trap 'rm -rf "$T"' EXIT
DB=$T/r.db
fail() { echo "FAIL [concurrent8]: $*" >&2; exit 1; }
q() { "$FUSIM" report --db "$DB" --format csv sql "$1" | tail -n +2; }
for round in $(seq 1 "$ROUNDS"); do
  rm -f "$DB" "$DB-wal" "$DB-shm"
  pids=""
  k=0
  for f in public-nccl-tests/a100x8-nvlink-allreduce.txt public-nccl-tests/h100x16-2node-a3mega-allreduce.txt \
           public-nccl-tests/rtx5090x8-pcie-allreduce.txt reference/h200-pcie-copies.csv; do
    k=$((k + 1))
    "$FUSIM" import --db "$DB" "$D/$f" >/dev/null 2>"$T/err.$k" &
    pids="$pids $!"
  done
  "$FUSIM" predict --db "$DB" --workload resnet50 --fusion cap:25MiB >/dev/null 2>"$T/err.5" &
  pids="$pids $!"
  "$FUSIM" predict --db "$DB" --workload bert_large --fusion optimal >/dev/null 2>"$T/err.6" &
  pids="$pids $!"
  "$FUSIM" plan --db "$DB" --workload resnet50 >/dev/null 2>"$T/err.7" &
  pids="$pids $!"
  "$FUSIM" plan --db "$DB" --workload llama2_7b >/dev/null 2>"$T/err.8" &
  pids="$pids $!"
  for p in $pids; do wait "$p" || fail "round $round: a process failed: $(cat "$T"/err.*)"; done
  [ "$(q "SELECT count(*) FROM samples")" = $((22 + 62 + 50 + 45)) ] || fail "round $round: samples $(q "SELECT count(*) FROM samples")"
  [ "$(q "SELECT count(*) FROM predictions")" = 14 ] || fail "round $round: predictions"
  [ "$(q "SELECT count(*) FROM predictions p JOIN workloads w ON w.id = p.workload_id JOIN runs r ON r.id = p.run_id WHERE w.json IS NOT NULL")" = 14 ] ||
    fail "round $round: predictions without content or run"
  [ "$(q "SELECT count(*) FROM runs")" = 8 ] || fail "round $round: runs"
  [ "$(q "SELECT count(*) FROM workloads")" = 3 ] || fail "round $round: workloads by content"
  [ "$(q "PRAGMA integrity_check")" = ok ] || fail "round $round: integrity_check"
  [ "$(q "SELECT count(*) FROM pragma_foreign_key_check")" = 0 ] || fail "round $round: foreign keys"
done
echo "ok [concurrent8]: $ROUNDS rounds of 8 writers"
