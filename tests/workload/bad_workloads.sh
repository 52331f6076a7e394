#!/bin/sh
# Bad workloads through the CLI: `fusim workload --check FILE` must exit non-zero (65 bad data,
# 66 missing) with ONE line on stderr naming the file and the field. Good ones exit 0.
# usage: bad_workloads.sh FUSIM
fusim=$1
fail=0
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
G='{"name":"a","bytes":4,"ready_us":1}'

# expect NAME STATUS FIELD JSON [--strict]: write JSON to NAME.json, check it.
expect() {
  name=$1 want=$2 field=$3 json=$4 strict=$5
  f="$dir/$name.json"
  printf '%s\n' "$json" >"$f"
  err=$("$fusim" workload --check "$f" $strict 2>&1 >/dev/null)
  st=$?
  if [ "$st" != "$want" ]; then
    echo "FAIL: $name: exit $st, expected $want (stderr: $err)" >&2; fail=1; return
  fi
  [ "$want" = 0 ] && return
  lines=$(printf '%s\n' "$err" | wc -l)
  [ "$lines" -eq 1 ] || { echo "FAIL: $name: $lines lines on stderr: $err" >&2; fail=1; }
  case "$err" in
    *"$f"*"$field"*) ;;
    *) echo "FAIL: $name: stderr does not name '$f' and '$field': $err" >&2; fail=1 ;;
  esac
}
W='"format":"fusim-workload-1"'
expect unknown_format 65 'format: unknown format' '{"format":"fusim-workload-9","fwd_us":1,"bwd_us":2,"grads":['"$G"']}'
expect missing_format 65 'format: missing' '{"fwd_us":1,"bwd_us":2,"grads":['"$G"']}'
expect negative_bytes 65 'grads[1].bytes: negative' '{'"$W"',"fwd_us":1,"bwd_us":2,"grads":['"$G"',{"name":"b","bytes":-8,"ready_us":1}]}'
expect zero_bytes 65 'grads[0].bytes: zero' '{'"$W"',"fwd_us":1,"bwd_us":2,"grads":[{"name":"b","bytes":0,"ready_us":1}]}'
expect frac_bytes 65 'grads[0].bytes: not a whole number' '{'"$W"',"fwd_us":1,"bwd_us":2,"grads":[{"name":"b","bytes":2.5,"ready_us":1}]}'
expect string_bytes 65 'grads[0].bytes: not a number' '{'"$W"',"fwd_us":1,"bwd_us":2,"grads":[{"name":"b","bytes":"8","ready_us":1}]}'
expect negative_time 65 'bwd_us: negative' '{'"$W"',"fwd_us":1,"bwd_us":-2,"grads":['"$G"']}'
expect negative_ready 65 'grads[0].ready_us: negative' '{'"$W"',"fwd_us":1,"bwd_us":2,"grads":[{"name":"b","bytes":8,"ready_us":-1}]}'
# impossible times (1e300 us went through and printed 300-digit iteration times)
expect huge_time 65 'opt_us: too large' '{'"$W"',"fwd_us":1,"bwd_us":2,"opt_us":1e300,"grads":['"$G"']}'
expect huge_hook 65 'host.hook_us: too large' '{'"$W"',"fwd_us":1,"bwd_us":2,"host":{"hook_us":2e12},"grads":['"$G"']}'
expect huge_layer 65 'layers[0].fwd_us: too large' '{'"$W"',"layers":[{"name":"a","fwd_us":1e13,"bwd_us":1,"grad_bytes":[4]}]}'
expect nan_literal 65 'not valid JSON' '{'"$W"',"fwd_us":NaN,"bwd_us":2,"grads":['"$G"']}'
expect nan_string 65 'fwd_us: not a number' '{'"$W"',"fwd_us":"NaN","bwd_us":2,"grads":['"$G"']}'
expect inf_literal 65 'not valid JSON' '{'"$W"',"fwd_us":1,"bwd_us":Infinity,"grads":['"$G"']}'
expect empty_grads 65 'grads: empty' '{'"$W"',"fwd_us":1,"bwd_us":2,"grads":[]}'
expect no_grads 65 'grads: missing' '{'"$W"',"fwd_us":1,"bwd_us":2}'
expect missing_bytes 65 'grads[0].bytes: missing' '{'"$W"',"fwd_us":1,"bwd_us":2,"grads":[{"name":"b","ready_us":1}]}'
expect missing_bwd 65 'bwd_us: missing' '{'"$W"',"fwd_us":1,"grads":['"$G"']}'
expect after_bwd 65 'grads[0].ready_us: 3 is after the end of backward' '{'"$W"',"fwd_us":1,"bwd_us":2,"grads":[{"name":"b","bytes":8,"ready_us":3}]}'
expect dup_name 65 'grads[1].name' '{'"$W"',"fwd_us":1,"bwd_us":2,"grads":['"$G"','"$G"']}'
expect bad_accum 65 'accum_steps' '{'"$W"',"fwd_us":1,"bwd_us":2,"accum_steps":0,"grads":['"$G"']}'
expect bad_host 65 'host.issue_us: negative' '{'"$W"',"fwd_us":1,"bwd_us":2,"host":{"issue_us":-1},"grads":['"$G"']}'
expect bad_layer 65 'layers[1].bwd_us: negative' '{'"$W"',"layers":[{"name":"a","fwd_us":1,"bwd_us":1,"grad_bytes":[4]},{"name":"b","fwd_us":1,"bwd_us":-1,"grad_bytes":[4]}]}'
expect bad_layer_bytes 65 'layers[0].grad_bytes[1]: negative' '{'"$W"',"layers":[{"name":"a","fwd_us":1,"bwd_us":1,"grad_bytes":[4,-4]}]}'
expect both_forms 65 'grads, layers' '{'"$W"',"fwd_us":1,"bwd_us":2,"grads":['"$G"'],"layers":[]}'
expect not_json 65 'not valid JSON' '{'"$W"',"fwd_us":1,'
O='{'"$W"',"fwd_us":1,"bwd_us":5,"grads":[{"name":"a","bytes":4,"ready_us":3},{"name":"b","bytes":4,"ready_us":1}]}'
expect out_of_order_strict 65 'grads[1].ready_us: 1 is before grads[0].ready_us 3' "$O" --strict
expect out_of_order_sorted 0 '' "$O"
expect unknown_field_strict 65 'opt_usec: unknown field' '{'"$W"',"fwd_us":1,"bwd_us":2,"opt_usec":1,"grads":['"$G"']}' --strict
expect good_grads 0 '' '{'"$W"',"fwd_us":1,"bwd_us":2,"accum_steps":8,"grads":['"$G"']}'
expect good_layers 0 '' '{'"$W"',"layers":[{"name":"a","fwd_us":1,"bwd_us":1,"grad_bytes":[4]}]}'

# --check --out writes the normal form: layers expanded, ready order sorted; it checks strictly
for w in good_layers out_of_order_sorted; do
  "$fusim" workload --check "$dir/$w.json" --out "$dir/$w.norm.json" >/dev/null 2>&1 &&
    "$fusim" workload --check "$dir/$w.norm.json" --strict >/dev/null ||
    { echo "FAIL: $w: normal form does not check strictly" >&2; fail=1; }
done
# a missing file: 66, naming it
err=$("$fusim" workload --check "$dir/none.json" 2>&1 >/dev/null); st=$?
[ "$st" = 66 ] || { echo "FAIL: missing file: exit $st, expected 66" >&2; fail=1; }
case "$err" in *"$dir/none.json"*) ;; *) echo "FAIL: missing file not named: $err" >&2; fail=1 ;; esac
# a folder: 66, one line saying so (was "no such file or bundled workload"); a folder in the
# current directory named like a bundled workload does not hide it
mkdir "$dir/wdir" "$dir/resnet50"
for cmd in "workload --check" "predict --no-store --workload"; do
  err=$("$fusim" $cmd "$dir/wdir" 2>&1 >/dev/null); st=$?
  [ "$st" = 66 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || { echo "FAIL: $cmd folder: exit $st: $err" >&2; fail=1; }
  case "$err" in *"$dir/wdir: is a directory"*) ;; *) echo "FAIL: $cmd folder not named: $err" >&2; fail=1 ;; esac
done
abs=$(cd "$(dirname "$fusim")" && pwd)/$(basename "$fusim")
(cd "$dir" && "$abs" workload --check resnet50 >/dev/null) || { echo "FAIL: a folder named resnet50 hid the bundled one" >&2; fail=1; }
# the bundled workloads are good, strictly
for w in resnet50 bert_large llama2_7b; do
  "$fusim" workload --check "$w" --strict >/dev/null || { echo "FAIL: bundled $w does not check" >&2; fail=1; }
done
exit $fail
