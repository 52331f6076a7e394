#!/bin/sh
# bad_flags.sh FUSIM: every subcommand (from `fusim --help`) with a bad value for every option
# (from the command's own option table: the hidden `CMD --list-options`), so that a new command
# or flag is covered without writing a test. Each case runs the command in a context where it
# would otherwise work (BASE below: a workload, a CSV, a report name) and --db on a database with
# samples and a prediction, and checks: exit 64, 65 or 66; exactly one line on stderr; the
# database unchanged. The cases for one option:
#  - the option last with no value ("needs a value");
#  - the refused example value --list-options gives (parse time), e.g. --format yaml, --db '';
#  - a flag given a value (--strict=1);
#  - an option checked after parsing (a file, a plan, a spec: BAD "-"): a path in a folder that
#    does not exist. A command may take any string there (a name, notes): exit 0 is then listed
#    as "takes any string", not failed; without a GPU, validate and calib exit 69 after their
#    checks, which is listed too. An output (--out, --trace) in a missing folder is a value the
#    user must change: 64 like any other. Anything else (70, a crash, two lines) fails.
# Plus an unknown option per command. An unknown option, a missing value and a value given to a
# flag must point at 'fusim CMD --help' (report --bogus printed 17 lines of usage, import 25).
# Prints the counts; exits 1 on a failure.
set -u
FUSIM=$1
case $FUSIM in /*) ;; *) FUSIM=$(pwd)/$FUSIM ;; esac
T=$(mktemp -d /tmp/fusim_badflags.XXXXXX)
trap 'rm -rf "$T"' EXIT
export TMPDIR="$T"
. "$(dirname "$0")/../lib.sh"
cd "$T" || exit 1
anystr=0 nogpu=0

# The database: samples and a stored prediction; SNAP is what it holds (every row of every table).
DB="$T/f.db"
{
  echo "op,ranks,bytes,time_us,link"
  for b in 1024 65536 1048576 16777216 268435456; do echo "allreduce,8,$b,$((10 + b / 100000)),nvlink"; done
} >"$T/samples.csv"
"$FUSIM" import --db "$DB" "$T/samples.csv" >/dev/null 2>&1 || bad "import of the fixture failed"
"$FUSIM" predict --db "$DB" --workload resnet50 >/dev/null 2>&1 || bad "predict of the fixture failed"
snap() {
  python3 -c "
import hashlib, sqlite3, sys
c = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)
print(hashlib.sha256('\n'.join(c.iterdump()).encode()).hexdigest())" "$DB" 2>&1
}
# the files' sizes and modification times: a cheap first look (a command that wrote nothing
# leaves them as they were), the content compared when they moved
stamp() { stat -c '%s %Y.%y' "$DB" "$DB-wal" 2>/dev/null | tr '\n' ' '; }
cp "$DB" "$T/pristine.db"
SNAP=$(snap)
STAMP=$(stamp)

# The context each command works in; a command not listed here runs with no arguments.
base() {
  case $1 in
  import) echo "$T/samples.csv" ;;
  workload) echo "--check resnet50" ;;
  predict | plan | validate) echo "--workload resnet50" ;;
  cost) echo "--comm allreduce:8:nvlink --bytes 1MiB" ;;
  report) echo "runs" ;;
  esac
}

# case_ WHAT ARGS...: runs FUSIM ARGS, judges exit status, stderr and the database
case_() {
  what=$1
  shift
  "$@" >"$T/out" 2>"$T/err"
  rc=$?
  n=$(wc -l <"$T/err" | tr -d ' ')
  case $rc in
  64 | 65 | 66)
    if [ "$n" -ne 1 ]; then
      bad "$what: exit $rc with $n lines on stderr: $(head -c 400 "$T/err")"
    elif [ "$helpful" = 1 ] && ! grep -q "see 'fusim $cmd --help'" "$T/err"; then
      bad "$what: the line does not point at 'fusim $cmd --help': $(cat "$T/err")"
    else
      pass=$((pass + 1))
    fi
    if [ "$(stamp)" != "$STAMP" ]; then
      [ "$(snap)" = "$SNAP" ] || bad "$what: exit $rc but the database changed"
      cp "$T/pristine.db" "$DB"
      rm -f "$DB-wal" "$DB-shm"
      STAMP=$(stamp)
    fi
    ;;
  0)
    if [ "$anyok" = 1 ]; then
      anystr=$((anystr + 1))
      echo "takes any string: $what" >>"$T/anystr"
      cp "$T/pristine.db" "$DB"
      rm -f "$DB-wal" "$DB-shm"
      STAMP=$(stamp)
    else
      bad "$what: exit 0"
    fi
    ;;
  69)
    if [ "$anyok" = 1 ] && grep -qi "gpu\|cuda\|nvml" "$T/err"; then
      nogpu=$((nogpu + 1))
      echo "no GPU here (exit 69, checked after): $what" >>"$T/nogpu"
    else
      bad "$what: exit 69: $(head -c 300 "$T/err")"
    fi
    ;;
  *) bad "$what: exit $rc: $(head -c 400 "$T/err")" ;;
  esac
}

cmds=$("$FUSIM" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 && $1 != "commands:" { print $1 }')
[ -n "$cmds" ] || bad "fusim --help lists no commands"
tab=$(printf '\t')
for cmd in $cmds; do
  if ! "$FUSIM" "$cmd" --list-options >"$T/list" 2>"$T/err"; then
    bad "$cmd --list-options: exit $?: $(head -c 200 "$T/err")"
    continue
  fi
  b=$(base "$cmd")
  dbarg=""
  grep -q "^--db$tab" "$T/list" && dbarg="--db $DB"
  anyok=0 helpful=1 # a usage error of the command line points at its --help
  # shellcheck disable=SC2086
  case_ "$cmd --no-such-option" "$FUSIM" "$cmd" $b $dbarg --no-such-option
  while IFS=$tab read -r sp kind badv; do
    case "$sp" in --help | -h) continue ;; esac
    [ "$kind" = alias ] && continue # a deprecated spelling: the option it names is tested
    d=$dbarg
    [ "$sp" = --db ] && d=""
    anyok=0 helpful=1
    if [ "$kind" = flag ]; then
      case "$sp" in --*) case_ "$cmd $sp=1" "$FUSIM" "$cmd" $b $d "$sp=1" ;; esac
      continue
    fi
    case_ "$cmd $sp (no value)" "$FUSIM" "$cmd" $b $d "$sp"
    helpful=0 # a refused value: the line names the option and the value
    if [ "$badv" != - ]; then
      case_ "$cmd $sp '$badv'" "$FUSIM" "$cmd" $b $d "$sp" "$badv"
    else
      anyok=1
      case_ "$cmd $sp $T/no/such/dir/x" "$FUSIM" "$cmd" $b $d "$sp" "$T/no/such/dir/x"
    fi
  done <"$T/list"
  [ "$(snap)" = "$SNAP" ] || bad "$cmd: the database changed"
done
[ -s "$T/anystr" ] && cat "$T/anystr"
[ -s "$T/nogpu" ] && cat "$T/nogpu"
echo "bad_flags: $pass refused in one line (64, 65, 66) with the database unchanged," \
  "$anystr options take any string, $nogpu checked after the GPU, $fail failed"
[ "$fail" -eq 0 ]
