#!/usr/bin/env python3
"""regnet_params.py: fusim workload --cnn builds torchvision's ResNeXts and RegNets as torchvision
0.29 does, checked on their parameters: each model's total against torchvision's published count
(resnext50_32x4d 25,028,904 .. regnet_y_128gf 644,812,894: regnet_arch.PUBLISHED) and every tensor
by name and size against regnet_arch.py's independent layer-by-layer description, whose RegNet
stage widths, depths and group widths must be torchvision's own (regnet_arch.TORCHVISION_STAGES:
regnet_x_1_6gf's 80 x 2.25 / 8 = 22.5 rounds to even, 176); by hand: resnext50_32x4d's first
grouped conv2 128 x 4 x 3 x 3 (32 groups of 4), regnet_y_400mf's first SE block (fc1 8 x 48: the
block's 48 channels squeezed to int(round(0.25 x 32)), a quarter of its 32-channel input) and
regnet_y_32gf's first conv b (232 x 232 x 3 x 3: one group, a dense convolution).
Priced on the bundled profile with hand-made grouped tables of wider groups in place of its own.
Usage: regnet_params.py FUSIM"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import regnet_arch  # noqa: E402
from wlcheck import cnn_params_all, fails, finish, start  # noqa: E402

fusim, tmp, prof = start()
for model, cfg in regnet_arch.REGNET.items():
    got = tuple(list(v) for v in regnet_arch.regnet_stages(*cfg[:5]))
    if got != regnet_arch.TORCHVISION_STAGES[model]:
        fails.append("%s: stages %r, torchvision's %r" % (model, got, regnet_arch.TORCHVISION_STAGES[model]))
grads = cnn_params_all(fusim, tmp, regnet_arch.with_gconv_tables(prof), regnet_arch.PUBLISHED, regnet_arch.build)
for model, name, numel in (("resnext50_32x4d", "layer1.0.conv2.weight", 128 * 4 * 9),
                           ("regnet_y_400mf", "trunk_output.block1.block1-0.f.se.fc1.weight", 8 * 48),
                           ("regnet_y_400mf", "trunk_output.block1.block1-0.f.se.fc1.bias", 8),
                           ("regnet_y_32gf", "trunk_output.block1.block1-0.f.b.0.weight", 232 * 232 * 9)):
    if grads.get(model, {}).get(name) != numel:
        fails.append("%s %s: %r, expected %d" % (model, name, grads.get(model, {}).get(name), numel))
finish()
