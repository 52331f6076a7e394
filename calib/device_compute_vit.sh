#!/bin/bash
# device_compute_vit.sh: what `fusim workload --transformer --arch vit` (torchvision's
# VisionTransformer) needs from a GPU, in one PyTorch-only call, no build:
#   1. tools/profile_step.py on ViT-B/16 b32 TF32 and b64 bf16: the step's kernels by operation
#      (diagnosis only: which operations the builder misprices)              -> vit.tgz: prof/
#   2. tools/calib_torch.py --parts hf_host --hf-sizes tiny --hf-archs bert,vit --hf-interleave:
#      a tiny ViT layer's host cost (nn.MultiheadAttention's Python path) round by round beside
#      a tiny BERT layer's, both modes                                     -> calib-vit.json
#   3. tools/capture_set.py's vit_* captures (ViT-B/16 TF32 and bf16, ViT-B/32, ViT-L/16, ViT-S/16):
#      the checks of the estimate (each with a reference step, tools/host_ref.py)  -> vit.tgz: cap/
# Then, on the CPU (repository root; PROFILE the one of this GPU):
#   python3 tools/qwen3_rows.py --arch vit --anchor bert --profile PROFILE \
#     --out data/compute/DEVICE-calib-torch-DATE-vit.json FILES_AT/calib-vit.json
#   build/fusim fit --compute data/compute/DEVICE-calib-torch-DATE-vit.json --merge-into PROFILE
# Run from the repository root:  bash calib/device_compute_vit.sh [SECONDS]   (results in $OUT)
LIMIT=${1:-420} W=/tmp/compute-vit
. calib/device_torch_env.sh
mkdir -p $W/prof $W/cap
timeout 120 python3 tools/profile_step.py --out $W/prof --only vit_b16_b32_tf32,vit_b16_b64_bf16 --top 80
t "profile exit $?"
timeout 100 python3 tools/calib_torch.py --out "$OUT/calib-vit.json" --parts hf_host --hf-sizes tiny \
  --hf-archs bert,vit --hf-interleave --hf-rounds 400 --budget 25
t "hf_host bert,vit exit $?"
left=$(( LIMIT - $(el) - 10 ))
[ $left -gt 30 ] && timeout $left python3 tools/capture_set.py --dir $W/cap \
  --only vit_b16_b32_tf32,vit_b16_b64_bf16,vit_b32_b64_tf32,vit_l16_b16_bf16,vit_s16_b32_bf16
t "captures exit $?"
tar czf "$OUT/vit.tgz" -C $W prof cap
t "done"
