#!/usr/bin/env python3
"""mobile_params.py: fusim workload --cnn builds torchvision's depthwise-convolution CNNs as
torchvision 0.26 does, checked on their parameters: each model's total against torchvision's
published count (mobilenet_v2 3,504,872, mobilenet_v3_large 5,483,032, mobilenet_v3_small
2,542,856, efficientnet_b0..b7 5,288,548 .. 66,347,960, mnasnet0_5..1_3 2,218,512 .. 6,282,256,
efficientnet_v2_s/m/l 21,458,488, 54,139,356, 118,515,272: torchvision 0.29's)
and every tensor by name and size against mobile_arch.py's independent layer-by-layer
description; by hand: mobilenet_v2's first depthwise convolution 32 x 1 x 3 x 3, efficientnet_b0's
first SE block (fc1 8 x 32 with a bias of 8: 32 channels squeezed to 32 / 4), mobilenet_v3_large's
hidden classifier layer 1280 x 960, mnasnet0_5's stem 16 x 3 x 3 x 3 (_get_depths scales it).
Priced on the bundled profile with hand-made grouped tables and ops_mobile rows in place of its
own (derived from an H100's).
Usage: mobile_params.py FUSIM"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mobile_arch  # noqa: E402
from wlcheck import cnn_params_all, fails, finish, start  # noqa: E402

fusim, tmp, prof = start()
grads = cnn_params_all(fusim, tmp, mobile_arch.with_mobile_tables(prof), mobile_arch.PUBLISHED, mobile_arch.build)
for model, name, numel in (("mobilenet_v2", "features.1.conv.0.0.weight", 32 * 9),
                           ("efficientnet_b0", "features.1.0.block.1.fc1.weight", 8 * 32),
                           ("efficientnet_b0", "features.1.0.block.1.fc1.bias", 8),
                           ("mobilenet_v3_large", "classifier.0.weight", 960 * 1280),
                           ("mnasnet0_5", "layers.0.weight", 16 * 3 * 9),
                           # a FusedMBConv block's dense 3x3 expansion (48 -> 4 x 48), its 1x1 projection
                           ("efficientnet_v2_s", "features.2.1.block.0.0.weight", 192 * 48 * 9),
                           ("efficientnet_v2_s", "features.2.1.block.1.0.weight", 48 * 192),
                           ("efficientnet_v2_l", "features.7.6.block.3.0.weight", 640 * 3840)):
    if grads.get(model, {}).get(name) != numel:
        fails.append("%s %s: %r, expected %d" % (model, name, grads.get(model, {}).get(name), numel))
finish()
