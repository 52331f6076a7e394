#!/bin/sh
# reliab_cli.sh FUSIM: the reliability cases of issue 14, one block each: temporary files that a
# planted symlink cannot redirect, full disks (every write and close checked, what failed
# removed), gnuplot quoting, overflow, out-of-memory and endless inputs, impossible profiles,
# unchecked CSV, database edge cases. Every refusal is one line on stderr with exit 64, 65 or 66
# (74 for the machine's own i/o failures: a full disk; 75 for a database locked too long) and
# leaves the database as it was.
set -u
FUSIM=$1
case $FUSIM in /*) ;; *) FUSIM=$(pwd)/$FUSIM ;; esac
T=$(mktemp -d /tmp/fusim_reliab.XXXXXX)
trap 'rm -rf "$T"' EXIT
export TMPDIR="$T" # gnuplot's scripts and logs
. "$(dirname "$0")/../lib.sh"
# absent FILE...: none of the files exists
absent() {
  for f in "$@"; do [ -e "$f" ] && bad "$f was left behind ($(wc -c <"$f") bytes)" || ok; done
}
# only_files DIR NAME...: DIR holds exactly the named entries (no temporary file left over)
only_files() {
  d=$1
  shift
  have=$(ls -A "$d" | sort | tr '\n' ' ')
  want=$([ $# -gt 0 ] && printf '%s\n' "$@" | sort | tr '\n' ' ')
  [ "$have" = "$want" ] && ok || bad "$d holds '$have', expected '$want'"
}
# full CMD...: runs CMD with a file size limit of 8 blocks (4 KiB in dash, 8 KiB in bash; SIGXFSZ
# ignored, so writes past it fail with EFBIG, as on a full disk)
full() { (trap '' XFSZ; ulimit -f 8; exec "$@"); }

# A database with samples to fit: allreduce over nvlink at 8 ranks, t = 10 us + bytes / 100 GB/s.
# /dev/full reached through a link in $T: a fusim that renamed a temporary file over its target
# (the bug fixed here) replaces the link, never the device itself
ln -s /dev/full "$T/devfull"
DB="$T/f.db"
# snap [DB]: what the database holds, to compare before and after a refused command
snap() {
  python3 -c "
import sqlite3, sys
c = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)
print(*[c.execute('SELECT count(*) FROM ' + t).fetchone()[0] for t in
        ('runs', 'samples', 'fits', 'predictions', 'measurements')])" "${1:-$DB}" 2>&1
}
{
  echo "op,ranks,bytes,time_us,link"
  b=1024
  while [ $b -le 268435456 ]; do
    echo "allreduce,8,$b,$(awk -v b=$b 'BEGIN { printf "%.4f", 10 + b / 1e5 }'),nvlink"
    b=$((b * 4))
  done
} >"$T/samples.csv"
expect 0 "$FUSIM" import --db "$DB" "$T/samples.csv"

# ---- 2. temporary files: mkstemp beside the target, never a predictable name ----
mkdir "$T/tmpf"
echo "victim" >"$T/victim"
ln -s "$T/victim" "$T/tmpf/p.json.tmp" # where fit --out used to write first
expect 0 "$FUSIM" fit --db "$DB" --no-store --out "$T/tmpf/p.json"
[ "$(cat "$T/victim")" = "victim" ] && ok || bad "fit --out wrote through a planted symlink"
[ -f "$T/tmpf/p.json" ] && [ ! -L "$T/tmpf/p.json" ] && ok || bad "fit --out: the profile is not a plain file"
only_files "$T/tmpf" p.json p.json.tmp
# workload --out used X.tmp.PID: the shell that plants the link execs fusim under its own pid
rm -f "$T/tmpf"/*
expect 0 sh -c 'ln -s "$1" "$2.tmp.$$" && exec "$3" workload --check resnet50 --out "$2"' sh \
  "$T/victim" "$T/tmpf/w.json" "$FUSIM"
[ "$(cat "$T/victim")" = "victim" ] && ok || bad "workload --out wrote through a planted symlink"
[ -f "$T/tmpf/w.json" ] && [ ! -L "$T/tmpf/w.json" ] && ok || bad "workload --out: not a plain file"

# ---- 5. full disk: every write and close checked; nothing half-written is left ----
rm -rf "$T/full" && mkdir "$T/full"
# an output in a folder that is not there is a value the user can fix: exit 64, one line, nothing
# written (it was 70, "internal")
for args in "predict --workload resnet50 --no-store --trace $T/nodir/t.json" \
            "plan --workload bert_large --no-store --save-buckets $T/nodir/b.json" \
            "workload --check bert_large --out $T/nodir/w.json" \
            "fit --db $DB --no-store --out $T/nodir/p.json" \
            "predict --workload resnet50 --db $T/nodir/r.db"; do
  # shellcheck disable=SC2086
  expect 64 "$FUSIM" $args
  one_line "nodir"
done
absent "$T/nodir" "the missing folder"
expect 74 full "$FUSIM" predict --workload resnet50 --no-store --trace "$T/full/t.json"
one_line "t.json: cannot write: File too large"
expect 74 full "$FUSIM" plan --workload bert_large --no-store --save-buckets "$T/full/b.json"
one_line "b.json: cannot write: File too large"
expect 74 full "$FUSIM" workload --check bert_large --out "$T/full/w.json"
one_line "w.json: cannot write: File too large"
only_files "$T/full"
# workload --ops: the same (it warned, exited 0 and left the CSV cut at the limit)
expect 74 full "$FUSIM" workload --cnn resnet50 --ops "$T/full/o.csv"
grep -q "o.csv: cannot write: File too large" "$T/err" && ok || bad "workload --ops past the limit: $(cat "$T/err")"
only_files "$T/full"
expect 74 "$FUSIM" workload --transformer --arch llama --layers 2 --hidden 256 --heads 4 --ffn 512 \
  --vocab 1000 --seq 128 --micro-batch 1 --ops "$T/devfull"
grep -q "devfull: cannot write: No space left on device" "$T/err" && ok || bad "workload --ops /dev/full: $(cat "$T/err")"
# the same limit as a user sets it (ulimit -f, SIGXFSZ not ignored by the caller): fusim ignores
# the signal itself, so the write fails, one line, exit 74, nothing left (the signal killed it
# mid-write, exit 153, its temporary file left behind)
mkdir "$T/full2"
expect 74 sh -c 'trap - XFSZ; ulimit -f 8; exec "$@"' sh "$FUSIM" predict --workload resnet50 --no-store --trace "$T/full2/t.json"
one_line "t.json: cannot write: File too large"
expect 74 sh -c 'trap - XFSZ; ulimit -f 8; exec "$@"' sh "$FUSIM" workload --check bert_large --out "$T/full2/w.json"
one_line "w.json: cannot write: File too large"
only_files "$T/full2"
# a device that is full: written in place, the failure reported (fit cannot run under a file
# size limit: SQLite refuses a database larger than the limit)
expect 74 "$FUSIM" fit --db "$DB" --no-store --out "$T/devfull"
grep -q "devfull: cannot write: No space left on device" "$T/err" && ok || bad "fit --out /dev/full: $(cat "$T/err")"
expect 74 "$FUSIM" predict --workload resnet50 --no-store --trace "$T/devfull"
one_line "devfull: cannot write: No space left on device"
# stdout on a full disk: every command says so in one line and exits 74 (plan, predict's CSV,
# cost and import exited 0 with their output cut short; predict's table 74 without a word)
for args in "plan --workload resnet50 --no-store --format json" "plan --workload resnet50 --no-store --sweep" \
            "predict --workload resnet50 --no-store --format csv" "predict --workload resnet50 --no-store" \
            "cost --comm allreduce:8 --bytes 1MiB" "workload --list"; do
  # shellcheck disable=SC2086
  expect 74 sh -c 'exec "$@" >"$0"' "$T/devfull" "$FUSIM" $args
  one_line "cannot write the output: No space left on device"
done
if command -v gnuplot >/dev/null 2>&1; then
  expect 74 full "$FUSIM" plan --workload resnet50 --no-store --sweep --plot "$T/full/s.png"
  one_line "s.png: gnuplot wrote an incomplete PNG"
  only_files "$T/full"

  # ---- 6. gnuplot quoting: a name reaches gnuplot as a value (gnuplot -c ARG1), never syntax ----
  mkdir "$T/q"
  for name in "'a.png" "b''''c.png" "x'';system('touch pwned');'.svg" 'd"e\\f.png'; do
    expect 0 "$FUSIM" plan --workload resnet50 --no-store --sweep --plot "$T/q/$name"
    [ -s "$T/q/$name" ] && ok || bad "plot '$name' not written"
  done
  printf '{"format": "fusim-workload-1", "name": "n'"''"'x'"'"'; system(\\"touch pwned\\")", "fwd_us": 10, "bwd_us": 20, "grads": [{"name": "g", "bytes": 4096, "ready_us": 20}]}' >"$T/quoted.json"
  expect 0 "$FUSIM" plan --workload "$T/quoted.json" --no-store --sweep --plot "$T/q/n.png"
  absent "$T/q/pwned" pwned
  [ "$(ls "$T/q" | wc -l)" -eq 5 ] && ok || bad "quoted plots: $(ls "$T/q")"
fi

# validate --plot (from stored results, no GPU): the same gnuplot path as plan's
if command -v gnuplot >/dev/null 2>&1; then
  V="$FUSIM_SOURCE_ROOT/data/validation/h200_offload_matrix_run3.csv"
  mkdir -p "$T/vq"
  expect 0 "$FUSIM" validate --from-csv "$V" --plot "$T/vq/v''''x'.png"
  [ -s "$T/vq/v''''x'.png" ] && ok || bad "validate --plot with quotes in the name: not written"
  expect 74 full "$FUSIM" validate --from-csv "$V" --plot "$T/vq/full.png"
  one_line "full.png: gnuplot wrote an incomplete PNG"
  absent "$T/vq/full.png"
fi

# ---- 3. overflow: sizes that add up past 2^53 bytes are refused where the workload is read ----
python3 -c "
import json
print(json.dumps({'format': 'fusim-workload-1', 'name': 'huge', 'fwd_us': 100, 'bwd_us': 200,
  'grads': [{'name': 'g%d' % i, 'bytes': 2**53, 'ready_us': 100} for i in range(2048)]}))" >"$T/huge.json"
for cmd in "workload --check" "predict --no-store --workload" "plan --no-store --workload"; do
  expect 65 "$FUSIM" $cmd "$T/huge.json"
  one_line "huge.json: grads: the sizes add up to more than 2^53 bytes (8 PiB) by grads\[1\]"
done

# ---- 4. out of memory says so; a JSON or CSV report streams in bounded memory ----
# the smallest address-space limit (KiB) under which fusim starts at all (CUDA libraries, when
# linked, map a lot), plus 256 MiB of headroom
base=0
for v in 65536 131072 262144 524288 786432 1048576 1572864 2097152 4194304; do
  if (ulimit -v $v; exec "$FUSIM" --version) >/dev/null 2>&1; then base=$v; break; fi
done
if [ "$base" -gt 0 ]; then
  lim=$((base + 262144))
  rows="WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 300000) SELECT"
  cols="x AS a, x AS b, x AS c, x AS d, x AS e, x AS f, x AS g, x AS h, x AS i, x AS j"
  expect 70 sh -c 'ulimit -v $1; exec "$2" report --db "$3" sql "$4 $5, $5, $5, $5, $5, $5 FROM c"' sh \
    $lim "$FUSIM" "$DB" "$rows" "$cols"
  one_line "report sql: out of memory after [0-9]* rows"
  expect 0 sh -c 'ulimit -v $1; exec "$2" report --db "$3" --format json sql "$4 $5, $5 FROM c"' sh \
    $lim "$FUSIM" "$DB" "$rows" "$cols"
  [ "$(grep -c '"a":' "$T/out")" -eq 300000 ] && ok || bad "report --format json under a memory limit: $(grep -c '"a":' "$T/out") rows"
else
  bad "fusim does not start under a 4 GiB address-space limit"
fi
# inputs that cannot be what they claim are refused as they arrive, before memory runs out
before=$(snap)
expect 65 "$FUSIM" import --db "$DB" /dev/zero
one_line "/dev/zero: binary data (NUL bytes), not a text file"
expect 65 sh -c 'yes 0123456789012345678901234567890123456789 | tr -d "\n" | exec "$1" import --db "$2" /dev/stdin' \
  sh "$FUSIM" "$DB"
one_line "/dev/stdin: a line longer than 64 MiB, not a text file fusim reads"
[ "$(snap)" = "$before" ] && ok || bad "refused imports changed the database: $before -> $(snap)"
# a bucket file that never ends (a pipe) is refused once a line passes 64 MiB, as other inputs
expect 65 timeout 120 sh -c '{ printf "[[\""; yes 0123456789012345678901234567890123456789 | tr -d "\n"; } |
  exec "$1" predict --workload resnet50 --no-store --fusion buckets:/dev/stdin' sh "$FUSIM"
one_line "/dev/stdin: a line longer than 64 MiB"
# a query that fails while it runs is the query's fault: 65, one line
expect 65 "$FUSIM" report --db "$DB" sql "ATTACH '$T/no/such/dir/x.db' AS x"
one_line "report sql: unable to open database"
expect 65 "$FUSIM" report --db "$DB" sql "SELECT load_extension('$T/nothing')"
one_line "report sql: not authorized"
# output that cannot be written says so
expect 74 sh -c 'exec "$1" report --db "$2" --format csv runs >"$3"' sh "$FUSIM" "$DB" "$T/devfull"
one_line "report runs: cannot write the output: No space left on device"
# ---- 1. Horovod cycles below the clock's resolution or past infinity: refused, never a hang ----
for c in 1e-20 1e-15 1e307s 1e308s; do
  expect 64 timeout 20 "$FUSIM" predict --workload resnet50 --no-store --fusion "horovod:64MiB,$c"
  one_line "\-\-fusion 'horovod:64MiB,$c': cycle time"
  printf '{"fusion": "horovod:64MiB,%s"}\n' "$c" >"$T/hv.json"
  for cmd in "predict --workload resnet50 --no-store" "plan --workload resnet50 --no-store" \
    "validate --workload resnet50 --no-store"; do
    expect 65 timeout 20 "$FUSIM" $cmd --plan "$T/hv.json"
    one_line "hv.json: fusion 'horovod:64MiB,$c': cycle time"
  done
done

# ---- 7. impossible profiles: a segment whose time is not positive, naming curve and segment ----
python3 - "$T/negprof.json" <<'EOF'
import json, os, sys
p = json.load(open(os.path.join(os.environ["FUSIM_SOURCE_ROOT"], "data/profiles/h200-default.json")))
for c in p["curves"]:
    if c["link"] == "nvlink":
        for s in c["segments"]:
            s["alpha_us"] = -1e6
json.dump(p, open(sys.argv[1], "w"))
EOF
expect 65 "$FUSIM" predict --workload resnet50 --no-store --profile "$T/negprof.json"
one_line "negprof.json: curves\[[0-9]*\].segments\[0\].alpha_us: alpha_us -1e+06 .* (curve allreduce nvlink x[0-9]*): a time must be positive"
expect 65 "$FUSIM" plan --workload resnet50 --no-store --profile "$T/negprof.json"
one_line "a time must be positive"
# counts are whole numbers that fit an int: n_samples 1e12 was cast to int (undefined in C),
# 2.5 truncated; a conv table's kernel 1.5 likewise
for case in "n_samples 1e12 out.of.range" "n_samples 2.5 not.a.whole.number" "gpus_per_node 7.5 not.a.whole.number" \
            "kernel 1.5 whole.numbers.from.1.to.64"; do
  set -- $case
  python3 - "$T/cnt.json" "$1" "$2" <<'EOF'
import json, os, sys
p = json.load(open(os.path.join(os.environ["FUSIM_SOURCE_ROOT"], "data/profiles/h200-default.json")))
key, v = sys.argv[2], float(sys.argv[3])
if key == "n_samples":
    p["curves"][0]["segments"][0]["n_samples"] = v
elif key == "gpus_per_node":
    p["cluster"] = {"gpus_per_node": v}
else:
    p["compute"]["conv"][0]["kernel"] = v
json.dump(p, open(sys.argv[1], "w"))
EOF
  expect 65 "$FUSIM" predict --workload resnet50 --no-store --profile "$T/cnt.json"
  one_line "$3"
done

# ---- 8. validate --from-csv: every column what it claims ----
V="$FUSIM_SOURCE_ROOT/data/validation/h200_offload_matrix_run3.csv"
expect 0 "$FUSIM" validate --from-csv "$V"
for case in "n_ops -5 whole" "measured_us nan time" "measured_us 0 time" "measured_us -100 time" \
  "predicted_us NaN number" "verified 2 0"; do
  set -- $case
  python3 - "$V" "$T/v.csv" "$1" "$2" <<'EOF'
import sys
lines = [l for l in open(sys.argv[1]) if not l.startswith("#")]
hdr, row = lines[0].rstrip("\n").split(","), lines[1].rstrip("\n").split(",")
row[hdr.index(sys.argv[3])] = sys.argv[4]
open(sys.argv[2], "w").write(lines[0] + ",".join(row) + "\n")
EOF
  expect 65 "$FUSIM" validate --from-csv "$T/v.csv"
  one_line "v.csv:2: $1: .*$3"
done

# ---- 10. hex is not a number: a CSV time of 0x10 ----
printf 'op,ranks,bytes,time_us,link\nallreduce,8,1024,0x10,nvlink\n' >"$T/hex.csv"
before=$(snap)
expect 65 "$FUSIM" import --db "$DB" "$T/hex.csv"
one_line "hex.csv:2: time '0x10' is not a positive number"
[ "$(snap)" = "$before" ] && ok || bad "a refused import changed the database"

# ---- 10. duplicate keys: a profile refuses them, as workloads and plan files do ----
python3 - "$T/dupprof.json" <<'EOF'
import os, sys
t = open(os.path.join(os.environ["FUSIM_SOURCE_ROOT"], "data/profiles/h200-default.json")).read()
open(sys.argv[1], "w").write(t.replace('"name":', '"name": "twice", "name":', 1))
EOF
expect 65 "$FUSIM" predict --workload resnet50 --no-store --profile "$T/dupprof.json"
one_line "dupprof.json:.*duplicate object key"
printf '{"fusion": "single", "fusion": "none"}\n' >"$T/dupplan.json"
expect 65 "$FUSIM" predict --workload resnet50 --no-store --plan "$T/dupplan.json"
one_line "dupplan.json"

# ---- 10. report filters name an operation or a link: an unknown one was an empty table, exit 0 ----
expect 64 "$FUSIM" report --db "$DB" samples --op bogus
one_line "--op 'bogus': not an operation"
expect 64 "$FUSIM" report --db "$DB" samples --link nvlnk
one_line "--link 'nvlnk': not a link class"
# any spelling the importer takes filters alike
a=$("$FUSIM" report --db "$DB" --format csv samples --op allreduce | wc -l)
b=$("$FUSIM" report --db "$DB" --format csv samples --op All_Reduce | wc -l)
[ "$a" -gt 1 ] && [ "$a" = "$b" ] && ok || bad "report --op All_Reduce: $b lines, allreduce: $a"

# fit --base without --out was read by nothing (a bad path passed, exit 0)
expect 64 "$FUSIM" fit --db "$DB" --no-store --base "$T/no/such/p.json"
one_line "--base fills in the profile that --out writes"

# workload --profile/--ops under --check were ignored without a word: still run, with one warning
expect 0 "$FUSIM" workload --check resnet50 --profile "$T/no/such/p.json"
one_line "--profile and --ops price a generated workload"

# ---- 10. database edge cases ----
# --db "" was taken as "not given" and wrote ./fusim.db
mkdir "$T/cwd"
for cmd in "import $T/samples.csv" "fit" "report runs" "predict --workload resnet50" "plan --workload resnet50"; do
  expect 64 sh -c 'cd "$1" && shift && exec "$@"' sh "$T/cwd" "$FUSIM" $cmd --db ""
  one_line "\-\-db '': an empty file name"
done
only_files "$T/cwd"
# a FIFO: SQLite blocked reading it for ever
mkfifo "$T/fifo"
expect 64 "$FUSIM" report --db "$T/fifo" runs
one_line "fifo: not a regular file (a FIFO, device or socket), not a database file"
# a negative schema version: "table hosts already exists"
cp "$DB" "$T/neg.db"
python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('PRAGMA user_version = -5'); c.commit()" "$T/neg.db"
before=$(snap "$T/neg.db")
for cmd in "report runs" "import $T/samples.csv"; do
  expect 65 "$FUSIM" $cmd --db "$T/neg.db"
  one_line "neg.db: schema version -5 is not one fusim writes"
done
[ "$(snap "$T/neg.db")" = "$before" ] && ok || bad "a refused import changed neg.db"
# an empty file (what a reader sees while another process creates the database)
: >"$T/empty.db"
expect 66 env FUSIM_DB_BUSY_MS=200 "$FUSIM" report --db "$T/empty.db" runs
one_line "empty.db: an empty database: nothing has been stored in it yet"
# readers racing the process that creates the database: they wait for its schema (exit 0), or
# find no file yet (66); never "schema version 0" (70)
codes=""
for i in 1 2 3 4 5 6 7 8; do
  rm -f "$T/race.db" "$T/race.db-wal" "$T/race.db-shm"
  "$FUSIM" import --db "$T/race.db" "$T/samples.csv" >/dev/null 2>&1 &
  sleep 0.0$i
  "$FUSIM" report --db "$T/race.db" runs >/dev/null 2>"$T/err"
  c=$?
  wait
  codes="$codes $c"
  case $c in 0) ok ;; 66) one_line "race.db: no such database" ;; *) bad "a reader racing the creation exited $c: $(cat "$T/err")" ;; esac
done
# ---- 10. report check: integrity_check plus the schema's own rules ----
expect 0 "$FUSIM" predict --workload resnet50 --db "$DB"
expect 0 "$FUSIM" report --db "$DB" check
grep -q "f.db: ok (integrity_check, foreign keys, schema version and [0-9]* rules" "$T/out" && ok || bad "report check on a sound database: $(cat "$T/out")"
cp "$DB" "$T/chk.db"
python3 - "$T/chk.db" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("PRAGMA ignore_check_constraints = 1")  # what another tool may do
c.execute("UPDATE samples SET ranks = -3 WHERE id IN (SELECT id FROM samples LIMIT 2)")
c.execute("UPDATE workloads SET json = json_set(json, '$.fwd_us', 1) WHERE id = (SELECT min(id) FROM workloads)")
c.commit()
EOF
expect 65 "$FUSIM" report --db "$T/chk.db" check
one_line "report check: .*chk.db: 2 problems"
grep -q "^samples: CHECK (ranks >= 1): broken by 2 rows" "$T/out" && ok || bad "report check: no CHECK line: $(cat "$T/out")"
grep -q "^workloads rowid [0-9]*: hash .* is not the SHA-256 of its JSON" "$T/out" && ok || bad "report check: no hash line: $(cat "$T/out")"
# random bytes over 12 pages (the first, the header, left whole)
cp "$DB" "$T/rnd.db"
python3 - "$T/rnd.db" <<'EOF'
import os, random, sys
random.seed(14)
n = os.path.getsize(sys.argv[1]) // 4096
with open(sys.argv[1], "r+b") as f:
    for pg in random.sample(range(2, n + 1), min(12, n - 1)):
        f.seek((pg - 1) * 4096)
        f.write(bytes(random.getrandbits(8) for _ in range(4096)))
EOF
expect 65 "$FUSIM" report --db "$T/rnd.db" check
one_line "report check: .*rnd.db: [0-9]* problem"
expect 66 "$FUSIM" report --db "$T/none.db" check
one_line "none.db: no such database"

finish reliab_cli
