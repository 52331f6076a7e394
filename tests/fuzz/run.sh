#!/bin/sh
# run.sh [SECONDS] [JOBS]: build the libFuzzer harness over fusim's import parsers with clang
# (-fsanitize=fuzzer,address,undefined) and run it for SECONDS (default 300) on JOBS processes
# (default 1). The seed corpus is every public nccl-tests log and reference file, each with
# mode bytes 0x00 (auto-detect, strict) and 0x44 (lenient, file name names the op and link),
# plus the seeds in tests/fuzz/seeds. Findings go to tests/fuzz/out/ (crash-*, leak-*).
set -eu
SECS=${1:-300}
JOBS=${2:-1}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SHARED=${FUSIM_SHARED:-$ROOT/tests}   # the tests' copies (tests/data/reference, public-nccl-tests)
OUT=$HERE/out
mkdir -p "$OUT/bin" "$OUT/corpus"
python3 "$ROOT/tools/embed.py" "$ROOT/data/schema.sql" "$OUT/bin/schema_sql.c" fu__schema_sql
clang -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$ROOT/model" -I"$ROOT/data" \
  "$HERE/fuzz_import.c" "$ROOT/data/fu_import.c" "$ROOT/data/fu_db.c" "$ROOT/model/fu_common.c" \
  "$OUT/bin/schema_sql.c" $(pkg-config --cflags --libs jansson sqlite3) -lm -o "$OUT/bin/fuzz_import"
for f in "$SHARED"/data/public-nccl-tests/*.txt "$SHARED"/data/reference/*.csv "$SHARED"/data/reference/*.txt "$HERE"/seeds/*; do
  [ -f "$f" ] || continue
  b=$(basename "$f")
  { printf '\000'; cat "$f"; } >"$OUT/corpus/s0-$b"
  { printf '\104'; cat "$f"; } >"$OUT/corpus/s1-$b"
done
cd "$OUT"
echo "fuzzing for $SECS s on $JOBS job(s); corpus $(ls corpus | wc -l) files"
"$OUT/bin/fuzz_import" -max_total_time="$SECS" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -dict="$HERE/import.dict" -jobs="$JOBS" -workers="$JOBS" -print_final_stats=1 corpus
