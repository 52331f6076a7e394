#!/usr/bin/env python3
"""test_analysis_input.py: the analysis scripts a user runs on files (data/validation's
bwd_split.py, slow_split.py, loop_issue_split.py, in_bwd_issue.py, issue_bytes.py; tools'
torch_fwcal.py, hf_host_from_log.py) on bad input, through tools/bad_input.py: a missing file is one line on
stderr naming the script and exit 66, a file that is not their input one line and exit 65 (they
ended in a Python traceback, exit 1)."""
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
    rundir = os.path.join(tmp, "run")            # a run folder whose runs.json is not JSON
    os.mkdir(rundir)
    with open(os.path.join(rundir, "runs.json"), "w") as f:
        f.write("not an analysis input\n")
    missing = os.path.join(tmp, "missing")
    V, T = os.path.join("data", "validation"), "tools"
    # script, arguments, exit status, whether it prints nothing on stdout before the error
    cases = [(V, "bwd_split.py", [missing], 66, True), (V, "bwd_split.py", [junk], 65, True),
             (V, "slow_split.py", [missing], 66, True), (V, "slow_split.py", [junk], 65, True),
             (V, "loop_issue_split.py", [missing], 66, True), (V, "loop_issue_split.py", [junk], 65, True),
             (V, "in_bwd_issue.py", [missing], 66, False), (V, "in_bwd_issue.py", [rundir], 65, False),
             (V, "in_bwd_issue.py", ["--per-plan", missing], 66, False),
             (V, "issue_bytes.py", [missing], 66, True), (V, "issue_bytes.py", [rundir], 65, True),
             (T, "torch_fwcal.py", [missing], 66, True), (T, "torch_fwcal.py", [junk], 65, True),
             (T, "hf_host_from_log.py", [missing, os.path.join(tmp, "out.json")], 66, True)]
    for where, script, args, want, quiet in cases:
        r = subprocess.run([sys.executable, os.path.join(ROOT, where, script)] + args,
                           capture_output=True, text=True)
        err = r.stderr.strip().splitlines()
        check("%s %s: exit %d, one line (got %d, %r)" % (script, " ".join(map(os.path.basename, args)),
                                                        want, r.returncode, r.stderr[-200:]),
              r.returncode == want and len(err) == 1 and err[0].startswith(script.split(".")[0] + ": ")
              and (r.stdout == "" or not quiet))
sys.exit(1 if fails else 0)
