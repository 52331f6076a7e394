#!/bin/bash
# device_calib.sh: build fusim on the lent GPU machine, run the calib tests, a --quick smoke run
# and the full single-GPU calibration, writing everything to $OUT (at most 8 files):
#   env.txt build.log tests.log quick.txt h200.db coll.csv rest.csv full.log
# Run from the repository root as:  . .device/prelude.sh && bash calib/device_calib.sh [quick]
# (the device tool carries .device; see ../shared/device/stage). The full sweep is two commands:
# collectives at nccl-tests' sizes (8 B .. 1 GiB by 4, to compare with the reference), then the
# rest at the reference copies' sizes (4 B .. 1 GiB by 4).
set -u
OUT=${OUT:-/tmp/fusim-out}
mkdir -p "$OUT"
mode=${1:-full}
{
  date -u
  nvidia-smi
  nvidia-smi -q | grep -E -i 'Product Name|Driver Version|CUDA Version|Link Width|PCIe Generation|Max|Current' | head -40
  nvcc --version | tail -2
  uname -a
  for f in /usr/include/nccl.h /usr/lib/x86_64-linux-gnu/libnccl.so* /usr/local/cuda/lib64/libcublas.so*; do ls -l "$f"; done 2>&1
  grep -E 'define NCCL_(MAJOR|MINOR|PATCH)' /usr/include/nccl.h 2>&1
  echo "mpi: $(command -v mpirun mpicc mpiexec 2>&1)"; ls /usr/lib/x86_64-linux-gnu/libmpi* 2>&1 | head -3
  python3 -c 'import mpi4py; print("mpi4py", mpi4py.__version__, mpi4py.get_config())' 2>&1 | head -3
  meson --version; gcc --version | head -1
} >"$OUT/env.txt" 2>&1

. calib/nccl_wheel.sh   # NCCL only as a pip wheel: a folder with the unversioned names for meson
[ -n "$NCCL_WHEEL" ] && echo "NCCL from the wheel at $NCCL_WHEEL" >>"$OUT/env.txt"

B=build-gpu
t0=$(date +%s)
{ meson setup $B -Dwerror=true && ninja -C $B; } >"$OUT/build.log" 2>&1
if [ ! -x $B/fusim ]; then
  echo "=== werror build failed; retrying without -Dwerror" >>"$OUT/build.log"
  B=build-gpu-nowerror
  { meson setup $B && ninja -C $B; } >>"$OUT/build.log" 2>&1 || { echo "BUILD FAILED"; tail -40 "$OUT/build.log"; exit 1; }
fi
echo "build: $(( $(date +%s) - t0 )) s" | tee -a "$OUT/build.log"
grep -E 'nvcc|cudart|nccl|cublas|MPI|Has header' "$OUT/build.log" | head -20

meson test -C $B --suite calib --print-errorlogs >"$OUT/tests.log" 2>&1
grep -E '^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|^Skipped:' "$OUT/tests.log" | tail -25

F=$B/fusim
t0=$(date +%s)
{ $F calib --quick --db "$OUT/quick.db" --progress on; echo "exit $?"; } >"$OUT/quick.txt" 2>&1
echo "quick: $(( $(date +%s) - t0 )) s, $(tail -1 "$OUT/quick.txt")" | tee -a "$OUT/quick.txt"
grep -E 'calib:' "$OUT/quick.txt" | tail -12
if grep -q 'FU_HAVE_MPI' $B/build.ninja 2>/dev/null && command -v mpirun >/dev/null; then
  { mpirun --allow-run-as-root -np 1 $F calib --quick -s coll --db "$OUT/quick.db"; echo "mpirun exit $?"; } >>"$OUT/quick.txt" 2>&1
  tail -3 "$OUT/quick.txt"
fi
rm -f "$OUT/quick.db" "$OUT/quick.db-wal" "$OUT/quick.db-shm"
[ "$mode" = quick ] && exit 0

DB="$OUT/h200.db"
t0=$(date +%s)
{
  $F calib -s coll -b 8 -e 1GiB -f 4 -w 5 -n 50 -d float,bf16 -G both -P default,LL,LL128,Simple \
    --db "$DB" --format csv >"$OUT/coll.csv"
  echo "coll exit $? after $(( $(date +%s) - t0 )) s"
  $F calib -s copy,issue,pack,gemm,overlap --db "$DB" --format csv >"$OUT/rest.csv"
  echo "rest exit $? after $(( $(date +%s) - t0 )) s"
} >"$OUT/full.log" 2>&1
grep -E 'exit|wrong|FAIL|error' "$OUT/full.log" | head -20
echo "full: $(( $(date +%s) - t0 )) s"
# a short look at the key rows (the CSVs come back whole)
python3 calib/compare_reference.py ../shared/data/reference "$OUT/rest.csv" "$OUT/coll.csv" 2>/dev/null | tail -3
grep -E '^(pack|d2h),1,4194304,' "$OUT/rest.csv" | grep -E 'k=64' | cut -d, -f1-8
grep -E '^pack,1,[0-9]+,[0-9.]+,hbm,,(k=|odd)' "$OUT/rest.csv" | cut -d, -f1-8,15 | head -30
grep -E '^(issue|launch),' "$OUT/rest.csv" | cut -d, -f1-8
grep -E '^gemm,.*(alone|\+)' "$OUT/rest.csv" | cut -d, -f1-8
