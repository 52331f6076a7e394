#!/bin/bash
# device_hf_shape_pace.sh: one PyTorch-only call (written 2026-12-04, compute17; not run yet):
# tools/hf_shape_pace.py, a BERT layer's host cost at real shapes against the tiny rows that price
# it, the host's speed cancelled by the tiny reference timed in every round. The shapes are the
# captures' host-bound BERTs (h512 32 x 128 at 8 layers, h1024 16 x 256 at 6) and BERT-base's
# 16 x 512 at 12 (GPU-bound in its captures: read its figure as an upper bound, the backward()
# call may wait on a full launch queue). -> $OUT/shape_*.json, $OUT/log.txt
# Run from the repository root:  bash calib/device_hf_shape_pace.sh [TIMEOUT_S_EACH] [ROUNDS]
DT=${1:-90} R=${2:-30}
. calib/device_torch_env.sh
P=data/profiles/h200-default.json
for s in "512 8 2048 32 128 8" "1024 16 4096 16 256 6" "768 12 3072 16 512 12"; do
  set -- $s
  t "hf_shape_pace h$1 $4x$5 L$6"
  timeout "$DT" python3 tools/hf_shape_pace.py --profile $P --arch bert --mode bf16 --hidden $1 --heads $2 \
    --ffn $3 --batch $4 --seq $5 --depth $6 --rounds "$R" --out "$OUT/shape_h$1_l$6.json"
  t "exit $?"
done
ls -la "$OUT"
