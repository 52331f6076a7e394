#!/bin/bash
# device_compute_host.sh: the host side of the compute model on the lent GPU machine, in one call
# and without a build (PyTorch only): tools/calib_torch.py's hf_host part (HF layers' host time at
# realistic sizes with the GPU held, beside the tiny configurations, with the host-speed probe)
# and ops_kv (transformers 5's DynamicCache copies), then captures of the comparison set's
# host-bound models with the probe in their meta, as time allows. Results in $OUT: log.txt,
# calib-d.json, captures.tgz.
# (2026-12-03: the calibration took 65 s to the fp32 ResNet pass, which its 75 s timeout cut;
# hf_host now writes its file after each model.)
# Run from the repository root:  bash calib/device_compute_host.sh [SECONDS]
set -u
OUT=${OUT:-/tmp/fusim-out}
LIMIT=${1:-150}
W=/tmp/compute-host
mkdir -p "$OUT" $W/captures
exec > >(tee "$OUT/log.txt") 2>&1
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
t() { echo "[$(el) s] $*"; }
export PYTHONUNBUFFERED=1
date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
python3 -c 'import torch, transformers, torchvision; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "transformers", transformers.__version__, "torchvision", torchvision.__version__)'
uname -r; nproc; lscpu | grep -i 'model name'
timeout 100 python3 tools/calib_torch.py --out "$OUT/calib-d.json" --parts ops_kv,hf_host
t "calib d exit $?"
for m in bert_base_b16_s512_bf16 resnet50_b128_bf16 gpt2_small_b16_s1024_bf16; do
  left=$(( LIMIT - $(el) ))
  [ "$left" -gt 25 ] || break
  timeout $(( left - 5 )) python3 tools/capture_set.py --dir $W/captures --only $m
  t "capture $m exit $?"
done
(cd $W && tar czf "$OUT/captures.tgz" captures)
ls -la "$OUT"
t "done"
