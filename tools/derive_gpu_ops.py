#!/usr/bin/env python3
"""derive_gpu_ops.py: memory-bound operation tables for a GPU that did not measure them, from
another GPU's, by the two GPUs' own tables of a base operation, point by point.

Why: torchvision ViT's layout operations (calib_torch's ops_vit: copy_t, bias_add, add_t) were
measured on an H100; the H200 has no such tables, and prices them as contiguous copies and adds,
faster than they run. They are bound by memory traffic, as the elementwise add is, so at each size
the target's time is the source's times the ratio of the two GPUs' add tables at that size:

    target op (n) = source op (n) x target base (n) / source base (n)

(base: the same dtype's "add" unless --base; the tables interpolated as fusim does, log-log
between sizes, proportional above the largest), forward's ratio for backward too (the ops'
backward is a column sum or nothing: memory-bound either way). Host costs are the source's (a
layer's host costs are scaled to its measured rows anyway). Each table carries "derived": the
source profile and the base (fusim workload names it when it prices with one); a measured table
of the target is kept, none made for it (a derived one is made anew), except a conv table whose
timed points stop short of the source's largest m, n or k (a sweep cut by its time budget), which
the derived one replaces. Merge: fusim fit --compute OUT --merge-into TARGET.

--grouped-conv: the source's grouped (depthwise) convolution tables too (calib_torch --parts
dwconv), each point by the same ratio at the elements of the map it reads or writes (fwd (M, C,
k k): M x C; dgrad (M, k k, C) and wgrad (C, k k, M): M x C), the add of the conv's dtype (bf16;
fp32 for tf32): a depthwise convolution does k x k multiply-adds per element, memory-bound on
both GPUs at these sizes, so the same traffic argument holds; marked derived as the ops are.

--conv-classes k4s4,k2s2,g3s1,...: the source's dense (kNsS) and wider-group (gNsS: calib_torch
--parts gconv) convolution tables of those classes, each point times the target's speed over the
source's in dense convolutions: per dtype, layout and memory format, the median ratio of the two
GPUs' times over every point of the dense tables both measured on the same grid (channels-last's
where the format has no such pair). Convolutions of these classes run as implicit GEMMs, neither
bound by memory traffic alone nor at the same rate as a plain GEMM, so the measured classes'
ratio stands in for theirs (an H200 over an H100: 0.89-1.00 by table); marked derived.

--attention-gqa: the source's "attention_gqa" points (SDPA's math path for grouped keys outside
bf16: calib_torch --parts attention_gqa), each times the fp32 base's ratio at the scores' elements
(bh x seq x seq): the path writes every score and passes over them for the mask and softmax,
memory-bound on both GPUs (an H100's at seq 1024, bh 64, head 64: 17 us a problem where its two
TF32 products need under 1 us), the products' share riding along; marked derived. Kept where the
target measured its own.

Usage: python3 tools/derive_gpu_ops.py OUT TARGET_PROFILE SOURCE_PROFILE [--ops a,b] [--base add]
                                       [--grouped-conv] [--conv-classes LIST] [--attention-gqa]
"""
import argparse
import copy
import json
import math
import statistics
import sys

from derive_nchw import conv_groups, conv_key, derived_mark


def table_us(t, n, key="fwd_us"):
    """t's time at n elements, as fusim's fu__op_table_us interpolates it."""
    xs, ys = t["numel"], t[key]
    if n <= xs[0]:
        return ys[0]
    if n >= xs[-1]:
        return ys[-1] * n / xs[-1]
    i = 0
    while i + 2 < len(xs) and n >= xs[i + 1]:
        i += 1
    f = (math.log(n) - math.log(xs[i])) / (math.log(xs[i + 1]) - math.log(xs[i]))
    return math.exp((1 - f) * math.log(ys[i]) + f * math.log(ys[i + 1]))


def op_tables(p):
    """A profile's op tables by (op, dtype)."""
    return {(o["op"], o["dtype"]): o for o in p["compute"].get("ops", [])}


def source_gpu(source):
    return source.get("name") or source.get("gpu") or "another GPU"


def base_pair(tt, st, base, dt):
    """(target's, source's) base table of dtype dt, or (None, why not) where the ratio cannot be
    taken: either missing, or a time not above 0."""
    bt, bs = tt.get((base, dt)), st.get((base, dt))
    if not (bt and bs and bt.get("numel") and bs.get("numel")):
        return None, "no %s table in both profiles" % base
    if min(bt["fwd_us"] + bs["fwd_us"]) <= 0:
        return None, "a %s time not above 0" % base
    return (bt, bs), None


def ratio(pair, n):
    """The target's base time over the source's at n elements."""
    return table_us(pair[0], n) / table_us(pair[1], n)


def derive(target, source, ops, base):
    """(derived tables, notes on what could not be made)."""
    tt, st = op_tables(target), op_tables(source)
    out, notes = [], []
    gpu = source_gpu(source)
    for (op, dt), s in sorted(st.items()):
        if op not in ops:
            continue
        if (op, dt) in tt and not tt[(op, dt)].get("derived"):
            notes.append("%s %s: measured on the target, kept" % (op, dt))
            continue
        pair, why = base_pair(tt, st, base, dt)
        if why:
            notes.append("%s %s: %s" % (op, dt, why))
            continue
        r = [ratio(pair, n) for n in s["numel"]]
        d = copy.deepcopy(s)
        d["fwd_us"] = [round(v * k, 3) for v, k in zip(s["fwd_us"], r)]
        d["bwd_us"] = [round(v * k, 3) for v, k in zip(s["bwd_us"], r)]
        d["derived"] = derived_mark("%s x %s ratio" % (gpu, base))
        out.append(d)
    return out, notes


def timed_span(t):
    """A conv table's largest timed m, n and k ((0, 0, 0) where none is timed)."""
    pts = [(m, n, k) for m in t["m"] for n in t["n"] for k in t["k"]]
    timed = [p for p, v in zip(pts, t["us"]) if v]
    return tuple(max((p[i] for p in timed), default=0) for i in range(3))


def derive_convs(target, source, wanted, pricing):
    """(derived conv tables, notes): each source table that wanted(t) names (None: not wanted) and
    the target has not measured, every timed point times its ratio. pricing(t) gives (the ratio
    of a point (m, n, k), the "derived" mark), or (None, why none can be made)."""
    have = {conv_key(t): t for t in target["compute"].get("conv", [])}
    out, notes = [], []
    for t in source["compute"].get("conv", []):
        name = wanted(t)
        if not name:
            continue
        mine = have.get(conv_key(t))
        if mine and not mine.get("derived"):
            # a sweep cut by its time budget stops short of the larger shapes (session 43's H100
            # depthwise 7x7 in bf16: one timed point), and fusim prices every shape beyond a
            # table's largest by proportion from it: the source's table that reaches them does better
            if all(a >= b for a, b in zip(timed_span(mine), timed_span(t))):
                notes.append(name + ": measured on the target, kept")
                continue
            notes.append("%s: measured on the target up to (m, n, k) %s, short of the source's %s: derived"
                         % (name, timed_span(mine), timed_span(t)))
        point_ratio, mark = pricing(t)
        if point_ratio is None:
            notes.append("%s: %s" % (name, mark))
            continue
        d = copy.deepcopy(t)
        points = [(m, n, k) for m in t["m"] for n in t["n"] for k in t["k"]]
        d["us"] = [round(v * point_ratio(*p), 3) if v else v for v, p in zip(t["us"], points)]
        d["derived"] = derived_mark(mark)
        out.append(d)
    return out, notes


def derive_grouped(target, source, base):
    """(derived depthwise conv tables, notes): each source table the target has not measured, by
    the base's ratio at the elements of the map the point reads or writes."""
    tt, st = op_tables(target), op_tables(source)
    gpu = source_gpu(source)

    def pricing(t):
        dt = "bf16" if t["dtype"] == "bf16" else "fp32"
        pair, why = base_pair(tt, st, base, dt)
        if why:
            return None, "%s (%s)" % (why, dt)
        fwd = t["layout"] == "fwd"
        return (lambda m, n, k: ratio(pair, m * n if fwd else m * k)), "%s x %s ratio" % (gpu, base)
    return derive_convs(target, source,
                        lambda t: "grouped conv %s %s k%d s%d %s" % conv_key(t)[:5]
                        if conv_groups(t) == "depthwise" else None, pricing)


def conv_class(t):
    """A conv table's class name as calib_torch's --conv-classes spells it: kNsS dense, gNsS of
    wider groups, dwNsS depthwise."""
    return {"dense": "k", "grouped": "g", "depthwise": "dw"}[conv_groups(t)] + "%ds%d" % (t["kernel"], t["stride"])


def dense_ratios(target, source):
    """{(dtype, layout, format): median target / source time} over the points of the dense conv
    tables both GPUs measured (not derived) on the same grid."""
    have = {conv_key(t): t for t in target["compute"].get("conv", []) if not t.get("derived")}
    pts = {}
    for s in source["compute"].get("conv", []):
        t = have.get(conv_key(s))
        if s.get("derived") or conv_groups(s) != "dense" or not t or \
                any(t[a] != s[a] for a in ("m", "n", "k")):
            continue
        k = conv_key(s)
        pts.setdefault((k[0], k[1], k[4]), []).extend(b / a for a, b in zip(s["us"], t["us"]) if a and b)
    return {k: statistics.median(v) for k, v in pts.items() if v}


def derive_conv_classes(target, source, classes):
    """(derived conv tables of those classes, notes): each source table of a class in classes that
    the target has not measured, times dense_ratios' ratio of its dtype, layout and format."""
    ratios = dense_ratios(target, source)
    gpu = source_gpu(source)

    def pricing(t):
        key = conv_key(t)
        r = ratios.get((key[0], key[1], key[4])) or ratios.get((key[0], key[1], "channels_last"))
        if not r:
            return None, "no dense conv table both GPUs measured"
        return (lambda m, n, k: r), "%s x dense conv ratio %.3f" % (gpu, r)

    def wanted(t):
        key = conv_key(t)
        return "conv %s %s %s %s" % (conv_class(t), key[0], key[1], key[4]) if conv_class(t) in classes else None
    return derive_convs(target, source, wanted, pricing)


def derive_attention_gqa(target, source, base):
    """(derived attention_gqa points, notes): the source's, each times the fp32 base's ratio at
    bh x seq x seq elements, unless the target measured its own."""
    have = target["compute"].get("attention_gqa", [])
    if have and not any(p.get("derived") for p in have):
        return [], ["attention_gqa: measured on the target, kept"]
    pair, why = base_pair(op_tables(target), op_tables(source), base, "fp32")
    if why:
        return [], ["attention_gqa: %s" % why]
    out = []
    mark = derived_mark("%s x %s ratio" % (source_gpu(source), base))
    for p in source["compute"].get("attention_gqa", []):
        r = ratio(pair, p["bh"] * p["seq"] * p["seq"])
        d = dict(p, fwd_us=round(p["fwd_us"] * r, 2), bwd_us=round(p["bwd_us"] * r, 2), derived=mark)
        out.append(d)
    if not out:
        return [], ["attention_gqa: none in the source"]
    return out, []


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("target")
    ap.add_argument("source")
    ap.add_argument("--ops", default="copy_t,bias_add,add_t")
    ap.add_argument("--base", default="add")
    ap.add_argument("--grouped-conv", action="store_true", help="the grouped conv tables too")
    ap.add_argument("--conv-classes", default="", help="dense (kNsS) and wider-group (gNsS) conv classes too")
    ap.add_argument("--attention-gqa", action="store_true", help="the math path's attention_gqa points too")
    a = ap.parse_args(argv)
    try:
        target, source = json.load(open(a.target)), json.load(open(a.source))
        rows, notes = derive(target, source, set(a.ops.split(",")) - {""}, a.base)
        convs = []
        if a.grouped_conv:
            convs, more = derive_grouped(target, source, a.base)
            notes += more
        if a.conv_classes:
            more_convs, more = derive_conv_classes(target, source, set(a.conv_classes.split(",")))
            convs += more_convs
            notes += more
        attn = []
        if a.attention_gqa:
            attn, more = derive_attention_gqa(target, source, a.base)
            notes += more
    except (OSError, ValueError, KeyError) as e:
        print("derive_gpu_ops: %s" % e, file=sys.stderr)
        return 65
    for n in notes:
        print("derive_gpu_ops: " + n, file=sys.stderr)
    if not rows and not convs and not attn:
        print("derive_gpu_ops: no table made", file=sys.stderr)
        return 65
    comp = {"source": "tools/derive_gpu_ops.py: %s%s%s%s from %s by the %s tables' ratio"
                      % (a.ops, " and the grouped conv tables" if a.grouped_conv else "",
                         " and conv classes " + a.conv_classes if a.conv_classes else "",
                         " and the attention_gqa points" if a.attention_gqa else "", a.source, a.base)}
    if rows:
        comp["ops"] = rows
    if convs:
        comp["conv"] = convs
    if attn:
        comp["attention_gqa"] = attn
    with open(a.out, "w") as f:
        json.dump({"format": "fusim-compute-1", "command": "tools/derive_gpu_ops.py " + " ".join(argv),
                   "compute": comp}, f, indent=1)
        f.write("\n")
    for r in rows:
        print("%s %s fwd %s" % (r["op"], r["dtype"], r["fwd_us"]))
    if attn:
        print("attention_gqa: %d points" % len(attn))
    for t in convs:
        print("conv %s %s %s %s: %d points" % ((conv_class(t),) + conv_key(t)[:2] + conv_key(t)[4:5] +
                                             (sum(1 for v in t["us"] if v),)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
