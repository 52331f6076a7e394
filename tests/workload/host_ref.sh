#!/bin/sh
# fusim workload --host-ref-fwd/--host-ref-bwd, by hand on the --ops listing and hand-made rows:
# forward's host costs are carried by the reference step's forward time over the profile's time
# for the same step (rest + 3 layers of hf_<arch>_*_tiny; --cnn: tv_resnet50_held), backward's
# by the backward ratio, the optimizer's host part by the forward one; the profile's own time
# for the step changes nothing; the notes name the host-bound phases and, for a what-if, the
# times at the ends of the profile's host_speed_range; bad combinations give one line and write
# nothing.
# usage: host_ref.sh FUSIM
fusim=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
root=$(cd "$(dirname "$0")/../.." && pwd)
python3 - "$fusim" "$root" "$dir" <<'PY'
import json, os, subprocess, sys
fusim, root, tmp = sys.argv[1:4]
sys.path.insert(0, os.path.join(root, "tests", "workload"))
from wlcheck import ADAMW, check, fails, finish, profile, tf_args, workload  # noqa: E402
prof = profile(root)
row = lambda op, f, b: {"op": op, "dtype": "bf16", "numel": [], "fwd_us": [], "bwd_us": [],  # noqa: E731
                        "host_fwd_us": f, "host_bwd_us": b}
# the reference step at the profile's host speed: forward 300 + 3 x 100 = 600 us, backward
# 400 + 3 x 200 = 1000 us; ResNet-50 held: 10 ms forward, 20 ms backward
mine = {"hf_bert_layer_tiny", "hf_bert_rest_tiny", "hf_bert_pre_tiny", "tv_resnet50_held"}
prof["compute"]["ops"] = [t for t in prof["compute"]["ops"] if not (t["op"] in mine and t["dtype"] == "bf16")] + [
    row("hf_bert_layer_tiny", 100.0, 200.0), row("hf_bert_rest_tiny", 300.0, 400.0),
    row("tv_resnet50_held", 10000.0, 20000.0)]
# AdamW with a host part measured at the profile's probe (5 us): 200 + 20 us per tensor
prof["compute"]["optimizer"] = [f for f in prof["compute"]["optimizer"] if f["name"] != "adamw"] + [ADAMW]
pf = os.path.join(tmp, "p.json")
json.dump(prof, open(pf, "w"))
TF = tf_args()

def run(args, profile=pf):
    return workload(fusim, args, profile, tmp)

def sums(rows):
    return [sum(float(x[c]) for x in rows) for c in ("host_fwd_us", "host_bwd_us")]

# 1. the profile's own times for the reference: the same workload as without
w0, r0 = run(TF)
w1, r1 = run(TF + ["--host-ref-fwd", "600", "--host-ref-bwd", "1000"])
if w0 and w1:
    for k in ("fwd_us", "bwd_us", "opt_us"):
        check("k = 1: %s" % k, w1[k], w0[k], 1e-6 * w0[k])
# 2. a host 2x slower in forward, 3x in backward: each side's host costs scaled apart (the
#    listing prints 3 decimals: up to 0.0005 a row, times the factor)
w2, r2 = run(TF + ["--host-ref-fwd", "1200", "--host-ref-bwd", "3000"])
if r0 and r2:
    (f0, b0), (f2, b2) = sums(r0), sums(r2)
    check("forward host sum x2", f2, 2 * f0, 3 * 0.0005 * len(r0))
    check("backward host sum x3", b2, 3 * b0, 4 * 0.0005 * len(r0))
# 3. host-bound (forward 1000x, backward 1000x): the optimizer's host part 1000 x (200 + 20 x
#    tensors), carried from its row's probe (5) to the profile's (5) and by the forward ratio,
#    less the GPU's lead when backward() returns (the first operation's backward,
#    tests/workload/host_timeline.sh) plus the last kernel, a quarter of the device time
w3, r3 = run(TF + ["--host-ref-fwd", "600000", "--host-ref-bwd", "1000000"])
if w3:
    nt, ne = len(w3["grads"]), sum(g["bytes"] for g in w3["grads"]) / 4.0
    dev = 100 + 0.5 * nt + 1e-5 * ne
    check("host-bound optimizer", w3["opt_us"], 1000 * (200 + 20 * nt) - float(r3[0]["bwd_us"]) + 0.25 * dev, 0.05)
# 3b. the notes say which phases the host bounds, with the totals of the --ops listing (host
#     issue against GPU work, ms, one decimal), and how the host's speed was set; a model whose
#     GEMMs dwarf its launches (one layer at hidden 4096, 32k tokens) is bound by neither
if w3:
    hf, hb = sums(r3)
    df, db = sum(float(x["fwd_us"]) for x in r3), sum(float(x["bwd_us"]) for x in r3)
    want = "Host-bound: forward and backward (host issue %.1f / %.1f ms against GPU work %.1f / %.1f ms" % (
        hf / 1e3, hb / 1e3, df / 1e3, db / 1e3)
    if want not in w3["notes"] or "the reference step's (--host-ref)" not in w3["notes"]:
        fails.append("host-bound notes: expected '%s ... the reference step's', got: %s" % (want, w3["notes"][-300:]))
big = ["--transformer", "--arch", "llama", "--layers", "1", "--hidden", "4096", "--heads", "32", "--ffn", "16384",
       "--vocab", "32000", "--seq", "4096", "--micro-batch", "8", "--precision", "autocast-bf16"]
wb, rb = run(big)
if rb:
    (hf, hb), df = sums(rb), sum(float(x["fwd_us"]) for x in rb)
    if not hf < df or "Host-bound" in wb["notes"]:
        fails.append("GPU-bound model: host %.0f us against GPU %.0f us forward, notes: %s" % (hf, df, wb["notes"][-200:]))
# 3c. a what-if (no --host-ref, no --host-probe) states the times at the ends of the profile's
#     host_speed_range: with [2, 2, 3, 3] both ends are case 2's host (forward x2, backward x3),
#     so its forward and backward; a measured host speed (case 2 itself) states no range
prof["compute"]["host_speed_range"] = [2.0, 2.0, 3.0, 3.0]
pr = os.path.join(tmp, "range.json")
json.dump(prof, open(pr, "w"))
wr, _ = run(TF + ["--layers", "1", "--hidden", "256", "--heads", "4", "--ffn", "1024", "--seq", "64"], pr)
w2s, _ = run(TF + ["--layers", "1", "--hidden", "256", "--heads", "4", "--ffn", "1024", "--seq", "64",
                   "--host-ref-fwd", "1200", "--host-ref-bwd", "3000"], pr)
if wr and w2s:
    want = "forward %.1f-%.1f ms, backward %.1f-%.1f ms." % (
        w2s["fwd_us"] / 1e3, w2s["fwd_us"] / 1e3, w2s["bwd_us"] / 1e3, w2s["bwd_us"] / 1e3)
    if "Host-bound" not in wr["notes"] or want not in wr["notes"]:
        fails.append("what-if range: expected '%s' in the notes: %s" % (want, wr["notes"][-320:]))
    if "captured steps" in w2s["notes"]:
        fails.append("a measured host speed states a range: %s" % w2s["notes"][-320:])
# 3d. fit --compute carries host_speed_range into a profile; a range with lo > hi: one line, exit
#     65, the profile untouched
cal, merged = os.path.join(tmp, "cal.json"), os.path.join(tmp, "merged.json")
for rng, ok in (([0.9, 1.8, 1.1, 1.7], True), ([1.8, 0.9, 1.1, 1.7], False)):
    json.dump(prof, open(merged, "w"))
    before = open(merged).read()
    json.dump({"format": "fusim-compute-1", "compute": {"host_speed_range": rng}}, open(cal, "w"))
    r = subprocess.run([fusim, "fit", "--compute", cal, "--merge-into", merged], capture_output=True, text=True)
    got = json.load(open(merged))["compute"].get("host_speed_range")
    if ok and (r.returncode != 0 or got != rng):
        fails.append("fit --compute host_speed_range %s: exit %d, got %s" % (rng, r.returncode, got))
    if not ok and (r.returncode != 65 or len(r.stderr.strip().splitlines()) != 1 or open(merged).read() != before):
        fails.append("fit --compute host_speed_range %s: exit %d (want 65), stderr %r" % (rng, r.returncode, r.stderr))
# 4. --cnn: the held ResNet-50 is the reference; its host costs add up to the row (10 / 20 ms)
#    times the ratios, 20000 / 10000 = 2 forward, 10000 / 20000 = 0.5 backward
for extra, kf, kb in (([], 1, 1), (["--host-ref-fwd", "20000", "--host-ref-bwd", "10000"], 2, 0.5)):
    _, rows = run(["--cnn", "resnet50", "--micro-batch", "8"] + extra)
    if rows:
        f, b = sums(rows)
        check("cnn forward host sum %s" % extra, f, kf * 10000.0, 0.5)
        check("cnn backward host sum %s" % extra, b, kb * 20000.0, 0.5)
# 5. bad combinations: one line, exit 64 (usage: one without the other, with --host-probe, no
#    --arch, the roofline) or 65 (the profile lacks the reference's rows), nothing written
nope = os.path.join(tmp, "none.json")
json.dump(dict(prof, compute=dict(prof["compute"], ops=[t for t in prof["compute"]["ops"]
                                                         if t["op"] != "hf_bert_rest_tiny"])), open(nope, "w"))
custom = [a for a in TF if a not in ("--arch", "bert")]
for args, profile, want in ((TF + ["--host-ref-fwd", "600"], pf, 64),
                            (TF + ["--host-ref-fwd", "600", "--host-ref-bwd", "1000", "--host-probe", "5"], pf, 64),
                            (custom + ["--host-ref-fwd", "600", "--host-ref-bwd", "1000"], pf, 64),
                            (TF + ["--tflops", "500", "--host-ref-fwd", "600", "--host-ref-bwd", "1000"], pf, 64),
                            (TF + ["--host-ref-fwd", "600", "--host-ref-bwd", "1000"], nope, 65)):
    out = os.path.join(tmp, "bad.json")
    r = subprocess.run([fusim, "workload"] + args + ["--profile", profile, "--out", out], capture_output=True, text=True)
    lines = r.stderr.strip().splitlines()
    if r.returncode != want or len(lines) != 1 or os.path.exists(out):
        fails.append("%s: exit %d (want %d), %d stderr lines, output %s" % (
            args[-4:], r.returncode, want, len(lines), "written" if os.path.exists(out) else "none"))
finish()
PY
