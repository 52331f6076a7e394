#!/bin/bash
# device_compute_tokens.sh: the HF layers' host cost at several token counts (tools/hf_host_tokens.py),
# one short PyTorch-only call -> $OUT/tokens.json and $OUT/log.txt
# Run from the repository root:  bash calib/device_compute_tokens.sh [ROUNDS]
ROUNDS=${1:-12}
. calib/device_torch_env.sh
timeout 150 python3 tools/hf_host_tokens.py --rounds "$ROUNDS" > "$OUT/tokens.json"
t "tokens exit $?"
