#!/usr/bin/env python3
"""test_torch_checks.py: issue 10's bad input for the real-PyTorch validation, without PyTorch or
a GPU. tools/torch_checks.grad_problem on the names alone (no trainable parameter; a hook that
never fires; all fired), then tools/validate_torch.py's main() with a stand-in for the GPU step
(its probe): a model with no trainable parameters, or one whose hook never fires, must give one
line on stderr, exit 65 and write nothing, also after a model that did not fit in memory (passed
over, as the run skips it); a bad --models spec 64."""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile

TOOLS = os.path.join(os.environ.get("FUSIM_SOURCE_ROOT",
                                    os.path.join(os.path.dirname(__file__), "..", "..")), "tools")
sys.path.insert(0, TOOLS)
import torch_checks  # noqa: E402

fails = 0


def check(what, ok):
    global fails
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    fails += 0 if ok else 1


g = torch_checks.grad_problem
check("no trainable parameters", g([]) == "the model has no parameters that require gradients")
check("no trainable parameters, even after a step", g([], set()) is not None)
check("trainable, no step run yet: fine", g(["a.weight"]) is None)
check("every hook fired: fine", g(["a.weight", "a.bias"], {"a.bias", "a.weight"}) is None)
m = g(["a.weight", "b.weight", "b.bias"], {"a.weight"})
check("a hook that never fires is named, with the count: %r" % m,
      m is not None and "2 of 3" in m and "b.weight" in m)
check("extra fired names do not hide a missing one", g(["a"], {"b", "c"}) is not None)

# main() with a stand-in probe: what the GPU step would report for each model.
STUB = {
    "good": "(['w'], {'w'})",
    "frozen": "([], set())",             # requires_grad off everywhere
    "dangling": "(['w', 'unused.weight'], {'w'})",   # a parameter forward never uses
    "huge": "None",                      # did not fit in GPU memory: the run skips it
}


def run_main(models, probe_of, extra=()):
    """Runs validate_torch.main in a fresh interpreter; returns (rc, stderr lines, out dir)."""
    tmp = tempfile.mkdtemp(prefix="fusim-torch-checks-")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    out = os.path.join(tmp, "out")
    probe = "lambda name, batch, seq: {%s}[name]" % ", ".join(
        "%r: %s" % (k, v) for k, v in probe_of.items())
    code = ("import sys; sys.path.insert(0, %r); import validate_torch as v; "
            "sys.exit(v.main(['--out', %r, '--models', %r] + %r, probe=%s))"
            % (TOOLS, out, models, list(extra), probe))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    return p.returncode, p.stderr.splitlines(), out


for models, name in (("good:8,frozen:4", "frozen"), ("dangling:2", "dangling"),
                     ("huge:64,frozen:1", "frozen")):
    rc, err, out = run_main(models, STUB)
    check("%s: exit 65 (got %d)" % (models, rc), rc == 65)
    check("%s: one line on stderr %r" % (models, err),
          len(err) == 1 and err[0].startswith("validate_torch: %s (batch" % name))
    check("%s: nothing written" % models, not os.path.exists(out))
rc, err, out = run_main("good:x", STUB)
check("bad --models spec: exit 64, one line (got %d, %r)" % (rc, err), rc == 64 and len(err) == 1)
check("bad --models spec: nothing written", not os.path.exists(out))
for bad in ("1", "x", "4,,16"):   # --spacing-every: gradients a bucket, 2 or more
    rc, err, out = run_main("good:8", STUB, ["--spacing-every", bad])
    check("--spacing-every %s: exit 64, one line (got %d, %r)" % (bad, rc, err),
          rc == 64 and len(err) == 1 and "--spacing-every" in err[0])
    check("--spacing-every %s: nothing written" % bad, not os.path.exists(out))

print("%d failed" % fails)
sys.exit(1 if fails else 0)
