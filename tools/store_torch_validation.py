#!/usr/bin/env python3
"""store_torch_validation.py: the CPU half of the real-PyTorch validation (issue 10). Reads a run
of tools/validate_torch.py (RUNDIR/runs.json and the workloads it captured), predicts every row
with `fusim predict` under the same plan, framework and communication, with the buckets the
framework really used, and stores each prediction (by fusim itself, --db) with its measurement,
so that v_prediction_error shows them. Prints the matrix and its summary; --csv writes it.

Compute baseline: as `fusim validate` does, each model's workload is scaled (every host and GPU
time) so that its simulated compute-only step equals the compute-only iteration measured in the
same loop; framework costs (microbenchmarks) and communication are not scaled. The overhead of a
plan is its time minus compute-only, measured and predicted.

    python3 tools/store_torch_validation.py data/validation/torch_h200_run2 --db fusim.db
    python3 tools/store_torch_validation.py RUNDIR --no-store --csv matrix.csv
"""
import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile


def die(msg, status=65):
    print("store_torch_validation: " + msg, file=sys.stderr)
    sys.exit(status)


def fusim_json(fusim, args):
    p = subprocess.run([fusim] + args, capture_output=True, text=True)
    if p.returncode != 0:
        die("fusim %s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr.strip()),
            p.returncode)
    return json.loads(p.stdout)


def scaled(wl, s):
    """The workload with every host and GPU time multiplied by s (framework costs kept)."""
    w = json.loads(json.dumps(wl))
    for k in ("fwd_us", "bwd_us", "opt_us"):
        w[k] = w[k] * s
    for g in w["grads"]:
        g["ready_us"] = g["ready_us"] * s
    h = w.get("host")
    if h and h.get("version") == 2:
        for k in ("fwd_cpu_us", "bwd_cpu_us", "opt_cpu_us", "fwd_gpu_us", "bwd_gpu_us",
                  "opt_gpu_us"):
            h[k] = h[k] * s
        h["grad_cpu_us"] = [t * s for t in h["grad_cpu_us"]]
        h["grad_gpu_us"] = [t * s for t in h["grad_gpu_us"]]
        h["fwd_points"] = [[c * s, g * s] for c, g in h.get("fwd_points", [])]
    w["name"] = wl["name"] + "_x%.4f" % s
    w["notes"] = (wl.get("notes") or "") + " Scaled by %.5f to the run's compute-only iteration." % s
    return w


def plan_args(row):
    a = ["--comm", "allreduce:1:nvlink" if row["comm"].startswith("allreduce") else "offload",
         "--framework", row["framework"], "--overlap", row["overlap"], "--pack", row["pack"]]
    return a


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rundir")
    ap.add_argument("--fusim", default=os.path.join(os.path.dirname(__file__), "..", "build", "fusim"))
    ap.add_argument("--db", help="results database (default: $FUSIM_DB, else fusim.db)")
    ap.add_argument("--profile", help="profile for fusim predict (default: the bundled one)")
    ap.add_argument("--no-store", action="store_true")
    ap.add_argument("--csv", help="write the matrix here")
    a = ap.parse_args()
    path = os.path.join(a.rundir, "runs.json")
    if not os.path.isfile(path):
        die("%s: no such file (a run of tools/validate_torch.py)" % path, 66)
    with open(path) as f:
        run = json.load(f)
    if run.get("format") != "fusim-torch-validation-1" or not run.get("models"):
        die("%s: not a validation run with models" % path)
    db = a.db or os.environ.get("FUSIM_DB") or "fusim.db"
    prof = ["--profile", a.profile] if a.profile else []
    commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or None
    tmp = tempfile.mkdtemp(prefix="fusim-torchval-")
    rows = []
    for m in run["models"]:
        wpath = os.path.join(a.rundir, "wl_%s.json" % m["workload"])
        with open(wpath) as f:
            wl = json.load(f)
        order = [g["name"] for g in wl["grads"]]
        # compute-only step as simulated (no communication, no framework): the JSON's compute_us
        base = fusim_json(a.fusim, ["predict", "--workload", wpath, "--no-store", "--format", "json",
                                    "--fusion", "single", "--comm", "offload"] + prof)
        s = m["compute_only_us"] / base["compute_us"]
        ws = scaled(wl, s)
        spath = os.path.join(tmp, "%s.json" % ws["name"])
        with open(spath, "w") as f:
            json.dump(ws, f)
        for r in m["rows"]:
            fusion = r["fusion"]
            if r.get("buckets"):
                bfile = os.path.join(tmp, "%s_%s.buckets.json" % (m["workload"],
                                                                  r["plan_label"].replace(" ", "_")))
                with open(bfile, "w") as f:
                    json.dump(r["buckets"], f)
                # the framework's own buckets; fusim's rule when it gives the same ones
                rule = fusim_json(a.fusim, ["predict", "--workload", spath, "--no-store", "--format",
                                            "json", "--fusion", fusion] + plan_args(r) + prof)
                mine = [[order[i] for i in range(b["first"], b["last"] + 1)] for b in rule["buckets"]]
                same = sorted(sorted(b) for b in mine) == sorted(sorted(b) for b in r["buckets"])
                if not same:
                    fusion = "buckets:" + bfile
            args = ["predict", "--workload", spath, "--format", "json", "--fusion", fusion] + \
                plan_args(r) + prof
            args += ["--no-store"] if a.no_store else ["--db", db]
            p = fusim_json(a.fusim, args)
            meas, co = r["measured_us"], r["compute_only_us"]
            ov_m, ov_p = meas - co, p["iter_us"] - p["compute_us"]
            row = {
                "workload": m["workload"], "plan": r["plan_label"], "fusim_plan": p["plan"],
                "framework": r["framework"], "comm": r["comm"], "rule_buckets": fusion == r["fusion"],
                "measured_us": meas, "predicted_us": p["iter_us"],
                "lo_us": p["iter_lo_us"], "hi_us": p["iter_hi_us"],
                "rel_err": (p["iter_us"] - meas) / meas,
                "compute_only_us": co, "overhead_measured_us": ov_m, "overhead_predicted_us": ov_p,
                "overhead_err_us": ov_p - ov_m,
                "overhead_ok": abs(ov_p - ov_m) <= max(0.15 * abs(ov_m), 300.0),
                "inside": p["iter_lo_us"] <= meas <= p["iter_hi_us"],
                "p5_us": r["p5_us"], "p95_us": r["p95_us"], "iterations": len(r["times_us"]),
                "n_buckets": p["n_ops"], "scale": s,
            }
            rows.append(row)
            if not a.no_store:
                con = sqlite3.connect(db)
                try:
                    with con:
                        pid = con.execute("SELECT max(id) FROM predictions").fetchone()[0]
                        ck = m.get("clocks_sm_mhz_power_w_temp_c") or [None, None]
                        con.execute(
                            "INSERT INTO measurements (prediction_id, measured_us, spread_us, "
                            "iterations, compute_only_us, sm_clock_mhz_start, sm_clock_mhz_end, "
                            "power_w, git_commit, json) VALUES (?,?,?,?,?,?,?,?,?,?)",
                            (pid, meas, r["p95_us"] - r["p5_us"], len(r["times_us"]), co,
                             ck[0][0] if ck[0] else None, ck[-1][0] if ck[-1] else None,
                             ck[-1][1] if ck[-1] else None, commit,
                             json.dumps({"harness": "tools/validate_torch.py", "run": path,
                                         "plan_label": r["plan_label"],
                                         "machine": run["machine"], "command": run["command"],
                                         "overhead_measured_us": ov_m,
                                         "overhead_predicted_us": ov_p,
                                         "times_us": r["times_us"]})))
                finally:
                    con.close()
    # the matrix and its summary
    hdr = ["workload", "plan", "framework", "comm", "n_buckets", "rule_buckets", "compute_only_us",
           "measured_us", "predicted_us", "rel_err", "lo_us", "hi_us", "inside",
           "overhead_measured_us", "overhead_predicted_us", "overhead_ok", "p5_us", "p95_us"]
    lines = [",".join(hdr)]
    for r in rows:
        lines.append(",".join(("%.6f" % r[k]) if isinstance(r[k], float) else
                              ('"%s"' % r[k] if isinstance(r[k], str) else str(int(r[k]) if isinstance(r[k], bool) else r[k]))
                              for k in hdr))
    errs = [abs(r["rel_err"]) for r in rows]
    summ = []
    summ.append("rows %d: median |error| %.2f%%, max %.2f%% (%s / %s); interval holds %d/%d; "
                "overhead within 15%% or 300 us: %d/%d"
                % (len(rows), 100 * statistics.median(errs), 100 * max(errs),
                   rows[errs.index(max(errs))]["workload"], rows[errs.index(max(errs))]["plan"],
                   sum(r["inside"] for r in rows), len(rows), sum(r["overhead_ok"] for r in rows),
                   len(rows)))
    for wname in dict.fromkeys(r["workload"] for r in rows):
        rs = [r for r in rows if r["workload"] == wname]
        best_p = min(rs, key=lambda r: r["predicted_us"])
        best_m = min(rs, key=lambda r: r["measured_us"])
        e = [abs(r["rel_err"]) for r in rs]
        summ.append("%s: median %.2f%% max %.2f%%; fusim's fastest '%s' measured %.0f us, "
                    "fastest measured '%s' %.0f us (%+.2f%%)"
                    % (wname, 100 * statistics.median(e), 100 * max(e), best_p["plan"],
                       best_p["measured_us"], best_m["plan"], best_m["measured_us"],
                       100 * (best_p["measured_us"] / best_m["measured_us"] - 1)))
    out = "\n".join(lines) + "\n"
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("".join("# %s\n" % s for s in summ) + out)
    for r in rows:
        print("%-32s %-26s %9.0f %9.0f %+6.2f%%  ov %7.0f / %7.0f %s%s"
              % (r["workload"], r["plan"], r["measured_us"], r["predicted_us"], 100 * r["rel_err"],
                 r["overhead_measured_us"], r["overhead_predicted_us"],
                 "ok" if r["overhead_ok"] else "--", " in" if r["inside"] else " OUT"))
    print("\n".join(summ))
    return 0


if __name__ == "__main__":
    sys.exit(main())
