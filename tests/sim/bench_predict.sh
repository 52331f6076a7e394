#!/bin/sh
# bench_predict.sh FUSIM [NGRADS] [FUSION]: whole-process speed of `fusim predict --no-store
# --format json` on a generated workload of NGRADS gradients (default 200,000, one every 0.5 us,
# 4-28 KiB each; fusion default none: one operation, so one JSON bucket object, per gradient).
# Prints the wall time of the whole process (load, simulate three times for the interval, print)
# and events per second = the sim_events it reports / wall seconds (issue 9's target: 5 M/s).
set -u
fusim=$1
n=${2:-200000}
fusion=${3:-none}
tmp=$(mktemp -d /tmp/fusim-bench-predict.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
python3 - "$tmp/w.json" "$n" <<'PY'
import json, sys
n = int(sys.argv[2])
g = [{"name": "layer%d.weight" % i, "bytes": 4096 * (1 + i % 7), "ready_us": 0.5 * (i + 1)}
     for i in range(n)]
json.dump({"format": "fusim-workload-1", "name": "synthetic_%d" % n, "fwd_us": 50000.0,
           "bwd_us": 0.5 * n + 10, "opt_us": 0.0, "grads": g}, open(sys.argv[1], "w"))
PY
t0=$(date +%s.%N)
"$fusim" predict --workload "$tmp/w.json" --fusion "$fusion" --no-store --format json >"$tmp/out.json" || exit 1
t1=$(date +%s.%N)
ev=$(grep -m1 -o '"sim_events": [0-9]*' "$tmp/out.json" | grep -o '[0-9]*$')
python3 -c "import sys; n, f, ev, a, b = sys.argv[1:]; w = float(b) - float(a); print('predict --fusion %s, %s gradients: %d events in %.3f s wall: %.2f M events/s' % (f, n, int(ev), w, int(ev) / w / 1e6))" "$n" "$fusion" "$ev" "$t0" "$t1"
