#!/bin/sh
# cli_framework.sh FUSIM: predict --framework on a workload with a host timeline (data/host2.json,
# the case of test_host.c) and the hand-made profile (D2H 4 us + n / 55.2 GB/s). By hand
# (test_host.c derives each step):
#   ddp, one bucket, views, offload:      667 + d2h(3 MiB) + 20          = 747.987826
#   ddp, one bucket, copy, offload:       967 + d2h(3 MiB) + 300 + 20    = 1347.987826
#   compute alone (compute_us, any plan): 400 + 260 + 20                 = 680
# and --framework ddp on a workload without a host block: one line, exit 65, nothing stored.
set -u
fusim=$1
here=$(cd "$(dirname "$0")" && pwd)
prof=$here/data/test-profile.json
wl=$here/data/host2.json
tmp=$(mktemp -d /tmp/fusim-cli-framework.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0
check() { if [ "$2" -eq 0 ]; then echo "ok   $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi; }
near() { python3 -c "import sys; g, w, t = map(float, sys.argv[1:]); sys.exit(0 if abs(g - w) <= t else 1)" "$1" "$2" "$3"; }
field() { python3 -c "import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
p() { "$fusim" predict --workload "$wl" --profile "$prof" --comm offload --fusion single --no-store --format json "$@"; }

p --framework ddp --pack view > "$tmp/view.json"
check "ddp view exits 0" $?
near "$(field "$tmp/view.json" iter_us)" 747.987826 1e-5; check "ddp view iter_us 747.987826" $?
near "$(field "$tmp/view.json" compute_us)" 680 1e-9; check "compute alone 680" $?
p --framework ddp --pack copy > "$tmp/copy.json"
near "$(field "$tmp/copy.json" iter_us)" 1347.987826 1e-5; check "ddp copy iter_us 1347.987826" $?

"$fusim" predict --workload "$here/data/tiny.json" --profile "$prof" --comm offload --fusion single \
  --framework ddp --db "$tmp/x.db" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 65 ]; check "ddp without a host block exits 65 (got $rc)" $?
[ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "no measured host costs for framework ddp" "$tmp/err"
check "one line naming the missing costs" $?
n=$(python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute('select count(*) from predictions').fetchone()[0])" "$tmp/x.db" 2>/dev/null || echo 0)
[ "$n" = 0 ]; check "nothing stored" $?

[ "$fails" -eq 0 ] || { echo "$fails failed"; exit 1; }
