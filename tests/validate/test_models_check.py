#!/usr/bin/env python3
"""tools/torch_models_check.py on stand-ins (no torch): a model whose build raises and one whose
optimizer step raises are reported on stderr and left out; the others are printed as given
(batch kept); none passing exits 1; the recipe's options reach validate_torch.RECIPE."""
import contextlib
import io
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tests", "validate"))
import torch_models_check as mc  # noqa: E402
from vcheck import check, finish  # noqa: E402


class Loss:
    def backward(self):
        pass


class Opt:
    def __init__(self, bad):
        self.bad = bad

    def step(self):
        if self.bad:
            raise RuntimeError("no step")


def build(name, batch, seq):
    if name == "nobuild":
        raise ImportError("cannot import name 'NoSuchConfig'")
    return name, None, (lambda m, inp: Loss()), "stand-in"


mc.vt.build_model = build
mc.vt.make_opt = lambda model: Opt(model == "nostep")
mc.vt.with_amp = lambda loss_fn: loss_fn   # bf16 autocast needs torch


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = mc.main(argv)
    return rc, out.getvalue().strip(), err.getvalue().strip().splitlines()


rc, out, err = run(["good:16,nobuild:8,nostep,other:32", "--amp", "bf16", "--optimizer", "adamw",
                    "--set-to-none", "--clip-grad-norm", "1.0"])
check("two pass, as given (got %d, %r)" % (rc, out), rc == 0 and out == "good:16,other:32")
check("the two failures, one line each, naming the model and why (got %r)" % err,
      len(err) == 2 and "nobuild:8 skipped (ImportError" in err[0] and "nostep skipped (RuntimeError: no step)" in err[1])
check("the recipe reached validate_torch (got %r)" % mc.vt.RECIPE,
      mc.vt.RECIPE == {"amp": "bf16", "optimizer": "adamw", "set_to_none": True, "clip": 1.0})
rc, out, err = run(["nobuild:8"])
check("none passes: exit 1, an empty line (got %d, %r)" % (rc, out), rc == 1 and out == "")
finish()
