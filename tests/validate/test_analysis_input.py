#!/usr/bin/env python3
"""test_analysis_input.py: data/validation's analysis scripts of this session (bwd_split.py,
loop_issue_split.py) on bad input: a missing file is one line on stderr and exit 66, a file that
is not their input one line and exit 65 (they ended in a Python traceback, exit 1)."""
import os
import subprocess
import sys
import tempfile

ROOT = os.environ.get("FUSIM_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
fails = 0


def check(what, ok):
    global fails
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    fails += 0 if ok else 1


with tempfile.TemporaryDirectory() as tmp:
    junk = os.path.join(tmp, "junk.txt")
    with open(junk, "w") as f:
        f.write("not an analysis input\n")
    for script in ("bwd_split.py", "loop_issue_split.py"):
        for arg, want in ((os.path.join(tmp, "missing"), 66), (junk, 65)):
            r = subprocess.run([sys.executable, os.path.join(ROOT, "data", "validation", script), arg],
                               capture_output=True, text=True)
            err = r.stderr.strip().splitlines()
            check("%s %s: exit %d, one line (got %d, %r)" % (script, os.path.basename(arg), want,
                                                            r.returncode, r.stderr[-200:]),
                  r.returncode == want and len(err) == 1 and script.split(".")[0] in err[0]
                  and r.stdout == "")
sys.exit(1 if fails else 0)
