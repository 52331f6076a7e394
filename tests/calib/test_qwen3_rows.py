#!/usr/bin/env python3
"""tools/qwen3_rows.py by hand (no GPU): three hand-made calibrations measuring Llama and Qwen3 side
by side whose qwen3/llama ratios for the bf16 layer are 1.2/1.3, 1.1/1.1 and 1.5/1.5 (forward /
backward): the row is the profile's Llama layer (500 / 700 us) times the medians 1.2 / 1.3 =
600 / 910 us; the rest and pre rows likewise (pre: forward only). `fusim fit --compute OUT
--merge-into` a copy of the bundled profile adds those rows and keeps its host probe and every
other row; the builder then prices --arch qwen3 (it refuses without them). --depth adds
hf_depth.py's hf_qwen3_deep_tiny row as it is. Calibrations with calib_torch's hf_pairs record
(--hf-interleave): the median of each round's ratio, the rounds of all of them pooled, the
interval printed, the others left out (said so). Bad input: a calibration without the Qwen3 rows, a
Llama row at 0, a missing file: one line, exit 65 / 65 / 66. --modes bf16 makes a cut-short
calibration's bf16 rows alone.
Usage: test_qwen3_rows.py FUSIM"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "qwen3_rows.py")
fusim = sys.argv[1]
fails = []


def row(op, dtype, f, b):
    return {"op": op, "dtype": dtype, "numel": [], "fwd_us": [], "bwd_us": [], "host_fwd_us": f, "host_bwd_us": b}


def calib(path, llama, qwen3, probes=(5.0, 6.0)):
    """llama, qwen3: {part: (fwd, bwd)} for both modes alike"""
    ops = [row("hf_%s_%s_tiny" % (a, part), mode, *v[part]) for mode in ("bf16", "fp32")
           for a, v in (("llama", llama), ("qwen3", qwen3)) for part in v]
    json.dump({"format": "fusim-compute-1", "compute": {"ops": ops, "host_probe_us": 5.5,
                                                         "diag": {"hf_host": {"probes_us": list(probes)}}}},
              open(path, "w"))


def run(*args):
    return subprocess.run([sys.executable, TOOL] + list(args), capture_output=True, text=True)


with tempfile.TemporaryDirectory() as tmp:
    prof = json.load(open(os.path.join(ROOT, "data", "profiles", "h200-default.json")))
    prof["compute"]["ops"] = [o for o in prof["compute"]["ops"]
                              if not (o["op"].startswith("hf_llama_") and o["op"].endswith("_tiny")) and
                              not o["op"].startswith("hf_qwen3_")]
    prof["compute"]["ops"] += [row("hf_llama_layer_tiny", m, 500.0, 700.0) for m in ("bf16", "fp32")] + \
        [row("hf_llama_rest_tiny", m, 2000.0, 3000.0) for m in ("bf16", "fp32")] + \
        [row("hf_llama_pre_tiny", m, 800.0, 0.0) for m in ("bf16", "fp32")]
    pf = os.path.join(tmp, "p.json")
    json.dump(prof, open(pf, "w"))
    cs = [os.path.join(tmp, "c%d.json" % i) for i in range(3)]
    L = {"layer": (1000.0, 2000.0), "rest": (1000.0, 1000.0), "pre": (500.0, 0.0)}
    calib(cs[0], L, {"layer": (1200.0, 2600.0), "rest": (1000.0, 1100.0), "pre": (500.0, 0.0)})
    calib(cs[1], {k: (2 * v[0], 2 * v[1]) for k, v in L.items()},
          {"layer": (2200.0, 4400.0), "rest": (1800.0, 2000.0), "pre": (1100.0, 0.0)})
    calib(cs[2], L, {"layer": (1500.0, 3000.0), "rest": (1050.0, 900.0), "pre": (400.0, 0.0)})
    out = os.path.join(tmp, "q.json")
    r = run("--profile", pf, "--out", out, *cs)
    if r.returncode != 0:
        fails.append("run: exit %d: %s" % (r.returncode, r.stderr))
    else:
        got = {(o["op"], o["dtype"]): (o["host_fwd_us"], o["host_bwd_us"]) for o in json.load(open(out))["compute"]["ops"]}
        # ratios: layer fwd 1.2, 1.1, 1.5 -> 1.2; bwd 1.3, 1.1, 1.5 -> 1.3; rest fwd 1.0, 0.9, 1.05 -> 1.0;
        # bwd 1.1, 1.0, 0.9 -> 1.0; pre fwd 1.0, 1.1, 0.8 -> 1.0
        want = {"layer": (600.0, 910.0), "rest": (2000.0, 3000.0), "pre": (800.0, 0.0)}
        for part, w in want.items():
            for mode in ("bf16", "fp32"):
                g = got.get(("hf_qwen3_%s_tiny" % part, mode))
                if g is None or abs(g[0] - w[0]) > 0.01 or abs(g[1] - w[1]) > 0.01:
                    fails.append("%s %s: %s, expected %s" % (part, mode, g, w))
        if len(got) != 6:
            fails.append("rows: %s" % sorted(got))
        if "host_probe_us" in json.load(open(out))["compute"]:
            fails.append("the output carries a host probe (a merge would move the profile's)")
        # merged: the rows added, the probe and the other rows kept; the builder prices qwen3 now
        merged = os.path.join(tmp, "m.json")
        json.dump(prof, open(merged, "w"))
        m = subprocess.run([fusim, "fit", "--compute", out, "--merge-into", merged], capture_output=True, text=True)
        if m.returncode != 0:
            fails.append("fit --compute --merge-into: %s" % m.stderr)
        after = json.load(open(merged))["compute"]
        for k in ("host_probe_us", "host_probe_min_us"):
            if after.get(k) != prof["compute"].get(k):
                fails.append("merge moved %s: %s -> %s" % (k, prof["compute"].get(k), after.get(k)))
        before = {(o["op"], o["dtype"]): o for o in prof["compute"]["ops"]}
        new = {(o["op"], o["dtype"]): o for o in after["ops"]}
        if set(new) - set(before) != {("hf_qwen3_%s_tiny" % p, m) for p in want for m in ("bf16", "fp32")}:
            fails.append("merge added %s" % sorted(set(new) - set(before)))
        if any(new[k] != v for k, v in before.items()):
            fails.append("merge changed rows already there")
        w = subprocess.run([fusim, "workload", "--transformer", "--arch", "qwen3", "--layers", "2", "--hidden", "128",
                            "--heads", "4", "--ffn", "256", "--vocab", "1000", "--seq", "64", "--micro-batch", "1",
                            "--profile", merged, "--precision", "autocast-bf16", "--out", os.path.join(tmp, "w.json")],
                           capture_output=True, text=True)
        if w.returncode != 0:
            fails.append("workload --arch qwen3 on the merged profile: %s" % w.stderr)
    # --depth: hf_depth's hf_qwen3_deep_tiny rows as they are
    dp = os.path.join(tmp, "d.json")
    json.dump({"compute": {"ops": [row("hf_qwen3_deep_tiny", "bf16", 555.0, 777.0),
                                   row("hf_llama_deep_tiny", "bf16", 1.0, 1.0)]}}, open(dp, "w"))
    r = run("--profile", pf, "--out", out, "--depth", dp, *cs)
    ops = json.load(open(out))["compute"]["ops"] if r.returncode == 0 else []
    if [(o["op"], o["host_fwd_us"], o["host_bwd_us"]) for o in ops if "deep" in o["op"]] != [("hf_qwen3_deep_tiny", 555.0, 777.0)]:
        fails.append("--depth: %s %s" % (r.stderr, [o["op"] for o in ops]))
    # calibrations with calib_torch's hf_pairs record (--hf-interleave): the ratio is the median over
    # the rounds of each round's qwen3 / llama, the paired calibrations' rounds pooled, whatever their
    # rows say (here a layer ratio of 1.5) and the calibrations without the record left out.
    # Layer forward, the first: 1.2, 1.2, 1.3, 1.25, 1.1 -> 1.2 (600 us); backward 1.1, 1.0, 1.05,
    # 1.2, 1.1 -> 1.1 (770); rest 1.0 / 0.9 in every round (2000 / 2700, the interval a point); pre
    # 1.0, 1.1, 1.1, 0.9 and a round without one -> 1.05 (840). With the second's 4 rounds at 1.4
    # forward (1.0 backward): layer forward 1.1, 1.2, 1.2, 1.25, 1.3, 1.4 x 4 -> 1.3 (650), backward
    # 1.0 x 5, 1.05, 1.1, 1.1, 1.2 -> 1.0 (700).
    lf, lb = [1000.0, 1500.0, 1000.0, 1500.0, 1000.0], [2000.0, 3000.0, 2000.0, 3000.0, 2000.0]
    rf, rb, rp = [1.2, 1.2, 1.3, 1.25, 1.1], [1.1, 1.0, 1.05, 1.2, 1.1], [1.0, 1.1, 1.1, 0.9, None]

    def rounds(f, b, k_rest, pre):
        """the rest: the round's Llama layer (f, b at a Llama's) times 2 and 1, times k_rest"""
        return {"layer": [[x, y] for x, y in zip(f, b)],
                "rest": [[2 * x * k_rest[0], y * k_rest[1]] for x, y in zip(*host)], "pre": pre}

    def paired(path, l_rounds, q_rounds, modes=("bf16", "fp32")):
        calib(path, L, {"layer": (1500.0, 3000.0), "rest": (1000.0, 1000.0), "pre": (500.0, 0.0)})
        d = json.load(open(path))
        d["compute"]["hf_pairs"] = {"ref": "llama", "archs": ["llama", "qwen3"], "depths": [1, 3], "seed": 1,
                                    "modes": {m: {"rounds": len(l_rounds["layer"]),
                                                  "rounds_us": {"llama": l_rounds, "qwen3": q_rounds}} for m in modes}}
        json.dump(d, open(path, "w"))

    p1, p2 = os.path.join(tmp, "p1.json"), os.path.join(tmp, "p2.json")
    host = (lf, lb)
    paired(p1, rounds(lf, lb, (1.0, 1.0), [500.0] * 5),
           rounds([x * k for x, k in zip(lf, rf)], [x * k for x, k in zip(lb, rb)], (1.0, 0.9),
                  [None if k is None else 500.0 * k for k in rp]))
    host = ([1000.0] * 4, [2000.0] * 4)
    paired(p2, rounds([1000.0] * 4, [2000.0] * 4, (1.0, 1.0), [500.0] * 4),
           rounds([1400.0] * 4, [2000.0] * 4, (1.0, 0.9), [500.0] * 4))
    for args, want in (((p1, cs[0]), {"layer": (600.0, 770.0), "rest": (2000.0, 2700.0), "pre": (840.0, 0.0)}),
                       ((p1, p2), {"layer": (650.0, 700.0), "rest": (2000.0, 2700.0)})):
        r = run("--profile", pf, "--out", out, *args)
        if r.returncode != 0:
            fails.append("paired %s: exit %d: %s" % (args, r.returncode, r.stderr))
            continue
        d = json.load(open(out))
        got = {(o["op"], o["dtype"]): (o["host_fwd_us"], o["host_bwd_us"]) for o in d["compute"]["ops"]}
        for part, w in want.items():
            for mode in ("bf16", "fp32"):
                g = got.get(("hf_qwen3_%s_tiny" % part, mode))
                if g is None or abs(g[0] - w[0]) > 0.01 or abs(g[1] - w[1]) > 0.01:
                    fails.append("paired %s: %s %s: %s, expected %s" % (args, part, mode, g, w))
        lay = d["diag"]["layer_bf16"]
        lo, hi = lay["ci95"][0]
        if lay["method"] != "paired" or not 1.1 <= lo <= lay["ratio_median"][0] <= hi <= 1.4:
            fails.append("paired %s: layer's interval %s around %s" % (args, lay["ci95"], lay["ratio_median"]))
        if d["diag"]["rest_bf16"]["ci95"] != [[1.0, 1.0], [0.9, 0.9]]:
            fails.append("paired %s: rest's interval %s (every round 1.0 / 0.9)" % (args, d["diag"]["rest_bf16"]["ci95"]))
        if "paired median fwd" not in r.stdout or "[%.3f, %.3f]" % (lo, hi) not in r.stdout:
            fails.append("paired %s: the interval not printed: %s" % (args, r.stdout))
        if (cs[0] in args) != ("left out (no hf_pairs): " + cs[0] in r.stdout):
            fails.append("paired %s: the unpaired calibration not said to be left out: %s" % (args, r.stdout))
    # a paired calibration cut short (no fp32 rounds), every Llama round's layer at 0: one line, exit 65
    paired(p2, rounds([1000.0] * 4, [2000.0] * 4, (1.0, 1.0), [500.0] * 4),
           rounds([1400.0] * 4, [2000.0] * 4, (1.0, 0.9), [500.0] * 4), modes=("bf16",))
    paired(os.path.join(tmp, "p0.json"), rounds([0.0] * 4, [2000.0] * 4, (1.0, 1.0), [500.0] * 4),
           rounds([1400.0] * 4, [2000.0] * 4, (1.0, 0.9), [500.0] * 4))
    for args in ((p1, p2), (os.path.join(tmp, "p0.json"),)):
        os.path.exists(out) and os.remove(out)
        r = run("--profile", pf, "--out", out, *args)
        if r.returncode != 65 or len(r.stderr.splitlines()) != 1 or os.path.exists(out):
            fails.append("paired %s: exit %d (want 65), stderr %r" % (args, r.returncode, r.stderr))
    # --modes bf16 takes the calibration cut short as it is: bf16's rows alone, the layer's by its
    # rounds (every one 1400 / 1000 forward, 2000 / 2000 backward): 500 x 1.4 = 700, 700 x 1.0 = 700
    os.path.exists(out) and os.remove(out)
    r = run("--profile", pf, "--out", out, "--modes", "bf16", p2)
    got = {(o["op"], o["dtype"]): (o["host_fwd_us"], o["host_bwd_us"])
           for o in json.load(open(out))["compute"]["ops"]} if r.returncode == 0 else {}
    lay = got.get(("hf_qwen3_layer_tiny", "bf16"))
    if r.returncode or not lay or abs(lay[0] - 700) > 0.01 or abs(lay[1] - 700) > 0.01 or \
            any(dt != "bf16" for _, dt in got):
        fails.append("--modes bf16: exit %d, %s, expected the bf16 layer 700 / 700 and no fp32 row" % (r.returncode, got))
    r = run("--profile", pf, "--out", out, "--modes", "fp16", p2)
    if r.returncode != 64 or len(r.stderr.splitlines()) != 1:
        fails.append("--modes fp16: exit %d (want 64), stderr %r" % (r.returncode, r.stderr))
    # bad input
    calib(cs[2], L, {"layer": (1500.0, 3000.0)})  # Qwen3's rest and pre rows missing
    calib(os.path.join(tmp, "z.json"), {"layer": (0.0, 2000.0), "rest": (1.0, 1.0), "pre": (1.0, 0.0)},
          {"layer": (1.0, 1.0), "rest": (1.0, 1.0), "pre": (1.0, 0.0)})
    for args, want in (((cs[0], cs[2]), 65), ((os.path.join(tmp, "z.json"),), 65), ((os.path.join(tmp, "none.json"),), 66)):
        os.path.exists(out) and os.remove(out)
        r = run("--profile", pf, "--out", out, *args)
        if r.returncode != want or len(r.stderr.splitlines()) != 1 or os.path.exists(out):
            fails.append("%s: exit %d (want %d), stderr %r" % (args, r.returncode, want, r.stderr))
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
