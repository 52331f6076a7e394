#!/usr/bin/env python3
"""predecessor.py RUNS_JSON: does a plan pay for the plan that ran just before it in its round?
Run 13 drew a random order every round (validate_torch --order shuffle, runs.json round_orders).
Per model and plan: the median of its time over the same round's compute-only iteration when
the plan before it was a per-tensor one (ddp none, hooks none: the heaviest host work and the
most Python objects) against when it was any other (a plan first in its round is left out),
minus 1, with the number of rounds after a per-tensor plan; then the median over the plans."""
import os, statistics as S, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "tools"))
import torch_runs  # RUNS_JSON: run 13's is stored gzipped (runs.json.gz)
run = torch_runs.load(sys.argv[1])
HEAVY = {"ddp none", "hooks none"}
allr = []
for m in run['models']:
    ro = m['round_orders']; labels = ro['runners']
    # run 18 listed the plans alone, though the orders also index the loop's probes after them
    if ro['timed'] and len(labels) < len(ro['timed'][0]):
        labels = labels + list(m.get('loop_probes') or {})
    times = {'compute-only': m['compute_only_times_us']}
    for r in m['rows']:
        times[r['plan_label']] = r['times_us']
    line = []
    for lab in labels[1:]:   # not compute-only itself (its ratio is 1)
        if lab not in times:   # a probe, not a row
            continue
        t = times[lab]
        heavy, other, first = [], [], []
        for i, order in enumerate(ro['timed']):
            pos = order.index(labels.index(lab))
            co = times['compute-only'][i]
            x = t[i] / co
            if pos == 0:
                first.append(x)
            elif labels[order[pos - 1]] in HEAVY:
                heavy.append(x)
            else:
                other.append(x)
        if heavy and other:
            d = S.median(heavy) / S.median(other) - 1
            allr.append(d)
            line.append('%s %+.1f%%(%d)' % (lab[:11], 100 * d, len(heavy)))
    print(m['workload'][:10], ' | '.join(line))
print('pooled median effect of a per-tensor predecessor: %+.2f%% over %d plans, %d positive' % (100 * S.median(allr), len(allr), sum(d > 0 for d in allr)))
