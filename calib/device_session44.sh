#!/bin/bash
# device_session44.sh: session 44's device work, PyTorch only (no build), in calls of at most
# about 560 s, by stage:
#   grouped   any GPU, most wanted first, as SECONDS allow: the grouped convolutions of wider
#             groups, ResNeXt's and RegNet's (calib_torch --parts gconv) in NCHW, as torchvision
#             models run by default; the NCHW k3s2 class with the 3-channel stems (MobileNet,
#             EfficientNet, RegNet) and ConvNeXt's NCHW 4x4 stem; ConvNeXt's channels-last 2x2
#             downsampling and stem, and its channels-last 7x7 depthwise convolutions (its blocks
#             run channels-last even in an NCHW loop; session 43's dwconv sweep was cut before
#             dw7s1); batch norm at 16 and 32 channels (session 43's narrow stage); the
#             channels-last grouped and k3s2 tables
#                 -> gconv-nchw.json, convx-nchw.json, convx.json, dw7.json, bn-small.json,
#                    gconv.json, k3s2.json
# Run from the repository root:  bash calib/device_session44.sh STAGE [SECONDS]   (results in $OUT)
STAGE=${1:?stage: grouped}
LIMIT=${2:-560}
. calib/device_torch_env.sh
case $STAGE in
  grouped)
    calib gconv-nchw.json 150 --parts gconv --conv-format nchw
    calib convx-nchw.json 90 --parts conv --conv-format nchw --conv-classes k3s2,k4s4
    calib convx.json 60 --parts conv --conv-classes k2s2,k4s4
    calib dw7.json 60 --parts dwconv --conv-classes dw7s1
    calib bn-small.json 40 --parts ops_bn_small
    calib gconv.json 120 --parts gconv
    calib k3s2.json 90 --parts conv --conv-classes k3s2 ;;
  *) t "unknown stage $STAGE"; exit 2 ;;
esac
t "done"
