#!/usr/bin/env python3
"""test_store_input.py FUSIM: tools/store_torch_validation.py on a damaged run and into a database
that already holds the run. Each damage is one line on stderr naming the file and the field, exit
65 (66 for a missing fusim), and the database as it was, v_prediction_error still showing the 12
rows stored first (each of these was a Python traceback: runs.json not an object, a model without
rows, a row without measured_us or with text there, a row without iteration times, a captured
workload cut short, one without its host block or without the frameworks' costs; a --fusim that is
not there). A copy of the stored run in another folder (another checkout) is the same run: refused,
not stored twice. The measurements' git_commit is the tool's checkout's, run from any folder (it
was the current folder's: none outside a checkout). The run: data/validation/torch_h200_run20
(Swin-T, 12 rows)."""
import gzip
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.environ.get("FUSIM_SOURCE_ROOT",
                                      os.path.join(os.path.dirname(__file__), "..", "..")))
FUSIM = os.path.abspath(sys.argv[1])
TOOL = os.path.join(ROOT, "tools", "store_torch_validation.py")
WL = "wl_swin_t_b32_torchval.json"
fails = 0


def check(what, ok):
    global fails
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    fails += 0 if ok else 1


def store(rundir, db, *more, fusim=FUSIM, cwd=None):
    return subprocess.run([sys.executable, TOOL, rundir, "--db", db, "--fusim", fusim] + list(more),
                          capture_output=True, text=True, cwd=cwd)


def counts(db):
    c = sqlite3.connect(db)
    try:
        return tuple(c.execute("SELECT count(*) FROM " + t).fetchone()[0]
                     for t in ("measurements", "predictions", "v_prediction_error"))
    finally:
        c.close()


with tempfile.TemporaryDirectory() as tmp:
    run = os.path.join(tmp, "run")
    shutil.copytree(os.path.join(ROOT, "data", "validation", "torch_h200_run20"), run)
    with gzip.open(os.path.join(run, "runs.json.gz"), "rt") as f:
        good = json.load(f)
    with open(os.path.join(run, WL)) as f:
        good_wl = json.load(f)
    db = os.path.join(tmp, "team.db")
    r = store(run, db, cwd=tmp)   # tmp is no git checkout
    check("first store: exit 0, 12 rows in v_prediction_error (%d, %r)" % (r.returncode, counts(db)),
          r.returncode == 0 and counts(db) == (12, 12, 12))
    head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True).stdout.strip()
    if head:   # a source tree outside git has no commit to compare
        c = sqlite3.connect(db)
        got = {g for (g,) in c.execute("SELECT git_commit FROM measurements")}
        c.close()
        check("git_commit is the checkout's (%r, want %r)" % (got, head), got == {head})

    copy = os.path.join(tmp, "elsewhere", "torch_h200_run20")
    shutil.copytree(run, copy)
    r = store(copy, db)
    err = r.stderr.strip().splitlines()
    check("the run copied elsewhere: refused, exit 65, one line, nothing added (%d, %r, %r)"
          % (r.returncode, err, counts(db)),
          r.returncode == 65 and len(err) == 1 and "stored in" in err[0] and counts(db) == (12, 12, 12))

    def damaged(name, runs=None, wl=None):
        """A copy of the run with runs.json and the workload replaced where given."""
        d = os.path.join(tmp, name)
        shutil.copytree(run, d)
        if runs is not None:
            os.remove(os.path.join(d, "runs.json.gz"))
            with open(os.path.join(d, "runs.json"), "w") as f:
                f.write(runs if isinstance(runs, str) else json.dumps(runs))
        if wl is not None:
            with open(os.path.join(d, WL), "w") as f:
                f.write(wl if isinstance(wl, str) else json.dumps(wl))
        return d

    def edit(obj, change):
        o = json.loads(json.dumps(obj))
        change(o)
        return o

    row0 = lambda r: r["models"][0]["rows"][0]   # noqa: E731
    cases = [
        ("runs.json a list", damaged("list", runs=[]), "runs.json", "not a validation run"),
        ("a model without rows", damaged("norows", runs=edit(good, lambda r: r["models"][0].pop("rows"))),
         "runs.json", "models[0] (swin_t_b32_torchval).rows"),
        ("a row without measured_us", damaged("nomeas", runs=edit(good, lambda r: row0(r).pop("measured_us"))),
         "runs.json", "rows[0].measured_us"),
        ("measured_us as text", damaged("text", runs=edit(good, lambda r: row0(r).update(measured_us="7e4"))),
         "runs.json", "rows[0].measured_us"),
        ("a row without iteration times", damaged("notimes", runs=edit(good, lambda r: row0(r).update(times_us=[]))),
         "runs.json", "rows[0].times_us"),
        ("the workload cut short", damaged("cutwl", wl=json.dumps(good_wl)[:1000]), WL, "not readable as a workload"),
        ("the workload without its host block", damaged("nohost", wl=edit(good_wl, lambda w: w.pop("host"))),
         WL, "no host block"),
        ("the workload's host block not an object", damaged("hostlist", wl=edit(good_wl, lambda w: w.update(host=[2]))),
         WL, "no host block"),
        ("the workload without its gradients", damaged("nograds", wl=edit(good_wl, lambda w: w.pop("grads"))),
         WL, "grads"),
        ("the workload without DDP's costs", damaged("noddp", wl=edit(good_wl, lambda w: w["host"].pop("ddp"))),
         WL, "host.ddp"),
    ]
    for what, d, fname, word in cases:
        for more in (["--again"], ["--no-store"]):   # --again: past the check for a stored run
            r = store(d, db, *more)
            err = r.stderr.strip().splitlines()
            check("%s%s: exit 65, one line naming %s and '%s', the database as it was (%d, %r, %r)"
                  % (what, " (%s)" % more[0], fname, word, r.returncode, err, counts(db)),
                  r.returncode == 65 and len(err) == 1 and fname in err[0] and word in err[0] and
                  counts(db) == (12, 12, 12))
    r = store(damaged("nofusim"), db, "--again", fusim=os.path.join(tmp, "no", "fusim"))
    err = r.stderr.strip().splitlines()
    check("--fusim not there: exit 66, one line, the database as it was (%d, %r, %r)"
          % (r.returncode, err, counts(db)),
          r.returncode == 66 and len(err) == 1 and "fusim" in err[0] and counts(db) == (12, 12, 12))
sys.exit(1 if fails else 0)
