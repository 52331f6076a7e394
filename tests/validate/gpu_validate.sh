#!/bin/sh
# GPU check of the executor (exit 77, skipped, without a GPU): the tiny workload under the
# default plans with few iterations; every plan's offloaded (or all-reduced) gradients must be
# right (the run fails otherwise) and every row must have a measured and a predicted time.
# The error itself is not tested here (5 iterations of a 1 ms workload); the matrix is.
# Usage: gpu_validate.sh FUSIM
set -u
FUSIM=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$FUSIM" validate --workload "$FUSIM_SOURCE_ROOT/tests/validate/tiny.json" --iters 5 --warmup 1 \
  --db "$T/v.db" --format csv >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 69 ] && { echo "no GPU: skipped"; exit 77; }
[ "$rc" -eq 0 ] || { echo "FAIL: exit $rc: $(cat "$T/err")"; exit 1; }
rows=$(grep -c "^tiny_validate," "$T/out")
[ "$rows" -eq 12 ] || { echo "FAIL: $rows rows, expected 12"; cat "$T/out"; exit 1; }
# every row verified (last column 1) and positive times
awk -F, '/^tiny_validate,/ { if ($NF != 1 || $4 <= 0 || $7 <= 0) bad = 1 } END { exit bad }' "$T/out" \
  || { echo "FAIL: a row is unverified or has no time"; cat "$T/out"; exit 1; }
n=$(python3 -c "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])" \
  "$T/v.db" "SELECT count(*) FROM v_prediction_error WHERE workload = 'tiny_validate'")
[ "$n" = 12 ] || { echo "FAIL: $n rows in v_prediction_error"; exit 1; }
# one plan by predict's flags: one verified row, that plan
"$FUSIM" validate --workload "$FUSIM_SOURCE_ROOT/tests/validate/tiny.json" --fusion single --overlap off \
  --iters 5 --warmup 1 --no-store --format csv >"$T/one" 2>"$T/err" || { echo "FAIL: one plan: $(cat "$T/err")"; exit 1; }
[ "$(grep -c "^tiny_validate," "$T/one")" -eq 1 ] && grep -q "^tiny_validate,single overlap=off" "$T/one" &&
  awk -F, '/^tiny_validate,/ { if ($NF != 1) bad = 1 } END { exit bad }' "$T/one" ||
  { echo "FAIL: one plan by flags"; cat "$T/one"; exit 1; }
exit 0
