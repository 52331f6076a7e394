#!/bin/bash
# device_compute_timer.sh: one PyTorch-only call (2026-12-04, compute15): tools/calib_torch.py --parts
# timer, the device time the calibration's per-call events add to every call (device_us against one
# event pair around 20 calls, op / GEMM / conv / attention calls) -> $OUT/timer.json
# Run from the repository root:  bash calib/device_compute_timer.sh
. calib/device_torch_env.sh
timeout 150 python3 tools/calib_torch.py --parts timer --out "$OUT/timer.json"
t "timer exit $?"
