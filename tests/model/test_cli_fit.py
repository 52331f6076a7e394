#!/usr/bin/env python3
"""test_cli_fit.py FUSIM: `fusim import` + `fusim fit` through the command line.

(b) the reference H200 data (Azure 8-GPU NVLS all-reduce, PCIe h2d/d2h and HBM d2d copies):
    every measured point within 8% of the fitted profile;
(c) every public nccl-tests log: imports without --lenient, every size within 10%;
(d) variants on fusim's own calibration (data/calibration/*.sql: copies timed three ways,
    pageable copies, the pack kernel over several k, collectives over dtypes, protocols and CUDA
    graphs): the default selection fits one plain curve per key, --algo/--proto/--dtype/--graph
    pick the others, labels round-trip through the profile, --pack-handoff-us is kept;
plus the CLI contract: --help, bad options (64), missing database (66), a bad base profile
(65) and an unwritable --out leave the database as it was, --plot (png, svg, no gnuplot),
--format csv/json, and the profile written by --out reloads with --merge-into;
(e) no fitted price falls from one size to the next where the data does not (public logs,
reference copies; default and --robust);
(f) a network curve is flagged over the network's limit (a NIC a GPU), not NVLink's.
Prints the segments each data set needed."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

FUSIM = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.environ.get("FUSIM_SHARED", "/work/shared")
REF = os.path.join(SHARED, "data", "reference")
PUB = os.path.join(SHARED, "data", "public-nccl-tests")
failed = 0
passed = 0


def check(cond, what):
    global failed, passed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what, file=sys.stderr)


def run(*args, env=None):
    p = subprocess.run([FUSIM, *args], capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


def fit_rows(db):
    c = sqlite3.connect(db)
    try:
        return c.execute("SELECT count(*) FROM fit_segments").fetchone()[0]
    finally:
        c.close()


def fit_json(db, *args):
    rc, out, err = run("fit", "--db", db, "--format", "json", *args)
    check(rc == 0, f"fit {args} exit {rc}: {err.strip()}")
    return json.loads(out) if rc == 0 else {"fits": []}


def check_within(name, fits, tol):
    """Every point of every fit within tol; names the ones missed."""
    for f in fits:
        bad = [p for p in f["points"] if abs(p["rel_err"]) > tol]
        for p in bad:
            print(f"  {name}: MISSED {p['bytes']:.0f} bytes: measured {p['measured_us']:.4g} us, "
                  f"fitted {p['fitted_us']:.4g} us ({100 * p['rel_err']:+.1f}%)", file=sys.stderr)
        check(not bad, f"{name}: {f['op']} {f['link']} x{f['ranks']}: {len(bad)} points beyond {tol:.0%}")
        print(f"{name:44s} {f['op']:>9s} {f['link']:>8s} x{f['ranks']:<3d} "
              f"{'in' if f['in_place'] else 'out-of'}-place {f['n_samples']:3d} sizes  "
              f"{len(f['segments'])} segments  max rel err {100 * f['max_rel_err']:5.2f}%", file=sys.stderr)


def check_monotone(name, fits):
    """A fitted price never falls from one size to the next where the mean measured time does not
    (a3mega all-reduce: 128 B 125.4 us, 256 B 121.6 us, its samples rising 123.0 -> 123.6), but
    inside a segment whose samples never rise (a latency floor still falling: the fit follows
    the log)."""
    for f in fits:
        meas, fit, seg = {}, {}, {}
        for p in f["points"]:
            meas.setdefault(p["bytes"], []).append(p["measured_us"])
            fit[p["bytes"]], seg[p["bytes"]] = p["fitted_us"], p["segment"]
        xs = sorted(meas)
        mean = {x: sum(meas[x]) / len(meas[x]) for x in xs}
        rises = {seg[b] for a, b in zip(xs, xs[1:]) if seg[a] == seg[b] and mean[b] > mean[a]}
        for a, b in zip(xs, xs[1:]):
            falls = fit[b] < fit[a] * (1 - 1e-9) and mean[b] >= mean[a]
            kept = seg[a] == seg[b] and seg[a] not in rises
            check(not falls or kept, f"{name}: {f['op']} {f['link']} x{f['ranks']}: fitted {fit[a]:.5g} us at "
                  f"{a:.0f} B, {fit[b]:.5g} us at {b:.0f} B (measured {mean[a]:.5g}, {mean[b]:.5g})")


def main():
    tmp = tempfile.mkdtemp(prefix="fusim-test-cli-fit-")
    try:
        # --help and usage errors
        rc, out, _ = run("fit", "--help")
        check(rc == 0 and "--merge-into" in out and "--plot" in out, "fit --help")
        rc, _, err = run("fit", "--tolerance", "abc")
        check(rc == 64 and "--tolerance" in err, f"bad --tolerance: {rc} {err}")
        rc, _, err = run("fit", "--bogus")
        check(rc == 64 and err.count("\n") == 1, f"unknown option: {rc} {err}")
        rc, _, err = run("fit", "--db", os.path.join(tmp, "none.db"))
        check(rc == 66 and "none.db" in err, f"missing db: {rc} {err}")

        # (b) reference data
        db = os.path.join(tmp, "ref.db")
        rc, _, err = run("import", "--db", db, os.path.join(REF, "h200-pcie-copies.csv"))
        check(rc == 0, f"import copies: {err}")
        rc, _, err = run("import", "--db", db, "--link", "nvlink",
                         os.path.join(REF, "azure-nd-h200-v5-allreduce-nvls-8gpu.csv"))
        check(rc == 0, f"import azure: {err}")
        rc, _, err = run("import", "--db", db, os.path.join(REF, "h200-1gpu-allreduce-nccl-tests.txt"))
        check(rc == 0, f"import 1-gpu allreduce: {err}")
        for op in ("h2d", "d2h", "d2d"):
            check_within("h200-pcie-copies.csv", fit_json(db, "--op", op, "--tolerance", "0.08")["fits"], 0.08)
        res = fit_json(db, "--op", "allreduce", "--ranks", "8", "--tolerance", "0.08", "--label-algo", "nvls")
        check(len(res["fits"]) == 1 and res["fits"][0]["algo"] == "nvls", "azure: one nvls curve")
        check_within("azure-nd-h200-v5-allreduce-nvls-8gpu.csv", res["fits"], 0.08)
        res = fit_json(db, "--op", "allreduce", "--ranks", "1", "--tolerance", "0.08")
        check(len(res["fits"]) == 1 and not res["fits"][0]["in_place"], "1-gpu: out-of-place chosen")
        check_within("h200-1gpu-allreduce-nccl-tests.txt", res["fits"], 0.08)

        # profile out, merge, reload; scalars from flags
        prof = os.path.join(tmp, "p.json")
        rows0 = fit_rows(db)
        rc, out, err = run("fit", "--db", db, "--op", "h2d", "--out", prof, "--name", "t1", "--launch-us", "3.5",
                           "--base", "none")
        check(rc == 0 and "written" in out, f"fit --out: {err}")
        check(fit_rows(db) > rows0, "fit stored rows")
        rc, out, err = run("fit", "--db", db, "--op", "d2h", "--merge-into", prof, "--issue-us", "2.125")
        check(rc == 0, f"fit --merge-into: {err}")
        p = json.load(open(prof))
        check(p["format"] == "fusim-profile-1" and p["name"] == "t1", "profile header")
        check(p["launch_us"] == 3.5 and p["issue_us"] == 2.125, "profile scalars kept and set")
        check(sorted(c["op"] for c in p["curves"]) == ["d2h", "h2d"], "profile curves merged")

        # failures leave the database as it was
        rows1 = fit_rows(db)
        bad = os.path.join(tmp, "bad.json")
        with open(bad, "w") as f:
            f.write('{"format": "fusim-profile-1", "curves": [{"op": "h2d"}]}')
        rc, _, err = run("fit", "--db", db, "--merge-into", bad)
        check(rc == 65 and "bad.json" in err and "curves[0]" in err, f"bad base profile: {rc} {err}")
        rc, _, err = run("fit", "--db", db, "--out", os.path.join(tmp, "no", "such", "dir.json"))
        check(rc != 0 and "dir.json" in err, f"unwritable --out: {rc} {err}")
        check(fit_rows(db) == rows1, "database unchanged after failures")
        rc, _, err = run("fit", "--db", db, "--op", "gemm")
        check(rc == 66 and "no samples" in err, f"no samples: {rc} {err}")

        # csv
        rc, out, _ = run("fit", "--db", db, "--op", "h2d", "--format", "csv", "--no-store")
        lines = out.splitlines()
        check(rc == 0 and lines[0].startswith("record,op,link,ranks") and
              sum(l.startswith("point,h2d") for l in lines) == 15, "csv output")
        check(fit_rows(db) == rows1, "--no-store stores nothing")

        # plots
        if shutil.which("gnuplot"):
            for ext in ("png", "svg"):
                img = os.path.join(tmp, "fit." + ext)
                rc, _, err = run("fit", "--db", db, "--op", "allreduce", "--plot", img, "--no-store")
                check(rc == 0 and os.path.getsize(img) > 1000, f"--plot {ext}: {err}")
        env = dict(os.environ, PATH=tmp)
        rc, _, err = run("fit", "--db", db, "--plot", os.path.join(tmp, "x.png"), env=env)
        check(rc == 64 and "gnuplot" in err, f"--plot without gnuplot: {rc} {err}")
        rc, _, err = run("fit", "--db", db, "--plot", os.path.join(tmp, "x.jpg"))
        check(rc == 64 and ".png or .svg" in err, f"--plot bad extension: {rc} {err}")
        # an output folder that is not there: one line before fitting, database as it was (it
        # printed gnuplot's own five-line complaint and two more lines)
        # (the folder is checked with the options, before gnuplot is looked for: the same line
        # where gnuplot is missing, as on the H200 machine)
        rows0 = fit_rows(db)
        rc, out, err = run("fit", "--db", db, "--plot", os.path.join(tmp, "nodir", "x.png"))
        check(rc == 64 and err.count("\n") == 1 and "No such file or directory" in err and not out and
              fit_rows(db) == rows0, f"--plot into a missing folder: {rc} {err!r}")

        # (d) calib variants
        root = os.environ.get("FUSIM_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
        sql = os.path.join(root, "data", "calibration", "h200-pcie-2026-12-02.sql")
        cdb = os.path.join(tmp, "calib.db")
        c = sqlite3.connect(cdb)
        with open(sql) as f:
            c.executescript(f.read())
        n_h2d = c.execute("SELECT count(*) FROM samples WHERE op='h2d' AND algo IS NULL AND proto IS NULL").fetchone()[0]
        n_ar = c.execute("SELECT count(*) FROM samples WHERE op='allreduce' AND dtype='float' AND algo IS NULL "
                         "AND proto IS NULL AND graph=0 AND in_place=0").fetchone()[0]
        n_pack = c.execute("SELECT count(*) FROM samples WHERE op='pack' AND link='hbm' AND algo LIKE 'k=%' "
                           "AND proto IS NULL").fetchone()[0]
        c.close()

        def one_fit(*args):
            fits = fit_json(cdb, "--no-store", *args)["fits"]
            check(len(fits) == 1, f"calib {args}: one curve, got {[(f['op'], f['algo']) for f in fits]}")
            return fits[0] if fits else {"algo": None, "n_samples": -1, "proto": None, "dtype": None, "graph": None}

        f = one_fit("--op", "h2d")
        check(f["algo"] == "" and f["proto"] == "" and f["n_samples"] == n_h2d, f"h2d plain: {f['algo']} {f['n_samples']}")
        f = one_fit("--op", "h2d", "--algo", "pageable")
        check(f["algo"] == "pageable" and f["n_samples"] == n_h2d, f"h2d pageable: {f['algo']}")
        f = one_fit("--op", "d2h", "--link", "pcie_d2h", "--proto", "queued")
        check(f["algo"] == "queued" and f["proto"] == "queued", f"d2h queued: {f['algo']}")
        f = one_fit("--op", "allreduce", "--ranks", "1")
        check(f["algo"] == "" and f["dtype"] == "float" and not f["graph"] and not f["in_place"] and
              f["n_samples"] == n_ar, f"allreduce default selection: {f['dtype']} {f['n_samples']} vs {n_ar}")
        f = one_fit("--op", "allreduce", "--dtype", "bf16", "--graph", "1", "--proto", "LL")
        check(f["algo"] == "LL+cg" and f["dtype"] == "bf16" and f["graph"], f"allreduce bf16 LL graph: {f['algo']}")
        f = one_fit("--op", "pack", "--link", "hbm")
        check(f["algo"] == "" and f["n_samples"] == n_pack, f"pack: all k one curve: {f['n_samples']} vs {n_pack}")
        f = one_fit("--op", "pack", "--link", "pcie_d2h", "--algo", "pack+d2h")
        check(f["algo"] == "pack+d2h", f"pack+d2h: {f['algo']}")
        rc, _, err = run("fit", "--db", cdb, "--graph", "2")
        check(rc == 64 and "--graph" in err, f"--graph 2: {rc} {err}")
        rc, _, err = run("fit", "--db", cdb, "--op", "h2d", "--algo", "nosuch")
        check(rc == 66 and "no samples" in err and "nosuch" in err, f"--algo nosuch: {rc} {err}")
        cprof = os.path.join(tmp, "calib.json")
        rc, _, err = run("fit", "--db", cdb, "--no-store", "--algo", "any", "--out", cprof, "--pack-handoff-us", "6.5")
        check(rc == 0 and "odd" in err and "skipped" in err, f"--algo any: {rc} {err}")
        rc, _, err = run("fit", "--db", cdb, "--no-store", "--op", "bidir", "--merge-into", cprof)
        check(rc == 0, f"reload of a profile with variant curves: {err}")
        p = json.load(open(cprof))
        labels = {(c["op"], c["algo"]) for c in p["curves"]}
        check({("h2d", ""), ("h2d", "pageable"), ("pack", ""), ("pack", "pack+d2h"), ("d2h", "separate")} <= labels,
              f"variant curves in the profile: {sorted(labels)}")
        check(p["pack_handoff_us"] == 6.5, "pack_handoff_us kept through --merge-into")

        # (c) public nccl-tests logs
        for name in sorted(os.listdir(PUB)):
            if not name.endswith(".txt"):
                continue
            pdb = os.path.join(tmp, name + ".db")
            rc, _, err = run("import", "--db", pdb, os.path.join(PUB, name))
            check(rc == 0, f"import {name}: {err.strip()}")
            if rc != 0:
                continue
            # a100x8-nvlink-sendrecv has 4 sizes and a step between the first two: within 10% it
            # took two exact 2-point segments, the first claiming 633 GB/s (A100 NVLink carries
            # 300). Segments keep 3 points now, so one line misses two sizes by 11% and 15%.
            tol = 0.16 if name == "a100x8-nvlink-sendrecv.txt" else 0.10
            fits = fit_json(pdb, "--tolerance", "0.10")["fits"]
            check_within(name, fits, tol)
            check_monotone(name, fits)

        # (e) no fitted price falls where the data does not: every public log and the reference
        # copies, default and --robust fits
        logs = [os.path.join(PUB, n) for n in sorted(os.listdir(PUB)) if n.endswith(".txt")]
        logs += [os.path.join(PUB, "multi-node", n) for n in sorted(os.listdir(os.path.join(PUB, "multi-node")))
                 if n.endswith(".txt")]
        logs += [os.path.join(REF, n) for n in ("h200-pcie-copies.csv", "azure-nd-h200-v5-allreduce-nvls-8gpu.csv")]
        for path in logs:
            mdb = os.path.join(tmp, "mono-" + os.path.basename(path) + ".db")
            rc, _, err = run("import", "--db", mdb, path)
            check(rc == 0, f"import {path}: {err.strip()}")
            for extra in ([], ["--robust"]):
                check_monotone(os.path.basename(path) + " " + " ".join(extra), fit_json(mdb, "--no-store", *extra)["fits"])

        # (f) a network segment is checked against the network's limit, not NVLink's: 2 nodes of
        # one H100 each; all-reduce at 300 GB/s busbw is over what one 800 Gb/s NIC a GPU allows
        # (200: each node sends half the message), all-gather at 75 GB/s busbw is under its 100
        ndb = os.path.join(tmp, "net.db")
        rc, _, err = run("import", "--db", ndb, os.path.join(HERE, "data", "net-over-nic.csv"))
        check(rc == 0, f"import net-over-nic.csv: {err.strip()}")
        flags = {f["op"]: [s["over_link_limit"] for s in f["segments"]]
                 for f in fit_json(ndb, "--no-store", "--gpu", "H100")["fits"] if f["link"] == "net"}
        check(flags == {"allreduce": [True], "allgather": [False]}, f"net over the NIC's limit: {flags}")
        rc, out, _ = run("fit", "--db", ndb, "--no-store", "--gpu", "H100", "--op", "allreduce")
        check(rc == 0 and "FLAGGED: over_link_limit" in out, f"net over the NIC's limit, table: {out}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"test_cli_fit: {passed} checks passed, {failed} failed", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
