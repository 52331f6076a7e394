#!/bin/sh
# The light fusim and where it finds its parts (model/fu_paths.h), on copies of the binary laid
# out as an install, a build folder and a lone file:
#  - data: $FUSIM_DATA, the folder named in <exe>/fusim-data-dir (a build folder anywhere),
#    <exe>/../share/fusim (install), <exe>/../data (build folder in the source tree), none;
#  - the GPU half: missing -> calib and validate say so in one line, exit 69, after their own
#    option checks; installed but unable to start (a stand-in that fails as the dynamic loader
#    does) -> one line naming the loader's reason, 69; installed -> gets the same argv (execv).
# usage: light.sh FUSIM
fusim=$1
src=${FUSIM_SOURCE_ROOT:?}
T=$(mktemp -d /tmp/fusim-light.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"

# no path of the source tree in what the program loads (debug info, when built with -g, may name it)
for sec in .rodata .data; do
  readelf -p "$sec" "$fusim" 2>/dev/null | grep -qF "$src" && bad "the binary's $sec holds the source tree's path $src"
done

# a lone copy: no data folder beside it, no GPU half
mkdir -p "$T/lone"
cp "$fusim" "$T/lone/fusim"
expect 0 "$T/lone/fusim" --version
expect 66 "$T/lone/fusim" predict --workload resnet50 --no-store
one_line ""
expect 0 env FUSIM_DATA="$src/data" "$T/lone/fusim" predict --workload resnet50 --no-store
grep -q "iteration" "$T/out" || bad "lone predict FUSIM_DATA: no iteration time printed"
expect 66 "$T/lone/fusim" workload --list
one_line ""
grep -q "FUSIM_DATA" "$T/err" || bad "workload --list without data does not name FUSIM_DATA"
# the GPU half is missing: options are still checked first (64), then one line, 69
expect 64 "$T/lone/fusim" calib -g 0
expect 69 "$T/lone/fusim" calib --quick --db "$T/c.db"
one_line ""
grep -q "GPU half" "$T/err" || bad "lone calib: does not say that the GPU half is missing"
[ ! -e "$T/c.db" ] || bad "lone calib created the database"
expect 69 env FUSIM_DATA="$src/data" "$T/lone/fusim" validate --workload resnet50 --no-store
one_line ""
grep -q "GPU half" "$T/err" || bad "lone validate: does not say that the GPU half is missing"

# an install layout: bin/fusim, share/fusim/{workloads,profiles}, libexec/fusim/fusim-gpu
mkdir -p "$T/inst/bin" "$T/inst/share/fusim" "$T/inst/libexec/fusim"
cp "$fusim" "$T/inst/bin/fusim"
cp -r "$src/data/workloads" "$src/data/profiles" "$T/inst/share/fusim/"
expect 0 "$T/inst/bin/fusim" predict --workload resnet50 --no-store
expect 0 "$T/inst/bin/fusim" workload --list --format csv
grep -q "^resnet50,$T/inst/bin/../share/fusim/workloads/resnet50.json," "$T/out" ||
  bad "install workload --list: resnet50 not listed from share/fusim"
# FUSIM_DATA comes first: a workload of the same name there wins
mkdir -p "$T/mine/workloads"
printf '{"format":"fusim-workload-1","name":"mine","fwd_us":1,"bwd_us":2,"grads":[{"name":"w","bytes":4096,"ready_us":1}]}\n' \
  >"$T/mine/workloads/resnet50.json"
expect 0 env FUSIM_DATA="$T/mine" "$T/inst/bin/fusim" workload --info resnet50 --format csv
grep -q "mine" "$T/out" || bad "FUSIM_DATA first: the bundled resnet50 was read instead of \$FUSIM_DATA's"
# --list names what --workload finds, in the same order: FUSIM_DATA's resnet50 (its own file),
# then the bundled ones ($FUSIM_DATA's folder alone was listed: an empty one listed nothing
# while every bundled name resolved)
expect 0 env FUSIM_DATA="$T/mine" "$T/inst/bin/fusim" workload --list --format csv
grep -q "^resnet50,$T/mine/workloads/resnet50.json," "$T/out" && grep -q "^bert_large," "$T/out" &&
  [ "$(grep -c '^resnet50,' "$T/out")" = 1 ] && ok || bad "workload --list with FUSIM_DATA: $(cat "$T/out")"
# the older name still works, with one warning line
expect 0 env FUSIM_DATADIR="$T/mine" "$T/inst/bin/fusim" predict --workload resnet50 --no-store --format json
grep -q "FUSIM_DATADIR is the older name" "$T/err" || bad "FUSIM_DATADIR: no warning"

# a stand-in GPU half that cannot start: its loader's reason, one line, 69
cat >"$T/inst/libexec/fusim/fusim-gpu" <<'SH'
#!/bin/sh
echo "$0: error while loading shared libraries: libnccl.so.2: cannot open shared object file: No such file or directory" >&2
exit 127
SH
chmod +x "$T/inst/libexec/fusim/fusim-gpu"
expect 69 "$T/inst/bin/fusim" calib --quick
one_line ""
grep -q "GPU half cannot start here: .*libnccl.so.2: cannot open shared object file" "$T/err" ||
  { bad "gpu half cannot start: the loader's reason is not in the line"; cat "$T/err" >&2; }
# what needs no GPU stays with the light command then: --help, validate --from-csv (both 69)
expect 0 "$T/inst/bin/fusim" calib --help
expect 0 "$T/inst/bin/fusim" validate --help
V=${FUSIM_SOURCE_ROOT:-$(dirname "$0")/../..}/data/validation/h200_offload_matrix_run3.csv
expect 0 "$T/inst/bin/fusim" validate --from-csv "$V"
# a stand-in GPU half that starts: calib and validate get the same argv, others stay in fusim
cat >"$T/inst/libexec/fusim/fusim-gpu" <<'SH'
#!/bin/sh
[ "$1" = --can-start ] && exit 0
printf '%s|' "$@"
exit 42
SH
expect 42 "$T/inst/bin/fusim" calib --quick -g 1
[ "$(cat "$T/out")" = "calib|--quick|-g|1|" ] || bad "gpu half calib: got argv '$(cat "$T/out")'"
expect 42 "$T/inst/bin/fusim" validate --from-csv x.csv
[ "$(cat "$T/out")" = "validate|--from-csv|x.csv|" ] || bad "gpu half validate: got argv '$(cat "$T/out")'"
expect 0 "$T/inst/bin/fusim" predict --workload resnet50 --no-store

# a build folder layout: build/fusim finds ../data
mkdir -p "$T/tree/build"
cp "$fusim" "$T/tree/build/fusim"
ln -s "$src/data" "$T/tree/data"
expect 0 "$T/tree/build/fusim" predict --workload resnet50 --no-store
# this build itself, wherever its folder lies (meson setup /tmp/rel from the source tree)
unset FUSIM_DATA FUSIM_DATADIR
expect 0 "$fusim" predict --workload resnet50 --no-store
# a build folder outside the source tree: fusim-data-dir beside the executable names data/
mkdir -p "$T/elsewhere"
cp "$fusim" "$T/elsewhere/fusim"
expect 66 "$T/elsewhere/fusim" predict --workload resnet50 --no-store
echo "$src/data" >"$T/elsewhere/fusim-data-dir"
expect 0 "$T/elsewhere/fusim" predict --workload resnet50 --no-store
expect 0 "$T/elsewhere/fusim" workload --list --format csv
grep -q "^resnet50,$src/data/workloads/resnet50.json," "$T/out" ||
  bad "build folder elsewhere: resnet50 not listed from the source tree's data/"
# a data folder that is gone: one line, 66
echo "$T/gone/data" >"$T/elsewhere/fusim-data-dir"
expect 66 "$T/elsewhere/fusim" predict --workload resnet50 --no-store
one_line ""
finish light
