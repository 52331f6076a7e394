#!/bin/sh
# Quick start: install dependencies, build, and run the main job on the embedded default: rank
# the fusion plans for the bundled BERT-large workload on the bundled H200 profile (8 ranks
# over NVLink), storing every prediction in ./fusim.db.
set -eu
cd "$(dirname "$0")/.."
tools/setup.sh
tools/build.sh
./build/fusim plan --workload bert_large --comm allreduce:8:nvlink --db fusim.db
echo "results stored in fusim.db: try ./build/fusim report predictions --db fusim.db" >&2
