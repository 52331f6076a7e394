#!/bin/bash
# session 43, call 9 (H100): ops_mobile again with the "clone" row (the copy autograd makes before
# an in-place ReLU6 / SiLU / Hardswish), three depthwise CNNs never compared, profile_step's
# kernel listing of two, and the first four again (same lease as the rows).  Run from the repository root; results in $OUT.
. calib/device_torch_env.sh
timeout 60 python3 tools/calib_torch.py --out "$OUT/mobile.json" --parts ops_mobile
t "ops_mobile exit $?"
timeout 200 python3 tools/capture_set.py --dir "$OUT/cap" --only efficientnet_b2_b32_tf32,efficientnet_b4_b16_bf16,mobilenet_v3_small_b128_bf16
t "new captures exit $?"
# where MobileNetV2's and EfficientNet-B0's GPU time goes, kernel by kernel (diagnosis only)
timeout 70 python3 tools/profile_step.py --out "$OUT/prof" --only mobilenet_v2_b64_bf16,efficientnet_b0_b32_bf16
t "profile_step exit $?"
left=$(( 320 - $(el) ))
[ $left -gt 60 ] && timeout $left python3 tools/capture_set.py --dir "$OUT/rep" --only mobilenet_v2_b64_bf16,mobilenet_v3_large_b64_tf32,efficientnet_b0_b32_bf16,mnasnet1_0_b64_tf32
t "repeats exit $?"
for d in rep prof; do [ -d "$OUT/$d" ] && tar -C "$OUT" -czf "$OUT/$d.tgz" $d && rm -rf "$OUT/$d"; done
t "done"
