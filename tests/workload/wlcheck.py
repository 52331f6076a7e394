"""wlcheck.py: what the hand-checked workload tests (host_timeline.sh, optim_step.sh,
host_ref.sh, emb_sort.py) share: the list of failures, a check within a tolerance, the bundled profile with a
host-speed probe set (its median and fastest reading), and the exit (one FAIL line each)."""
import json
import os
import sys

fails = []


def check(what, got, want, tol=1e-3, rel=0.0):
    """A failure line unless got is within tol + rel x |want| of want."""
    if not abs(got - want) <= tol + rel * abs(want):
        fails.append("%s: got %.4f, expected %.4f (+- %g)" % (what, got, want, tol + rel * abs(want)))


def profile(root, probe_us=7.0, probe_min_us=5.0):
    """The bundled profile, its host rows measured at a probe of probe_us (fastest probe_min_us)."""
    prof = json.load(open(os.path.join(root, "data", "profiles", "h200-default.json")))
    prof["compute"]["host_probe_us"], prof["compute"]["host_probe_min_us"] = probe_us, probe_min_us
    return prof


def finish():
    for f in fails:
        print("FAIL: " + f, file=sys.stderr)
    sys.exit(1 if fails else 0)
