#!/bin/sh
# `meson install` of this build into a staging folder (--destdir): the bundled data is installed
# beside the binary (share/fusim/{workloads,profiles}, the same files as data/), the build folder's
# pointer to the source tree (fusim-data-dir) is not, and the installed fusim runs the user's
# commands from there alone: with share/fusim taken away it finds no workload (so it never read
# the source tree's), and put back it prints what the build's fusim prints.
# usage: install.sh FUSIM BUILD_ROOT
fusim=$(readlink -f "$1")
build=$(readlink -f "$2")
src=${FUSIM_SOURCE_ROOT:?}
T=$(mktemp -d /tmp/fusim-install.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
unset FUSIM_DATA FUSIM_DATADIR

meson install -C "$build" --no-rebuild --destdir "$T/dest" >"$T/install.log" 2>&1 ||
  { bad "meson install failed: $(tail -n 3 "$T/install.log")"; finish install; exit 1; }
inst=$(find "$T/dest" -path '*/bin/fusim' -type f | head -n 1)
[ -n "$inst" ] || { bad "no bin/fusim installed"; finish install; exit 1; }
share=$(dirname "$inst")/../share/fusim
for d in workloads profiles; do
  if diff -r "$src/data/$d" "$share/$d" >/dev/null; then ok; else bad "share/fusim/$d differs from data/$d"; fi
done
if [ -z "$(find "$T/dest" -name fusim-data-dir)" ]; then ok; else bad "the build folder's fusim-data-dir was installed"; fi

# run from elsewhere, as a user would
cd "$T" || exit 1
expect 0 "$inst" --version
grep -q "fusim" "$T/out" || bad "--version printed no version line"
for cmd in "predict --workload resnet50 --no-store" "plan --workload bert_large --comm allreduce:8:nvlink --no-store"; do
  # shellcheck disable=SC2086 # cmd is split into its words on purpose
  expect 0 "$inst" $cmd
  # the search's own run time ("5.09 ms in all") differs from run to run
  sed -E 's/[0-9.]+ ms in all/T ms in all/' "$T/out" >"$T/inst.txt"
  # shellcheck disable=SC2086
  "$fusim" $cmd 2>/dev/null | sed -E 's/[0-9.]+ ms in all/T ms in all/' >"$T/build.txt"
  if cmp -s "$T/inst.txt" "$T/build.txt"; then ok; else bad "installed '$cmd' prints other than the build's"; fi
  [ -s "$T/predict.txt" ] || cp "$T/build.txt" "$T/predict.txt"
done

# a bundled profile by its name: the installed share/fusim/profiles/h200-pcie.json, whose own file
# gives the same offload prediction, which the embedded profile's differs from (and a name that is
# not there: one line, 66)
expect 0 "$inst" predict --workload resnet50 --comm offload --profile h200-pcie --no-store
cp "$T/out" "$T/byname.txt"
expect 0 "$inst" predict --workload resnet50 --comm offload --profile "$src/data/profiles/h200-pcie.json" --no-store
if cmp -s "$T/out" "$T/byname.txt"; then ok; else bad "--profile h200-pcie prints other than its file"; fi
expect 0 "$inst" predict --workload resnet50 --comm offload --no-store
if cmp -s "$T/out" "$T/byname.txt"; then bad "--profile h200-pcie printed the embedded profile's prediction"; else ok; fi
expect 66 "$inst" predict --workload resnet50 --profile no_such_profile --no-store
one_line "no_such_profile"

# without share/fusim it has nothing to read: one line, 66 (no path into the source tree)
mv "$share" "$T/moved"
expect 66 "$inst" predict --workload resnet50 --no-store
one_line "resnet50"
expect 66 "$inst" workload --list
# $FUSIM_DATA still reaches a data folder wherever it lies
expect 0 env FUSIM_DATA="$T/moved" "$inst" predict --workload resnet50 --no-store
if cmp -s "$T/out" "$T/predict.txt"; then ok; else bad "installed predict with FUSIM_DATA prints other than the build's"; fi
finish install
