#!/bin/bash
# device_compute_qwen3.sh: the host cost of a Qwen3, a Phi-3 and an OLMo 2 layer, each measured beside
# a Llama layer's, for `fusim workload --arch qwen3|phi3|olmo2` (data/compute/README.md, session 35:
# two standalone RMSNorm composites at the Llama layer's factor priced a Qwen3-style backward
# +52.8%; Phi-3 runs two Linear calls fewer and the slices of its fused projections more; OLMo 2
# its norms elsewhere and two more),
# in one short call, PyTorch only, no build, on the bundled profile of the GPU it finds (H200:
# h200-default.json, H100: h100-sxm.json):
#   1. tools/calib_torch.py --parts hf_host --hf-sizes tiny --hf-archs llama,qwen3,phi3,olmo2 --hf-interleave,
#      one process (~90 s): per mode (bf16 autocast, fp32) the tiny models (hidden 64, 2 heads,
#      batch 1 x 16; Qwen3 = Llama + q_norm, k_norm; Phi-3 = Llama with qkv_proj, gate_up_proj;
#      OLMo 2 = Llama with its norms after attention and the MLP, q_norm, k_norm) at
#      depths 1 and 3, each round timing all of them once in a shuffled order, for BUDGET s a mode;
#      each round's ratio of each to llama is taken at one host speed (the host's 1.3-1.5x modes
#      made three separately timed calibrations unreadable: session 36)
#      -> calib-qwen3.json (rows, and the rounds in compute.hf_pairs)
#   2. tools/qwen3_rows.py --arch qwen3 and --arch phi3: the rows on the bundled profile's scale (its
#      Llama rows x the median over rounds of each round's ratio, with its 95% interval)
#      -> qwen3-rows.json, phi3-rows.json, olmo2-rows.json (a check of step 1; the lead reruns it)
#   3. tools/hf_depth.py --archs qwen3,phi3,olmo2,llama against the profile with those rows: a layer past
#      the reference's 3 layers (hf_qwen3_deep_tiny, hf_phi3_deep_tiny, as Llama has
#      hf_llama_deep_tiny)                                                      -> depth.json
# Then, on the CPU (repository root, after tools/build.sh), for A in qwen3, phi3 and olmo2:
#   python3 tools/qwen3_rows.py --arch A --profile data/profiles/PROFILE.json \
#     --out data/compute/GPU-calib-torch-DATE-A.json --depth FILES_AT/depth.json FILES_AT/calib-qwen3.json
#   build/fusim fit --compute data/compute/GPU-calib-torch-DATE-A.json --merge-into data/profiles/PROFILE.json
#   (the H200's: tools/make_default_profile.sh merges data/compute/h200-calib-torch-*.json)
# Run from the repository root:  bash calib/device_compute_qwen3.sh [SECONDS]   (results in $OUT)
LIMIT=${1:-150} W=/tmp/compute-qwen3
. calib/device_torch_env.sh
PROFILE=data/profiles/h100-sxm.json
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && PROFILE=data/profiles/h200-default.json
t "profile $PROFILE"
mkdir -p $W
left=$(( LIMIT - $(el) - 35 ))  # keep 35 s for steps 2 and 3
# a mode's rounds: what is left after the start (~10 s), the builds and the warmup, halved; 38 s at most
BUDGET=$(( (left - 16) / 2 )); [ $BUDGET -gt 38 ] && BUDGET=38
if [ $BUDGET -ge 5 ]; then
  timeout $left python3 tools/calib_torch.py --out "$OUT/calib-qwen3.json" --parts hf_host --hf-sizes tiny \
    --hf-archs llama,qwen3,phi3,olmo2 --hf-interleave --hf-rounds 400 --budget $BUDGET
  st=$?
  t "calib (interleaved, $BUDGET s a mode) exit $st"
  # cut short, it holds bf16's rows and rounds only: kept apart, not in the ratios
  [ $st -eq 0 ] || mv "$OUT/calib-qwen3.json" "$OUT/partial-qwen3.json" 2>/dev/null
else
  t "calib: no time left"
fi
for A in qwen3 phi3 olmo2; do
  python3 tools/qwen3_rows.py --arch $A --profile $PROFILE --out "$OUT/$A-rows.json" "$OUT"/calib-qwen3.json
  t "qwen3_rows --arch $A exit $?"
done
if [ -f "$OUT/qwen3-rows.json" ] && [ -f "$OUT/phi3-rows.json" ] && [ -f "$OUT/olmo2-rows.json" ]; then
  # the bundled profile with the new rows added: what hf_depth scales its deep rows by
  python3 - $PROFILE "$W/profile.json" "$OUT/qwen3-rows.json" "$OUT/phi3-rows.json" "$OUT/olmo2-rows.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
new = [o for f in sys.argv[3:] for o in json.load(open(f))["compute"]["ops"]]
keys = {(o["op"], o["dtype"]) for o in new}
p["compute"]["ops"] = [o for o in p["compute"]["ops"] if (o["op"], o["dtype"]) not in keys] + new
json.dump(p, open(sys.argv[2], "w"))
PY
  left=$(( LIMIT - $(el) - 3 ))
  [ "$left" -gt 10 ] && timeout $left python3 tools/hf_depth.py --profile "$W/profile.json" --archs qwen3,phi3,olmo2,llama \
    --rounds 30 --out "$OUT/depth.json"
  t "hf_depth exit $?"
fi
ls -la "$OUT"
t "done"
