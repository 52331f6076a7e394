"""wlcheck.py: what the hand-checked workload tests (host_timeline.sh, optim_step.sh,
host_ref.sh, emb_sort.py, reduce_split.py) share: the list of failures, a check within a
tolerance, the bundled profile with a host-speed probe set (its median and fastest reading) and
its tables read as measured (no timer overhead), the hand-made AdamW fit, one fusim workload run
with its --ops listing, and the exit (one FAIL line each); and optim_parts.py's and
probe_carriers.py's run of a tool on lease K's capture."""
import csv
import json
import os
import shutil
import subprocess
import sys

fails = []


def check(what, got, want, tol=1e-3, rel=0.0):
    """A failure line unless got is within tol + rel x |want| of want."""
    if not abs(got - want) <= tol + rel * abs(want):
        fails.append("%s: got %.4f, expected %.4f (+- %g)" % (what, got, want, tol + rel * abs(want)))


def profile(root, probe_us=7.0, probe_min_us=5.0):
    """The bundled profile, its host rows measured at a probe of probe_us (fastest probe_min_us)."""
    prof = json.load(open(os.path.join(root, "data", "profiles", "h200-default.json")))
    prof["compute"]["host_probe_us"], prof["compute"]["host_probe_min_us"] = probe_us, probe_min_us
    # a table's time is the call's here (the hand-made expectations read the tables as they are);
    # timer_overhead.py checks that a profile's timer_overhead_us comes off every lookup
    prof["compute"]["timer_overhead_us"] = 0.0
    return prof


def start():
    """A test's fusim (its first argument), a scratch folder and the bundled profile."""
    import atexit
    import shutil
    import tempfile
    tmp = tempfile.mkdtemp(prefix="fusim-wlcheck-")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    return sys.argv[1], tmp, profile(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def row_profiles(prof, tmp, op, host_bwd_us):
    """Two profiles written from prof: with a hand-made backward host row op (bf16, host_bwd_us)
    in place of the bundled one, and without it (an older profile). Returns their paths and the
    profile's other operation rows."""
    ops = [t for t in prof["compute"]["ops"] if t["op"] != op]
    row = {"op": op, "dtype": "bf16", "numel": [], "fwd_us": [], "bwd_us": [], "host_fwd_us": 0.0,
           "host_bwd_us": host_bwd_us}
    paths = os.path.join(tmp, "p.json"), os.path.join(tmp, "n.json")
    for path, rows in zip(paths, (ops + [row], ops)):
        prof["compute"]["ops"] = rows
        with open(path, "w") as f:
            json.dump(prof, f)
    return paths[0], paths[1], ops


def family_profiles(prof, tmp, family, dtype, sets):
    """Profiles written from prof with its tables of one family (op names starting with family) of
    dtype replaced by hand-made ones: sets maps a profile's name to its tables, (op, (fwd, bwd)),
    each 1 us at 1e5 elements and fwd / bwd us at 1e6 (beyond it linear in the element count).
    Returns name -> path."""
    base = [t for t in prof["compute"]["ops"] if not (t["op"].startswith(family) and t["dtype"] == dtype)]
    paths = {}
    for name, tables in sets.items():
        prof["compute"]["ops"] = base + [{"op": op, "dtype": dtype, "numel": [1e5, 1e6], "fwd_us": [1.0, y[0]],
                                          "bwd_us": [1.0, y[1]], "host_fwd_us": 5.0, "host_bwd_us": 5.0}
                                         for op, y in tables]
        paths[name] = os.path.join(tmp, name + ".json")
        with open(paths[name], "w") as f:
            json.dump(prof, f)
    return paths


# AdamW with a host part measured at probe 5 us: device 100 + 0.5 us a tensor + 1e-5 us an element,
# host 200 + 20 us a tensor, the last kernel a quarter of the device time
ADAMW = dict(name="adamw", base_us=100.0, per_tensor_us=0.5, per_elem_us=1e-5, host_base_us=200.0,
             host_per_tensor_us=20.0, tail_frac=0.25, host_probe_us=5.0)


def run_tool_on_lease_k(root, tool, fusim, tmp, extra=()):
    """tools/TOOL --fusim FUSIM [EXTRA...] over a folder under tmp holding one committed capture
    priced by both threads' probes (lease K's BERT h512: readings between the steps, the autograd
    thread's, no reference step); the finished process."""
    d = os.path.join(tmp, "lease-k")
    os.makedirs(d, exist_ok=True)
    shutil.copy(os.path.join(root, "data", "compute", "captures-2026-12-04h-thread",
                             "bert_h512_l8_b32_s128_bf16.json"), d)
    return subprocess.run([sys.executable, os.path.join(root, "tools", tool), "--fusim", fusim, *extra, d],
                          capture_output=True, text=True)


def tf_args(arch="bert"):
    """A two-layer transformer whose T x H = 4 x 256 x 1024 = 2^20 elements (the hand-made tables' point)."""
    return ["--transformer", "--arch", arch, "--layers", "2", "--hidden", "1024", "--heads", "16", "--ffn", "4096",
            "--vocab", "32000", "--seq", "256", "--micro-batch", "4", "--precision", "autocast-bf16"]


def workload(fusim, args, prof_path, tmp):
    """fusim workload ARGS priced with the profile at prof_path: (the workload, its --ops rows), or
    (None, None) and a failure line."""
    o, w = os.path.join(tmp, "ops.csv"), os.path.join(tmp, "w.json")
    r = subprocess.run([fusim, "workload"] + list(args) + ["--profile", prof_path, "--out", w, "--ops", o],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fails.append("%s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
        return None, None
    return json.load(open(w)), list(csv.DictReader(open(o)))


def cnn_params(fusim, model, argv, out, published, want):
    """fusim workload --cnn MODEL ARGV --out OUT: its parameters by name (fp32: bytes / 4), their
    total against published and each against want (name -> size); None where it failed."""
    r = subprocess.run([fusim, "workload", "--cnn", model] + argv + ["--out", out], capture_output=True, text=True)
    if r.returncode != 0:
        fails.append("%s: exit %d: %s" % (model, r.returncode, r.stderr.strip()))
        return None
    g = {x["name"]: x["bytes"] // 4 for x in json.load(open(out))["grads"]}
    if sum(g.values()) != published:
        fails.append("%s: %d parameters, torchvision's %d" % (model, sum(g.values()), published))
    for name in sorted(set(g) | set(want)):
        if g.get(name) != want.get(name):
            fails.append("%s %s: %r, torchvision's %r" % (model, name, g.get(name), want.get(name)))
    return g


def cnn_params_all(fusim, tmp, prof, published, build):
    """cnn_params at batch 8 on the profile prof (a dict, written to tmp) for each model of published
    (its torchvision count) against build(model).params: {model: its parameters} ({} where it failed)."""
    path = os.path.join(tmp, "cnn_params.json")
    with open(path, "w") as f:
        json.dump(prof, f)
    return {model: cnn_params(fusim, model, ["--micro-batch", "8", "--profile", path], os.path.join(tmp, model + ".json"),
                              count, build(model).params) or {} for model, count in published.items()}


def same_order(what, got, want):
    """A failure line at the first operation where the listed kinds got and the expected want differ."""
    if got != want:
        i = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        fails.append("%s: operation %d is %s, torchvision's %s (%d listed, %d expected)"
                     % (what, i, got[i:i + 1], want[i:i + 1], len(got), len(want)))


def refused(fusim, tmp, what, argv, path, words):
    """fusim workload ARGV on the profile at path refuses: exit 65, one line naming each of words,
    nothing written."""
    r = subprocess.run([fusim, "workload"] + argv + ["--profile", path, "--out", os.path.join(tmp, "no.json")],
                       capture_output=True, text=True)
    check(what + ": exit", r.returncode, 65, 0)
    check(what + ": one line", len(r.stderr.strip().splitlines()), 1, 0)
    for word in words:
        check("%s: says %r" % (what, word), word in r.stderr, 1, 0)
    check(what + ": nothing written", os.path.exists(os.path.join(tmp, "no.json")), 0, 0)


def host_row(op, dtype, host_fwd_us, host_bwd_us):
    """A hand-made host-only row (no device tables) of op in dtype."""
    return {"op": op, "dtype": dtype, "numel": [], "fwd_us": [], "bwd_us": [], "host_fwd_us": host_fwd_us,
            "host_bwd_us": host_bwd_us}


def profile_with(prof, tmp, name, ops, extra):
    """prof with its operation rows ops + extra, written to tmp/name; the path."""
    prof["compute"]["ops"] = ops + extra
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        json.dump(prof, f)
    return path


def check_layer_host(lst, layers, layer, rest):
    """The --ops rows lst: every layer's host costs (forward, backward) add up to layer, the rest's
    (layer -1) to rest, to the listing's 3 decimals a row; layers listed."""
    sums = {}
    for x in lst:
        s = sums.setdefault(int(x["layer"]), [0.0, 0.0, 0])
        s[0] += float(x["host_fwd_us"])
        s[1] += float(x["host_bwd_us"])
        s[2] += 1
    check("layers listed", len([k for k in sums if k >= 0]), layers, 0)
    for k, s in sorted(sums.items()):
        want = rest if k < 0 else layer
        for i, what in ((0, "fwd"), (1, "bwd")):
            check("%s host %s" % ("rest" if k < 0 else "layer %d" % k, what), s[i], want[i], 0.0005 * s[2] + 1e-6)


def check_same_grads(what, w, cap):
    """The builder's gradients in w are the capture cap's, names and bytes, in its ready order."""
    got = [(g["name"], g["bytes"]) for g in w["grads"]]
    want = [(g["name"], g["bytes"]) for g in cap["grads"]]
    if got != want:
        diff = sorted(set(got) ^ set(want))[:4]
        fails.append("%s: the builder's gradients differ (%d against %d; %s)"
                     % (what, len(got), len(want), diff or "same tensors, another order"))


def check_refused(fusim, tmp, what, args, needles, status=65):
    """fusim workload ARGS refused: exit status, one line on stderr holding every needle, no file."""
    out = os.path.join(tmp, "refused.json")
    r = subprocess.run([fusim, "workload"] + list(args) + ["--out", out], capture_output=True, text=True)
    check(what + ": exit", r.returncode, status, 0)
    check(what + ": one line", len(r.stderr.splitlines()), 1, 0)
    missing = [n for n in needles if n not in r.stderr]
    if missing:
        fails.append("%s: the line lacks %s: %r" % (what, missing, r.stderr))
    check(what + ": nothing written", os.path.exists(out), False, 0)


def finish():
    for f in fails:
        print("FAIL: " + f, file=sys.stderr)
    sys.exit(1 if fails else 0)
