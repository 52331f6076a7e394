#!/bin/bash
# device_compute_optstep.sh: the optimizer step as a training step runs it, in one call and
# without a build (PyTorch only):
#   1. tools/calib_torch.py --parts optimizer: device time alone, opt.step()'s CPU time after a
#      forward and backward, the last kernel's share, the host-speed probe beside them
#      -> calib-opt.json
#   2. tools/capture_set.py: the models whose optimizer steps are host-bound (BERT h512,
#      ResNet-101, BERT-base) first, then, as time allows, the other new shapes and the
#      comparison set; captures now record opt.step()'s CPU time and its device time alone
#      -> captures.tgz (new/, set/)
#   3. with 70 s left, the optimizer part again (the host's drift within the lease) -> calib-opt2.json
# Run from the repository root:  bash calib/device_compute_optstep.sh [SECONDS]   (results in $OUT)
LIMIT=${1:-300} W=/tmp/compute-optstep
. calib/device_torch_env.sh
mkdir -p $W/new $W/set
pack() { (cd $W && tar czf "$OUT/captures.tgz" new set); }
timeout 120 python3 tools/calib_torch.py --out "$OUT/calib-opt.json" --parts optimizer
t "calib optimizer exit $?"
run_set() {  # DIR NAMES: captures while more than 75 s are left
  local left=$(( LIMIT - $(el) ))
  [ "$left" -gt 75 ] || return 0
  timeout $(( left - 70 )) python3 tools/capture_set.py --dir "$1" --only "$2"
  t "captures $2 exit $?"
  pack
}
run_set $W/new bert_h512_l8_b32_s128_bf16,resnet101_b64_bf16
run_set $W/set bert_base_b16_s512_bf16,resnet50_b128_bf16
run_set $W/new gpt2_h1280_l12_b4_s1024_tf32,llama_h1536_l8_b4_s1024_tf32,resnet50_b64_tf32,llama_h3072_l8_b2_s2048_bf16
run_set $W/set gpt2_small_b16_s1024_bf16,bert_large_b8_s512_tf32,gpt2_medium_b8_s512_tf32,llama_h2048_l16_b4_s1024_bf16,llama_h4096_l4_b2_s2048_bf16
left=$(( LIMIT - $(el) ))
if [ "$left" -gt 60 ]; then
  timeout $(( left - 5 )) python3 tools/calib_torch.py --out "$OUT/calib-opt2.json" --parts optimizer
  t "calib optimizer (again) exit $?"
fi
pack
ls -la "$OUT"
t "done"
