#!/bin/bash
# device_compute_hook.sh: one PyTorch-only call (2026-12-04, compute9): partly host-bound captures
# whose hooked steps run beside the plain ones and record the hooks' own host cost
# (meta.ready_hook_us) and the unscaled hooked curve (meta.ready_hooked_us), which
# `fusim workload --ready-hook-us` prices -> $OUT/captures.tgz (h/)
# Run from the repository root:  bash calib/device_compute_hook.sh [CAPTURE_TIMEOUT_S]
CT=${1:-110} W=/tmp/compute9
. calib/device_torch_env.sh
mkdir -p $W/h
timeout "$CT" python3 tools/capture_set.py --dir $W/h --only \
  bert_base_b16_s512_bf16,resnet101_b64_bf16,bert_h512_l8_b32_s128_bf16,resnet152_b32_bf16,bert_h1024_l6_b16_s256_bf16,resnet50_b128_bf16
t "captures exit $?"
(cd $W && tar czf "$OUT/captures.tgz" h)
ls -la "$OUT"
