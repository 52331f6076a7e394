#!/bin/bash
# device_compute_gemmw.sh: one PyTorch-only call (2026-12-04, compute10): the aligned GEMM tables
# at the widths between the powers of two (tools/calib_torch.py --parts gemm: GEMM_WIDTHS) and SDPA
# by batch x heads (tools/attn_bh.py, diagnosis) -> $OUT/gemm.json, $OUT/attn_bh.json
# Run from the repository root:  bash calib/device_compute_gemmw.sh [GEMM_BUDGET_S]
B=${1:-240}
. calib/device_torch_env.sh
timeout $((B + 60)) python3 tools/calib_torch.py --parts gemm --budget "$B" --out "$OUT/gemm.json"
t "gemm exit $?"
timeout 90 python3 tools/attn_bh.py --out "$OUT/attn_bh.json"
t "attn_bh exit $?"
ls -la "$OUT"
