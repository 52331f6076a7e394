#!/bin/sh
# cli_fit_mem.sh FUSIM: the GPU memory a profile written by fit --out carries, which plan's memory
# check reads. From a base of the same GPU it is the base's (the DGX H100 logs with --base
# h100-sxm); from a base of another GPU it is none, and fit says so and how to give it (the MIT
# B200 logs with the default H200 base); --gpu-mem gives it. Before, fit --out never carried it,
# so every fitted profile's plans said "memory: not checked". Fixtures: $FUSIM_SHARED's public logs.
fusim=$1
pub=${FUSIM_SHARED:?}/data/public-nccl-tests/multi-node
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
T=$tmp
. "$(dirname "$0")/../lib.sh"
js() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }
src=${FUSIM_SOURCE_ROOT:-$(dirname "$0")/../..}

"$fusim" import --db "$tmp/h.db" "$pub/mghpcc-dgxh100-2gpu-1node-allreduce.txt" >/dev/null 2>&1 &&
  "$fusim" fit --db "$tmp/h.db" --base h100-sxm --out "$tmp/h.json" >/dev/null 2>&1 &&
  [ "$(js "$tmp/h.json" "j.get('gpu_mem_bytes')")" = "$(js "$src/data/profiles/h100-sxm.json" "j['gpu_mem_bytes']")" ]
check "fit --base h100-sxm on H100 logs: the profile keeps the base's GPU memory" $?

"$fusim" import --db "$tmp/b.db" "$pub/mit-b200-8gpu-1node-allreduce.txt" >/dev/null 2>&1 &&
  "$fusim" fit --db "$tmp/b.db" --out "$tmp/b.json" >/dev/null 2>"$tmp/err" &&
  [ "$(js "$tmp/b.json" "j.get('gpu_mem_bytes')")" = None ] &&
  grep -q "not on NVIDIA B200; .*records no GPU memory, so plan checks none: --gpu-mem SIZE gives it" "$tmp/err"
check "fit on B200 logs with the H200 base: no GPU memory (not the H200's), and the warning names --gpu-mem" $?

# 183359 MiB (a B200's total in nvidia-smi) = 183359 x 1048576 bytes
"$fusim" fit --db "$tmp/b.db" --out "$tmp/bm.json" --gpu-mem 183359MiB >/dev/null 2>"$tmp/err" &&
  [ "$(js "$tmp/bm.json" "int(j['gpu_mem_bytes'])")" = 192265846784 ] && ! grep -q "gpu-mem" "$tmp/err" &&
  "$fusim" plan --no-store --workload llama2_7b --profile "$tmp/bm.json" --comm allreduce:8 2>/dev/null >"$tmp/out" &&
  grep -q "^memory: .* 179 GiB available" "$tmp/out"
check "fit --gpu-mem 183359MiB: 192265846784 bytes in the profile, and plan checks memory against 179 GiB" $?

refused 64 "gpu-mem" "$fusim" fit --db "$tmp/b.db" --no-store --gpu-mem 179GiB
refused 64 "gpu-mem" "$fusim" fit --db "$tmp/b.db" --no-store --out "$tmp/z.json" --gpu-mem 0
# a bare number is not taken as bytes: nvidia-smi's --format=csv,nounits prints 183359 (MiB), which
# was stored as 183359 bytes, so plan found 179 KiB and no plan fit (as plan --mem-cap, a unit is asked)
refused 64 "--gpu-mem '183359': has no unit; say 183359MiB" "$fusim" fit --db "$tmp/b.db" --no-store --out "$tmp/z.json" --gpu-mem 183359
# read as plan --mem-cap reads a size: "80GB" is refused as ambiguous there, and was 80 GiB here
refused 64 "--gpu-mem '80GB': has an ambiguous unit" "$fusim" fit --db "$tmp/b.db" --no-store --out "$tmp/z.json" --gpu-mem 80GB
# above what a profile file may hold (1e15 bytes): it wrote a profile no command could load
# (--no-store, exit 0) or failed after the fit (exit 70, "the profile written: ... out of range")
refused 64 "--gpu-mem '16000TiB': above a profile's limit" "$fusim" fit --db "$tmp/b.db" --no-store --out "$tmp/z.json" --gpu-mem 16000TiB
refused 64 "--gpu-mem '16000TiB': above a profile's limit" "$fusim" fit --db "$tmp/b.db" --out "$tmp/z.json" --gpu-mem 16000TiB
[ ! -e "$tmp/z.json" ]
check "fit --gpu-mem without --out, or 0, or without a unit: one line, exit 64, nothing written" $?
finish cli_fit_mem
