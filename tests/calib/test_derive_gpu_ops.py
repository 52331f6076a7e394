#!/usr/bin/env python3
"""tools/derive_gpu_ops.py on hand-made profiles (values by hand). The source's fp32 add table is
10 us at 1e6 elements and 1000 at 1e8 (so 30 at 3e6 and 100 at 1e7, log-log); the target's 5, 40
and 500 at 1e6, 1e7 and 1e8, so at 3e6 5^0.5229 x 40^0.4771 = 13.485. Ratios: 0.5 at 1e6, 0.44950
at 3e6, 0.4 at 1e7, and at 2e8, past both tables, 1000 / 2000 = 0.5. The source's copy_t (fp32:
20, 60, 100, 400 us forward, 2, 3, 4, 8 backward at 1e6, 3e6, 1e7, 2e8) becomes 10, 26.970, 40,
200 and 1, 1.349, 1.6, 4 on the target, with the source's host costs and "derived" naming the
source; the target's derived bias_add is made anew; its measured bf16 copy_t is kept; the bf16
add_t has no bf16 add table in either profile and is not made; both said on stderr. Nothing to
make: exit 65, no file. --grouped-conv: the source's grouped TF32 tables (fp32 add's ratio) fwd
(m 100, n 1e4, k 9: 1e6 elements, ratio 0.5) 8 us -> 4 and dgrad (m 1000, n 9, k 3000: 3e6,
0.44950) 10 us -> 4.495, the untimed point left untimed; the target's measured NCHW fwd kept; the
dense table not derived. --conv-classes: by the dense conv tables' median ratio (below); a
measured table of the target whose timed points stop short of the source's is replaced.
--attention-gqa: the math path's points by the fp32 add's ratio at their scores' elements (below).
Usage: test_derive_gpu_ops.py"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
tool = os.path.join(ROOT, "tools", "derive_gpu_ops.py")
fails = []


def op(name, dtype, numel, fwd, bwd, host=(3.0, 4.0), **extra):
    return dict({"op": name, "dtype": dtype, "numel": numel, "fwd_us": fwd, "bwd_us": bwd,
                 "host_fwd_us": host[0], "host_bwd_us": host[1]}, **extra)


with tempfile.TemporaryDirectory() as tmp:
    src, tgt, out = (os.path.join(tmp, n) for n in ("s.json", "t.json", "o.json"))
    sizes = [1e6, 3e6, 1e7, 2e8]
    json.dump({"name": "src-gpu", "compute": {"ops": [
        op("add", "fp32", [1e6, 1e8], [10.0, 1000.0], [1.0, 1.0]),
        op("copy_t", "fp32", sizes, [20.0, 60.0, 100.0, 400.0], [2.0, 3.0, 4.0, 8.0]),
        op("bias_add", "fp32", [1e6], [8.0], [8.0]),
        op("copy_t", "bf16", [1e6], [7.0], [7.0]),
        op("add_t", "bf16", [1e6], [7.0], [7.0])]}}, open(src, "w"))
    json.dump({"compute": {"ops": [op("add", "fp32", [1e6, 1e7, 1e8], [5.0, 40.0, 500.0], [1.0, 1.0, 1.0], (9.0, 9.0)),
                                   op("bias_add", "fp32", [1e6], [1.0], [1.0], derived="an earlier derivation"),
                                   op("copy_t", "bf16", [1e6], [3.0], [3.0])]}}, open(tgt, "w"))
    r = subprocess.run([sys.executable, tool, out, tgt, src], capture_output=True, text=True)
    if r.returncode:
        fails.append("exit %d: %s" % (r.returncode, r.stderr.strip()))
    else:
        rows = {(o["op"], o["dtype"]): o for o in json.load(open(out))["compute"]["ops"]}
        c = rows.get(("copy_t", "fp32"))
        want = {"fwd_us": [10.0, 26.970, 40.0, 200.0], "bwd_us": [1.0, 1.349, 1.6, 4.0]}
        if c is None or any(abs(a - b) > 0.002 for k in want for a, b in zip(c[k], want[k])) or \
                (c["host_fwd_us"], c["host_bwd_us"]) != (3.0, 4.0) or "src-gpu" not in c.get("derived", ""):
            fails.append("copy_t fp32 %s, expected %s, host 3 / 4, derived from src-gpu" % (c, want))
        b = rows.get(("bias_add", "fp32"))
        if b is None or abs(b["fwd_us"][0] - 4.0) > 1e-6:
            fails.append("the target's derived bias_add not made anew at 8 x 0.5 = 4: %s" % b)
        if set(rows) != {("copy_t", "fp32"), ("bias_add", "fp32")}:
            fails.append("tables made: %s, expected copy_t and bias_add in fp32" % sorted(rows))
        if "copy_t bf16: measured on the target, kept" not in r.stderr or "add_t bf16: no add table" not in r.stderr:
            fails.append("stderr does not name the kept and the unmade tables: %r" % r.stderr)
    def conv(layout, m, n, k, us, **extra):
        return dict({"dtype": "tf32", "layout": layout, "kernel": 3, "stride": 1, "m": m, "n": n, "k": k,
                     "us": us}, **extra)
    s = json.load(open(src))
    s["compute"]["conv"] = [conv("fwd", [100], [1e4], [9], [8.0], groups="grouped"),
                            conv("dgrad", [1000, 2000], [9], [3000], [10.0, None], groups="grouped"),
                            conv("fwd", [100], [1e4], [9], [8.0], groups="grouped", format="nchw"),
                            conv("fwd", [100], [64], [576], [8.0])]
    json.dump(s, open(src, "w"))
    t = json.load(open(tgt))
    t["compute"]["conv"] = [conv("fwd", [100], [1e4], [9], [1.0], groups="grouped", format="nchw")]
    json.dump(t, open(tgt, "w"))
    r = subprocess.run([sys.executable, tool, out, tgt, src, "--ops", "", "--grouped-conv"], capture_output=True,
                       text=True)
    got = json.load(open(out))["compute"].get("conv", []) if r.returncode == 0 else []
    by = {(c["layout"], c.get("format", "channels_last")): c for c in got}
    f, d = by.get(("fwd", "channels_last")), by.get(("dgrad", "channels_last"))
    if r.returncode or len(got) != 2 or not f or not d or abs(f["us"][0] - 4.0) > 1e-3 or \
            abs(d["us"][0] - 4.495) > 2e-3 or d["us"][1] is not None or "src-gpu" not in f.get("derived", "") or \
            f.get("groups") != "grouped":
        fails.append("--grouped-conv: exit %d, %s, expected fwd 4 and dgrad [4.495, None], derived, grouped"
                     % (r.returncode, got))
    if "measured on the target, kept" not in r.stderr:
        fails.append("--grouped-conv: the kept NCHW table not said: %r" % r.stderr)
    # --conv-classes: the dense TF32 fwd k1s1 table both measured on one grid (source 8, 10, 20 us;
    # target 4, 6, 10: ratios 0.5, 0.6, 0.5, median 0.5) prices the source's k4s4 fwd (12 us ->
    # 6) and its g3s1 fwd (per-group K 36: wider groups; 30 -> 15); the g3s1 dgrad has no dense
    # dgrad pair and is not made (said); the depthwise table is not of the classes asked for
    s["compute"]["conv"] = [conv("fwd", [100], [64], [64, 128, 256], [8.0, 10.0, 20.0], kernel=1),
                            dict(conv("fwd", [1000], [96], [48], [12.0]), kernel=4, stride=4),
                            conv("fwd", [100], [512], [36], [30.0], groups="grouped"),
                            conv("dgrad", [100], [36], [512], [30.0], groups="grouped"),
                            conv("fwd", [100], [1e4], [9], [8.0], groups="grouped")]
    json.dump(s, open(src, "w"))
    # the target's own k4s4 fwd, timed at m 10 alone (a sweep cut short of the source's m 1000),
    # gives way to the derived one
    t["compute"]["conv"] = [conv("fwd", [100], [64], [64, 128, 256], [4.0, 6.0, 10.0], kernel=1),
                            dict(conv("fwd", [10, 1000], [96], [48], [1.0, None]), kernel=4, stride=4)]
    json.dump(t, open(tgt, "w"))
    r = subprocess.run([sys.executable, tool, out, tgt, src, "--ops", "", "--conv-classes", "k4s4,g3s1"],
                       capture_output=True, text=True)
    got = json.load(open(out))["compute"].get("conv", []) if r.returncode == 0 else []
    by = {(c["kernel"], c["layout"]): c for c in got}
    k4, g3 = by.get((4, "fwd")), by.get((3, "fwd"))
    if r.returncode or len(got) != 2 or not k4 or not g3 or abs(k4["us"][0] - 6.0) > 1e-3 or \
            abs(g3["us"][0] - 15.0) > 1e-3 or g3.get("groups") != "grouped" or "src-gpu" not in k4.get("derived", ""):
        fails.append("--conv-classes: exit %d, %s, expected k4s4 fwd 6 and g3s1 fwd 15, derived" % (r.returncode, got))
    if "conv k4s4 tf32 fwd channels_last: measured on the target up to (m, n, k) (10, 96, 48), short of the " \
            "source's (1000, 96, 48): derived" not in r.stderr:
        fails.append("--conv-classes: the replaced short table not said: %r" % r.stderr)
    if "conv g3s1 tf32 dgrad channels_last: no dense conv table both GPUs measured" not in r.stderr:
        fails.append("--conv-classes: the unmade dgrad not said: %r" % r.stderr)
    # --attention-gqa: the source's math-path points by the fp32 add's ratio at bh x seq x seq
    # elements: bh 4 at seq 500 is 1e6 (0.5): 30 / 50 us -> 15 / 25; bh 12 at seq 500 is 3e6
    # (0.44950): 100 / 80 -> 44.950 / 35.960; marked derived; a target that measured its own keeps them
    def pt(bh, fwd, bwd):
        return {"dtype": "tf32", "head_dim": 64, "causal": 1, "dropout": 0.0, "seq": 500, "bh": bh,
                "fwd_us": fwd, "bwd_us": bwd}
    json.dump({"name": "src-gpu", "compute": {"ops": [op("add", "fp32", [1e6, 1e8], [10.0, 1000.0], [1.0, 1.0])],
                                              "attention_gqa": [pt(4, 30.0, 50.0), pt(12, 100.0, 80.0)]}}, open(src, "w"))
    target = {"compute": {"ops": [op("add", "fp32", [1e6, 1e7, 1e8], [5.0, 40.0, 500.0], [1.0, 1.0, 1.0])]}}
    json.dump(target, open(tgt, "w"))
    r = subprocess.run([sys.executable, tool, out, tgt, src, "--ops", "", "--attention-gqa"], capture_output=True,
                       text=True)
    got = json.load(open(out))["compute"].get("attention_gqa", []) if r.returncode == 0 else []
    want = [(15.0, 25.0), (44.950, 35.960)]
    if len(got) != 2 or any(abs(g["fwd_us"] - w[0]) > 0.01 or abs(g["bwd_us"] - w[1]) > 0.01 or
                            "src-gpu" not in g.get("derived", "") for g, w in zip(got, want)):
        fails.append("--attention-gqa: exit %d, %s, expected %s, derived" % (r.returncode, got, want))
    target["compute"]["attention_gqa"] = [pt(4, 9.0, 9.0)]
    json.dump(target, open(tgt, "w"))
    os.remove(out)
    r = subprocess.run([sys.executable, tool, out, tgt, src, "--ops", "", "--attention-gqa"], capture_output=True,
                       text=True)
    if r.returncode != 65 or os.path.exists(out) or "attention_gqa: measured on the target, kept" not in r.stderr:
        fails.append("--attention-gqa, measured target: exit %d, %r" % (r.returncode, r.stderr))
    json.dump({"compute": {"ops": []}}, open(tgt, "w"))
    if os.path.exists(out):
        os.remove(out)
    r = subprocess.run([sys.executable, tool, out, tgt, src, "--ops", "copy_t"], capture_output=True, text=True)
    if r.returncode != 65 or os.path.exists(out) or "no table made" not in r.stderr:
        fails.append("nothing to make: exit %d, %r" % (r.returncode, r.stderr))

for f in fails:
    print("FAIL", f)
print("derive_gpu_ops: %d failed" % len(fails))
sys.exit(1 if fails else 0)
