#!/bin/bash
# device_session42b.sh: a short second lease of session 42, by the GPU it lands on.
#   H200: tools/calib_torch.py --parts ops_vit (ViT's layout tables) and the NCHW patch
#         convolutions (k16s16, k32s32) -> vit.json, patch.json; then, while SECONDS allow,
#         calib/device_compute_clip.sh's clipped optimizer steps -> clip/
#   else: the DenseNet captures that split mode from model (DenseNet-121 in bf16, DenseNet-169 in
#         TF32), for the bf16 DenseNet-169 whose backward the cat rows price 17% slow -> cap/
# Run from the repository root:  bash calib/device_session42b.sh [SECONDS]   (results in $OUT)
LIMIT=${1:-250}
. calib/device_torch_env.sh
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  timeout 40 python3 tools/calib_torch.py --out "$OUT/vit.json" --parts ops_vit
  t "ops_vit exit $?"
  timeout 40 python3 tools/calib_torch.py --out "$OUT/patch.json" --parts conv --conv-format nchw \
    --conv-classes k16s16,k32s32
  t "patch conv exit $?"
  left=$(( LIMIT - $(el) - 5 ))
  [ $left -gt 60 ] && OUT=$OUT/clip bash calib/device_compute_clip.sh $left
else
  timeout $(( LIMIT - 10 )) python3 tools/capture_set.py --dir "$OUT/cap" --only densenet121_b32_bf16,densenet169_b32_tf32
  t "captures exit $?"
fi
t "done"
