#!/bin/sh
# bench_pack.sh FUSIM: the pack kernel's speed target on a real GPU (exit 77 without one):
# pack + one D2H copy of 64 x 64 KiB at most 15% above one contiguous 4 MiB copy (issue 4; the
# reference's naive pack took 1.167x), both timed the reference's way. Also prints the
# pack-straight-to-pinned-host (p2h) ratio and the kernel's own bandwidth at 512 MiB.
set -u
fusim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$fusim" calib -s pack --progress off --format csv --db "$tmp/b.db" >"$tmp/p.csv" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 69 ]; then echo "no GPU: skipped"; exit 77; fi
[ "$rc" -eq 0 ] || { cat "$tmp/err"; exit 1; }
python3 - "$tmp/p.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
t = {(r["algo"], r["proto"]): float(r["time_us"]) for r in rows if r["bytes"] == "4194304"}
one, pk, p2h = t[("one:k=64", "")], t[("pack+d2h:k=64", "")], t[("p2h:k=64", "")]
print("64 x 64 KiB: one copy %.2f us, pack + copy %.2f us (%.3fx), pack to host %.2f us (%.3fx)"
      % (one, pk, pk / one, p2h, p2h / one))
big = [r for r in rows if r["algo"] == "k=4" and r["bytes"] == "536870912" and r["proto"] == ""]
if big:
    print("pack kernel 4 x 128 MiB: %.0f GB/s" % float(big[0]["busbw_gbps"]))
sys.exit(0 if pk / one <= 1.15 else 1)
PY
