#!/usr/bin/env python3
"""test_run_report.py: tools/torch_run_report.py on a hand-made model (no torch, no GPU).

Four parameters; compute-only backward() CPU per round 100 / 200 / 150 / 400 us; DDP copy-mode
plans with 4, 2 and 1 buckets whose backward() CPU is the same round's compute-only plus
4 x 30 us per parameter plus 50 us per bucket, and round 4 slowed by a further 1000 us for every
plan (a same-round effect the paired medians must cancel). The line must give 30 us per parameter,
50 us per bucket and zero residuals; a bucket-view plan and a hook-pattern plan are left out.
Then the hook pattern's line through its per-tensor and 25 MiB plans and the 4 MiB plan's
residual, built the same way (70 us a bucket, 40 a parameter, 300 us above the line).
The baseline twin (validate_torch --baseline-twin): compute-only steps 1000 / 1100 / 900 / 1300 us
with CPU [fwd, bwd, rest] [300, c, 50] (c as above), the twin's steps 1010 / 1090 / 950 / 1305 and
CPU [250, c + 20, 50] but round 4's forward 900: step differences 10 / -10 / 50 / 5 (median 7.5),
forward -50 / -50 / -50 / 600 (median -50), backward() 20, rest 0; none without the twin.
Bad input: a runs.json that is not a validation run, one whose rounds lack their CPU times (runs
before 8), a folder without one, and unreadable JSON are each one line on stderr and exit 65,
nothing on stdout; data/validation/spacing_compare.py the same (exit 65), and also for a missing
capture; a capture without costs measured on the model is said on stdout.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import torch_run_report as rr  # noqa: E402

SPACING_COMPARE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data",
                               "validation", "spacing_compare.py")


def check(name, got, want, tol):
    ok = abs(got - want) <= tol
    print("%s %-40s %10.4f  want %10.4f (+-%g)" % ("ok  " if ok else "FAIL", name, got, want, tol))
    return ok


def main():
    co = [100.0, 200.0, 150.0, 400.0]
    names = ["a", "b", "c", "d"]
    buckets = {4: [["a"], ["b"], ["c"], ["d"]], 2: [["a", "b"], ["c", "d"]], 1: [names]}

    def row(label, nb, view=False, runner="ddp", extra=0.0):
        cpu = [[0.0, c + 4 * 30 + nb * 50 + extra + (1000 if k == 3 else 0), 0.0]
               for k, c in enumerate(co)]
        return {"plan_label": label, "runner": runner, "gradient_as_bucket_view": view,
                "buckets": buckets[nb], "cpu_times_us": cpu}
    m = {"compute_only_cpu_times_us": [[0.0, c, 0.0] for c in co],
         "rows": [row("ddp none", 4), row("ddp 2", 2), row("ddp one", 1),
                  row("ddp view", 1, view=True, extra=-500), row("hooks", 2, runner="hooks",
                                                                 extra=900)]}
    per_param, per_bucket, res = rr.ddp_line(m)
    ok = check("per parameter", per_param, 30.0, 1e-9)
    ok &= check("per bucket", per_bucket, 50.0, 1e-9)
    ok &= check("plans in the line", len(res), 3, 0)
    ok &= check("largest residual", max(abs(r[2]) for r in res), 0.0, 1e-9)
    # the hook pattern: 4 tensors, 70 us a bucket, 40 a parameter; the 4 MiB plan (2 buckets)
    # 300 us above that line
    m["rows"] = [row("hooks none", 4, runner="hooks", extra=4 * 10 + 4 * 20),
                 row("hooks 4MiB", 2, runner="hooks", extra=4 * 10 + 2 * 20 + 300),
                 row("hooks 25MiB", 1, runner="hooks", extra=4 * 10 + 1 * 20)]
    slope, per_param, nb, resid = rr.hooks_line(m)
    ok &= check("hooks per bucket", slope, 70.0, 1e-9)
    ok &= check("hooks per parameter", per_param, 40.0, 1e-9)
    ok &= check("hooks 4 MiB residual", resid, 300.0, 1e-9)
    # DDP's offload hook against its default all-reduce, the same 2 buckets: 100 us more a
    # bucket in the loop (200 a round, round 4 +1000 for both); the tower's 150 - 60 carried by
    # the autograd probe, loop median 12 over the tower's 10: 108
    m["rows"] = [row("ddp 4MiB", 2), row("ddp offload 4MiB", 2, extra=200.0)]
    m["host_bwd_probe_us"] = [11.0, 12.0, 13.0]
    fw = {"ddp": {"hook_bucket_us": 150.0, "bucket_us": 60.0}, "bwd_probe_us": 10.0}
    gap, charged, nb = rr.offload_gap(m, fw)
    ok &= check("offload per bucket in the loop", gap, 100.0, 1e-9)
    ok &= check("... the tower's difference carried", charged, 108.0, 1e-9)
    ok &= check("... buckets", nb, 2, 0)
    # the same against the buckets' spacing: compute-only backward() CPU median 175 us, so the
    # 4 MiB pair's 2 buckets are 87.5 us apart (100 us each, as above); a default pair of one
    # bucket 300 us dearer is 175 apart; on the model 90 - 60 = 30 us a bucket at 160 / 4 = 40
    m["rows"] += [row("ddp default", 1), row("ddp offload default", 1, extra=300.0)]
    fm = {"P": 4, "bwd_cpu_us": 160.0, "ddp_hook_bucket_us": 90.0, "ddp_bucket_us": 60.0}
    sp = rr.offload_spacing(m, fm)
    ok &= check("spacing: three points", len(sp), 3, 0)
    for (where, nb, apart, per), want in zip(sp, [("model", 4, 40.0, 30.0), ("4MiB", 2, 87.5, 100.0),
                                                  ("default", 1, 175.0, 300.0)]):
        ok &= check("spacing %s: buckets" % want[0], nb, want[1], 0)
        ok &= check("spacing %s: us apart" % want[0], apart, want[2], 1e-9)
        ok &= check("spacing %s: us per bucket" % want[0], per, want[3], 1e-9)
    ok &= check("spacing without ddpo_n: loop only", len(rr.offload_spacing(m, {"P": 4})), 2, 0)
    m["rows"] = m["rows"][:2]
    m["rows"][1]["buckets"] = buckets[4]
    ok &= check("different buckets: none", rr.offload_gap(m, fw) is None, True, 0)
    ok &= check("different buckets: no spacing", rr.offload_spacing(m, None) == [], True, 0)
    # the hook pattern's issue inside backward against its spacing: over the 25 MiB overlap-off
    # plan (1 bucket, issued after backward), 4 buckets 30 us each (175 / 4 = 43.75 us apart),
    # 2 buckets 60 us each (87.5 apart), 1 bucket 90 us (175 apart); row() adds 50 us a bucket
    # to every plan, which extra takes back to those: extra = buckets x (cost - 50) + 50
    m["rows"] = [row("hooks none", 4, runner="hooks", extra=4 * (30 - 50) + 50),
                 row("hooks 4MiB", 2, runner="hooks", extra=2 * (60 - 50) + 50),
                 row("hooks 25MiB", 1, runner="hooks", extra=90),
                 row("hooks 25MiB overlap off", 1, runner="hooks")]
    hs = rr.hooks_spacing(m)
    ok &= check("hooks spacing: three plans", len(hs), 3, 0)
    for (lab, nb, apart, per), want in zip(hs, [("none", 4, 43.75, 30.0), ("4MiB", 2, 87.5, 60.0),
                                                ("25MiB", 1, 175.0, 90.0)]):
        ok &= check("hooks spacing %s: buckets" % lab, nb, want[1], 0)
        ok &= check("hooks spacing %s: us apart" % lab, apart, want[2], 1e-9)
        ok &= check("hooks spacing %s: us per bucket" % lab, per, want[3], 1e-9)
    ok &= check("hooks spacing without overlap off: none", len(rr.hooks_spacing(
        {"rows": m["rows"][:3], "compute_only_cpu_times_us": m["compute_only_cpu_times_us"]})), 0, 0)
    m["rows"] = [row("hooks none", 4, runner="hooks", extra=4 * 10 + 4 * 20),
                 row("hooks 4MiB", 2, runner="hooks", extra=4 * 10 + 2 * 20 + 300)]
    ok &= check("hooks without 25 MiB: no line", rr.hooks_line(m) is None, True, 0)
    ok &= check("two plans: no line", rr.ddp_line(m) is None, True, 0)
    m["compute_only_times_us"] = [1000.0, 1100.0, 900.0, 1300.0]
    m["compute_only_cpu_times_us"] = [[300.0, c, 50.0] for c in co]
    ok &= check("no twin: no baseline", rr.baseline_twin(m) is None, True, 0)
    m["loop_probes"] = {"baseline twin": {
        "times_us": [1010.0, 1090.0, 950.0, 1305.0],
        "cpu_times_us": [[900.0 if k == 3 else 250.0, c + 20.0, 50.0] for k, c in enumerate(co)]}}
    for name, got, want in zip(("step", "forward", "backward()", "rest"), rr.baseline_twin(m),
                               (7.5, -50.0, 20.0, 0.0)):
        ok &= check("baseline twin: " + name, got, want, 1e-9)
    ok &= bad_input()
    print("test_run_report: %s" % ("passed" if ok else "FAILED"))
    return 0 if ok else 1


def bad_input():
    """Each bad runs.json: exit 65, one line naming it on stderr, no report."""
    ok = True
    model = {"workload": "w", "compute_only_cpu_times_us": [[1, 2, 3]],
             "rows": [{"plan_label": "ddp none", "cpu_times_us": [[1, 2, 3]]}]}
    cases = (("not a validation run", {"format": "other", "models": [model]}),
             ("no CPU times", {"format": "fusim-torch-validation-1", "models": [
                 dict(model, rows=[{"plan_label": "ddp none"}])]}),
             ("no runs.json", None), ("unreadable JSON", "{"))
    with tempfile.TemporaryDirectory() as d:
        for what, content in cases:
            path = os.path.join(d, "runs.json")
            if os.path.exists(path):
                os.remove(path)
            if content is not None:
                with open(path, "w") as f:
                    f.write(content if isinstance(content, str) else json.dumps(content))
            p = subprocess.run([sys.executable, rr.__file__, d], capture_output=True, text=True)
            err = p.stderr.splitlines()
            # a folder without runs.json is a usage error (64); the others are bad data (65)
            want = 64 if content is None else 65
            ok &= check("%s: exit %d" % (what, want), p.returncode, want, 0)
            ok &= check("%s: one line on stderr" % what, len(err), 1, 0)
            ok &= check("%s: no report" % what, len(p.stdout), 0, 0)
            # data/validation/spacing_compare.py reads runs the same way: exit 65, one line
            p = subprocess.run([sys.executable, SPACING_COMPARE, d], capture_output=True, text=True)
            ok &= check("spacing_compare %s: exit 65, one line" % what,
                        p.returncode == 65 and len(p.stderr.splitlines()) == 1, True, 0)
        # a good run whose capture (wl_w.json) is missing, then one without costs on the model
        with open(os.path.join(d, "runs.json"), "w") as f:
            json.dump({"format": "fusim-torch-validation-1", "models": [model]}, f)
        p = subprocess.run([sys.executable, SPACING_COMPARE, d], capture_output=True, text=True)
        ok &= check("spacing_compare without the capture: exit 65, one line naming it",
                    p.returncode == 65 and len(p.stderr.splitlines()) == 1 and "wl_w.json" in p.stderr,
                    True, 0)
        with open(os.path.join(d, "wl_w.json"), "w") as f:
            json.dump({"meta": {}, "host": {}}, f)
        p = subprocess.run([sys.executable, SPACING_COMPARE, d], capture_output=True, text=True)
        ok &= check("spacing_compare, no costs on the model: said, exit 0",
                    p.returncode == 0 and "no costs measured on the model" in p.stdout, True, 0)
    return ok


if __name__ == "__main__":
    sys.exit(main())
