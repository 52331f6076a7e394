#!/bin/bash
# device_compute.sh: the compute model's calibration and checks on the lent GPU machine, in one
# call: build fusim, tools/capture_set.py (the comparison set of real models),
# tools/calib_torch.py (attention, memory-bound ops, host costs, optimizers), the optimizers'
# cold steps (calib/device_optim_cold.sh: a training step's optimizer reads its lists from HBM,
# which calib_torch's small nets keep in the L2) and `fusim calib --suite gemm` (fixed shapes +
# the cuBLAS shape sweep), one after the other (host timings must not share the CPU with a
# build). Each result lands in $OUT as soon as it exists: log.txt, captures.tgz, compute.json,
# cold-small.json, cold-nets.json, gemm.db (calib/README.md: how they become a profile).
# Run from the repository root:  . .device/prelude.sh && bash calib/device_compute.sh
set -u
OUT=${OUT:-/tmp/fusim-out}
W=/tmp/compute-work
mkdir -p "$OUT" $W/captures
exec > >(tee "$OUT/log.txt") 2>&1
T0=$(date +%s)
t() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
python3 -c 'import torch, transformers, torchvision; print("torch", torch.__version__, "cuda", torch.version.cuda, "transformers", transformers.__version__, "torchvision", torchvision.__version__)'
nvcc --version | tail -1; uname -r; nproc; lscpu | grep -i 'model name'
. calib/nccl_wheel.sh   # NCCL only as a pip wheel: a folder with the unversioned names for meson
B=build-gpu
{ meson setup $B -Dbuildtype=release && ninja -C $B fusim fusim-gpu; } > $W/build.log 2>&1 || tail -30 $W/build.log
t "build: $(ls $B/fusim 2>&1)"
PYTHONUNBUFFERED=1 python3 tools/capture_set.py --dir $W/captures
t "captures done"
(cd $W && tar czf "$OUT/captures.tgz" captures)
PYTHONUNBUFFERED=1 python3 tools/calib_torch.py --out $W/compute.json
t "calib_torch exit $?"
cp $W/compute.json "$OUT/" 2>/dev/null
# the six optimizers the profile's rows cover; the probe's own log lands in $W/cold
OUT=$W/cold bash calib/device_optim_cold.sh 330 data/profiles/h200-default.json \
  sgd,adamw,adam,sgd_clip,adamw_clip,adam_clip > /dev/null
t "optimizer cold steps exit $?"
cp $W/cold/cold-small.json $W/cold/cold-nets.json "$OUT/" 2>/dev/null
cp $W/cold/log.txt "$OUT/cold-log.txt" 2>/dev/null
if [ -x $B/fusim ]; then
  $B/fusim calib --suite gemm -w 2 -n 10 --budget 0.05 --db $W/gemm.db --progress off
  t "calib gemm exit $?"
  cp $W/gemm.db "$OUT/" 2>/dev/null
fi
ls -la "$OUT"
t "done"
