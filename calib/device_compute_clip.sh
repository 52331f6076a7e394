#!/bin/bash
# device_compute_clip.sh: the optimizer steps with torch.nn.utils.clip_grad_norm_ inside them
# (fusim workload --clip-grad-norm prices them by the profile's "<optimizer>_clip" rows), in one
# PyTorch-only call of at most about 120 s, no build:
#   1. tools/calib_torch.py --parts optimizer --optimizers adamw_clip,adam_clip,sgd_clip -> clip-1.json
#   2. the plain steps on the same lease, for the clip's own cost (clip - plain, point by point)
#      and against the bundled rows                                                  -> plain.json
#   3. the clipped steps again while time allows (the bundled rows are the median of three
#      calibrations, tools/optim_rows_median.py)                          -> clip-2.json, clip-3.json
# Results in $OUT (log.txt and at most those four files). Merge (CPU, data/compute/README.md
# "Gradient clipping"): python3 tools/optim_rows_median.py data/compute/h200-calib-torch-DATE-clip.json
# clip-1.json clip-2.json clip-3.json, then tools/make_default_profile.sh and rebuild.
# Run from the repository root:  bash calib/device_compute_clip.sh [SECONDS]
LIMIT=${1:-118}
. calib/device_torch_env.sh
opt() {  # FILE NAMES SECONDS: one optimizer part, if SECONDS are left
  local left=$(( LIMIT - $(el) ))
  [ "$left" -gt "$3" ] || { t "$1 skipped: $left s left"; return 0; }
  timeout "$3" python3 tools/calib_torch.py --parts optimizer --optimizers "$2" --out "$OUT/$1"
  t "$1 ($2) exit $?"
}
opt clip-1.json adamw_clip,adam_clip,sgd_clip 50
opt plain.json adamw,adam,sgd 40
opt clip-2.json adamw_clip,adam_clip,sgd_clip 35
opt clip-3.json adamw_clip,adam_clip,sgd_clip 32
ls -la "$OUT"
t "done"
