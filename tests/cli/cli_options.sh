#!/bin/sh
# The option tables of every command (model/fu_options: one table per command drives the
# parser, --help and the hidden --list-options), checked through the binary:
#  - every option and spelling --list-options names is in --help (help and parser cannot drift);
#  - a value option at the end of argv: exit 64, ONE line "option '--x' needs a value";
#  - --opt=BAD for the example bad value: exit 64, ONE line naming the option and the value;
#  - a flag given a value (--flag=1): exit 64, ONE line "takes no value";
#  - an unknown option: exit 64, ONE line;
#  - each deprecated spelling prints exactly one line "fusim: warning: CMD: --old is deprecated; use --new"
#    and then behaves as the new spelling;
#  - --opt=value works as --opt value; data type spellings agree (fit --dtype fp32 = float).
# usage: cli_options.sh FUSIM     (FUSIM_SOURCE_ROOT: the source tree, for tests/data)
fusim=$1
root=${FUSIM_SOURCE_ROOT:-$(dirname "$0")/../..}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"

# run CMD ARGS...: sets rc, and err (stderr) and out (stdout) files
run() { "$fusim" "$@" >"$T/out" 2>"$T/err"; rc=$?; }
lines() { wc -l <"$T/err" | tr -d ' '; }
expect_usage() { # expect_usage WHAT PATTERN CMD ARGS...: exit 64 and exactly one line holding PATTERN
  what=$1 pat=$2; shift 2
  run "$@"
  [ "$rc" = 64 ] || bad "$what: exit $rc, expected 64: $(cat "$T/err")"
  [ "$(lines)" = 1 ] || bad "$what: $(lines) lines on stderr, expected 1: $(cat "$T/err")"
  grep -qF -- "$pat" "$T/err" || bad "$what: stderr lacks '$pat': $(cat "$T/err")"
}

for cmd in calib import fit report workload predict plan validate cost; do
  run "$cmd" --list-options
  [ "$rc" = 0 ] || { bad "$cmd --list-options: exit $rc"; continue; }
  cp "$T/out" "$T/list"
  [ -s "$T/list" ] || bad "$cmd --list-options printed nothing"
  "$fusim" "$cmd" --help >"$T/help" 2>/dev/null || bad "$cmd --help: exit $?"
  expect_usage "$cmd unknown option" "unknown option '--no-such-option'" "$cmd" --no-such-option
  expect_usage "$cmd unknown short option" "unknown option '-Z'" "$cmd" -Z
  # one line per spelling: SPELLING <tab> KIND <tab> BAD (alias: the spelling it stands for)
  tab=$(printf '\t')
  while IFS=$tab read -r sp kind badv; do
    case "$sp" in --help|-h) continue ;; esac
    if [ "$kind" = alias ]; then
      grep -qE -- "(^|[ ,])$sp([ ,]|\$)" "$T/help" && bad "$cmd --help advertises the deprecated $sp"
      run "$cmd" "$sp"
      first=$(head -n 1 "$T/err")
      [ "$first" = "fusim: warning: $cmd: $sp is deprecated; use $badv" ] || bad "$cmd $sp: first line '$first'"
      [ "$(grep -c 'is deprecated' "$T/err")" = 1 ] || bad "$cmd $sp: not one deprecation line"
      continue
    fi
    case "$sp" in
      --*) grep -qE -- "(^|[ ,])$sp([ ,]|\$)" "$T/help" || bad "$cmd --help lacks $sp" ;;
      *) grep -qE -- "^ +$sp, --" "$T/help" || bad "$cmd --help lacks $sp" ;;
    esac
    if [ "$kind" = flag ]; then
      case "$sp" in --*) expect_usage "$cmd $sp=1" "takes no value" "$cmd" "$sp=1" ;; esac
      continue
    fi
    expect_usage "$cmd $sp (no value)" "needs a value" "$cmd" "$sp"
    [ "$badv" = - ] && continue
    case "$sp" in
      --*) expect_usage "$cmd $sp=$badv" "'$badv'" "$cmd" "$sp=$badv" ;;
      *) expect_usage "$cmd $sp $badv" "$sp '$badv'" "$cmd" "$sp" "$badv" ;;
    esac
  done <"$T/list"
done

# deprecated spellings behave as the new ones
run calib --ngpus 0
[ "$rc" = 64 ] && [ "$(lines)" = 2 ] && grep -q "^fusim: warning: calib: --ngpus is deprecated; use --gpus$" "$T/err" &&
  grep -q "\-\-gpus '0': expected a whole number from 1 to 1024" "$T/err" || bad "calib --ngpus 0: $rc $(cat "$T/err")"

# --gpus (calib's and validate's GPU count, -g) is no abbreviation of --gpus-per-process in
# predict, plan and cost: it was taken as one (predict --comm allreduce:2x8 --gpus 8 priced the
# job at 8 GPUs a process, exit 0)
for cmd in predict plan cost; do
  for sp in --gpus --gpu --gpus-per; do
    expect_usage "$cmd $sp 8" "unknown option '$sp'" "$cmd" "$sp" 8 --comm allreduce:2x8
  done
done

# a bad plan or target value names its command, as every usage error does ("fusim: CMD: ..."):
# they read "fusim: --comm 'x': ..." from the parser predict, plan, validate and cost share
for cmd in predict plan validate cost; do
  ctx="--workload resnet50 --no-store"
  [ "$cmd" = cost ] && ctx="--bytes 1MiB"
  for fv in "--comm allreduce:8:wifi" "--comm bogus" "--fusion cap:25" "--overlap maybe" "--pack zip" \
    "--comm-streams 0" "--framework tf"; do
    f=${fv%% *} v=${fv#* }
    case "$cmd:$f" in plan:--fusion | cost:--[!c]* | cost:--comm-*) continue ;; esac # not theirs
    expect_usage "$cmd $f $v" "fusim: $cmd: $f '$v': " "$cmd" $ctx "$f" "$v"
  done
  expect_usage "$cmd --comm ''" "fusim: $cmd: --comm: empty" "$cmd" $ctx --comm ""
done

# data: one nccl-tests log (dtype float) in a database
db=$T/d.db
run import --db="$db" "$root/tests/data/reference/h200-1gpu-allreduce-nccl-tests.txt"
[ "$rc" = 0 ] || bad "import --db=FILE: exit $rc: $(cat "$T/err")"
run report --db "$db" --format csv sql "SELECT DISTINCT dtype FROM samples"
[ "$(tail -n 1 "$T/out")" = float ] || bad "import stores dtype float: $(cat "$T/out")"
# --opt=value is --opt value
"$fusim" report --db "$db" --format csv samples >"$T/a" 2>/dev/null
"$fusim" report --db="$db" --format=csv samples >"$T/b" 2>/dev/null
[ -s "$T/a" ] && cmp -s "$T/a" "$T/b" || bad "report --opt=value differs from --opt value"
# fit --no-db: a warning line, and nothing stored (the fits table stays empty)
run fit --db "$db" --no-db --format json
[ "$rc" = 0 ] || bad "fit --no-db: exit $rc: $(cat "$T/err")"
grep -q "^fusim: warning: fit: --no-db is deprecated; use --no-store$" "$T/err" || bad "fit --no-db: no warning line"
run report --db "$db" --format csv sql "SELECT count(*) FROM fits"
[ "$(tail -n 1 "$T/out")" = 0 ] || bad "fit --no-db stored a fit: $(cat "$T/out")"
# data type spellings: fp32, float32 and FLOAT fit what float fits; half matches nothing (66)
"$fusim" fit --db "$db" --no-store --format csv --dtype float >"$T/float" 2>/dev/null || bad "fit --dtype float"
[ -s "$T/float" ] || bad "fit --dtype float printed nothing"
for d in fp32 float32 FLOAT; do
  "$fusim" fit --db "$db" --no-store --format csv --dtype "$d" >"$T/dt" 2>/dev/null
  cmp -s "$T/float" "$T/dt" || bad "fit --dtype $d differs from --dtype float"
done
run fit --db "$db" --no-store --dtype half
[ "$rc" = 66 ] && grep -q "dtype half" "$T/err" || bad "fit --dtype half: exit $rc: $(cat "$T/err")"
run fit --db "$db" --no-store --dtype fp16
[ "$rc" = 66 ] && grep -q "dtype half" "$T/err" || bad "fit --dtype fp16 is half: exit $rc: $(cat "$T/err")"
# workload --dtype: every spelling of a type gives the same workload (float/float32 = fp32,
# bfloat16 = bf16, half/float16 = fp16), and a type the model has no pricing for is refused
TR="--transformer --layers 2 --hidden 64 --heads 4 --ffn 128 --vocab 100 --seq 8 --micro-batch 1 --tflops 10"
for pair in fp32:float fp32:float32 fp32:FP32 bf16:bfloat16 fp16:half fp16:float16; do
  a=${pair%%:*} b=${pair#*:}
  "$fusim" workload $TR --dtype "$a" >"$T/wa" 2>/dev/null || bad "workload --dtype $a"
  "$fusim" workload $TR --dtype="$b" >"$T/wb" 2>/dev/null || bad "workload --dtype=$b"
  [ -s "$T/wa" ] && cmp -s "$T/wa" "$T/wb" || bad "workload --dtype $b differs from --dtype $a"
done
cmp -s "$T/wa" "$T/wb" && ! "$fusim" workload $TR --dtype fp32 | cmp -s - "$T/wa" || bad "workload --dtype fp32 = fp16?"
expect_usage "workload --dtype double" "--dtype 'double'" workload $TR --dtype double
finish cli_options
