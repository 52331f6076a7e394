#!/bin/bash
# device_compute_tf32conv.sh: one PyTorch-only call (2026-12-04, compute12), diagnosis only: kernel
# profiles (tools/profile_step.py) of the ResNets whose GPU-only backward reads below the estimate's
# device sum in TF32 (ResNet-50 b64 0.960 over 5 captures, ResNet-152 b64 0.945) beside one in bf16
# (ResNet-50 b128: 1.024) -> $OUT/prof.tgz (prof/), $OUT/log.txt
# Run from the repository root:  bash calib/device_compute_tf32conv.sh [TIMEOUT_S]
PT=${1:-150} W=/tmp/compute12
. calib/device_torch_env.sh
mkdir -p $W/prof
timeout "$PT" python3 tools/profile_step.py --out $W/prof --only resnet50_b64_tf32,resnet152_b64_tf32,resnet50_b128_bf16
t "profile exit $?"
(cd $W && tar czf "$OUT/prof.tgz" prof)
ls -la "$OUT"
