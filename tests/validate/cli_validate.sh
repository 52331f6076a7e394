#!/bin/sh
# CLI checks of `fusim validate` that hold with or without a GPU: bad input fails with one clear
# line and the right exit status before any GPU work (usage 64, bad data 65, no GPU 69).
# Usage: cli_validate.sh FUSIM
set -u
FUSIM=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
W=$FUSIM_SOURCE_ROOT/tests/validate/tiny.json
refused 64 "workload is required" "$FUSIM" validate --no-store
refused 64 "--iters" "$FUSIM" validate --workload "$W" --iters 0 --no-store
refused 64 "--format" "$FUSIM" validate --workload "$W" --format xml --no-store
refused 64 "unknown" "$FUSIM" validate --workload "$W" --bogus
refused 66 "no such file" "$FUSIM" validate --workload "$T/none.json" --no-store
echo '[{"fusion": "cap:1MiB", "overlapp": "on"}]' >"$T/p1.json"
refused 65 "p1.json: plan \[0\]: overlapp: unknown key" "$FUSIM" validate --workload "$W" --plan "$T/p1.json" --no-store
echo '[{"fusion": "cap:-3MiB"}]' >"$T/p2.json"
refused 65 "p2.json" "$FUSIM" validate --workload "$W" --plan "$T/p2.json" --no-store
# A plan naming a tensor the workload does not have.
echo '[["head.bias", "head.weight"], ["l3.weight", "no.such.tensor"]]' >"$T/b.json"
echo "[{\"fusion\": \"buckets:$T/b.json\"}]" >"$T/p3.json"
refused 65 "no.such.tensor' is not a tensor" "$FUSIM" validate --workload "$W" --plan "$T/p3.json" --no-store
echo "[{\"fusion\": \"buckets:$T/none.json\"}]" >"$T/p5.json"
refused 66 "none.json" "$FUSIM" validate --workload "$W" --plan "$T/p5.json" --no-store
# gradients of two element types interleaved: DDP's buckets per type are not runs of the arena
refused 64 "lies among gradients of another element type" "$FUSIM" validate --workload "$FUSIM_SOURCE_ROOT/tests/plan/mixed_dtypes.json" --fusion ddp --no-store
# the optimal search buckets each type apart now; the executor still refuses its interleaved runs
refused 64 "lies among gradients of another element type" "$FUSIM" validate --workload "$FUSIM_SOURCE_ROOT/tests/plan/mixed_dtypes.json" --fusion optimal --no-store
refused 64 "names no workload" "$FUSIM" validate --workload ,, --no-store
refused 64 "separate runs" "$FUSIM" validate --workload "$W" --fusion-table --no-store
# one plan by predict's flags (they were refused as unknown, and --fusion was read as a prefix of
# --fusion-table): a framework the executor does not have, flags beside --plan, a bad plan value
refused 64 "tools/validate_torch.py" "$FUSIM" validate --workload "$W" --framework ddp --no-store
refused 64 "give them or --plan, not both" "$FUSIM" validate --workload "$W" --fusion none --plan default --no-store
refused 64 "give them or --plan, not both" "$FUSIM" validate --fusion-table --overlap off
refused 64 "cap '25' has no unit" "$FUSIM" validate --workload "$W" --fusion cap:25 --no-store
# buckets sent out of the order they fill (a bucket file's "order": "listed"): the executor
# sends them as they fill, so the run would not be the plan predicted
cat >"$T/listed.json" <<EOB
{"order": "listed", "buckets": [["l1.weight", "stem.weight"], ["head.bias", "head.weight", "l3.weight", "l2.weight"]]}
EOB
refused 64 "bucket 1 is sent before one that fills earlier (\"order\": \"listed\")" "$FUSIM" validate --workload "$W" --fusion "buckets:$T/listed.json" --no-store
# DDP's own order does it too where a workload has two element types (its buckets still open at
# the end go the type seen last first): refused alike, its line naming that rule, not a bucket
# file's "order" the command never gave
python3 - "$W" "$T/seg.json" <<'EOP'
import json, sys
w = json.load(open(sys.argv[1]))
for i, g in enumerate(w["grads"]):
    g["dtype"] = "bf16" if i < 3 else "float"
    g["bytes"] = g["bytes"] // 4 * 4
json.dump(w, open(sys.argv[2], "w"))
EOP
refused 64 "bucket 3 is sent before one that fills earlier (its buckets still open at the end go the type seen last first)" \
  "$FUSIM" validate --workload "$T/seg.json" --fusion ddp --no-store
# a what-if priced on another machine is priced again with the profile in use, and validate
# says so before any GPU work, as predict's table does (exit 0 with a GPU, 69 without)
"$FUSIM" workload --transformer --arch llama --layers 2 --hidden 512 --heads 8 --ffn 1376 --vocab 1000 \
  --seq 128 --micro-batch 4 --profile h100-sxm --out "$T/wi.json" >/dev/null 2>&1 || bad "what-if on h100-sxm"
"$FUSIM" validate --workload "$T/wi.json" --fusion none --iters 2 --warmup 0 --no-store >/dev/null 2>"$T/err"
rc=$?
{ [ "$rc" = 0 ] || [ "$rc" = 69 ]; } &&
  grep -q "^fusim: validate: transformer_l2_h512_s128_b4: compute priced again with profile h200-default (NVIDIA H200) .* h100-sxm's" "$T/err" &&
  ok || bad "validate of a what-if priced on h100-sxm: exit $rc: $(cat "$T/err")"
"$FUSIM" validate --workload "$W" --fusion none --overlap off --iters 2 --warmup 0 --no-store >/dev/null 2>"$T/err"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 69 ] && ok || bad "validate --fusion none --overlap off: exit $rc (0 with a GPU, 69 without): $(cat "$T/err")"
refused 64 "not --fusion-table" "$FUSIM" validate --fusion-table --plot "$T/t.png"
# one mode's run options given to another were ignored in silence
refused 64 "are the matrix's" "$FUSIM" validate --fusion-table --iters 5
refused 64 "are the matrix's" "$FUSIM" validate --fusion-table --comm offload
refused 64 "--reps is --fusion-table's" "$FUSIM" validate --workload "$W" --reps 3 --no-store
# --plot is checked before any work: .png or .svg in a writable folder.
refused 64 "png or .svg" "$FUSIM" validate --workload "$W" --no-store --plot "$T/plot.pdf"
refused 64 "no: No such file or directory" "$FUSIM" validate --workload "$W" --no-store --plot "$T/no/plot.png"
# A workload larger than any GPU's memory: 65 where there is a GPU, 69 where there is none.
cat >"$T/huge.json" <<EOW
{"format": "fusim-workload-1", "name": "huge", "fwd_us": 10, "bwd_us": 20,
 "grads": [{"name": "w", "bytes": 1099511627776, "ready_us": 10}]}
EOW
echo '[{"fusion": "none"}]' >"$T/p4.json"
"$FUSIM" validate --workload "$T/huge.json" --plan "$T/p4.json" --no-store >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" -eq 65 ]; then
  grep -q "needs 1 TiB of GPU memory\|needs .* of GPU memory" "$T/err" || bad "huge: $(cat "$T/err")"
elif [ "$rc" -eq 69 ]; then
  [ "$(wc -l <"$T/err")" -eq 1 ] || bad "no GPU should be one line: $(cat "$T/err")"
else
  bad "huge workload exited $rc: $(cat "$T/err")"
fi
# Nothing may have been written to a database on the failures above.
refused 64 "workload is required" "$FUSIM" validate --db "$T/v.db"
[ ! -e "$T/v.db" ] || bad "a database was created by a failed run"
"$FUSIM" validate --help | grep -q "fusion-table" || bad "--help"
# Stored results: the summary recomputed from the rows equals the one the H200 run wrote
# (its "# summary:" line: median and max |rel_err| as fractions).
M=$FUSIM_SOURCE_ROOT/data/validation/h200_offload_matrix_run2.csv
if [ -r "$M" ]; then
  "$FUSIM" validate --from-csv "$M" >"$T/out" 2>"$T/err" || bad "--from-csv: $(cat "$T/err")"
  want=$(sed -n 's/^# summary: rows \([0-9]*\), median |rel_err| \([0-9.]*\), max |rel_err| \([0-9.]*\)$/\1 \2 \3/p' "$M" |
    awk '{ printf "%d rows, median |error| %.2f%%, max |error| %.2f%%", $1, 100 * $2, 100 * $3 }')
  grep -q "summary: $want" "$T/out" || bad "--from-csv summary '$(tail -1 "$T/out")' != '$want'"
fi
# Round trip: the CSV that --format csv writes reads back with the same rows and summary.
M3=$FUSIM_SOURCE_ROOT/data/validation/h200_offload_matrix_run3.csv
if [ -r "$M3" ]; then
  "$FUSIM" validate --from-csv "$M3" --format csv >"$T/rt.csv" 2>"$T/err" &&
    "$FUSIM" validate --from-csv "$M3" >"$T/a.txt" && "$FUSIM" validate --from-csv "$T/rt.csv" >"$T/b.txt" ||
    bad "--from-csv round trip: $(cat "$T/err")"
  [ "$(sed 1d "$T/a.txt")" = "$(sed 1d "$T/b.txt")" ] || bad "--from-csv round trip differs"
fi
# Old spellings still work, with one warning line each: --no-db (--no-store), --plans (--plan).
"$FUSIM" validate --no-db >"$T/out" 2>"$T/err"
[ $? -eq 64 ] && [ "$(wc -l <"$T/err")" -eq 2 ] && grep -q "no-db is deprecated; use --no-store" "$T/err" &&
  grep -q "workload is required" "$T/err" || bad "--no-db alias: $(cat "$T/err")"
"$FUSIM" validate --workload "$W" --plans "$T/p1.json" --no-store >"$T/out" 2>"$T/err"
[ $? -eq 65 ] && [ "$(wc -l <"$T/err")" -eq 2 ] && grep -q "plans is deprecated; use --plan" "$T/err" &&
  grep -q "overlapp: unknown key" "$T/err" || bad "--plans alias: $(cat "$T/err")"
# --comm: validate's own auto|allreduce|offload, and predict's spelling allreduce:N[:LINK].
refused 64 "--comm 'allreduce:2x4'" "$FUSIM" validate --workload "$W" --comm allreduce:2x4 --no-store
refused 64 "names 4 GPUs, --gpus 2" "$FUSIM" validate --workload "$W" --comm allreduce:4 --gpus 2 --no-store
refused 64 "--comm 'bogus'" "$FUSIM" validate --workload "$W" --comm bogus --no-store
refused 64 "offload runs on one GPU" "$FUSIM" validate --workload "$W" --gpus 2 --comm offload --no-store
printf 'workload,plan\nx,"unterminated\n' >"$T/bad.csv"
refused 65 "bad.csv" "$FUSIM" validate --from-csv "$T/bad.csv"
finish cli_validate
