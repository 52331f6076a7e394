#!/bin/bash
# device_compute_attnbh.sh: one PyTorch-only call (2026-12-04, compute10): the attention tables
# with several batch x heads counts per sequence length (tools/calib_torch.py --parts attention,
# attn_bhs) -> $OUT/attn.json
# Run from the repository root:  bash calib/device_compute_attnbh.sh
. calib/device_torch_env.sh
timeout 150 python3 tools/calib_torch.py --parts attention --out "$OUT/attn.json"
t "attention exit $?"
ls -la "$OUT"
