#!/bin/sh
# cli_node_net.sh FUSIM: the cluster fit's per-layout mechanisms through the CLI, on synthetic
# sweeps whose answers are worked by hand (issue 12): a node's network that stops scaling with its
# GPUs is capped at the rate the sweep shows, and one slow row does not move a layout's cost.
fusim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
T=$tmp
. "$(dirname "$0")/../lib.sh"
js() { # FILE EXPR: print a Python expression over the JSON in FILE (j)
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"
}
# sweep FILE SPEC...: a CSV of all-reduce rows at 8 B .. 16 GiB (x2), one curve per SPEC
# "ranks:nodes:gpus_per_process:link:ll_us:simple_us:algbw_gbps[:slow_bytes]": the lower envelope
# of an LL line (ll_us, a quarter of algbw) and a Simple line (simple_us, algbw); the row at
# slow_bytes (if given) takes 2.8 times its time, as a stalled run's would.
sweep() {
  out=$1
  shift
  python3 - "$out" "$@" <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write("op,ranks,bytes,time_us,link,nodes,gpus_per_process\n")
    for spec in sys.argv[2:]:
        p = spec.split(":")
        ranks, nodes, gpp, link = int(p[0]), int(p[1]), int(p[2]), p[3]
        ll, simple, bw = float(p[4]), float(p[5]), float(p[6]) * 1e3
        slow = int(p[7]) if len(p) > 7 else 0
        for k in range(3, 35):
            n = 1 << k
            t = min(ll + 4 * n / bw, simple + n / bw)
            if n == slow:
                t *= 2.8
            f.write(f"allreduce,{ranks},{n},{t:.6g},{link},{nodes},{gpp}\n")
EOF
}
fit() { # NAME CSV: import and fit, the profile in $tmp/NAME.json, stdout and stderr kept
  "$fusim" import --db "$tmp/$1.db" "$2" >/dev/null &&
    "$fusim" fit --db "$tmp/$1.db" --no-store --out "$tmp/$1.json" >"$tmp/$1.out" 2>"$tmp/$1.err"
}

# --- a node network that saturates. One node of 2 GPUs at 400 GB/s; 1+1 at 50 GB/s (one NIC),
# 2+2 at 100 (the tree's algbw on 2 nodes: 2 NICs), 4+4 at 120 where 4 NICs would give 200 (the
# tree's algbw min(400 / 2, 4 x 50)): 40% short, so the node carries at most 120 GB/s. The fit
# finds that cap (the 16 GiB rows' rates are within 0.03% of the lines' bandwidths; the cap's grid
# steps by 0.04%, the NIC's by 0.2%: 0.5%) and the NIC rate of the layouts it does not bind (50),
# and prices 8+8, never measured, on the tree at 120 GB/s algbw: busbw 1.875 x 120 = 225 GB/s
# (1%: the latency is 0.3% of 16 GiB's time). Before, 4 NICs of 50 priced it at 1.875 x 200.
sweep "$tmp/cap.csv" 2:1:1:nvlink:8:30:400 2:2:1:net:15:130:50 4:2:2:net:16:190:100 8:2:4:net:20:310:120 &&
  fit cap "$tmp/cap.csv"
check "fit a sweep whose 4+4 falls short of 4 NICs" $?
[ "$(js "$tmp/cap.json" "abs(j['cluster']['node_net_gbps'] / 120 - 1) < 0.005 and abs(j['cluster']['nic_gbps'] / 50 - 1) < 0.005")" = True ]
check "the node's network capped at 120 GB/s, the NIC at 50" $?
[ "$(js "$tmp/cap.json" "'allreduce 2x4' in j['cluster']['node_net_source'] and 'fusim fit of' in j['cluster']['node_net_source']")" = True ] &&
  near "$(sed -n 's|^node network: at most \([0-9.]*\) GB/s a node.*|\1|p' "$tmp/cap.out")" 120 0.6
check "the cap's source names the curve that fell short; fit's output says so" $?
"$fusim" cost --profile "$tmp/cap.json" --comm allreduce:2x8 --bytes 16GiB --format json >"$tmp/c.json" 2>/dev/null &&
  [ "$(js "$tmp/c.json" "j[0]['algo'] == 'tree/Simple' and abs(j[0]['busbw_gbps'] / 225 - 1) < 0.01")" = True ]
check "cost prices 8+8 at the cap (tree, 225 GB/s busbw)" $?
"$fusim" fit --db "$tmp/cap.db" --no-store --out "$tmp/cap2.json" --format json >"$tmp/cap.jout" 2>/dev/null &&
  [ "$(js "$tmp/cap.jout" "abs(j['node_net_gbps'] / 120 - 1) < 0.005 and 'allreduce 2x4' in j['node_net_source']")" = True ]
check "fit --format json carries the cap and its source" $?

# a one-node fit on that profile as --base keeps its network, cap included, labelled the base's
sweep "$tmp/one.csv" 2:1:1:nvlink:8:30:400 && "$fusim" import --db "$tmp/one.db" "$tmp/one.csv" >/dev/null &&
  "$fusim" fit --db "$tmp/one.db" --no-store --base "$tmp/cap.json" --out "$tmp/one.json" >/dev/null 2>&1 &&
  [ "$(js "$tmp/one.json" "abs(j['cluster']['node_net_gbps'] / 120 - 1) < 0.005 and j['cluster']['node_net_source'].startswith('base fitted: fusim fit of')")" = True ]
check "a fit with the capped profile as --base keeps the cap, its source the base's" $?

# --- a node network that scales (4+4 at 4 NICs' 200 GB/s, as the DGX H100 pair): no cap
sweep "$tmp/lin.csv" 2:1:1:nvlink:8:30:400 2:2:1:net:15:130:50 4:2:2:net:16:190:100 8:2:4:net:20:310:200 &&
  fit lin "$tmp/lin.csv" &&
  [ "$(js "$tmp/lin.json" "'node_net_gbps' not in j['cluster']")" = True ] && ! grep -q "node network" "$tmp/lin.out"
check "a sweep that scales with its GPUs gets no cap" $?

# --- one slow row. The same machine with a process layout: 1+1, 2+2 and 4+4 at 1, 2, 4 GPUs a
# process, each layout's large-size intercept its own. The 2+2 log's 256 MiB row taking 2.8x its
# time (the smallest of the sizes the intercept is taken from) is left out of the intercept, so
# the layout cost is the clean sweep's: the same intercepts give the same point of the fit's grid
# (its steps are 2^(1/4), 19%), 1% allows only rounding. Before, the row moved the 2+2 intercept
# and the layout cost with it.
clean="2:1:1:nvlink:8:30:400 2:2:1:net:15:130:50 4:2:2:net:16:230:100 8:2:4:net:20:550:200"
slow="2:1:1:nvlink:8:30:400 2:2:1:net:15:130:50 4:2:2:net:16:230:100:268435456 8:2:4:net:20:550:200"
sweep "$tmp/clean.csv" $clean && fit clean "$tmp/clean.csv" &&
  sweep "$tmp/slow.csv" $slow && fit slow "$tmp/slow.csv"
check "fit the layout sweep with and without a slow row" $?
[ "$(js "$tmp/clean.json" "j['cluster']['proc_pair_us'] > 0")" = True ] &&
  [ "$(python3 -c "import json,sys; a, b = (json.load(open(f))['cluster']['proc_pair_us'] for f in sys.argv[1:]); print(abs(b / a - 1) < 0.01)" "$tmp/clean.json" "$tmp/slow.json")" = True ]
check "one slow row leaves the layout cost as the clean sweep's (within 1%)" $?
grep -q "allreduce net 4 ranks (2 nodes): left out of the cluster model's large-size bandwidth and intercept.*: 256 MiB (" "$tmp/slow.err" &&
  ! grep -q "left out" "$tmp/clean.err"
check "the fit says which row it left out (the slow one only)" $?

finish cli_node_net
