#!/bin/bash
# device_bwd_start.sh: one PyTorch-only call (issue 13): tools/bwd_start.py (backward()'s own start
# before its first node runs, the GPU idle at the call: a Linear, a Conv2d, a small CNN at two
# depths, ResNet-50 as a check; bf16 autocast and fp32 with TF32; carried to the profile's host speed
# by ResNet-50's held step, as tv_resnet50_held is timed) -> $OUT/bwd_start.json (rows
# torch_bwd_start, torch_bwd_start_node), $OUT/log.txt. The profile is this GPU's bundled one
# (H100: data/profiles/h100-sxm.json, else data/profiles/h200-default.json); merge with
#   build/fusim fit --compute FILES_AT/bwd_start.json --merge-into THAT_PROFILE
# Run from the repository root:  bash calib/device_bwd_start.sh [TIMEOUT_S] [ROUNDS]
BT=${1:-150} R=${2:-30}
. calib/device_torch_env.sh
prof=data/profiles/h200-default.json
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100 && prof=data/profiles/h100-sxm.json
t "bwd_start on $prof"
timeout "$BT" python3 tools/bwd_start.py --profile "$prof" --rounds "$R" --out "$OUT/bwd_start.json"
t "bwd_start exit $?"
ls -la "$OUT"
