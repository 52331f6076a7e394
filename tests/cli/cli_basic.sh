#!/bin/sh
# The fusim entry point: --help and --version, every subcommand's --help, and usage errors.
# usage: cli_basic.sh FUSIM
fusim=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
# status DESCRIPTION EXPECTED_STATUS ACTUAL_STATUS
status() { if [ "$2" = "$3" ]; then ok; else bad "$1: exit $3, expected $2"; fi; }
out=$("$fusim" --version); status "--version" 0 $?
case "$out" in "fusim "[0-9]*) ;; *) bad "--version printed '$out'" ;; esac
"$fusim" --help >/dev/null; status "--help" 0 $?
"$fusim" >/dev/null 2>&1; status "no command" 64 $?
err=$("$fusim" frobnicate 2>&1 >/dev/null); status "unknown command" 64 $?
[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || bad "unknown command: not one line: $err"
for cmd in calib import fit workload predict plan validate report; do
  out=$("$fusim" "$cmd" --help 2>/dev/null); status "$cmd --help" 0 $?
  printf '%s' "$out" | grep -qi "usage" || bad "$cmd --help prints no usage"
  "$fusim" "$cmd" --no-such-option >/dev/null 2>&1; st=$?
  status "$cmd --no-such-option" 64 $st
done
finish cli_basic
