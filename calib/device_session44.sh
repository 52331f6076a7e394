#!/bin/bash
# device_session44.sh: session 44's device work, PyTorch only (no build), in calls of at most
# about 560 s, by stage:
#   grouped   any GPU: session 43's narrow stage (batch norm at 16 and 32 channels; the k3s2 class
#             with the 3-channel stems, both layouts), then the grouped convolutions of wider
#             groups, ResNeXt's and RegNet's (calib_torch --parts gconv), NCHW first (as
#             torchvision models run by default), then channels-last
#                    -> bn-small.json, k3s2-nchw.json, k3s2.json, gconv-nchw.json, gconv.json
# Run from the repository root:  bash calib/device_session44.sh STAGE [SECONDS]   (results in $OUT)
STAGE=${1:?stage: grouped}
LIMIT=${2:-560}
. calib/device_torch_env.sh
case $STAGE in
  grouped)
    calib bn-small.json 50 --parts ops_bn_small
    calib k3s2-nchw.json 100 --parts conv --conv-format nchw --conv-classes k3s2
    calib k3s2.json 90 --parts conv --conv-classes k3s2
    calib gconv-nchw.json 170 --parts gconv --conv-format nchw
    calib gconv.json 150 --parts gconv ;;
  *) t "unknown stage $STAGE"; exit 2 ;;
esac
t "done"
