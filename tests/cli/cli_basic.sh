#!/bin/sh
# The fusim entry point: --help and --version, every subcommand's --help, and usage errors.
# usage: cli_basic.sh FUSIM
fusim=$1
fail=0
check() { # check DESCRIPTION EXPECTED_STATUS ACTUAL_STATUS
  if [ "$2" != "$3" ]; then echo "FAIL: $1: exit $3, expected $2" >&2; fail=1; fi
}
out=$("$fusim" --version); check "--version" 0 $?
case "$out" in "fusim "[0-9]*) ;; *) echo "FAIL: --version printed '$out'" >&2; fail=1 ;; esac
"$fusim" --help >/dev/null; check "--help" 0 $?
"$fusim" >/dev/null 2>&1; check "no command" 64 $?
err=$("$fusim" frobnicate 2>&1 >/dev/null); check "unknown command" 64 $?
[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || { echo "FAIL: unknown command: not one line: $err" >&2; fail=1; }
for cmd in calib import fit workload predict plan validate report; do
  out=$("$fusim" "$cmd" --help 2>/dev/null); check "$cmd --help" 0 $?
  printf '%s' "$out" | grep -qi "usage" || { echo "FAIL: $cmd --help prints no usage" >&2; fail=1; }
  "$fusim" "$cmd" --no-such-option >/dev/null 2>&1; st=$?
  check "$cmd --no-such-option" 64 $st
done
exit $fail
