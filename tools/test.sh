#!/bin/sh
# Build and run the whole test suite; ends with the line "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
tools/build.sh || { echo "0 passed, 1 failed"; exit 1; }
meson test -C build --print-errorlogs --num-processes 2 --timeout-multiplier 3
python3 - build/meson-logs/testlog.json <<'PY'
import json, sys
counts = {}
for line in open(sys.argv[1]):
    line = line.strip()
    if line:
        r = json.loads(line)["result"]
        counts[r] = counts.get(r, 0) + 1
passed = counts.get("OK", 0) + counts.get("EXPECTEDFAIL", 0)
failed = sum(v for k, v in counts.items() if k not in ("OK", "EXPECTEDFAIL", "SKIP"))
print("%d skipped (no GPU here)" % counts.get("SKIP", 0))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
