#!/usr/bin/env python3
"""test_default_vs_validation.py FUSIM: the embedded default profile against the H200
measurements of the validation run (data/validation/h200_offload_matrix_run2.csv: real
training iterations of four workloads under 12 plans each, gradient offload over PCIe), none
of which the profile was fitted on. Each row is re-predicted with `fusim predict` on the
workload scaled to that run's compute-only median, as `fusim validate` does (with the profile
the run used, the reference-fitted default of commit 1a5e77c, this reproduced all 40 stored
predictions within 0.1 us). "optimal" plans are skipped: their buckets depend on the profile.
Targets are the validation issue's: median |error| <= 3% and no row above 8%. Prints every row.
test_default_vs_validation.py FUSIM PROFILE: the same with that profile instead of the embedded
one (e.g. one refitted from another lease's calibration, data/calibration/README.md)."""
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

FUSIM = os.path.abspath(sys.argv[1])
PROFILE = ["--profile", sys.argv[2]] if len(sys.argv) > 2 else []
ROOT = os.environ.get("FUSIM_SOURCE_ROOT", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CSV = os.path.join(ROOT, "data", "validation", "h200_offload_matrix_run2.csv")
WL = {"resnet50_b64": "resnet50", "bert_large_b8": "bert_large", "resnet50_b64_captured": "resnet50_captured",
      "bert_large_b8_captured": "bert_large_captured"}


def main():
    if not os.path.exists(CSV):
        print(f"{CSV}: missing, skipped", file=sys.stderr)
        return 77
    rows = list(csv.DictReader(l for l in open(CSV) if not l.startswith("#")))
    errs, failed = [], 0
    with tempfile.TemporaryDirectory(prefix="fusim-default-vs-validation-") as tmp:
        for r in rows:
            if "optimal" in r["plan"] or r["workload"] not in WL:
                continue
            w = json.load(open(os.path.join(ROOT, "data", "validation", "workloads", WL[r["workload"]] + ".json")))
            s = float(r["compute_only_us"]) / float(r["workload_compute_us"])
            for k in ("fwd_us", "bwd_us", "opt_us"):
                w[k] *= s
            for g in w["grads"]:
                g["ready_us"] = min(g["ready_us"] * s, w["bwd_us"])
            wf = os.path.join(tmp, "w.json")
            with open(wf, "w") as f:
                json.dump(w, f)
            parts = r["plan"].split()
            kv = dict(x.split("=", 1) for x in parts[1:])
            p = subprocess.run([FUSIM, "predict", "--workload", wf, "--comm", "offload", "--fusion", parts[0],
                                "--overlap", kv["overlap"], "--pack", kv["pack"], "--comm-streams",
                                kv.get("streams", "1"), "--format", "csv", "--no-store"] + PROFILE,
                               capture_output=True, text=True)
            if p.returncode != 0:
                print(f"FAIL: predict {r['workload']} {r['plan']}: {p.stderr.strip()}", file=sys.stderr)
                failed += 1
                continue
            t = float(list(csv.DictReader(p.stdout.splitlines()))[0]["iter_us"])
            m = float(r["measured_us"])
            e = (t - m) / m
            errs.append(e)
            print(f"{r['workload']:24s} {r['plan']:52s} measured {m:9.1f} us  predicted {t:9.1f} us  "
                  f"{100 * e:+6.2f}%  (run's own prediction {100 * float(r['rel_err']):+6.2f}%)", file=sys.stderr)
            if abs(e) > 0.08:
                print(f"FAIL: {r['workload']} {r['plan']}: {100 * e:+.2f}% beyond 8%", file=sys.stderr)
                failed += 1
    if not errs:
        print("FAIL: no rows", file=sys.stderr)
        return 1
    med = statistics.median(abs(e) for e in errs)
    print(f"default profile vs the validation matrix: {len(errs)} rows, median |error| {100 * med:.2f}%, "
          f"max {100 * max(abs(e) for e in errs):.2f}%, mean {100 * statistics.mean(errs):+.2f}%", file=sys.stderr)
    if med > 0.03:
        print(f"FAIL: median |error| {100 * med:.2f}% above 3%", file=sys.stderr)
        failed += 1
    print(f"test_default_vs_validation: {len(errs) + 1 - failed} checks passed, {failed} failed", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
