#!/bin/bash
# device_optim_cold.sh: the optimizer step's device time with its lists cold (PyTorch only, one GPU,
# about 2 minutes). A training step's optimizer follows a forward and backward that stream far more
# than the L2, so parameters and optimizer states come from HBM; the calibration's nets (batch 8)
# leave them in the cache. tools/optim_stream_probe.py times the optimizers named (default SGD and
# AdamW; "_clip" ones clip first) alone, behind a sleep, warm and cold (after a write of four times
# the L2), interleaved, with one profiled cold step per list (each kernel's time): the
# calibration's nets and small torchvision models' lists (-> $OUT/cold-small.json), then the
# streaming nets and ResNets (-> $OUT/cold-nets.json). Then, here: python3 tools/optim_cold_rows.py
# --profile PROFILE --out data/compute/GPU-calib-torch-DATE-optcold.json cold-small.json
# cold-nets.json (the fit, and the torchvision lists against it), and fusim fit --merge-into.
# Run from the repository root:
#   bash calib/device_optim_cold.sh [SECONDS] [PROFILE] [OPTIMIZERS]   (results in $OUT)
LIMIT=${1:-240}
PROFILE=${2:-data/profiles/h200-default.json}
OPTS=${3:-sgd,adamw}
. calib/device_torch_env.sh
timeout $(( LIMIT * 2 / 3 )) python3 tools/optim_stream_probe.py --out "$OUT/cold-small.json" --lists small \
  --states warm,cold --kernels --profile "$PROFILE" --optimizers "$OPTS"
t "small lists exit $?"
left=$(( LIMIT - $(el) - 5 ))
[ "$left" -gt 20 ] && { timeout "$left" python3 tools/optim_stream_probe.py --out "$OUT/cold-nets.json" \
  --states warm,cold --kernels --profile "$PROFILE" --optimizers "$OPTS"; t "nets exit $?"; }
ls -la "$OUT"
t "done"
