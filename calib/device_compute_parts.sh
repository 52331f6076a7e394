#!/bin/bash
# device_compute_parts.sh: the compute model's second calibration on the lent GPU machine, in one
# call and without a build (PyTorch only): tools/calib_torch.py's gemm_unaligned, ops_unaligned, conv (bf16),
# tv and gemm (aligned, as torch.matmul runs it) parts, a diagnostic profile of four models of
# the comparison set (tools/profile_step.py), then the conv part in TF32 with the time left.
# Each part's sweep stops at --budget seconds (missing points are null). Results in $OUT:
# log.txt, calib-a.json, calib-b.json, prof.tgz.
# Run from the repository root:  bash calib/device_compute_parts.sh
set -u
OUT=${OUT:-/tmp/fusim-out}
W=/tmp/compute-parts
mkdir -p "$OUT" $W/prof
exec > >(tee "$OUT/log.txt") 2>&1
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
t() { echo "[$(el) s] $*"; }
export PYTHONUNBUFFERED=1
date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.sm --format=csv
python3 -c 'import torch, transformers, torchvision; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "transformers", transformers.__version__, "torchvision", torchvision.__version__)'
uname -r; nproc; lscpu | grep -i 'model name'
python3 tools/calib_torch.py --out "$OUT/calib-a.json" --parts gemm_unaligned,ops_unaligned,conv,tv,gemm --conv-dtypes bf16 --budget 60
t "calib a exit $?"
if [ "$(el)" -lt 270 ]; then
  timeout 80 python3 tools/profile_step.py --out $W/prof --top 40 \
    --only bert_large_b8_s512_tf32,gpt2_small_b16_s1024_bf16,bert_base_b16_s512_bf16,llama_h4096_l4_b2_s2048_bf16
  t "profile exit $?"
  (cd $W && tar czf "$OUT/prof.tgz" prof)
fi
left=$(( 360 - $(el) ))
if [ "$left" -gt 30 ]; then
  python3 tools/calib_torch.py --out "$OUT/calib-b.json" --parts conv --conv-dtypes tf32 --budget $(( left - 15 ))
  t "calib b exit $?"
fi
ls -la "$OUT"
t "done"
