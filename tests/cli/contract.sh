#!/bin/sh
# contract.sh FUSIM: ../shared/DESIGN.md's "## Contract" (what other tools and scripts depend on),
# item by item, end to end through the fusim binary. Each block quotes the sentence it checks.
# A conformance check, not a deep one: the numbers are checked where they follow from the inputs
# or from README.md's definitions (tests/sim, tests/data, tests/plan go deeper).
set -u
fusim=$1
case $fusim in /*) ;; *) fusim=$(pwd)/$fusim ;; esac
here=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d /tmp/fusim_contract.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$here/lib.sh"
cd "$T" || exit 1
DB=$T/c.db
# py CODE ARGS...: a Python check (json, sqlite3 and hashlib imported); its exit status is the result
py() { code=$1; shift; python3 -c "import hashlib, json, sqlite3, sys
A = sys.argv[1:]
J = lambda f: json.load(open(f))
$code" "$@"; }
# pj FILE ARGS...: predict --format json into FILE (not stored)
pj() { f=$1; shift; "$fusim" predict --no-store --format json "$@" >"$f" 2>"$T/err"; }

# Three gradients, 1 + 3 + 4 MiB, ready 1, 2 and 3 ms into backward (forward 1 ms)
cat >w.json <<'EOF'
{"format": "fusim-workload-1", "name": "c3", "fwd_us": 1000.0, "bwd_us": 3000.0, "opt_us": 50.0,
 "grads": [{"name": "a", "bytes": 1048576, "ready_us": 1000.0},
           {"name": "b", "bytes": 3145728, "ready_us": 2000.0},
           {"name": "c", "bytes": 4194304, "ready_us": 3000.0}]}
EOF
# the same step as layers in forward order (backward runs l2, l1, l0: a, b, c ready as above)
cat >l.json <<'EOF'
{"format": "fusim-workload-1", "name": "c3layers", "opt_us": 50.0,
 "layers": [{"name": "l0", "fwd_us": 500.0, "bwd_us": 1000.0, "grad_bytes": [4194304]},
            {"name": "l1", "fwd_us": 250.0, "bwd_us": 1000.0, "grad_bytes": [3145728]},
            {"name": "l2", "fwd_us": 250.0, "bwd_us": 1000.0, "grad_bytes": [1048576]}]}
EOF
py 'w = J("w.json"); w["host"] = {"hook_us": 10, "issue_us": 5}; json.dump(w, open("h1.json", "w"))'
py 'w = J("w.json"); w["grads"][0]["bytes"] = 2097152; json.dump(w, open("w2.json", "w"))'

# Workload: "Times in microseconds, sizes in bytes" ... "ready_us counts from the start of backward"
pj none.json --workload w.json --fusion none; check "grads workload predicts" $?
py 'd = J(A[0]); sys.exit(not (d["n_ops"] == 3 and d["buckets"][0]["ready_us"] == 1000 + 1000))' none.json
check "a tensor a bucket; the first ready at fwd_us + ready_us" $?
# "A workload may instead give "layers" ... in forward order, from which ready times follow
# (backward runs the layers in reverse)"
"$fusim" workload --info l.json --tensors --format json >info.json
py 'd = J(A[0])["grads"]; sys.exit([(t["bytes"], t["ready_us"]) for t in d] !=
    [(1048576, 1000), (3145728, 2000), (4194304, 3000)])' info.json
check "layers: ready times from the layers in reverse" $?
pj lnone.json --workload l.json --fusion none
py 'sys.exit(J(A[0])["iter_us"] != J(A[1])["iter_us"])' lnone.json none.json
check "layers: the same step as its grads form" $?
# "The first version's {"hook_us", "issue_us"} still loads."
pj h1-out.json --workload h1.json --fusion none; check "host block v1 loads" $?
py 'sys.exit(not J(A[0])["iter_us"] > J(A[1])["iter_us"])' h1-out.json none.json
check "host block v1: its hook and issue costs paid" $?

# Framework: "--framework ideal|ddp|hooks (predict, plan, validate)"; "The costs come from the
# workload's host block" (tests/plan/host_v2_6.json: a host block of version 2)
H=$here/plan/host_v2_6.json
for fw in ideal ddp hooks; do pj "fw-$fw.json" --workload "$H" --framework $fw; check "--framework $fw" $?; done
py 'i, d, h = (J(f) for f in A); sys.exit(not (d["iter_us"] > i["iter_us"] and h["iter_us"] > i["iter_us"]
    and d["plan"].endswith("framework=ddp")))' fw-ideal.json fw-ddp.json fw-hooks.json
check "ddp and hooks pay host costs ideal does not" $?
refused 65 "no measured host costs for framework ddp" "$fusim" predict --no-store --workload w.json --framework ddp
"$fusim" plan --no-store --format json --workload "$H" --framework hooks >plan-hooks.json
py 'sys.exit(not all(p["plan"].endswith("framework=hooks") for p in J(A[0])))' plan-hooks.json
check "plan --framework hooks" $?
"$fusim" validate --list-options | grep -q '^--framework'; check "validate takes --framework" $?

# Communication target: "--comm allreduce:RANKS[:LINK] (also reducescatter, allgather)", "RANKS
# is N or NODESxGPUS", "LINK is a link class (nvlink, pcie, net)", "--comm offload";
# "Outputs say whether a collective's cost was measured at that rank/node count or predicted."
py 'd = J(A[0]); sys.exit(not (d["comm"] == "allreduce:8:nvlink" and d["comm_basis"] == "measured"))' none.json
check "default allreduce:8 on nvlink, measured" $?
pj multi.json --workload w.json --profile h200-ndr --comm allreduce:2x8:net
py 'sys.exit(J(A[0])["comm_basis"] != "predicted")' multi.json; check "allreduce:2x8:net predicted" $?
pj offload.json --workload w.json --comm offload; py 'sys.exit(J(A[0])["comm"] != "offload")' offload.json
check "--comm offload" $?
for c in reducescatter:8 allgather:8:nvlink allreduce:2x8; do
  "$fusim" cost --profile h200-ndr --comm $c --bytes 64MiB --format json >cost.json
  py 'd = J(A[0])[0]; op, r = A[1].split(":")[:2]; n, g = r.split("x") if "x" in r else (1, r)
sys.exit((d["op"], d["nodes"], d["ranks"]) != (op, int(n), int(n) * int(g)))' cost.json $c
  check "cost --comm $c" $?
done

# Pricing one operation: "JSON is an array, one object per size, with at least op, ranks, nodes,
# bytes, time_us, lo_us, hi_us, busbw_gbps, algo and measured"; busbw as nccl-tests' (2(n-1)/n)
"$fusim" cost --comm allreduce:8 --bytes 64MiB,1GiB --format json >cost.json
py 'd = J(A[0]); keys = "op ranks nodes bytes time_us lo_us hi_us busbw_gbps algo measured".split()
sys.exit(not (len(d) == 2 and all(k in o for o in d for k in keys) and [o["bytes"] for o in d] == [2**26, 2**30]
    and all(o["measured"] is True and o["lo_us"] <= o["time_us"] <= o["hi_us"] and
            abs(o["busbw_gbps"] - o["bytes"] / o["time_us"] / 1e3 * 1.75) < 1e-3 for o in d)))' cost.json
check "cost JSON: keys, one object per size, busbw" $?

# Fusion plan: "--fusion none|single|cap:SIZE[,first:SIZE]|horovod:SIZE,CYCLE|buckets:FILE|optimal|
# mgwfbp", "none is one operation per tensor, single one operation for everything"
echo '[["a", "b"], ["c"]]' >b.json
for f in single cap:4MiB cap:4MiB,first:1MiB buckets:b.json optimal mgwfbp horovod:64MiB,5 horovod:64MiB,5ms horovod:64MiB,5us; do
  pj "f-$f.json" --workload w.json --fusion "$f"; check "--fusion $f" $?
done
py 'sys.exit([[(b["first"], b["last"]) for b in J(f)["buckets"]] for f in A] !=
    [[(0, 2)], [(0, 1), (2, 2)], [(0, 0), (1, 2)], [(0, 1), (2, 2)]])' \
  f-single.json f-cap:4MiB.json f-cap:4MiB,first:1MiB.json f-buckets:b.json.json
check "single, cap, cap+first and buckets:FILE resolve as asked" $?
# "Horovod's cycle takes a unit too (ms by default, as HOROVOD_CYCLE_TIME)"
py 'a, b, c = (J(f) for f in A); sys.exit(not (a["plan"] == b["plan"] and a["iter_us"] == b["iter_us"] != c["iter_us"]))' \
  f-horovod:64MiB,5.json f-horovod:64MiB,5ms.json f-horovod:64MiB,5us.json
check "horovod cycle 5 is 5ms" $?
# "--overlap on|off", "--pack copy|view", "--comm-streams N", "or the same keys in a JSON plan file"
pj off.json --workload w.json --fusion none --overlap off
pj view.json --workload w.json --fusion cap:4MiB --pack view
pj flags.json --workload w.json --fusion cap:4MiB --overlap off --pack view --comm-streams 2
echo '{"fusion": "cap:4MiB", "overlap": "off", "pack": "view", "comm_streams": 2}' >plan.json
pj planfile.json --workload w.json --plan plan.json
py 'n, o, c, v, f, p = (J(x) for x in A); sys.exit(not (o["iter_us"] > n["iter_us"] and c["fusion_buffer_bytes"] == 4194304
    and v["fusion_buffer_bytes"] == 0 and f["plan"] == p["plan"] == "cap:4MiB overlap=off pack=view streams=2"
    and f["iter_us"] == p["iter_us"]))' none.json off.json f-cap:4MiB.json view.json flags.json planfile.json
check "overlap off, pack view, comm streams; a plan file as the flags" $?
# "Sizes take a unit: B, KiB, MiB, GiB (25 alone is an error, never 25 bytes)"
refused 64 "has no unit" "$fusim" predict --no-store --workload w.json --fusion cap:25
refused 64 "has no unit" "$fusim" cost --comm allreduce:8 --bytes 25
echo '{"fusion": "cap:25"}' >bad-plan.json
refused 65 "has no unit" "$fusim" predict --no-store --workload w.json --plan bad-plan.json

# Profiles and databases: "--db FILE (default $FUSIM_DB, else fusim.db in the current folder)"
mkdir cwd
(cd cwd && "$fusim" predict --workload ../w.json >/dev/null && FUSIM_DB=$T/env.db "$fusim" predict --workload ../w.json >/dev/null)
check "predict without --db" $?
py 'sys.exit([sqlite3.connect(f).execute("SELECT count(*) FROM predictions").fetchone()[0] for f in A] != [1, 1])' \
  cwd/fusim.db env.db
check "one prediction each in ./fusim.db and \$FUSIM_DB" $?
# "fusim import reads nccl-tests output and CSV whose header names its columns (op,ranks,bytes,
# time_us and optionally link and nodes; lines that start with # are comments)"
expect 0 "$fusim" import --db "$DB" "$here/data/public-nccl-tests/rtx2080tix2-pcie-allreduce.txt"
cat >s.csv <<'EOF'
# measured by hand, columns in an order of their own
bytes,nodes,time_us,link,ranks,op
# between rows too
1048576,1,100.5,pcie,4,allreduce
4194304,1,300.25,pcie,4,allreduce
16777216,1,1100,pcie,4,allreduce
EOF
expect 0 "$fusim" import --db "$DB" s.csv
py 'c = sqlite3.connect(A[0]); q = ("SELECT bytes, t_median_us FROM samples WHERE op = ? AND link = ? AND ranks = ? AND nodes = 1"
     " AND in_place = 0 ORDER BY bytes")
s2, s4 = (c.execute(q, ("allreduce", "pcie", r)).fetchall() for r in (2, 4))
sys.exit(not (len(s2) == 28 and s2[-1] == (2**30, 268588) and s4 == [(2**20, 100.5), (2**22, 300.25), (2**24, 1100)]))' "$DB"
check "nccl-tests log (28 sizes) and CSV samples stored" $?
# "fusim fit --out FILE writes a profile (JSON); predict and plan take --profile FILE and,
# without it, use the bundled default profile"; cost's "measured (true where the profile holds
# that op at that rank and node count)"
expect 0 "$fusim" fit --db "$DB" --out prof.json
"$fusim" cost --profile prof.json --comm allreduce:4:pcie --bytes 4MiB,1GiB --format json >c4.json
"$fusim" cost --profile prof.json --comm allreduce:3:pcie --bytes 4MiB --format json >c3.json
py 'sys.exit(not (all(o["measured"] is True for o in J(A[0])) and J(A[1])[0]["measured"] is False))' c4.json c3.json
check "a fitted profile measured at 4 ranks, not 3" $?
pj fitted.json --workload w.json --profile prof.json --comm allreduce:2:pcie
py 'd = J(A[0]); sys.exit((d["profile"], d["comm"], d["comm_basis"]) != ("fitted", "allreduce:2:pcie", "measured"))' fitted.json
check "predict --profile FILE" $?
expect 0 "$fusim" plan --no-store --workload w.json --profile prof.json --comm allreduce:2:pcie
pj named.json --workload w.json --fusion none --profile h200-default
py 'd, n = J(A[0]), J(A[1]); sys.exit(not (d["profile"] == "h200-default" and d["iter_us"] == n["iter_us"]))' none.json named.json
check "no --profile: the bundled default" $?

# Output: "--format table|csv|json"; predict's JSON "at least iter_us, compute_us, comm_us,
# exposed_comm_us, n_ops, fusion_buffer_bytes, bus_util (achieved over peak) and sim_events";
# README: exposed communication is the iteration less compute
py 'd = J(A[0]); keys = "iter_us compute_us comm_us exposed_comm_us n_ops fusion_buffer_bytes bus_util sim_events".split()
sys.exit(not (all(k in d for k in keys) and abs(d["exposed_comm_us"] - (d["iter_us"] - d["compute_us"])) < 1e-6
    and d["n_ops"] == len(d["buckets"]) and 0 < d["bus_util"] <= 1 and d["sim_events"] > 0))' f-cap:4MiB.json
check "predict JSON keys and exposed_comm_us" $?
"$fusim" predict --no-store --workload w.json --format table | grep -q '^iteration'; check "predict table" $?
"$fusim" predict --no-store --workload w.json --format csv | head -1 | grep -q 'iter_us,'; check "predict csv" $?
"$fusim" cost --comm allreduce:8 --bytes 1MiB --format csv | head -1 | grep -q '^op,ranks,nodes,bytes,time_us'
check "cost csv" $?
# "JSON from plan is an array of such objects, each with a plan string"
"$fusim" plan --no-store --workload w.json --format json >plan-out.json
py 'd = J(A[0]); sys.exit(not (isinstance(d, list) and len(d) > 1
    and all(isinstance(p["plan"], str) and "iter_us" in p for p in d)))' plan-out.json
check "plan JSON: an array with plan strings" $?
# "--trace FILE writes Chrome trace JSON that ui.perfetto.dev opens (one track per stream)"
"$fusim" predict --no-store --workload w.json --fusion cap:4MiB --comm-streams 2 --trace tr.json >/dev/null 2>&1
py 'ev = J(A[0])["traceEvents"]; name = {e["tid"]: e["args"]["name"] for e in ev if e.get("name") == "thread_name"}
x = [e for e in ev if e["ph"] == "X"]
sys.exit(not (sum(n.startswith("comm stream") for n in name.values()) == 2 and "compute stream" in name.values()
    and all(e["tid"] in name for e in x)
    and all(name[e["tid"]].startswith("comm stream") for e in x if e["cat"] == "comm")))' tr.json
check "trace: a track per stream, comm on the comm streams" $?

# Results database: "PRAGMA user_version for migrations, STRICT tables, foreign keys on, WAL"
"$fusim" predict --db "$DB" --workload w.json --fusion optimal --format json >opt.json
"$fusim" predict --db "$DB" --workload w.json --fusion optimal >/dev/null
"$fusim" predict --db "$DB" --workload w2.json --profile prof.json --comm allreduce:2:pcie >/dev/null
"$fusim" report --db "$DB" --format csv sql "PRAGMA foreign_keys" | tail -1 | grep -qx 1; check "foreign keys on" $?
py 'c = sqlite3.connect(A[0]); t = c.execute("SELECT name, sql FROM sqlite_master WHERE type = ?", ("table",)).fetchall()
sys.exit(not (c.execute("PRAGMA user_version").fetchone()[0] >= 1 and c.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    and t and all(s.rstrip().upper().endswith("STRICT") for n, s in t) and c.execute("PRAGMA foreign_key_list(predictions)").fetchall()))' "$DB"
check "user_version, WAL, STRICT tables, foreign keys declared" $?
# "Every sample, fit, prediction and measurement keeps its provenance (host, GPU, driver, CUDA and
# NCCL versions, command line, time, fusim version and source commit)"
py 'c = sqlite3.connect(A[0])
r = c.execute("SELECT r.cmdline, r.created, r.fusim_version, r.fusim_commit, h.host_name FROM predictions p"
              " JOIN runs r ON r.id = p.run_id JOIN hosts h ON h.id = r.host_id").fetchall()
g = c.execute("SELECT h.gpu, h.driver, h.cuda, h.nccl FROM samples s JOIN runs r ON r.id = s.run_id"
              " JOIN hosts h ON h.id = r.host_id WHERE s.ranks = 2 LIMIT 1").fetchone()
sys.exit(not (len(r) == 3 and all(all(v for v in row) for row in r)
    and g[:3] == ("NVIDIA GeForce RTX 2080 Ti", "550.90.07", "12.4")
    and all(c.execute(f"SELECT count(*) FROM {t} WHERE run_id IS NULL").fetchone()[0] == 0
            for t in ("samples", "fits", "predictions", "measurements"))))' "$DB"
check "provenance of rows" $?
# "Workloads and profiles are stored by content (a hash and the JSON itself): a name is a label"
py 'c = sqlite3.connect(A[0]); w = c.execute("SELECT name, hash, json FROM workloads").fetchall()
p = c.execute("SELECT hash, json FROM profiles").fetchall()
sys.exit(not (len(w) == 2 and {n for n, h, j in w} == {"c3"} and json.loads(w[0][2]) in (J("w.json"), J("w2.json"))
    and all(h == hashlib.sha256(j.encode()).hexdigest() for h, j in [x[1:] for x in w] + p)))' "$DB"
check "two workloads named c3: two rows by hash" $?
# ... "(a hash and the JSON itself)": the profile fit --out wrote is the fit's row, which a
# prediction with --profile FILE names (not a second row for the same profile)
py 'c = sqlite3.connect(A[0]); q = lambda s, *a: [r[0] for r in c.execute(s, a)]
f, p = q("SELECT DISTINCT profile_id FROM fits"), q("SELECT DISTINCT profile_id FROM predictions WHERE comm LIKE ?", "%pcie")
sys.exit(not (len(f) == 1 and f == p and q("SELECT count(*) FROM profiles WHERE name = ?", "fitted") == [1]))' "$DB"
check "the fit's profile is the one predict --profile FILE stores" $?
# "A prediction keeps the plan as resolved (its actual buckets), so it can be re-run from the
# database alone"
py 'b = sqlite3.connect(A[0]).execute("SELECT buckets FROM predictions WHERE iter_us = ?", (J(A[1])["iter_us"],)).fetchone()[0]
sys.exit(json.loads(b) != [[x["first"], x["last"]] for x in J(A[1])["buckets"]])' "$DB" opt.json
check "resolved buckets stored" $?
mkdir alone && cp "$DB" alone/ && (cd alone && "$fusim" report --db c.db rerun >/dev/null 2>&1)
check "report rerun from a copy of the database alone" $?
# "Views v_fit_quality (a row per fitted segment with its parameters, CIs and max_rel_err)"
py 'c = sqlite3.connect(A[0]); r = c.execute("SELECT alpha_us, alpha_lo, alpha_hi, beta_us_per_byte, beta_lo, beta_hi,"
                                             " max_rel_err FROM v_fit_quality WHERE ranks = 4").fetchall()
a, alo, ahi, b, blo, bhi, m = r[0]; s = [(2**20, 100.5), (2**22, 300.25), (2**24, 1100)]
sys.exit(not (len(r) == 1 and alo <= a <= ahi and blo <= b <= bhi and abs(m - max(abs(a + b * x - t) / t for x, t in s)) < 1e-9))' "$DB"
check "v_fit_quality: the CSV curve, one segment, max_rel_err of its samples" $?
# "v_prediction_error (a row per measured plan with predicted_us, measured_us and rel_err; errors
# are fractions)": README defines rel_err as (predicted - measured) / measured
printf 'workload,plan,measured_us\nw.json,optimal,4000\n' >m.csv
expect 0 "$fusim" import --db "$DB" m.csv
py 'r = sqlite3.connect(A[0]).execute("SELECT predicted_us, measured_us, rel_err FROM v_prediction_error").fetchall()
p = J(A[1])["iter_us"]; sys.exit(not (len(r) == 1 and r[0][:2] == (p, 4000) and abs(r[0][2] - (p - 4000) / 4000) < 1e-12))' "$DB" opt.json
check "v_prediction_error: rel_err = (predicted - measured) / measured" $?
finish cli_contract
