#!/usr/bin/env python3
"""saved_activations.py: what autograd keeps for backward in a torchvision model's training
forward, measured (no GPU needed: PyTorch on the CPU): the bytes of the distinct storages the
saved-tensor hooks see, parameters left out. fusim's --cnn memory model counts the same thing as
"activations" (each operation's saved tensors, shared ones once); tests/workload/saved_activations.py
holds fusim to these figures.

Usage: python3 tools/saved_activations.py --out F.json [--batch 8] [--image 224] MODEL [MODEL ...]
"""
import argparse
import json
import sys


def saved_bytes(torch, torchvision, name, batch, image):
    """The distinct non-parameter storages autograd saves in one training forward, in bytes."""
    model = getattr(torchvision.models, name)().train()
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    seen = {}

    def pack(t):
        s = t.untyped_storage()
        seen[s.data_ptr()] = max(seen.get(s.data_ptr(), 0), s.nbytes())
        return t
    x = torch.randn(batch, 3, image, image)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(x)
    return sum(v for k, v in seen.items() if k not in params)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--image", type=int, default=224)
    ap.add_argument("models", nargs="+")
    a = ap.parse_args(argv)
    try:
        import torch
        import torchvision
    except ImportError as e:
        print("saved_activations: %s" % e, file=sys.stderr)
        return 69
    torch.manual_seed(0)
    rows = []
    for m in a.models:
        try:
            b = saved_bytes(torch, torchvision, m, a.batch, a.image)
        except (AttributeError, RuntimeError) as e:
            print("saved_activations: %s: %s" % (m, e), file=sys.stderr)
            return 65
        rows.append({"model": m, "batch": a.batch, "image": a.image, "dtype": "fp32", "saved_bytes": b})
        print("%-22s %10.1f MiB" % (m, b / 2 ** 20))
    with open(a.out, "w") as f:
        json.dump({"tool": "tools/saved_activations.py", "torch": torch.__version__,
                   "torchvision": torchvision.__version__, "device": "cpu", "models": rows}, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
