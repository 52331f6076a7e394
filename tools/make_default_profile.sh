#!/bin/sh
# make_default_profile.sh: regenerate data/profiles/h200-default.json, the profile embedded in
# fusim, from the reference measurements in ../shared/data/reference/ using fusim itself:
# `fusim import` the files into a scratch database, `fusim fit` each curve into one profile
# (--merge-into), and set the scalars from the reference rows (figures derived below).
#
#   tools/make_default_profile.sh [FUSIM [OUT.json]]
#     FUSIM     the fusim binary (default build/fusim, else build-*/fusim)
#     OUT.json  where to write (default data/profiles/h200-default.json); rebuild afterwards so
#               the new file is embedded.
# Environment: FUSIM_SHARED (default ../shared next to the source tree).
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
for f in h200-pcie-copies.csv h200-pcie-copies.txt h200-1gpu-allreduce-nccl-tests.txt \
         azure-nd-h200-v5-allreduce-nvls-8gpu.csv; do
  if [ ! -r "$ref/$f" ]; then echo "make_default_profile.sh: $ref/$f: missing" >&2; exit 66; fi
done

tmp=$(mktemp -d /tmp/fusim-default-profile.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
db=$tmp/reference.db
prof=$tmp/h200-default.json

# --- samples ---
"$fusim" import --db "$db" "$ref/h200-pcie-copies.csv" >/dev/null
"$fusim" import --db "$db" "$ref/h200-1gpu-allreduce-nccl-tests.txt" >/dev/null
"$fusim" import --db "$db" --link nvlink "$ref/azure-nd-h200-v5-allreduce-nvls-8gpu.csv" >/dev/null

# --- scalars, read off h200-pcie-copies.txt (one H200, driver 580.159.04, CUDA 13.0) ---
txt=$ref/h200-pcie-copies.txt
# launch: 1000 back-to-back empty kernels -> per_launch_us
launch=$(awk '$1 == "launch_empty_x1000" { print $5 }' "$txt")
# issue: 64 separate 4 KiB device-to-host copies took separate_us; host issue bound -> /64
issue=$(awk '$1 == "fusion" && $3 == 64 && $5 == 4096 { printf "%.10g", $7 / 64 }' "$txt")
# duplex: bidirectional 256 MiB GB/s over the sum of h2d and d2h GB/s at 256 MiB
duplex=$(awk '$1 == "h2d" && $2 == 268435456 { h = $4 } $1 == "d2h" && $2 == 268435456 { d = $4 }
              $1 == "bidir" { b = $4 } END { printf "%.10g", b / (h + d) }' "$txt")
# copy slowdown: the 2 ms kernel overlapped with a 64 MiB D2H copy: both_us / compute_us
copyslow=$(awk '$1 == "overlap" { printf "%.10g", $7 / $3 }' "$txt")
# HBM: device-to-device GB/s (bytes copied) at the largest size
hbm=$(awk '$1 == "d2d" { g = $4 } END { printf "%.10g", g }' "$txt")
for v in "$launch" "$issue" "$duplex" "$copyslow" "$hbm"; do
  if [ -z "$v" ]; then echo "make_default_profile.sh: $txt: a scalar row is missing" >&2; exit 65; fi
done

notes="Scalars from h200-pcie-copies.txt (one H200, PCIe Gen5 x16, driver 580.159.04, CUDA 13.0):\
 launch_us = per_launch_us of 1000 back-to-back empty kernels;\
 issue_us = 64 separate 4 KiB D2H copies 136.00 us / 64;\
 duplex_factor = bidir 99.13 GB/s / (h2d 55.22 + d2h 55.24 GB/s) at 256 MiB;\
 copy_slowdown = 2 ms kernel with a 64 MiB D2H copy beside it, 2023.4 / 2020.6 us;\
 hbm_gbps = D2D at 1 GiB (bytes copied).\
 gpu_tflops_bf16 = 700: an estimate, about 71% of the H200's 989 TFLOP/s dense BF16 peak\
 (NVIDIA datasheet), typical of large cuBLAS GEMMs; gpu_tflops_fp32 = 350: the same fraction of\
 the 494.7 TFLOP/s dense TF32 peak; both to be replaced by fusim calib.\
 comm_slowdown = 1.0: not measured yet (unknown), to be calibrated."

fit() { "$fusim" fit --db "$db" --tolerance 0.05 --format csv "$@" >/dev/null; }

copysrc="measured: h200-pcie-copies.csv, one NVIDIA H200, cudaMemcpyAsync pinned, median of 10-50 runs, CUDA events (2026-12-02)"
fit --op h2d --link pcie_h2d --source "$copysrc" --out "$prof" --name h200-default --gpu "NVIDIA H200" \
    --profile-source "fusim tools/make_default_profile.sh from ../shared/data/reference (measured H200 copies and 1-GPU NCCL; published Azure ND H200 v5 8-GPU NVLS all-reduce)" \
    --launch-us "$launch" --issue-us "$issue" --duplex-factor "$duplex" --copy-slowdown "$copyslow" \
    --comm-slowdown 1.0 --hbm-gbps "$hbm" --gpu-tflops-bf16 700 --gpu-tflops-fp32 350 --notes "$notes"
fit --op d2h --link pcie_d2h --source "$copysrc" --merge-into "$prof"
fit --op d2d --link hbm --source "$copysrc" --merge-into "$prof"
fit --op allreduce --ranks 1 --merge-into "$prof" \
    --source "measured: nccl-tests 2.19.6 all_reduce_perf -g 1, NCCL 2.28.3, one H200, out-of-place: NCCL per-call overhead (a local copy, no link)"
fit --op allreduce --ranks 8 --link nvlink --algo nvls --merge-into "$prof" \
    --source "published: Azure/AI-benchmarking-guide ND H200 v5, NVLS, in-place"

cp "$prof" "$out"
echo "wrote $out; rebuild to embed it" >&2
