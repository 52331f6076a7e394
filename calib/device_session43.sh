#!/bin/bash
# device_session43.sh: the H200's own tables where the embedded profile holds derived ones, in one
# PyTorch-only call of at most about 560 s (no build), most wanted first:
#   1. the NCHW convolutions, batch norm and max pooling (calib_torch --parts conv,ops_nchw
#      --conv-format nchw)                                                      -> nchw.json
#   2. ViT's layout tables and the NCHW patch convolutions (k16s16, k32s32)     -> vit.json, patch.json
#   3. ViT's layers past the reference depth (tools/hf_depth.py --archs vit)    -> vitdeep.json
#   4. while SECONDS allow, calib/device_compute_clip.sh's clipped optimizer steps -> clip.tgz
# Refuses on any other GPU (exit 3): these are the H200's rows.
# Run from the repository root:  bash calib/device_session43.sh [SECONDS]   (results in $OUT)
LIMIT=${1:-560}
. calib/device_torch_env.sh
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || { t "not an H200"; exit 3; }
timeout 220 python3 tools/calib_torch.py --out "$OUT/nchw.json" --parts conv,ops_nchw --conv-format nchw
t "nchw exit $?"
timeout 40 python3 tools/calib_torch.py --out "$OUT/vit.json" --parts ops_vit
t "ops_vit exit $?"
timeout 40 python3 tools/calib_torch.py --out "$OUT/patch.json" --parts conv --conv-format nchw \
  --conv-classes k16s16,k32s32
t "patch conv exit $?"
timeout 60 python3 tools/hf_depth.py --archs vit --profile data/profiles/h200-default.json --out "$OUT/vitdeep.json"
t "hf_depth exit $?"
left=$(( LIMIT - $(el) - 10 ))
if [ $left -gt 60 ]; then
  OUT=$OUT/clip bash calib/device_compute_clip.sh $left
  tar -C "$OUT" -czf "$OUT/clip.tgz" clip && rm -rf "$OUT/clip"
fi
t "done"
