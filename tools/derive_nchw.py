#!/usr/bin/env python3
"""derive_nchw.py: NCHW convolution, batch norm and max pooling tables for a profile that has only
channels-last ones, from another GPU's measured NCHW / channels-last ratio, point by point.

Why: cuDNN runs a convolution in PyTorch's default NCHW layout by transposing around a
channels-last kernel or by slower NCHW kernels, and batch norm backward at few channels on a
slower path; what that costs over channels-last, at the same shape, is a property of cuDNN's and
PyTorch's kernels more than of the GPU. Checked: the H200's channels-last tables times the H100's
NCHW / channels-last ratios price 14 NCHW ResNet captures made on H200s (13 ResNet-50 b64, one
Wide ResNet-50-2 b32, TF32), which the ratios never saw, at fwd+bwd -3.5..-20.2%, median -5.7%,
12 within 10%, where channels-last pricing missed the ResNet-50s by a median -27%
(data/compute/README.md, "NCHW on the H200, derived").

Each derived conv table is the target's channels-last table of the same dtype, layout, kernel and
stride times source NCHW / source channels-last at each grid point (null where any of the three
is; the grids must be the same), marked "format": "nchw" and "derived": the source's GPU, which
fusim workload names in a warning when it prices with one. Each NCHW op table (batchnorm2d_nchw*,
maxpool_nchw) is the target's channels-last op times the same ratio at each size, with the
target's host costs (as tools/device_rows_median.py gives NCHW ops). A table that cannot be made
(no such table, other grids or sizes) is named on stderr and left out. A measured NCHW table,
where the target has one, is kept: none is made for it.

Merge: fusim fit --compute OUT --merge-into TARGET (each table replaces the one of its key).

Usage: python3 tools/derive_nchw.py OUT TARGET_PROFILE SOURCE_PROFILE
"""
import copy
import json
import sys

FORMAT = "format"


def derived_mark(text):
    """A table's "derived" mark: text cut to the 47 bytes fusim keeps (fu_op_table.derived and
    the conv tables' are 48 with the terminator; a longer mark refuses the profile)."""
    return text.encode()[:47].decode("utf-8", "ignore")


def conv_groups(t):
    """A conv table's groups as fusim keys them (fu_compute.c fu__grouped_kind): "dense",
    "depthwise" (a "grouped" table whose per-group K axis, k in fwd and n in dgrad and wgrad,
    holds kernel x kernel alone) or "grouped" (wider groups)."""
    if t.get("groups", "dense") != "grouped":
        return "dense"
    per_group_k = t["k"] if t["layout"] == "fwd" else t["n"]
    return "depthwise" if all(v == t["kernel"] ** 2 for v in per_group_k) else "grouped"


def conv_key(t, fmt=None):
    return (t["dtype"], t["layout"], t["kernel"], t["stride"], fmt or t.get(FORMAT, "channels_last"),
            conv_groups(t))


def ratio(base, num, den):
    """base x num / den where all three are timed (> 0), else None."""
    return base * num / den if base and num and den and base > 0 and num > 0 and den > 0 else None


def derive_conv(target, source, gpu, log):
    """The derived NCHW conv tables (list) from the two profiles' compute blocks."""
    src = {conv_key(t): t for t in source.get("conv", [])}
    have = {conv_key(t): t for t in target.get("conv", [])}
    out = []
    for t in target.get("conv", []):
        mine = have.get(conv_key(t, "nchw"))
        if t.get(FORMAT, "channels_last") != "channels_last" or (mine and not mine.get("derived")):
            continue  # measured on the target: kept (a derived one is made anew)
        cl, nc = src.get(conv_key(t)), src.get(conv_key(t, "nchw"))
        if not cl or not nc:
            log("conv %s %s k%d s%d: the source has no channels-last and NCHW pair" % conv_key(t)[:4])
            continue
        if any(cl[a] != t[a] or nc[a] != t[a] for a in ("m", "n", "k")):
            log("conv %s %s k%d s%d: the source's grid is not the target's" % conv_key(t)[:4])
            continue
        d = copy.deepcopy(t)
        d[FORMAT], d["derived"] = "nchw", derived_mark(gpu)
        d["us"] = [ratio(b, n, c) for b, n, c in zip(t["us"], nc["us"], cl["us"])]
        out.append(d)
    return out


def derive_ops(target, source, log, gpu):
    """The derived NCHW op tables (list, each marked "derived": gpu): each source op named *_nchw*
    whose channels-last op (the name without "_nchw") both profiles have at the same sizes."""
    src = {(o["op"], o["dtype"]): o for o in source.get("ops", [])}
    tgt = {(o["op"], o["dtype"]): o for o in target.get("ops", [])}
    out = []
    for (name, dt), nc in sorted(src.items()):
        if "_nchw" not in name or ((name, dt) in tgt and not tgt[(name, dt)].get("derived")):
            continue  # measured on the target: kept (a derived one is made anew)
        base = name.replace("_nchw", "")
        t, cl = tgt.get((base, dt)), src.get((base, dt))
        if not t or not cl or not t.get("numel"):
            log("op %s %s: no channels-last %s in both profiles" % (name, dt, base))
            continue
        if t["numel"] != cl["numel"] or nc["numel"] != cl["numel"]:
            log("op %s %s: the sizes differ" % (name, dt))
            continue
        d = copy.deepcopy(t)
        d["op"] = name
        d["derived"] = derived_mark(gpu)
        for f in ("fwd_us", "bwd_us"):
            d[f] = [ratio(b, n, c) for b, n, c in zip(t[f], nc[f], cl[f])]
        if any(x is None for f in ("fwd_us", "bwd_us") for x in d[f]):
            log("op %s %s: a size untimed" % (name, dt))
            continue
        out.append(d)
    return out


def main(argv):
    if len(argv) != 4:
        sys.exit("usage: derive_nchw.py OUT TARGET_PROFILE SOURCE_PROFILE")
    try:
        target, source = (json.load(open(p)) for p in argv[2:4])
    except (OSError, ValueError) as e:
        sys.exit("derive_nchw.py: %s" % e)
    gpu = source.get("gpu") or source.get("name") or "another GPU"

    def log(msg):
        print("derive_nchw.py: left out: " + msg, file=sys.stderr)
    conv = derive_conv(target.get("compute", {}), source.get("compute", {}), gpu, log)
    ops = derive_ops(target.get("compute", {}), source.get("compute", {}), log, gpu)
    if not conv:
        sys.exit("derive_nchw.py: no NCHW table could be derived")
    src = ("NCHW tables derived: %s's channels-last x %s's NCHW / channels-last ratio (tools/derive_nchw.py)"
           % (target.get("name", argv[2]), gpu))[:255]
    out = {"format": "fusim-compute-1", "gpu": target.get("gpu", ""),
           "command": "tools/derive_nchw.py %s %s %s" % tuple(argv[1:4]),
           "compute": {"source": src, "conv": conv, "ops": ops}}
    with open(argv[1], "w") as f:
        json.dump(out, f, indent=1)
    print("%s: %d conv tables, %d op tables" % (argv[1], len(conv), len(ops)))


if __name__ == "__main__":
    main(sys.argv)
