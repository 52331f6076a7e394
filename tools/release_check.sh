#!/bin/sh
# release_check.sh [DIR]: the build a packager makes (meson --buildtype=release: -O3, no -g) with
# the compiler found (CC, else cc), CUDA parts included where nvcc is found, in DIR (default
# build-release). Lists every distinct warning (the build goes on past errors: ninja -k 0), then
# runs fusim --version and tools/test.sh without the GPU tests (GPU=1: with them, on a machine with
# a GPU). Ends with "N passed, N failed". JOBS (default 2) is passed to tools/test.sh.
# The build is configured without -Dwerror: this is the build a user makes; the warnings are listed.
set -u
cd "$(dirname "$0")/.."
dir=${1:-build-release}
if [ ! -f "$dir/build.ninja" ]; then
  meson setup "$dir" --buildtype=release >/dev/null || { echo "0 passed, 1 failed"; exit 1; }
fi
ninja -C "$dir" -k 0 >"$dir/release-check.log" 2>&1
rc=$?
grep -E "(warning|error):" "$dir/release-check.log" | sort -u
echo "release_check: $(${CC:-cc} --version | head -n 1); nvcc: $(nvcc --version 2>/dev/null | tail -n 1 || echo none);" \
  "build exit $rc, $(grep -E "(warning|error):" "$dir/release-check.log" | sort -u | wc -l) distinct warnings/errors"
[ "$rc" -eq 0 ] || { echo "0 passed, 1 failed"; exit 1; }
"$dir/fusim" --version || { echo "0 passed, 1 failed"; exit 1; }
[ "${GPU:-0}" = 1 ] || export NO_GPU=1
BUILD="$dir" exec tools/test.sh
