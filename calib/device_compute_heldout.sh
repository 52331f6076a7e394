#!/bin/bash
# device_compute_heldout.sh: a held-out-like check on a lease other than the calibration's, in
# one call and without a build (PyTorch only):
#   1. tools/capture_set.py: the shapes never captured (capture_set.NEW), each with the
#      host-speed probe (meta.host_probe_us) -> captures.tgz (new/)
#   2. tools/calib_torch.py --parts hf_host --hf-sizes tiny: this lease's HF host rows beside its
#      probe (do the rows follow the probe between leases?) -> calib-hf.json
#   3. with the time left, the comparison set again (capture_set.SET, host-bound first) -> set/
# Run from the repository root:  bash calib/device_compute_heldout.sh [SECONDS]   (results in $OUT)
LIMIT=${1:-210} W=/tmp/compute-heldout
. calib/device_torch_env.sh
mkdir -p $W/new $W/set
pack() { (cd $W && tar czf "$OUT/captures.tgz" new set); }
timeout $(( LIMIT - 120 )) python3 tools/capture_set.py --dir $W/new --only \
  bert_h512_l8_b32_s128_bf16,resnet101_b64_bf16,gpt2_h1280_l12_b4_s1024_tf32,llama_h3072_l8_b2_s2048_bf16,llama_h1536_l8_b4_s1024_tf32,resnet50_b64_tf32
t "new captures exit $?"
pack
left=$(( LIMIT - $(el) ))
timeout $(( left > 75 ? 70 : left - 5 )) python3 tools/calib_torch.py --out "$OUT/calib-hf.json" --parts hf_host --hf-sizes tiny
t "calib hf_host exit $?"
left=$(( LIMIT - $(el) ))
if [ "$left" -gt 20 ]; then
  timeout $(( left - 5 )) python3 tools/capture_set.py --dir $W/set --only \
    bert_base_b16_s512_bf16,resnet50_b128_bf16,llama_h2048_l16_b4_s1024_bf16,gpt2_small_b16_s1024_bf16,bert_large_b8_s512_tf32,gpt2_medium_b8_s512_tf32,llama_h4096_l4_b2_s2048_bf16
  t "set captures exit $?"
fi
pack
ls -la "$OUT"
t "done"
