#!/usr/bin/env python3
"""test_analysis_input.py: the analysis scripts a user runs on files (data/validation's
bwd_split.py, slow_split.py, loop_issue_split.py, in_bwd_issue.py, issue_bytes.py; tools'
torch_fwcal.py, hf_host_from_log.py, compare_compute.py, gen_workloads.py, host_rows_median.py,
device_rows_median.py) on bad input, through tools/bad_input.py: a missing file is one line on
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
    capdir = os.path.join(tmp, "caps")
    os.mkdir(capdir)
    with open(os.path.join(capdir, "cut.json"), "w") as f:
        f.write('{"meta": {"model": ')
    notobj = os.path.join(tmp, "list.json")
    with open(notobj, "w") as f:
        f.write("[]\n")
    V, T = os.path.join("data", "validation"), "tools"
    # script, arguments, exit status, whether it prints nothing on stdout before the error
    cases = [(V, "bwd_split.py", [missing], 66, True), (V, "bwd_split.py", [junk], 65, True),
             (V, "slow_split.py", [missing], 66, True), (V, "slow_split.py", [junk], 65, True),
             (V, "loop_issue_split.py", [missing], 66, True), (V, "loop_issue_split.py", [junk], 65, True),
             (V, "in_bwd_issue.py", [missing], 66, False), (V, "in_bwd_issue.py", [rundir], 65, False),
             (V, "in_bwd_issue.py", ["--per-plan", missing], 66, False),
             (V, "issue_bytes.py", [missing], 66, True), (V, "issue_bytes.py", [rundir], 65, True),
             (T, "torch_fwcal.py", [missing], 66, True), (T, "torch_fwcal.py", [junk], 65, True),
             (T, "hf_host_from_log.py", [missing, os.path.join(tmp, "out.json")], 66, True),
             # a capture folder holding a truncated file (a JSONDecodeError traceback, naming no
             # file), a missing fusim, calibration files that are not objects (AttributeError)
             (T, "compare_compute.py", ["--captures", capdir, "--heldout", "", "--others", ""], 65, False),
             (T, "gen_workloads.py", ["--fusim", missing, "--out", tmp], 66, True),
             (T, "host_rows_median.py", [os.path.join(tmp, "o.json"), notobj, notobj], 65, True),
             (T, "device_rows_median.py", [os.path.join(tmp, "o.json"), notobj, notobj], 65, True)]
    for where, script, args, want, quiet in cases:
        r = subprocess.run([sys.executable, os.path.join(ROOT, where, script)] + args,
                           capture_output=True, text=True)
        err = r.stderr.strip().splitlines()
        check("%s %s: exit %d, one line (got %d, %r)" % (script, " ".join(map(os.path.basename, args)),
                                                        want, r.returncode, r.stderr[-200:]),
              r.returncode == want and len(err) == 1 and err[0].startswith(script.split(".")[0] + ": ")
              and (r.stdout == "" or not quiet))
        if script == "compare_compute.py":
            check("compare_compute names the file that is not JSON", err[:1] and "cut.json: not JSON" in err[0])
sys.exit(1 if fails else 0)
