#!/bin/bash
# device_cnn_depth.sh: one PyTorch-only call (2026-12-04u, compute16): tools/cnn_depth.py (a ResNet
# bottleneck block's host cost past ResNet-50's 16 blocks: torchvision ResNet-50/101/152 held as
# tv_resnet50_held is timed, interleaved rounds) -> $OUT/cnn_depth.json, $OUT/log.txt
# Run from the repository root:  bash calib/device_cnn_depth.sh [TIMEOUT_S] [ROUNDS]
DT=${1:-90} R=${2:-12}
. calib/device_torch_env.sh
t "cnn_depth"
timeout "$DT" python3 tools/cnn_depth.py --profile data/profiles/h200-default.json --rounds "$R" \
  --out "$OUT/cnn_depth.json"
t "cnn_depth exit $?"
ls -la "$OUT"
