#!/usr/bin/env python3
"""derive_clip_rows.py: a GPU's clipped optimizer fits ("adamw_clip", "adam_clip", "sgd_clip":
the step with torch.nn.utils.clip_grad_norm_ first) where it measured only the plain ones, from
another GPU that measured both.

Why it holds: fusim prices a clipped step's device time by counting its kernels (the plain step's
foreach operations, plus _foreach_norm, _foreach_mul_ and the small ones: model/fu_compute.c
fu_optim_dev_us), at per-launch and per-element costs that are the GPU's, not the clip's (on the
H100, the adamw and adamw_clip fits' launch_us 2.24 / 2.22, per_moved_elem_us 1.78e-6 / 1.85e-6,
hbm_per_moved_elem_us 2.10e-6 / 2.12e-6). So the derived fit is the target's plain fit with:
  - its kernel costs (launch and HBM forms, tail_us: the same last kernels) as they are;
  - the host's added cost of clipping (host_base_us, host_per_tensor_us: the source's clip less
    its plain fit, each carried to the target's host-speed probe from its own; never below 0:
    clipping adds work) added to the target's plain host cost;
  - the source clip fit's host/device overlap shares (prologue_frac, tail_frac: where the host's
    time goes in the clipped step's code);
  - the old form's base_us, per_tensor_us, per_elem_us (used only without the launch form) as the
    target's times the source's clip / plain ratio.
Each fit carries "derived"; fusim workload warns where one prices a step. A measured clip fit of
the target is kept (none made for it). Merge: fusim fit --compute OUT --merge-into TARGET (the
H200: put OUT in data/compute/ as h200-calib-torch-*.json, then tools/make_default_profile.sh).
Usage: python3 tools/derive_clip_rows.py OUT TARGET_PROFILE SOURCE_PROFILE"""
import json
import os
import sys

KERNEL_KEYS = ("launch_us", "per_moved_elem_us", "per_chunk_elem_us", "hbm_launch_us", "hbm_per_moved_elem_us",
               "hbm_sat_blocks", "cache_bytes", "tail_us")


def carried(fit, key, probe):
    """fit's host cost key carried to host-speed probe (its own probe where it records one)."""
    return fit[key] * (probe / fit["host_probe_us"] if fit.get("host_probe_us") else 1.0)


def derive(target_fit, source_plain, source_clip, mark):
    """The target's clipped fit from its plain one and the source's pair (see the module's doc)."""
    d = dict(target_fit, name=target_fit["name"] + "_clip", derived=mark)
    for k in ("base_us", "per_tensor_us", "per_elem_us"):
        d[k] = target_fit[k] * (source_clip[k] / source_plain[k] if source_plain[k] > 0 else 1.0)
    probe = target_fit.get("host_probe_us") or source_plain.get("host_probe_us") or 1.0
    for k in ("host_base_us", "host_per_tensor_us"):
        d[k] = target_fit[k] + max(0.0, carried(source_clip, k, probe) - carried(source_plain, k, probe))
    for k in ("prologue_frac", "tail_frac"):
        if k in source_clip:
            d[k] = source_clip[k]
    missing = [k for k in KERNEL_KEYS if (k in source_clip) != (k in target_fit)]
    if missing:
        raise ValueError("%s: the two GPUs' fits differ in form (%s)" % (d["name"], ", ".join(missing)))
    return d


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 64
    out, target_path, source_path = argv
    try:
        target, source = json.load(open(target_path)), json.load(open(source_path))
        t_fits = {f["name"]: f for f in target["compute"]["optimizer"]}
        s_fits = {f["name"]: f for f in source["compute"]["optimizer"]}
    except (OSError, ValueError, KeyError) as e:
        print("derive_clip_rows.py: %s" % e, file=sys.stderr)
        return 65
    mark = "%s clip less plain, on its kernels" % os.path.splitext(os.path.basename(source_path))[0]
    mark = mark[:47]
    rows = []
    for plain in ("adamw", "adam", "sgd"):
        clip = plain + "_clip"
        if plain in t_fits and clip not in t_fits and plain in s_fits and clip in s_fits:
            try:
                rows.append(derive(t_fits[plain], s_fits[plain], s_fits[clip], mark))
            except ValueError as e:
                print("derive_clip_rows.py: %s" % e, file=sys.stderr)
                return 65
    if not rows:
        print("derive_clip_rows.py: nothing to derive (the target has its clip fits, or the source lacks them)",
              file=sys.stderr)
        return 65
    doc = {"format": "fusim-compute-1", "gpu": target.get("gpu", target.get("name", "")),
           "command": "tools/derive_clip_rows.py " + " ".join(argv),
           "compute": {"source": "tools/derive_clip_rows.py: %s from %s's clip less plain fits" % (
               ",".join(r["name"] for r in rows), source_path), "optimizer": rows}}
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    for r in rows:
        print("%-10s host %.1f + %.2f / tensor us (probe %.3f), launch %.3f us" % (
            r["name"], r["host_base_us"], r["host_per_tensor_us"], r.get("host_probe_us", 0), r.get("launch_us", 0)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
