#!/bin/sh
# callgrind_engine.sh [BENCH]: instructions per event of the engine (events as fu_engine.h counts
# them, superseded completion times left out), counted by callgrind over
# fu_engine_run only (graph building excluded), on the 2,000-gradient benchmark graph. Unlike
# time this does not drift with machine load. BENCH defaults to build-engine's bench_engine.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bench=${1:-$here/../../build-engine/tests/sim/bench_engine}
reps=20
out=$(mktemp /tmp/fusim-callgrind.XXXXXX)
trap 'rm -f "$out" "$out.log"' EXIT INT TERM
valgrind --tool=callgrind --toggle-collect=fu_engine_run --callgrind-out-file="$out" \
  "$bench" --grads 2000 --reps $reps --engine-only >"$out.log" 2>&1
ev=$(sed -n 's/.* tasks, \([0-9]*\) events per run.*/\1/p' "$out.log")
ir=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$out")
[ -n "$ir" ] || ir=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out")
runs=$((reps + 1)) # one warm-up run, then reps timed runs
echo "callgrind: $ir instructions in fu_engine_run over $runs runs of $ev events:" \
  "$(python3 -c "print(round($ir / ($runs * $ev), 1))") instructions per event"
