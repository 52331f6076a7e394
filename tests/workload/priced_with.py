"""A what-if priced on one machine is never planned on another unsaid (sim/fu_reprice.h).

fusim workload records what priced it (priced_with: the profile's name, content hash and GPU, the
builder's arguments by their long names, output options left out). predict and plan given it with
a profile of another hash build it again from those arguments: the compute equals that of the
same what-if built directly with that profile (`workload --profile OTHER`, an independent path),
and the output names the re-pricing. A profile without compute tables keeps the file's times with
one warning; a what-if written before the key keeps them and says its profile is unknown; a
capture keeps its times and names its GPU; the profile that priced it changes nothing but the key.
The database stores the what-if as the user gave it beside each profile, so measured times join
every profile's prediction, and report rerun prices it again as predict did.

Tolerance: a workload file holds times to 12 significant digits (fu_workload_save), the what-if
re-priced in memory keeps all of them: rel 1e-9."""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

fusim = sys.argv[1]
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
tmp = tempfile.mkdtemp(prefix="fusim-priced-")
fails = []
REL = 1e-9


def run(*args, ok=True):
    r = subprocess.run([fusim] + list(args), capture_output=True, text=True)
    if ok and r.returncode != 0:
        print("FAIL: fusim %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr), file=sys.stderr)
        sys.exit(1)
    return r


def check(what, cond):
    if not cond:
        fails.append(what)


def near(a, b):
    return abs(a - b) <= REL * abs(b)


def step_us(w):
    return w.get("accum_steps", 1) * (w["fwd_us"] + w["bwd_us"]) + w["opt_us"]


# a small Llama, GPU-bound enough that the H100's tables price it apart from the H200's;
# --layers=2 and --hid (a prefix) are: recorded by their long names
ARGS = ["--transformer", "--arch", "llama", "--layers=2", "--hid", "2048", "--heads", "16", "--ffn", "5504",
        "--vocab", "32000", "--seq", "1024", "--micro-batch", "4", "--name", "tiny"]
w_def, w_h100 = os.path.join(tmp, "def.json"), os.path.join(tmp, "h100.json")
run("workload", *ARGS, "--out", w_def)
run("workload", *ARGS, "--profile", "h100-sxm", "--out", w_h100, "--ops", os.path.join(tmp, "ops.csv"))
d, h = json.load(open(w_def)), json.load(open(w_h100))
pw = d.get("priced_with", {})
check("priced_with names the default profile and its GPU: %s" % pw,
      pw.get("profile") == "h200-default" and pw.get("gpu") == "NVIDIA H200")
want = ["--transformer", "--arch", "llama", "--layers", "2", "--hidden", "2048", "--heads", "16", "--ffn", "5504",
        "--vocab", "32000", "--seq", "1024", "--micro-batch", "4", "--name", "tiny"]
check("builder_args by long names, no --out: %s" % pw.get("builder_args"), pw.get("builder_args") == want)
check("h100's builder_args leave out --profile, --out, --ops", h["priced_with"]["builder_args"] == want)
check("the two profiles price it apart (else the test proves nothing): %.1f %.1f" % (step_us(d), step_us(h)),
      abs(step_us(d) / step_us(h) - 1) > 0.05)

# re-priced: plan and predict with the H100 profile give the compute of the H100 build
OFF = ["--comm", "offload", "--no-store"]
plan = json.loads(run("plan", "--workload", w_def, "--profile", "h100-sxm", *OFF, "--format", "json").stdout)
for p in plan:
    c = p.get("compute_priced_with", {})
    check("plan %s: compute %.6f, the H100 build's %.6f" % (p["plan"], p["compute_us"], step_us(h)),
          near(p["compute_us"], step_us(h)))
    check("plan %s: compute_priced_with %s" % (p["plan"], c),
          c.get("profile") == "h100-sxm" and c.get("repriced") is True and c.get("recorded_profile") == "h200-default")
direct = json.loads(run("predict", "--workload", w_h100, "--profile", "h100-sxm", *OFF, "--format", "json").stdout)
again = json.loads(run("predict", "--workload", w_def, "--profile", "h100-sxm", *OFF, "--format", "json").stdout)
for k in ("iter_us", "compute_us", "exposed_comm_us", "mem_need_bytes"):
    check("predict %s: re-priced %.6f, built with h100-sxm %.6f" % (k, again[k], direct[k]), near(again[k], direct[k]))
table = run("plan", "--workload", w_def, "--profile", "h100-sxm", *OFF).stdout
lines = [ln for ln in table.splitlines() if "priced again with profile h100-sxm" in ln]
check("plan's table names the re-pricing in one line: %r" % lines, len(lines) == 1)
table = run("predict", "--workload", w_def, "--profile", "h100-sxm", *OFF).stdout
check("predict's table names the re-pricing", "priced again with profile h100-sxm" in table)

# no compute tables (h200-pcie): the file's times kept, one warning, the key says why
r = run("predict", "--workload", w_def, "--profile", "h200-pcie", *OFF, "--format", "json")
j = json.loads(r.stdout)
c = j.get("compute_priced_with", {})
check("no tables: compute kept %.6f vs %.6f" % (j["compute_us"], step_us(d)), near(j["compute_us"], step_us(d)))
check("no tables: key %s" % c, c.get("repriced") is False and c.get("profile") == "h200-default"
      and "no compute tables" in c.get("kept_because", ""))
warn = [ln for ln in r.stderr.splitlines() if "no compute tables" in ln]
check("no tables: one warning line: %r" % r.stderr, len(warn) == 1)

# the roofline reads no compute tables, only the profile's throughput, bandwidth and kernel floor:
# with a profile that has no tables it is priced again all the same (it was kept, H100's times
# with H200's links, the warning blaming tables the roofline never reads)
ROOF = ["--transformer", "--layers", "2", "--hidden", "1024", "--heads", "8", "--ffn", "4096", "--vocab",
        "32000", "--seq", "512", "--micro-batch", "8", "--efficiency", "0.5"]
w_roof, w_roof_pcie = os.path.join(tmp, "roof_h100.json"), os.path.join(tmp, "roof_pcie.json")
run("workload", *ROOF, "--profile", "h100-sxm", "--out", w_roof)
run("workload", *ROOF, "--profile", "h200-pcie", "--out", w_roof_pcie)
rp = json.load(open(w_roof_pcie))
check("roofline: the two profiles price it apart (else the test proves nothing)",
      abs(step_us(json.load(open(w_roof))) / step_us(rp) - 1) > 0.05)
r = run("predict", "--workload", w_roof, "--profile", "h200-pcie", *OFF, "--format", "json")
j = json.loads(r.stdout)
c = j.get("compute_priced_with", {})
check("roofline, no tables: priced again, compute %.6f, the h200-pcie build's %.6f" % (j["compute_us"], step_us(rp)),
      near(j["compute_us"], step_us(rp)))
check("roofline, no tables: key %s" % c, c.get("repriced") is True and c.get("profile") == "h200-pcie")
check("roofline, no tables: no warning: %r" % r.stderr, "no compute tables" not in r.stderr)

# an older what-if (no priced_with): loads, kept, its profile unknown
old = dict(d)
del old["priced_with"]
w_old = os.path.join(tmp, "old.json")
json.dump(old, open(w_old, "w"))
r = run("predict", "--workload", w_old, "--profile", "h100-sxm", *OFF, "--format", "json")
j = json.loads(r.stdout)
c = j.get("compute_priced_with", {})
check("old what-if: kept, profile unknown: %s" % c, c.get("profile") is None and c.get("repriced") is False
      and near(j["compute_us"], step_us(d)))
check("old what-if: the table says unknown", "unknown profile" in run("predict", "--workload", w_old, *OFF).stdout)

# the profile that priced it: the output as without the feature, the key absent
same = json.loads(run("predict", "--workload", w_def, *OFF, "--format", "json").stdout)
olds = json.loads(run("predict", "--workload", w_old, *OFF, "--format", "json").stdout)
check("same profile: no compute_priced_with", "compute_priced_with" not in same)
olds.pop("compute_priced_with", None)
check("same profile: the output of the old what-if less its key", same == olds)
check("same profile: no note line", "priced" not in run("predict", "--workload", w_def, *OFF).stdout)

# another profile with the same compute tables (h200-ndr: the default plus network curves) prices
# it alike: nothing said, none of the builder's warnings again, the file's times
r = run("predict", "--workload", w_def, "--profile", "h200-ndr", *OFF, "--format", "json")
j = json.loads(r.stdout)
check("same tables: no compute_priced_with: %s" % j.get("compute_priced_with"), "compute_priced_with" not in j)
check("same tables: compute as the file's %.6f vs %.6f" % (j["compute_us"], step_us(d)), near(j["compute_us"], step_us(d)))
check("same tables: no warning: %r" % r.stderr, r.stderr == "")

# a capture: kept, its GPU named
cap = json.load(open(os.path.join(root, "data", "workloads", "resnet50_captured.json")))
j = json.loads(run("predict", "--workload", "resnet50_captured", "--profile", "h100-sxm", *OFF,
                   "--format", "json").stdout)
c = j.get("compute_priced_with", {})
check("capture: kept %.6f vs %.6f, %s" % (j["compute_us"], step_us(cap), c), near(j["compute_us"], step_us(cap))
      and c.get("measured") is True and c.get("gpu") == cap["meta"]["gpu"] and c.get("repriced") is False)

# the database keeps the what-if as the user gave it (and the profile): one workload however many
# profiles price it, so measured times join each profile's prediction; rerun prices it again
db = os.path.join(tmp, "r.db")
pred_h = json.loads(run("predict", "--workload", w_def, "--profile", "h100-sxm", "--comm", "offload", "--db", db,
                        "--format", "json").stdout)
pred_d = json.loads(run("predict", "--workload", w_def, "--comm", "offload", "--db", db, "--format", "json").stdout)
con = sqlite3.connect(db)
rows = con.execute("SELECT w.json, p.name FROM predictions x JOIN workloads w ON w.id = x.workload_id "
                   "JOIN profiles p ON p.id = x.profile_id").fetchall()
check("two predictions, one stored workload: %d rows, %d workloads" % (len(rows), len({r[0] for r in rows})),
      len(rows) == 2 and len({r[0] for r in rows}) == 1)
stored = json.loads(rows[0][0])
check("stored workload is the user's %.6f vs %.6f" % (step_us(stored), step_us(d)), near(step_us(stored), step_us(d))
      and stored["priced_with"] == pw)
r = run("report", "--db", db, "--format", "csv", "rerun")
check("report rerun reproduces both: %s" % r.stdout, r.stdout.count("reproduces") == 2 and "differs" not in r.stdout)
measured = os.path.join(tmp, "m.csv")
with open(measured, "w") as f:
    f.write("workload,plan,measured_us\n%s,\"%s\",%.1f\n" % (os.path.basename(w_def), pred_d["plan"],
                                                           1.1 * pred_d["iter_us"]))
run("import", "--db", db, measured)
errs = con.execute("SELECT profile, predicted_us FROM v_prediction_error").fetchall()
check("measured times join each profile's prediction: %s" % errs,
      sorted(round(e[1], 1) for e in errs) == sorted([round(pred_d["iter_us"], 1), round(pred_h["iter_us"], 1)]))
# the default profile's hash, as the database stores it, is what the default-priced what-if recorded
db2 = os.path.join(tmp, "d.db")
run("predict", "--workload", w_def, "--comm", "offload", "--db", db2)
ph2 = sqlite3.connect(db2).execute("SELECT hash FROM profiles").fetchone()[0]
check("default what-if's hash is the stored default profile's", pw.get("profile_hash") == ph2)

# a damaged record: one line, exit 65
bad = dict(d)
bad["priced_with"] = dict(pw, profile_hash="xyz")
w_bad = os.path.join(tmp, "bad.json")
json.dump(bad, open(w_bad, "w"))
r = run("predict", "--workload", w_bad, *OFF, ok=False)
check("bad priced_with: exit 65, one line: %d %r" % (r.returncode, r.stderr),
      r.returncode == 65 and len(r.stderr.strip().splitlines()) == 1 and "priced_with.profile_hash" in r.stderr)

for f in fails:
    print("FAIL:", f, file=sys.stderr)
print("%d failed" % len(fails))
sys.exit(1 if fails else 0)
