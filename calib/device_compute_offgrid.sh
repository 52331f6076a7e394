#!/bin/bash
# device_compute_offgrid.sh: one PyTorch-only call (2026-12-04, compute10): cuBLAS GEMMs at widths
# off the sweep's powers of two and the kernels they ran (tools/gemm_offgrid.py), the kernel
# profiles of the three TF32 models whose GPU time the estimate missed most (tools/profile_step.py),
# and four held-out captures at off-grid widths (tools/capture_set.py) -> $OUT/offgrid.tgz
# Run from the repository root:  bash calib/device_compute_offgrid.sh [CAPTURE_TIMEOUT_S]
CT=${1:-130} W=/tmp/compute10
. calib/device_torch_env.sh
mkdir -p $W/p $W/n
timeout 75 python3 tools/gemm_offgrid.py --out $W/gemm-offgrid.json
t "gemm_offgrid exit $?"
timeout 70 python3 tools/profile_step.py --out $W/p --only \
  llama_h2560_l6_b2_s1024_tf32,gpt2_h1280_l12_b4_s1024_tf32,llama_h1536_l8_b4_s1024_tf32,bert_base_b16_s512_bf16
t "profile_step exit $?"
timeout "$CT" python3 tools/capture_set.py --dir $W/n --only \
  llama_h1792_l6_b4_s1024_bf16,gpt2_h1600_l6_b4_s1024_tf32,bert_h1280_l6_b16_s256_bf16,llama_h5120_l2_b2_s1024_tf32
t "captures exit $?"
(cd $W && tar czf "$OUT/offgrid.tgz" gemm-offgrid.json p n)
ls -la "$OUT"
