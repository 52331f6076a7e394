#!/bin/sh
# bench_predict.sh FUSIM [NGRADS] [FUSION]: whole-process speed of `fusim predict --no-store
# --format json` on a generated workload of NGRADS gradients (default 200,000, one every 0.5 us,
# 4-28 KiB each; fusion default none: one operation, so one JSON bucket object, per gradient).
# Prints the wall and CPU time and the peak resident memory of the whole process (load, simulate,
# print) and events per second = the sim_events it reports / seconds (issue 9's target: 5 M/s).
# An event is what the engine pops from its heap and acts on: a task's latency or work ended, or a
# grid point reached; a completion time superseded by a rate change is not one. With --fusion none
# each gradient makes four (its compute segment, its issue, its operation's latency and its
# transfer) and the forward, backward tail and optimizer one each: 4 NGRADS + 3, checked below.
# sim_events counts the nominal run only: the engine also runs the graph at the two bounds of the
# interval (three runs), so it processes about three times as many events as the figure counts.
# With FUSIM_JSON_FLOOR (bench_json_floor, set by meson), also what Jansson alone costs for the
# same input and output: the floor under any Jansson-based predict.
set -u
fusim=$1
n=${2:-200000}
fusion=${3:-none}
tmp=$(mktemp -d /tmp/fusim-bench-predict.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
python3 "$(dirname "$0")/synthetic_workload.py" "$tmp/w.json" "$n" || exit 1
# Wall time, and CPU time (user + system) of the process: on a machine shared with other jobs
# the wall time also counts time given to others.
python3 - "$fusim" "$tmp/w.json" "$fusion" "$tmp/out.json" "$n" <<'PY'
import re, resource, subprocess, sys, time
fusim, wl, fusion, out, n = sys.argv[1:]
t0 = time.monotonic()
with open(out, "w") as f:
    rc = subprocess.run([fusim, "predict", "--workload", wl, "--fusion", fusion, "--no-store",
                         "--format", "json"], stdout=f).returncode
wall = time.monotonic() - t0
if rc != 0:
    sys.exit(1)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = ru.ru_utime + ru.ru_stime
rss = ru.ru_maxrss / 1024.0  # kB on Linux
with open(out) as f:
    ev = int(re.search(r'"sim_events": (\d+)', f.read(4096)).group(1))
if fusion == "none" and ev != 4 * int(n) + 3:
    sys.exit("sim_events %d, expected 4 x %s + 3 = %d" % (ev, n, 4 * int(n) + 3))
print("predict --fusion %s, %s gradients, --no-store --format json: %d events; wall %.3f s: "
      "%.2f M events/s; CPU %.3f s: %.2f M events/s (target 5 M/s); peak RSS %.0f MB"
      % (fusion, n, ev, wall, ev / wall / 1e6, cpu, ev / cpu / 1e6, rss))
with open(out + ".events", "w") as f:
    f.write("%d\n" % ev)
PY
[ $? = 0 ] || exit 1
if [ -n "${FUSIM_JSON_FLOOR:-}" ]; then
  "$FUSIM_JSON_FLOOR" "$tmp/w.json" "$tmp/out.json" "$(cat "$tmp/out.json.events")" || exit 1
fi
