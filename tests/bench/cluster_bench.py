#!/usr/bin/env python3
"""cluster_bench.py: issue 12's targets for prediction at rank and node counts never measured.

Fits a profile on the smaller rank counts of a public sweep and prices the largest with
`fusim cost`, then compares with the measured log (out-of-place column, as fit uses):

  DGX H100 pair: fit 2 ranks on 1 node, 1+1, 2+2, 4+4; predict 8+8 (all-reduce).
  B200: fit 8 ranks on 1 node (all-reduce, all-gather, reduce-scatter); predict 2x8. Its logs hold
        no multi-node run below 16 ranks, so the network's per-NIC bandwidth and step latency come
        from --base: a profile fitted on the DGX H100 pair's 1+1 run (one 400 Gb/s NDR rail, the
        rail the B200 nodes have 8 of), as a user with one such measurement would do.

Targets (issue 12): sizes >= 64 MiB median |error| <= 10%, max <= 30%; sizes >= 64 KiB (B200:
>= 1 MiB) median <= 20%, max <= 50%. Prints every size and one line per case and band with
PASS/MISS (per size also: the model line nearest the measurement, and "nccl", what NCCL's own
tuning model would pick with the fitted link rates, nccl_choice.py); exits 0 (a benchmark reports its figures; the lead reads them). EXTRA cases (not
targets, held out: the model was never tuned on them) apply the same rules to other sweeps: one
step down the DGX sweep (fit 2 ranks on 1 node, 1+1, 2+2; predict 4+4), and from
tests/data/public-nccl-tests/more/ a Lambda 2 x 8 H100 pair (fit as the DGX pair; predict 8+8,
and 4+4 from 1-node 2, 1+1, 2+2) and B200 nodes under Rocky 8 (fit 8 ranks on 1 node with the
same DGX 1+1 rail as --base; predict 2x8, three collectives).
Under each band, a "measurement floor" line (diagnostic) says what the log itself allows: how much
its two columns (the same call timed twice in one run) differ, and the least max |error| any price
that does not fall with size can reach (a row slower than a larger size), with the GPUs one process
drove (nccl-tests -g: one process per node driving g GPUs puts their network proxy threads on the
cores that process is bound to).
Under each band, an "interval" line (diagnostic): how many of its rows fusim cost's 95% interval
holds, its median bounds around the price and its median width.
Under each band, a "per-call offset" line (diagnostic): the range of one cost X that, added to the
model's every line at every size, would meet both targets ("no X does" where the misses are not
one constant apart: a rate, or rows off in both directions), and under each multi-node band a
"pipeline fill" line (diagnostic): whether a pipeline's fill, at most the call's bytes once more at
the fitted ring rate (one chunk on a ring), could lift the row that is most short of the max target.
Under each fit, "fit set" lines (diagnostic) give the model's own price against the multi-node logs
it was fitted on (their measured curves dropped): median signed error and max |error| at 1-32 MiB
and >= 64 MiB, and (as under each multi-node case) the log's time at 1-64 MiB above what its bytes
take at the fitted ring rate, beside the GPUs one process drove.

usage: cluster_bench.py FUSIM [DATA_DIR]   (DATA_DIR: tests/data/public-nccl-tests/multi-node)
"""
import atexit
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import nccl_choice

FUSIM = sys.argv[1] if len(sys.argv) > 1 else "fusim"
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "..", "data", "public-nccl-tests", "multi-node")
MORE = os.path.join(HERE, "..", "data", "public-nccl-tests", "more")   # the EXTRA cases' sweeps
MiB = 1 << 20


def run(*args):
    try:
        r = subprocess.run([FUSIM, *args], capture_output=True, text=True)
    except OSError as e:
        sys.exit(f"fusim {' '.join(args)}: {FUSIM}: {e.strerror}")
    if r.returncode != 0:
        sys.exit(f"fusim {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def measured(path, in_place=False):
    """(bytes, out-of-place time us) rows of an nccl-tests log; in_place: (bytes, out-of-place,
    in-place time us), rows without an in-place time left out."""
    rows = []
    for line in open(path):
        t = line.split()
        if len(t) >= 6 and t[0].isdigit() and t[1].isdigit():
            try:
                rows.append((int(t[0]), float(t[5]), float(t[9])) if in_place else (int(t[0]), float(t[5])))
            except (ValueError, IndexError):
                pass
    return rows


def gpus_per_process(path):
    """nGpus x nThread of the log's "# nThread" header line: the GPUs one process drives (None
    when the header is missing)."""
    for line in open(path):
        t = line.split()
        if len(t) > 4 and t[:2] == ["#", "nThread"] and t[3] == "nGpus":
            return int(t[2]) * int(t[4])
    return None


def monotone_floor(times):
    """The least max |error| any prediction that does not fall with size can have against times
    (ascending sizes): bisection on e, each prediction the smallest allowed (time (1 - e)) not
    below the one before, feasible while it stays within time (1 + e)."""
    lo, hi = 0.0, 1.0
    for _ in range(50):
        e, p, ok = (lo + hi) / 2, 0.0, True
        for t in times:
            p = max(p, t * (1 - e))
            ok = ok and p <= t * (1 + e)
        lo, hi = (lo, e) if ok else (e, hi)
    return hi


def measurement_floor(path, lo):
    """Diagnostic, not a result: what the log itself allows at sizes >= lo. The two nccl-tests
    columns time the same call in the same run, so their difference is how well the log repeats
    itself (|in-place - out-of-place| / out-of-place); a row slower than a larger size bounds what
    any cost that grows with size can reach (monotone_floor)."""
    rows = [r for r in measured(path, in_place=True) if r[0] >= lo]
    if not rows:
        return ""
    rep = [abs(i - o) / o for _, o, i in rows]
    return (f"  measurement floor, same sizes (GPUs a process {gpus_per_process(path) or '?'}): the two columns "
            f"differ by median {100 * statistics.median(rep):.1f}%, max {100 * max(rep):.1f}%; "
            f"no size-monotone price gets max below {100 * monotone_floor([o for _, o, _ in rows]):.1f}%")


def wls_line(pts):
    """(intercept us, slope us per byte) of t = a + b n through pts, weights 1/t^2."""
    w = [1 / t ** 2 for _, t in pts]
    sw, sx = sum(w), sum(wi * b for wi, (b, _) in zip(w, pts))
    sy = sum(wi * t for wi, (_, t) in zip(w, pts))
    sxx = sum(wi * b * b for wi, (b, _) in zip(w, pts))
    sxy = sum(wi * b * t for wi, (b, t) in zip(w, pts))
    slope = (sw * sxy - sx * sy) / (sw * sxx - sx * sx)
    return (sy - slope * sx) / sw, slope


def imp(db, name, *extra, data=DATA):
    run("import", "--db", db, *extra, os.path.join(data, name))


def nccl_version(path):
    """The version of NCCL's own "NCCL version X.Y.Z" line in a log (what the job ran, printed at
    its start, not a measured result), None where the log has none."""
    for line in open(path):
        t = line.split()
        if len(t) >= 3 and t[:2] == ["NCCL", "version"]:
            return t[2].split("+")[0]
    return None


def layout_args(path, nccl=True):
    """--gpus-per-process and --nccl-version of the run a log measured (its header: how the job
    was launched, not a measured result), none where the log does not say; nccl=False leaves the
    version out (fusim then prices the NCCL the profile's logs ran, where they name one)."""
    g = gpus_per_process(path) if path else None
    v = nccl_version(path) if path and nccl else None
    return (["--gpus-per-process", str(g)] if g else []) + (["--nccl-version", v] if v else [])


def compare(label, prof, comm, rows, bands, path=None):
    sizes = ",".join(f"{b}B" for b, _ in rows)
    lay = layout_args(path)
    pred = json.loads(run("cost", "--profile", prof, "--comm", comm, "--bytes", sizes, "--format", "json", *lay))
    print(f"\n{label}: --comm {comm} {' '.join(lay)}".rstrip())
    # every line the model weighed at some size (NCCL's choice from 2.27 keeps a size's own)
    names = list(dict.fromkeys(ln["algo"] for p in pred for ln in p.get("lines", [])))
    op, shape = comm.split(":")[:2]
    nodes, gpus = (int(x) for x in shape.split("x")) if "x" in shape else (1, int(shape))
    pj = json.load(open(prof))
    cluster = pj["cluster"]
    # NCCL's own pick in the form of the NCCL fusim priced (the log's, else the profile's logs')
    version, gpu = pred[0].get("nccl_version"), pj.get("gpu", "")
    print(f"  {'bytes':>12} {'measured_us':>12} {'predicted_us':>12} {'error':>8} {'algo':>14} "
          f"{'nearest':>14} {'nccl':>14} " + " ".join(f"{n:>14}" for n in names))
    errs, near_errs = [], []
    for (b, t), p in zip(rows, pred):
        e = (p["time_us"] - t) / t
        errs.append((b, e))
        lines = p.get("lines", [])
        # the model's line closest to the measurement (in ratio): the algorithm NCCL's run is
        # most like, as far as the model's lines tell
        nl = min(lines, key=lambda ln: abs(math.log(ln["time_us"] / t))) if lines else None
        near = nl["algo"] if nl else "-"
        near_errs.append((b, (nl["time_us"] - t) / t if nl else e))
        nccl = nccl_choice.choice(cluster, op, nodes * gpus, nodes, b, version, gpu)
        print(f"  {b:12d} {t:12.4g} {p['time_us']:12.4g} {100 * e:+7.1f}% {p['algo']:>14} {near:>14} {nccl:>14} "
              + " ".join(f"{by[n]:14.4g}" if n in by else f"{'-':>14}"
                         for by in [{ln["algo"]: ln["time_us"] for ln in lines}] for n in names))
    # the large sizes as a line (weighted least squares, weights 1/t^2, over the sizes within 64x
    # of the largest, as fit's Simple intercept): what the model's latency and bandwidth face
    big = [(b, t, p["time_us"]) for (b, t), p in zip(rows, pred) if b >= rows[-1][0] / 64]
    if len(big) >= 3:
        a, slope = wls_line([(b, t) for b, t, _ in big])
        pa, pslope = wls_line([(b, q) for b, _, q in big])
        if slope > 0 and pslope > 0:
            print(f"  large sizes (>= {big[0][0] // MiB} MiB) as a line: measured {a:.0f} us + n / "
                  f"{1e-3 / slope:.1f} GB/s, predicted {pa:.0f} us + n / {1e-3 / pslope:.1f} GB/s")
    if path and nodes > 1:
        print(mid_excess(cluster, comm, path))
    out = []
    for lo, med_t, max_t in bands:
        sel = [abs(e) for b, e in errs if b >= lo]
        if not sel:
            continue
        med, mx = statistics.median(sel), max(sel)
        ok = med <= med_t and mx <= max_t
        out.append(ok)
        print(f"RESULT {label} sizes >= {lo // 1024} KiB ({len(sel)}): median |error| {100 * med:.1f}% "
              f"(target {100 * med_t:.0f}%), max {100 * mx:.1f}% (target {100 * max_t:.0f}%)  {'PASS' if ok else 'MISS'}")
        # diagnostic, not a result: the error left if the model picked, at each size, the line
        # nearest the measurement (what the lines' pricing alone allows; the rest is the choice
        # of algorithm and protocol, which NCCL makes by its own tuning model)
        nsel = [abs(e) for b, e in near_errs if b >= lo]
        print(f"  nearest-line bound, same sizes: median {100 * statistics.median(nsel):.1f}%, "
              f"max {100 * max(nsel):.1f}%")
        # diagnostic: how often fusim cost's 95% interval (a cost-model price's is the model's own
        # error on the fit's logs, model/fu_collerr.h, at least sim/fu_cost.h FU_COST_MODEL_BAND)
        # holds the measured time
        held = sum(p["lo_us"] <= t <= p["hi_us"] for (b, t), p in zip(rows, pred) if b >= lo)
        # and how wide it is: an interval that holds every row by being 10x wide says little
        ivs = [(p["lo_us"] / p["time_us"] - 1, p["hi_us"] / p["time_us"] - 1) for (b, _), p in zip(rows, pred) if b >= lo]
        print(f"  interval (fusim cost's 95%), same sizes: holds {held} of {len(sel)}; median bounds "
              f"{100 * statistics.median(v[0] for v in ivs):+.0f}% / {100 * statistics.median(v[1] for v in ivs):+.0f}% "
              f"of the price, median width {100 * statistics.median(h - l for l, h in ivs):.0f}%")
        band = [(b, t, p["time_us"], p["algo"]) for (b, t), p in zip(rows, pred) if b >= lo]
        print(offset_range([r[:3] for r in band], med_t, max_t))
        if nodes > 1:
            steps = (2 if op == "allreduce" else 1) * (nodes * gpus - 1)
            print(fill_bound(band, ring_us_per_byte(cluster, comm)[0], steps, max_t))
        if path:
            print(measurement_floor(path, lo))
    if path:
        print(profile_nccl_bands(prof, comm, rows, bands, path))
    return out


def offset_range(rows, med_t, max_t):
    """Diagnostic, not a result: the per-call costs X (us) that, added to every line the model
    weighs at each size (so that its pick does not change), would meet the band's targets, from
    (bytes, measured us, predicted us) rows. The max target alone bounds X to an interval (each
    row's |p + X - t| / t <= max_t); the median target is checked on it in 1 us steps."""
    lo = max(t * (1 - max_t) - p for _, t, p in rows)
    hi = min(t * (1 + max_t) - p for _, t, p in rows)
    ok = [x for x in range(math.ceil(lo), math.floor(hi) + 1)
          if statistics.median(abs(p + x - t) / t for _, t, p in rows) <= med_t]
    what = f"X in [{ok[0]}, {ok[-1]}] us" if ok else "no X does"
    return f"  per-call offset, same sizes: one cost X added at every size meets both targets: {what}"


def profile_nccl_bands(prof, comm, rows, bands, path):
    """The same bands priced without --nccl-version: fusim takes the NCCL the profile's logs ran
    (the profile's nccl_version), as a user who does not know the flag gets it."""
    sizes = ",".join(f"{b}B" for b, _ in rows)
    pred = json.loads(run("cost", "--profile", prof, "--comm", comm, "--bytes", sizes, "--format", "json",
                          *layout_args(path, nccl=False)))
    errs = [(b, abs(p["time_us"] - t) / t) for (b, t), p in zip(rows, pred)]
    out = []
    for lo, _, _ in bands:
        sel = [e for b, e in errs if b >= lo]
        if sel:
            out.append(f">= {lo // 1024} KiB median {100 * statistics.median(sel):.1f}%, max {100 * max(sel):.1f}%")
    return (f"  without --nccl-version (NCCL {pred[0]['nccl_version'] or 'unknown'}, {pred[0]['nccl_source']}): "
            + "; ".join(out))


def ring_us_per_byte(cluster, comm):
    """A multi-node job's time per byte at the fitted ring rate, bus bandwidth min(B_intra, k B_nic)
    (k = NICs a node; k B_nic at most the fitted node cap, node_net_gbps) times nccl-tests' bus
    factor, and that bus bandwidth (bytes per us)."""
    op, shape = comm.split(":")[:2]
    nodes, g = (int(x) for x in shape.split("x"))
    p = nodes * g
    k = min(g, cluster.get("nics_per_node") or g)
    net = min(k * cluster["nic_gbps"], cluster.get("node_net_gbps") or math.inf)
    bus = min(cluster["intra_gbps"] if g > 1 else math.inf, net) * 1e3
    f = 2 * (p - 1) / p if op == "allreduce" else (p - 1) / p
    return f / bus, bus


def fill_bound(rows, us_per_byte, ring_steps, max_t):
    """Diagnostic, not a result: whether a pipeline fill could lift the band's rows into its max
    target, from (bytes, measured us, predicted us, priced line) rows. A fill is what a chunk pays
    crossing a chain of steps before the pipeline is full, (steps - 1) chunk times; a chunk is at
    most the bytes one rank sends a channel in a step, so a fill is at most the call's bytes moved
    once more in series at the fitted ring rate (bytes x us_per_byte). A ring's is one chunk's time
    at most (its bytes / ring_steps): each step moves a chunk on every rank at once, the time NCCL's
    bandwidth term already counts, and only the first chunk (Simple: half of it, a slice) waits."""
    over = [(b, (p - t) / t) for b, t, p, _ in rows if p > t * (1 + max_t)]
    if over:
        b, e = max(over, key=lambda x: x[1])
        return (f"  pipeline fill, same sizes: none can meet the max target: {b // 1024} KiB is priced "
                f"{100 * e:+.1f}% already and a fill only adds")
    b, need, most, algo = max(((b, t * (1 - max_t) - p, b * us_per_byte / (ring_steps if a.startswith("ring") else 1), a)
                               for b, t, p, a in rows), key=lambda x: x[1] - x[2])
    if need <= 0:
        return "  pipeline fill, same sizes: not ruled out: no row is priced below the max target"
    verdict = "not ruled out by its bound" if need <= most else "none can meet the max target"
    return (f"  pipeline fill, same sizes: {verdict}: {b // 1024} KiB ({algo}) needs >= {need:.0f} us more, "
            f"a fill adds at most {most:.1f} us there")


def mid_excess(cluster, comm, path):
    """Diagnostic, not a result: a multi-node log's time at 1-64 MiB (both columns) above what its
    bytes take at the fitted ring rate (bus bandwidth min(B_intra, k B_nic), k = NICs a node), as
    a median and range, beside the GPUs one process drove: the per-call cost the mid sizes carry."""
    us_per_byte, bus = ring_us_per_byte(cluster, comm)
    ex = [t - b * us_per_byte for b, o, i in measured(path, in_place=True) if MiB <= b <= 64 * MiB for t in (o, i)]
    if not ex:
        return ""
    return (f"  {comm} at 1-64 MiB, above its bytes at the fitted ring rate ({bus / 1e3:.0f} GB/s busbw), "
            f"GPUs a process {gpus_per_process(path) or '?'}: median {statistics.median(ex):.0f} us, "
            f"range {min(ex):.0f}..{max(ex):.0f} us")


def fit_dgx(tmp, gpus, name, prefix="mghpcc-dgxh100", data=DATA):
    """The DGX H100 pair's profile as the bench fits it (or another pair's sweep named alike,
    prefix in data): 2 ranks on one node (NVLink) and the 2-node runs of each count in gpus
    (2, 4, 8: 1+1, 2+2, 4+4); its path."""
    db, prof = os.path.join(tmp, name + ".db"), os.path.join(tmp, name + ".json")
    imp(db, f"{prefix}-2gpu-1node-allreduce.txt", "--link", "nvlink", data=data)
    for n in gpus:
        imp(db, f"{prefix}-{n}gpu-2node-allreduce.txt", data=data)
    run("fit", "--db", db, "--no-store", "--out", prof, "--name", name)
    return prof


def fit_b200(tmp, name="b200-fit-8", prefix="mit-b200", data=DATA):
    """The B200 profile as the bench fits it: its 1-node logs of the three collectives (or another
    B200 sweep's named alike, prefix in data), the network from --base, a profile fitted on the
    DGX H100 pair's 1+1 run (one NDR rail); its path."""
    ndb, rail = os.path.join(tmp, name + "-rail.db"), os.path.join(tmp, name + "-rail.json")
    imp(ndb, "mghpcc-dgxh100-2gpu-2node-allreduce.txt")
    run("fit", "--db", ndb, "--no-store", "--out", rail, "--name", "ndr-rail-from-dgxh100-1+1")
    bdb, bprof = os.path.join(tmp, name + ".db"), os.path.join(tmp, name + ".json")
    for op in ("allreduce", "allgather", "reducescatter"):
        imp(bdb, f"{prefix}-8gpu-1node-{op}.txt", "--link", "nvlink", data=data)
    run("fit", "--db", bdb, "--no-store", "--out", bprof, "--name", name, "--base", rail)
    return bprof


def one_node_only(prof):
    """A copy of prof without its multi-node curves, so that fusim cost prices those with the
    fitted links (the model's own price of the fit set); its path."""
    j = json.load(open(prof))
    j["curves"] = [c for c in j["curves"] if c.get("nodes", 1) <= 1]
    mprof = prof[:-5] + "-model.json"
    json.dump(j, open(mprof, "w"))
    return mprof


def fit_set_check(prof, cases, data=DATA):
    """Diagnostic, not a result: the model's own price (the profile's multi-node curves dropped,
    so that fusim cost prices them with the fitted links) against the logs it was fitted on, as the
    median signed error and the largest |error| over sizes 1-32 MiB and >= 64 MiB. Where the fit
    set is over-priced at mid sizes and the held-out case under-priced, a change that fits the fit
    set better moves the held-out case the wrong way."""
    mprof = one_node_only(prof)
    cluster = json.load(open(mprof))["cluster"]
    for comm, name in cases:
        rows = [(b, t) for b, t in measured(os.path.join(data, name)) if b >= MiB]
        sizes = ",".join(f"{b}B" for b, _ in rows)
        pred = json.loads(run("cost", "--profile", mprof, "--comm", comm, "--bytes", sizes, "--format", "json",
                              *layout_args(os.path.join(data, name))))
        errs = [(b, (p["time_us"] - t) / t) for (b, t), p in zip(rows, pred)]
        out = []
        for lo, hi, band in ((MiB, 32 * MiB, "1-32 MiB"), (64 * MiB, float("inf"), ">= 64 MiB")):
            e = [x for b, x in errs if lo <= b <= hi]
            if e:
                out.append(f"{band}: median {100 * statistics.median(e):+.1f}%, max |error| {100 * max(map(abs, e)):.1f}%")
        print(f"  fit set, model price of {comm} ({name}): " + "; ".join(out))
        print(mid_excess(cluster, comm, os.path.join(data, name)))


def print_pair_fit(label, prof):
    """One line of a 2-node pair's fitted links (the DGX pair's and alike)."""
    cl = json.load(open(prof))["cluster"]
    print(f"{label} fit: intra {cl['intra_gbps']:.1f} GB/s, step {cl['intra_step_us']:.2f} us, base "
          f"{cl['base_us']:.2f} us; NIC {cl['nic_gbps']:.1f} GB/s, net step {cl['net_step_us']:.2f} us; Simple: step "
          f"{cl['simple_intra_step_us']:.1f} us on one node, {cl.get('simple_xintra_step_us', 0):.1f} us across nodes, "
          f"net step {cl['simple_net_step_us']:.1f} us; layout {cl.get('proc_pair_us', 0):.1f} us x q (q - 1), "
          f"q GPUs a process; "
          + (f"node network at most {cl['node_net_gbps']:.1f} GB/s; " if cl.get("node_net_gbps") else "")
          + f"NVLS all-reduce {cl['nvls_algbw_gbps'][0]:.1f} GB/s algbw ({cl.get('nvls_source') or 'measured'})")


def print_b200_fit(label, prof):
    """One line of a B200 one-node fit's links (its network from the --base rail)."""
    cl = json.load(open(prof))["cluster"]
    print(f"\n{label} fit: intra {cl['intra_gbps']:.1f} GB/s, NVLS allreduce {cl['nvls_algbw_gbps'][0]:.1f} GB/s "
          f"algbw, step {cl['intra_step_us']:.2f} us, base {cl['base_us']:.2f} us; NIC {cl['nic_gbps']:.1f} "
          f"GB/s ({cl['net_source']})")


PAIR_BANDS = [(64 * MiB, 0.10, 0.30), (64 * 1024, 0.20, 0.50)]
B200_BANDS = [(64 * MiB, 0.10, 0.30), (1 * MiB, 0.20, 0.50)]


def pair_case(tmp, label, prefix, data, g, show_fit=False):
    """A 2-node pair's sweep (prefix in data, named as the DGX pair's): fit 2 ranks on 1 node and
    1+1 .. up to below g+g, predict the g+g all-reduce; the bands' PASS flags."""
    ks = [k for k in (1, 2, 4) if k < g]
    prof = fit_dgx(tmp, [2 * k for k in ks], f"{prefix}-fit-to-{g}", prefix, data)
    if show_fit:
        print_pair_fit(f"\n{label}", prof)
    fit_set_check(prof, [(f"allreduce:2x{k}", f"{prefix}-{2 * k}gpu-2node-allreduce.txt") for k in ks], data)
    path = os.path.join(data, f"{prefix}-{2 * g}gpu-2node-allreduce.txt")
    fits = ", ".join(f"{k}+{k}" for k in ks)
    return compare(f"EXTRA {label} {g}+{g} allreduce (fit 1-node 2, {fits})", prof, f"allreduce:2x{g}",
                   measured(path), PAIR_BANDS, path)


def b200_cases(bprof, label, prefix, data):
    """A B200 sweep's 2x8 all-reduce, all-gather and reduce-scatter priced on its one-node fit;
    the bands' PASS flags, per collective."""
    out = {}
    for op in ("allreduce", "allgather", "reducescatter"):
        path = os.path.join(data, f"{prefix}-16gpu-2node-{op}.txt")
        out[op] = compare(f"{label} 2x8 {op}", bprof, f"{op}:2x8", measured(path), B200_BANDS, path)
    return out


def main():
    tmp = tempfile.mkdtemp(prefix="fusim-cluster-bench-")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)   # also where a fusim call fails
    results = []
    # DGX H100 pair
    prof = fit_dgx(tmp, (2, 4, 8), "dgxh100-fit-2-to-8")
    print_pair_fit("DGX H100", prof)
    fit_set_check(prof, [(f"allreduce:2x{g}", f"mghpcc-dgxh100-{2 * g}gpu-2node-allreduce.txt") for g in (1, 2, 4)])
    path = os.path.join(DATA, "mghpcc-dgxh100-16gpu-2node-allreduce.txt")
    results += compare("DGX H100 8+8 allreduce", prof, "allreduce:2x8", measured(path), PAIR_BANDS, path)
    bprof = fit_b200(tmp)
    print_b200_fit("B200", bprof)
    for flags in b200_cases(bprof, "B200", "mit-b200", DATA).values():
        results += flags
    print(f"\ncluster_bench: {sum(results)} of {len(results)} target bands met")
    # Not issue 12's targets: the same rules on sweeps the model was never tuned on (held out):
    # one step down the DGX sweep, and the sweeps in MORE (their README says what each lacks).
    extra = {"DGX H100 4+4": pair_case(tmp, "DGX H100", "mghpcc-dgxh100", DATA, 4),
             "Lambda H100 8+8": pair_case(tmp, "Lambda H100", "lambda-h100", MORE, 8, show_fit=True),
             "Lambda H100 4+4": pair_case(tmp, "Lambda H100", "lambda-h100", MORE, 4)}
    rprof = fit_b200(tmp, "b200-rocky-fit-8", "orcd-b200-rocky", MORE)
    print_b200_fit("EXTRA B200 Rocky 8", rprof)
    for op, flags in b200_cases(rprof, "EXTRA B200 Rocky 8", "orcd-b200-rocky", MORE).items():
        extra[f"B200 Rocky 8 2x8 {op}"] = flags
    print("\ncluster_bench extra (not targets): " + ", ".join(f"{k} {sum(v)}/{len(v)}" for k, v in extra.items())
          + f"; {sum(map(sum, extra.values()))} of {sum(map(len, extra.values()))} bands met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
