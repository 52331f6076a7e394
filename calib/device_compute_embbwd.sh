#!/bin/bash
# device_compute_embbwd.sh: the embedding's backward host cost either side of PyTorch's 3072-index
# path switch (tools/emb_bwd_host.py), one short PyTorch-only call -> $OUT/embbwd.json, $OUT/log.txt
# Run from the repository root:  bash calib/device_compute_embbwd.sh [ROUNDS]
ROUNDS=${1:-20}
. calib/device_torch_env.sh
timeout 100 python3 tools/emb_bwd_host.py --rounds "$ROUNDS" > "$OUT/embbwd.json"
t "embbwd exit $?"
