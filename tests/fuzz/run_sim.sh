#!/bin/sh
# run_sim.sh [SECONDS] [READER...]: build the libFuzzer harnesses over the simulator's readers
# (fuzz_sim.c: workload, profile, plan, buckets; default all four) with clang
# (-fsanitize=fuzzer,address,undefined) and fuzz each for SECONDS (default 300), one after the
# other, every input with a 30 s limit (-timeout; wall time, so generous for a loaded machine) and
# 2 GB of memory. The corpus starts from
# tests/fuzz/seeds-READER and regressions-READER; findings (crash-*, timeout-*, leak-*, oom-*)
# go to tests/fuzz/out/READER/, with the fuzzer's log in out/READER.log. Copy a finding into
# regressions-READER once it is fixed. Run it niced on a shared machine: nice -n 19 run_sim.sh.
set -eu
SECS=${1:-300}
[ $# -gt 0 ] && shift
READERS=${*:-workload profile plan buckets}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=$HERE/out
mkdir -p "$OUT/bin"
python3 "$ROOT/tools/embed.py" "$ROOT/data/profiles/h200-default.json" "$OUT/bin/default_profile.c" \
  fu__default_profile_json
# the sources of sim_lib and model_lib, as their meson.build files list them (sim_src, model_src)
SIM_SRC=$(sed -n "/^sim_src = files(/,/)/p" "$ROOT/sim/meson.build" | grep -o "fu_[a-z0-9_]*\.c" | sed "s|^|$ROOT/sim/|")
MODEL_SRC=$(sed -n "/^model_src = files(/,/)/p" "$ROOT/model/meson.build" | grep -o "fu_[a-z0-9_]*\.c" | sed "s|^|$ROOT/model/|")
for r in $READERS; do
  case $r in
  workload) n=1 ;; profile) n=2 ;; plan) n=3 ;; buckets) n=4 ;;
  *) echo "run_sim.sh: unknown reader '$r' (workload, profile, plan, buckets)" >&2; exit 64 ;;
  esac
  bin=$OUT/bin/fuzz_sim_$r
  clang -g -O1 -std=c11 -D_GNU_SOURCE -DFUZZ_READER=$n \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$ROOT/model" -I"$ROOT/sim" "$HERE/fuzz_sim.c" $SIM_SRC $MODEL_SRC "$OUT/bin/default_profile.c" \
    $(pkg-config --cflags --libs jansson gsl) -lm -o "$bin"
  mkdir -p "$OUT/$r/corpus"
  cp "$HERE/seeds-$r"/* "$HERE/regressions-$r"/* "$OUT/$r/corpus/"
  echo "fuzzing $r for $SECS s; corpus $(ls "$OUT/$r/corpus" | wc -l) files; log $OUT/$r.log"
  (cd "$OUT/$r" && ASAN_OPTIONS=quarantine_size_mb=16 "$bin" -max_total_time="$SECS" -max_len=65536 -timeout=30 -rss_limit_mb=2048 \
    -dict="$HERE/sim.dict" -close_fd_mask=2 -print_final_stats=1 corpus >"$OUT/$r.log" 2>&1) ||
    echo "fuzz_sim_$r stopped on a finding: see $OUT/$r.log and $OUT/$r/" >&2
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|^Done|ERROR|SUMMARY' "$OUT/$r.log" || true
done
