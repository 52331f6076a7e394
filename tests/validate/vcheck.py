"""vcheck.py: what the tests of data/validation's scripts share: the source tree (ROOT;
FUSIM_SOURCE_ROOT where meson sets it) with data/validation on sys.path, one "ok" or "FAIL" line
per check, and the exit (1 if any failed)."""
import os
import sys

ROOT = os.environ.get("FUSIM_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "data", "validation"))

fails = 0


def check(name, ok):
    global fails
    print(("ok   " if ok else "FAIL ") + name)
    fails += not ok


def finish():
    sys.exit(1 if fails else 0)
