#!/bin/sh
# run_h200.sh: the validation run on the lent H200 (one GPU: gradient offload over PCIe).
# Builds fusim into build-gpu, optionally captures the PyTorch workloads, then runs the matrix
# (workloads x the default 12 plans) and the fusion table. Results go to $OUT (the device tool's
# output folder) or ./validation-out.
#   CAPTURE=1  also run tools/capture_torch.py (resnet50 b64, bert_large b8 s512)
#   WORKLOADS  the matrix's workloads (default: resnet50,bert_large and the captured ones)
#   ITERS      timed iterations per plan (20)
# Reproduce: . .device/prelude.sh && CAPTURE=1 sh validate/run_h200.sh
set -u
OUT=${OUT:-validation-out}
mkdir -p "$OUT"
B=build-gpu
meson setup $B -Dwerror=false -Dbuildtype=release >"$OUT/build.log" 2>&1 ||
  meson setup --reconfigure $B -Dwerror=false -Dbuildtype=release >>"$OUT/build.log" 2>&1 ||
  { tail -30 "$OUT/build.log"; exit 1; }
ninja -C $B fusim fusim-gpu >>"$OUT/build.log" 2>&1 || { grep -E "error|FAILED" -A4 "$OUT/build.log" | head -60; exit 1; }
F=$B/fusim
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv
PROF=""
if grep -q placeholder data/profiles/h200-default.json; then
  sh tools/make_default_profile.sh "$F" /tmp/h200-ref.json >"$OUT/profile.log" 2>&1 &&
    PROF="--profile /tmp/h200-ref.json" || { echo "profile: see profile.log"; tail -5 "$OUT/profile.log"; }
fi
if [ "${CAPTURE:-0}" = 1 ]; then
  export PYTHONUNBUFFERED=1
  python3 tools/capture_torch.py --model resnet50 --batch 64 --out "$OUT/resnet50_captured.json" \
    --name resnet50_b64_captured 2>&1 | tail -3
  python3 tools/capture_torch.py --model bert_large --batch 8 --seq 512 \
    --out "$OUT/bert_large_captured.json" --name bert_large_b8_captured 2>&1 | tail -3
  for f in resnet50_captured bert_large_captured; do
    [ -s "$OUT/$f.json" ] && cp "$OUT/$f.json" data/workloads/$f.json
  done
fi
W=${WORKLOADS:-resnet50,bert_large}
for f in resnet50_captured bert_large_captured; do
  [ -z "${WORKLOADS:-}" ] && [ -s data/workloads/$f.json ] && W="$W,$f"
done
echo "== matrix: $W"
t0=$(date +%s)
$F validate --workload "$W" --iters "${ITERS:-20}" --warmup 3 --format csv --db "$OUT/validate.db" \
  $PROF >"$OUT/matrix.csv" 2>"$OUT/matrix.err"
echo "matrix exit $? in $(( $(date +%s) - t0 )) s"
tail -5 "$OUT/matrix.err"
grep "^#" "$OUT/matrix.csv" | cut -c1-300
show() {  # the columns worth reading in the log: workload, plan, ops, predicted, measured, error
  python3 -c 'import csv,sys
for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")):
    print(r["workload"], r["plan"].replace(" streams=1", ""), r["n_ops"], r["predicted_us"], r["measured_us"], r["spread_us"], "%+.2f%%" % (100 * float(r["rel_err"])), r["compute_only_us"], r["sm_mhz_end"], r["power_w"], r["verified"])' "$1"
}
show "$OUT/matrix.csv"
if [ "${EXTRA:-1}" = 1 ]; then
  echo "== extra plans (bucket views, two communication streams)"
  $F validate --workload resnet50,bert_large,resnet50_captured --plans data/validation/plans_extra.json \
    --iters "${ITERS:-20}" --warmup 3 --format csv --db "$OUT/validate.db" $PROF >"$OUT/extra.csv" 2>"$OUT/err.txt"
  echo "extra exit $?"; tail -3 "$OUT/err.txt"
  grep "^# summary" "$OUT/extra.csv"
  show "$OUT/extra.csv"
  echo "== NCCL path on one GPU (all-reduce over 1 rank: a check of the code path, not a link)"
  $F validate --comm allreduce --workload tests/validate/tiny.json,resnet50 --iters 10 --warmup 2 \
    --format csv --no-store $PROF >"$OUT/allreduce.csv" 2>"$OUT/err.txt"
  echo "allreduce exit $?"; tail -3 "$OUT/err.txt"
  show "$OUT/allreduce.csv"
fi
echo "== fusion table"
$F validate --fusion-table --format csv >"$OUT/fusion_table.csv" 2>&1
cat "$OUT/fusion_table.csv"
echo "== GPU test (tiny workload)"
FUSIM_SOURCE_ROOT=$(pwd) sh tests/validate/gpu_validate.sh "$F" && echo "gpu test OK"
