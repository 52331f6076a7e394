#!/usr/bin/env python3
"""test_store_once.py FUSIM: tools/store_torch_validation.py stores a run once and whole. A
second store of the same run (under another spelling of its path) is refused in one line, exit
65, the database as it was (it doubled every measurement, and v_plan_accuracy counted each twice);
--again stores it once more. A run folder missing a model's captured workload is one line, exit
66, nothing stored (the first model was stored, then a traceback); a cut runs.json is one line,
exit 65 (a traceback). The run: data/validation/torch_h200_run20 (Swin-T, 12 rows)."""
import gzip
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

ROOT = os.environ.get("FUSIM_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
FUSIM = os.path.abspath(sys.argv[1])
TOOL = os.path.join(ROOT, "tools", "store_torch_validation.py")
fails = 0


def check(what, ok):
    global fails
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    fails += 0 if ok else 1


def store(rundir, db, *more):
    return subprocess.run([sys.executable, TOOL, rundir, "--db", db, "--fusim", FUSIM] + list(more),
                          capture_output=True, text=True)


def counts(db):
    if not os.path.exists(db):
        return (0, 0)
    c = sqlite3.connect(db)
    try:
        return tuple(c.execute("SELECT count(*) FROM " + t).fetchone()[0] for t in ("measurements", "predictions"))
    finally:
        c.close()


with tempfile.TemporaryDirectory() as tmp:
    run = os.path.join(tmp, "run")
    shutil.copytree(os.path.join(ROOT, "data", "validation", "torch_h200_run20"), run)
    db = os.path.join(tmp, "a.db")
    r = store(run, db)
    check("first store: exit 0, 12 measurements and predictions (%d, %r)" % (r.returncode, counts(db)),
          r.returncode == 0 and counts(db) == (12, 12))
    r = store(os.path.join(tmp, ".", "run") + "/", db)   # the same run, spelled otherwise
    err = r.stderr.strip().splitlines()
    check("second store refused: exit 65, one line, nothing added (%d, %r, %r)" % (r.returncode, err, counts(db)),
          r.returncode == 65 and len(err) == 1 and "stored in" in err[0] and counts(db) == (12, 12))
    r = store(run, db, "--again")
    check("--again: 24 (%d, %r)" % (r.returncode, counts(db)), r.returncode == 0 and counts(db) == (24, 24))

    # a model's captured workload missing: nothing stored
    bad = os.path.join(tmp, "nowl")
    shutil.copytree(run, bad)
    for f in os.listdir(bad):
        if f.startswith("wl_"):
            os.remove(os.path.join(bad, f))
    db2 = os.path.join(tmp, "b.db")
    r = store(bad, db2)
    err = r.stderr.strip().splitlines()
    check("missing workload: exit 66, one line, nothing stored (%d, %r, %r)" % (r.returncode, err, counts(db2)),
          r.returncode == 66 and len(err) == 1 and counts(db2) == (0, 0))

    # runs.json cut short (gzipped whole): one line, 65
    cut = os.path.join(tmp, "cut")
    shutil.copytree(run, cut)
    src = os.path.join(cut, "runs.json.gz")
    with gzip.open(src, "rt") as f:
        text = f.read()
    with gzip.open(src, "wt") as f:
        f.write(text[: len(text) // 2])
    r = store(cut, os.path.join(tmp, "c.db"))
    err = r.stderr.strip().splitlines()
    check("cut runs.json: exit 65, one line (%d, %r)" % (r.returncode, err[-1:] if err else err),
          r.returncode == 65 and len(err) == 1 and "not readable as a validation run" in err[0])
sys.exit(1 if fails else 0)
