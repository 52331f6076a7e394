#!/bin/sh
# make_default_profile.sh: regenerate data/profiles/h200-default.json, the profile embedded in
# fusim, with fusim itself (`fusim import`, `fusim fit --merge-into`), from
#   - fusim's own H200 calibration in data/calibration/ (the newest h200-pcie-DATE files):
#       PCIe h2d / d2h and HBM d2d copies: h200-pcie-DATE-copies.csv (pinned, event-copy-event-
#       synchronise medians, the reference's method);
#       the one-GPU NCCL all-reduce (out-of-place, float, NCCL's own algorithm and protocol, no
#       CUDA graph) and the batched pack kernel (k tensors of m bytes, all k as one curve of
#       k x m, synchronised runs) from h200-pcie-DATE.sql, when it holds those samples (else the
#       all-reduce comes from the reference's nccl-tests log);
#       every scalar, by the formulas of calib/fit_profile.sh --scalars (written into the notes);
#   - the published 8x H200 NVLink all-reduce (Azure ND H200 v5, NVLS) from
#     ../shared/data/reference/, labelled as published.
#
#   tools/make_default_profile.sh [FUSIM [OUT.json]]
#     FUSIM     the fusim binary (default build/fusim, else build-*/fusim)
#     OUT.json  where to write (default data/profiles/h200-default.json); rebuild afterwards so
#               the new file is embedded.
# Environment: FUSIM_SHARED (default ../shared next to the source tree); FUSIM_CALIB_STEM (the
# calibration's files without -copies.csv / .sql, default the newest
# data/calibration/h200-pcie-*-copies.csv). Needs sqlite3 (the .sql dump).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
fusim=${1:-}
if [ -z "$fusim" ]; then
  for f in "$root"/build/fusim "$root"/build-*/fusim; do
    if [ -x "$f" ]; then fusim=$f; break; fi
  done
fi
if [ -z "$fusim" ] || [ ! -x "$fusim" ]; then
  echo "make_default_profile.sh: no fusim binary; build first or pass its path" >&2
  exit 66
fi
out=${2:-$root/data/profiles/h200-default.json}
shared=${FUSIM_SHARED:-$root/../shared}
ref=$shared/data/reference
for f in h200-1gpu-allreduce-nccl-tests.txt azure-nd-h200-v5-allreduce-nvls-8gpu.csv; do
  if [ ! -r "$ref/$f" ]; then echo "make_default_profile.sh: $ref/$f: missing" >&2; exit 66; fi
done
stem=${FUSIM_CALIB_STEM:-}
if [ -z "$stem" ]; then
  copies=$(ls "$root"/data/calibration/h200-pcie-*-copies.csv 2>/dev/null | sort | tail -n 1)
  stem=${copies%-copies.csv}
fi
copies=$stem-copies.csv
sql=$stem.sql
for f in "$copies" "$sql"; do
  if [ ! -r "$f" ]; then echo "make_default_profile.sh: $f: missing (calibration files)" >&2; exit 66; fi
done
command -v sqlite3 >/dev/null || { echo "make_default_profile.sh: needs the sqlite3 command" >&2; exit 69; }

tmp=$(mktemp -d /tmp/fusim-default-profile.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
db=$tmp/imported.db      # the copies CSV and the reference files, through fusim import
cal=$tmp/calib.db        # the calibration database (coll, pack)
prof=$tmp/h200-default.json

# --- samples ---
copies_run=$("$fusim" import --db "$db" --format csv "$copies" | awk -F, 'NR == 2 { print $NF }')
"$fusim" import --db "$db" "$ref/h200-1gpu-allreduce-nccl-tests.txt" >/dev/null
"$fusim" import --db "$db" --link nvlink "$ref/azure-nd-h200-v5-allreduce-nvls-8gpu.csv" >/dev/null
sqlite3 "$cal" <"$sql"
n_ar=$(sqlite3 "$cal" "select count(*) from samples where op = 'allreduce' and ranks = 1 and in_place = 0
  and dtype = 'float' and algo is null and proto is null and graph = 0")
n_pack=$(sqlite3 "$cal" "select count(*) from samples where op = 'pack' and link = 'hbm' and algo like 'k=%'
  and proto is null")

# --- scalars: calib/fit_profile.sh's formulas over the same database ---
eval "$(sh "$root/calib/fit_profile.sh" --scalars "$sql")"

calname=$(basename "$stem")
arnote="allreduce x1 (hbm) from the reference's nccl-tests log (no calib coll samples)"
[ "$n_ar" -gt 0 ] && arnote="allreduce x1 (hbm) from $calname.sql: out-of-place float, NCCL's choices, per-call median"
packnote=""
[ "$n_pack" -gt 0 ] && packnote=" pack (hbm) from $calname.sql: the batched pack kernel, k x m bytes, every k one curve (k = 4..1024 differ by up to 16% at one total)."
notes="Curves: h2d, d2h, d2d from $calname-copies.csv; $arnote; allreduce x8 nvlink nvls PUBLISHED (Azure ND H200 v5).$packnote\
 Copies below 4 MiB include the host's submission latency, which differed between leases of the\
 same day (per-copy host cost 1.27-2.24 us, data/calibration/README.md): a host like the\
 reference's adds about 1 us per operation. pack_handoff_us: the validation run's\
 executor estimate is about 7 us per packed bucket (data/validation/README.md). $notes"

fit() { "$fusim" fit --tolerance 0.05 --format csv --no-store "$@" >/dev/null; }

copysrc="measured: fusim calib, $calname-copies.csv: one H200, pinned cudaMemcpyAsync, event-copy-event-sync medians"
fit --db "$db" --run "$copies_run" --op h2d --link pcie_h2d --source "$copysrc" --out "$prof" \
    --name h200-default --gpu "NVIDIA H200" \
    --profile-source "fusim tools/make_default_profile.sh: fusim calib of one H200 ($calname; $prov) and the published Azure ND H200 v5 8-GPU NVLS all-reduce" \
    --launch-us "$launch" --issue-us "$issue" --duplex-factor "$duplex" --copy-slowdown "$copyslow" \
    --comm-slowdown "$commslow" --hbm-gbps "$hbm" --gpu-tflops-bf16 "$bf16" --gpu-tflops-fp32 "$tf32" \
    --pack-handoff-us "$handoff" --notes "$notes"
fit --db "$db" --run "$copies_run" --op d2h --link pcie_d2h --source "$copysrc" --merge-into "$prof"
fit --db "$db" --run "$copies_run" --op d2d --link hbm --source "$copysrc" --merge-into "$prof"
if [ "$n_ar" -gt 0 ]; then
  fit --db "$cal" --op allreduce --ranks 1 --place out --dtype float --algo "" --proto default --graph 0 \
      --merge-into "$prof" \
      --source "measured: fusim calib, $calname.sql: NCCL 2.28.3 1-rank all-reduce, out-of-place float (a local copy, no link)"
else
  fit --db "$db" --op allreduce --ranks 1 --merge-into "$prof" \
      --source "measured: nccl-tests 2.19.6 all_reduce_perf -g 1, NCCL 2.28.3, one H200, out-of-place: NCCL per-call overhead (a local copy, no link)"
fi
fit --db "$db" --op allreduce --ranks 8 --link nvlink --label-algo nvls --merge-into "$prof" \
    --source "published: Azure/AI-benchmarking-guide ND H200 v5, NVLS, in-place"
if [ "$n_pack" -gt 0 ]; then
  fit --db "$cal" --op pack --link hbm --proto default --merge-into "$prof" \
      --source "measured: fusim calib, $calname.sql: fusim's batched pack kernel, k tensors of m bytes (k = 4..1024)"
fi

# The compute tables (model/fu_compute.h): the cuBLAS GEMM shape sweep of fusim calib --suite gemm
# (data/calibration/h200-compute-DATE-gemm.sql) and tools/calib_torch.py's attention, memory-bound
# operation, host and optimizer tables (data/compute/h200-calib-torch.json); calib/device_compute.sh
# measured both on one H200; then data/compute/h200-calib-torch-*.json (calib/device_compute_parts.sh).
gemm_sql=$(ls "$root"/data/calibration/h200-compute-*-gemm.sql 2>/dev/null | sort | tail -1)
if [ -n "$gemm_sql" ] && [ -f "$root"/data/compute/h200-calib-torch.json ]; then
  gdb=$tmp/gemm.db
  sqlite3 "$gdb" <"$gemm_sql"
  "$fusim" fit --db "$gdb" --gemm-table --compute "$root"/data/compute/h200-calib-torch.json --merge-into "$prof" >/dev/null
  # fit names the database it read, a temporary one: name the committed dump instead, so that
  # two runs give the same bytes (before the merges below, which cut the source at 255 chars)
  sed -i "s|sweep in $gdb (|sweep in ${gemm_sql#"$root"/} (|" "$prof"
  grep -q "sweep in ${gemm_sql#"$root"/} (" "$prof" || {
    echo "make_default_profile.sh: the compute tables' source does not name $gemm_sql" >&2; exit 70; }
  # later partial calibrations (calib/device_compute_parts.sh: unaligned GEMMs and cross-entropy,
  # convolutions, the aligned GEMMs as torch.matmul runs them), in name order: each replaces the
  # tables it measured
  for f in "$root"/data/compute/h200-calib-torch-*.json; do
    [ -f "$f" ] && "$fusim" fit --compute "$f" --merge-into "$prof" >/dev/null
  done
fi

cp "$prof" "$out"
echo "wrote $out; rebuild to embed it, then sh tools/make_ndr_profile.sh (h200-ndr is this profile with links)" >&2
