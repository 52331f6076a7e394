#!/bin/bash
# device_compute_kv.sh: the operations as the HF models lay their inputs out, which the contiguous
# tables misprice (data/compute/README.md, 2026-12-04: in the committed kernel profiles GPT-2
# small's 24 KV-cache copies take 1.9 ms of kernels against 0.3 ms priced as contiguous copies,
# Llama h4096's rotary steps 2.9 ms against 2.0 ms, casts aside): tools/calib_torch.py --parts ops_kv (kv_cat,
# kv_cat_contig, rotary_hf) -> calib-kv.json, then merged with
#   fusim fit --compute data/compute/h200-calib-torch-DATE-kv.json --merge-into data/profiles/h200-default.json
# PyTorch only, no build. Run from the repository root:  bash calib/device_compute_kv.sh   (results in $OUT)
set -u
OUT=${OUT:-/tmp/fusim-out}
mkdir -p "$OUT"
. calib/device_torch_env.sh
timeout 120 python3 tools/calib_torch.py --out "$OUT/calib-kv.json" --parts ops_kv
t "calib ops_kv exit $?"
