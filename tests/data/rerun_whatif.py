"""report rerun's cost for what-if rows (data/cmd_rerun.c): a what-if's row must not cost a hash of
its profile (about 30 ms of CPU each, fu_profile_hash) on top of what the same row costs without
priced_with, since the database already stores the profile by that hash.

Two databases of the same 20 predictions of a tiny what-if (one with priced_with, one with it
removed, so fu_reprice returns before any hash); report rerun over each, the least CPU time of 3.
Before, the what-if's took about 2x the other's; the check allows 1.3x (a shared machine's noise).
Prints both times (usage: rerun_whatif.py FUSIM)."""
import atexit
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

fusim = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="fusim-rerun-")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)


def run(*args):
    r = subprocess.run([fusim] + list(args), capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("FAIL: fusim %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr))
    return r


def cpu_of(*args):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run(*args)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


w = os.path.join(tmp, "w.json")
run("workload", "--transformer", "--arch", "llama", "--layers", "1", "--hidden", "256", "--heads", "4", "--ffn",
    "688", "--vocab", "1000", "--seq", "64", "--micro-batch", "1", "--name", "tiny", "--out", w)
bare = json.load(open(w))
del bare["priced_with"]
w_bare = os.path.join(tmp, "bare.json")
json.dump(bare, open(w_bare, "w"))
cpu = {}
for name, wl in (("what-if", w), ("no priced_with", w_bare)):
    db = os.path.join(tmp, name.replace(" ", "_") + ".db")
    for n in range(2, 12):
        for fusion in ("none", "single"):
            run("predict", "--workload", wl, "--comm", "allreduce:%d" % n, "--fusion", fusion, "--db", db)
    cpu[name] = min(cpu_of("report", "rerun", "--db", db) for _ in range(3))
ratio = cpu["what-if"] / cpu["no priced_with"]
print("report rerun, 20 rows: what-if %.3f s CPU, without priced_with %.3f s: %.2fx"
      % (cpu["what-if"], cpu["no priced_with"], ratio))
sys.exit(0 if ratio < 1.3 else 1)
