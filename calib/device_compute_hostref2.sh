#!/bin/bash
# device_compute_hostref2.sh: a second lease for the reference step (tools/host_ref.py), in one
# short call (PyTorch only):
#   1. tools/host_ref_diag.py: the reference step fresh, beside a built BERT-base, with the
#      collector frozen, between its steps, after it is gone -> diag.json
#   2. tools/capture_set.py: the host-bound models with the reference step -> captures.tgz (c/)
# Run from the repository root:  bash calib/device_compute_hostref2.sh [SECONDS]   (results in $OUT)
LIMIT=${1:-95} W=/tmp/compute-hostref2
. calib/device_torch_env.sh
mkdir -p $W/c
timeout 35 python3 tools/host_ref_diag.py > "$OUT/diag.json"
t "diag exit $?"
left=$(( LIMIT - $(el) ))
timeout $(( left - 3 )) python3 tools/capture_set.py --dir $W/c --only \
  bert_h512_l8_b32_s128_bf16,bert_base_b16_s512_bf16,resnet101_b64_bf16
t "captures exit $?"
(cd $W && tar czf "$OUT/captures.tgz" c)
ls -la "$OUT"
t "done"
