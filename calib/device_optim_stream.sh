#!/bin/bash
# device_optim_stream.sh: the optimizer's HBM form (2026-12-05) checked where the calibration has no
# point (PyTorch only, one H200, about 1-2 minutes): tools/optim_stream_probe.py times SGD and AdamW
# alone (behind a sleep kernel) on nets whose lists straddle the 60 MiB L2 (17-134 MB a list) and
# on torchvision ResNet-50/101/152's own lists, beside the profile's price -> $OUT/stream.json;
# then this lease's own optimizer rows, which now record the L2 and fit the HBM form
# (calib_torch --parts optimizer) -> $OUT/calib-opt.json.
# Read: the ResNets' dev_us against est_us (the form's target: within a few %), and the nets at
# 17-42 MB a list: where the priced regime (per operation, lists x elements x 4 > L2) and the
# measured time part, the cache switch is what to revise.
# Run from the repository root:  bash calib/device_optim_stream.sh [SECONDS]   (results in $OUT)
LIMIT=${1:-240}
. calib/device_torch_env.sh
timeout $(( LIMIT / 2 )) python3 tools/optim_stream_probe.py --out "$OUT/stream.json"
t "probe exit $?"
left=$(( LIMIT - $(el) ))
if [ "$left" -gt 40 ]; then
  timeout $(( left - 5 )) python3 tools/calib_torch.py --out "$OUT/calib-opt.json" --parts optimizer
  t "calib optimizer exit $?"
fi
ls -la "$OUT"
t "done"
