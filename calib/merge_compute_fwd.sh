#!/bin/bash
# merge_compute_fwd.sh: after calib/device_compute_fwd.sh, its results into the repository:
#   calib-kv.json, calib-hf.json -> data/compute/h200-calib-torch-DATE-kv.json / -hf.json, merged
#     into the bundled profile in the order tools/make_default_profile.sh uses (name order), so
#     that tests/workload/transformer.sh still rebuilds the profile from the committed files;
#   captures.tgz -> data/compute/captures-DATE-fwd/{set,new}/;
# then the comparison: the committed comparison set and held-out-like set, and the new ones.
# The optimizer fit stays the 2026-12-03 one: its per-tensor host part is now carried from the
# new calibration's probe (host_probe_us), not the one it was measured beside.
# Usage (repository root, after tools/build.sh):  bash calib/merge_compute_fwd.sh FILES_AT DATE
set -eu
src=$1 date=$2
fusim=${FUSIM:-build/fusim}
prof=data/profiles/h200-default.json
for part in hf kv; do  # name order (make_default_profile.sh, tests/workload/transformer.sh)
  f=$src/calib-$part.json
  [ -f "$f" ] || { echo "merge_compute_fwd: $f: missing (the call's part did not finish)" >&2; exit 66; }
  cp "$f" "data/compute/h200-calib-torch-$date-$part.json"
  "$fusim" fit --compute "data/compute/h200-calib-torch-$date-$part.json" --merge-into "$prof" >/dev/null
done
cap=data/compute/captures-$date-fwd
mkdir -p "$cap"
tar xzf "$src/captures.tgz" -C "$cap"
echo "== the committed sets, priced with the merged profile"
python3 tools/compare_compute.py --profile "$prof" || true
echo "== this call's sets (captured beside the calibration), priced with the merged profile"
python3 tools/compare_compute.py --profile "$prof" --captures "$cap/set" --heldout "$cap/new" --others "" || true
echo "rebuild (tools/build.sh) to embed the profile; re-derive the bundled workloads: python3 tools/gen_workloads.py" >&2
