#!/bin/bash
# device_compute_ln.sh: one PyTorch-only call (2026-12-04, compute9): tools/calib_torch.py --parts
# ops_ln, layernorm at widths 512, 768, 2048 and 4096 -> $OUT/ops_ln.json
# Run from the repository root:  bash calib/device_compute_ln.sh
. calib/device_torch_env.sh
timeout 60 python3 tools/calib_torch.py --parts ops_ln --out "$OUT/ops_ln.json"
t "ops_ln exit $?"
