"""synthetic_workload.py OUT.json NGRADS: the whole-process benchmarks' workload (bench_predict.sh,
callgrind_predict.sh): NGRADS gradients, one every 0.5 us, 4-28 KiB each."""
import json
import sys

out, n = sys.argv[1], int(sys.argv[2])
g = [{"name": "layer%d.weight" % i, "bytes": 4096 * (1 + i % 7), "ready_us": 0.5 * (i + 1)}
     for i in range(n)]
with open(out, "w") as f:
    json.dump({"format": "fusim-workload-1", "name": "synthetic_%d" % n, "fwd_us": 50000.0,
               "bwd_us": 0.5 * n + 10, "opt_us": 0.0, "grads": g}, f)
