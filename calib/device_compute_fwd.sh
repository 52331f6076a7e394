#!/bin/bash
# device_compute_fwd.sh: what the GPT-2 / Llama forwards miss (data/compute/README.md, 2026-12-04:
# GPU-bound forwards 5-14% fast), in one call, PyTorch only, no build:
#   1. tools/calib_torch.py --parts ops_kv: the operations as HF lays their inputs out and as
#      autocast runs them (kv_cat, kv_cat_contig, rotary_hf, gelu_new_ac, add_mixed), which the
#      contiguous one-dtype tables misprice (in the committed kernel profiles GPT-2 small's 24
#      KV-cache copies take 1.9 ms against 0.3 ms priced as contiguous copies, Llama h4096's
#      rotary steps 2.9 ms against 2.0, casts aside, GPT-2 small's gelu_new about 13.3 against
#      12.3 ms) -> calib-kv.json
#   2. tools/calib_torch.py --parts hf_host --hf-sizes tiny: the host rows with hf_<arch>_pre_tiny
#      (the rest's forward host time before the first layer, which delays the layers' first
#      kernels) and the probe -> calib-hf.json
#   3. the comparison set and the held-out-like shapes again (the probe now also between the
#      steps) -> captures.tgz (set/, new/)
# Then: fusim fit --compute FILE --merge-into data/profiles/h200-default.json for 1 and 2 (kept as
# data/compute/h200-calib-torch-DATE-*.json), tools/build.sh, python3 tools/compare_compute.py.
# Run from the repository root:  bash calib/device_compute_fwd.sh [SECONDS]   (results in $OUT)
LIMIT=${1:-240} W=/tmp/compute-fwd
. calib/device_torch_env.sh
mkdir -p $W/set $W/new
timeout 90 python3 tools/calib_torch.py --out "$OUT/calib-kv.json" --parts ops_kv
t "calib ops_kv exit $?"
timeout 70 python3 tools/calib_torch.py --out "$OUT/calib-hf.json" --parts hf_host --hf-sizes tiny
t "calib hf_host exit $?"
left=$(( LIMIT - $(el) ))
timeout $(( left - 5 )) python3 tools/capture_set.py --dir $W/set --only \
  bert_base_b16_s512_bf16,llama_h4096_l4_b2_s2048_bf16,gpt2_small_b16_s1024_bf16,llama_h2048_l16_b4_s1024_bf16,resnet50_b128_bf16,bert_large_b8_s512_tf32,gpt2_medium_b8_s512_tf32
t "set captures exit $?"
(cd $W && tar czf "$OUT/captures.tgz" set new)
left=$(( LIMIT - $(el) ))
if [ "$left" -gt 20 ]; then
  timeout $(( left - 5 )) python3 tools/capture_set.py --dir $W/new --only \
    bert_h512_l8_b32_s128_bf16,resnet101_b64_bf16,llama_h3072_l8_b2_s2048_bf16,gpt2_h1280_l12_b4_s1024_tf32,llama_h1536_l8_b4_s1024_tf32,resnet50_b64_tf32
  t "new captures exit $?"
  (cd $W && tar czf "$OUT/captures.tgz" set new)
fi
ls -la "$OUT"
t "done"
