#!/bin/bash
# device_torch_x2.sh: issue 10 item 4 on a machine of N GPUs (nvidia-h200-x2: N = 2), in one
# call, everything in $OUT/log.txt and $OUT/res.tgz (the files below; $OUT takes at most 8):
#   1. the machine: nvidia-smi, how the GPUs are linked (topo -m), power limits, versions;
#   2. fusim built here (the fusim binary only);
#   3. fusim calib -g N of the collectives (all-reduce, all-gather, reduce-scatter) and the GEMM
#      slowdown beside an N-rank all-reduce (overlap), into calib.db; fusim fit of the N-rank
#      all-reduce merged into the bundled H200 profile (profile_xN.json), with the measured
#      comm_slowdown (fit_profile.sh's formula over this call's overlap rows);
#   4. fusim's own executor over N GPUs against its prediction (validate_fusim.txt);
#   5. tools/validate_torch.py --world-size W on MODELS for each W of WORLDS (default N), one
#      after the other on the same machine (W = 1: GPU 0 alone, the DDP plans only), cut to fit
#      BUDGET: torch_x<W>/ in res.tgz.
# Run from the repository root (a copy of the tree) as
#   . .device/prelude.sh && bash calib/device_torch_x2.sh BUDGET_S [MODELS] [ITERS] [WORLDS]
# NVLink multicast stays off: the prelude exports NCCL_NVLS_ENABLE=0,
# TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NVSHMEM_DISABLE_NVLS=1, and nothing here unsets them (the
# ranks of validate_torch inherit this environment); the script refuses to run without them.
set -u
OUT=${OUT:-/tmp/fusim-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
RES=$OUT
OUT=/tmp/x2out   # everything but the log, tarred into $RES/res.tgz at the end
mkdir -p $OUT
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
t() { echo "[$(el) s] $*"; }
export PYTHONUNBUFFERED=1
BUDGET=${1:-560}
MODELS=${2:-resnet18:32,resnet50:64,vit_b_16:32,llama_small:8}
ITERS=${3:-20}
WORLDS=${4:-}
for v in NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1; do
  [ "$(printenv "${v%%=*}")" = "${v#*=}" ] || { echo "device_torch_x2: ${v%%=*} is not ${v#*=}: refusing to run"; exit 1; }
done
N=$(nvidia-smi -L | grep -c '^GPU')
t "GPUs: $N"
{
  date -u; nvidia-smi; nvidia-smi topo -m; nvidia-smi nvlink -s 2>&1 | head -40
  nvidia-smi -q | grep -i -E 'product name|power limit|link|bus id' | sort | uniq -c
  python3 -c 'import torch, transformers, torchvision; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version(), "devices", torch.cuda.device_count(), "transformers", transformers.__version__, "torchvision", torchvision.__version__)'
  env | grep -E 'NVLS|MULTICAST|^NCCL' ; uname -r; nproc; lscpu | grep -i 'model name'
} >"$OUT/env.txt" 2>&1
grep -E -A4 '^\s+GPU0' "$OUT/env.txt" | head -6
[ "$N" -ge 2 ] || { echo "fewer than 2 GPUs: nothing to do"; exit 1; }

. calib/nccl_wheel.sh   # NCCL only as a pip wheel: a folder with the unversioned names for meson
B=/tmp/torch8-build
if [ ! -x $B/fusim-gpu ]; then   # fusim (fit) and its GPU half (calib, validate), run directly
  { [ -d $B ] || meson setup $B -Dbuildtype=release; ninja -C $B fusim fusim-gpu; } >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; }
fi
F=$B/fusim
G=$B/fusim-gpu
t "fusim built: $(ls -l $G 2>&1 | cut -c1-80)"

# 3. the collectives and the GEMM beside an N-rank all-reduce, measured in this call
DB="$OUT/calib.db"
if [ -x $G ]; then
  timeout 150 $G calib -g "$N" --suite coll,overlap --ops allreduce,allgather,reducescatter \
    --db "$DB" --progress off --format csv >"$OUT/calib.csv" 2>"$OUT/calib.err"
  t "calib exit $? ($(wc -l <"$OUT/calib.csv") lines): $(tail -2 "$OUT/calib.err")"
  q() { python3 -c 'import sqlite3, sys; print("\n".join(str(r[0]) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]) if r[0] is not None))' "$DB" "$1" 2>/dev/null; }
  # fit_profile.sh's comm_slowdown: mean over the overlap shapes of (GEMM beside) / (GEMM alone)
  commslow=$(q "select avg(w.t_median_us / a.t_median_us) from samples w join samples a
       on a.op='gemm' and a.proto='alone' and a.algo=w.algo and a.run_id=w.run_id and a.id=w.id-1
     where w.op='gemm' and w.proto in ('+allreduce')")
  t "comm_slowdown beside the $N-rank all-reduce: ${commslow:-none}"
  link=$(q "select distinct link from samples where op='allreduce' and ranks=$N" | head -1)
  t "link recorded by calib: ${link:-?}"
  cs=(); [ -n "$commslow" ] && cs=(--comm-slowdown "$commslow")
  $F fit --db "$DB" --op allreduce --ranks "$N" --dtype float --place out --graph 0 --proto default \
    --merge-into data/profiles/h200-default.json --out "$OUT/profile_x$N.json" --no-store \
    --name "h200-x$N" "${cs[@]}" --notes "allreduce x$N ($link) and comm_slowdown measured by fusim calib -g $N in this call (calib/device_torch_x2.sh)" \
    --format table >"$OUT/fit.txt" 2>&1
  t "fit exit $?: $(grep -c . "$OUT/fit.txt") lines"
  # 4. fusim's own executor over N GPUs (NCCL all-reduce) against the prediction (NO_EXEC=1: not)
  [ -n "${NO_EXEC:-}" ] || timeout 90 $G validate --workload resnet50 --comm "allreduce:$N" -g "$N" \
    --profile "$OUT/profile_x$N.json" --iters 10 --warmup 2 --db "$OUT/calib.db" \
    >"$OUT/validate_fusim.txt" 2>&1
  t "fusim validate exit $?"; tail -6 "$OUT/validate_fusim.txt"
fi

# 5. real PyTorch DDP over W GPUs, for each W
n_w=$(echo ${WORLDS:-$N} | wc -w)
for W in ${WORLDS:-$N}; do
  left=$(( (BUDGET - $(el) - 25) / n_w ))
  n_w=$(( n_w - 1 ))
  [ "$left" -ge 30 ] || { t "only $left s left for world size $W: not run"; continue; }
  plans=""
  [ "$W" -eq 1 ] && plans="ddp none,ddp 1MiB,ddp 4MiB,ddp default,ddp 100MiB,ddp default view"
  t "validate_torch --world-size $W on $MODELS, $left s"
  R=/tmp/torch_x$W
  timeout -k 10 "$left" python3 tools/validate_torch.py --out $R --world-size "$W" --iters "$ITERS" \
    --warmup 2 --capture-iters 5 --fw-rounds 4 --no-chain --model-cost-rounds 10 --beside-rounds 5 \
    --first-issue-rounds 0 --no-loop-probes --models "$MODELS" ${plans:+--plans "$plans"} \
    >"$OUT/validate_torch_x$W.txt" 2>&1
  rc=$?
  t "validate_torch --world-size $W exit $rc"
  grep -E 'rounds x|over compute-only|failed|Error|error' "$OUT/validate_torch_x$W.txt" | head -40
  [ -f $R/runs.json ] && [ "$rc" -ne 0 ] && [ "$W" -gt 1 ] && python3 -c "import sys; sys.path.insert(0, 'tools'); import validate_torch as v; v.merge_ranks('$R', $W)" \
    && t "merged the ranks after the cut"
  cp -r $R $OUT/
done
tar czf "$RES/res.tgz" -C /tmp x2out
t "done: $(ls -l $RES/res.tgz)"
