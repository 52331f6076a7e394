#!/usr/bin/env python3
"""emb_sort_row.py: the profile's embedding_sort row from tools/emb_bwd_host.py's output: the extra
host time of an embedding's backward past PyTorch's 3072-index switch to its sort-based path,
as a fusim-compute-1 file that `fusim fit --compute F --merge-into PROFILE` merges. The row is
written for both residual dtypes: under autocast the embedding's weight, and its backward, stay
fp32 either way.

The tool measures it two ways, each round's difference (the GPU held): isolated (an
nn.Embedding's backward() at 3073 minus 3072 indices) and in-model (the tiny BERT's backward at
25 x 128 minus 24 x 128 tokens, / 2 for its two token-count embeddings, 1- and 3-layer rounds
pooled). The rounds of every file given are pooled, and each estimate's median gets a 90%
bootstrap interval. The rule (fixed before the 2026-12-04m rounds were compared with anything,
data/compute/README.md): where the intervals overlap, the row is the two medians' inverse-
variance weighted mean (variance from each interval's half-width); where they do not, the
in-model estimate, which is measured where the builder applies the row (inside a model's
backward). --isolated: the isolated median alone (how the 2026-12-04l row was made).
Usage: python3 tools/emb_sort_row.py [--isolated] EMBBWD.json [EMBBWD.json ...] OUT.json"""
import json
import random
import statistics
import sys


def rounds_of(d):
    """(isolated, in-model) per-round differences of one emb_bwd_host.py output, us."""
    lo, hi = d["embedding_bwd_us"]["3072"], d["embedding_bwd_us"]["3073"]
    if not lo or len(lo) != len(hi):
        raise ValueError("the 3072 and 3073 rounds differ in number")
    iso = [b - a for a, b in zip(lo, hi)]
    inm = []
    for L in (1, 3):
        a, b = d["bert_tiny"]["24x128_l%d" % L], d["bert_tiny"]["25x128_l%d" % L]
        inm += [(y[1] - x[1]) / 2 for x, y in zip(a, b)]
    return iso, inm


def interval(xs, n=4000, seed=1):
    """90% bootstrap interval of the median of xs."""
    rng = random.Random(seed)
    ms = sorted(statistics.median(rng.choices(xs, k=len(xs))) for _ in range(n))
    return ms[int(0.05 * n)], ms[int(0.95 * n) - 1]


def choose(iso, inm):
    """The row by the rule above, and how it was chosen."""
    mi, mm = statistics.median(iso), statistics.median(inm)
    (il, ih), (ml, mh) = interval(iso), interval(inm)
    how = "isolated %.1f [%.1f, %.1f], in-model %.1f [%.1f, %.1f] us" % (mi, il, ih, mm, ml, mh)
    if il > mh or ml > ih:
        return mm, how + ": the intervals do not overlap, the in-model estimate"
    wi, wm = 1 / max((ih - il) / 2, 1e-9) ** 2, 1 / max((mh - ml) / 2, 1e-9) ** 2
    return (wi * mi + wm * mm) / (wi + wm), how + ": overlapping, their inverse-variance weighted mean"


def main(argv):
    isolated = "--isolated" in argv
    argv = [a for a in argv if a != "--isolated"]
    if len(argv) < 2:
        print("usage: emb_sort_row.py [--isolated] EMBBWD.json [EMBBWD.json ...] OUT.json", file=sys.stderr)
        return 64
    iso, inm, probes = [], [], []
    for f in argv[:-1]:
        try:
            d = json.load(open(f))
            a, b = rounds_of(d)
        except (OSError, ValueError, KeyError, TypeError) as e:
            print("emb_sort_row.py: %s: not tools/emb_bwd_host.py output (%s)" % (f, e), file=sys.stderr)
            return 65
        iso += a
        inm += b
        probes += d.get("probes_us") or []
    if isolated:
        row, how = statistics.median(iso), "the isolated median"
    else:
        row, how = choose(iso, inm)
    rows = [{"op": "embedding_sort", "dtype": dt, "numel": [], "fwd_us": [], "bwd_us": [],
             "host_fwd_us": 0.0, "host_bwd_us": round(row, 2)} for dt in ("bf16", "fp32")]
    out = {"format": "fusim-compute-1", "gpu": d.get("gpu", ""), "torch": d.get("torch", ""),
           "command": "tools/emb_sort_row.py %s%s" % ("--isolated " if isolated else "", " ".join(argv)),
           "compute": {"source": "tools/emb_bwd_host.py: an embedding's backward host time past 3072 indices "
                                 "(%d files, %d rounds, probe fastest %.2f us): %s"
                                 % (len(argv) - 1, len(iso), min(probes or [0]), how), "ops": rows}}
    try:
        with open(argv[-1], "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
    except OSError as e:
        print("emb_sort_row.py: %s: cannot write (%s)" % (argv[-1], e), file=sys.stderr)
        return 74
    print("embedding_sort: %.1f us (%s)" % (row, how))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
