#!/bin/bash
# device_session43.sh: session 43's calibrations, PyTorch only (no build), in calls of at most
# about 560 s, by stage:
#   h200     the H200's own tables where the embedded profile holds derived ones (refuses on any
#            other GPU, exit 3), most wanted first:
#              1. NCHW convolutions, batch norm, max pooling (calib_torch --parts conv,ops_nchw
#                 --conv-format nchw)                                           -> nchw.json
#              2. ViT's layout tables, the NCHW patch convolutions (k16s16, k32s32)
#                                                                               -> vit.json, patch.json
#              3. ViT's layers past the reference depth (tools/hf_depth.py --archs vit)
#                                                                               -> vitdeep.json
#              4. while SECONDS allow, calib/device_compute_clip.sh's clipped steps -> clip.tgz
#   mobile   any GPU: the depthwise convolutions (--parts dwconv) channels-last and NCHW, and the
#            MobileNet / EfficientNet operations (--parts ops_mobile)
#                                                        -> dw.json, dw-nchw.json, mobile.json
#   narrow   any GPU (after the session: not yet run): batch norm at 16 and 32 channels in both
#            layouts (--parts ops_bn_small) and the k3s2 class with the 3-channel stems of
#            MobileNet and EfficientNet, NCHW and channels-last  -> bn-small.json, k3s2-nchw.json, k3s2.json
# Run from the repository root:  bash calib/device_session43.sh STAGE [SECONDS]   (results in $OUT)
STAGE=${1:?stage: h200, mobile or narrow}
LIMIT=${2:-560}
. calib/device_torch_env.sh
case $STAGE in
  h200)
    nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || { t "not an H200"; exit 3; }
    calib nchw.json 300 --parts conv,ops_nchw --conv-format nchw
    calib vit.json 40 --parts ops_vit
    calib patch.json 40 --parts conv --conv-format nchw --conv-classes k16s16,k32s32
    timeout 60 python3 tools/hf_depth.py --archs vit --profile data/profiles/h200-default.json --out "$OUT/vitdeep.json"
    t "hf_depth exit $?"
    left=$(( LIMIT - $(el) - 10 ))
    if [ $left -gt 60 ]; then
      OUT=$OUT/clip bash calib/device_compute_clip.sh $left
      tar -C "$OUT" -czf "$OUT/clip.tgz" clip && rm -rf "$OUT/clip"
    fi ;;
  mobile)
    calib mobile.json 90 --parts ops_mobile
    calib dw-nchw.json 150 --parts dwconv --conv-format nchw
    calib dw.json 150 --parts dwconv ;;
  narrow)
    calib bn-small.json 60 --parts ops_bn_small
    calib k3s2-nchw.json 120 --parts conv --conv-format nchw --conv-classes k3s2
    calib k3s2.json 120 --parts conv --conv-classes k3s2 ;;
  *) t "unknown stage $STAGE"; exit 2 ;;
esac
t "done"
