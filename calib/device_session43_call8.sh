#!/bin/bash
. calib/device_torch_env.sh
# session 43, call 8 (H100): the first four depthwise CNN captures (tools/capture_set.py), then the
# channels-last depthwise tables call 7 left out (bf16 dw5s2, dw7s1; TF32 dw3s1..dw5s2). Results in $OUT.
timeout 270 python3 tools/capture_set.py --dir "$OUT/cap" --only mobilenet_v2_b64_bf16,mobilenet_v3_large_b64_tf32,efficientnet_b0_b32_bf16,mnasnet1_0_b64_tf32
t "captures exit $?"
timeout 60 python3 tools/calib_torch.py --out "$OUT/dw-bf16.json" --budget 45 --parts dwconv --conv-dtypes bf16 --conv-classes dw5s2,dw7s1
t "dw bf16 exit $?"
left=$(( 540 - $(el) ))
timeout $left python3 tools/calib_torch.py --out "$OUT/dw-tf32.json" --budget $(( left - 15 )) --parts dwconv --conv-dtypes tf32 --conv-classes dw3s1,dw3s2,dw5s1,dw5s2
t "dw tf32 exit $?"
