#!/bin/sh
# cli_framework.sh FUSIM: predict --framework on a workload with a host timeline (data/host2.json,
# the case of test_host.c) and the hand-made profile (D2H 4 us + n / 55.2 GB/s). By hand
# (test_host.c derives each step):
#   ddp, one bucket, views, offload:      667 + d2h(3 MiB) + 20          = 747.987826
#   ddp, one bucket, copy, offload:       967 + d2h(3 MiB) + 300 + 20    = 1347.987826
#   compute alone (compute_us, any plan): 400 + 260 + 20                 = 680
# and --framework ddp on a workload without a host block: one line, exit 65, nothing stored.
# An older host block (version 1, data/host1.json: tiny.json with {"hook_us": 10, "issue_us": 5})
# still loads and is read as ideal: the default framework gives what --framework ideal gives,
# tiny.json's time plus its host costs on the path, 3 hooks x 10 + one issue 5 (launch-bound:
# each segment waits for the hook before it; single bucket, offload):
#   fwd [0,1000] seg0 [1000,2000] hook [2000,2010] seg1 [2010,3010] hook [3010,3020] seg2
#   [3020,4020] hook [4020,4030] issue [4030,4035] pack 9.194304 comm d2h(8 MiB) 155.967536 opt 50
#                                                                            = 4250.161840
# (tiny.json alone: 4215.161840); --framework ddp or hooks on it: one line, exit 65.
set -u
fusim=$1
here=$(cd "$(dirname "$0")" && pwd)
prof=$here/data/test-profile.json
wl=$here/data/host2.json
tmp=$(mktemp -d /tmp/fusim-cli-framework.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
T=$tmp
. "$(dirname "$0")/../lib.sh"
p() { "$fusim" predict --workload "$wl" --profile "$prof" --comm offload --fusion single --no-store --format json "$@"; }

p --framework ddp --pack view > "$tmp/view.json"
check "ddp view exits 0" $?
near "$(field "$tmp/view.json" iter_us)" 747.987826 1e-5; check "ddp view iter_us 747.987826" $?
near "$(field "$tmp/view.json" compute_us)" 680 1e-9; check "compute alone 680" $?
p --framework ddp --pack copy > "$tmp/copy.json"
near "$(field "$tmp/copy.json" iter_us)" 1347.987826 1e-5; check "ddp copy iter_us 1347.987826" $?
# memory: DDP's reducer keeps every bucket (host2.json's 2 gradients, 3 MiB in all) through the step,
# as views too, where fusim's own plans hold one buffer of the largest packed bucket (none: 0)
near "$(field "$tmp/view.json" fusion_buffer_bytes)" 3145728 0; check "ddp view keeps its bucket: 3 MiB" $?
p --framework ddp --fusion none > "$tmp/none.json"
near "$(field "$tmp/none.json" fusion_buffer_bytes)" 3145728 0; check "ddp, a bucket a tensor: both, 3 MiB" $?
# the hook pattern (copy) keeps a fusion buffer per bucket, a lone tensor's too, and copies every
# gradient into it (tools/torch_host.py HookFuser): 3 MiB for host2.json's two one-tensor buckets
p --framework hooks --fusion none > "$tmp/none-hooks.json"
near "$(field "$tmp/none-hooks.json" fusion_buffer_bytes)" 3145728 0; check "hooks, a bucket a tensor: a buffer each, 3 MiB" $?
p --fusion none > "$tmp/none-ideal.json"
near "$(field "$tmp/none-ideal.json" fusion_buffer_bytes)" 0 0; check "ideal, a bucket a tensor: no buffer" $?

"$fusim" predict --workload "$here/data/tiny.json" --profile "$prof" --comm offload --fusion single \
  --framework ddp --db "$tmp/x.db" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 65 ]; check "ddp without a host block exits 65 (got $rc)" $?
[ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "no measured host costs for framework ddp" "$tmp/err"
check "one line naming the missing costs" $?
n=$(python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute('select count(*) from predictions').fetchone()[0])" "$tmp/x.db" 2>/dev/null || echo 0)
[ "$n" = 0 ]; check "nothing stored" $?

old=$here/data/host1.json
q() { "$fusim" predict --workload "$old" --profile "$prof" --comm offload --fusion single --no-store --format json "$@"; }
q > "$tmp/v1.json"
check "host block v1 loads (exit $?)" $?
near "$(field "$tmp/v1.json" iter_us)" 4250.161840 1e-5; check "host block v1 iter_us 4250.161840" $?
q --framework ideal > "$tmp/v1ideal.json"
[ "$(field "$tmp/v1.json" iter_us)" = "$(field "$tmp/v1ideal.json" iter_us)" ] &&
  [ "$(field "$tmp/v1.json" plan)" = "$(field "$tmp/v1ideal.json" plan)" ]
check "host block v1: the default framework is ideal" $?
for fw in ddp hooks; do
  q --framework $fw > "$tmp/out" 2> "$tmp/err"
  rc=$?
  [ "$rc" -eq 65 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] &&
    grep -q "no measured host costs for framework $fw" "$tmp/err"
  check "host block v1 with --framework $fw: exit 65, one line (got $rc)" $?
done

# the host timeline is what is simulated: --info says so and gives its GPU-only times (it showed
# only the top-level times, which the simulator does not use with a version-2 block, and "host
# hook/issue us 0 / 0", which read as no host data)
python3 -c "
import json, sys
w = json.load(open(sys.argv[1])); w['fwd_us'], w['bwd_us'], w['opt_us'] = 999.0, 888.0, 77.0
json.dump(w, open(sys.argv[2], 'w'))" "$wl" "$tmp/top.json"
"$fusim" workload --info "$tmp/top.json" >"$tmp/info.txt" &&
  grep -q "^host timeline  *version 2: simulated from its GPU-only fwd/bwd/opt 400.0 / 260.0 / 20.0 us" "$tmp/info.txt" &&
  grep -q "^framework costs  *ddp, hooks" "$tmp/info.txt" && ! grep -q "hook/issue" "$tmp/info.txt"
check "workload --info names the host timeline's times" $?
"$fusim" workload --info "$tmp/top.json" --format json >"$tmp/info.json" &&
  python3 -c "
import json, sys
h = json.load(open(sys.argv[1]))['host']
assert (h['version'], h['fwd_gpu_us'], h['bwd_gpu_us'], h['opt_gpu_us'], h['bwd_cpu_us'], h['ddp']) == (2, 400, 260, 20, 320, True), h" "$tmp/info.json"
check "workload --info --format json: host block" $?

# Horovod on a workload with a host timeline (data/host4.json, allreduce:8 at 20 us + n x 1e-5
# us/B, pack/unpack d2d 5 us + n x 5e-7 us/B): the background thread issues each fusion on the
# cycle grid counted from backward's start on the GPU (300 us), as without a host block. It
# issued on the host thread as soon as a bucket's last gradient was ready (a cycle of 50 ms cost
# nothing), and its buckets were cut on ready times counted from gradient 0's ready time (g0
# always alone at tick 0).
#   1 ms: ticks 300, 1300: every gradient (ready 450..800) goes at 1300, one 4 MiB bucket:
#         1300 + pack 7.097152 + 61.94304 + unpack 7.097152 + optimizer 50 = 1426.137344
#   50 ms: the same at 50300                                               = 50426.137344
#   0.1 ms: g0 (450) at 500, g1 (600) at 600, g2 and g3 (750, 800) at 800, compute-bound: 950
h4=$here/data/host4.json
for cyc in "1ms 1426.137344 1" "50ms 50426.137344 1" "0.1ms 950 3"; do
  set -- $cyc
  "$fusim" predict --workload "$h4" --profile "$prof" --comm allreduce:8 --fusion horovod:64MiB,$1 \
    --no-store --format json > "$tmp/hvd.json"
  near "$(field "$tmp/hvd.json" iter_us)" "$2" 1e-5 && [ "$(field "$tmp/hvd.json" n_ops)" = "$3" ]
  check "horovod:64MiB,$1 on a host timeline: iter_us $2, $3 buckets" $?
done
python3 -c "
import json, sys
b = json.load(open(sys.argv[1]))['buckets']
assert [(x['first'], x['last'], x['start_us']) for x in b] == [(0, 0, 500), (1, 1, 600), (2, 3, 800)], b" "$tmp/hvd.json"
check "horovod 0.1ms on a host timeline: buckets start on the cycle grid" $?

# DDP runs its forward (pre-forward, buffers, prepare: host4.json's forward_us 11) every
# micro-batch, under no_sync too. With accum_steps 2 the GPU-bound step is the one-micro-batch
# step (1761, ddp copy, a bucket a tensor) plus the first micro-batch's GPU time (300 + 600),
# which waits for its own DDP forward as the last one does: 1761 + 900 = 2661 (the first
# micro-batch paid none: 2650).
python3 -c "
import json, sys
w = json.load(open(sys.argv[1])); w['accum_steps'] = 2; json.dump(w, open(sys.argv[2], 'w'))" "$h4" "$tmp/accum.json"
"$fusim" predict --workload "$tmp/accum.json" --profile "$prof" --comm allreduce:8 --framework ddp \
  --no-store --format json > "$tmp/accum-out.json"
near "$(field "$tmp/accum-out.json" iter_us)" 2661 1e-6
check "ddp, accum_steps 2: DDP's forward every micro-batch, 2661" $?

# --framework ddp with --overlap off or several streams: priced, with one warning line each (no run
# of real DDP waits for backward's end or uses more than its process group's one NCCL stream)
"$fusim" predict --workload "$h4" --profile "$prof" --comm allreduce:8 --framework ddp --overlap off \
  --comm-streams 2 --no-store --format json > "$tmp/w.json" 2> "$tmp/w.err"
[ $? = 0 ] && [ "$(grep -c "what-if real DDP does not run" "$tmp/w.err")" = 2 ] && [ "$(wc -l < "$tmp/w.err")" = 2 ]
check "ddp, overlap off, 2 streams: priced, two warning lines" $?
"$fusim" predict --workload "$h4" --profile "$prof" --comm allreduce:8 --framework ddp --no-store \
  --format json > "$tmp/w.json" 2> "$tmp/w.err"
[ ! -s "$tmp/w.err" ]; check "ddp as it runs: no warning" $?
# validate refuses --framework ddp in one line, with no warning before it (it warned, then refused)
"$fusim" validate --workload "$h4" --framework ddp --overlap off --no-store > /dev/null 2> "$tmp/w.err"
[ $? = 64 ] && [ "$(wc -l < "$tmp/w.err")" = 1 ]; check "validate --framework ddp --overlap off: one line, 64" $?

# the hook pattern in copy mode after an all-reduce: the result is in each bucket's fusion buffer,
# so the compute stream copies it back into the gradients, bucket by bucket as DDP's finalize
# does (host4.json, a bucket a tensor: backward with the copies in ends at 300 + 600 + 4 x 100 =
# 1300, the last all-reduce at 1230.5; then 4 copies back of 1 MiB at 10.48576 GB/s, 100 us each,
# and the optimizer's 50: 1750; none were charged: 1350). An offload leaves the gradients as they are.
"$fusim" predict --workload "$h4" --profile "$prof" --comm allreduce:8 --framework hooks --fusion none \
  --no-store --format json > "$tmp/hk.json"
near "$(field "$tmp/hk.json" iter_us)" 1750 1e-6; check "hooks, copy, all-reduce: copied back, 1750" $?

# exposed_comm_us split (host timeline): host_overhead_us = the plan run again with every operation
# free, less compute; exposed_comm_only_us = iter_us less that run. D = d2h(3 MiB) = 4 + 3145728 /
# 55.2e3 = 60.987826 (test_host.c's case 3 and its derivation for the rest):
#   ddp view offload: iter 667 + D + 20 = 747.987826; free: offload [667,667], tail [667,677],
#     opt 20: 697; host 697 - 680 = 17 (DDP's forward, 11 + 3 x 2); communication D - 10
#     (the tail hides 10) = 50.987826; exposed 67.987826.
#   the same, host-bound (hook_bucket_us 1000): host DDP forward [0,17] fwd [17,117] seg0
#     [117,167] hook0 [167,172] seg1 [172,422] hook1 [422,427] comm hook call [427,1427] tail
#     [1427,1447] finalize [1447,1454] opt [1454,1464]; GPU seg1 ends 667, the offload from
#     1427 for D, tail [1427,1437] beside it, the wait to 1427 + D, opt 20: 1427 + D + 20 =
#     1507.987826; free: the offload [1427,1427], the wait after finalize's enqueue 1454, opt
#     [1454,1474]: 1474; host 1474 - 680 = 794, communication 1507.987826 - 1474 = 33.987826
#     (27 us of D behind the tail's and finalize's enqueue).
#   ideal, a bucket a tensor (no packs, GPU-bound): host 0, all of the exposed time communication.
split() { # FILE HOST COMM: both keys, and their sum the exposed_comm_us
  near "$(field "$1" host_overhead_us)" "$2" 1e-5 && near "$(field "$1" exposed_comm_only_us)" "$3" 1e-5 &&
    near "$(field "$1" exposed_comm_us)" "$(python3 -c "print($2 + $3)")" 1e-5
}
split "$tmp/view.json" 17 50.987826; check "split, ddp view: host 17, communication 50.987826" $?
python3 -c "
import json, sys
w = json.load(open(sys.argv[1])); w['host']['ddp']['hook_bucket_us'] = 1000
json.dump(w, open(sys.argv[2], 'w'))" "$wl" "$tmp/hostbound.json"
"$fusim" predict --workload "$tmp/hostbound.json" --profile "$prof" --comm offload --fusion single \
  --framework ddp --pack view --no-store --format json > "$tmp/hb.json"
near "$(field "$tmp/hb.json" iter_us)" 1507.987826 1e-5 && split "$tmp/hb.json" 794 33.987826
check "split, host-bound: iter 1507.987826, host 794, communication 33.987826" $?
p --framework ideal --fusion none > "$tmp/ideal.json"
near "$(field "$tmp/ideal.json" host_overhead_us)" 0 0 &&
  near "$(field "$tmp/ideal.json" exposed_comm_only_us)" "$(field "$tmp/ideal.json" exposed_comm_us)" 0
check "split, ideal GPU-bound: host 0, all communication" $?
"$fusim" predict --workload "$tmp/hostbound.json" --profile "$prof" --comm offload --fusion single \
  --framework ddp --pack view --no-store > "$tmp/hb.txt"
grep -q "^exposed        828.0 us   overlap" "$tmp/hb.txt" &&
  grep -A1 "^exposed " "$tmp/hb.txt" | grep -q "^               of which host overhead 794.0 us, communication 34.0 us$"
check "table: the split under the exposed line" $?
# without a host timeline: no split printed, no keys
"$fusim" predict --workload "$here/data/tiny.json" --profile "$prof" --comm offload --no-store > "$tmp/t1.txt"
"$fusim" predict --workload "$here/data/tiny.json" --profile "$prof" --comm offload --no-store --format json > "$tmp/t1.json"
! grep -q "of which host overhead" "$tmp/t1.txt" && ! grep -q "host_overhead_us\|exposed_comm_only_us" "$tmp/t1.json"
check "no host timeline: no split line, no split keys" $?

# the table names what its interval carries: with a host block the measured spreads (it said
# "from the fits' 95% CIs" whatever the workload), the fits' CIs alone without one
"$fusim" predict --workload "$wl" --profile "$prof" --comm offload --framework ddp --no-store > "$tmp/t.txt"
grep -q "^iteration .* 95% interval from the fits' CIs and the host block's measured spreads$" "$tmp/t.txt"
check "table: a host timeline's interval names its measured spreads" $?
"$fusim" predict --workload "$here/data/tiny.json" --profile "$prof" --comm offload --no-store > "$tmp/t.txt"
grep -q "^iteration .* 95% interval from the fits' CIs$" "$tmp/t.txt"
check "table: without a host block, the fits' CIs" $?

finish cli_framework
