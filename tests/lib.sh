# tests/lib.sh: the checks the shell tests share. A test sets T (its temporary folder) and sources
# this file:  . "$(dirname "$0")/../lib.sh"
# Every check counts in pass or fail; the test ends with `finish NAME` (one summary line on
# stderr, exit status 1 when a check failed). Commands run by expect leave their stdout and
# stderr in $T/out and $T/err.
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*" >&2; fail=$((fail + 1)); }

# expect STATUS CMD...: runs CMD and checks its exit status
expect() {
  want=$1
  shift
  "$@" >"$T/out" 2>"$T/err"
  got=$?
  if [ "$got" -eq "$want" ]; then ok; else bad "'$*' exited $got, expected $want: $(head -c 300 "$T/err")"; fi
}

# one_line TEXT: stderr is exactly one line, holding TEXT (a grep pattern; "" holds anything)
one_line() {
  n=$(wc -l <"$T/err")
  if [ "$n" -eq 1 ] && grep -q -- "$1" "$T/err"; then ok; else bad "stderr not one line with '$1': $(cat "$T/err")"; fi
}

# refused STATUS TEXT CMD...: CMD exits STATUS with one line on stderr holding TEXT
refused() {
  want=$1 text=$2
  shift 2
  expect "$want" "$@"
  [ "$got" -eq "$want" ] && one_line "$text"
}

# check NAME STATUS: the status of a test just made (0: it held): "ok   NAME", or a failure
check() { if [ "$2" -eq 0 ]; then echo "ok   $1"; ok; else bad "$1"; fi; }

# near GOT WANT TOL: exit status 0 when |GOT - WANT| <= TOL
near() { python3 -c "import sys; g, w, t = map(float, sys.argv[1:]); sys.exit(0 if abs(g - w) <= t else 1)" "$1" "$2" "$3"; }

# field FILE KEY: a top-level value of the JSON object in FILE
field() { python3 -c "import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

# sql DB QUERY: the first value of QUERY's first row (Python's sqlite3: the sqlite3 command is not
# on every machine the suite runs on)
sql() { python3 -c "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])" "$1" "$2"; }

finish() {
  echo "$1: $pass checks passed, $fail failed" >&2
  [ "$fail" -eq 0 ]
}
