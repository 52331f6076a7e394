#!/usr/bin/env python3
"""reduce_split_row.py: the profile's reduce_split row from tools/bwd_calls.py's output: the extra
host time of a column sum (a bias's gradient, an RMSNorm weight's) where PyTorch splits the
reduction across thread blocks, which adds a semaphore memset (tools/bwd_calls.py's call counts:
x.sum(0) over (T, H) makes 1 launch, or 1 launch + 1 cudaMemsetAsync from 1024 rows at widths
384-3072 and from 2048 at width 64). Per round: the median held host time of the split sizes
minus that of the single-pass sizes; the median over rounds.

The rounds ran on one lease's host; the row is carried to the profile's host speed by the
reference step measured in the same process (bwd_calls.py's tiny BERT at 3 layers, 1 x 16, bf16,
against the profile's hf_bert_rest_tiny + 3 x hf_bert_layer_tiny backward), as fusim's
--host-ref carries rows the other way. Written for both dtypes (the split does not depend on it).
Usage: python3 tools/reduce_split_row.py BWDCALLS.json PROFILE.json OUT.json"""
import json
import statistics
import sys

REF_LAYERS = 3  # tools/host_ref.py REF_LAYERS


def main(argv):
    if len(argv) != 3:
        print("usage: reduce_split_row.py BWDCALLS.json PROFILE.json OUT.json", file=sys.stderr)
        return 64
    try:
        d = json.load(open(argv[0]))
        sums = d["sum"]
        split = [k for k, v in sums.items() if v["api"].get("cudaMemsetAsync")]
        single = [k for k, v in sums.items() if not v["api"].get("cudaMemsetAsync")]
        rounds = len(sums[split[0]]["held_us"])
        ref = d["variants"]["bert_tiny_1x16"]["l3"]["held_median"][1]
    except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
        print("reduce_split_row.py: %s: not tools/bwd_calls.py output (%s)" % (argv[0], e), file=sys.stderr)
        return 65
    if not single or not rounds:
        print("reduce_split_row.py: %s: needs sizes either side of the split and rounds" % argv[0], file=sys.stderr)
        return 65
    try:
        ops = {(o["op"], o["dtype"]): o for o in json.load(open(argv[1]))["compute"]["ops"]}
        prof_ref = ops["hf_bert_rest_tiny", "bf16"]["host_bwd_us"] + REF_LAYERS * ops["hf_bert_layer_tiny", "bf16"]["host_bwd_us"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("reduce_split_row.py: %s: no hf_bert tiny bf16 rows (%s)" % (argv[1], e), file=sys.stderr)
        return 65
    diffs = [statistics.median(sums[k]["held_us"][r] for k in split) -
             statistics.median(sums[k]["held_us"][r] for k in single) for r in range(rounds)]
    extra = statistics.median(diffs)
    ratio = ref / prof_ref  # this lease's host time over the profile's, for the same step
    row = round(extra / ratio, 2)
    rows = [{"op": "reduce_split", "dtype": dt, "numel": [], "fwd_us": [], "bwd_us": [],
             "host_fwd_us": 0.0, "host_bwd_us": row} for dt in ("bf16", "fp32")]
    out = {"format": "fusim-compute-1", "gpu": d.get("gpu", ""), "torch": d.get("torch", ""),
           "command": "tools/reduce_split_row.py %s %s %s" % tuple(argv),
           "compute": {"source": "tools/bwd_calls.py: a split column sum's extra host time, %.2f us over %d "
                                 "rounds (split %d sizes, single-pass %d), carried to the profile's host by the "
                                 "tiny BERT reference (%.0f us here, %.0f in the profile)"
                                 % (extra, rounds, len(split), len(single), ref, prof_ref), "ops": rows}}
    try:
        with open(argv[2], "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
    except OSError as e:
        print("reduce_split_row.py: %s: cannot write (%s)" % (argv[2], e), file=sys.stderr)
        return 74
    print("reduce_split: %.2f us on the lease, x %.3f -> %.2f us at the profile's host speed" % (extra, 1 / ratio, row))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
