#!/bin/bash
# device_compute_hostref.sh: does a reference step timed between a capture's steps (tools/
# host_ref.py, meta.host_ref) carry the calibration's host rows to the capture's host speed?
# One call, PyTorch only:
#   1. tools/capture_set.py, pass A: host-bound and mixed models, each with its reference step
#      (the tiny HF model of its architecture, or the held ResNet-50) -> a/
#   2. tools/calib_torch.py --parts hf_host --hf-sizes tiny: this lease's host rows, timed apart
#      from the captures (does a reference timed at another time carry as well?) -> calib-hf.json
#   3. pass B: the host-bound models again, minutes later (does the reference follow the host's
#      drift within the lease?) -> b/
# Run from the repository root:  bash calib/device_compute_hostref.sh [SECONDS]   (results in $OUT)
LIMIT=${1:-250} W=/tmp/compute-hostref
. calib/device_torch_env.sh
mkdir -p $W/a $W/b
pack() { (cd $W && tar czf "$OUT/captures.tgz" a b); }
timeout $(( LIMIT - 140 )) python3 tools/capture_set.py --dir $W/a --only \
  bert_h512_l8_b32_s128_bf16,resnet101_b64_bf16,bert_base_b16_s512_bf16,resnet50_b64_tf32,resnet50_b128_bf16,llama_h2048_l16_b4_s1024_bf16,gpt2_h1280_l12_b4_s1024_tf32,llama_h1536_l8_b4_s1024_tf32
t "pass A exit $?"
pack
left=$(( LIMIT - $(el) ))
timeout $(( left > 130 ? 75 : left - 55 )) python3 tools/calib_torch.py --out "$OUT/calib-hf.json" --parts hf_host --hf-sizes tiny
t "calib hf_host exit $?"
left=$(( LIMIT - $(el) ))
if [ "$left" -gt 25 ]; then
  timeout $(( left - 5 )) python3 tools/capture_set.py --dir $W/b --only \
    bert_h512_l8_b32_s128_bf16,resnet101_b64_bf16,bert_base_b16_s512_bf16,resnet50_b64_tf32
  t "pass B exit $?"
fi
pack
ls -la "$OUT"
t "done"
