#!/bin/sh
# out_paths.sh FUSIM: output paths are checked while the options are read (model/fu_options.c,
# fu_opt_parse_out): a file the command would write (--out, --trace, --plot, --save-buckets,
# --ops) or a database (--db) in a folder that does not exist, or that is a folder itself, stops
# the command with exit 64 and one line naming the option, before any work: no database is
# created and nothing is written. Then: a database another writer holds locked loses nothing
# already stored (exit 75 after $FUSIM_DB_BUSY_MS) and takes the row once the lock is gone.
set -u
FUSIM=$1
case $FUSIM in /*) ;; *) FUSIM=$(pwd)/$FUSIM ;; esac
T=$(mktemp -d /tmp/fusim_out_paths.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
mkdir "$T/w"
cd "$T/w" || exit 1
DB=$T/w/r.db
NO=$T/no-such-folder
W="--workload resnet50"

# bad_path OPTION CMD...: exit 64, one line naming OPTION, and the work folder still empty
bad_path() {
  opt=$1
  shift
  refused 64 "fusim: $1: $opt '" "$FUSIM" "$@"
  [ -z "$(ls -A "$T/w")" ] && ok || bad "'$*' left $(ls -A "$T/w") behind"
  rm -rf "${T:?}/w/"* 2>/dev/null
}
bad_path --trace predict $W --db "$DB" --trace "$NO/t.json"
bad_path --trace predict $W --db "$DB" --trace "$T"
bad_path --db predict $W --db "$NO/r.db"
bad_path --db predict $W --db "$T/w"
bad_path --save-buckets plan $W --db "$DB" --save-buckets "$NO/b.json"
bad_path --plot plan $W --db "$DB" --sweep --plot "$NO/p.png"
bad_path --out workload --cnn resnet50 --out "$NO/w.json"
bad_path --ops workload --cnn resnet50 --ops "$NO/o.csv"
bad_path --out fit --db "$DB" --out "$NO/p.json"
bad_path --plot fit --db "$DB" --plot "$NO/p.png"
bad_path --plot validate $W --db "$DB" --plot "$NO/p.png"
bad_path --db calib --db "$NO/c.db"
bad_path --db report --db "$NO/r.db" runs
bad_path --db import --db "$NO/r.db" "$T/none.txt"
# the reason is said: no folder, not a folder, a folder, an empty name
refused 64 "folder $NO: No such file or directory;" "$FUSIM" predict $W --no-store --trace "$NO/t.json"
refused 64 "'$T': a folder, not a file;" "$FUSIM" predict $W --no-store --trace "$T"
touch "$T/file"
refused 64 "$T/file is not a folder;" "$FUSIM" predict $W --no-store --trace "$T/file/t.json"
refused 64 "an empty file name;" "$FUSIM" workload --cnn resnet50 --out ""
refused 64 "must end in .png or .svg;" "$FUSIM" plan $W --no-store --sweep --plot "$T/w/p.jpg"
# a line break in the name: still one line (shown as '?')
refused 64 "a?b.png': the file name holds a control character;" "$FUSIM" plan $W --no-store --sweep \
  --plot "$T/w/a
b.png"
# a folder that takes no new files (root writes anywhere: run as nobody)
mkdir "$T/ro" && chmod 555 "$T/ro" && chmod 711 "$T"
if [ "$(id -u)" = 0 ]; then
  refused 64 "folder $T/ro: Permission denied" setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$FUSIM" workload --cnn resnet50 --out "$T/ro/w.json"
else
  refused 64 "folder $T/ro: Permission denied" "$FUSIM" workload --cnn resnet50 --out "$T/ro/w.json"
fi
[ -z "$(ls -A "$T/ro")" ] && ok || bad "the read-only folder holds $(ls -A "$T/ro")"

# what stays allowed: stdout ("-"), a file that is not a regular one (written in place), a bare
# name in the current folder
expect 0 "$FUSIM" workload --cnn resnet50 --out -
grep -q '"fusim-workload-1"' "$T/out" && ok || bad "workload --out - printed no workload"
expect 0 "$FUSIM" predict $W --no-store --trace /dev/null
expect 0 "$FUSIM" predict $W --no-store --trace t.json
[ -s t.json ] && ok || bad "predict --trace t.json wrote nothing"

# a path that names a descriptor ("-", /dev/stdout, /dev/fd/N) is written through it, whatever it
# holds: here a regular file the shell opened (the temporary file renamed over the link never
# reached it: /dev/fd/3 was refused, "-" made a file named "-", and /dev/stdout with stdout in a
# file was replaced by a regular file, for root)
mkdir "$T/fd"
expect 0 sh -c 'exec "$@" 3>"$0"' "$T/fd/t3.json" "$FUSIM" predict $W --no-store --trace /dev/fd/3
python3 -c "import json, sys; assert json.load(open(sys.argv[1]))['traceEvents']" "$T/fd/t3.json" \
  && ok || bad "--trace /dev/fd/3 3>FILE: no trace in the file: $(head -c 200 "$T/err")"
expect 0 sh -c 'cd "$0" && exec "$@"' "$T/fd" "$FUSIM" plan $W --no-store --format json --save-buckets -
[ ! -e "$T/fd/-" ] && ok || bad "--save-buckets - made a file named '-'"
python3 -c "
import json, sys
s = open(sys.argv[1]).read(); d = json.JSONDecoder()
b, i = d.raw_decode(s); rows, _ = d.raw_decode(s[i:].lstrip())
assert isinstance(b, list) and isinstance(rows, list) and 'plan' in rows[0]" "$T/out" \
  && ok || bad "--save-buckets -: not the buckets then plan's JSON on stdout: $(head -c 200 "$T/out")"
refused 64 "descriptor 7 is not open for writing" "$FUSIM" predict $W --no-store --trace /dev/fd/7

# A locked database loses nothing: two predictions stored, another writer holds the write lock,
# a third waits 300 ms and gives up (75, one line); the two rows are as they were; once the lock
# is gone the third is stored.
rm -f t.json
expect 0 "$FUSIM" predict $W --db "$DB"
expect 0 "$FUSIM" predict $W --fusion none --db "$DB"
rows() {
  python3 -c "
import hashlib, sqlite3, sys
c = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)
rows = c.execute('SELECT * FROM predictions ORDER BY id').fetchall()
print(len(rows), hashlib.sha256(repr(rows).encode()).hexdigest())" "$DB"
}
before=$(rows)
case $before in "2 "*) ok ;; *) bad "two stored predictions expected: $before" ;; esac
python3 - "$DB" "$T/held" "$T/release" <<'PY' &
import os, sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")
open(sys.argv[2], "w").close()
for _ in range(200):  # until the test says so, at most 10 s
    if os.path.exists(sys.argv[3]):
        break
    time.sleep(0.05)
c.execute("ROLLBACK")
PY
holder=$!
i=0
while [ ! -e "$T/held" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -e "$T/held" ] && ok || bad "the lock holder did not start"
refused 75 "database is locked by another process; gave up after 300 ms" \
  env FUSIM_DB_BUSY_MS=300 "$FUSIM" predict $W --fusion single --db "$DB"
touch "$T/release"
wait $holder
[ "$(rows)" = "$before" ] && ok || bad "the locked database changed: $before -> $(rows)"
expect 0 "$FUSIM" predict $W --fusion single --db "$DB"
case $(rows) in "3 "*) ok ;; *) bad "the prediction after the lock was not stored: $(rows)" ;; esac

finish out_paths
