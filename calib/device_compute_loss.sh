#!/bin/bash
# device_compute_loss.sh: one PyTorch-only call (2026-12-04, compute9):
#   1. tools/calib_torch.py --parts ops_loss: cross_entropy as HF BERT's MLM loss runs under bf16
#      autocast (no cast of the logits first) -> $OUT/ops_loss.json, and the kernels one such
#      call runs (torch.profiler), to set against data/compute/profiles/bert_base_b16_s512_bf16.json
#   2. tools/capture_set.py --ready-separate: partly host-bound captures with the ready curve timed
#      both ways (hooked steps between the plain ones, and a hooked pass of its own as before)
#      -> $OUT/captures.tgz (r/)
# Run from the repository root:  bash calib/device_compute_loss.sh [CAPTURE_TIMEOUT_S]
CT=${1:-150} W=/tmp/compute9
. calib/device_torch_env.sh
mkdir -p $W/r
timeout 60 python3 tools/calib_torch.py --parts ops_loss --out "$OUT/ops_loss.json"
t "ops_loss exit $?"
timeout 30 python3 - <<'PY'
import torch, torch.nn.functional as F
from torch.profiler import profile, ProfilerActivity
x = torch.randn(8192, 30522, device="cuda", dtype=torch.bfloat16, requires_grad=True)
y = torch.randint(0, 30522, (8192,), device="cuda")
for _ in range(2):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        l = F.cross_entropy(x, y)
    l.backward()
torch.cuda.synchronize()
with profile(activities=[ProfilerActivity.CUDA]) as p:
    with torch.autocast("cuda", dtype=torch.bfloat16):
        l = F.cross_entropy(x, y)
    l.backward()
    torch.cuda.synchronize()
for e in p.key_averages():
    us = getattr(e, "self_device_time_total", 0) or 0
    if us > 0:
        print("kernel %-100.100s calls %d us %.1f" % (e.key, e.count, us))
PY
t "loss kernels exit $?"
timeout "$CT" python3 tools/capture_set.py --dir $W/r --ready-separate --only \
  bert_base_b16_s512_bf16,resnet50_b128_bf16,bert_h512_l8_b32_s128_bf16,resnet101_b64_bf16
t "captures exit $?"
(cd $W && tar czf "$OUT/captures.tgz" r)
ls -la "$OUT"
