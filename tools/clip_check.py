#!/usr/bin/env python3
"""clip_check.py: the "<optimizer>_clip" rows (torch.nn.utils.clip_grad_norm_ inside the step)
against what the model says the clip adds, and against captured steps (data/compute/README.md,
"Gradient clipping in the optimizer step").

  mech CLIP.json PLAIN.json
      calib/device_compute_clip.sh's two calibrations of one lease, point by point: the clip's
      measured cost (clip - plain: device alone, host in a step) beside the cost fusim's launch /
      HBM form gives it with the plain row's own coefficients (calib_torch.optim_dev_us of the
      row named "<optimizer>_clip" minus of the row itself: the norm and mul launches, 1.5
      one-list passes over the elements, 6 + ceil(n/400) + ceil(n/128) small kernels); the
      relative error of that added cost, and of the clipped step (measured plain + modelled add)
      against the measured clipped step.

  captures --profile P CAPTURE.json...
      each captured step's optimizer (opt_us) priced with P's rows ("<optimizer>_clip" where the
      capture clipped: "clip" in its name): by fusim workload where compare_compute.args_for can
      build the model from the capture's meta (the capture's own optimizer), and for every
      capture from its own gradient list (calib_torch.optim_dev_us for the device, the row's host
      fit at the capture's probe as compare_compute.host_args gives it, the lead the capture's
      lag when backward() returned: compare_compute.optim_parts; optim_parts.step_us).

Usage: python3 tools/clip_check.py mech CLIP.json PLAIN.json
       python3 tools/clip_check.py captures --profile P [--fusim build/fusim] CAPTURE.json...
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bad_input  # noqa: E402
import calib_torch  # noqa: E402
import compare_compute  # noqa: E402
import optim_parts  # noqa: E402


def rows_of(path):
    return {o["name"]: o for o in json.load(open(path))["compute"]["optimizer"]}


def mech(clip_f, plain_f):
    clip, plain = rows_of(clip_f), rows_of(plain_f)
    print("%-6s %5s %10s %9s %9s %6s %9s %9s %6s %9s" % (
        "row", "n", "elements", "add_meas", "add_model", "err", "clip_meas", "clip_mod", "err", "host_add"))
    errs = []
    for name in ("adamw", "adam", "sgd"):
        if name + "_clip" not in clip or name not in plain:
            continue
        row = plain[name]
        as_clip = dict(row, name=name + "_clip")   # the plain row's coefficients, the clip's operations
        for q, p in zip(clip[name + "_clip"]["points"], row["points"]):
            if (q["n"], q["numel"]) != (p["n"], p["numel"]):
                raise ValueError("point %d/%d against %d/%d: not the same nets" % (q["n"], q["numel"], p["n"], p["numel"]))
            sizes = calib_torch.opt_point_sizes(p)
            add_m = calib_torch.optim_dev_us(as_clip, sizes) - calib_torch.optim_dev_us(row, sizes)
            add = q["dev_us"] - p["dev_us"]
            e_add, e_tot = add_m / add - 1, (p["dev_us"] + add_m) / q["dev_us"] - 1
            errs.append((abs(e_add), abs(e_tot)))
            print("%-6s %5d %10d %9.1f %9.1f %+5.0f%% %9.1f %9.1f %+5.1f%% %+9.1f" % (
                name, p["n"], p["numel"], add, add_m, 100 * e_add, q["dev_us"], p["dev_us"] + add_m,
                100 * e_tot, q["host_us"] - p["host_us"]))
    if not errs:
        raise ValueError("no optimizer measured in both files")
    # the host fits at one host speed: the plain row's carried to the clipped calibration's probe
    for name in ("adamw", "adam", "sgd"):
        if name + "_clip" in clip and name in plain:
            q, p = clip[name + "_clip"], plain[name]
            k = q["host_probe_us"] / p["host_probe_us"]
            print("%-5s host in a step: clipped %.0f + %.2f us/tensor, plain %.0f + %.2f at the clipped run's probe "
                  "(x %.3f): the clip adds %+.0f us + %+.2f us/tensor" % (
                      name, q["host_base_us"], q["host_per_tensor_us"], k * p["host_base_us"],
                      k * p["host_per_tensor_us"], k, q["host_base_us"] - k * p["host_base_us"],
                      q["host_per_tensor_us"] - k * p["host_per_tensor_us"]))
    print("\n%d points: |err| of the added device time median %.0f%%, max %.0f%%; of the clipped step median "
          "%.1f%%, max %.1f%%" % (len(errs), 100 * statistics.median(a for a, _ in errs), 100 * max(a for a, _ in errs),
                                  100 * statistics.median(t for _, t in errs), 100 * max(t for _, t in errs)))


def optimizer_of(cap):
    """The optimizer a validate_torch capture ran: its meta's (captures from session 37 on), else
    from its name (..._adamw_..., ..._sgd_...)."""
    if cap["meta"].get("optimizer"):
        return cap["meta"]["optimizer"]
    for o in ("adamw", "adam", "sgd"):
        if re.search(r"_%s(_|$)" % o, cap["name"]):
            return o
    raise ValueError("%s: no optimizer in the name" % cap["name"])


def by_fusim(fusim, prof, pc, cap, opt, clip):
    """fusim workload's optimizer step for the capture's model (compare_compute.args_for, its
    optimizer, its host args), as (opt_us, the notes' parts); None where the builder cannot make it."""
    meta = cap["meta"]
    try:   # the capture's optimizer and clip (1.0 where its meta does not record the norm)
        args = compare_compute.args_for(dict(meta, optimizer=opt, clip_grad_norm=(
            meta.get("clip_grad_norm") or 1.0) if clip else None))
    except KeyError:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "w.json")
        r = subprocess.run([fusim, "workload"] + args + ["--profile", prof, "--out", out] +
                           compare_compute.host_args(pc, meta)[0], capture_output=True, text=True)
        if r.returncode:
            raise ValueError("fusim failed: " + r.stderr.strip())
        w = json.load(open(out))
    return w["opt_us"], compare_compute.optim_parts(w["notes"], cap), len(w["grads"])


def captures(fusim, prof, files):
    p = json.load(open(prof))
    pc, rows = p["compute"], {o["name"]: o for o in p["compute"]["optimizer"]}
    print("%-48s %-10s %4s %8s | %8s %6s %7s %7s | %8s %6s %7s %7s %7s | %7s %7s %7s" % (
        "capture", "row", "n", "opt_cap", "fusim", "err", "dev", "host", "list", "err", "dev", "host", "lead",
        "dev_cap", "host_cp", "lag_cap"))
    for f in files:
        cap = json.load(open(f))
        opt, clip = optimizer_of(cap), "clip" in cap["name"]
        name = opt + ("_clip" if clip else "")
        if name not in rows:
            raise ValueError("no %s row in the profile" % name)
        row = rows[name]
        fz = by_fusim(fusim, prof, pc, cap, opt, clip)
        parts = compare_compute.optim_parts("", cap)
        # the capture's own gradient list, in parameter order (fusim: the ready order reversed)
        sizes = [g["bytes"] / 4.0 for g in reversed(cap["grads"])]
        dev = calib_torch.optim_dev_us(row, sizes)
        hp = compare_compute.host_args(pc, cap["meta"])[0]
        at = float(hp[hp.index("--host-probe") + 1]) if "--host-probe" in hp else pc["host_probe_min_us"]
        host = (row["host_base_us"] + row["host_per_tensor_us"] * len(sizes)) * at / row["host_probe_us"]
        lead = max(0.0, parts["lag_cap"])
        est = optim_parts.step_us(dev, host, lead, row["prologue_frac"], row["tail_us"])
        fzs = ("%8.0f %+5.1f%% %7.0f %7.0f" % (fz[0], 100 * (fz[0] / cap["opt_us"] - 1), fz[1]["opt_dev_est"],
                                                fz[1]["opt_host_est"]) + (" (%d tensors)" % fz[2] if fz[2] != len(sizes) else "")
               if fz else "%8s %6s %7s %7s" % ("-", "", "", ""))
        print("%-48s %-10s %4d %8.0f | %s | %8.0f %+5.1f%% %7.0f %7.0f %7.0f | %7.0f %7.0f %7.0f" % (
            cap["name"][:48], name, len(sizes), cap["opt_us"], fzs, est, 100 * (est / cap["opt_us"] - 1), dev, host,
            lead, parts["opt_dev_cap"], parts["opt_host_cap"], parts["lag_cap"]))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("mech")
    m.add_argument("clip")
    m.add_argument("plain")
    c = sub.add_parser("captures")
    c.add_argument("--profile", required=True)
    c.add_argument("--fusim", default=os.path.join(os.path.dirname(HERE), "build", "fusim"))
    c.add_argument("files", nargs="+")
    a = ap.parse_args(argv)
    if a.cmd == "mech":
        return mech(a.clip, a.plain)
    return captures(a.fusim, a.profile, a.files)


if __name__ == "__main__":
    sys.exit(bad_input.run("clip_check", main, sys.argv[1:]))
