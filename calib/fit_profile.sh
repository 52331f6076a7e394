#!/bin/sh
# fit_profile.sh: turn a `fusim calib` database into a profile with `fusim fit` (CPU only).
#
#   calib/fit_profile.sh FUSIM CALIB.db|CALIB.sql OUT.json [NAME]
#   calib/fit_profile.sh --scalars CALIB.db|CALIB.sql
#
# e.g. calib/fit_profile.sh build/fusim data/calibration/h200-pcie-2026-12-02.sql \
#        data/profiles/h200-pcie.json    (a .sql is an sqlite3 .dump of a calib database)
#
# The curves: `fusim fit` keeps calib's variants apart by itself (calib/fu_calib.h's table;
# see model/cmd_fit.c) and by default fits the plain one: copies timed the reference's way
# (event, copy, event, synchronise) from pinned memory, the pack kernel over all k as one curve,
# collectives with NCCL's own algorithm and protocol, no CUDA graph; the collectives here are
# also pinned to out-of-place float. The pageable copies are added as variant curves
# ("pageable": kept in the profile, never picked by the simulator's lookups).
# The scalars come from calib's one-off rows (GEMM, issue and launch costs, overlap, the fusion
# comparison) by the SQL below; `--scalars` prints them as sh assignments (name=value, and
# notes='...' with each formula) for tools/make_default_profile.sh, which uses the same figures.
set -eu
mode=profile
if [ "${1:-}" = "--scalars" ]; then
  mode=scalars
  shift
  [ $# -eq 1 ] || { echo "usage: calib/fit_profile.sh --scalars CALIB.db|CALIB.sql" >&2; exit 64; }
  src=$1
else
  [ $# -ge 3 ] || { echo "usage: calib/fit_profile.sh FUSIM CALIB.db|CALIB.sql OUT.json [NAME]" >&2; exit 64; }
  fusim=$1
  src=$2
  out=$3
  name=${4:-h200-pcie}
fi
[ -r "$src" ] || { echo "fit_profile.sh: $src: missing" >&2; exit 66; }
command -v sqlite3 >/dev/null || { echo "fit_profile.sh: needs the sqlite3 command (apt-get install sqlite3)" >&2; exit 69; }
tmp=$(mktemp -d /tmp/fusim-fit.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
db=$tmp/fit.db
case $src in
  *.sql) sqlite3 "$db" <"$src" ;;
  *) sqlite3 "$src" ".backup '$db'" ;;
esac

q() { sqlite3 "$db" "$1"; }
# the median of the numbers on stdin, one a line, sorted
median() { awk '{ v[NR] = $1 } END { if (NR) printf "%.6g", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# --- scalars (medians of the stored samples) ---
launch=$(q "select t_median_us from samples where op='launch' and algo='device'")
issue=$(q "select t_median_us from samples where op='issue' and link='pcie_d2h' and algo='host'")
duplex=$(q "select b.busbw_gbps / (h.busbw_gbps + d.busbw_gbps) from samples b, samples h, samples d
  where b.op='bidir' and b.proto is null and b.bytes=268435456
    and h.op='h2d' and h.algo is null and h.proto is null and h.bytes=268435456
    and d.op='d2h' and d.algo is null and d.proto is null and d.bytes=268435456")
hbm=$(q "select busbw_gbps from samples where op='d2d' and algo is null and proto is null order by bytes desc limit 1")
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
# pack hand-off: (pack + one D2H copy) - (the one copy alone) - (the pack alone), the fusion
# comparison's rows of the same k and total size; median over totals >= 64 x 64 KiB (4 MiB).
# Timed back to back ("pipe": an event pair around each run, no host round trip inside), so
# no submission latency is subtracted twice; the synchronised runs' median is noted beside it.
handoff_rows() {
  q "select pd.t_median_us - o.t_median_us - pk.t_median_us from samples pd
       join samples o on o.run_id = pd.run_id and o.op = 'd2h' and o.bytes = pd.bytes
         and o.algo = replace(pd.algo, 'pack+d2h:', 'one:') and o.proto is pd.proto
       join samples pk on pk.run_id = pd.run_id and pk.op = 'pack' and pk.link = 'hbm' and pk.bytes = pd.bytes
         and pk.algo = replace(pd.algo, 'pack+d2h:', '') and pk.proto is pd.proto
     where pd.op = 'pack' and pd.algo like 'pack+d2h:k=%' and pd.proto $1 and pd.bytes >= 4194304
     order by 1"
}
handoff=$(handoff_rows "= 'pipe'" | median)
handoff_n=$(handoff_rows "= 'pipe'" | wc -l)
handoff_sync=$(handoff_rows "is null" | median)
for v in "$launch" "$issue" "$duplex" "$hbm" "$bf16" "$tf32" "$commslow" "$copyslow" "$handoff"; do
  [ -n "$v" ] || { echo "fit_profile.sh: $src lacks a scalar row (run every calib suite)" >&2; exit 65; }
done
prov=$(q "select h.host_name || ', ' || h.gpu || ', driver ' || h.driver || ', CUDA ' || h.cuda ||
  ', NCCL ' || h.nccl || ', ' || h.topology from runs r join hosts h on h.id=r.host_id
  where r.kind='calib' order by r.id desc limit 1")
cmds=$(q "select group_concat(cmdline, ' ; ') from runs where kind='calib'")
notes="Scalars from fusim calib ($(basename "$src"), sample medians):\
 launch_us = device time per empty kernel, 1000 back to back;\
 issue_us = host time per cudaMemcpyAsync, 64 back-to-back 4-byte D2H copies;\
 duplex_factor = bidir GB/s / (h2d + d2h GB/s), 256 MiB pinned;\
 comm_slowdown = mean over GEMM 8192^3, 4096^3 bf16 of time beside a 256 MiB all-reduce / alone,\
 ONE GPU only (1-rank NCCL: a local copy kernel);\
 copy_slowdown = the same beside 256 MiB D2H and H2D copies (beside D2D: $(printf %.3f "$d2dslow"));\
 hbm_gbps = D2D bytes / time at the largest size; gpu_tflops_bf16, _fp32 = cuBLAS 8192^3 bf16,\
 TF32 (strict FP32 $(printf %.1f "$fp32"));\
 pack_handoff_us = median over $handoff_n (k, total >= 4 MiB) of pack+D2H - D2H - pack, timed\
 back to back (pipe; synchronised runs give $handoff_sync, a host round trip too many)."

if [ $mode = scalars ]; then
  printf "launch=%s\nissue=%s\nduplex=%s\nhbm=%s\nbf16=%s\ntf32=%s\nfp32=%s\n" \
    "$launch" "$issue" "$duplex" "$hbm" "$bf16" "$tf32" "$fp32"
  printf "commslow=%s\ncopyslow=%s\nd2dslow=%s\nhandoff=%s\nhandoff_n=%s\nhandoff_sync=%s\n" \
    "$commslow" "$copyslow" "$d2dslow" "$handoff" "$handoff_n" "$handoff_sync"
  printf "prov='%s'\nnotes='%s'\n" "$(printf %s "$prov" | sed "s/'/'\\\\''/g")" \
    "$(printf %s "$notes" | sed "s/'/'\\\\''/g")"
  exit 0
fi

# the GPU the samples were taken on (fit keeps GPUs apart: --gpu selects as well as names)
gpu=$(q "select distinct gpu from hosts where gpu is not null")
[ -n "$gpu" ] && [ "$(printf '%s\n' "$gpu" | wc -l)" -eq 1 ] || {
  echo "fit_profile.sh: $src: needs samples of exactly one GPU model, has: $(printf '%s' "$gpu" | tr '\n' ',')" >&2; exit 65; }
src_label="fusim calib: $prov"
fit() { "$fusim" fit --db "$db" --tolerance 0.05 --format csv --no-store --source "$src_label" "$@" >/dev/null; }
fit --op h2d --link pcie_h2d --out "$out" --name "$name" --gpu "$gpu" \
  --profile-source "fusim calib/fit_profile.sh from $(basename "$src")" \
  --launch-us "$launch" --issue-us "$issue" --duplex-factor "$duplex" --copy-slowdown "$copyslow" \
  --comm-slowdown "$commslow" --hbm-gbps "$hbm" --gpu-tflops-bf16 "$bf16" --gpu-tflops-fp32 "$tf32" \
  --pack-handoff-us "$handoff" --notes "fusim calib on $prov. Commands: $cmds. $notes"
fit --op d2h --link pcie_d2h --merge-into "$out"
fit --op d2d --link hbm --merge-into "$out"
fit --op bidir --link pcie_bidir --merge-into "$out"
fit --op pack --link hbm --merge-into "$out"
fit --op h2d --link pcie_h2d --algo pageable --merge-into "$out"
fit --op d2h --link pcie_d2h --algo pageable --merge-into "$out"
for op in allreduce allgather reducescatter broadcast sendrecv alltoall; do
  fit --op $op --ranks 1 --dtype float --place out --graph 0 --proto default --merge-into "$out"
done
echo "launch_us=$launch issue_us=$issue duplex=$duplex hbm_gbps=$hbm bf16=$bf16 tf32=$tf32 fp32=$fp32"
echo "comm_slowdown=$commslow copy_slowdown=$copyslow d2d_slowdown=$d2dslow"
echo "pack_handoff_us=$handoff (pipe, $handoff_n sizes; synchronised: $handoff_sync)"
# the per-size quality of the PCIe and HBM segments (issue 4: every size within 5%)
"$fusim" fit --db "$db" --tolerance 0.05 --no-store --format table --op h2d --link pcie_h2d | tail -25
