#!/bin/bash
# device_session45.sh: what session 45's two H200 calls (calib/device_session44.sh grouped, then
# the TF32 and channels-last grouped sweeps) left unmeasured, PyTorch only (no build), in calls of
# at most about 560 s, by stage:
#   h200   the H200 (refuses on any other GPU, exit 3), most wanted first:
#            1. the clipped optimizer steps (calib/device_compute_clip.sh: the embedded profile has
#               no adamw_clip, so --clip-grad-norm and two RegNet captures are refused)   -> clip/
#            2. the channels-last grouped convolutions at stride 2 (g3s2: the bf16 sweep stopped
#               at m 1568, the TF32 one never ran; ResNeXt and RegNet in channels-last)  -> gconv-s2.json
#            3. the narrow layernorms (96-384 wide: ConvNeXt's, priced at 512 today) -> ln.json
#            4. while SECONDS allow, session 43's h200 stage (the NCHW tables the profile still
#               derives from the H100's, ViT's)                 -> nchw.json, vit.json, patch.json
#   grouped  any GPU: tools/capture_set.py's ResNeXt, RegNet and ConvNeXt captures (NEW; the
#            reference step between the steps)                                     -> captures/
#   h100   an H100: its own grouped convolutions of wider groups, NCHW then channels-last (its
#          profile holds the H200's, derived), and the 7x7 depthwise in bf16 channels-last
#                                                      -> gconv-nchw.json, gconv.json, dw7.json
# Both stages first time the host-only rows (--parts host -> host.json, seconds): its "gconv" row, a
# grouped convolution of wider groups, against its "conv" row of the same call: the ResNeXt and
# RegNet captures' backward CPU time was 0.9-2.1x (median 1.3) the estimate's host time, the other
# CNNs' of the same runs 0.7-1.2x (median 0.95) (data/compute/README.md, session 45); whether the
# grouped call's host path costs more is what this row says. Merge only the gconv row, at the
# profile's host scale: the profile's conv row x host.json's gconv / conv, forward and backward.
# Merge as data/compute/README.md says (session 45: make_default_profile.sh for the H200; fit
# --compute F --merge-into data/profiles/h100-sxm.json for the H100; a measured table replaces the
# derived one of its key).
# Run from the repository root:  [FROM=N] bash calib/device_session45.sh STAGE [SECONDS]   (results
# in $OUT; FROM=N skips a stage's steps before N)
STAGE=${1:?stage: h200, grouped, h100 or gpu (h200 or h100, whichever this GPU is)}
LIMIT=${2:-560}
. calib/device_torch_env.sh
[ "$STAGE" = gpu ] && { nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && STAGE=h200 || STAGE=h100; }
step() { [ "$1" -ge "${FROM:-1}" ]; }  # FROM=N: start at step N (a call taken back part way)
gpu() { nvidia-smi --query-gpu=name --format=csv,noheader | grep -q "$1" || { t "not an $1"; exit 3; }; }
case $STAGE in
  h200)
    gpu H200
    step 1 && calib host.json 30 --parts host
    step 2 && { OUT=$OUT/clip bash calib/device_compute_clip.sh 118
                tar -C "$OUT" -czf "$OUT/clip.tgz" clip && rm -rf "$OUT/clip"; }
    step 3 && calib gconv-s2.json 200 --parts gconv --conv-classes g3s2
    step 4 && calib ln.json 40 --parts ops_ln_narrow
    step 5 && calib nchw.json 180 --parts conv,ops_nchw --conv-format nchw
    step 6 && calib vit.json 40 --parts ops_vit ;;
  h100)
    gpu H100
    step 1 && calib host.json 30 --parts host
    step 2 && calib gconv-nchw.json 230 --parts gconv --conv-format nchw
    step 3 && calib gconv.json 230 --parts gconv
    step 4 && calib dw7.json 80 --parts dwconv --conv-classes dw7s1 --conv-dtypes bf16 ;;
  grouped)
    timeout $(( LIMIT - 20 )) python3 tools/capture_set.py --dir "$OUT/captures" \
      --only resnext50_32x4d_b32_tf32,regnet_y_1_6gf_b32_bf16,regnet_x_3_2gf_b32_tf32,convnext_tiny_b32_bf16
    t "capture_set exit $?" ;;
  *) t "unknown stage $STAGE"; exit 2 ;;
esac
t "done"
