#!/usr/bin/env python3
"""cat_rows.py: the profile's torch.cat host rows ("cat", "cat_input"; sim/fu_build_cnn.c
fu__dense_cat) from ops_cat calibrations (tools/calib_torch.py --parts ops_cat) and captures taken
on the same lease.

A CNN's host costs are on the profile's host scale: the builder scales every operation so that
ResNet-50 adds up to the profile's tv_resnet50_held row (fu__scale_host_whole), and carries the
result to a capture's host by the held ResNet-50 reference step timed inside it (meta.host_ref,
tools/host_ref.py). A calibration's rows are at its lease's host speed, which moves 1.0-1.6x
between leases. Captures of the same lease timed that reference step, so the lease's speed on
the profile's scale is, forward and backward apart,

    k = median over the captures of (the profile's tv_resnet50_held in the capture's mode /
                                      the capture's reference step)

and each row is the median over the calibrations of its value, times k of its direction. That
assumes the profile's per-operation host rows were measured at the host speed of its
tv_resnet50_held row (the builder scales the operations to that row, so a difference between
them would reach the cat rows twice); the bundled profiles' are one calibration's. "cat" is the
line at one input ("at_inputs": 1; calibrations of session 42, which lack it, held the line's
intercept, and their slope is added; fusim keeps no "at_inputs" in a profile, so give this
calibrations, never a profile's rows), "cat_input" the slope. Written as a calibration file
(fusim-compute-1) with these rows only, so that `fusim fit --compute OUT --merge-into PROFILE`
adds them and changes nothing else; diag holds the ratios and every calibration's rows. Bad input:
one line on stderr, exit 65, nothing written.

Usage: python3 tools/cat_rows.py --profile P --captures CAP.json[,CAP.json...] --out OUT.json CALIB.json [...]
"""
import argparse
import json
import statistics
import sys

ROWS = ("cat", "cat_input")
MODES = ("bf16", "fp32")


class Bad(Exception):
    """Input cat_rows cannot use: its message is the one line said."""


def lease_scale(profile, captures):
    """(k forward, k backward, per-capture ratios): the profile's held ResNet-50 step over each
    capture's reference step, in the capture's mode (tf32/fp32 -> fp32 rows, bf16 -> bf16)."""
    held = {o["dtype"]: o for o in profile["compute"]["ops"] if o["op"] == "tv_resnet50_held"}
    ratios = []
    for name, cap in captures:
        meta = cap.get("meta", {})
        ref = meta.get("host_ref") or {}
        mode = "bf16" if meta.get("precision") == "bf16" else "fp32"
        if not (ref.get("fwd_us", 0) > 0 and ref.get("bwd_us", 0) > 0):
            raise Bad("%s: no reference step (meta.host_ref; tools/capture_set.py times one)" % name)
        if mode not in held:
            raise Bad("the profile has no tv_resnet50_held row in %s" % mode)
        ratios.append((name, held[mode]["host_fwd_us"] / ref["fwd_us"], held[mode]["host_bwd_us"] / ref["bwd_us"]))
    if not ratios:
        raise Bad("no captures given (--captures CAP.json[,CAP.json...])")
    return (statistics.median(r[1] for r in ratios), statistics.median(r[2] for r in ratios), ratios)


def calib_rows(path):
    """{(op, dtype): (host forward, host backward) at one input for "cat", per input for
    "cat_input"} of one ops_cat calibration."""
    ops = {(o["op"], o["dtype"]): o for o in json.load(open(path))["compute"].get("ops", []) if o["op"] in ROWS}
    out = {}
    for (op, dt), o in ops.items():
        v = (float(o["host_fwd_us"]), float(o["host_bwd_us"]))
        if op == "cat" and "at_inputs" not in o:  # session 42's form: the intercept
            per = ops.get(("cat_input", dt))
            if per is None:
                raise Bad("%s: a cat row in %s without its cat_input row" % (path, dt))
            v = (v[0] + float(per["host_fwd_us"]), v[1] + float(per["host_bwd_us"]))
        out[(op, dt)] = v
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", required=True)
    ap.add_argument("--captures", required=True, help="captures of the calibrations' lease, comma-separated")
    ap.add_argument("--out", required=True)
    ap.add_argument("calibs", nargs="+")
    a = ap.parse_args(argv)
    try:
        profile = json.load(open(a.profile))
        kf, kb, ratios = lease_scale(profile, [(f, json.load(open(f))) for f in a.captures.split(",") if f])
        got = {}
        for f in a.calibs:
            for key, v in calib_rows(f).items():
                got.setdefault(key, []).append(v)
        rows = []
        for op in ROWS:
            for mode in MODES:
                vals = got.get((op, mode))
                if not vals:
                    raise Bad("no %s row in %s in the calibrations (tools/calib_torch.py --parts ops_cat)" % (op, mode))
                # a row below zero (noise about zero) is none, as a profile row must be
                f, b = (max(0.0, statistics.median(v[i] for v in vals)) for i in (0, 1))
                rows.append({"op": op, "dtype": mode, "numel": [], "fwd_us": [], "bwd_us": [],
                             "host_fwd_us": round(f * kf, 3), "host_bwd_us": round(b * kb, 3)})
                if op == "cat":
                    rows[-1]["at_inputs"] = 1
    except (Bad, OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        print("cat_rows: %s" % e, file=sys.stderr)
        return 65
    out = {"format": "fusim-compute-1",
           "compute": {"source": "tools/cat_rows.py: the median of %d ops_cat calibrations, carried to the "
                                 "profile's host scale by %d captures' reference steps (x %.3f forward, x %.3f "
                                 "backward)" % (len(a.calibs), len(ratios), kf, kb),
                       "ops": rows,
                       "diag": {"cat_rows": {"ratios": [{"capture": n, "fwd": round(x, 4), "bwd": round(y, 4)}
                                                        for n, x, y in ratios],
                                             "calibrations": {"%s %s" % k: v for k, v in sorted(got.items())}}}}}
    with open(a.out, "w") as fh:
        json.dump(out, fh, indent=1)
    for r in rows:
        print("%-10s %s host fwd %.2f bwd %.2f us" % (r["op"], r["dtype"], r["host_fwd_us"], r["host_bwd_us"]))
    print("scale x %.3f forward, x %.3f backward (%s)" % (kf, kb, ", ".join("%.2f/%.2f" % (x, y) for _, x, y in ratios)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
