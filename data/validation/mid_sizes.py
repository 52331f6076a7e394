#!/usr/bin/env python3
"""mid_sizes.py: issue 12's mid sizes across nodes (1-32 MiB) against NCCL's channel rule.

Question: does NCCL's runtime cut of channels for small calls (enqueue.cc topoGetAlgoInfo, the same
loop in 2.18 and the current source: `while (nBytes < nc*nt*threadThreshold) nc--`, then threads)
explain why the cost model misprices the multi-node logs at mid sizes? Its constants (comm.h,
tuning.cc, 2.18 to the current source): threadThreshold 64 bytes a thread for Simple
(NCCL_SIMPLE_THREAD_THRESHOLD), 8 for LL and LL128, and only ring/LL's is multiplied by nRanks
(`threadThresholds[NCCL_ALGO_RING][NCCL_PROTO_LL] *= nRanks`; Simple's never is); nt 512 threads
for ring and tree Simple where the ring graph's bandwidth exceeds PCI_BW (every log here), 512 for
LL, 640 for LL128; NVLS and NVLS-tree exempt (their own channel count). So a ring or tree Simple
call runs nc = clamp(floor(n / 32 KiB), 1, C) channels of the C the communicator has (C <=
MAXCHANNELS: 32 in 2.18's device.h, 64 in later sources), a ring/LL call clamp(floor(n / (4 KiB x
nRanks)), 1, C); the current source's planner spreads one call over at most that many
(scheduleCollTasksToPlan). With nc < C a call moves its bytes at nc / C of the full rate at most:
its bandwidth term grows by (C / nc - 1) x itself, never shrinks.

For each multi-node log this prints, at each size 1-32 MiB: the measured time (out-of-place), the
model's price (the profile cluster_bench fits, its multi-node curves dropped so that the cost model
prices the fit set; the held-out logs as cluster_bench prices them; the a3mega log, another
cluster, on the DGX profile) and the rule's largest extra time, C at the version's MAXCHANNELS
(the logs do not say the communicator's count; fewer channels only shrink the extra): a Simple
call (its bandwidth term f n / busbw at the log's own busbw at >= 1 GiB), the same under a reading
that multiplies Simple's threshold by nRanks too (the issue's; NCCL's source does not), and the
model's own line (its time less its latency, at its own threshold: the LL ring's x nRanks); then
the log's line through 1-32 MiB against its line through >= 256 MiB (weights 1/t^2).

Found (mid_sizes.txt):
- Simple's rule bites nowhere at 1-32 MiB on a 32-channel communicator (32 x 32 KiB = 1 MiB) and
  only at 1 MiB on a 64-channel one, adding at most 2.6-7.7 us; the model's misses there are
  medians +117 and +169 us (DGX 1+1, 2+2, too slow; 4+4 -42..+227) on the fit set and -166 to
  -678 us on the held-out logs (too fast).
- Any rule of this kind only adds time, so it moves the fit set the wrong way; even the x nRanks
  reading adds 21-40 us there.
- The LL ring's rule (NCCL's x nRanks, 64 KiB a channel at 16 ranks) lifts the model's ring/LL
  price at 1-2 MiB of the 16-rank logs by up to 50-151 us with C = 64 (B200 all-gather and
  reduce-scatter at 1 MiB +76 us of the +177/+181 missing; a3mega 1 and 2 MiB +151 / +101 of
  +102 / +102), nothing from 4 MiB, where the same logs miss by as much (B200 all-gather 4 MiB
  -166 us, all-reduce -767 us, DGX 8+8 -879 us). Its size depends on C, which no log gives.
- Every log is concave between its mid and large sizes: its 1-32 MiB line has the lower
  intercept and the lower bus bandwidth (DGX 1+1 31 us + 44 GB/s against 380 us + 49 GB/s; 2+2
  51 + 101 (the ring's 2 x 49) against 111 + 148 (the tree's); B200 all-gather 272 + 166 against
  338 + 381; a3mega 190 + 57 against 897 + 344). A channel cut makes a curve convex (a floor, then
  the line); it cannot make these. The model's Simple latency is the >= 256 MiB intercept, so it
  over-prices the fit set wherever Simple runs at mid sizes (DGX 1+1 ring/Simple 198 us at 0 bytes
  against the 31 us mid-size intercept).
- NCCL's cut added to the line the model prices at each size (the last table; an upper bound at
  C = MAXCHANNELS, NCCL's pick being blind to it) meets no band of cluster_bench and worsens none:
  B200 all-gather and reduce-scatter >= 1 MiB max 67.5 -> 50.7, 68.0 -> 52.3% (C = 64; 57.9,
  58.5 at 32), EXTRA 4+4 >= 64 KiB 14.4 / 79.7 -> 11.0 / 70.2 (C = 32), DGX 8+8 and B200
  all-reduce as they were; the fit set's 1-32 MiB unchanged. Pricing it needs the communicator's
  channel count, which nccl-tests prints only under NCCL_DEBUG=INFO.

usage: mid_sizes.py FUSIM DATA_DIR   (DATA_DIR: the public multi-node logs; the a3mega log is read
from its parent folder)
"""
import atexit
import json
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "bench"))
import cluster_bench as cb  # noqa: E402  (reads FUSIM and DATA from argv, as this script does)

MiB = 1 << 20
T_SIMPLE = 512 * 64  # bytes a channel below which NCCL drops a channel (nt x NCCL_SIMPLE_THREAD_THRESHOLD)


def threshold(algo, p):
    """Bytes a channel below which NCCL drops one, for the model's line algo ("ring/LL", ...) at p
    ranks: nt x threadThreshold (LL 512 x 8, x nRanks on a ring; LL128 640 x 8; Simple 512 x 64);
    None for NVLS and NVLS-tree (their own channel count)."""
    a, _, proto = algo.partition("/")
    if a.startswith("nvls"):
        return None
    if proto == "LL":
        return 512 * 8 * (p if a == "ring" else 1)
    return 640 * 8 if proto == "LL128" else T_SIMPLE


def channels(n, c_max, threshold):
    """NCCL's channel count for a ring or tree Simple call of n bytes (enqueue.cc's loop)."""
    nc = c_max
    while n < nc * threshold and nc >= 2:
        nc -= 1
    return nc


def extra_us(n, c_max, thr, band_us):
    """The channel cut's extra time for a call of n bytes whose bandwidth term on all c_max
    channels is band_us: that term x (c_max / nc - 1); 0 where the line has no cut (thr None)."""
    return (c_max / channels(n, c_max, thr) - 1) * band_us if thr else 0.0


def bus_factor(op, p):
    return 2 * (p - 1) / p if op == "allreduce" else (p - 1) / p


def line(pts):
    a, b = cb.wls_line(pts)
    return a, 1 / b / 1e3 if b > 0 else float("inf")


def bands_whatif(prof, comm, path, bands, c_max):
    """cluster_bench's bands (median / max |error|) for one held-out case, as the bench prices it and
    with NCCL's cut added to the line it prices (the line's threshold, C = c_max channels): what the
    rule could change in the model at most, since NCCL picks by its tuning model, which has no cut."""
    rows, lay = cb.measured(path), cb.layout_args(path)
    nodes, g = (int(x) for x in comm.split(":")[1].split("x"))
    p = nodes * g
    pred = json.loads(cb.run("cost", "--profile", prof, "--comm", comm, "--bytes",
                             ",".join(f"{b}B" for b, _ in rows), "--format", "json", *lay))
    lat = {ln["algo"]: ln["time_us"] for ln in json.loads(cb.run(
        "cost", "--profile", prof, "--comm", comm, "--bytes", "1B", "--format", "json", *lay))[0]["lines"]}
    out = []
    for lo in bands:
        e0, e1 = [], []
        for (b, t), pj in zip(rows, pred):
            if b < lo:
                continue
            cut = pj["time_us"] + extra_us(b, c_max, threshold(pj["algo"], p), pj["time_us"] - lat[pj["algo"]])
            e0.append(abs(pj["time_us"] - t) / t)
            e1.append(abs(cut - t) / t)
        out.append(f">= {lo // 1024} KiB {100 * statistics.median(e0):.1f} / {100 * max(e0):.1f} -> "
                   f"{100 * statistics.median(e1):.1f} / {100 * max(e1):.1f}")
    return "; ".join(out)


def main():
    a3 = os.path.join(cb.DATA, "..", "h100x16-2node-a3mega-allreduce.txt")
    for f in (os.path.join(cb.DATA, "mghpcc-dgxh100-2gpu-2node-allreduce.txt"), a3):
        if not os.path.isfile(f):
            print(f"mid_sizes.py: {f}: no such log (give the public multi-node folder)", file=sys.stderr)
            return 66
    tmp = tempfile.mkdtemp(prefix="fusim-mid-")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    # the profiles cluster_bench fits (DGX: 1-node 2, 1+1, 2+2, 4+4; B200: 1-node 8 on the DGX 1+1
    # rail; EXTRA: 1-node 2, 1+1, 2+2), and the DGX one without its multi-node curves
    prof = cb.fit_dgx(tmp, (2, 4, 8), "dgx")
    mprof = cb.one_node_only(prof)
    bprof = cb.fit_b200(tmp)
    xprof = cb.fit_dgx(tmp, (2, 4), "dgx-2-to-4")

    cases = [(f"allreduce:2x{g}", f"mghpcc-dgxh100-{2 * g}gpu-2node-allreduce.txt", mprof, 32, "fit set")
             for g in (1, 2, 4)]
    cases.append(("allreduce:2x8", "mghpcc-dgxh100-16gpu-2node-allreduce.txt", prof, 32, "held out"))
    cases += [(f"{op}:2x8", f"mit-b200-16gpu-2node-{op}.txt", bprof, 64, "held out")
              for op in ("allreduce", "allgather", "reducescatter")]
    cases.append(("allreduce:2x8", a3, mprof, 64, "other cluster (DGX profile, TCPXO network)"))
    summary = []
    print("columns: size, measured us, model us (its line), model error; channel rule, channels of C and the "
          "largest extra us: a Simple call, the same under the x nRanks reading, the model's own line\n")
    for comm, name, pr, c_max, role in cases:
        path = name if os.path.isabs(name) else os.path.join(cb.DATA, name)
        op, shape = comm.split(":")
        nodes, g = (int(x) for x in shape.split("x"))
        p = nodes * g
        f = bus_factor(op, p)
        rows = cb.measured(path)
        mid = [(b, t) for b, t in rows if MiB <= b <= 32 * MiB]
        big = [(b, t) for b, t in rows if b >= 256 * MiB]
        busbw = statistics.median(f * b / t for b, t in rows if b >= 1 << 30) * 1e-3  # GB/s
        # the a3mega log names no layout or NCCL; its header says -g 1
        lay = cb.layout_args(path) if not os.path.isabs(name) else ["--gpus-per-process", "1"]
        pred = json.loads(cb.run("cost", "--profile", pr, "--comm", comm, "--bytes",
                                 ",".join(f"{b}B" for b, _ in mid), "--format", "json", *lay))
        lat = {ln["algo"]: ln["time_us"] for ln in json.loads(cb.run(
            "cost", "--profile", pr, "--comm", comm, "--bytes", "1B", "--format", "json", *lay))[0]["lines"]}
        print(f"{os.path.basename(path)} ({role}): --comm {comm} {' '.join(lay)}; C = {c_max}; "
              f"busbw at >= 1 GiB {busbw:.0f} GB/s")
        errs, extra, extra_r, extra_m = [], [], [], []
        for (b, t), pj in zip(mid, pred):
            bw_us = f * b / (busbw * 1e3)  # the Simple bandwidth term at the full rate
            nc = channels(b, c_max, T_SIMPLE)
            ncr = channels(b, c_max, T_SIMPLE * p)
            x, xr = extra_us(b, c_max, T_SIMPLE, bw_us), extra_us(b, c_max, T_SIMPLE * p, bw_us)
            # the model's own line on nc of C channels: its bandwidth term x C / nc
            thr = threshold(pj["algo"], p)
            ncm = channels(b, c_max, thr) if thr else c_max
            xm = extra_us(b, c_max, thr, pj["time_us"] - lat[pj["algo"]])
            extra_m.append(xm)
            e = (pj["time_us"] - t) / t
            errs.append(pj["time_us"] - t)
            extra.append(x)
            extra_r.append(xr)
            print(f"  {b // MiB:3d} MiB {t:9.1f} {pj['time_us']:9.1f} {pj['algo']:>17s} {100 * e:+7.1f}%"
                  f"   {nc:2d}/{c_max} +{x:6.1f}   {ncr:2d}/{c_max} +{xr:6.1f}   {ncm:2d}/{c_max} +{xm:6.1f}")
        a_m, bw_m = line(mid)
        a_l, bw_l = line(big)
        f_m, f_l = f * bw_m, f * bw_l  # algorithm -> bus bandwidth
        print(f"  line 1-32 MiB: {a_m:.0f} us + busbw {f_m:.0f} GB/s; line >= 256 MiB: {a_l:.0f} us + busbw "
              f"{f_l:.0f} GB/s")
        summary.append((os.path.basename(path), role, statistics.median(errs), min(errs), max(errs), max(extra),
                        max(extra_r), max(extra_m), a_m, f_m, a_l, f_l))
    print("\nsummary: model minus measured at 1-32 MiB (median, range, us) against the channel rule's largest "
          "extra (us: Simple at NCCL's threshold / x nRanks / the model's own line); the logs' lines")
    for s in summary:
        print(f"  {s[0]:45s} {s[2]:+8.0f} [{s[3]:+.0f}, {s[4]:+.0f}]   +{s[5]:.1f} / +{s[6]:.1f} / +{s[7]:.1f}   "
              f"1-32 MiB {s[8]:.0f} us + {s[9]:.0f} GB/s, >= 256 MiB {s[10]:.0f} us + {s[11]:.0f} GB/s")
    print("\ncluster_bench's bands (and the fit set's, priced by the model) with NCCL's cut on the line each size is priced on (median / max |error| %, "
          "now -> with the cut), C channels of the communicator (the logs do not say how many: MAXCHANNELS "
          "bounds the effect, half of it shrinks it)")
    held = [(f"fit set DGX {g}+{g}", mprof, f"allreduce:2x{g}", f"mghpcc-dgxh100-{2 * g}gpu-2node-allreduce.txt",
             64 << 10, 32) for g in (1, 2, 4)]
    held += [("DGX 8+8", prof, "allreduce:2x8", "mghpcc-dgxh100-16gpu-2node-allreduce.txt", 64 << 10, 32)]
    held += [(f"B200 2x8 {op}", bprof, f"{op}:2x8", f"mit-b200-16gpu-2node-{op}.txt", MiB, 64)
             for op in ("allreduce", "allgather", "reducescatter")]
    held.append(("EXTRA 4+4", xprof, "allreduce:2x4", "mghpcc-dgxh100-8gpu-2node-allreduce.txt", 64 << 10, 32))
    for label, pr, comm, name, lo, c_max in held:
        for c in (c_max, c_max // 2):
            print(f"  {label:24s} C = {c:2d}: "
                  f"{bands_whatif(pr, comm, os.path.join(cb.DATA, name), (64 * MiB, lo), c)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
