#!/usr/bin/env python3
"""test_decomp.py: tools/torch_decomp.py, the split of a real-PyTorch row's error into parts, on
hand-made data with answers derived by hand.

host_charges: a trace whose host thread holds DDP's forward (100 us, before the first 'bwd'
launch), a hook (10), a bucket issue (20) and DDP's finalize (5) after it, and the workload's own
host work (category 'host,workload', never a charge); a 'host' event on another thread (1000) is not
the host thread's. -> (100, 35, 0); with the hook pattern's overlap off the issue moves to the
rest -> (100, 15, 20).

split: plan iterations 110 / 130 / 120, compute-only 100 / 105 / 112: medians 120 and 105, so the
stored overhead is 15; same-round differences 10 / 25 / 8, median 10: noise -5. Simulated
compute-only 107: base +2. CPU [fwd, bwd, rest] per round, plan minus compute-only: fwd 0 / 1 / 1
(median 1), bwd 5 / 6 / 12 (6), rest 0 / 0 / 1 (0); charged (3, 8, 0): fwd +2, bwd +2, rest 0.
Predicted 125: error 125 - 120 = 5, so other = 5 - (-5 + 2 + 2 + 2 + 0) = 4; the parts add up to
the error.

misses: rows of 100 us with errors -10 (bwd -7 leads), 200 us with -12 (-6%: noise -8 leads),
100 us with +6 (fwd +4 leads) and 100 us with -3 (within 5%, left out): too fast 2, mean noise
(-2% - 4%) / 2 = -3%, bwd (-7% - 1.5%) / 2 = -4.25%, fwd +0.25%, other -1%; too slow 1, fwd +4%.

Bad input: a run whose rounds lack their CPU times (runs before 8), after a good-looking one, is
one line on stderr and exit 65 before anything is predicted or printed. Options after `--` go to
the store (an unknown one is refused by the store's own line)."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import torch_decomp as td  # noqa: E402


def same(name, got, want, tol=1e-9):
    """Prints and returns whether each number of got is within tol of want's."""
    got, want = tuple(got), tuple(want)
    ok = len(got) == len(want) and all(abs(g - w) <= tol for g, w in zip(got, want))
    print("%s %s: got %r, want %r" % ("ok  " if ok else "FAIL", name, got, want))
    return ok


def meta(tid, name):
    return {"ph": "M", "name": "thread_name", "pid": 1, "tid": tid, "args": {"name": name}}


def ev(tid, name, cat, ts, dur):
    return {"ph": "X", "pid": 1, "tid": tid, "name": name, "cat": cat, "ts": ts, "dur": dur}


TRACE = [meta(2, "compute stream"), meta(3, "host thread"),
         ev(3, "DDP forward", "host", 0, 100), ev(3, "forward", "host,workload", 100, 50),
         ev(3, "bwd -> a", "host,workload", 150, 30), ev(3, "hook a", "host", 180, 10),
         ev(3, "issue b0", "host", 190, 20), ev(3, "DDP finalize", "host", 210, 5),
         ev(3, "optimizer", "host,workload", 215, 40), ev(2, "issue b0", "host", 160, 1000)]


def main():
    ok = same("charges before / in / after backward", td.host_charges(TRACE, False), (100, 35, 0))
    ok &= same("overlap off: the issue after backward", td.host_charges(TRACE, True), (100, 15, 20))
    ok &= same("no backward launch: every charge before backward",
               td.host_charges([meta(3, "host thread"), ev(3, "DDP forward", "host", 0, 7)], False),
               (7, 0, 0))
    p = td.split([110, 130, 120], [100, 105, 112],
                 [[10, 20, 5], [12, 22, 5], [11, 30, 6]], [[10, 15, 5], [11, 16, 5], [10, 18, 5]],
                 125, 107, (3, 8, 0))
    ok &= same("noise, base, fwd, bwd, rest, other", (p[k] for k in td.PARTS), (-5, 2, 2, 2, 0, 4))
    ok &= same("the parts add up to the error", (sum(p.values()),), (5,))
    z = dict.fromkeys(td.PARTS, 0)
    got = td.misses([("w", "a", 100, -10, dict(z, noise=-2, bwd=-7, other=-1)),
                     ("w", "b", 200, -12, dict(z, noise=-8, fwd=1, bwd=-3, other=-2)),
                     ("w", "a", 100, 6, dict(z, noise=1, fwd=4, bwd=1)),
                     ("w", "c", 100, -3, dict(z, bwd=-3))])
    n, mean, lead, plans = got["fast"]
    ok &= same("too fast: count, noise, base, fwd, bwd, rest, other",
               [n] + [mean[k] for k in td.PARTS], (2, -3, 0, 0.25, -4.25, 0, -1))
    ok &= same("... led by bwd once, noise once; plans a, b", (lead.get("bwd"), lead.get("noise"),
                                                             plans.get("a"), plans.get("b"),
                                                             len(lead), len(plans)),
               (1, 1, 1, 1, 2, 2), 0)
    n, mean, lead, plans = got["slow"]
    ok &= same("too slow: count, fwd, led by fwd", (n, mean["fwd"], lead.get("fwd")), (1, 4, 1))
    with tempfile.TemporaryDirectory() as d:
        good, old = os.path.join(d, "good"), os.path.join(d, "old")
        model = {"workload": "w", "compute_only_times_us": [1], "compute_only_cpu_times_us": [[1, 2, 3]],
                 "rows": [{"plan_label": "ddp none", "cpu_times_us": [[1, 2, 3]]}]}
        before8 = {k: v for k, v in model.items() if k != "compute_only_cpu_times_us"}
        for path, m in ((good, model), (old, before8)):
            os.makedirs(path)
            with open(os.path.join(path, "runs.json"), "w") as f:
                json.dump({"format": "fusim-torch-validation-1", "models": [m]}, f)
        p = subprocess.run([sys.executable, td.__file__, good, old, "--fusim", "/nonexistent"],
                           capture_output=True, text=True)
        err = p.stderr.splitlines()
        ok &= same("a run without CPU times: exit 65, one line, nothing printed",
                   (p.returncode, len(err), len(p.stdout)), (65, 1, 0), 0)
        ok &= same("... the line names that run", ("/old/runs.json" in (err or [""])[0],), (True,), 0)
        # options after `--` go to the store's prediction: one it does not know is refused there,
        # by the store's own line (the old torch_decomp read it as a run directory: exit 65)
        p = subprocess.run([sys.executable, td.__file__, good, "--", "--bogus-option"],
                           capture_output=True, text=True)
        last = (p.stderr.strip().splitlines() or [""])[-1]
        ok &= same("-- --bogus-option reaches the store, which refuses it",
                   (p.returncode != 0, "store_torch_validation failed" in last,
                    "unrecognized arguments: --bogus-option" in last), (True, True, True), 0)
    print("test_decomp: %s" % ("passed" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
