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
# what the clip adds on this lease, net by net (device alone, host in a step), beside the launches
# and one-list passes the model counts for it (no torch)
[ -f "$OUT/clip-1.json" ] && [ -f "$OUT/plain.json" ] && python3 - "$OUT/clip-1.json" "$OUT/plain.json" <<'PY'
import json, sys
sys.path.insert(0, "tools")
import calib_torch as c
clip, plain = ({o["name"]: o for o in json.load(open(f))["compute"].get("optimizer", [])} for f in sys.argv[1:3])
for name in ("adamw", "adam", "sgd"):
    if name + "_clip" not in clip or name not in plain:
        continue
    for q, p in zip(clip[name + "_clip"]["points"], plain[name]["points"]):
        f = [b - a for a, b in zip(c.optim_launch_features(name, c.opt_point_sizes(p)),
                                   c.optim_launch_features(name + "_clip", c.opt_point_sizes(q)))]
        print("clip adds to %s, %d tensors, %d elements: dev %+.1f us, host %+.1f us; model: %d launches, %.3g "
              "elements" % (name, p["n"], p["numel"], q["dev_us"] - p["dev_us"], q["host_us"] - p["host_us"], f[0], f[1]))
PY
ls -la "$OUT"
t "done"
