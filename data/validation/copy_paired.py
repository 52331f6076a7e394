#!/usr/bin/env python3
"""copy_paired.py: DDP's per-parameter copy and the hook pattern's per-tensor cost, on the model
(the capture's rounds) against the loop's own rounds, for every committed run 11-26 (no GPU).

Part 1, per model-run with both `ddp default` (copy) and `ddp default view` in the loop: the
loop's copy-over-view backward() CPU, paired round by round, per parameter [p5, p95 of a
bootstrap], against the on-model copy as the capture stored it (the difference of the two
modes' medians over the framework-free step) and paired (torch_modelcost.estimate now), each
carried by the loop's framework-free backward() CPU over the capture's; the value the store
then prices (bootstrap low end > 0, else the tower's).
Part 2, per model-run with the on-model hk_n variant: the loop's `hooks none` backward() CPU over
compute-only per tensor (paired) against the model's hk_n over none per tensor, carried.

    python3 data/validation/copy_paired.py   (copy_paired.txt)
"""
import glob
import json
import os
import random
import re
import statistics as st
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
from quantile import quantile  # noqa: E402
import torch_runs  # noqa: E402


def boot(f, n, b=200, seed=1):
    rng = random.Random(seed)
    v = [f([rng.randrange(n) for _ in range(n)]) for _ in range(b)]
    return quantile(v, .05), quantile(v, .95)


def models():
    for d in sorted(glob.glob(os.path.join(HERE, "torch_h200_run*")),
                    key=lambda p: int(re.search(r"run(\d+)", p).group(1))):
        n, path = int(re.search(r"run(\d+)", d).group(1)), torch_runs.find(d)
        if not 11 <= n <= 26 or not os.path.isfile(path):
            continue
        for m in torch_runs.load(path)["models"]:
            wl = os.path.join(os.path.dirname(path), "wl_%s.json" % m["workload"])
            if not os.path.exists(wl):
                continue
            fm = (json.load(open(wl)).get("meta") or {}).get("framework_on_model") or {}
            if fm.get("raw"):
                yield n, m, {r["plan_label"]: r for r in m["rows"]}, fm


def paired_loop(a, b, per):
    k = min(len(a), len(b))
    d = [a[i][1] - b[i][1] for i in range(k)]
    return st.median(d) / per, boot(lambda rs: st.median(d[r] for r in rs) / per, k)


def main():
    err_old, err_new = [], []
    print("part 1: DDP copy per parameter, us (carried to the loop); loop = copy-over-view rounds")
    for n, m, rows, fm in models():
        if "ddp default" not in rows or "ddp default view" not in rows:
            continue
        raw, P = fm["raw"], fm["P"]
        k = len(raw["none"])
        carry = m["compute_only_cpu_fwd_bwd_rest_us"][1] / fm["bwd_cpu_us"]
        tower = fm["model_independent"]["ddp"]["copy_us"]

        def pair(rs):
            return st.median(raw["ddpc_h"][r] - raw["ddpv_1"][r] for r in rs) / P
        new, nci = pair(range(k)), boot(pair, k)
        old, oci = fm["copy_us"], fm["ci"]["copy_us"]
        used_old = old if oci[0] > 0 and old > 0 else tower
        used_new = new if nci[0] > 0 and new > 0 else tower
        lb, lci = paired_loop(rows["ddp default"]["cpu_times_us"],
                              rows["ddp default view"]["cpu_times_us"], P)
        err_old.append(abs(used_old * carry - lb))
        err_new.append(abs(used_new * carry - lb))
        print("run%2d %-30s P%4d loop %6.1f [%6.1f,%6.1f] | stored %6.1f [%6.1f,%6.1f] paired %6.1f "
              "[%6.1f,%6.1f] tower %5.1f x%.2f | priced %5.1f -> %5.1f"
              % (n, m["workload"][:30], P, lb, lci[0], lci[1], old, oci[0], oci[1], new, nci[0],
                 nci[1], tower, carry, used_old * carry, used_new * carry))
    closer = sum(b < a - 0.05 for a, b in zip(err_old, err_new))
    farther = sum(b > a + 0.05 for a, b in zip(err_old, err_new))
    print("priced copy against the loop's, |difference| us a parameter: median %.2f -> %.2f, mean "
          "%.2f -> %.2f; closer %d, farther %d, of %d"
          % (st.median(err_old), st.median(err_new), st.mean(err_old), st.mean(err_new), closer,
             farther, len(err_old)))
    print("\npart 2: hooks none per tensor, us; loop = hooks none over compute-only rounds")
    ratios = []
    for n, m, rows, fm in models():
        raw = fm["raw"]
        if "hooks none" not in rows or not raw.get("hk_n"):
            continue
        P = fm["P"]
        carry = m["compute_only_cpu_fwd_bwd_rest_us"][1] / fm["bwd_cpu_us"]
        mod = st.median(h - z for h, z in zip(raw["hk_n"], raw["none"])) / P
        lb, lci = paired_loop(rows["hooks none"]["cpu_times_us"], m["compute_only_cpu_times_us"], P)
        ratios.append(lb / (mod * carry))
        print("run%2d %-30s P%4d framework-free bwd %4.0f us a tensor | loop %6.1f [%6.1f,%6.1f] "
              "model %6.1f x%.2f = %6.1f | loop / model %.2f"
              % (n, m["workload"][:30], P, m["compute_only_cpu_fwd_bwd_rest_us"][1] / P, lb, lci[0],
                 lci[1], mod, carry, mod * carry, ratios[-1]))
    print("loop / model: median %.2f, range %.2f-%.2f, of %d"
          % (st.median(ratios), min(ratios), max(ratios), len(ratios)))


if __name__ == "__main__":
    main()
