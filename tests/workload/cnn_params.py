#!/usr/bin/env python3
"""cnn_params.py: fusim workload --cnn builds torchvision's ResNets as torchvision does,
checked on their parameters against torchvision's published counts (its model documentation):
resnet18 11,689,512 and resnet34 21,797,672 (basic blocks: 62 and 110 tensors, no downsample in
layer1, whose stride and width do not change), resnet50 25,557,032, resnet101 44,549,160,
resnet152 60,192,808, wide_resnet50_2 68,883,240,
wide_resnet101_2 126,886,696; the wide ones with as many tensors as their plain twins (161, 314)
and, by hand, twice the inner width: layer1.0.conv2 128 x 128 x 3 x 3 (plain 64 x 64 x 3 x 3),
layer1.0.conv3 256 x 128 (plain 256 x 64), the fc layer 2048 x 1000 either way; resnet18's by
hand: layer1.0.conv1 64 x 64 x 3 x 3, layer2.0.conv1 128 x 64 x 3 x 3 and conv2 128 x 128 x 3 x 3,
layer2.0.downsample.0 128 x 64, fc 512 x 1000, no layer1.0.downsample and no conv3. torchvision's VGGs (published: vgg11 132,863,336, vgg13 133,047,848, vgg16 138,357,544,
vgg19 143,667,240; with batch norm 132,868,840, 133,053,736, 138,365,992, 143,678,248), each
convolution with a bias, the _bn twins two tensors more a convolution; by hand: vgg16's
features.0 64 x 3 x 3 x 3 and its bias 64, features.28 (the last convolution) 512 x 512 x 3 x 3,
classifier.0 4096 x 512 x 7 x 7, classifier.6 1000 x 4096; vgg16_bn's features.1 a batch norm of
64 and its first convolution at features.0, the second at features.3. torchvision's DenseNets
(published: densenet121 7,978,856, densenet161 28,681,000, densenet169 14,149,480, densenet201
20,013,928; 364, 484, 508, 604 tensors); by hand for densenet121: denseblock1.denselayer1.conv1
128 x 64 (4 x growth 32 from the 64 initial maps), denselayer6.conv1 128 x (64 + 5 x 32),
conv2 32 x 128 x 3 x 3, transition1.conv 128 x 256 (block 1 ends at 64 + 6 x 32 = 256 maps,
halved), norm5 1024 maps, the classifier 1000 x 1024. torchvision's SqueezeNets (published:
squeezenet1_0 1,248,424, squeezenet1_1 1,235,496; 52 tensors: the stem, 8 Fire modules of three
convolutions, the classifier's convolution, each with a bias); by hand for squeezenet1_1:
features.0 64 x 3 x 3 x 3, features.3.squeeze 16 x 64, features.3.expand3x3 64 x 16 x 3 x 3,
features.12.expand1x1 256 x 64, classifier.1 1000 x 512 and its bias 1000; squeezenet1_0's stem
96 x 3 x 7 x 7. An unknown name
(wide_resnet152_2, which torchvision does not have; vgg16_b): one line, exit 64.
Usage: cnn_params.py FUSIM"""
import json
import os
import subprocess
import sys
import tempfile

fusim = sys.argv[1]
PUBLISHED = {"resnet18": (11689512, 62), "resnet34": (21797672, 110),
             "resnet50": (25557032, 161), "resnet101": (44549160, 314), "resnet152": (60192808, 467),
             "wide_resnet50_2": (68883240, 161), "wide_resnet101_2": (126886696, 314),
             "vgg11": (132863336, 22), "vgg13": (133047848, 26), "vgg16": (138357544, 32), "vgg19": (143667240, 38),
             "vgg11_bn": (132868840, 38), "vgg13_bn": (133053736, 46), "vgg16_bn": (138365992, 58),
             "vgg19_bn": (143678248, 70),
             "densenet121": (7978856, 364), "densenet161": (28681000, 484), "densenet169": (14149480, 508),
             "densenet201": (20013928, 604), "squeezenet1_0": (1248424, 52), "squeezenet1_1": (1235496, 52)}
fails = []
grads = {}
with tempfile.TemporaryDirectory() as tmp:
    for model, (params, tensors) in PUBLISHED.items():
        out = os.path.join(tmp, model + ".json")
        r = subprocess.run([fusim, "workload", "--cnn", model, "--micro-batch", "8", "--out", out],
                           capture_output=True, text=True)
        if r.returncode != 0:
            fails.append("%s: exit %d: %s" % (model, r.returncode, r.stderr.strip()))
            continue
        g = {x["name"]: x["bytes"] // 4 for x in json.load(open(out))["grads"]}   # fp32 parameters
        grads[model] = g
        if (sum(g.values()), len(g)) != (params, tensors):
            fails.append("%s: %d parameters in %d tensors, torchvision has %d in %d"
                         % (model, sum(g.values()), len(g), params, tensors))
    for name, plain, wide in (("layer1.0.conv2.weight", 64 * 64 * 9, 128 * 128 * 9),
                              ("layer1.0.conv3.weight", 256 * 64, 256 * 128),
                              ("fc.weight", 2048 * 1000, 2048 * 1000)):
        got = (grads.get("resnet50", {}).get(name), grads.get("wide_resnet50_2", {}).get(name))
        if got != (plain, wide):
            fails.append("%s: resnet50 / wide_resnet50_2 %r, expected (%d, %d)" % (name, got, plain, wide))
    r18 = grads.get("resnet18", {})
    for name, numel in (("layer1.0.conv1.weight", 64 * 64 * 9), ("layer2.0.conv1.weight", 128 * 64 * 9),
                        ("layer2.0.conv2.weight", 128 * 128 * 9), ("layer2.0.downsample.0.weight", 128 * 64),
                        ("fc.weight", 512 * 1000)):
        if r18.get(name) != numel:
            fails.append("resnet18 %s: %r, expected %d" % (name, r18.get(name), numel))
    if "layer1.0.downsample.0.weight" in r18 or "layer1.0.conv3.weight" in r18:
        fails.append("resnet18: a downsample in layer1 or a third convolution in a block")
    v16, v16bn = grads.get("vgg16", {}), grads.get("vgg16_bn", {})
    for g, name, numel in ((v16, "features.0.weight", 64 * 3 * 9), (v16, "features.0.bias", 64),
                           (v16, "features.28.weight", 512 * 512 * 9), (v16, "classifier.0.weight", 4096 * 512 * 49),
                           (v16, "classifier.6.weight", 1000 * 4096), (v16bn, "features.1.weight", 64),
                           (v16bn, "features.0.weight", 64 * 3 * 9), (v16bn, "features.3.weight", 64 * 64 * 9)):
        if g.get(name) != numel:
            fails.append("%s %s: %r, expected %d" % ("vgg16_bn" if g is v16bn else "vgg16", name, g.get(name), numel))
    d121 = grads.get("densenet121", {})
    b = "features.denseblock1."
    for name, numel in ((b + "denselayer1.conv1.weight", 128 * 64), (b + "denselayer6.conv1.weight", 128 * (64 + 5 * 32)),
                        (b + "denselayer6.conv2.weight", 32 * 128 * 9), ("features.transition1.conv.weight", 128 * 256),
                        ("features.norm5.weight", 1024), ("classifier.weight", 1000 * 1024)):
        if d121.get(name) != numel:
            fails.append("densenet121 %s: %r, expected %d" % (name, d121.get(name), numel))
    sq, sq0 = grads.get("squeezenet1_1", {}), grads.get("squeezenet1_0", {})
    for g, name, numel in ((sq, "features.0.weight", 64 * 3 * 9), (sq, "features.3.squeeze.weight", 16 * 64),
                           (sq, "features.3.expand3x3.weight", 64 * 16 * 9), (sq, "features.12.expand1x1.weight", 256 * 64),
                           (sq, "classifier.1.weight", 1000 * 512), (sq, "classifier.1.bias", 1000),
                           (sq0, "features.0.weight", 96 * 3 * 49)):
        if g.get(name) != numel:
            fails.append("%s %s: %r, expected %d" % ("squeezenet1_0" if g is sq0 else "squeezenet1_1", name,
                                                   g.get(name), numel))
    for bad in ("wide_resnet152_2", "vgg16_b"):
        r = subprocess.run([fusim, "workload", "--cnn", bad, "--micro-batch", "8",
                            "--out", os.path.join(tmp, "no.json")], capture_output=True, text=True)
        if r.returncode != 64 or len(r.stderr.strip().splitlines()) != 1 or os.path.exists(os.path.join(tmp, "no.json")):
            fails.append("%s: exit %d, %r" % (bad, r.returncode, r.stderr))
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
