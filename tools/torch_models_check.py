#!/usr/bin/env python3
"""torch_models_check.py: which of validate_torch's models build and take one training step in a
recipe, before a device call spends minutes on them (calib/device_torch_run.sh, CHECK=1). Each
MODEL[:BATCH] is built at batch 2 (sequence 64 for the transformers), run forward and backward
under the recipe's autocast and stepped by the recipe's optimizer (validate_torch.make_opt,
clipping included). Prints the models that passed, comma-separated as given, on stdout; each
failure as one line on stderr. Exit 0 when at least one passed, 1 when none did.

    python3 tools/torch_models_check.py MODELS [--amp bf16] [--optimizer adamw] [--set-to-none]
                                               [--clip-grad-norm MAX]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_torch as vt  # noqa: E402


def check(name):
    """None when the model name builds and steps, else the reason."""
    try:
        model, inputs, loss_fn, _ = vt.build_model(name, 2, 64)
        opt = vt.make_opt(model)
        vt.with_amp(loss_fn)(model, inputs).backward()
        opt.step()
        return None
    except Exception as e:   # a model this torch or transformers cannot build: reported, skipped
        return "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200] if str(e) else "")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models")
    ap.add_argument("--amp", choices=("tf32", "bf16"), default="tf32")
    ap.add_argument("--optimizer", choices=tuple(vt.OPT_STATES), default="sgd")
    ap.add_argument("--set-to-none", action="store_true")
    ap.add_argument("--clip-grad-norm", type=float)
    a = ap.parse_args(argv)
    vt.set_recipe(a)
    good = []
    # validate_torch's own reading of MODEL[:BATCH] (bad input: one line, exit 64); printed as given
    for spec, (name, _) in zip(a.models.split(","), vt.parse_models(a.models)):
        why = check(name)
        if why:
            print("torch_models_check: %s skipped (%s)" % (spec, why), file=sys.stderr)
        else:
            good.append(spec)
    print(",".join(good))
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
