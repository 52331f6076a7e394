#!/bin/sh
# cli_calib.sh FUSIM CASE: fusim calib's command line on any machine. Every bad option must be
# refused with exit 64 and ONE line on stderr before any GPU work: no GPU is needed to pass,
# and no database file may appear.
set -u
fusim=$1
case_=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
db=$T/calib.db
# usage PATTERN ARGS...: fusim calib --db DB ARGS: exit 64, one line holding PATTERN, no database
usage() {
  pat=$1
  shift
  refused 64 "$pat" "$fusim" calib --db "$db" "$@"
  [ -e "$db" ] && bad "fusim calib $*: database created on a usage error"
}

case $case_ in
  order)      usage 'sizes out of order' -b 1GiB -e 4 ;;
  iters)      usage 'at least one timed iteration' -n 0 ;;
  warmup)     usage '\-w' -w -3 ;;
  factor)     usage 'step factor' -f 0.5 ;;
  size)       usage 'expected a size' -e 12parsecs ;;
  dtype)      usage "'complex' is not a valid item" -d float,complex ;;
  suite)      usage "'gpu' is not a valid item" --suite gpu ;;
  unknown)    usage 'unknown option' --frobnicate ;;
  missing)    usage 'needs a value' -b ;;
  stray)      usage 'unexpected argument' extra ;;
  format)     usage 'expected table, csv or json' --format yaml ;;
  help)
    expect 0 "$fusim" calib --help
    grep -q 'usage: fusim calib' "$T/out" || bad "--help not on stdout"
    [ ! -s "$T/err" ] || bad "--help wrote to stderr"
    ;;
  unwritable)
    # a database in a missing folder: refused as the options are read, before any GPU work
    usage "folder /nonexistent-fusim-dir: No such file or directory" --quick --db /nonexistent-fusim-dir/x.db ;;
  dbdir)
    # a folder given as the database: refused as the options are read, one line
    refused 64 "a folder, not a file" "$fusim" calib --quick --db "$T" ;;
  gpus)       usage "\-g '0'" -g 0 ;;
  *) echo "unknown case $case_"; exit 2 ;;
esac
finish "cli_calib $case_"
