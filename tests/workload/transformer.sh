#!/bin/sh
# fusim workload --transformer: parameter and tensor counts against published figures, and the
# roofline (--tflops) by hand; the per-operation model's bundled llama2_7b.json tensor list.
# usage: transformer.sh FUSIM
fusim=$1
fail=0
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
# csv_field FILE COLUMN: a column of `fusim workload --info --format csv` by header name.
csv_field() {
  "$fusim" workload --info "$1" --format csv | awk -F, -v c="$2" \
    'NR==1{for(i=1;i<=NF;i++) if($i==c) k=i} NR==2{print $k}'
}
eq() { [ "$2" = "$3" ] || { echo "FAIL: $1: got '$2', expected '$3'" >&2; fail=1; }; }

# Llama-2-7B: 291 tensors, 6,738,415,616 params (Meta), bf16 -> x2 bytes
L7="--layers 32 --hidden 4096 --heads 32 --ffn 11008 --gated-ffn --vocab 32000 --seq 4096 --micro-batch 1"
"$fusim" workload --transformer $L7 --tflops 989.4 --efficiency 0.5 --hbm-gbps 3840 --kernel-us 5 \
  --name llama2_7b_s4096 --out "$dir/l7.json" >/dev/null || { echo "FAIL: llama2-7b run" >&2; fail=1; }
eq "llama2-7b tensors" "$(csv_field "$dir/l7.json" tensors)" 291
eq "llama2-7b bytes" "$(csv_field "$dir/l7.json" total_bytes)" $((6738415616 * 2))
eq "llama2-7b kind" "$(csv_field "$dir/l7.json" kind)" estimated
# fp32 gradients double the bytes
"$fusim" workload --transformer $L7 --tflops 989.4 --grad-dtype fp32 --out "$dir/l7f.json" >/dev/null
eq "llama2-7b fp32 grads" "$(csv_field "$dir/l7f.json" total_bytes)" $((6738415616 * 4))

# Llama-3.2-1B, its head tied to the embedding (--arch llama --tied-embeddings; the per-operation
# builder): embedding 128256 x 2048 = 262,668,288; a layer q, o 2048^2 each, k, v 2048 x 512 each,
# gate, up, down 2048 x 8192 each, two norms of 2048 = 60,821,504, x 16; the final norm 2048:
# 1,235,814,400 params (the published 1.24B) in 1 + 16*9 + 1 = 146 tensors. Untied, lm_head adds
# a tensor of the embedding's size.
L32="--arch llama --layers 16 --hidden 2048 --heads 32 --kv-heads 8 --ffn 8192 --vocab 128256 --seq 2048 --micro-batch 1 --precision bf16"
"$fusim" workload --transformer $L32 --tied-embeddings --out "$dir/l32t.json" >/dev/null 2>&1 || { echo "FAIL: llama-3.2-1b tied run" >&2; fail=1; }
eq "llama-3.2-1b tied tensors" "$(csv_field "$dir/l32t.json" tensors)" 146
eq "llama-3.2-1b tied bytes" "$(csv_field "$dir/l32t.json" total_bytes)" $((1235814400 * 2))
"$fusim" workload --transformer $L32 --out "$dir/l32.json" >/dev/null 2>&1 || { echo "FAIL: llama-3.2-1b untied run" >&2; fail=1; }
eq "llama-3.2-1b untied tensors" "$(csv_field "$dir/l32.json" tensors)" 147
eq "llama-3.2-1b untied bytes" "$(csv_field "$dir/l32.json" total_bytes)" $(((1235814400 + 262668288) * 2))

# Llama-2-70B (grouped-query attention, 8 kv heads): 80*9+3 = 723 tensors, 68,976,648,192 params
"$fusim" workload --transformer --layers 80 --hidden 8192 --heads 64 --kv-heads 8 --ffn 28672 \
  --gated-ffn --vocab 32000 --seq 4096 --micro-batch 1 --tflops 500 --out "$dir/l70.json" >/dev/null
eq "llama2-70b tensors" "$(csv_field "$dir/l70.json" tensors)" 723
eq "llama2-70b bytes" "$(csv_field "$dir/l70.json" total_bytes)" $((68976648192 * 2))

# GPT-2 small style (biases, LayerNorm, tied embeddings, plain ffn; separate q,k,v where HF
# fuses them in c_attn; no learned positions here): per layer
# 4*(768*768+768) + (768*3072+3072) + (3072*768+768) + 2*2*768 = 7,087,872; x 12 layers
# + wte 50257*768 + final LN 2*768 = 123,653,376 = GPT-2's published 124,439,808 less wpe
# (1024*768 = 786,432). Tensors: 1 + 12*16 + 2 = 195.
"$fusim" workload --transformer --layers 12 --hidden 768 --heads 12 --ffn 3072 --vocab 50257 \
  --seq 1024 --micro-batch 8 --bias --layernorm --tied-embeddings --dtype fp32 --tflops 60 \
  --out "$dir/g2.json" >/dev/null
eq "gpt2-style tensors" "$(csv_field "$dir/g2.json" tensors)" 195
eq "gpt2-style bytes" "$(csv_field "$dir/g2.json" total_bytes)" $(((124439808 - 786432) * 4))

# The bundled llama2_7b.json (tools/gen_workloads.py: the per-operation builder, --arch llama)
# holds the same tensors, bytes and ready order as the roofline's Llama names.
"$fusim" workload --info "$dir/l7.json" --tensors --format csv | cut -d, -f1-3 >"$dir/a.csv"
"$fusim" workload --info llama2_7b --tensors --format csv | cut -d, -f1-3 >"$dir/b.csv"
cmp -s "$dir/a.csv" "$dir/b.csv" || { echo "FAIL: tensors differ from data/workloads/llama2_7b.json" >&2; fail=1; }
# The forward time follows the formula by hand for one layer count: with E=1 and no floors
# the time halves when the throughput doubles (pure compute-bound check on a large model).
f1=$("$fusim" workload --transformer $L7 --tflops 100 --hbm-gbps 1e9 --kernel-us 0 --out "$dir/x1.json" --format csv | awk -F, 'NR==2{print $6}')
f2=$("$fusim" workload --transformer $L7 --tflops 200 --hbm-gbps 1e9 --kernel-us 0 --out "$dir/x2.json" --format csv | awk -F, 'NR==2{print $6}')
awk -v a="$f1" -v b="$f2" 'BEGIN{r=a/b; exit !(r>1.999 && r<2.001)}' || { echo "FAIL: fwd $f1 vs $f2 not 2x" >&2; fail=1; }
# Forward FLOPs by hand: matrix params = 6,738,415,616 - 131,072,000 (the embedding is a
# lookup) - 65*4096 (norms) = 6,607,077,376; FLOPs = 2*that*4096 tokens + 32 layers *
# 4*4096^2*4096 (attention) = 6.2920e13; at 100 TFLOP/s with E = 1 that is fwd_us.
awk -v t="$f1" 'BEGIN{m=6738415616-131072000-65*4096; fl=2*m*4096+32*4*4096*4096*4096;
  want=fl/100e12*1e6; d=t-want; if(d<0)d=-d; exit !(d<=1e-6*want)}' ||
  { echo "FAIL: fwd_us $f1 is not FLOPs/100 TFLOP/s by hand" >&2; fail=1; }

# usage errors: 64
"$fusim" workload --transformer --layers 2 >/dev/null 2>&1; eq "missing hyper-parameters" $? 64
"$fusim" workload --transformer $L7 --heads 3 --tflops 1 >/dev/null 2>&1; eq "heads not dividing" $? 64
"$fusim" workload --transformer $L7 --kv-heads 5 --tflops 1 >/dev/null 2>&1; eq "kv-heads not dividing" $? 64
"$fusim" workload --transformer $L7 --dtype fp8 --tflops 1 >/dev/null 2>&1; eq "bad dtype" $? 64
"$fusim" workload --transformer $L7 --tflops nan >/dev/null 2>&1; eq "NaN tflops" $? 64
"$fusim" workload --transformer $L7 --efficiency 1.5 --tflops 1 >/dev/null 2>&1; eq "efficiency > 1" $? 64
# impossible hyper-parameters: one line on stderr, nothing written
for bad in "--layers 0" "--layers 2 --heads 3"; do
  "$fusim" workload --transformer $L7 $bad --out "$dir/bad.json" 2>"$dir/err" >/dev/null
  eq "$bad: exit" $? 64
  eq "$bad: one line" "$(wc -l <"$dir/err")" 1
  [ ! -e "$dir/bad.json" ] || { echo "FAIL: $bad wrote $dir/bad.json" >&2; fail=1; }
done
# --info --tensors --format csv keeps ready_us to the microsecond's millionth (%.6g printed
# 264288.386 as 264288) and quotes names
"$fusim" workload --info llama2_7b --tensors --format csv >"$dir/t.csv"
python3 -c "
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]
w = json.load(open(sys.argv[2]))
g = w['grads']
assert len(rows) == len(g), (len(rows), len(g))
for r, x in zip(rows, g):
    assert r[1] == x['name'] and int(r[2]) == x['bytes'] and abs(float(r[3]) - x['ready_us']) <= 1e-6, (r, x)
" "$dir/t.csv" "${FUSIM_SOURCE_ROOT:-$(dirname "$0")/../..}/data/workloads/llama2_7b.json" || { echo "FAIL: --tensors csv" >&2; fail=1; }

# --list --format csv quotes a data folder whose path has a comma (it printed it bare: 6 fields)
mkdir -p "$dir/a,b/workloads"
cp "$dir/l7.json" "$dir/a,b/workloads/l7.json"
FUSIM_DATADIR="$dir/a,b" "$fusim" workload --list --format csv >"$dir/list.csv"
python3 -c "
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert rows[0] == ['name', 'file', 'tensors', 'total_bytes', 'kind'], rows
assert rows[1][0] == 'l7' and rows[1][1] == sys.argv[2] and rows[1][2] == '291', rows  # the bundled ones after it
" "$dir/list.csv" "$dir/a,b/workloads/l7.json" || { echo "FAIL: --list csv with a comma in the path" >&2; fail=1; }

# hyper-parameters whose times are beyond what a workload may hold (1e12 us): refused in one
# line, exit 65, no file (it wrote one that --check and predict then refused to read)
"$fusim" workload --transformer --layers 10000 --hidden 65536 --heads 64 --ffn 262144 --vocab 1000000 \
  --seq 1000000 --micro-batch 1000 --tflops 1 --out "$dir/huge.json" >"$dir/out" 2>"$dir/err"
eq "times too large" $? 65
eq "times too large: one line" "$(wc -l <"$dir/err")" 1
eq "times too large: no file" "$(ls "$dir" | grep -c huge)" 0
# --- the per-operation model (issue 13) ---
root=${FUSIM_SOURCE_ROOT:-$(dirname "$0")/../..}
# impossible hyper-parameters: one line, exit 64, nothing written
# (--kv-heads 2: BERT has no grouped keys; --bias, --gated-ffn: custom's switches, not BERT's)
for bad in "--layers 0" "--heads 7" "--kv-heads 5" "--precision fp8" "--arch gpt3" "--dropout 1.5" "--optimizer lamb" \
           "--kv-heads 2" "--bias" "--gated-ffn"; do
  rm -f "$dir/bad.json"
  "$fusim" workload --transformer --arch bert --layers 2 --hidden 64 --heads 4 --ffn 256 --vocab 100 \
    --seq 16 --micro-batch 2 $bad --out "$dir/bad.json" >/dev/null 2>"$dir/err"
  eq "bad $bad: exit" $? 64
  eq "bad $bad: one line" "$(wc -l <"$dir/err")" 1
  eq "bad $bad: no file" "$(ls "$dir" | grep -c bad.json)" 0
done
"$fusim" workload --cnn alexnet --micro-batch 8 --out "$dir/bad.json" >/dev/null 2>&1; eq "unknown cnn" $? 64
# an unknown optimizer for --cnn: one line and 64 before any work (it built the model, warned, then 65)
"$fusim" workload --cnn resnet18 --micro-batch 8 --optimizer lamb --out "$dir/bad.json" >/dev/null 2>"$dir/err"
eq "cnn --optimizer lamb: exit" $? 64
eq "cnn --optimizer lamb: one line" "$(wc -l <"$dir/err")" 1
# ... and a workload already at --out (and --ops) is left as it was
echo kept >"$dir/old.json"; echo kept >"$dir/old.csv"
"$fusim" workload --transformer --arch llama --layers 2 --hidden 64 --heads 3 --ffn 256 --vocab 100 \
  --seq 16 --micro-batch 2 --out "$dir/old.json" --ops "$dir/old.csv" >/dev/null 2>&1
eq "bad --heads 3 over an old file: exit" $? 64
eq "bad --heads 3: the old --out and --ops kept" "$(cat "$dir/old.json" "$dir/old.csv")" "kept
kept"
# --info prints a file's memory breakdown and its peak against --profile's GPU memory: the bundled
# llama2_7b's peak against a GPU twice as large (fits, 50%) and one 2 GiB smaller (2 GiB over)
python3 - "$root" "$dir" <<'PY' || { echo "FAIL: profiles for --info" >&2; fail=1; }
import json, sys
root, tmp = sys.argv[1:]
peak = json.load(open(root + "/data/workloads/llama2_7b.json"))["memory"]["peak_bytes"]
prof = json.load(open(root + "/data/profiles/h200-default.json"))
dev = peak * 1.032 + 1.30 * 2**30  # the device: the allocator's reserve and the CUDA context beside it
for name, gpu in (("big", 2 * dev), ("small", dev - 2 * 2**30)):
    prof["gpu_mem_bytes"] = gpu
    json.dump(prof, open("%s/%s.json" % (tmp, name), "w"))
PY
eq "--info memory, GPU 2x the device need" "$("$fusim" workload --info llama2_7b --profile "$dir/big.json" | grep -c '^memory on device .*: fits (50%)$')" 1
eq "--info memory, GPU 2 GiB short of the device need" "$("$fusim" workload --info llama2_7b --profile "$dir/small.json" | grep -c '^memory on device .*: DOES NOT FIT, 2 GiB over$')" 1
# parameters in bf16 (2 bytes), AdamW: fp32 master weights and two fp32 moments (12 bytes a parameter)
eq "--info memory breakdown" "$("$fusim" workload --info llama2_7b | grep -c '^memory  *params 12.6 GiB, grads 12.6 GiB, optimizer 75.3 GiB')" 1
"$fusim" workload --info llama2_7b --profile "$dir/none.json" >"$dir/out" 2>"$dir/err"; eq "--info, missing profile" $? 66
eq "--info, missing profile: nothing on stdout" "$(wc -c <"$dir/out")" 0
# --profile serves only --info's table (its memory lines): with --format json or --tensors it is
# ignored, and a warning says so (it was ignored in silence)
for how in "--format json" "--tensors"; do
  "$fusim" workload --info llama2_7b $how --profile "$dir/big.json" >/dev/null 2>"$dir/err"
  eq "--info $how --profile: exit" $? 0
  eq "--info $how --profile: the warning" "$(grep -c "^fusim: warning: workload: --profile and --ops .*ignored here$" "$dir/err")" 1
done
"$fusim" workload --info llama2_7b --profile "$dir/big.json" >/dev/null 2>"$dir/err"
eq "--info --profile (the table): no warning" "$(wc -c <"$dir/err")" 0
# every real model of the comparison set: the builder's tensors are the captured model's, names and
# bytes (the capture listed what PyTorch allocated on the H200), and its summary prints memory
python3 - "$fusim" "$root" "$dir" <<'PY' || { echo "FAIL: builder tensors differ from the captured models" >&2; fail=1; }
import glob, json, os, subprocess, sys
fusim, root, tmp = sys.argv[1:4]
sys.path.insert(0, os.path.join(root, "tools"))
import compare_compute as cc
files = sorted(glob.glob(os.path.join(root, "data", "compute", "captures", "*.json")))
assert len(files) >= 6, files
# and the held-out-like shapes (ResNet-101 among them: 314 tensors, 44549160 parameters)
files += sorted(glob.glob(os.path.join(root, "data", "compute", "heldout-*", "*.json")))
# and the 2026-12-04m shapes never captured before (ResNet-152, BERT h384 fp32, Llama h2560 ...)
files += sorted(glob.glob(os.path.join(root, "data", "compute", "captures-2026-12-04m-fresh", "*.json")))
for f in files:
    cap = json.load(open(f))
    out = os.path.join(tmp, "m.json")
    r = subprocess.run([fusim, "workload"] + cc.args_for(cap["meta"]) + ["--out", out], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "memory peak" in r.stdout, r.stdout
    est = json.load(open(out))
    a = {g["name"]: g["bytes"] for g in cap["grads"]}
    b = {g["name"]: g["bytes"] for g in est["grads"]}
    assert a == b, (cap["name"], sorted(set(a) ^ set(b))[:5])
    m = est["memory"]
    assert m["params_bytes"] == sum(a.values()), cap["name"]  # fp32 parameters = fp32 gradients
PY
# the default profile's compute tables are reproducible from the committed calibration:
# fit --gemm-table (the GEMM sweep's SQL dump) + --compute (tools/calib_torch.py's JSONs)
python3 - "$fusim" "$root" "$dir" <<'PY' || { echo "FAIL: fit --gemm-table --compute does not reproduce the default profile's tables" >&2; fail=1; }
import glob, json, os, sqlite3, subprocess, sys
fusim, root, tmp = sys.argv[1:4]
sql = sorted(glob.glob(os.path.join(root, "data", "calibration", "h200-compute-*-gemm.sql")))[-1]
db = os.path.join(tmp, "gemm.db")
con = sqlite3.connect(db)
con.executescript(open(sql).read())
con.close()
base = os.path.join(tmp, "base.json")
json.dump({"format": "fusim-profile-1", "name": "t", "curves": []}, open(base, "w"))
r = subprocess.run([fusim, "fit", "--db", db, "--gemm-table", "--compute",
                    os.path.join(root, "data", "compute", "h200-calib-torch.json"), "--merge-into", base],
                   capture_output=True, text=True)
assert r.returncode == 0, r.stderr
# then the later partial calibrations in name order (tools/make_default_profile.sh does the same)
for f in sorted(glob.glob(os.path.join(root, "data", "compute", "h200-calib-torch-*.json"))):
    r = subprocess.run([fusim, "fit", "--compute", f, "--merge-into", base], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
got = json.load(open(base))
want = json.load(open(os.path.join(root, "data", "profiles", "h200-default.json")))
for k in ("gemm", "gemm_unaligned", "conv", "attention", "ops", "optimizer"):
    assert got["compute"].get(k) == want["compute"].get(k), k
assert got["gpu_mem_bytes"] == want["gpu_mem_bytes"]
PY
# --cnn prices convolutions from the profile's conv tables (cuDNN by class): in TF32 (no autocast
# casts added) ResNet-50's layer3.1.conv2 (3x3, 256 -> 256, 14 x 14 at batch 128: M = 25088,
# K = 2304) and the stem's weight gradient (7x7/2, 3 -> 64, 112 x 112: Cout 64, K = 147,
# M = 1605632) sit on measured grid points, so their times are the committed measurements less
# the profile's timer_overhead_us (what the calibration's per-call events added)
python3 - "$fusim" "$root" "$dir" <<'PY' || { echo "FAIL: --cnn does not price convolutions from the conv tables" >&2; fail=1; }
import csv, glob, json, os, subprocess, sys
fusim, root, tmp = sys.argv[1:4]
ops = os.path.join(tmp, "r.csv")
r = subprocess.run([fusim, "workload", "--cnn", "resnet50", "--micro-batch", "128", "--precision", "tf32",
                    "--out", os.path.join(tmp, "r.json"), "--ops", ops], capture_output=True, text=True)
assert r.returncode == 0, r.stderr
rows = {row["param"]: row for row in csv.DictReader(open(ops))}
def point(kernel, stride, layout, m, n, k):
    for f in sorted(glob.glob(os.path.join(root, "data", "compute", "h200-calib-torch-*.json"))):
        for t in json.load(open(f))["compute"].get("conv", []):
            if (t["dtype"], t["layout"], t["kernel"], t["stride"]) == ("tf32", layout, kernel, stride):
                i, j, q = t["m"].index(m), t["n"].index(n), t["k"].index(k)
                return t["us"][(i * len(t["n"]) + j) * len(t["k"]) + q]
T = json.load(open(os.path.join(root, "data", "profiles", "h200-default.json")))["compute"].get("timer_overhead_us", 0)
want_f = point(3, 1, "fwd", 25088, 256, 2304) - T
got_f = float(rows["layer3.1.conv2.weight"]["fwd_us"])
assert abs(got_f - want_f) <= 1e-3 + 1e-5 * want_f, (got_f, want_f)
want_w = point(7, 2, "wgrad", 64, 147, 1605632) - T  # the image needs no data gradient
got_w = float(rows["conv1.weight"]["bwd_us"])
assert abs(got_w - want_w) <= 1e-3 + 1e-5 * want_w, (got_w, want_w)
PY
# --cnn resnet101: ResNet-50's operations with more blocks; the host total measured on ResNet-50
# (tv_resnet50_held) sets one factor for both, so ResNet-50's host costs add up to that total and
# an operation both have costs the same host time in ResNet-101
python3 - "$fusim" "$root" "$dir" <<'PY' || { echo "FAIL: --cnn resnet101 host costs" >&2; fail=1; }
import csv, json, os, subprocess, sys
fusim, root, tmp = sys.argv[1:4]
prof = json.load(open(os.path.join(root, "data", "profiles", "h200-default.json")))
held = [o for o in prof["compute"]["ops"] if (o["op"], o["dtype"]) == ("tv_resnet50_held", "bf16")][0]
rows = {}
for m in ("resnet50", "resnet101"):
    ops = os.path.join(tmp, m + ".csv")
    r = subprocess.run([fusim, "workload", "--cnn", m, "--micro-batch", "64", "--out", os.path.join(tmp, m + ".json"),
                        "--ops", ops], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows[m] = list(csv.DictReader(open(ops)))
for k in ("host_fwd_us", "host_bwd_us"):  # the listing has 3 decimals per operation
    got = sum(float(r[k]) for r in rows["resnet50"])
    assert abs(got - held[k]) <= 0.0005 * len(rows["resnet50"]) + 1e-6, (k, got, held[k])
a = {r["param"]: r for r in rows["resnet50"] if r["param"]}
b = {r["param"]: r for r in rows["resnet101"] if r["param"]}
for name in ("conv1.weight", "layer1.0.conv1.weight", "layer3.5.conv2.weight", "fc.weight"):
    assert a[name]["host_fwd_us"] == b[name]["host_fwd_us"], name
assert len(b) > len(a) and "layer3.22.conv3.weight" in b and "layer3.6.conv1.weight" not in a
PY
# rotary_hf (the rotary step measured as HF lays it out: tools/calib_torch.py --parts ops_kv), where
# the profile has it, prices Llama's rotary step in place of the contiguous rotary table: a
# profile given a rotary_hf table (here 3x and 5x the rotary fp32 table's times, so that neither
# table can pass for the other) at T x (H + Hkv) = 1024 x 1024 = 2^20, a measured size: under
# autocast the bf16 table plus the cast back to bf16 for SDPA, in TF32 the fp32 table alone
python3 - "$fusim" "$root" "$dir" <<'PY' || { echo "FAIL: rotary_hf prices Llama's rotary step" >&2; fail=1; }
import csv, json, os, subprocess, sys
fusim, root, tmp = sys.argv[1:4]
prof = json.load(open(os.path.join(root, "data", "profiles", "h200-default.json")))
ops = prof["compute"]["ops"]
tab = {(o["op"], o["dtype"]): o for o in ops}
rot, cast = tab["rotary", "fp32"], tab["cast", "fp32"]
i = rot["numel"].index(2 ** 20)
T = prof["compute"].get("timer_overhead_us", 0)  # off every table lookup
for dt, k in (("bf16", 3), ("fp32", 5)):
    ops.append(dict(rot, op="rotary_hf", dtype=dt, fwd_us=[k * v for v in rot["fwd_us"]],
                    bwd_us=[k * v for v in rot["bwd_us"]]))
pf = os.path.join(tmp, "rot.json")
json.dump(prof, open(pf, "w"))
for prec, k, extra_f, extra_b in (("autocast-bf16", 3, cast["fwd_us"][i] - T, cast["bwd_us"][i] - T), ("tf32", 5, 0, 0)):
    csvf = os.path.join(tmp, "rot.csv")
    r = subprocess.run([fusim, "workload", "--transformer", "--arch", "llama", "--layers", "2", "--hidden", "512",
                        "--heads", "4", "--ffn", "1024", "--vocab", "1024", "--seq", "1024", "--micro-batch", "1",
                        "--precision", prec, "--profile", pf, "--ops", csvf, "--out", os.path.join(tmp, "rot.out")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = [x for x in csv.DictReader(open(csvf)) if x["op"] == "rotary_hf"]
    assert len(rows) == 2, (prec, len(rows))  # one per layer
    for x in rows:  # the listing has 3 decimals
        assert abs(float(x["fwd_us"]) - (k * rot["fwd_us"][i] - T + extra_f)) <= 0.001, (prec, x["fwd_us"])
        assert abs(float(x["bwd_us"]) - (k * rot["bwd_us"][i] - T + extra_b)) <= 0.001, (prec, x["bwd_us"])
PY
# hf_<arch>_pre_tiny (tools/calib_torch.py --parts hf_host: the rest's forward host time before the
# first layer is called) splits the rest: the operations before the first layer add up to it, those
# after the layers to rest - pre; backward's rest is not split. Without it the split follows the
# operations' own costs (the sums below add up to rest either way). A profile given the row at 0.4
# of the rest (Llama, bf16), read back from the --ops listing (3 decimals per operation).
python3 - "$fusim" "$root" "$dir" <<'PY' || { echo "FAIL: hf_<arch>_pre_tiny splits the rest's host time" >&2; fail=1; }
import csv, json, os, subprocess, sys
fusim, root, tmp = sys.argv[1:4]
prof = json.load(open(os.path.join(root, "data", "profiles", "h200-default.json")))
ops = prof["compute"]["ops"]
assert prof["compute"]["host_probe_us"] > 0  # the _tiny rows are the ones in use
rest = [o for o in ops if (o["op"], o["dtype"]) == ("hf_llama_rest_tiny", "bf16")][0]
pre = 0.4 * rest["host_fwd_us"]
ops.append({"op": "hf_llama_pre_tiny", "dtype": "bf16", "numel": [], "fwd_us": [], "bwd_us": [],
            "host_fwd_us": pre, "host_bwd_us": 0.0})
pf, csvf = os.path.join(tmp, "pre.json"), os.path.join(tmp, "pre.csv")
json.dump(prof, open(pf, "w"))
r = subprocess.run([fusim, "workload", "--transformer", "--arch", "llama", "--layers", "2", "--hidden", "512",
                    "--heads", "4", "--ffn", "1024", "--vocab", "1024", "--seq", "256", "--micro-batch", "1",
                    "--precision", "autocast-bf16", "--profile", pf, "--ops", csvf, "--out", os.path.join(tmp, "pre.out")], capture_output=True, text=True)
assert r.returncode == 0, r.stderr
rows = list(csv.DictReader(open(csvf)))
first = min(i for i, x in enumerate(rows) if x["layer"] != "-1")
before = [x for x in rows[:first]]
after = [x for x in rows[first:] if x["layer"] == "-1"]
tol = lambda n: 0.0005 * n + 1e-6
got_pre = sum(float(x["host_fwd_us"]) for x in before)
got_post = sum(float(x["host_fwd_us"]) for x in after)
assert abs(got_pre - pre) <= tol(len(before)), (got_pre, pre)
assert abs(got_post - (rest["host_fwd_us"] - pre)) <= tol(len(after)), (got_post, rest["host_fwd_us"] - pre)
got_b = sum(float(x["host_bwd_us"]) for x in before + after)
assert abs(got_b - rest["host_bwd_us"]) <= tol(len(before + after)), (got_b, rest["host_bwd_us"])
PY
# GPT-2's gelu_new under autocast runs in fp32: its input is cast up (bf16 -> fp32, the cast
# table's backward column: x.to(bf16)'s gradient is that copy) and its gradient cast down (the
# table's forward column); T x F = 1024 x 1024 = 2^20, a measured size, so the row is the
# gelu_new fp32 entry plus those two
python3 - "$fusim" "$root" "$dir" <<'PY' || { echo "FAIL: gelu_new's autocast casts" >&2; fail=1; }
import csv, json, os, subprocess, sys
fusim, root, tmp = sys.argv[1:4]
prof = json.load(open(os.path.join(root, "data", "profiles", "h200-default.json")))
# without a gelu_new_ac table (the profile has one since 2026-12-04b; it takes precedence)
prof["compute"]["ops"] = [o for o in prof["compute"]["ops"] if o["op"] != "gelu_new_ac"]
tab = {(o["op"], o["dtype"]): o for o in prof["compute"]["ops"]}
g, c = tab["gelu_new", "fp32"], tab["cast", "fp32"]
i = g["numel"].index(2 ** 20)
T = prof["compute"].get("timer_overhead_us", 0)  # off every table lookup
assert c["numel"][i] == 2 ** 20
csvf = os.path.join(tmp, "gelu.csv")
def gelu_rows(pf, op):
    """A one-layer GPT-2 under autocast priced with profile pf: its --ops rows of op."""
    r = subprocess.run([fusim, "workload", "--transformer", "--arch", "gpt2", "--layers", "1", "--hidden", "256", "--heads", "4",
                        "--ffn", "1024", "--vocab", "1024", "--seq", "1024", "--micro-batch", "1", "--precision", "autocast-bf16",
                        "--profile", pf, "--ops", csvf, "--out", os.path.join(tmp, "gelu.json")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return [x for x in csv.DictReader(open(csvf)) if x["op"] == op]
pf = os.path.join(tmp, "gelu_noac.json")
json.dump(prof, open(pf, "w"))
rows = gelu_rows(pf, "gelu_new")
assert len(rows) == 1, rows
assert abs(float(rows[0]["fwd_us"]) - (g["fwd_us"][i] + c["bwd_us"][i] - 2 * T)) <= 0.001, rows[0]
assert abs(float(rows[0]["bwd_us"]) - (g["bwd_us"][i] + c["fwd_us"][i] - 2 * T)) <= 0.001, rows[0]
# where the profile has gelu_new_ac (measured under autocast, its casts inside), that entry alone
# (a table put in the profile at 7x gelu_new fp32's times, so that neither can pass for the other)
prof["compute"]["ops"].append(dict(g, op="gelu_new_ac", dtype="bf16", fwd_us=[7 * v for v in g["fwd_us"]],
                                   bwd_us=[7 * v for v in g["bwd_us"]]))
pf = os.path.join(tmp, "gelu_ac.json")
json.dump(prof, open(pf, "w"))
rows = gelu_rows(pf, "gelu_new_ac")
assert len(rows) == 1, rows
assert abs(float(rows[0]["fwd_us"]) - (7 * g["fwd_us"][i] - T)) <= 0.001, rows[0]
assert abs(float(rows[0]["bwd_us"]) - (7 * g["bwd_us"][i] - T)) <= 0.001, rows[0]
PY
# add_mixed (a residual add as autocast runs it: fp32 stream + bf16 branch, tools/calib_torch.py
# ops_kv), where the profile has it, prices the layers' two residual adds under autocast, and not
# in TF32; a table put in the profile at 9x the fp32 add's times, T x H = 1024 x 1024 = 2^20
python3 - "$fusim" "$root" "$dir" <<'PY' || { echo "FAIL: add_mixed prices the residual adds under autocast" >&2; fail=1; }
import csv, json, os, subprocess, sys
fusim, root, tmp = sys.argv[1:4]
prof = json.load(open(os.path.join(root, "data", "profiles", "h200-default.json")))
add = [o for o in prof["compute"]["ops"] if (o["op"], o["dtype"]) == ("add", "fp32")][0]
i = add["numel"].index(2 ** 20)
T = prof["compute"].get("timer_overhead_us", 0)  # off every table lookup
prof["compute"]["ops"].append(dict(add, op="add_mixed", dtype="bf16", fwd_us=[9 * v for v in add["fwd_us"]],
                                   bwd_us=[9 * v for v in add["bwd_us"]]))
pf, csvf = os.path.join(tmp, "addm.json"), os.path.join(tmp, "addm.csv")
json.dump(prof, open(pf, "w"))
for arch in ("llama", "gpt2", "bert"):
    for prec, want in (("autocast-bf16", 2 * 2), ("tf32", 0)):
        r = subprocess.run([fusim, "workload", "--transformer", "--arch", arch, "--layers", "2", "--hidden", "1024",
                            "--heads", "8", "--ffn", "2048", "--vocab", "1024", "--seq", "1024", "--micro-batch", "1",
                            "--precision", prec, "--profile", pf, "--ops", csvf, "--out", os.path.join(tmp, "addm.out")],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        rows = [x for x in csv.DictReader(open(csvf)) if x["op"] == "add_mixed"]
        assert len(rows) == want, (arch, prec, len(rows))
        for x in rows:
            assert x["layer"] != "-1", x
            assert abs(float(x["fwd_us"]) - (9 * add["fwd_us"][i] - T)) <= 0.001, (arch, x)
PY
# autograd's gradient sums where a tensor feeds several operations, in adds of its size from the
# profile's add table (fp32 under autocast: the residual stream and HF's norm outputs): per Llama
# layer the residual twice (1 add each), q/k/v's shared input (2), gate/up's (1); per BERT layer
# the input into q, k, v and the residual (3), the norm's output (1). T x H = 1024 x 1024 = 2^20,
# a size the add table measured, so each add is that table entry.
python3 - "$fusim" "$root" "$dir" <<'PY' || { echo "FAIL: gradient sums (grad_sum) per layer" >&2; fail=1; }
import csv, json, os, subprocess, sys
fusim, root, tmp = sys.argv[1:4]
prof = json.load(open(os.path.join(root, "data", "profiles", "h200-default.json")))
add = [t for t in prof["compute"]["ops"] if t["op"] == "add" and t["dtype"] == "fp32"][0]
one = add["fwd_us"][add["numel"].index(1 << 20)] - prof["compute"].get("timer_overhead_us", 0)  # less the timer
for arch, want in (("llama", [1, 2, 1, 1]), ("bert", [3, 1])):
    ops = os.path.join(tmp, arch + ".csv")
    r = subprocess.run([fusim, "workload", "--transformer", "--arch", arch, "--layers", "2", "--hidden", "1024",
                        "--heads", "8", "--ffn", "2816", "--vocab", "32000", "--seq", "256", "--micro-batch", "4",
                        "--precision", "autocast-bf16", "--out", os.path.join(tmp, arch + ".json"), "--ops", ops],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = [float(row["bwd_us"]) for row in csv.DictReader(open(ops)) if row["op"] == "grad_sum" and row["layer"] == "0"]
    assert len(got) == len(want), (arch, got)
    for g, n in zip(got, want):
        assert abs(g - n * one) <= 1e-3 + 1e-6 * g, (arch, got, n * one)
PY
"$fusim" fit --gemm-table --db "$dir/none.db" --out "$dir/p.json" >/dev/null 2>&1; [ $? -ne 0 ] || { echo "FAIL: fit --gemm-table without a database" >&2; fail=1; }
"$fusim" fit --compute "$dir/m.json" --out "$dir/p.json" >/dev/null 2>&1; eq "fit --compute of a workload file" $? 65
# a budget-cut sweep (null points) merged over a whole table is said on stderr; a whole one is not
python3 - "$fusim" "$root" "$dir" <<'PY' || { echo "FAIL: fit --compute --merge-into of a GEMM table with null points" >&2; fail=1; }
import json, os, shutil, subprocess, sys
fusim, root, tmp = sys.argv[1:4]
base = os.path.join(tmp, "base.json")
shutil.copy(os.path.join(root, "data", "profiles", "h200-default.json"), base)
whole = next(t for t in json.load(open(base))["compute"]["gemm"] if (t["dtype"], t["layout"]) == ("bf16", "fwd"))
n = len(whole["us"])
for kept, warned in ((1, True), (n, False)):
    t = dict(whole, us=[u if i < kept else None for i, u in enumerate(whole["us"])])
    cal = os.path.join(tmp, "cut.json")
    json.dump({"format": "fusim-compute-1", "compute": {"gemm": [t]}}, open(cal, "w"))
    r = subprocess.run([fusim, "fit", "--compute", cal, "--merge-into", base], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    said = "gemm[0] (bf16 fwd) has %d timed points and replaces a table of %d" % (kept, n) in r.stderr
    assert said == warned, (kept, r.stderr)
    # a shape with no timed point around it: one line naming the product, exit 65
    r = subprocess.run([fusim, "workload", "--transformer", "--arch", "bert", "--layers", "2", "--hidden", "1024",
                        "--heads", "16", "--ffn", "4096", "--vocab", "30522", "--seq", "512", "--micro-batch", "8",
                        "--precision", "autocast-bf16", "--profile", base, "--out", os.path.join(tmp, "w.json")],
                       capture_output=True, text=True)
    if warned:
        assert r.returncode == 65 and len(r.stderr.strip().splitlines()) == 1, (r.returncode, r.stderr)
        assert "has no time for gemm bf16 fwd, " in r.stderr, r.stderr
    else:
        assert r.returncode == 0, r.stderr
    shutil.copy(os.path.join(root, "data", "profiles", "h200-default.json"), base)
PY
# The roofline builds --arch custom's decoder: --arch gpt2 with --tflops built Llama-named layers
# without a word (162M parameters for GPT-2 small's 124M); it counts no activations, so it writes
# no memory block (its peak passed a 964 GiB step as fitting 140 GiB)
"$fusim" workload --transformer --arch gpt2 --layers 2 --hidden 768 --heads 12 --ffn 3072 --vocab 50257 \
  --seq 1024 --micro-batch 8 --tflops 990 >/dev/null 2>"$dir/err"
eq "roofline with --arch gpt2: usage" $? 64
eq "roofline with --arch gpt2: one line" "$(wc -l <"$dir/err")" 1
"$fusim" workload --transformer $L7 --tflops 989.4 --out "$dir/rl.json" >/dev/null 2>&1 &&
  python3 -c "import json, sys; j = json.load(open(sys.argv[1])); sys.exit('memory' in j or 'Memory not estimated' not in j['notes'])" "$dir/rl.json"
eq "roofline: no memory block, said in the notes" $? 0

# no attention kernel runs a head narrower than 32 (FlashAttention pads up to its built sizes):
# 1024 heads of 1 cost what 1024 heads of 32 do (--head-dim 32; they were priced at 1/32 of it,
# below 8 heads of 128)
for hd in "" "--head-dim 32"; do
  # shellcheck disable=SC2086
  "$fusim" workload --transformer --arch llama --layers 2 --hidden 1024 --heads 1024 $hd --ffn 4096 --vocab 32000 \
    --seq 1024 --micro-batch 4 --ops "$dir/att${hd:+32}.csv" --out "$dir/att.json" >/dev/null 2>&1 || { echo "FAIL: head dim $hd" >&2; fail=1; }
done
python3 -c "
import csv, sys
t = [sum(float(r['fwd_us']) + float(r['bwd_us']) for r in csv.DictReader(open(f)) if r['op'] == 'attention') for f in sys.argv[1:]]
assert abs(t[0] / t[1] - 1) < 1e-9, t" "$dir/att.csv" "$dir/att32.csv" || { echo "FAIL: one-wide heads priced under 32-wide ones" >&2; fail=1; }

# The token count is never a GEMM's leading dimension: 1023 tokens a layer cost what 1024 do (every
# linear layer took the unaligned-vocabulary table, 9x slower: fwd 7753 against 4595 us), while
# an unaligned vocabulary (GPT-2's 50257) still takes it.
for sq in 1023 1024; do
  "$fusim" workload --transformer --arch llama --layers 2 --hidden 1024 --heads 8 --ffn 4096 --vocab 32000 \
    --seq $sq --micro-batch 4 --out "$dir/s$sq.json" >/dev/null 2>&1 || { echo "FAIL: seq $sq" >&2; fail=1; }
done
python3 -c "
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
r = (a['fwd_us'] + a['bwd_us']) / (b['fwd_us'] + b['bwd_us'])
assert 0.99 < r < 1.001, r" "$dir/s1023.json" "$dir/s1024.json" || { echo "FAIL: 1023 tokens priced unlike 1024" >&2; fail=1; }
for v in 50257 50304; do
  "$fusim" workload --transformer --arch gpt2 --layers 2 --hidden 768 --heads 12 --ffn 3072 --vocab $v \
    --seq 1024 --micro-batch 8 --out "$dir/v$v.json" >/dev/null 2>&1 || { echo "FAIL: vocab $v" >&2; fail=1; }
done
python3 -c "
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a['fwd_us'] > 1.2 * b['fwd_us'], (a['fwd_us'], b['fwd_us'])" "$dir/v50257.json" "$dir/v50304.json" ||
  { echo "FAIL: an unaligned vocabulary no longer takes the unaligned table" >&2; fail=1; }

exit $fail
