#!/usr/bin/env python3
"""capture_cli.py: tools/capture_torch.py's refusals that come before PyTorch is imported (so they
run here, without it): one line on stderr, exit 64, nothing written.
  - --memory-format nchw on a model not resnet50 (a model of your own lays its tensors out itself);
  - --host-ref naming no architecture a reference step exists for (tools/host_ref.py);
  - --model neither resnet50, bert_large nor package.module:function.
capture_torch.build on a model of the user's own without PyTorch (a stand-in builder): found in
the current folder as validate_torch finds it; one that cannot be loaded is one line, exit 64.
Usage: capture_cli.py"""
import os
import subprocess
import sys
import tempfile

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "capture_torch.py")
fails = []
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "cap.json")
    for what, args, word in (("--memory-format nchw on bert_large", ["--model", "bert_large", "--memory-format", "nchw"],
                              "resnet50"),
                             ("--host-ref foo", ["--model", "resnet50", "--host-ref", "foo"], "--host-ref")):
        r = subprocess.run([sys.executable, TOOL] + args + ["--out", out], capture_output=True, text=True)
        lines = r.stderr.strip().splitlines()
        if r.returncode != 64 or len(lines) != 1 or word not in lines[0] or os.path.exists(out):
            fails.append("%s: exit %d, stderr %r, written %s" % (what, r.returncode, r.stderr, os.path.exists(out)))
    # a model name that is neither built in nor package.module:function: refused before PyTorch
    # (it said "PyTorch is needed", exit 69, as if the name were right)
    for name in ("resnet5", "a:b:c", ":fn"):
        r = subprocess.run([sys.executable, TOOL, "--model", name, "--out", out], capture_output=True, text=True)
        lines = r.stderr.strip().splitlines()
        if r.returncode != 64 or len(lines) != 1 or "unknown model" not in lines[0] or os.path.exists(out):
            fails.append("--model %s: exit %d, stderr %r" % (name, r.returncode, r.stderr))
    # the builder of a model of the user's own, as validate_torch finds it: a module in the current
    # folder (it was a ModuleNotFoundError traceback there); one that is not there: one line, 64
    with open(os.path.join(tmp, "my_model_cli.py"), "w") as f:
        f.write("def net(batch, device):\n    return ('model', [batch], lambda m, x: 0.0)\n")
    # python -c puts the current folder on the path, python3 tools/capture_torch.py does not
    call = ("import os, sys; sys.path[:] = [p for p in sys.path if p not in ('', os.getcwd())]; "
            "sys.path.insert(0, %r); import capture_torch; "
            "r = capture_torch.build(sys.argv[1], 4, 'cpu', 8); print(r[0], r[1], r[3])"
            % os.path.dirname(TOOL))
    r = subprocess.run([sys.executable, "-c", call, "my_model_cli:net"], capture_output=True, text=True, cwd=tmp)
    if r.returncode != 0 or r.stdout.split() != ["model", "[4]", "None"]:
        fails.append("a builder in the current folder: exit %d, %r %r" % (r.returncode, r.stdout, r.stderr))
    r = subprocess.run([sys.executable, "-c", call, "no_such_module_cli:net"], capture_output=True, text=True, cwd=tmp)
    lines = r.stderr.strip().splitlines()
    if r.returncode != 64 or len(lines) != 1 or "cannot load the model builder no_such_module_cli:net" not in lines[0]:
        fails.append("a builder not there: exit %d, stderr %r" % (r.returncode, r.stderr))
    # a ValueError the user's builder raises while it builds is the builder's own error, with its
    # traceback (as validate_torch lets it through): it was read as a failure to load the builder,
    # one line "capture_torch: batch 4 too small", exit 64, the traceback lost
    with open(os.path.join(tmp, "my_model_bad_cli.py"), "w") as f:
        f.write("def net(batch, device):\n    raise ValueError('batch %d too small' % batch)\n")
    r = subprocess.run([sys.executable, "-c", call, "my_model_bad_cli:net"], capture_output=True, text=True, cwd=tmp)
    if r.returncode in (0, 64) or "Traceback" not in r.stderr or "my_model_bad_cli.py" not in r.stderr:
        fails.append("a builder raising ValueError: exit %d, stderr %r" % (r.returncode, r.stderr))
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
