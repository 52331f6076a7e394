#!/bin/bash
# device_compute_bn.sh: one PyTorch-only call (2026-12-04, compute13): tools/calib_torch.py --parts
# ops_bn, batch norm at 64, 128, 512, 1024 and 2048 channels ("batchnorm2d" has 256) -> $OUT/ops_bn.json
# Run from the repository root:  bash calib/device_compute_bn.sh
. calib/device_torch_env.sh
timeout 90 python3 tools/calib_torch.py --parts ops_bn --out "$OUT/ops_bn.json"
t "ops_bn exit $?"
