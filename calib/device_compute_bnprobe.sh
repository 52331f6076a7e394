#!/bin/bash
# device_compute_bnprobe.sh: one PyTorch-only call (2026-12-04, compute14), diagnosis of batch norm's
# backward price: tools/bn_probe.py (sweep at sqrt(2)-spaced sizes 2^21..2^25, the ResNet shapes
# exactly, a profiler trace of the calibration's call) -> $OUT/bn_probe.json, $OUT/log.txt
# Run from the repository root:  bash calib/device_compute_bnprobe.sh
. calib/device_torch_env.sh
timeout 75 python3 tools/bn_probe.py --out "$OUT/bn_probe.json"
t "bn_probe exit $?"
