#!/usr/bin/env python3
"""ready_scale.py: tools/compare_compute.ready_of puts a capture's ready times at its plain pass's
backward length: a capture of the capped kind (ready_scale 1.0) whose hooked pass was shorter
is scaled up by bwd / hooked and kept <= bwd; one already scaled either way (ready_scale not 1)
and one whose hooked pass was longer are left as they are. tools/ready_pace.blocks groups
ResNet blocks by stage and transformer layers by their first parameter, and trace_pace reads a
ResNet-50 trace's per-block host pace. By hand, no GPU."""
import json
import os
import sys
import tempfile

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(root, "tools"))
import compare_compute as cc  # noqa: E402
import ready_pace  # noqa: E402

fails = []


def check(what, got, want):
    if got != want:
        fails.append("%s: got %r, expected %r" % (what, got, want))


def cap(bwd, hooked, scale, ready):
    return {"bwd_us": bwd, "meta": {"bwd_hooked_us": hooked, "ready_scale": scale},
            "grads": [{"name": "g%d" % i, "ready_us": r} for i, r in enumerate(ready)]}


# hooked 800 of 1000, capped: x 1.25, the last one clipped at bwd
check("capped, hooked faster", cc.ready_of(cap(1000.0, 800.0, 1.0, [400.0, 800.0, 820.0])),
      {"g0": 500.0, "g1": 1000.0, "g2": 1000.0})
# scaled already by capture_torch (1000 / 800)
check("scaled by the tool", cc.ready_of(cap(1000.0, 800.0, 1.25, [500.0, 1000.0])), {"g0": 500.0, "g1": 1000.0})
# hooked longer: capture_torch scaled it down already
check("hooked slower", cc.ready_of(cap(1000.0, 1250.0, 0.8, [400.0, 1000.0])), {"g0": 400.0, "g1": 1000.0})
# no hooked time recorded (older captures): as they are
check("no hooked time", cc.ready_of({"bwd_us": 10.0, "meta": {}, "grads": [{"name": "a", "ready_us": 4.0}]}),
      {"a": 4.0})
# blocks: ResNet stages' conv1 weights; transformer layers' first parameter in the order given
rn = ["fc.weight", "layer4.1.conv1.weight", "layer4.1.bn1.weight", "layer4.0.conv1.weight", "layer3.5.conv1.weight"]
check("resnet stages", ready_pace.blocks(rn),
      {"layer4": ["layer4.1.conv1.weight", "layer4.0.conv1.weight"], "layer3": ["layer3.5.conv1.weight"]})
tf = ["cls.predictions.bias", "bert.encoder.layer.1.output.LayerNorm.weight", "bert.encoder.layer.1.output.dense.bias",
      "bert.encoder.layer.0.output.LayerNorm.bias", "model.layers.0.mlp.down_proj.weight"]
check("transformer layers", ready_pace.blocks(tf),
      {"layers": ["bert.encoder.layer.1.output.LayerNorm.weight", "bert.encoder.layer.0.output.LayerNorm.bias"]})
# trace_pace: a synthetic trace of one step: the loss's backward at t = 0, 53 convolution
# backwards 30 us apart from t = 100 (a block = 3 x 30 = 90 us in every stage), the last ending
# at 100 + 52 x 30 + 10
evs = [{"ph": "X", "cat": "cpu_op", "tid": 2, "name": "autograd::engine::evaluate_function: NllLossBackward0",
        "ts": 0, "dur": 5}]
evs += [{"ph": "X", "cat": "cpu_op", "tid": 2, "name": "aten::convolution_backward", "ts": 100 + 30 * i, "dur": 10}
        for i in range(53)]
with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as t:
    json.dump({"traceEvents": evs}, t)
check("trace pace", ready_pace.trace_pace(t.name),
      ["step 0: us per block layer4 90, layer3 90, layer2 90, layer1 90; before the first convolution 100 of 1670 us"])
os.unlink(t.name)
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
