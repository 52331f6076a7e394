#!/usr/bin/env python3
"""agrs_bench.py: all-gather and reduce-scatter priced from an all-reduce fit alone (issue 12).

For each machine where all three collectives (or all-reduce and all-gather) were measured on the
same machine, fits a profile on the all-reduce alone (`fusim fit --op allreduce`), prices the
all-gather and reduce-scatter at the measured sizes with `fusim cost`, and compares (measured:
the out-of-place time, as fit uses):

  h200x2-run1, h200x2-run2  two H200s over NVLink NV18, NCCL 2.28.3, `fusim calib -g 2`
                            (data/validation/torch_h200x2_run{1,2}/calib_x2.csv; 16 B-1 GiB)
  rtx2080ti-x2              two RTX 2080 Ti over PCIe without P2P (public nccl-tests; 32 B-1 GiB)
  b200x8                    one node of 8 B200s, NVLink5/NVSwitch, NCCL 2.29.2 (public; 1 MiB-16 GiB)

Prints every size (measured, predicted, error, the model's line) and per case and collective the
median and max |error| below 1 MiB, from 1 MiB up, and from 64 MiB up (issue 12's band for predicted
collectives there: median <= 10%, max <= 30%). Exits 0 (a benchmark reports figures).

usage: agrs_bench.py FUSIM [REPO_ROOT]
"""
import atexit
import json
import os
import shutil
import statistics
import sys
import tempfile

from cluster_bench import measured, run  # run: fusim (argv[1]) or exit with its error

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "..", "..")
PUB = os.path.join(ROOT, "tests", "data", "public-nccl-tests")
MiB = 1 << 20


def log_rows(path):
    """(bytes, out-of-place time us) rows of an nccl-tests log (size 0 rows dropped)."""
    return [(b, t) for b, t in measured(path) if b > 0]


def calib_rows(path, op):
    """(bytes, time us) of the out-of-place, NCCL's-choice rows of op in a fusim calib CSV."""
    rows, head = [], None
    for line in open(path):
        if line.startswith("#"):
            continue
        f = line.rstrip("\n").split(",")
        if head is None:
            head = f
            continue
        r = dict(zip(head, f))
        if r["op"] == op and r["in_place"] == "0" and not r["algo"] and not r["proto"] and r["graph"] == "0":
            rows.append((int(r["bytes"]), float(r["time_us"])))
    return rows


def calib_ar_csv(src, dst):
    """The all-reduce rows of a fusim calib CSV (comment lines kept: they name the GPU)."""
    with open(src) as f, open(dst, "w") as o:
        for line in f:
            if line.startswith("#") or line.startswith("op,") or line.startswith("allreduce,"):
                o.write(line)


def cases():
    """(name, ranks, link, all-reduce file to import, {op: measured rows})."""
    out = []
    for r in (1, 2):
        csv = os.path.join(ROOT, "data", "validation", f"torch_h200x2_run{r}", "calib_x2.csv")
        if os.path.exists(csv):
            out.append((f"h200x2-run{r}", 2, "nvlink", ("calib", csv),
                        {op: calib_rows(csv, op) for op in ("allgather", "reducescatter")}))
    out.append(("rtx2080ti-x2", 2, "pcie", ("log", os.path.join(PUB, "rtx2080tix2-pcie-allreduce.txt")),
                {"allgather": log_rows(os.path.join(PUB, "rtx2080tix2-pcie-allgather.txt"))}))
    mn = os.path.join(PUB, "multi-node")
    out.append(("b200x8", 8, "nvlink", ("log", os.path.join(mn, "mit-b200-8gpu-1node-allreduce.txt")),
                {op: log_rows(os.path.join(mn, f"mit-b200-8gpu-1node-{op}.txt"))
                 for op in ("allgather", "reducescatter")}))
    return out


def fmt_b(b):
    for u, s in ((1 << 30, "GiB"), (MiB, "MiB"), (1024, "KiB")):
        if b >= u and b % u == 0:
            return f"{b // u}{s}"
    return f"{b}B"


def band(errs):
    if not errs:
        return "  -   /   -  "
    a = [abs(e) for e in errs]
    return f"{statistics.median(a):5.1f} / {max(a):5.1f}"


def main():
    tmp = tempfile.mkdtemp(prefix="agrs_bench.")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)   # databases and profiles: scratch
    print("all-gather / reduce-scatter from an all-reduce fit alone; err = predicted / measured - 1")
    summary = []
    for name, ranks, link, (kind, src), meas in cases():
        db, prof = os.path.join(tmp, name + ".db"), os.path.join(tmp, name + ".json")
        if kind == "calib":
            ar = os.path.join(tmp, name + ".csv")
            calib_ar_csv(src, ar)
            src = ar
        run("import", "--db", db, src)
        run("fit", "--db", db, "--op", "allreduce", "--no-store", "--out", prof)
        c = json.load(open(prof))["cluster"]
        print(f"\n== {name}: {ranks} ranks, {link}; fitted base {c['base_us']:.2f} us, step "
              f"{c['intra_step_us']:.2f} us (LL), Simple base {c['simple_base_us']:.2f}, step "
              f"{c['simple_intra_step_us']:.2f}, ring {c['intra_gbps']:.1f} GB/s, "
              f"NVLS {c['nvls_algbw_gbps'][0]:.1f} GB/s")
        print(f"{'op':<14}{'bytes':>8}{'measured_us':>13}{'predicted_us':>14}{'err':>8}  algo")
        for op, rows in meas.items():
            sizes = ",".join(f"{b}B" for b, _ in rows)
            pred = json.loads(run("cost", "--profile", prof, "--comm", f"{op}:{ranks}:{link}",
                                  "--bytes", sizes, "--format", "json"))
            small, large, big = [], [], []
            for (b, m), p in zip(rows, pred):
                e = 100 * (p["time_us"] / m - 1)
                (large if b >= MiB else small).append(e)
                if b >= 64 * MiB:
                    big.append(e)
                print(f"{op:<14}{fmt_b(b):>8}{m:13.2f}{p['time_us']:14.2f}{e:+7.1f}%  {p['algo']}")
            summary.append((name, op, band(small), band(large), band(big)))
    print("\nRESULT case           op             < 1 MiB med/max %   >= 1 MiB med/max %  >= 64 MiB med/max %")
    for name, op, s, l, g in summary:
        print(f"RESULT {name:<15}{op:<15}{s:>18}   {l:>18}   {g:>18}")


if __name__ == "__main__":
    main()
