#!/bin/sh
# Build and run the whole test suite; ends with the line "N passed, N failed".
# A skipped test (exit 77) counts as a failure unless it is in the 'gpu' suite (it needs a GPU
# that this machine lacks): every other test must run from a clone alone.
# BUILD (default build) names the build folder; tools/build.sh configures it when missing.
# JOBS (default 2) tests run at once; NO_GPU=1 leaves the 'gpu' suite out (a GPU machine with
# little time).
set -u
cd "$(dirname "$0")/.."
build=${BUILD:-build}
if [ "$build" = build ]; then
  tools/build.sh || { echo "0 passed, 1 failed"; exit 1; }
else
  ninja -C "$build" >/dev/null || { echo "0 passed, 1 failed"; exit 1; }
fi
rm -f "$build/meson-logs/testlog.json"
nogpu=""
[ "${NO_GPU:-0}" = 1 ] && nogpu="--no-suite gpu"
# shellcheck disable=SC2086 # $nogpu is empty or two words
meson test -C "$build" --print-errorlogs --num-processes "${JOBS:-2}" --timeout-multiplier 3 $nogpu
meson introspect --tests "$build" >"$build/meson-logs/tests.json" || { echo "0 passed, 1 failed"; exit 1; }
python3 - "$build/meson-logs/tests.json" "$build/meson-logs/testlog.json" <<'PY'
import json, sys
tests = json.load(open(sys.argv[1]))
# names of the tests that may skip: those in the gpu suite ("fusim:gpu" from introspection)
gpu = {t["name"] for t in tests if any(s.split(":")[-1] == "gpu" for s in t["suite"])}
passed = failed = skipped = 0
try:
    log = open(sys.argv[2])
except OSError as e:
    print("test.sh: no test log (%s)" % e, file=sys.stderr)
    print("0 passed, 1 failed")
    sys.exit(1)
for line in log:
    line = line.strip()
    if not line:
        continue
    r = json.loads(line)
    name = r["name"].split(" / ", 1)[-1]  # "fusim:calib+gpu / calib-gpu" -> "calib-gpu"
    if r["result"] in ("OK", "EXPECTEDFAIL"):
        passed += 1
    elif r["result"] == "SKIP" and name in gpu:
        skipped += 1
    elif r["result"] == "SKIP":
        print("test.sh: %s skipped but is not a GPU test: counted as failed" % name, file=sys.stderr)
        failed += 1
    else:
        failed += 1
print("%d skipped (GPU tests, no GPU here)" % skipped)
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
