#!/bin/sh
# cli_model_error.sh FUSIM: fit records the cost model's own error on the multi-node logs it was
# fitted on (cluster.model_error, model/fu_collerr.h), and fusim cost takes a model price's
# interval from it. Checked against the model's prices as fusim cost gives them with the measured
# curves dropped (an independent route: cost's envelope, not fit's code), quantiles recomputed
# here; a network borrowed from a base of another GPU is wide and says so; a profile without the
# key (written before it) keeps the nominal band.
fusim=$1
pub=${FUSIM_SHARED:?}/data/public-nccl-tests
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
T=$tmp
. "$(dirname "$0")/../lib.sh"
mn=$pub/multi-node

# the DGX H100 pair: 2 GPUs on one node and the 1+1 run
"$fusim" import --db "$tmp/d.db" --link nvlink "$mn/mghpcc-dgxh100-2gpu-1node-allreduce.txt" >/dev/null &&
  "$fusim" import --db "$tmp/d.db" "$mn/mghpcc-dgxh100-2gpu-2node-allreduce.txt" >/dev/null &&
  "$fusim" fit --db "$tmp/d.db" --no-store --out "$tmp/d.json" --name dgx11 >/dev/null 2>&1
if [ $? -eq 0 ]; then ok; else bad "fit of the DGX 1-node 2 and 1+1 logs failed"; fi

# the model's price of the 1+1 log's every size, its measured curve dropped
python3 - "$tmp/d.json" "$tmp/m.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["curves"] = [c for c in j["curves"] if c.get("nodes", 1) <= 1]
del j["cluster"]["model_error"]
json.dump(j, open(sys.argv[2], "w"))
PY
sizes=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF >= 6 {printf "%s%sB", s, $1; s = ","}' "$mn/mghpcc-dgxh100-2gpu-2node-allreduce.txt")
"$fusim" cost --profile "$tmp/m.json" --comm allreduce:2x1 --bytes "$sizes" --nccl-version 2.18.3 --format json \
  >"$tmp/price.json"
python3 - "$mn/mghpcc-dgxh100-2gpu-2node-allreduce.txt" "$tmp/price.json" "$tmp/d.json" <<'PY'
import json, math, sys
rows = [(int(t[0]), float(t[5])) for t in (l.split() for l in open(sys.argv[1]))
        if len(t) >= 6 and t[0].isdigit() and t[1].isdigit()]
pred = json.load(open(sys.argv[2]))
bands = [[], [], []]
for (b, t), p in zip(rows, pred):
    bands[0 if b < 2**20 else 1 if b < 2**26 else 2].append(math.log(t / p["time_us"]))
def q(v, f):  # linear between order statistics at (n - 1) f, as GSL's
    v = sorted(v); h = (len(v) - 1) * f; i = int(h)
    return v[i] + (h - i) * (v[min(i + 1, len(v) - 1)] - v[i])
got = json.load(open(sys.argv[3]))["cluster"]["model_error"]["multi_node"]
bad = [(k, g, len(v), q(v, .025), q(v, .975)) for k, (g, v) in enumerate(zip(got["bands"], bands))
       if g["n"] != len(v) or abs(g["ln_lo"] - q(v, .025)) > 1e-6 or abs(g["ln_hi"] - q(v, .975)) > 1e-6]
sys.exit(f"recorded {bad}" if bad or got["borrowed"] or len(rows) != len(pred) else 0)
PY
if [ $? -eq 0 ]; then ok; else bad "the recorded multi-node error is not the model's on the 1+1 log, band by band"; fi

# cost's interval of a predicted 2x2 price: the recorded error at that size, at least /1.25 .. x1.25
"$fusim" cost --profile "$tmp/d.json" --comm allreduce:2x2 --bytes 4MiB,1GiB --format json >"$tmp/c.json" &&
  python3 - "$tmp/c.json" "$tmp/d.json" <<'PY'
import json, math, sys
c = json.load(open(sys.argv[1]))
e = json.load(open(sys.argv[2]))["cluster"]["model_error"]["multi_node"]["bands"]
for p, b in zip(c, (e[1], e[2])):
    lo = min(p["time_us"] / 1.25, p["time_us"] * math.exp(b["ln_lo"]))
    hi = max(p["time_us"] * 1.25, p["time_us"] * math.exp(b["ln_hi"]))
    assert p["interval"] == "model_error" and abs(p["lo_us"] - lo) < 1e-6 * lo and abs(p["hi_us"] - hi) < 1e-6 * hi, p
PY
if [ $? -eq 0 ]; then ok; else bad "cost's interval of a predicted 2x2 price is not the recorded error"; fi
expect 0 "$fusim" cost --profile "$tmp/d.json" --comm allreduce:2x2 --bytes 4MiB
grep -q "interval from the fit's own multi-node logs" "$T/out" && ok || bad "cost's table does not say where the interval came from"

# a B200 node's one-node log with that profile as --base: the network is another GPU's, so the
# multi-node error is borrowed, widened: at least a factor of 2 either way, and cost says so
"$fusim" import --db "$tmp/b.db" --link nvlink "$mn/mit-b200-8gpu-1node-allreduce.txt" >/dev/null &&
  "$fusim" fit --db "$tmp/b.db" --no-store --out "$tmp/b.json" --name b200 --base "$tmp/d.json" >/dev/null 2>&1 &&
  "$fusim" cost --profile "$tmp/b.json" --comm allreduce:2x8 --bytes 1GiB --format json >"$tmp/bc.json" &&
  python3 - "$tmp/bc.json" "$tmp/b.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))[0]
e = json.load(open(sys.argv[2]))["cluster"]["model_error"]["multi_node"]
assert e["borrowed"] and "dgx11" in e["source"], e
assert p["interval"] == "borrowed" and p["lo_us"] <= p["time_us"] / 2 * (1 + 1e-9) and p["hi_us"] >= 2 * p["time_us"] * (1 - 1e-9), p
PY
if [ $? -eq 0 ]; then ok; else bad "a network borrowed from another GPU's base is not wide"; fi
expect 0 "$fusim" cost --profile "$tmp/b.json" --comm allreduce:2x8 --bytes 1GiB
grep -q "borrowed network: wide" "$T/out" && ok || bad "cost's table does not say the network is borrowed"

# a profile written before the key: the nominal band, said so
expect 0 "$fusim" cost --profile "$tmp/m.json" --comm allreduce:2x2 --bytes 1GiB --format json
python3 -c "
import json, sys; p = json.load(open(sys.argv[1]))[0]
sys.exit(not (p['interval'] == 'band' and abs(p['hi_us'] / p['time_us'] - 1.25) < 1e-9 and abs(p['time_us'] / p['lo_us'] - 1.25) < 1e-9))" "$T/out" &&
  ok || bad "a profile without model_error is not priced with the nominal band"

# a malformed key is bad data: one line naming it, exit 65
python3 -c "
import json, sys; j = json.load(open(sys.argv[1])); j['cluster']['model_error']['multi_node']['bands'][2]['ln_lo'] = 'x'
json.dump(j, open(sys.argv[2], 'w'))" "$tmp/d.json" "$tmp/bad.json"
refused 65 "cluster.model_error.multi_node.bands\[2\].ln_lo" "$fusim" cost --profile "$tmp/bad.json" --comm allreduce:2x2 --bytes 1GiB

finish cli_model_error
