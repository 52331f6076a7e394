#!/bin/bash
# device_compute_optdiag.sh: why the optimizer's host cost per tensor differs between parameter
# lists, and a check of the 2026-12-04d rows on another lease, in one call (PyTorch only):
#   1. tools/optim_host_diag.py: opt.step()'s CPU per tensor over five list layouts -> diag.json
#   2. tools/capture_set.py: the host-bound optimizer models (BERT h512, ResNet-101, BERT-base)
#      -> captures.tgz
#   3. tools/calib_torch.py --parts optimizer with 40 s left: this lease's rows -> calib-opt.json
# Run from the repository root:  bash calib/device_compute_optdiag.sh [SECONDS]   (results in $OUT)
LIMIT=${1:-150} W=/tmp/compute-optdiag
. calib/device_torch_env.sh
mkdir -p $W/new
timeout 40 python3 tools/optim_host_diag.py > "$OUT/diag.json"
t "diag exit $?"
left=$(( LIMIT - $(el) ))
timeout $(( left > 85 ? left - 40 : 45 )) python3 tools/capture_set.py --dir $W/new --only \
  bert_h512_l8_b32_s128_bf16,resnet101_b64_bf16,bert_base_b16_s512_bf16
t "captures exit $?"
(cd $W && tar czf "$OUT/captures.tgz" new)
left=$(( LIMIT - $(el) ))
if [ "$left" -gt 30 ]; then
  timeout $(( left - 3 )) python3 tools/calib_torch.py --out "$OUT/calib-opt.json" --parts optimizer
  t "calib optimizer exit $?"
fi
ls -la "$OUT"
t "done"
