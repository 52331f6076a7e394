#!/usr/bin/env python3
"""probe_carriers.py (the test): tools/probe_carriers.speeds by hand, and the tool whole.
A profile whose probe read 6 us (median) and 5 (fastest), BERT bf16 rows rest 1000 / 2000 us and
layer 500 / 1000 (the reference step at 3 layers: 2500 / 5000). A capture whose main-thread
readings are 10, 15, 12 (fastest 10 / 5 = 2, median 12 / 6 = 2), autograd thread's 9, 18, 30
(median 18 / 6 = 3, backward only) and reference 5000 / 7500 (2, 1.5); without the autograd
readings and the reference, only fastest and median. Given fusim (argv[1]): the tool on a
committed capture (lease K's BERT h512: readings between the steps, the autograd thread's, no
reference) prints the between group's forward and backward rows and no around group, with
--by-arch the same rows as group between/bert; an empty folder is one stderr line and exit 66.
family() by hand: ResNets share one name (their host rows are tv_resnet50_held's)."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import probe_carriers as pcr  # noqa: E402
import wlcheck  # noqa: E402

fails = []


def check(what, got, want):
    if got != want:
        fails.append("%s: got %r, expected %r" % (what, got, want))


def row(op, f, b):
    return {"op": op, "dtype": "bf16", "numel": [], "fwd_us": [], "bwd_us": [], "host_fwd_us": f, "host_bwd_us": b}


pc = {"host_probe_us": 6.0, "host_probe_min_us": 5.0,
      "ops": [row("hf_bert_rest_tiny", 1000.0, 2000.0), row("hf_bert_layer_tiny", 500.0, 1000.0)]}
ops = {(t["op"], t["dtype"]): t for t in pc["ops"]}
meta = {"arch": "bert", "model": "bert_x", "amp": "bf16", "host_probes_us": [10.0, 15.0, 12.0],
        "host_bwd_probes_us": [9.0, 18.0, 30.0], "host_ref": {"fwd_us": 5000.0, "bwd_us": 7500.0}}
check("every reading", pcr.speeds(pc, ops, meta),
      {"fastest": (2.0, 2.0), "median": (2.0, 2.0), "autograd": (None, 3.0), "reference": (2.0, 1.5)})
for arch, fam in (("bert", "bert"), ("resnet101", "resnet"), ("resnet50", "resnet"), ("llama", "llama"), (None, "?")):
    check("family of %s" % arch, pcr.family({"arch": arch} if arch else {}), fam)
bare = {k: v for k, v in meta.items() if k not in ("host_bwd_probes_us", "host_ref")}
check("main thread only", pcr.speeds(pc, ops, bare), {"fastest": (2.0, 2.0), "median": (2.0, 2.0)})
if len(sys.argv) > 1:
    with tempfile.TemporaryDirectory() as tmp:
        r = wlcheck.run_tool_on_lease_k(ROOT, "probe_carriers.py", sys.argv[1], tmp)
        keys = sorted(tuple(x.split()[:3]) for x in r.stdout.splitlines()[1:])
        check("whole run: exit", r.returncode, 0)
        check("whole run: rows", keys, sorted([("between", "forward", "fastest"), ("between", "forward", "median"),
                                               ("between", "backward", "fastest"), ("between", "backward", "median"),
                                               ("between", "backward", "autograd")]))
        # --by-arch: the same rows, each group named with the capture's architecture
        r = wlcheck.run_tool_on_lease_k(ROOT, "probe_carriers.py", sys.argv[1], tmp, ["--by-arch"])
        check("--by-arch: exit", r.returncode, 0)
        check("--by-arch: rows", sorted(tuple(x.split()[:3]) for x in r.stdout.splitlines()[1:]),
              sorted(("between/bert",) + k[1:] for k in keys))
        os.mkdir(os.path.join(tmp, "empty"))
        r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "probe_carriers.py"), "--fusim", sys.argv[1],
                            os.path.join(tmp, "empty")], capture_output=True, text=True)
        check("an empty folder: exit", r.returncode, 66)
        check("an empty folder: one stderr line", len(r.stderr.strip().splitlines()), 1)
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
