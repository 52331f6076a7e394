#!/bin/sh
# fit_profile.sh: turn a `fusim calib` database into a profile with `fusim fit` (CPU only).
#
#   calib/fit_profile.sh FUSIM CALIB.db|CALIB.sql OUT.json [NAME]
#
# e.g. calib/fit_profile.sh build/fusim data/calibration/h200-pcie-2026-12-02.sql \
#        data/profiles/h200-pcie.json    (a .sql is an sqlite3 .dump of a calib database)
#
# fusim fit groups samples by (op, link, ranks, algo); calib also stores timing variants
# (proto sync/queued, forced NCCL protocols, CUDA-graph replays, in-place, other data types)
# and one-off rows (fusion comparison, GEMM, issue and launch costs) beside the canonical
# samples. A scratch copy of the database keeps only the canonical ones (copies timed back to
# back, collectives out-of-place float with NCCL's own choices and no graph, the pack kernel
# over all k as one curve; pageable copies stay in the raw samples only, since a profile's
# curve takes no such variant); the scalars come from the one-off rows by the SQL below (each
# formula is written into the profile's notes).
set -eu
fusim=$1
src=$2
out=$3
name=${4:-h200-pcie}
tmp=$(mktemp -d /tmp/fusim-fit.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
db=$tmp/fit.db
case $src in
  *.sql) sqlite3 "$db" <"$src" ;;
  *) sqlite3 "$src" ".backup '$db'" ;;
esac

q() { sqlite3 "$db" "$1"; }
# scalars (medians of the stored samples)
launch=$(q "select t_median_us from samples where op='launch' and algo='device'")
issue=$(q "select t_median_us from samples where op='issue' and link='pcie_d2h' and algo='host'")
duplex=$(q "select b.busbw_gbps / (h.busbw_gbps + d.busbw_gbps) from samples b, samples h, samples d
  where b.op='bidir' and b.proto is null and b.bytes=268435456
    and h.op='h2d' and h.algo is null and h.proto is null and h.bytes=268435456
    and d.op='d2h' and d.algo is null and d.proto is null and d.bytes=268435456")
hbm=$(q "select busbw_gbps from samples where op='d2d' and proto is null order by bytes desc limit 1")
bf16=$(q "select busbw_gbps / 1000 from samples where op='gemm' and dtype='bf16' and algo='8192x8192x8192' and proto is null")
tf32=$(q "select busbw_gbps / 1000 from samples where op='gemm' and dtype='tf32' and algo='8192x8192x8192' and proto is null")
fp32=$(q "select busbw_gbps / 1000 from samples where op='gemm' and dtype='fp32' and algo='8192x8192x8192' and proto is null")
slow() {  # mean over the overlap shapes of (GEMM beside X) / (GEMM alone)
  q "select avg(w.t_median_us / a.t_median_us) from samples w join samples a
       on a.op='gemm' and a.proto='alone' and a.algo=w.algo and a.run_id=w.run_id and a.id=w.id-1
     where w.op='gemm' and w.proto in ($1)"
}
commslow=$(slow "'+allreduce'")
copyslow=$(slow "'+d2h','+h2d'")
d2dslow=$(slow "'+d2d'")
for v in "$launch" "$issue" "$duplex" "$hbm" "$bf16" "$tf32" "$commslow" "$copyslow"; do
  [ -n "$v" ] || { echo "fit_profile.sh: $src lacks a scalar row (run every calib suite)" >&2; exit 65; }
done
prov=$(q "select h.host_name || ', ' || h.gpu || ', driver ' || h.driver || ', CUDA ' || h.cuda ||
  ', NCCL ' || h.nccl || ', ' || h.topology from runs r join hosts h on h.id=r.host_id
  where r.kind='calib' order by r.id desc limit 1")
cmds=$(q "select group_concat(cmdline, ' ; ') from runs where kind='calib'")

# canonical samples only
q "delete from samples where proto is not null or graph = 1 or in_place = 1
     or (dtype is not null and dtype <> 'float')
     or op in ('gemm', 'issue', 'launch') or algo = 'pageable'
     or algo like 'one:%' or algo like 'separate:%' or algo like 'pack+d2h:%' or algo like 'p2h:%'
     or algo like 'unpack:%' or algo like 'odd:%';
   update samples set algo = null where op = 'pack' and algo like 'k=%';"

notes="fusim calib on $prov. Commands: $cmds. Scalars from the same database:\
 launch_us = median device time per empty kernel of 1000 launched back to back (fusim's stream);\
 issue_us = median host time per cudaMemcpyAsync of 64 back-to-back 4-byte D2H copies;\
 duplex_factor = bidir GB/s / (h2d + d2h GB/s) at 256 MiB, pinned, synchronised runs;\
 comm_slowdown = mean over GEMM 8192^3 and 4096^3 bf16 of time beside a 256 MiB NCCL all-reduce\
 (one rank: NCCL's device copy kernel) / time alone; copy_slowdown = the same beside 256 MiB\
 D2H and H2D copies (copy engines; beside a 256 MiB D2D copy it is $d2dslow);\
 hbm_gbps = D2D bytes copied / time at the largest size; gpu_tflops_bf16 = cuBLAS 8192^3 bf16;\
 gpu_tflops_fp32 = cuBLAS 8192^3 with TF32 tensor cores (strict FP32: $fp32 TFLOP/s)."
src_label="fusim calib: $prov"
fit() { "$fusim" fit --db "$db" --tolerance 0.05 --format csv --no-store --source "$src_label" "$@" >/dev/null; }
fit --op h2d --link pcie_h2d --out "$out" --name "$name" --gpu "NVIDIA H200" \
  --profile-source "fusim calib/fit_profile.sh from $(basename "$src")" \
  --launch-us "$launch" --issue-us "$issue" --duplex-factor "$duplex" --copy-slowdown "$copyslow" \
  --comm-slowdown "$commslow" --hbm-gbps "$hbm" --gpu-tflops-bf16 "$bf16" --gpu-tflops-fp32 "$tf32" \
  --notes "$notes"
fit --op d2h --link pcie_d2h --merge-into "$out"
fit --op d2d --link hbm --merge-into "$out"
fit --op bidir --link pcie_bidir --merge-into "$out"
fit --op pack --link hbm --merge-into "$out"
for op in allreduce allgather reducescatter broadcast sendrecv alltoall; do
  fit --op $op --ranks 1 --merge-into "$out"
done
echo "launch_us=$launch issue_us=$issue duplex=$duplex hbm_gbps=$hbm bf16=$bf16 tf32=$tf32 fp32=$fp32"
echo "comm_slowdown=$commslow copy_slowdown=$copyslow d2d_slowdown=$d2dslow"
# the per-size quality of the PCIe and HBM segments (issue 4: every size within 5%)
"$fusim" fit --db "$db" --tolerance 0.05 --no-store --format table --op h2d --link pcie_h2d | tail -25
