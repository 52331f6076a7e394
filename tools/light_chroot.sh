#!/bin/sh
# light_chroot.sh [BUILD]: prove that the light fusim starts where CUDA, NCCL, cuBLAS and MPI are
# absent, from an install, with no source tree in sight. Needs root (chroot).
#
#  1. `meson install --destdir` of BUILD (default build) into an empty temporary root: bin/fusim,
#     share/fusim/{workloads,profiles}, and libexec/fusim/fusim-gpu where CUDA was found;
#  2. copies in the dynamic loader and `ldd bin/fusim`'s libraries, and nothing else (no /proc, no
#     ld.so.cache, no CUDA, NCCL, cuBLAS or MPI library: checked);
#  3. runs inside it, measuring each with /usr/bin/time -v (targets: exit 0, < 30 MB resident):
#       fusim --version
#       fusim predict --workload resnet50 --no-store    (stdout must equal the build's own)
#     and, with the GPU half installed but unable to load its libraries, then removed:
#       fusim calib --quick                              (one line on stderr, exit 69)
# Prints one line per run and ends with "light_chroot: ok" or names what failed (exit 1).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
[ "$(id -u)" -eq 0 ] || { echo "light_chroot.sh: needs root (chroot)" >&2; exit 69; }
[ -x /usr/bin/time ] || { echo "light_chroot.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 69; }
limit_kb=30720
t=$(mktemp -d /tmp/fusim-chroot.XXXXXX)
trap 'rm -rf "$t"' EXIT INT TERM
jail=$t/root

prefix=$(meson introspect --buildoptions "$build" |
  python3 -c 'import json, sys; print({o["name"]: o["value"] for o in json.load(sys.stdin)}["prefix"])')
meson install -C "$build" --no-rebuild --destdir "$jail" >/dev/null
fusim=$prefix/bin/fusim
[ -x "$jail$fusim" ] || { echo "light_chroot.sh: $fusim not installed" >&2; exit 1; }
# the loader and the libraries ldd names, at the same paths
ldd "$jail$fusim" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u |
while read -r lib; do
  mkdir -p "$jail$(dirname "$lib")"
  cp -L "$lib" "$jail$lib"
done
mkdir -p "$jail/tmp"
fail=0
gpu_libs=$(find "$jail" -name 'libcuda*' -o -name 'libnccl*' -o -name 'libcublas*' -o -name 'libmpi*' -o -name 'libnvidia*')
[ -z "$gpu_libs" ] || { echo "FAIL: the chroot holds GPU libraries: $gpu_libs"; fail=1; }
echo "chroot: $(find "$jail" -type f | wc -l) files, $(du -sh "$jail" | cut -f1); libraries: $(ldd "$jail$fusim" | awk '$2 == "=>" { printf "%s ", $1 }')"

# jailed NAME WANT_STATUS CMD...: runs CMD inside the chroot; stdout, stderr in $t/NAME.{out,err}
jailed() {
  name=$1 want=$2
  shift 2
  set +e
  /usr/bin/time -v -o "$t/$name.time" chroot "$jail" "$@" >"$t/$name.out" 2>"$t/$name.err"
  got=$?
  set -e
  kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$t/$name.time")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$t/$name.time")
  echo "$name: exit $got (want $want), max resident $kb kB, wall $wall: $*"
  [ "$got" = "$want" ] || { echo "FAIL: $name: exit $got, expected $want"; sed 's/^/  /' "$t/$name.err"; fail=1; }
}
small() { [ "$kb" -lt "$limit_kb" ] || { echo "FAIL: $1: $kb kB resident, over $limit_kb"; fail=1; }; }

jailed version 0 "$fusim" --version
small version
grep -q '^fusim [0-9]' "$t/version.out" || { echo "FAIL: version printed '$(cat "$t/version.out")'"; fail=1; }
jailed predict 0 "$fusim" predict --workload resnet50 --no-store
small predict
"$build/fusim" predict --workload resnet50 --no-store >"$t/predict.here" 2>/dev/null
cmp -s "$t/predict.out" "$t/predict.here" || { echo "FAIL: predict in the chroot differs from the build's"; fail=1; }

gpu=$jail$prefix/$(meson introspect --buildoptions "$build" |
  python3 -c 'import json, sys; print({o["name"]: o["value"] for o in json.load(sys.stdin)}["libexecdir"])')/fusim/fusim-gpu
if [ -x "$gpu" ]; then
  jailed calib-gpu-unloadable 69 "$fusim" calib --quick --db /tmp/c.db
  [ "$(wc -l <"$t/calib-gpu-unloadable.err")" -eq 1 ] && grep -q "GPU half cannot start here" "$t/calib-gpu-unloadable.err" ||
    { echo "FAIL: calib with an unloadable GPU half: not one line naming it"; cat "$t/calib-gpu-unloadable.err"; fail=1; }
  echo "  $(cat "$t/calib-gpu-unloadable.err")"
  rm -f "$gpu"
fi
jailed calib-gpu-missing 69 "$fusim" calib --quick --db /tmp/c.db
[ "$(wc -l <"$t/calib-gpu-missing.err")" -eq 1 ] && grep -q "GPU half, which is not installed" "$t/calib-gpu-missing.err" ||
  { echo "FAIL: calib without the GPU half: not one line saying so"; cat "$t/calib-gpu-missing.err"; fail=1; }
echo "  $(cat "$t/calib-gpu-missing.err")"

[ "$fail" -eq 0 ] || { echo "light_chroot: FAILED"; exit 1; }
echo "light_chroot: ok"
