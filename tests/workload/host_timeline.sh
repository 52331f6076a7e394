#!/bin/sh
# fusim workload --transformer's host side, by hand on the --ops listing: the host calls
# backward() as soon as it has issued the forward (it does not wait for the GPU), --host-probe
# scales every host cost (the optimizer's per-tensor part too) by the probe's ratio to the
# profile's fastest reading (host_probe_min_us, not its median host_probe_us; fit --compute takes
# it from the calibration's recorded readings), --host-probe-bwd (the autograd thread's probe, a
# median) carries backward's host costs instead, over the profile's median probe, and the
# DynamicCache copies of
# GPT-2 and Llama are priced from the kv_cat tables. Profiles: the bundled one with hand-made
# additions (host_probe_us, kv_cat tables).
# usage: host_timeline.sh FUSIM
fusim=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
root=$(cd "$(dirname "$0")/../.." && pwd)
python3 - "$fusim" "$root" "$dir" <<'PY'
import functools, json, os, subprocess, sys
fusim, root, tmp = sys.argv[1:4]
sys.path.insert(0, os.path.join(root, "tests", "workload"))
import wlcheck  # noqa: E402
from wlcheck import fails, finish  # noqa: E402
check = functools.partial(wlcheck.check, rel=1e-6)
# the probe's median 7, its fastest reading 5: the scale is taken from the fastest
prof = wlcheck.profile(root, 7.0, 5.0)
# hand-made cache copy tables: 10 us (strided, bf16), 7 us (contiguous, fp32) at 2^20 elements
# (their backward, 1 us, is not used: cat's backward takes views)
# no reduce_split row: at these 1024 tokens it adds to the biased linears beyond the per-layer
# row checked in 6 (tests/workload/reduce_split.py checks it)
ops = [t for t in prof["compute"]["ops"] if not t["op"].startswith("kv_cat") and t["op"] != "reduce_split"]
for op, dt, us in (("kv_cat", "bf16", 10.0), ("kv_cat", "fp32", 30.0),
                   ("kv_cat_contig", "bf16", 3.0), ("kv_cat_contig", "fp32", 7.0)):
    ops.append({"op": op, "dtype": dt, "numel": [1 << 20], "fwd_us": [us], "bwd_us": [1.0],
                "host_fwd_us": 0.0, "host_bwd_us": 0.0})
# ResNet-50's whole-model host time held at a realistic size: 10 ms forward, 20 ms backward
ops = [t for t in ops if t["op"] != "tv_resnet50_held"]
ops.append({"op": "tv_resnet50_held", "dtype": "bf16", "numel": [], "fwd_us": [], "bwd_us": [],
            "host_fwd_us": 10000.0, "host_bwd_us": 20000.0})
prof["compute"]["ops"] = ops
# AdamW: 100 us base, 10 us per tensor (the host's), 1e-5 us per element (the device's)
for f in prof["compute"]["optimizer"]:
    if f["name"] == "adamw":
        f.update(base_us=100.0, per_tensor_us=10.0, per_elem_us=1e-5)
        for k in ("host_base_us", "host_per_tensor_us", "tail_frac", "host_probe_us", "prologue_frac", "tail_us"):
            f.pop(k, None)   # a fit of the older kind (tests/workload/optim_step.sh: the newer)
pf = os.path.join(tmp, "p.json")
json.dump(prof, open(pf, "w"))

def run(arch, extra=()):
    return wlcheck.workload(fusim, wlcheck.tf_args(arch) + list(extra), pf, tmp)

# 1. --host-probe 50 against the profile's 5: every host cost x10
w1, r1 = run("bert")
w2, r2 = run("bert", ["--host-probe", "50"])
if r1 and r2:
    for col in ("host_fwd_us", "host_bwd_us"):
        # the listing prints 3 decimals: each row is off by up to 0.0005, x10 on the right side
        check("bert %s sum x10" % col, sum(float(x[col]) for x in r2), 10 * sum(float(x[col]) for x in r1),
              11 * 0.0005 * len(r1))
# 1b. --host-probe-bwd 21 against the profile's median probe 7: backward's host costs x3,
#     forward's still x10 by --host-probe
w2b, r2b = run("bert", ["--host-probe", "50", "--host-probe-bwd", "21"])
if r1 and r2b:
    for col, k in (("host_fwd_us", 10), ("host_bwd_us", 3)):
        check("bert %s sum x%d with --host-probe-bwd" % (col, k), sum(float(x[col]) for x in r2b),
              k * sum(float(x[col]) for x in r1), (k + 1) * 0.0005 * len(r1))
# 2. at 1000x the host issues every operation long after the GPU finished the one before, so
#    forward = all forward host time + the last operation's device time; the host starts
#    backward then, while the GPU still runs that last operation, and backward ends with the
#    first operation's backward (the embedding, after its host cost):
#    bwd = all backward host time - last forward op's device time + first op's backward
w3, r3 = run("bert", ["--host-probe", "5000"])
if r3:
    hf = sum(float(x["host_fwd_us"]) for x in r3)
    hb = sum(float(x["host_bwd_us"]) for x in r3)
    check("host-bound forward", w3["fwd_us"], hf + float(r3[-1]["fwd_us"]), 0.05)
    check("host-bound backward", w3["bwd_us"], hb - float(r3[-1]["fwd_us"]) + float(r3[0]["bwd_us"]), 0.05)
    # the optimizer's host part follows the host's speed too (x1000), less the GPU's lead when
    # backward ends (the first operation's backward, which the GPU runs after the host's last
    # issue): 100 + 1e-5 x elements + 1000 x 10 us x tensors - lead
    nt = len(w3["grads"])
    ne = sum(g["bytes"] for g in w3["grads"]) / 4.0   # fp32 gradients under autocast
    check("host-bound optimizer", w3["opt_us"], 100 + 1e-5 * ne + 1000 * 10.0 * nt - float(r3[0]["bwd_us"]), 0.05)
# 2b. --host-probe-bwd 7000 over the median 7 is backward at 1000x too: the same step as 2 (over
#     the fastest reading, 5, it would be 1400x); the optimizer's host part follows --host-probe
w3b, _ = run("bert", ["--host-probe", "5000", "--host-probe-bwd", "7000"])
if w3 and w3b:
    for k in ("fwd_us", "bwd_us", "opt_us"):
        check("--host-probe-bwd at the median: %s" % k, w3b[k], w3[k])
    if "priced at the two threads' probes' (--host-probe, --host-probe-bwd)" not in w3b["notes"]:
        fails.append("--host-probe-bwd: the notes do not say how the host's speed was set: %s" % w3b["notes"][-300:])
# 2c. --host-probe-bwd alone (forward's speed unknown): one line, exit 64, nothing written
bad = os.path.join(tmp, "bad.json")
r = subprocess.run([fusim, "workload"] + wlcheck.tf_args("bert") + ["--host-probe-bwd", "7", "--profile", pf,
                                                                    "--out", bad], capture_output=True, text=True)
if r.returncode != 64 or len(r.stderr.strip().splitlines()) != 1 or os.path.exists(bad):
    fails.append("--host-probe-bwd alone: exit %d (want 64), stderr %r, output %s"
                 % (r.returncode, r.stderr, "written" if os.path.exists(bad) else "none"))
# 3. the DynamicCache copies: one kv_cache row per layer, forward only; GPT-2 copies two strided
#    bf16 tensors (2 x 10 us), Llama its keys contiguous in fp32 (the rotary step's output under
#    autocast, 7 us) and its values strided in bf16 (10 us); BERT has none
for arch, want in (("gpt2", 20.0), ("llama", 17.0), ("bert", None)):
    _, rows = run(arch)
    if rows is None:
        continue
    kv = [x for x in rows if x["op"] == "kv_cache"]
    if want is None:
        if kv:
            fails.append("bert: kv_cache rows %d, expected none" % len(kv))
        continue
    if [x["layer"] for x in kv] != ["0", "1"]:
        fails.append("%s: kv_cache rows in layers %s, expected 0 and 1" % (arch, [x["layer"] for x in kv]))
    for x in kv:
        check("%s kv_cache fwd" % arch, float(x["fwd_us"]), want)
        check("%s kv_cache bwd" % arch, float(x["bwd_us"]), 0.0)
# 4. --cnn: the operations' host costs add up to the whole model's held measurement, x2 at
#    --host-probe 10; backward's x3 with --host-probe-bwd 21 (over the median 7)
for extra, kf, kb in (([], 1, 1), (["--host-probe", "10"], 2, 2), (["--host-probe", "10", "--host-probe-bwd", "21"], 2, 3)):
    _, rows = wlcheck.workload(fusim, ["--cnn", "resnet50", "--micro-batch", "8"] + extra, pf, tmp)
    if rows is None:
        continue
    check("cnn host forward sum %s" % extra, sum(float(x["host_fwd_us"]) for x in rows), kf * 10000.0, 0.5)
    check("cnn host backward sum %s" % extra, sum(float(x["host_bwd_us"]) for x in rows), kb * 20000.0, 0.5)
# 6. which per-layer host row: with a probe in the profile the hf_host run's (hf_bert_layer_tiny,
#    measured beside it), without one the hf part's (hf_bert_layer); layer 0's host costs add
#    up to the row
def layer_row(op):
    return [t for t in prof["compute"]["ops"] if t["op"] == op and t["dtype"] == "bf16"][0]
def layer0(rows):
    return [sum(float(x[c]) for x in rows if x["layer"] == "0") for c in ("host_fwd_us", "host_bwd_us")]
if r1:
    t = layer_row("hf_bert_layer_tiny")
    got = layer0(r1)
    check("layer 0 host fwd = hf_bert_layer_tiny", got[0], t["host_fwd_us"], 0.01)
    # backward: the real-shape row where the profile has one (workload_hf_shape), else the tiny row
    ts = [o for o in prof["compute"]["ops"] if o["op"] == "hf_bert_layer_shape" and o["dtype"] == "bf16"]
    check("layer 0 host bwd = hf_bert_layer_shape or _tiny", got[1], (ts[0] if ts else t)["host_bwd_us"], 0.01)
del prof["compute"]["host_probe_us"], prof["compute"]["host_probe_min_us"]
json.dump(prof, open(pf, "w"))
_, r0 = run("bert")
if r0:
    t = layer_row("hf_bert_layer")
    got = layer0(r0)
    check("layer 0 host fwd = hf_bert_layer", got[0], t["host_fwd_us"], 0.01)
    check("layer 0 host bwd = hf_bert_layer", got[1], t["host_bwd_us"], 0.01)
prof["compute"]["host_probe_us"], prof["compute"]["host_probe_min_us"] = 7.0, 5.0
json.dump(prof, open(pf, "w"))
# 5. GPT-2's q/k/v split: backward concatenates the three gradients, a contiguous copy of
#    T x 3H bf16 elements (read and written: 2 x 2 x 1024 x 3072 bytes), priced as the cast
#    table's traffic (6 bytes an element): 2^21 cast elements, log-log between the table's
#    2^20 and 2^22 points, i.e. their geometric mean
cast = [t for t in prof["compute"]["ops"] if t["op"] == "cast" and t["dtype"] == "fp32"][0]
i = cast["numel"].index(1 << 20)
assert cast["numel"][i + 1] == 1 << 22
want = (cast["fwd_us"][i] * cast["fwd_us"][i + 1]) ** 0.5
_, rows = run("gpt2")
if rows:
    sp = [x for x in rows if x["op"] == "qkv_split"]
    if len(sp) != 2:
        fails.append("gpt2: %d qkv_split rows, expected 2" % len(sp))
    for x in sp:
        check("gpt2 qkv_split bwd", float(x["bwd_us"]), want)
        check("gpt2 qkv_split fwd", float(x["fwd_us"]), 0.0)
# 7. fit --compute: a calibration's probe carries its fastest recorded reading into the profile
#    (min of diag.hf_host.probes_us: 4.5), or the one it states; a newer probe without either
#    leaves none (the median is used then)
cal = os.path.join(tmp, "cal.json")
merged = os.path.join(tmp, "merged.json")
for comp, want in (({"host_probe_us": 6.0, "diag": {"hf_host": {"probes_us": [6.0, 4.5, 9.1]}}}, 4.5),
                   ({"host_probe_us": 6.0, "host_probe_min_us": 5.5, "diag": {"hf_host": {"probes_us": [4.5]}}}, 5.5),
                   ({"host_probe_us": 6.0}, None)):
    json.dump(prof, open(merged, "w"))
    json.dump({"format": "fusim-compute-1", "compute": comp}, open(cal, "w"))
    r = subprocess.run([fusim, "fit", "--compute", cal, "--merge-into", merged], capture_output=True, text=True)
    if r.returncode != 0:
        fails.append("fit --compute %s: exit %d: %s" % (comp, r.returncode, r.stderr.strip()))
        continue
    got = json.load(open(merged))["compute"]
    if got.get("host_probe_us") != 6.0 or got.get("host_probe_min_us") != want:
        fails.append("fit --compute %s: host_probe_us %s, host_probe_min_us %s (expected 6.0, %s)"
                     % (comp, got.get("host_probe_us"), got.get("host_probe_min_us"), want))
finish()
PY
st=$?
# --host-probe with a profile that has no probe, and a bad probe in a profile: one line, exit 65
python3 -c '
import json, sys
p = json.load(open(sys.argv[1])); p["compute"].pop("host_probe_us", None); json.dump(p, open(sys.argv[2], "w"))
p["compute"]["host_probe_us"] = -1; json.dump(p, open(sys.argv[3], "w"))
p["compute"]["host_probe_us"], p["compute"]["host_probe_min_us"] = 5, 6; json.dump(p, open(sys.argv[4], "w"))' \
  "$root/data/profiles/h200-default.json" "$dir/none.json" "$dir/bad.json" "$dir/badmin.json"
for p in none bad badmin; do
  "$fusim" workload --transformer --arch bert --layers 1 --hidden 64 --heads 2 --ffn 256 --vocab 128 --seq 16 \
    --micro-batch 1 --profile "$dir/$p.json" --host-probe 5 --out "$dir/x.json" 2>"$dir/err" >/dev/null
  rc=$?
  if [ $rc -ne 65 ] || [ "$(wc -l <"$dir/err")" -ne 1 ] || [ -s "$dir/x.json" ]; then
    echo "FAIL: --host-probe with profile '$p': exit $rc (want 65), $(wc -l <"$dir/err") lines: $(cat "$dir/err")" >&2
    st=1
  fi
done
exit $st
