#!/bin/sh
# The light fusim and where it finds its parts (model/fu_paths.h), on copies of the binary laid
# out as an install, a build folder and a lone file:
#  - data: $FUSIM_DATA, <exe>/../share/fusim (install), <exe>/../data (build folder), none;
#  - the GPU half: missing -> calib and validate say so in one line, exit 69, after their own
#    option checks; installed but unable to start (a stand-in that fails as the dynamic loader
#    does) -> one line naming the loader's reason, 69; installed -> gets the same argv (execv).
# usage: light.sh FUSIM
fusim=$1
src=${FUSIM_SOURCE_ROOT:?}
fail=0
t=$(mktemp -d /tmp/fusim-light.XXXXXX)
trap 'rm -rf "$t"' EXIT
bad() { echo "FAIL: $*" >&2; fail=1; }
# run NAME EXPECTED_STATUS CMD...: stdout in $t/out, stderr in $t/err
run() {
  name=$1 want=$2
  shift 2
  "$@" >"$t/out" 2>"$t/err"
  got=$?
  [ "$got" = "$want" ] || { bad "$name: exit $got, expected $want"; cat "$t/err" >&2; }
}
one_line() { [ "$(wc -l <"$t/err")" -eq 1 ] || { bad "$1: stderr is not one line:"; cat "$t/err" >&2; }; }

# no path of the source tree in what the program loads (debug info, when built with -g, may name it)
for sec in .rodata .data; do
  readelf -p "$sec" "$fusim" 2>/dev/null | grep -qF "$src" && bad "the binary's $sec holds the source tree's path $src"
done

# a lone copy: no data folder beside it, no GPU half
mkdir -p "$t/lone"
cp "$fusim" "$t/lone/fusim"
run "lone --version" 0 "$t/lone/fusim" --version
run "lone predict (no data)" 66 "$t/lone/fusim" predict --workload resnet50 --no-store
one_line "lone predict (no data)"
run "lone predict FUSIM_DATA" 0 env FUSIM_DATA="$src/data" "$t/lone/fusim" predict --workload resnet50 --no-store
grep -q "iteration" "$t/out" || bad "lone predict FUSIM_DATA: no iteration time printed"
run "lone workload --list (no data)" 66 "$t/lone/fusim" workload --list
one_line "lone workload --list (no data)"
grep -q "FUSIM_DATA" "$t/err" || bad "workload --list without data does not name FUSIM_DATA"
# the GPU half is missing: options are still checked first (64), then one line, 69
run "lone calib bad option" 64 "$t/lone/fusim" calib -g 0
run "lone calib" 69 "$t/lone/fusim" calib --quick --db "$t/c.db"
one_line "lone calib"
grep -q "GPU half" "$t/err" || bad "lone calib: does not say that the GPU half is missing"
[ ! -e "$t/c.db" ] || bad "lone calib created the database"
run "lone validate" 69 env FUSIM_DATA="$src/data" "$t/lone/fusim" validate --workload resnet50 --no-store
one_line "lone validate"
grep -q "GPU half" "$t/err" || bad "lone validate: does not say that the GPU half is missing"

# an install layout: bin/fusim, share/fusim/{workloads,profiles}, libexec/fusim/fusim-gpu
mkdir -p "$t/inst/bin" "$t/inst/share/fusim" "$t/inst/libexec/fusim"
cp "$fusim" "$t/inst/bin/fusim"
cp -r "$src/data/workloads" "$src/data/profiles" "$t/inst/share/fusim/"
run "install predict" 0 "$t/inst/bin/fusim" predict --workload resnet50 --no-store
run "install workload --list" 0 "$t/inst/bin/fusim" workload --list --format csv
grep -q "^resnet50,$t/inst/bin/../share/fusim/workloads/resnet50.json," "$t/out" ||
  bad "install workload --list: resnet50 not listed from share/fusim"
# FUSIM_DATA comes first: a workload of the same name there wins
mkdir -p "$t/mine/workloads"
printf '{"format":"fusim-workload-1","name":"mine","fwd_us":1,"bwd_us":2,"grads":[{"name":"w","bytes":4096,"ready_us":1}]}\n' \
  >"$t/mine/workloads/resnet50.json"
run "FUSIM_DATA first" 0 env FUSIM_DATA="$t/mine" "$t/inst/bin/fusim" workload --info resnet50 --format csv
grep -q "mine" "$t/out" || bad "FUSIM_DATA first: the bundled resnet50 was read instead of \$FUSIM_DATA's"
# the older name still works, with one warning line
run "FUSIM_DATADIR" 0 env FUSIM_DATADIR="$t/mine" "$t/inst/bin/fusim" predict --workload resnet50 --no-store --format json
grep -q "FUSIM_DATADIR is the older name" "$t/err" || bad "FUSIM_DATADIR: no warning"

# a stand-in GPU half that cannot start: its loader's reason, one line, 69
cat >"$t/inst/libexec/fusim/fusim-gpu" <<'SH'
#!/bin/sh
echo "$0: error while loading shared libraries: libnccl.so.2: cannot open shared object file: No such file or directory" >&2
exit 127
SH
chmod +x "$t/inst/libexec/fusim/fusim-gpu"
run "gpu half cannot start" 69 "$t/inst/bin/fusim" calib --quick
one_line "gpu half cannot start"
grep -q "GPU half cannot start here: .*libnccl.so.2: cannot open shared object file" "$t/err" ||
  { bad "gpu half cannot start: the loader's reason is not in the line"; cat "$t/err" >&2; }
# a stand-in GPU half that starts: calib and validate get the same argv, others stay in fusim
cat >"$t/inst/libexec/fusim/fusim-gpu" <<'SH'
#!/bin/sh
[ "$1" = --can-start ] && exit 0
printf '%s|' "$@"
exit 42
SH
run "gpu half calib" 42 "$t/inst/bin/fusim" calib --quick -g 1
[ "$(cat "$t/out")" = "calib|--quick|-g|1|" ] || bad "gpu half calib: got argv '$(cat "$t/out")'"
run "gpu half validate" 42 "$t/inst/bin/fusim" validate --from-csv x.csv
[ "$(cat "$t/out")" = "validate|--from-csv|x.csv|" ] || bad "gpu half validate: got argv '$(cat "$t/out")'"
run "predict stays light" 0 "$t/inst/bin/fusim" predict --workload resnet50 --no-store

# a build folder layout: build/fusim finds ../data
mkdir -p "$t/tree/build"
cp "$fusim" "$t/tree/build/fusim"
ln -s "$src/data" "$t/tree/data"
run "build folder predict" 0 "$t/tree/build/fusim" predict --workload resnet50 --no-store
exit $fail
