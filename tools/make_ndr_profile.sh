#!/bin/sh
# make_ndr_profile.sh: data/profiles/h200-ndr.json, the embedded H200 profile (h200-default) with
# the collective cost model's links, so that --comm allreduce:NODESxGPUS prices jobs across nodes
# of 8 H200s with a 400 Gb/s NDR InfiniBand rail a GPU (the Azure ND H200 v5's network, whose
# published 8-GPU all-reduce the default holds) without a log of the user's own.
#
# The links are borrowed, and each source says so: fusim fit of the public logs of a DGX H100 pair
# (../shared/data/public-nccl-tests/multi-node/): 2 GPUs on one node (NVLink 4, the H200's link)
# and 1 + 1 across the nodes (one NDR rail). Everything else is the default's, curves included:
# the 8-GPU all-reduce stays measured; 2 nodes of 8 are priced by the model. A cluster's own
# multi-node logs (fusim fit) replace all of this.
#
#   tools/make_ndr_profile.sh [FUSIM [OUT.json]]
#     FUSIM     the fusim binary (default build/fusim)
#     OUT.json  where to write (default data/profiles/h200-ndr.json)
# Environment: FUSIM_SHARED (default ../shared next to the source tree).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
fusim=${1:-$root/build/fusim}
out=${2:-$root/data/profiles/h200-ndr.json}
[ -x "$fusim" ] || { echo "make_ndr_profile.sh: no fusim binary at $fusim; build first" >&2; exit 66; }
logs=${FUSIM_SHARED:-$root/../shared}/data/public-nccl-tests/multi-node
one=mghpcc-dgxh100-2gpu-1node-allreduce.txt
pair=mghpcc-dgxh100-2gpu-2node-allreduce.txt
for f in "$one" "$pair"; do
  [ -r "$logs/$f" ] || { echo "make_ndr_profile.sh: $logs/$f: missing" >&2; exit 66; }
done

tmp=$(mktemp -d /tmp/fusim-ndr-profile.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
"$fusim" import --db "$tmp/links.db" --link nvlink "$logs/$one" >/dev/null
"$fusim" import --db "$tmp/links.db" "$logs/$pair" >/dev/null
"$fusim" fit --db "$tmp/links.db" --no-store --format csv --out "$tmp/links.json" --name dgx-h100-links \
  >/dev/null 2>"$tmp/fit.err" || { cat "$tmp/fit.err" >&2; exit 70; }

python3 - "$tmp/links.json" "$root/data/profiles/h200-default.json" "$out" "$one" "$pair" <<'PY'
import json, sys

links_path, default, out, one, pair = sys.argv[1:6]
links = json.load(open(links_path))["cluster"]
prof = json.load(open(default))
# each source within the profile's 159 characters
c = dict(links)
c["intra_source"] = "borrowed: fusim fit of the public DGX H100 pair's %s (NVLink 4)" % one
c["net_source"] = "borrowed: fusim fit of the public DGX H100 pair's %s (one 400 Gb/s NDR rail)" % pair
if c.get("nvls_source"):
    c["nvls_source"] = ("borrowed: " + c["nvls_source"])[:159]
# the model's error on those logs (fusim cost prices it wide: the links are another GPU's)
for scope, e in c.get("model_error", {}).items():
    e["borrowed"] = True
    e["source"] = "borrowed: fusim fit of the public DGX H100 pair's %s" % (one if scope == "one_node" else pair)
c["gpus_per_node"] = 8       # the ND H200 v5 node: 8 GPUs, a rail each (nics_per_node 0: one a GPU)
c["nics_per_node"] = 0
prof["cluster"] = c
prof["name"] = "h200-ndr"
prof["machine"] = "NVIDIA H200, 8 GPUs per node, 8 x 400 Gb/s NDR (links borrowed)"
prof["source"] = ("fusim tools/make_ndr_profile.sh: h200-default with the collective cost model's links "
                  "borrowed from public DGX H100 pair logs")
prof["notes"] = ("Links across nodes and the NVLink ring rate are borrowed from a DGX H100 pair (the same "
                 "NVLink 4 and 400 Gb/s NDR rails), not measured on H200s; --comm allreduce:2x8 and the like "
                 "are priced by the collective cost model from them. " + prof.get("notes", ""))
json.dump(prof, open(out, "w"), indent=1)
open(out, "a").write("\n")
PY
echo "wrote $out" >&2
