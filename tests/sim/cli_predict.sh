#!/bin/sh
# cli_predict.sh FUSIM: fusim predict end to end on a hand-made profile (data/test-profile.json:
# all-reduce 20 us + n / 100 GB/s, HBM copy 5 us + n / 2000 GB/s) and a 3-gradient workload
# (data/tiny.json: fwd 1000, bwd 3000, opt 50; 1, 3, 4 MiB ready at 1000, 2000, 3000).
# Expected values by hand:
#   overlap off, none:  4050 + 3 x 20 + 8 MiB / 100 GB/s            = 4193.886080
#     its interval (alpha 18..22, beta +-10%): 4050 + 54 + 75.497472 = 4179.497472 .. 4208.274688
#     data/tiny_rel.json (the same, estimated with compute_rel 0.02): compute -+ 0.02 x 4050 = 81 us
#     beside the ops' 14.388608 in quadrature, 82.268050: 4111.618030 .. 4276.154130
#   overlap on, none:   op 2 starts when backward ends (4000): 4000 + 20 + 41.94304 + 50 = 4111.94304
#   single, copy:       4000 + pack 9.194304 + 103.88608 + unpack 9.194304 + 50 = 4172.274688
# plus usage errors (64), a missing workload (66), a bad profile (65), storing (one row per
# prediction; none with --no-store; none after an error), the trace file, and the memory warning.
set -u
fusim=$1
here=$(cd "$(dirname "$0")" && pwd)
prof=$here/data/test-profile.json
wl=$here/data/tiny.json
tmp=$(mktemp -d /tmp/fusim-cli-predict.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
T=$tmp
. "$(dirname "$0")/../lib.sh"
p() { "$fusim" predict --workload "$wl" --profile "$prof" "$@"; }

"$fusim" predict --help >"$tmp/help" 2>&1; check "--help exits 0" $?
grep -q -- "--comm-streams" "$tmp/help"; check "--help lists --comm-streams" $?

p --overlap off --no-store --format json >"$tmp/off.json"; check "overlap off runs" $?
near "$(field "$tmp/off.json" iter_us)" 4193.886080 1e-6; check "overlap off = fwd+bwd+sum(op)+opt" $?
near "$(field "$tmp/off.json" iter_lo_us)" 4179.497472 1e-6; check "iter_lo_us from CI bounds" $?
near "$(field "$tmp/off.json" iter_hi_us)" 4208.274688 1e-6; check "iter_hi_us from CI bounds" $?
python3 - "$tmp/off.json" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
need = ["iter_us", "compute_us", "comm_us", "exposed_comm_us", "n_ops", "fusion_buffer_bytes",
        "bus_util", "sim_events", "iter_lo_us", "iter_hi_us", "overlap_frac", "plan", "buckets"]
missing = [k for k in need if k not in o]
sys.exit(1 if missing or o["n_ops"] != 3 or len(o["buckets"]) != 3 else 0)
PY
check "json has the contract keys and 3 buckets" $?

"$fusim" predict --workload "$here/data/tiny_rel.json" --profile "$prof" --overlap off --no-store \
  --format json >"$tmp/rel.json"; check "an estimate with compute_rel runs" $?
near "$(field "$tmp/rel.json" iter_us)" 4193.886080 1e-6; check "compute_rel leaves iter_us" $?
near "$(field "$tmp/rel.json" iter_lo_us)" 4111.618030 1e-6; check "iter_lo_us: compute and ops in quadrature" $?
near "$(field "$tmp/rel.json" iter_hi_us)" 4276.154130 1e-6; check "iter_hi_us: compute and ops in quadrature" $?
# compute_rel out of [0, 1), not a number, or beside a host timeline: one line, exit 65
for bad in 1 -0.1 '"0.1"' null; do
  sed "s/\"compute_rel\": 0.02/\"compute_rel\": $bad/" "$here/data/tiny_rel.json" >"$tmp/bad_rel.json"
  refused 65 "compute_rel: not a number from 0 to below 1" "$fusim" predict --workload "$tmp/bad_rel.json" \
    --profile "$prof" --no-store
done
python3 -c "import json, sys; w = json.load(open(sys.argv[1])); w['compute_rel'] = 0.1; json.dump(w, open(sys.argv[2], 'w'))" \
  "$here/data/host2.json" "$tmp/host_rel.json"
refused 65 "compute_rel: not with a host timeline" "$fusim" predict --workload "$tmp/host_rel.json" --profile "$prof" --no-store

p --overlap on --no-store --format json >"$tmp/on.json"
near "$(field "$tmp/on.json" iter_us)" 4111.94304 1e-6; check "overlap on = last bucket's tail" $?
p --fusion single --no-store --format json >"$tmp/single.json"
near "$(field "$tmp/single.json" iter_us)" 4172.274688 1e-6; check "single bucket with pack/unpack" $?
[ "$(field "$tmp/single.json" fusion_buffer_bytes)" = 8388608 ]; check "fusion buffer = 8 MiB" $?
p --fusion single --pack view --no-store --format json >"$tmp/view.json"
[ "$(field "$tmp/view.json" fusion_buffer_bytes)" = 0 ]; check "view needs no fusion buffer" $?

printf '{"fusion": "single", "overlap": "off"}\n' >"$tmp/plan.json"
p --plan "$tmp/plan.json" --pack view --no-store --format csv >"$tmp/plan.csv"; check "plan file + flag" $?
grep -q '^tiny3,single overlap=off pack=view' "$tmp/plan.csv"; check "plan file keys and flag override" $?
# A plan file's buckets:FILE is read beside the plan file (it was looked up in the current
# folder only); the one-bucket list gives single's time with pack=view: 4000 + 103.88608 + 50.
mkdir "$tmp/plans"
python3 -c "import json, sys; json.dump([[g['name'] for g in json.load(open(sys.argv[1]))['grads']]], open(sys.argv[2], 'w'))" "$wl" "$tmp/plans/one.json"
printf '{"fusion": "buckets:one.json", "pack": "view"}\n' >"$tmp/plans/plan.json"
p --plan "$tmp/plans/plan.json" --no-store --format json >"$tmp/bplan.json"; check "plan file's bucket file beside it" $?
near "$(field "$tmp/bplan.json" iter_us)" 4153.88608 1e-6; check "bucket file from the plan file = single, view" $?

p --no-store --format table >"$tmp/t.txt"; check "table output" $?
grep -q 'stem.weight' "$tmp/t.txt"; check "table has the per-bucket rows" $?

# Errors: usage 64, missing input 66, bad data 65; the database is left alone.
p --fusion cap:0 --db "$tmp/e.db" >/dev/null 2>"$tmp/err"; [ $? -eq 64 ]; check "cap:0 -> 64" $?
p --bogus >/dev/null 2>&1; [ $? -eq 64 ]; check "unknown option -> 64" $?
p --format xml >/dev/null 2>&1; [ $? -eq 64 ]; check "bad --format -> 64" $?
"$fusim" predict --workload "$tmp/nope.json" --profile "$prof" --no-store >/dev/null 2>&1
[ $? -eq 66 ]; check "missing workload -> 66" $?
printf '{"format": "fusim-profile-1", "name": "x", "curves": []}\n' >"$tmp/empty.json"
"$fusim" predict --workload "$wl" --profile "$tmp/empty.json" --db "$tmp/e.db" >/dev/null 2>"$tmp/err"
[ $? -eq 65 ]; check "profile without the curve -> 65" $?
[ "$(wc -l <"$tmp/err")" -eq 1 ]; check "one line on stderr" $?
# A curve whose last (open-ended) segment has beta <= 0 (fitted to latency-bound sizes only)
# priced large operations at 0 us and 100% of the bus; predict refuses it in one line (65).
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
d['curves'][0]['segments'][0]['beta_us_per_byte'] = -1e-06
json.dump(d, open(sys.argv[2], 'w'))" "$prof" "$tmp/negbeta.json"
"$fusim" predict --workload "$wl" --profile "$tmp/negbeta.json" --no-store >"$tmp/out" 2>"$tmp/err"
[ $? -eq 65 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "no bandwidth term" "$tmp/err"
check "profile whose last segment has beta <= 0 -> 65, one line" $?
[ ! -e "$tmp/e.db" ] || [ "$(sql "$tmp/e.db" 'select count(*) from predictions')" = 0 ]
check "no prediction stored after errors" $?

# Storing: two predictions -> two rows; --no-store -> none more.
p --db "$tmp/s.db" --format csv >/dev/null && p --fusion single --db "$tmp/s.db" --format csv >/dev/null
check "stores" $?
p --db "$tmp/s.db" --no-store --format csv >/dev/null
n=$(python3 -c "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from predictions').fetchone()[0])" "$tmp/s.db")
[ "$n" = 2 ]; check "two rows stored (got $n)" $?

# Trace: valid JSON with tracks, slices, flow arrows (one per gradient).
p --no-store --comm-streams 2 --trace "$tmp/trace.json" --format csv >/dev/null; check "trace written" $?
python3 - "$tmp/trace.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
need = {"host thread", "compute stream", "comm stream 0", "comm stream 1", "D2H copy engine",
        "H2D copy engine"}
ok = need <= names and sum(e["ph"] == "s" for e in ev) == 3 and sum(e["ph"] == "f" for e in ev) == 3
ok = ok and any(e["ph"] == "X" and e["name"].startswith("allreduce b2") for e in ev)
ok = ok and any(e["ph"] == "C" and e["name"] == "link nvlink" for e in ev)
sys.exit(0 if ok else 1)
PY
check "trace has tracks, named buckets, flows, link counter" $?

# A long gradient name in a multi-byte script: each slice names it whole (a fixed 192-byte
# buffer cut it inside a UTF-8 character, Jansson refused the slice and predict exited 70 with
# no message and no trace).
python3 - "$wl" "$tmp/utf8.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
w["grads"][0]["name"] = "a" * 183 + "\u00e9" * 10
json.dump(w, open(sys.argv[2], "w"), ensure_ascii=False)
PY
"$fusim" predict --workload "$tmp/utf8.json" --profile "$prof" --no-store --trace "$tmp/utf8-trace.json" \
  --format csv >/dev/null 2>"$tmp/utf8.err"; check "trace of a long UTF-8 gradient name written" $?
python3 - "$tmp/utf8-trace.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1], encoding="utf-8"))["traceEvents"]
full = "a" * 183 + "\u00e9" * 10
sys.exit(0 if any(e["ph"] == "X" and e["name"] == "bwd -> " + full for e in ev) else 1)
PY
check "the slice names the gradient whole" $?


# The three printers read one fu_result: table (0.1 us), CSV (0.001 us) and JSON give the same
# numbers, summary and per bucket (cap:3MiB on tiny: buckets [1 MiB, 3 MiB], [4 MiB]).
p --fusion cap:3MiB --no-store --format json >"$tmp/agree.json" &&
  p --fusion cap:3MiB --no-store --format csv >"$tmp/agree.csv" &&
  p --fusion cap:3MiB --no-store --format csv --buckets >"$tmp/agree_b.csv" &&
  p --fusion cap:3MiB --no-store >"$tmp/agree.txt"; check "cap:3MiB in three formats" $?
python3 - "$tmp/agree.json" "$tmp/agree.csv" "$tmp/agree_b.csv" "$tmp/agree.txt" <<'PY'
import csv, json, re, sys
j = json.load(open(sys.argv[1]))
row = list(csv.DictReader(open(sys.argv[2])))[0]
bk = list(csv.DictReader(open(sys.argv[3])))
txt = open(sys.argv[4]).read()
assert len(j["buckets"]) == 2 == len(bk), (j["buckets"], bk)
for k in ["iter_us", "iter_lo_us", "iter_hi_us", "compute_us", "comm_us", "exposed_comm_us"]:
    assert abs(float(row[k]) - j[k]) <= 5e-4, k
for k in ["n_ops", "fusion_buffer_bytes", "sim_events"]:
    assert int(row[k]) == j[k], k
assert row["plan"] == j["plan"] and row["comm"] == j["comm"]
for b, c in zip(j["buckets"], bk):
    for k in ["ready_us", "start_us", "end_us", "pack_us", "comm_us", "busbw_gbps"]:
        assert abs(float(c[k]) - b[k]) <= 5e-4, (k, c[k], b[k])
    assert c["last_tensor"] == b["last_tensor"] and int(c["bytes"]) == b["bytes"]
m = re.search(r"iteration\s+([\d.]+) us\s+\[([\d.]+), ([\d.]+)\]", txt)
assert m and all(abs(float(g) - j[k]) <= 0.05 for g, k in zip(m.groups(), ["iter_us", "iter_lo_us", "iter_hi_us"]))
m = re.search(r"communication\s+([\d.]+) us in (\d+) ops \(\+ ([\d.]+) us pack", txt)
assert m and abs(float(m.group(1)) - j["comm_us"]) <= 0.05 and int(m.group(2)) == j["n_ops"]
assert abs(float(m.group(3)) - j["pack_us"]) <= 0.05 and j["pack_us"] > 0
table = [l.split() for l in txt.splitlines() if re.match(r"\s+\d+\s+\d+\s", l)]
assert len(table) == 2, table
for t, b in zip(table, j["buckets"]):
    # bucket tensors bytes(2 words) ready start end pack comm busbw last
    assert int(t[1]) == b["tensors"] and t[-1] == b["last_tensor"]
    for v, k in zip(t[4:10], ["ready_us", "start_us", "end_us", "pack_us", "comm_us", "busbw_gbps"]):
        assert abs(float(v) - b[k]) <= 0.05, (k, v, b[k])
PY
check "table, csv and json print the same numbers" $?

# Plan specs (issue 12): a size needs a unit, hex is refused, Horovod's cycle is bounded (one
# line, 64, at once: 1e-20 used to hang), ranks 1 and NODESxGPUS parse.
for bad in "cap:25|say 25MiB or 25B" "cap:0x10|hexadecimal" "horovod:64MiB,1e-20|outside 1us" \
           "horovod:64MiB,0|outside 1us" "horovod:64MiB,2h|cycle time"; do
  spec=${bad%%|*} says=${bad#*|}
  timeout 10 "$fusim" predict --workload "$wl" --profile "$prof" --fusion "$spec" --no-store >/dev/null 2>"$tmp/err"
  [ $? -eq 64 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "$says" "$tmp/err"
  check "--fusion $spec refused in one line ($says)" $?
done
"$fusim" predict --workload "$wl" --profile "$prof" --comm offload:2 --no-store >/dev/null 2>"$tmp/err"
[ $? -eq 64 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "offload takes no ranks or link" "$tmp/err"
check "--comm offload:2 refused in one line that says why (it called offload an unknown operation)" $?
p --fusion horovod:1MiB,2 --no-store --format csv >"$tmp/hv.csv"; check "horovod cycle without unit runs" $?
grep -q 'horovod:1MiB,2ms' "$tmp/hv.csv"; check "horovod cycle without unit is ms" $?
# issue 12's case: horovod:64MiB,3.5 is 3.5 ms as HOROVOD_CYCLE_TIME=3.5 (it was 3.5 us)
p --fusion horovod:64MiB,3.5 --no-store --format csv >"$tmp/hv.csv" && grep -q 'horovod:64MiB,3500us' "$tmp/hv.csv"
check "horovod:64MiB,3.5 is a 3.5 ms cycle (3500 us)" $?
p --comm allreduce:1:nvlink --no-store --format csv >"$tmp/r1.csv"; check "--comm allreduce:1:nvlink runs" $?
grep -q ',allreduce:1:nvlink,' "$tmp/r1.csv"; check "ranks 1 in the output" $?
"$fusim" predict --workload "$wl" --profile "$prof" --comm allreduce:2x8 --no-store >/dev/null 2>"$tmp/err"
[ $? -eq 65 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "16 ranks on 2 nodes and no network parameters" "$tmp/err"
check "--comm 2x8 on a profile without network parameters is refused in one line" $?

# Memory: the tiny workload with a 100 MiB peak on a GPU with 4 MiB more than the device needs
# for it (the peak and the allocator's 3.2% reserve, the CUDA context's 1.30 GiB, NCCL's 32
# channels x 9633792 B over 8 ranks: sim/fu_memcheck.h). single copies all 8 MiB of gradients
# into one buffer: 8 MiB x 1.032 - 4 MiB = 4.26 MiB over: predicted (exit 0) with one warning
# line; none has no fusion buffer and fits: nothing on stderr.
python3 - "$wl" "$prof" "$tmp/mem.json" "$tmp/memprof.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
w["memory"] = {"peak_bytes": 100 * 2**20}
json.dump(w, open(sys.argv[3], "w"))
p = json.load(open(sys.argv[2]))
p["gpu_mem_bytes"] = int(100 * 2**20 * 1.032 + 1.30 * 2**30 + 32 * 9633792) + 4 * 2**20
json.dump(p, open(sys.argv[4], "w"))
PY
"$fusim" predict --workload "$tmp/mem.json" --profile "$tmp/memprof.json" --fusion single --no-store >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^iteration " "$tmp/out" &&
  grep -q "does not fit one GPU's memory: it needs 1.7 GiB (PyTorch's 108 MiB with a 8 MiB fusion buffer, the allocator's reserve, the CUDA context, NCCL's buffers) of 1.69 GiB, 4.26 MiB over" "$tmp/err"
check "a plan that does not fit: predicted, one warning with how much" $?
"$fusim" predict --workload "$tmp/mem.json" --profile "$tmp/memprof.json" --fusion none --no-store >/dev/null 2>"$tmp/err"
[ $? -eq 0 ] && [ ! -s "$tmp/err" ]
check "a plan that fits: no warning" $?

# two streams: two 64 MiB operations run at once, each stretched by the other. comm_us is the wall
# time communication runs (the first's start to the last's end), not the sum of the two stretched
# ones; nothing overlaps compute with overlap off; bus_util is over that wall time, so it stands
# to the one-stream run's as the one-stream comm_us to the two-stream one (the same bytes). The
# sum gave comm_us 1121 against 562 us of wall time and a bus use half the real one.
printf '%s\n' '{"format":"fusim-workload-1","name":"two","fwd_us":100,"bwd_us":200,"opt_us":0,"grads":[{"name":"a","bytes":67108864,"ready_us":200},{"name":"b","bytes":67108864,"ready_us":200}]}' >"$tmp/two.json"
for n in 1 2; do
  "$fusim" predict --workload "$tmp/two.json" --profile "$prof" --fusion none --overlap off --comm-streams $n --no-store --format json >"$tmp/s$n.json" || bad "two streams: predict --comm-streams $n"
done
python3 - "$tmp/s1.json" "$tmp/s2.json" <<'PY'
import json, sys
one, two = (json.load(open(f)) for f in sys.argv[1:])
b = two["buckets"]
assert abs(b[0]["start_us"] - b[1]["start_us"]) < 5 and b[0]["comm_us"] > 1.5 * one["buckets"][0]["comm_us"], b  # at once, stretched
wall = max(x["end_us"] for x in b) - min(x["start_us"] for x in b)
assert abs(two["comm_us"] - wall) < 1e-6, (two["comm_us"], wall)
assert abs(one["comm_us"] - sum(x["comm_us"] for x in one["buckets"])) < 1e-6, one["comm_us"]
assert two["overlap_frac"] == 0 and one["overlap_frac"] == 0, (one["overlap_frac"], two["overlap_frac"])
assert abs(two["bus_util"] / one["bus_util"] - one["comm_us"] / two["comm_us"]) < 1e-9, (one["bus_util"], two["bus_util"])
PY
check "two streams: comm_us and bus_util over wall time" $?

# Horovod with overlap off: every tensor is handed over when backward ends, so one cycle fuses
# them all under the threshold: the single bucket's plan (it fused by the ready times of an
# overlapped run: three operations for tiny.json's three tensors)
p --fusion horovod:128MiB,1ms --overlap off --no-store --format json >"$tmp/hvd.json" &&
  p --fusion single --overlap off --no-store --format json >"$tmp/single.json"
[ "$(field "$tmp/hvd.json" n_ops)" = 1 ] && near "$(field "$tmp/hvd.json" iter_us)" "$(field "$tmp/single.json" iter_us)" 1e-6
check "horovod, overlap off: one bucket, the single plan's time" $?

# Horovod with overlap on fuses the tensors ready by each cycle as they really become ready: on
# the bundled profile (compute 1.31x slower beside NCCL) g0's all-reduce, sent at the 500 us tick,
# delays g1 (990 us from backward's start) past the 1000 us tick, so g1 goes at 1500 us with g2
# (1400 us): two operations. Buckets fixed on the workload's own ready times sent g1 and g2 apart.
printf '%s\n' '{"format":"fusim-workload-1","name":"hvd","fwd_us":1000,"bwd_us":2000,"opt_us":0,"grads":[{"name":"g0","bytes":8388608,"ready_us":100},{"name":"g1","bytes":1048576,"ready_us":990},{"name":"g2","bytes":1048576,"ready_us":1400}]}' >"$tmp/hvd3.json"
"$fusim" predict --workload "$tmp/hvd3.json" --fusion horovod:128MiB,0.5ms --no-store --format json >"$tmp/hvd3.out" &&
  python3 -c "
import json, sys
b = json.load(open(sys.argv[1]))['buckets']
assert [(x['first'], x['last']) for x in b] == [(0, 0), (1, 2)] and b[1]['start_us'] >= 2500, b" "$tmp/hvd3.out"
check "horovod, overlap on: a tensor slowed past a tick goes with the next tick's" $?

# a plan file takes the flag's spelling too (DESIGN.md: "the same keys"): comm-streams as
# comm_streams (it was an unknown key)
printf '{"fusion": "none", "overlap": "off", "comm-streams": 2}\n' >"$tmp/plan2.json"
"$fusim" predict --workload "$tmp/two.json" --profile "$prof" --plan "$tmp/plan2.json" --no-store --format json >"$tmp/pf.json" &&
  near "$(field "$tmp/pf.json" iter_us)" "$(field "$tmp/s2.json" iter_us)" 1e-9
check "plan file key comm-streams = --comm-streams" $?

# A buckets:FILE plan whose path is long (here 481 bytes, under the 511 allowed) prints its plan
# string whole: the result kept 512 bytes of it, so the JSON's and the table's plan lost
# "pack=... streams=..." (and, cut inside a UTF-8 character, JSON output exited 70 with no message).
long=$tmp/$(printf '%0200d' 0)/$(printf '%0200d' 1)/$(printf '%040d' 2)
mkdir -p "$long" && printf '[["head.weight", "mid.weight"], ["stem.weight"]]\n' >"$long/b.json" &&
  p --fusion "buckets:$long/b.json" --overlap off --no-store --format json >"$tmp/longplan.json"
check "a plan with a long buckets path predicts" $?
python3 - "$tmp/longplan.json" "$long/b.json" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))["plan"]
sys.exit(0 if plan == "buckets:%s overlap=off pack=copy streams=1" % sys.argv[2] else 1)
PY
check "its plan string is whole" $?

finish cli_predict
