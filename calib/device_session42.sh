#!/bin/bash
# device_session42.sh: the tables and profiles session 41 left unmeasured, in one PyTorch-only call
# (no build), by the GPU it lands on:
#   1. tools/calib_torch.py --parts ops_vit,ops_cat: torchvision ViT's layout copies and adds
#      (copy_t, bias_add, add_t), both dtypes; torch.cat's host cost by input count (a DenseNet's
#      concatenations: ops cat, cat_input)                                          -> vitops.json
#   2. tools/calib_torch.py --parts conv --conv-format nchw --conv-classes k16s16,k32s32: a ViT's
#      patch embedding as torchvision runs it (NCHW image), bf16 and TF32             -> patch.json
#   3. tools/profile_step.py on DenseNet-121 b32 TF32 (diagnosis of its backward, priced 21-24%
#      fast) and capture_set's densenet121_b32_tf32 capture            -> dn.tgz: prof/, cap/
#   4. on an H200 only, while SECONDS allow: calib/device_compute_clip.sh's clipped optimizer steps
#      (clip-1.json, plain.json, clip-2.json)
# Merge on the CPU: data/compute/README.md ("ViT layout operations", "Gradient clipping").
# Run from the repository root:  bash calib/device_session42.sh [SECONDS]   (results in $OUT)
LIMIT=${1:-560} W=/tmp/s42
. calib/device_torch_env.sh
mkdir -p $W/prof $W/cap
timeout 120 python3 tools/calib_torch.py --out "$OUT/vitops.json" --parts ops_vit,ops_cat
t "ops_vit,ops_cat exit $?"
timeout 90 python3 tools/calib_torch.py --out "$OUT/patch.json" --parts conv --conv-format nchw \
  --conv-classes k16s16,k32s32
t "patch conv exit $?"
timeout 120 python3 tools/profile_step.py --out $W/prof --only densenet121_b32_tf32 --top 80
t "profile exit $?"
timeout 120 python3 tools/capture_set.py --dir $W/cap --only densenet121_b32_tf32
t "capture exit $?"
tar czf "$OUT/dn.tgz" -C $W prof cap
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  left=$(( LIMIT - $(el) - 5 ))
  [ $left -gt 60 ] && OUT=$OUT/clip bash calib/device_compute_clip.sh $left
  t "clip done"
fi
t "done"
