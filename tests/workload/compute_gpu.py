"""A what-if priced from another GPU's compute tables says so (README: B200 what-if walkthrough).

fusim fit --out on B200 logs takes what the logs do not cover from its base (the bundled H200
profile), compute tables included: the profile is named for the B200, its tables are the H200's.
The profile's compute object names that GPU ("gpu", the base's own "gpu"), and workload (warning,
summary, priced_with.compute_gpu), predict and plan (the compute note, compute_priced_with's
tables_gpu and links_gpu) say so for a what-if it prices. A fit whose base is of its own GPU (an
H200 log on the H200 base) and the bundled profile say nothing new."""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

fusim = sys.argv[1]
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
tmp = tempfile.mkdtemp(prefix="fusim-compute-gpu-")
fails = []
B200_LOG = os.path.join(root, "tests", "data", "public-nccl-tests", "multi-node", "mit-b200-8gpu-1node-allreduce.txt")
H200_LOG = os.path.join(root, "tests", "data", "reference", "h200-1gpu-allreduce-nccl-tests.txt")
NOTE = "priced from NVIDIA H200 tables; this profile's links are NVIDIA B200's"


def run(*args):
    """fusim ARGS, which must succeed (else the test stops: what follows reads its output)."""
    r = subprocess.run([fusim, *args], capture_output=True, text=True)
    if r.returncode:
        sys.exit("FAIL: fusim %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr))
    return r


def check(what, cond):
    fails.extend([] if cond else [what])


def fit(log, name):
    db, out = os.path.join(tmp, name + ".db"), os.path.join(tmp, name + ".json")
    run("import", "--db", db, log)
    run("fit", "--db", db, "--out", out, "--no-store")
    return out


b200, h200 = fit(B200_LOG, "b200"), fit(H200_LOG, "h200")
base_gpu = json.load(open(os.path.join(root, "data", "profiles", "h200-default.json")))["gpu"]
p = json.load(open(b200))
check("fitted profile is the B200's: %s" % p["gpu"], p["gpu"] == "NVIDIA B200")
check("its compute tables name the base's GPU: %s" % p["compute"].get("gpu"), p["compute"].get("gpu") == base_gpu)

# workload: a warning, the summary's line, priced_with.compute_gpu
TR = ["--transformer", "--layers", "2", "--hidden", "256", "--heads", "4", "--ffn", "1024", "--vocab", "1000",
      "--seq", "128", "--micro-batch", "2"]
wl = os.path.join(tmp, "wl.json")
r = run("workload", *TR, "--profile", b200, "--out", wl)
check("workload warns: %s" % r.stderr, "compute tables were measured on NVIDIA H200, not on its GPU (NVIDIA B200)" in r.stderr)
check("workload's summary: %s" % r.stdout,
      "compute tables     priced from NVIDIA H200 tables; the pricing profile's links are NVIDIA B200's" in r.stdout)
pw = json.load(open(wl))["priced_with"]
check("priced_with: %s" % pw, pw.get("gpu") == "NVIDIA B200" and pw.get("compute_gpu") == "NVIDIA H200")
info = json.loads(run("workload", "--info", wl, "--format", "json").stdout)
check("workload --info JSON: %s" % info.get("compute_gpu"), info.get("compute_gpu") == "NVIDIA H200")
# a hand-edited compute_gpu of "" named no GPU ("priced from  tables"): one line, exit 65
bad = json.load(open(wl))
bad["priced_with"]["compute_gpu"] = ""
badf = os.path.join(tmp, "bad.json")
json.dump(bad, open(badf, "w"))
r = subprocess.run([fusim, "workload", "--info", badf], capture_output=True, text=True)
check("compute_gpu \"\": %d %r" % (r.returncode, r.stderr),
      r.returncode == 65 and r.stderr.count("\n") == 1 and "compute_gpu: not a GPU's name" in r.stderr)
cnn = os.path.join(tmp, "cnn.json")
run("workload", "--cnn", "resnet18", "--micro-batch", "8", "--profile", b200, "--out", cnn)
check("--cnn priced_with", json.load(open(cnn))["priced_with"].get("compute_gpu") == "NVIDIA H200")
roof = json.loads(run("workload", *TR, "--tflops", "100", "--profile", b200).stdout)
check("a roofline reads no tables: %s" % roof["priced_with"], "compute_gpu" not in roof["priced_with"])

# predict and plan with the profile that priced it (same hash): the note and the JSON
OPT = ["--comm", "allreduce:8", "--no-store"]
for w in (wl, cnn, "resnet50"):  # resnet50: the bundled what-if, priced again with the same tables
    t = run("predict", "--workload", w, "--profile", b200, *OPT).stdout
    check("predict %s table: %s" % (w, t), "\n               " + NOTE + "\n" in t)
    j = json.loads(run("predict", "--workload", w, "--profile", b200, *OPT, "--format", "json").stdout)
    c = j.get("compute_priced_with") or {}
    check("predict %s JSON: %s" % (w, c), c.get("tables_gpu") == "NVIDIA H200" and c.get("links_gpu") == "NVIDIA B200")
t = run("plan", "--workload", wl, "--profile", b200, *OPT).stdout
check("plan table: %s" % t, "\ncompute   " + NOTE + "\n" in t)
for row in json.loads(run("plan", "--workload", wl, "--profile", b200, *OPT, "--format", "json").stdout):
    c = row.get("compute_priced_with") or {}
    check("plan %s JSON: %s" % (row["plan"], c), c.get("tables_gpu") == "NVIDIA H200")

# nothing new where the tables are the links' GPU's: the bundled profile, an H200 fit on the H200 base
# (absent is the profile's own GPU, as in the bundled profiles, which fit --out writes: an H200 fit
# on the H200 base named it, so the regenerated default would have)
check("an H200 fit's tables name no GPU (its own)", "gpu" not in json.load(open(h200))["compute"])
OPT = ["--comm", "offload", "--no-store"]  # the H200 log is of one GPU; copies come from the base
for prof in ([], ["--profile", h200]):
    w2 = os.path.join(tmp, "wl2.json")
    r = run("workload", *TR, *prof, "--out", w2)
    check("workload %s: no note: %s" % (prof, r.stdout + r.stderr), "tables" not in r.stdout + r.stderr)
    check("workload %s: no compute_gpu" % prof, "compute_gpu" not in json.load(open(w2))["priced_with"])
    for w in (w2, "resnet50"):
        t = run("predict", "--workload", w, *prof, *OPT).stdout + run("plan", "--workload", w, *prof, *OPT).stdout
        check("predict/plan %s %s: no note: %s" % (w, prof, t), "tables" not in t and "links are" not in t)
        for cmd in ("predict", "plan"):
            j = run(cmd, "--workload", w, *prof, *OPT, "--format", "json").stdout
            check("%s %s %s JSON: no tables_gpu" % (cmd, w, prof), "tables_gpu" not in j)
# fit's warning names the GPU the base's tables name, not the base's own: with the fitted B200
# profile (H200 tables) as base, B200 logs get the tables' line (before: nothing, the base being a
# B200's), H200 logs the copies' line without compute (before: compute "measured on NVIDIA B200")
def fit_on(log, name, base):
    db, out = os.path.join(tmp, name + ".db"), os.path.join(tmp, name + ".json")
    run("import", "--db", db, log)
    return run("fit", "--db", db, "--out", out, "--base", base, "--no-store").stderr


e = fit_on(B200_LOG, "b200_on_b200", b200)
check("B200 on the fitted B200: the tables' GPU named: %s" % e,
      "the profile's compute tables come from base fitted, measured on NVIDIA H200, not on NVIDIA B200" in e
      and "copies" not in e)
e = fit_on(H200_LOG, "h200_on_b200", b200)
check("H200 on the fitted B200: the copies' line leaves compute out: %s" % e,
      "copies, pack kernel, launch cost and HBM figures come from base fitted, measured on NVIDIA B200, "
      "not on NVIDIA H200" in e and "compute tables" not in e)
e = fit_on(B200_LOG, "b200_on_h200", "h200-default")
check("B200 on the H200 base: one line, compute in it: %s" % e,
      "launch cost, compute and HBM figures come from base h200-default, measured on NVIDIA H200" in e
      and "compute tables" not in e)

# fit --compute / --gemm-table --merge-into: compute.gpu follows the tables merged (the GPU the
# calib_torch file or the GEMM sweep names; absent where it is the profile's own), and a merge
# over tables of another GPU says that the ones it does not replace are still that GPU's. Before,
# the profile's compute.gpu was kept: the fitted B200's "NVIDIA H200" after B200 tables.
ROW = json.load(open(os.path.join(root, "data", "profiles", "h200-default.json")))["compute"]["ops"][0]


def merge(base, gpu, name, *extra):
    """base copied to NAME.json, a one-row calib_torch file of GPU merged into it: (run, profile)."""
    f, prof = os.path.join(tmp, name + "-torch.json"), os.path.join(tmp, name + ".json")
    json.dump({"format": "fusim-compute-1", "gpu": gpu, "compute": {"ops": [ROW]}}, open(f, "w"))
    with open(base) as src, open(prof, "w") as dst:
        dst.write(src.read())
    r = subprocess.run([fusim, "fit", "--compute", f, *extra, "--merge-into", prof], capture_output=True, text=True)
    return r, json.load(open(prof))


STILL = "compute.gpu now names %s, though the tables this merge does not replace are still %s's"
for base, gpu, want, said in ((b200, "NVIDIA B200", None, STILL % ("NVIDIA B200", "NVIDIA H200")),
                              (b200, "NVIDIA H200", "NVIDIA H200", None),
                              (h200, "NVIDIA B200", "NVIDIA B200", STILL % ("NVIDIA B200", "NVIDIA H200")),
                              (h200, "NVIDIA H200", None, None)):
    r, q = merge(base, gpu, "merged", "--no-store")
    what = "%s tables merged into %s (tables %s)" % (gpu, os.path.basename(base), json.load(open(base))["compute"].get("gpu"))
    check("%s: exit %d %s" % (what, r.returncode, r.stderr), r.returncode == 0)
    check("%s: compute.gpu %s, want %s" % (what, q["compute"].get("gpu"), want), q["compute"].get("gpu") == want)
    check("%s: stderr %r" % (what, r.stderr), said in r.stderr if said else r.stderr == "")
# one merge of a GEMM sweep of the H200 and a file of the B200: refused in one line, file as it was
gdb = os.path.join(tmp, "gemm.db")
con = sqlite3.connect(gdb)
con.executescript(open(os.path.join(root, "data", "calibration", "h200-compute-2026-12-02-gemm.sql")).read())
con.close()
before = open(b200).read()
r, q = merge(b200, "NVIDIA B200", "mixed", "--gemm-table", "--db", gdb)
check("GEMM sweep of the H200 with a B200 file: exit %d, %r" % (r.returncode, r.stderr),
      r.returncode == 64 and r.stderr.count("\n") == 1 and
      "the GEMM sweep was measured on NVIDIA H200, %s on NVIDIA B200" % os.path.join(tmp, "mixed-torch.json") in r.stderr)
check("the refused merge left the profile as it was", json.dumps(q, sort_keys=True) ==
      json.dumps(json.loads(before), sort_keys=True))

# the bundled profiles themselves name no GPU of their tables
for name in sorted(os.listdir(os.path.join(root, "data", "profiles"))):
    if name.endswith(".json"):
        q = json.load(open(os.path.join(root, "data", "profiles", name)))
        check("bundled %s: compute.gpu absent" % name, "gpu" not in q.get("compute", {}))

for f in fails:
    print("FAIL:", f, file=sys.stderr)
print("compute_gpu: %d failure(s)" % len(fails), file=sys.stderr)
sys.exit(1 if fails else 0)
