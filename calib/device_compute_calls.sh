#!/bin/bash
# device_compute_calls.sh: one PyTorch-only call (2026-12-04, compute8):
#   1. tools/capture_set.py: the NEW2 shapes (never captured before), with the reference step
#      -> $OUT/captures.tgz (n/)
#   2. tools/emb_bwd_host.py: more rounds of the embedding's sort-path host cost, isolated and
#      inside the tiny BERT's backward -> $OUT/embbwd.json
#   3. tools/bwd_calls.py: the CUDA runtime calls of real HF models' backward against the tiny
#      models of the profile's host rows, and the bias gradient's reduction by size -> $OUT/bwdcalls.json
# Run from the repository root:  bash calib/device_compute_calls.sh [EMB_ROUNDS] [CALL_ROUNDS]
ER=${1:-30} CR=${2:-8} W=/tmp/compute8
. calib/device_torch_env.sh
mkdir -p $W/n
timeout 130 python3 tools/capture_set.py --dir $W/n --only \
  bert_h384_l6_b64_s128_tf32,bert_h1024_l6_b16_s256_bf16,gpt2_h1024_l8_b8_s512_bf16,llama_h2560_l6_b2_s1024_tf32,resnet152_b32_bf16
t "captures exit $?"
(cd $W && tar czf "$OUT/captures.tgz" n)
timeout 90 python3 tools/emb_bwd_host.py --rounds "$ER" > "$OUT/embbwd.json"
t "embbwd exit $?"
timeout 150 python3 tools/bwd_calls.py --rounds "$CR" > "$OUT/bwdcalls.json"
t "bwdcalls exit $?"
ls -la "$OUT"
