#!/bin/sh
# gpu_calib.sh FUSIM: fusim calib on a real GPU (exit 77, skipped, without one): a short run of
# every suite stores samples with no data errors and sane ceilings; too many GPUs is refused
# with exit 64 before any work.
set -u
fusim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=$tmp/calib.db
"$fusim" calib -g 999 --db "$db" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 69 ]; then cat "$tmp/err"; echo "no GPU (or built without CUDA): skipped"; exit 77; fi
[ "$rc" -eq 64 ] || { echo "FAIL: -g 999: exit $rc, expected 64"; cat "$tmp/err"; exit 1; }
grep -q 'visible' "$tmp/err" || { echo "FAIL: -g 999 message"; cat "$tmp/err"; exit 1; }
[ ! -e "$db" ] || { echo "FAIL: database created although -g was refused"; exit 1; }

"$fusim" calib --quick -b 64KiB -e 16MiB -n 5 -w 1 --progress off --format csv --db "$db" \
  >"$tmp/out.csv" 2>"$tmp/err" || { echo "FAIL: quick calib"; cat "$tmp/err"; exit 1; }
python3 - "$db" "$tmp/out.csv" <<'PY' || exit 1
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = db.execute("select count(*) from samples").fetchone()[0]
wrong = db.execute("select count(*) from samples where n_wrong > 0").fetchone()[0]
ops = {r[0] for r in db.execute("select distinct op from samples")}
assert n > 50, "only %d samples" % n
assert wrong == 0, "%d samples with data errors" % wrong
for op in ("allreduce", "sendrecv", "h2d", "d2h", "d2d", "bidir", "pack", "issue", "launch", "gemm"):
    assert op in ops, "no %s samples" % op
# ceilings far below what any PCIe Gen4+ GPU reaches would mean a broken measurement
bw = db.execute("select max(busbw_gbps) from samples where op='h2d' and coalesce(algo,'') = ''").fetchone()[0]
assert bw > 10, "h2d peak %.1f GB/s" % bw
hbm = db.execute("select max(busbw_gbps) from samples where op='d2d'").fetchone()[0]
assert hbm > 300, "d2d peak %.1f GB/s" % hbm
prov = db.execute("select h.gpu, h.driver, h.cuda, r.cmdline from runs r join hosts h on r.host_id = h.id").fetchone()
assert all(prov), "provenance incomplete: %r" % (prov,)
rows = open(sys.argv[2]).read().splitlines()
assert sum(1 for r in rows if not r.startswith("#")) == n + 1, "CSV rows differ from the database"
print("ok: %d samples, h2d %.1f GB/s, d2d %.0f GB/s, %s" % (n, bw, hbm, prov[0]))
PY
exit 0
