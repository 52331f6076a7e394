#!/bin/sh
# callgrind_predict.sh FUSIM [NGRADS]: where the instructions of a whole-process
# `fusim predict --fusion none --no-store --format json` go, on bench_predict.sh's workload
# (default 20,000 gradients: callgrind runs ~50x slower than the program). Instruction counts do
# not drift with machine load as times do. Prints the instructions per event (sim_events, the
# nominal run), each library's own instructions (libc's are mostly reached through Jansson:
# glibc's printf of every real, strtod, the tree's malloc/free), and the inclusive counts of the
# phases: Jansson's dump and parse, the simulation (three engine runs) and fusim's own callback
# inside the dump. The last line: what the process would reach if every instruction in fusim's own
# code cost nothing, relative to now.
set -eu
fusim=$1
n=${2:-20000}
tmp=$(mktemp -d /tmp/fusim-callgrind-predict.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
python3 "$(dirname "$0")/synthetic_workload.py" "$tmp/w.json" "$n"
valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$fusim" predict --workload "$tmp/w.json" \
  --fusion none --no-store --format json >"$tmp/out.json" 2>"$tmp/log"
callgrind_annotate --threshold=100 "$tmp/cg.out" >"$tmp/self.txt"
callgrind_annotate --threshold=100 --inclusive=yes "$tmp/cg.out" >"$tmp/incl.txt"
python3 - "$tmp/out.json" "$tmp/self.txt" "$tmp/incl.txt" <<'PY'
import json, re, sys
ev = json.load(open(sys.argv[1]))["sim_events"]
row = re.compile(r"^\s*([0-9,]+) \([ 0-9.]+%\)\s+(\S+)(?:\s+\[(\S+)\])?")
total, by_obj = 0, {}
for line in open(sys.argv[2]):
    m = row.match(line)
    if not m:
        continue
    ir = int(m.group(1).replace(",", ""))
    if m.group(2) == "PROGRAM":
        total = ir
        continue
    obj = (m.group(3) or "libc.so.6").rsplit("/", 1)[-1]  # libc's inlined parts name no object
    obj = "fusim" if obj == "fusim" else re.sub(r"\.so.*", "", obj)
    by_obj[obj] = by_obj.get(obj, 0) + ir
incl = {}
for line in open(sys.argv[3]):
    m = row.match(line)
    if m and "'" not in m.group(2):  # recursion-cycle rows ('2) double-count
        name = m.group(2).rsplit(":", 1)[-1]
        incl.setdefault(name, int(m.group(1).replace(",", "")))
print("callgrind: %d instructions for %d events: %.0f per event" % (total, ev, total / ev))
for obj, ir in sorted(by_obj.items(), key=lambda x: -x[1]):
    if ir >= total / 1000:
        print("  own instructions of %-14s %5.1f%%" % (obj, 100.0 * ir / total))
for name, what in (("json_dump_callback", "Jansson dump of the output (with the callback below)"),
                   ("fu__json_put", "  fusim's callback gathering the dump's text"),
                   ("json_loads", "Jansson parse of the workload"),
                   ("fu_predict_plan", "simulation (graph, three engine runs, buckets)"),
                   ("fu_engine_run", "  the engine's three runs")):
    print("  inclusive %-52s %5.1f%%" % (what, 100.0 * incl.get(name, 0) / total))
own = by_obj.get("fusim", 0)
print("fusim's own instructions at zero cost (its calls into libc aside): at most %.2fx the present events/s" % (total / (total - own)))
PY
