#!/bin/bash
# device_compute_qwen3.sh: a Qwen3 layer's host cost measured beside a Llama layer's, for
# `fusim workload --arch qwen3` (data/compute/README.md, session 35: two standalone RMSNorm
# composites at the Llama layer's factor priced a Qwen3-style backward +52.8%), in one short call,
# PyTorch only, no build:
#   1. tools/calib_torch.py --parts hf_host --hf-sizes tiny --hf-archs llama,qwen3, three times, the
#      order alternating (llama first, qwen3 first, llama first): each process times the two tiny
#      models (hidden 64, 2 heads, batch 1 x 16; Qwen3 = Llama + q_norm, k_norm) seconds apart,
#      bf16 autocast and fp32 -> calib-qwen3-1..3.json
#   2. tools/qwen3_rows.py: the Qwen3 rows on the bundled profile's scale (its Llama rows x the
#      median qwen3/llama ratio) -> qwen3-rows.json (a check of step 1; the lead reruns it)
#   3. tools/hf_depth.py --archs qwen3,llama against the profile with those rows: a Qwen3 layer
#      past the reference's 3 layers (hf_qwen3_deep_tiny, as Llama has hf_llama_deep_tiny)
#      -> depth.json
# Then, on the CPU (repository root, after tools/build.sh):
#   python3 tools/qwen3_rows.py --profile data/profiles/h200-default.json \
#     --out data/compute/h200-calib-torch-DATE-qwen3.json --depth FILES_AT/depth.json FILES_AT/calib-qwen3-*.json
#   build/fusim fit --compute data/compute/h200-calib-torch-DATE-qwen3.json --merge-into data/profiles/h200-default.json
# Run from the repository root:  bash calib/device_compute_qwen3.sh [SECONDS]   (results in $OUT)
LIMIT=${1:-150} W=/tmp/compute-qwen3
. calib/device_torch_env.sh
mkdir -p $W
i=0
for archs in llama,qwen3 qwen3,llama llama,qwen3; do
  i=$((i + 1))
  left=$(( LIMIT - $(el) - 35 ))  # keep 35 s for steps 2 and 3
  [ "$left" -gt 15 ] || { t "calib $i: no time left"; break; }
  timeout $(( left > 40 ? 40 : left )) python3 tools/calib_torch.py --out "$OUT/calib-qwen3-$i.json" \
    --parts hf_host --hf-sizes tiny --hf-archs $archs
  st=$?
  t "calib $i ($archs) exit $st"
  # cut short, it holds some models' rows only: kept apart, not in the ratios
  [ $st -eq 0 ] || mv "$OUT/calib-qwen3-$i.json" "$OUT/partial-qwen3-$i.json" 2>/dev/null
done
python3 tools/qwen3_rows.py --profile data/profiles/h200-default.json --out "$OUT/qwen3-rows.json" "$OUT"/calib-qwen3-*.json
t "qwen3_rows exit $?"
if [ -f "$OUT/qwen3-rows.json" ]; then
  # the bundled profile with the Qwen3 rows added: what hf_depth scales its deep row by
  python3 - "$OUT/qwen3-rows.json" "$W/profile.json" <<'PY'
import json, sys
p = json.load(open("data/profiles/h200-default.json"))
new = json.load(open(sys.argv[1]))["compute"]["ops"]
keys = {(o["op"], o["dtype"]) for o in new}
p["compute"]["ops"] = [o for o in p["compute"]["ops"] if (o["op"], o["dtype"]) not in keys] + new
json.dump(p, open(sys.argv[2], "w"))
PY
  left=$(( LIMIT - $(el) - 3 ))
  [ "$left" -gt 10 ] && timeout $left python3 tools/hf_depth.py --profile "$W/profile.json" --archs qwen3,llama \
    --rounds 30 --out "$OUT/depth.json"
  t "hf_depth exit $?"
fi
ls -la "$OUT"
t "done"
