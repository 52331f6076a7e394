#!/bin/bash
# device_session44.sh: session 44's device work, PyTorch only (no build), in calls of at most
# about 560 s, by stage:
#   grouped   any GPU: batch norm at 16 and 32 channels (session 43's narrow stage); the dense
#             classes not yet measured: k3s2 with the 3-channel stems (MobileNet, EfficientNet,
#             RegNet), ConvNeXt's k4s4 stem and k2s2 downsampling; the grouped convolutions of
#             wider groups, ResNeXt's and RegNet's (calib_torch --parts gconv); NCHW first (as
#             torchvision models run by default; the grouped ones first, the most models wait
#             on them); ConvNeXt's channels-last 7x7 depthwise (its blocks run channels-last
#             even in an NCHW loop; session 43's sweep was cut before it); then channels-last,
#             as SECONDS allow
#                    -> gconv-nchw.json, convx-nchw.json, dw7.json, bn-small.json, gconv.json, convx.json
# Run from the repository root:  bash calib/device_session44.sh STAGE [SECONDS]   (results in $OUT)
STAGE=${1:?stage: grouped}
LIMIT=${2:-560}
. calib/device_torch_env.sh
case $STAGE in
  grouped)
    calib gconv-nchw.json 160 --parts gconv --conv-format nchw
    calib convx-nchw.json 130 --parts conv --conv-format nchw --conv-classes k3s2,k4s4,k2s2
    calib dw7.json 60 --parts dwconv --conv-classes dw7s1
    calib bn-small.json 40 --parts ops_bn_small
    calib gconv.json 120 --parts gconv
    calib convx.json 100 --parts conv --conv-classes k3s2,k4s4,k2s2 ;;
  *) t "unknown stage $STAGE"; exit 2 ;;
esac
t "done"
