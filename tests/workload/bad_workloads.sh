#!/bin/sh
# Bad workloads through the CLI: `fusim workload --check FILE` must exit non-zero (65 bad data,
# 66 missing) with ONE line on stderr naming the file and the field. Good ones exit 0.
# usage: bad_workloads.sh FUSIM
fusim=$1
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
dir=$T
G='{"name":"a","bytes":4,"ready_us":1}'

# check_wl NAME STATUS FIELD JSON [--strict]: write JSON to NAME.json, check it.
check_wl() {
  name=$1 want=$2 field=$3 json=$4 strict=$5
  f="$dir/$name.json"
  printf '%s\n' "$json" >"$f"
  err=$("$fusim" workload --check "$f" $strict 2>&1 >/dev/null)
  st=$?
  if [ "$st" != "$want" ]; then
    bad "$name: exit $st, expected $want (stderr: $err)"; return
  fi
  [ "$want" = 0 ] && { ok; return; }
  lines=$(printf '%s\n' "$err" | wc -l)
  if [ "$lines" -ne 1 ]; then
    bad "$name: $lines lines on stderr: $err"
  else
    case "$err" in
      *"$f"*"$field"*) ok ;;
      *) bad "$name: stderr does not name '$f' and '$field': $err" ;;
    esac
  fi
}
W='"format":"fusim-workload-1"'
check_wl unknown_format 65 'format: unknown format' '{"format":"fusim-workload-9","fwd_us":1,"bwd_us":2,"grads":['"$G"']}'
check_wl missing_format 65 'format: missing' '{"fwd_us":1,"bwd_us":2,"grads":['"$G"']}'
check_wl negative_bytes 65 'grads[1].bytes: negative' '{'"$W"',"fwd_us":1,"bwd_us":2,"grads":['"$G"',{"name":"b","bytes":-8,"ready_us":1}]}'
check_wl zero_bytes 65 'grads[0].bytes: zero' '{'"$W"',"fwd_us":1,"bwd_us":2,"grads":[{"name":"b","bytes":0,"ready_us":1}]}'
check_wl frac_bytes 65 'grads[0].bytes: not a whole number' '{'"$W"',"fwd_us":1,"bwd_us":2,"grads":[{"name":"b","bytes":2.5,"ready_us":1}]}'
check_wl string_bytes 65 'grads[0].bytes: not a number' '{'"$W"',"fwd_us":1,"bwd_us":2,"grads":[{"name":"b","bytes":"8","ready_us":1}]}'
check_wl negative_time 65 'bwd_us: negative' '{'"$W"',"fwd_us":1,"bwd_us":-2,"grads":['"$G"']}'
check_wl negative_ready 65 'grads[0].ready_us: negative' '{'"$W"',"fwd_us":1,"bwd_us":2,"grads":[{"name":"b","bytes":8,"ready_us":-1}]}'
# impossible times (1e300 us went through and printed 300-digit iteration times)
check_wl huge_time 65 'opt_us: too large' '{'"$W"',"fwd_us":1,"bwd_us":2,"opt_us":1e300,"grads":['"$G"']}'
check_wl huge_hook 65 'host.hook_us: too large' '{'"$W"',"fwd_us":1,"bwd_us":2,"host":{"hook_us":2e12},"grads":['"$G"']}'
check_wl huge_layer 65 'layers[0].fwd_us: too large' '{'"$W"',"layers":[{"name":"a","fwd_us":1e13,"bwd_us":1,"grad_bytes":[4]}]}'
check_wl nan_literal 65 'not valid JSON' '{'"$W"',"fwd_us":NaN,"bwd_us":2,"grads":['"$G"']}'
check_wl nan_string 65 'fwd_us: not a number' '{'"$W"',"fwd_us":"NaN","bwd_us":2,"grads":['"$G"']}'
check_wl inf_literal 65 'not valid JSON' '{'"$W"',"fwd_us":1,"bwd_us":Infinity,"grads":['"$G"']}'
check_wl empty_grads 65 'grads: empty' '{'"$W"',"fwd_us":1,"bwd_us":2,"grads":[]}'
check_wl no_grads 65 'grads: missing' '{'"$W"',"fwd_us":1,"bwd_us":2}'
check_wl missing_bytes 65 'grads[0].bytes: missing' '{'"$W"',"fwd_us":1,"bwd_us":2,"grads":[{"name":"b","ready_us":1}]}'
check_wl missing_bwd 65 'bwd_us: missing' '{'"$W"',"fwd_us":1,"grads":['"$G"']}'
check_wl after_bwd 65 'grads[0].ready_us: 3 is after the end of backward' '{'"$W"',"fwd_us":1,"bwd_us":2,"grads":[{"name":"b","bytes":8,"ready_us":3}]}'
check_wl dup_name 65 'grads[1].name' '{'"$W"',"fwd_us":1,"bwd_us":2,"grads":['"$G"','"$G"']}'
check_wl bad_accum 65 'accum_steps' '{'"$W"',"fwd_us":1,"bwd_us":2,"accum_steps":0,"grads":['"$G"']}'
check_wl bad_host 65 'host.issue_us: negative' '{'"$W"',"fwd_us":1,"bwd_us":2,"host":{"issue_us":-1},"grads":['"$G"']}'
check_wl bad_layer 65 'layers[1].bwd_us: negative' '{'"$W"',"layers":[{"name":"a","fwd_us":1,"bwd_us":1,"grad_bytes":[4]},{"name":"b","fwd_us":1,"bwd_us":-1,"grad_bytes":[4]}]}'
check_wl bad_layer_bytes 65 'layers[0].grad_bytes[1]: negative' '{'"$W"',"layers":[{"name":"a","fwd_us":1,"bwd_us":1,"grad_bytes":[4,-4]}]}'
check_wl both_forms 65 'grads, layers' '{'"$W"',"fwd_us":1,"bwd_us":2,"grads":['"$G"'],"layers":[]}'
check_wl not_json 65 'not valid JSON' '{'"$W"',"fwd_us":1,'
# the layers' sums above the 1e12 us a workload may hold (each layer under it): predicted and
# stored, then refused when the stored copy was read back
check_wl layers_sum 65 "layers: the layers' fwd_us times add up to 2e+12 us" '{'"$W"',"layers":[{"name":"a","fwd_us":1e12,"bwd_us":1,"grad_bytes":[4]},{"name":"b","fwd_us":1e12,"bwd_us":1,"grad_bytes":[4]}]}'
# accum_steps micro-batches whose step is above the limit (2^20 x 2e6 us: printed an iteration
# below its own compute)
check_wl accum_huge 65 'accum_steps: 1048576 micro-batches' '{'"$W"',"fwd_us":1e6,"bwd_us":1e6,"accum_steps":1048576,"grads":['"$G"']}'
# a memory block without its peak: read, then dropped by --out and never checked
check_wl memory_no_peak 65 'memory.peak_bytes: missing or 0' '{'"$W"',"fwd_us":1,"bwd_us":2,"memory":{"params_bytes":4096},"grads":['"$G"']}'
# a version-2 host block's gradient ready on the GPU after backward's end there (priced as a
# longer backward in silence)
H='"host":{"version":2,"fwd_cpu_us":1,"bwd_cpu_us":2,"opt_cpu_us":1,"fwd_gpu_us":1,"bwd_gpu_us":2,"opt_gpu_us":1,"grad_cpu_us":[1],"grad_gpu_us":[GG],"buffers":0,"copy_gbps":100}'
check_wl host_grad_after_bwd 65 'host.grad_gpu_us[0]: 10 is after the end of backward on the GPU' '{'"$W"',"fwd_us":1,"bwd_us":2,'"$(echo "$H" | sed 's/GG/10/')"',"grads":['"$G"']}'
check_wl host_grad_at_bwd 0 '' '{'"$W"',"fwd_us":1,"bwd_us":2,'"$(echo "$H" | sed 's/GG/2.04/')"',"grads":['"$G"']}'
# typos below the top level: an error with --strict (they passed in silence, even with --strict)
HT='"host":{"version":2,"fwd_cpu_us":1,"bwd_cpu_us":2,"opt_cpu_us":1,"fwd_gpu_us":1,"bwd_gpu_us":2,"opt_gpu_us":1,"grad_cpu_us":[1],"grad_gpu_us":[1],"buffers":0,"copy_gbps":100,"ddp":{"param_us":1,"copy_us":1,"bucket_us":1,"hook_bucket_us":1,"finalize_us":1,"forward_us":1,"buffer_us":1,"broadcst_us":1}}'
check_wl host_typo_strict 65 'host.ddp.broadcst_us: unknown field' '{'"$W"',"fwd_us":1,"bwd_us":2,'"$HT"',"grads":['"$G"']}' --strict
check_wl host_typo 0 '' '{'"$W"',"fwd_us":1,"bwd_us":2,'"$HT"',"grads":['"$G"']}'
check_wl grad_typo_strict 65 'grads[0].ready_usec: unknown field' '{'"$W"',"fwd_us":1,"bwd_us":2,"grads":[{"name":"a","bytes":4,"ready_us":1,"ready_usec":1}]}' --strict
check_wl layer_typo_strict 65 'layers[0].bwd_usec: unknown field' '{'"$W"',"layers":[{"name":"a","fwd_us":1,"bwd_us":1,"bwd_usec":2,"grad_bytes":[4]}]}' --strict
check_wl host1_typo_strict 65 'host.hook_usec: unknown field' '{'"$W"',"fwd_us":1,"bwd_us":2,"host":{"hook_usec":1},"grads":['"$G"']}' --strict
O='{'"$W"',"fwd_us":1,"bwd_us":5,"grads":[{"name":"a","bytes":4,"ready_us":3},{"name":"b","bytes":4,"ready_us":1}]}'
check_wl out_of_order_strict 65 'grads[1].ready_us: 1 is before grads[0].ready_us 3' "$O" --strict
check_wl out_of_order_sorted 0 '' "$O"
check_wl unknown_field_strict 65 'opt_usec: unknown field' '{'"$W"',"fwd_us":1,"bwd_us":2,"opt_usec":1,"grads":['"$G"']}' --strict
check_wl good_grads 0 '' '{'"$W"',"fwd_us":1,"bwd_us":2,"accum_steps":8,"grads":['"$G"']}'
check_wl good_layers 0 '' '{'"$W"',"layers":[{"name":"a","fwd_us":1,"bwd_us":1,"grad_bytes":[4]}]}'

# --check --out writes the normal form: layers expanded, ready order sorted; it checks strictly
for w in good_layers out_of_order_sorted; do
  "$fusim" workload --check "$dir/$w.json" --out "$dir/$w.norm.json" >/dev/null 2>&1 &&
    "$fusim" workload --check "$dir/$w.norm.json" --strict >/dev/null ||
    { bad "$w: normal form does not check strictly"; }
done
# --out keeps what it read: "meta" (tools' data: capture settings, host references) and the
# memory block were dropped by the rewrite
M='{'"$W"',"fwd_us":1,"bwd_us":2,"meta":{"tool":"x","host_ref":[1.5,{"a":null}]},"memory":{"peak_bytes":8192,"params_bytes":4096},"grads":['"$G"']}'
printf '%s\n' "$M" >"$dir/meta.json"
"$fusim" workload --check "$dir/meta.json" --out "$dir/meta.norm.json" >/dev/null 2>&1 &&
  python3 -c "
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert b['meta'] == a['meta'] and b['memory'] == a['memory'], b" "$dir/meta.json" "$dir/meta.norm.json" && ok ||
  bad "--check --out dropped meta or memory: $(cat "$dir/meta.norm.json")"
# a missing file: 66, naming it
err=$("$fusim" workload --check "$dir/none.json" 2>&1 >/dev/null); st=$?
[ "$st" = 66 ] || { bad "missing file: exit $st, expected 66"; }
case "$err" in *"$dir/none.json"*) ;; *) bad "missing file not named: $err" ;; esac
# a folder: 66, one line saying so (was "no such file or bundled workload"); a folder in the
# current directory named like a bundled workload does not hide it
mkdir "$dir/wdir" "$dir/resnet50"
for cmd in "workload --check" "predict --no-store --workload"; do
  err=$("$fusim" $cmd "$dir/wdir" 2>&1 >/dev/null); st=$?
  [ "$st" = 66 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || { bad "$cmd folder: exit $st: $err"; }
  case "$err" in *"$dir/wdir: is a directory"*) ;; *) bad "$cmd folder not named: $err" ;; esac
done
abs=$(cd "$(dirname "$fusim")" && pwd)/$(basename "$fusim")
(cd "$dir" && "$abs" workload --check resnet50 >/dev/null) || { bad "a folder named resnet50 hid the bundled one"; }
# the bundled workloads are good, strictly
for w in resnet50 bert_large llama2_7b; do
  "$fusim" workload --check "$w" --strict >/dev/null || { bad "bundled $w does not check"; }
done
# a profile without compute tables (h200-pcie: copies and collectives only) is bad data for the
# builders, as a missing NCHW table is: one line, exit 65 (it was 64, a usage error)
for b in "--cnn resnet50" "--transformer --layers 2 --hidden 256 --heads 4 --ffn 1024 --seq 128 --vocab 1000 --micro-batch 1"; do
  # shellcheck disable=SC2086
  err=$("$fusim" workload $b --profile h200-pcie 2>&1 >/dev/null); st=$?
  [ "$st" = 65 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && case "$err" in *"has no compute tables"*) true ;; *) false ;; esac &&
    ok || bad "workload $b --profile h200-pcie: exit $st: $err"
done
# --cnn models autocast, tf32 or fp32: bf16 weights were counted at 4 bytes and priced as autocast
err=$("$fusim" workload --cnn resnet50 --micro-batch 8 --precision bf16 2>&1 >/dev/null); st=$?
[ "$st" = 64 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && case "$err" in *"--cnn --precision bf16"*) true ;; *) false ;; esac &&
  ok || bad "workload --cnn --precision bf16: exit $st: $err"
# a refused what-if leaves an existing --ops file as it was: the operations were written before
# the workload was refused (here its time, 3.8e14 us, past the 1e12 a workload may hold)
printf 'keep\n' >"$dir/ops.csv"
err=$("$fusim" workload --transformer --arch llama --layers 1 --hidden 128 --heads 1 --ffn 128 --vocab 32 \
  --seq 16777216 --micro-batch 1048576 --ops "$dir/ops.csv" --out "$dir/huge.json" 2>&1 >/dev/null); st=$?
[ "$st" = 65 ] && [ "$(cat "$dir/ops.csv")" = keep ] && [ ! -e "$dir/huge.json" ] &&
  ok || bad "refused workload: exit $st, ops.csv now '$(head -c 60 "$dir/ops.csv")': $err"
[ "$(ls -A "$dir" | grep -c '^\.ops\.csv\.')" = 0 ] || bad "refused workload left a temporary ops file: $(ls "$dir")"
# the roofline (--tflops) prices no operation listing: --ops is refused in one line (it wrote
# nothing, and since --ops was committed by the caller it replaced an existing file with an
# empty one), the existing file as it was, no new one made
err=$("$fusim" workload --transformer --arch custom --layers 1 --hidden 64 --heads 1 --ffn 64 --vocab 32 \
  --seq 16 --micro-batch 1 --tflops 100 --ops "$dir/ops.csv" --out "$dir/roof.json" 2>&1 >/dev/null); st=$?
[ "$st" = 64 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && case "$err" in *"--ops"*roofline*) true ;; *) false ;; esac &&
  [ "$(cat "$dir/ops.csv")" = keep ] && [ ! -e "$dir/roof.json" ] &&
  ok || bad "roofline --ops: exit $st, ops.csv now '$(head -c 60 "$dir/ops.csv")': $err"
"$fusim" workload --transformer --arch custom --layers 1 --hidden 64 --heads 1 --ffn 64 --vocab 32 \
  --seq 16 --micro-batch 1 --tflops 100 --ops "$dir/new_ops.csv" >/dev/null 2>&1
[ ! -e "$dir/new_ops.csv" ] && [ "$(ls -A "$dir" | grep -c '^\.\(new_\)\{0,1\}ops\.csv\.')" = 0 ] &&
  ok || bad "roofline --ops: a file or a temporary one made: $(ls -A "$dir")"
finish bad_workloads
