#!/bin/bash
# device_compute_depth.sh: one PyTorch-only call (2026-12-04, compute12): tools/hf_depth.py (an HF
# layer's host cost past the reference step's 3 layers: the tiny models at 3 and 12 layers, 30
# interleaved rounds), then the new held-out set (capture_set.NEW's compute12 block, 8 models never
# captured before, with the reference step) -> $OUT/depth.json, $OUT/heldout.tgz (p/), $OUT/log.txt
# Run from the repository root:  bash calib/device_compute_depth.sh [DEPTH_TIMEOUT_S] [CAPTURE_TIMEOUT_S]
DT=${1:-60} CT=${2:-240} W=/tmp/compute12
. calib/device_torch_env.sh
mkdir -p $W/p
t "hf_depth"
timeout "$DT" python3 tools/hf_depth.py --profile data/profiles/h200-default.json --depth 12 --rounds 30 \
  --out "$OUT/depth.json"
t "hf_depth exit $?"
timeout "$CT" python3 tools/capture_set.py --dir $W/p --only \
  bert_h384_l12_b32_s256_bf16,resnet50_b32_bf16,gpt2_h768_l6_b8_s1024_bf16,llama_h1024_l12_b8_s1024_bf16,bert_h768_l12_b32_s128_tf32,llama_h2048_l8_b2_s2048_tf32,gpt2_h1024_l16_b4_s1024_tf32,resnet152_b64_tf32
t "captures exit $?"
(cd $W && tar czf "$OUT/heldout.tgz" p)
ls -la "$OUT"
