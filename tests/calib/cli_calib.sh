#!/bin/sh
# cli_calib.sh FUSIM CASE: fusim calib's command line on any machine. Every bad option must be
# refused with exit 64 and ONE line on stderr before any GPU work: no GPU is needed to pass,
# and no database file may appear.
set -u
fusim=$1
case_=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=$tmp/calib.db

expect() {  # expect STATUS PATTERN -- args...
  want=$1 pat=$2
  shift 3
  "$fusim" calib --db "$db" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: fusim calib $*: exit $rc, expected $want"; cat "$tmp/err"; exit 1
  fi
  if [ -n "$pat" ] && ! grep -q -- "$pat" "$tmp/err"; then
    echo "FAIL: fusim calib $*: stderr lacks '$pat'"; cat "$tmp/err"; exit 1
  fi
  lines=$(wc -l <"$tmp/err")
  if [ "$want" -ne 0 ] && [ "$lines" -ne 1 ]; then
    echo "FAIL: fusim calib $*: $lines lines on stderr, expected one"; cat "$tmp/err"; exit 1
  fi
  if [ "$want" -eq 64 ] && [ -e "$db" ]; then
    echo "FAIL: fusim calib $*: database created on a usage error"; exit 1
  fi
}

case $case_ in
  order)      expect 64 'sizes out of order' -- -b 1GiB -e 4 ;;
  iters)      expect 64 'at least one timed iteration' -- -n 0 ;;
  warmup)     expect 64 '\-w' -- -w -3 ;;
  factor)     expect 64 'step factor' -- -f 0.5 ;;
  size)       expect 64 'expected a size' -- -e 12parsecs ;;
  dtype)      expect 64 "'complex' is not a valid item" -- -d float,complex ;;
  suite)      expect 64 "'gpu' is not a valid item" -- --suite gpu ;;
  unknown)    expect 64 'unknown option' -- --frobnicate ;;
  missing)    expect 64 'needs a value' -- -b ;;
  stray)      expect 64 'unexpected argument' -- extra ;;
  format)     expect 64 'expected table, csv or json' -- --format yaml ;;
  help)
    "$fusim" calib --help >"$tmp/out" 2>"$tmp/err" || { echo "FAIL: --help exit"; exit 1; }
    grep -q 'usage: fusim calib' "$tmp/out" || { echo "FAIL: --help not on stdout"; exit 1; }
    [ ! -s "$tmp/err" ] || { echo "FAIL: --help wrote to stderr"; exit 1; }
    ;;
  unwritable)
    # a database in a missing folder: refused before any GPU work (exit 70, or 69 when the
    # binary was built without CUDA and says so first)
    "$fusim" calib --quick --db /nonexistent-fusim-dir/x.db >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq 69 ] && grep -q 'built without CUDA' "$tmp/err"; then exit 0; fi
    [ "$rc" -eq 70 ] || { echo "FAIL: unwritable db: exit $rc"; cat "$tmp/err"; exit 1; }
    grep -q 'not writable' "$tmp/err" || { echo "FAIL: unwritable db message"; cat "$tmp/err"; exit 1; }
    ;;
  dbdir)
    # a folder given as the database: refused before any GPU work, one line
    "$fusim" calib --quick --db "$tmp" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq 69 ] && grep -q 'built without CUDA' "$tmp/err"; then exit 0; fi
    [ "$rc" -eq 70 ] || { echo "FAIL: db folder: exit $rc"; cat "$tmp/err"; exit 1; }
    grep -q 'not a regular file' "$tmp/err" || { echo "FAIL: db folder message"; cat "$tmp/err"; exit 1; }
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || { echo "FAIL: db folder: more than one line"; cat "$tmp/err"; exit 1; }
    ;;
  gpus)       expect 64 "\-g '0'" -- -g 0 ;;
  *) echo "unknown case $case_"; exit 2 ;;
esac
exit 0
