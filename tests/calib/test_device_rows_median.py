#!/usr/bin/env python3
"""tools/device_rows_median.py by hand (no GPU): three hand-made calibrations of one GPU.
  - GEMM bf16 fwd on a 1 x 1 x 3 grid: runs [10, 20, null], [12, null, null], [11, 22, 40]: the
    medians per point 11, 21, 40 (a point measured by two runs takes their mean, statistics.median);
  - GEMM tf32 fwd [5, null] in every run: a point never measured, so the table is left out and
    named on stderr;
  - an attention point timed 100/200, 90/210, 130/190 us: 100 / 200;
  - an operation table, forward [1, 2] / [3, 4] / [2, 9] at two sizes -> [2, 4], backward likewise;
    its host costs are the base profile's (7 / 8 us), not the runs' (1 / 1); an operation the base
    does not have keeps the runs' median host cost.
Then `fusim fit --compute OUT --merge-into` a copy of the bundled profile: the bf16 table is
replaced, the tf32 one stays the profile's. One NCHW run alone (calib_torch --parts conv,ops_nchw
--conv-format nchw): its conv table keeps its "format" (a key apart from the channels-last table
of the same class: two runs, one of each, are not a median of one table), its batchnorm2d_nchw row
takes the host costs of the base's batchnorm2d (5 / 6 us); merged, the profile has both formats.
Bad input: runs on different grids or naming two GPUs, one line, exit 65.
Usage: test_device_rows_median.py FUSIM"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "device_rows_median.py")
fusim = sys.argv[1]
fails = []


def grid(dtype, us):
    return {"dtype": dtype, "layout": "fwd", "m": [128], "n": [128], "k": [128 << i for i in range(len(us))], "us": us}


def op(name, fwd, bwd, host):
    return {"op": name, "dtype": "bf16", "numel": [1024, 4096], "fwd_us": fwd, "bwd_us": bwd,
            "host_fwd_us": host, "host_bwd_us": host}


def calib(path, bf16, tf32, attn, fwd, bwd, gpu="GPU X"):
    comp = {"gemm": [grid("bf16", bf16), grid("tf32", tf32)],
            "attention": [{"dtype": "bf16", "head_dim": 64, "causal": 0, "dropout": 0.0, "seq": 512, "bh": 64,
                           "fwd_us": attn[0], "bwd_us": attn[1]}],
            "ops": [op("gelu", fwd, bwd, 1.0), op("newop", fwd, bwd, 1.0)]}
    json.dump({"format": "fusim-compute-1", "gpu": gpu, "gpu_mem_bytes": 8e10, "compute": comp}, open(path, "w"))


def check(what, got, want):
    if got != want:
        fails.append("%s: got %r, want %r" % (what, got, want))


with tempfile.TemporaryDirectory() as tmp:
    runs = [os.path.join(tmp, "c%d.json" % i) for i in range(3)]
    calib(runs[0], [10, 20, None], [5, None], (100, 200), [1, 2], [1, 2])
    calib(runs[1], [12, None, None], [5, None], (90, 210), [3, 4], [3, 4])
    calib(runs[2], [11, 22, 40], [5, None], (130, 190), [2, 9], [2, 9])
    base = os.path.join(tmp, "base.json")
    prof = json.load(open(os.path.join(ROOT, "data", "profiles", "h200-default.json")))
    prof["compute"]["ops"] = [op("gelu", [1, 1], [1, 1], 7.0)]
    prof["compute"]["ops"][0]["host_bwd_us"] = 8.0
    json.dump(prof, open(base, "w"))
    out = os.path.join(tmp, "med.json")
    r = subprocess.run([sys.executable, TOOL, out, base] + runs, capture_output=True, text=True)
    check("exit", r.returncode, 0)
    check("tf32 named as left out", "gemm tf32 fwd (1 of 2 points)" in r.stderr, True)
    comp = json.load(open(out))["compute"]
    check("gemm tables", [(t["dtype"], t["us"]) for t in comp["gemm"]], [("bf16", [11, 21, 40])])
    check("attention", [(a["fwd_us"], a["bwd_us"]) for a in comp["attention"]], [(100, 200)])
    ops = {o["op"]: o for o in comp["ops"]}
    check("gelu fwd, bwd", (ops["gelu"]["fwd_us"], ops["gelu"]["bwd_us"]), ([2, 4], [2, 4]))
    check("gelu host from the base", (ops["gelu"]["host_fwd_us"], ops["gelu"]["host_bwd_us"]), (7.0, 8.0))
    check("newop host from the runs", (ops["newop"]["host_fwd_us"], ops["newop"]["host_bwd_us"]), (1.0, 1.0))

    merged = os.path.join(tmp, "merged.json")
    json.dump(json.load(open(os.path.join(ROOT, "data", "profiles", "h200-default.json"))), open(merged, "w"))
    tf32_before = [t for t in json.load(open(merged))["compute"]["gemm"] if (t["dtype"], t["layout"]) == ("tf32", "fwd")]
    r = subprocess.run([fusim, "fit", "--compute", out, "--merge-into", merged], capture_output=True, text=True)
    check("fit exit", r.returncode, 0)
    after = {(t["dtype"], t["layout"]): t for t in json.load(open(merged))["compute"]["gemm"]}
    check("bf16 fwd replaced", after[("bf16", "fwd")]["us"], [11, 21, 40])
    check("tf32 fwd kept", [after[("tf32", "fwd")]], tf32_before)

    # runs timed on different grids: one line, exit 65, nothing written over OUT
    calib(runs[2], [11, 22, 40, 50], [5, None], (130, 190), [2, 9], [2, 9])
    before = open(out).read()
    r = subprocess.run([sys.executable, TOOL, out, base] + runs, capture_output=True, text=True)
    check("grids differ: exit, one line", (r.returncode, len(r.stderr.strip().splitlines())), (65, 1))
    check("grids differ: named", "gemm bf16 fwd: the runs' grids differ" in r.stderr, True)
    check("grids differ: OUT kept", open(out).read(), before)

    # NCHW: a conv table of one class in each format, and an NCHW batch norm row
    conv = {"dtype": "bf16", "layout": "fwd", "kernel": 3, "stride": 1, "m": [64], "n": [64], "k": [576]}
    nchw_run, cl_run = os.path.join(tmp, "nchw.json"), os.path.join(tmp, "cl.json")
    for path, extra, us in ((nchw_run, {"format": "nchw"}, [30.0]), (cl_run, {}, [10.0])):
        json.dump({"format": "fusim-compute-1", "gpu": "GPU X", "compute": {
            "conv": [dict(conv, us=us, **extra)],
            "ops": [op("batchnorm2d_nchw", [4, 8], [6, 12], 1.0)] if extra else []}}, open(path, "w"))
    prof["compute"]["ops"].append(op("batchnorm2d", [1, 1], [1, 1], 5.0))
    prof["compute"]["ops"][-1]["host_bwd_us"] = 6.0
    json.dump(prof, open(base, "w"))
    r = subprocess.run([sys.executable, TOOL, out, base, nchw_run, cl_run], capture_output=True, text=True)
    check("nchw: exit", r.returncode, 0)
    comp = json.load(open(out))["compute"]
    check("nchw: both formats kept apart", sorted((t.get("format", "-"), t["us"]) for t in comp["conv"]),
          [("-", [10.0]), ("nchw", [30.0])])
    bn = comp["ops"][0]
    check("nchw: batch norm device times", (bn["op"], bn["fwd_us"], bn["bwd_us"]), ("batchnorm2d_nchw", [4, 8], [6, 12]))
    check("nchw: batch norm host from the base's channels-last row", (bn["host_fwd_us"], bn["host_bwd_us"]), (5.0, 6.0))
    r = subprocess.run([sys.executable, TOOL, out, base, nchw_run], capture_output=True, text=True)
    check("one run alone: exit", r.returncode, 0)
    check("one run alone: its table", [t["us"] for t in json.load(open(out))["compute"]["conv"]], [[30.0]])
    json.dump(json.load(open(os.path.join(ROOT, "data", "profiles", "h200-default.json"))), open(merged, "w"))
    r = subprocess.run([fusim, "fit", "--compute", out, "--merge-into", merged], capture_output=True, text=True)
    check("nchw merged: exit", r.returncode, 0)
    after = json.load(open(merged))["compute"]["conv"]
    check("nchw merged: the NCHW table beside the bundled channels-last one of its class",
          sorted(t.get("format", "channels_last") for t in after
                 if (t["dtype"], t["layout"], t["kernel"], t["stride"], t.get("groups", "dense")) ==
                 ("bf16", "fwd", 3, 1, "dense")),
          ["channels_last", "nchw"])

    calib(runs[2], [11, 22, 40], [5, None], (130, 190), [2, 9], [2, 9], gpu="GPU Y")
    r = subprocess.run([sys.executable, TOOL, out, base] + runs, capture_output=True, text=True)
    check("two GPUs: exit", r.returncode, 65)
    check("two GPUs: one line", len(r.stderr.strip().splitlines()), 1)

for f in fails:
    print("FAIL: " + f, file=sys.stderr)
print("ok" if not fails else "%d checks failed" % len(fails))
sys.exit(1 if fails else 0)
