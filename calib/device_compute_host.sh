#!/bin/bash
# device_compute_host.sh: the host side of the compute model and the comparison set, on ONE lease
# (the host's speed moves between leases and within one; the host-speed probe in the calibration
# and in every capture carries one to the other) and without a build (PyTorch only):
#   1. tools/calib_torch.py --parts optimizer,hf_host --hf-sizes tiny: the optimizers' fits (their
#      per-tensor part is the host's issue cost), HF layers' host time (the hf part's method: the
#      rows the builder uses with a probe) and ResNet-50's (the GPU held), and the probe beside
#      them -> calib-e.json
#   2. tools/capture_set.py: all 7 captures of the comparison set, each with meta.host_probe_us
#      (host-bound models first) -> captures.tgz
#   3. with time left, hf_host again -> calib-f.json: whether the rows follow the probe within
#      the lease
# (2026-12-03: the calibration's own timeout cut it before its JSON; the part now flushes.)
# Run from the repository root:  bash calib/device_compute_host.sh [SECONDS]   (results in $OUT)
LIMIT=${1:-180} W=/tmp/compute-host
. calib/device_torch_env.sh
mkdir -p $W/captures
timeout 90 python3 tools/calib_torch.py --out "$OUT/calib-e.json" --parts optimizer,hf_host --hf-sizes tiny
t "calib e exit $?"
# one process (torch loads once), host-bound models first; each capture is written when done;
# the captures come before the second calibration
left=$(( LIMIT - $(el) ))
timeout $(( left - 5 )) python3 tools/capture_set.py --dir $W/captures --only \
  bert_base_b16_s512_bf16,resnet50_b128_bf16,gpt2_small_b16_s1024_bf16,bert_large_b8_s512_tf32,gpt2_medium_b8_s512_tf32,llama_h2048_l16_b4_s1024_bf16,llama_h4096_l4_b2_s2048_bf16
t "captures exit $?"
(cd $W && tar czf "$OUT/captures.tgz" captures)
left=$(( LIMIT - $(el) ))
if [ "$left" -gt 70 ]; then
  timeout $(( left - 5 )) python3 tools/calib_torch.py --out "$OUT/calib-f.json" --parts hf_host --hf-sizes tiny
  t "calib f exit $?"
fi
ls -la "$OUT"
t "done"
