#!/bin/bash
# device_session45.sh: what sessions 45 and 46 left unmeasured, PyTorch only (no build), in calls
# of at most about 560 s, by stage (session 46 ran the h100 stage and its g3s2 / narrow layernorm
# sweeps on an H100; the H200's tables of those are derived from them):
#   h200   the H200 (refuses on any other GPU, exit 3), most wanted first (session 48 ran 2-6 with
#          FROM=2, session 49 STEPS="1 3 7": all merged, data/compute/README.md "Session 48" and
#          "Session 49"; the H200 stage is done):
#            1. the clipped optimizer steps (calib/device_compute_clip.sh: the embedded profile's
#               _clip fits are derived from the H100's, tools/derive_clip_rows.py; a measured file
#               merged after h200-calib-torch-2026-12-07c-clip-derived.json replaces them)  -> clip/
#            2. the aligned GEMM tables on the token axis with the 1.5x steps (calib_torch
#               GEMM_TOKENS: TF32 products climb in whole waves between the powers of two, up to
#               18.5% over their interpolation at ViT's 6304 tokens on the H100)     -> gemm.json
#            3. ViT's layout tables (ops_vit; derived from the H100's: ViT's TF32 backward in
#               the validation captures is 11-14% slower than the estimate on every lease), and
#               cuBLAS at ViT's 6304 tokens, off the tables' grid (step 2's check)
#                                                                 -> vit.json, gemm-tokens.json
#            4. its own narrow layernorms (96-384 wide, derived from the H100's)       -> ln.json
#            5. its own channels-last grouped convolutions at stride 2 (derived from the H100's)
#                                                                                     -> gconv-s2.json
#            6. while SECONDS allow, the NCHW tables the profile still derives from the H100's
#                                                                                     -> nchw.json
#            7. NCHW TF32 beyond 1x1 (session 48's step 6 stopped there): STEPS="1 3 7"
#                                                                                -> nchw-tf32.json
#            8-11. what the profile still derives from the H100's by the add ratio
#               (tools/derive_gpu_ops.py): MobileNet's and EfficientNet's rows (ops_mobile) and the
#               depthwise tables, NCHW (PyTorch's own kernels) and channels-last (cuDNN, whose
#               search is slow: bf16 and TF32 apart; dw7s1 measured in session 45)
#                                          -> mobile.json, dw-nchw.json, dw-bf16.json, dw-tf32.json
#            12. SDPA's math path for grouped keys outside bf16 (the H100's measured in session
#               50: a TF32 Phi-3's forward -38% without it)                      -> attn-gqa.json
#            (and, apart: bash calib/device_compute_qwen3.sh, the Qwen3 and Phi-3 host rows)
#   grouped  any GPU: tools/capture_set.py's ResNeXt, RegNet and ConvNeXt captures with the
#            reference step between the steps (session 47 ran it on an H100)       -> captures/
#   h100   an H100 (session 47 measured its g3s1 TF32 and dw7 bf16 tables, and cuBLAS at 6304
#          tokens: TF32 products up to 18.5% over the tables' interpolation):
#            1. batch norm at 16 and 32 channels, both layouts (derived from the H200's: RegNetY-1.6GF's
#               stem and first-stage norms end backward 1.7x later in the estimate than in its
#               capture's ready curve, which makes its optimizer step look device-bound)  -> bn-small.json
#            2. the aligned GEMM tables on the token axis with the 1.5x steps (as h200's 2) -> gemm.json
#            3. cuBLAS on the token axis at 1.5x steps and at whole 128-row tiles (6144) beside
#               ViT's 6304, TF32 and bf16 (step 2's check)                -> gemm-tokens-axis.json
#            (session 50 ran 1-3, merged: data/compute/README.md "Session 50")
#            4-6. the tables the H100 profile still derives from the H200's, ConvNeXt's: 7x7
#               depthwise TF32, the 4x4 stem and 2x2 downsampling convolutions channels-last and
#               the 4x4 NCHW              -> dw7-tf32.json, k4k2.json, k4-nchw.json (STEPS="4 5 6")
#   gpu    h200 or h100, whichever this GPU is.
# Every stage first measures the framework's resident workspaces (calib_torch --parts memory, a few
# seconds: the profiles' workspace_bytes; NO_MEMORY=1 skips it)                     -> memory.json
# The host-only "gconv" row was timed on the H100 in session 46: a grouped call's host cost equals a
# dense one's (data/compute/README.md), so neither stage times it again.
# Merge as data/compute/README.md says (session 46: make_default_profile.sh for the H200; fit
# --compute F --merge-into data/profiles/h100-sxm.json for the H100; a measured table replaces the
# derived one of its key, unless its sweep stopped short of the derived one's sizes).
# Run from the repository root:  [FROM=N] bash calib/device_session45.sh STAGE [SECONDS]   (results
# in $OUT; FROM=N skips a stage's steps before N, STEPS="1 3 7" runs those alone)
STAGE=${1:?stage: h200, grouped, h100 or gpu (h200 or h100, whichever this GPU is)}
LIMIT=${2:-560}
. calib/device_torch_env.sh
[ "$STAGE" = gpu ] && { nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && STAGE=h200 || STAGE=h100; }
[ -n "${NO_MEMORY:-}" ] || calib memory.json 40 --parts memory  # NO_MEMORY=1: measured already
# FROM=N: start at step N (a call taken back part way); STEPS="1 3": only those steps
step() {
  if [ -n "${STEPS:-}" ]; then case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; fi
  [ "$1" -ge "${FROM:-1}" ]
}
gpu() { nvidia-smi --query-gpu=name --format=csv,noheader | grep -q "$1" || { t "not an $1"; exit 3; }; }
case $STAGE in
  h200)
    gpu H200
    step 1 && { OUT=$OUT/clip bash calib/device_compute_clip.sh 118
                tar -C "$OUT" -czf "$OUT/clip.tgz" clip && rm -rf "$OUT/clip"; }
    step 2 && calib gemm.json 180 --parts gemm
    step 3 && { calib vit.json 40 --parts ops_vit
                # ViT's tokens (32 x 197 = 6304) lie between the GEMM tables' powers of two: whole
                # waves of tiles or the interpolation (ViT's TF32 backward 11% over the estimate)
                timeout 90 python3 tools/gemm_offgrid.py --out "$OUT/gemm-tokens.json" --dtypes tf32,bf16 \
                  --tokens 4096,6304,8192 --widths 768,2304,3072; t "gemm-tokens exit $?"; }
    step 4 && calib ln.json 40 --parts ops_ln_narrow
    step 5 && calib gconv-s2.json 200 --parts gconv --conv-classes g3s2
    step 6 && calib nchw.json 180 --parts conv,ops_nchw --conv-format nchw
    # session 48's step 6 stopped after TF32's 1x1: the other TF32 classes alone
    step 7 && calib nchw-tf32.json 200 --parts conv --conv-format nchw --conv-dtypes tf32 \
                --conv-classes k3s1,k1s2,k3s2,k7s2,k2s2,k4s4,k14s14,k16s16,k32s32
    step 8 && calib mobile.json 60 --parts ops_mobile
    step 9 && calib dw-nchw.json 120 --parts dwconv --conv-format nchw
    step 10 && calib dw-bf16.json 150 --parts dwconv --conv-dtypes bf16 --conv-classes dw3s1,dw3s2,dw5s1,dw5s2
    step 11 && calib dw-tf32.json 240 --parts dwconv --conv-dtypes tf32 --conv-classes dw3s1,dw3s2,dw5s1,dw5s2
    step 12 && calib attn-gqa.json 60 --parts attention_gqa ;;
  h100)
    gpu H100
    step 1 && calib bn-small.json 90 --parts ops_bn_small
    step 2 && calib gemm.json 180 --parts gemm
    step 3 && { timeout 240 python3 tools/gemm_offgrid.py --out "$OUT/gemm-tokens-axis.json" --dtypes tf32,bf16 \
                  --tokens 3072,4096,6144,6304,8192,12288 --widths 768,1024,2304,3072,4096
                t "gemm-tokens-axis exit $?"; } ;
    # session 50 ran 1-3: what the H100 profile still derives from the H200's (ConvNeXt's)
    step 4 && calib dw7-tf32.json 150 --parts dwconv --conv-dtypes tf32 --conv-classes dw7s1
    step 5 && calib k4k2.json 120 --parts conv --conv-classes k4s4,k2s2
    step 6 && calib k4-nchw.json 80 --parts conv --conv-format nchw --conv-classes k4s4 ;;
  grouped)
    timeout $(( LIMIT - 20 )) python3 tools/capture_set.py --dir "$OUT/captures" \
      --only resnext50_32x4d_b32_tf32,regnet_y_1_6gf_b32_bf16,regnet_x_3_2gf_b32_tf32,convnext_tiny_b32_bf16
    t "capture_set exit $?" ;;
  *) t "unknown stage $STAGE"; exit 2 ;;
esac
t "done"
# a call returns a few files (session 48: eight, and vit.json was left out): the JSON files in one
# archive (tar -xzf results.tgz), beside log.txt and clocks.csv
(cd "$OUT" && ls ./*.json >/dev/null 2>&1 && tar -czf results.tgz ./*.json && rm -f ./*.json)
