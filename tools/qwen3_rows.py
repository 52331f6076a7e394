#!/usr/bin/env python3
"""qwen3_rows.py: the profile's Qwen3 host rows from calibrations that measured Qwen3 and Llama side
by side (tools/calib_torch.py --parts hf_host --hf-sizes tiny --hf-archs llama,qwen3: the tiny
models, one process, seconds apart; calib/device_compute_qwen3.sh runs it in both orders).

The builder prices `--arch qwen3` by hf_qwen3_layer_tiny / _rest_tiny / _pre_tiny (sim/fu_builder.c
fu__scale_host), which must sit on the profile's host scale, the one its hf_llama rows are on. A
calibration's rows are at its own lease's host speed, which moves 1.0-1.6x between and within
leases; the probe (host_probe_us) carries rows across leases to within 15-20% (data/compute/
README.md, compute21), more than the q/k norms add. What one process measures for both models is
their ratio, with the host's speed cancelled. So each row is

    hf_qwen3_X_tiny = the profile's hf_llama_X_tiny x median over the calibrations of
                      (hf_qwen3_X_tiny / hf_llama_X_tiny measured in the same calibration)

for X in layer, rest, pre (pre: forward only), each mode (bf16, fp32), forward and backward apart.
Where calibrations carry calib_torch's hf_pairs record (--hf-interleave: the two models' steps
interleaved round by round, so each round's two values are at one host speed), the ratio is instead
the median over their rounds (pooled) of each round's qwen3 / llama, with a bootstrap 95% interval
over the rounds (calib_torch.paired_ratio); the calibrations without the record are then left out.
Written as a calibration file (fusim-compute-1) with these rows only and no host_probe_us, so that
`fusim fit --compute OUT --merge-into PROFILE` adds them and changes nothing else. With --depth
D.json (tools/hf_depth.py --archs qwen3,... run against the profile with these rows), its
hf_qwen3_deep_tiny rows are added as they are (hf_depth puts them on the profile's scale itself).
diag holds every calibration's ratios and, for comparison, the rows the probe would give.

--arch A --anchor B makes another architecture's rows the same way, beside another that the profile
has (vit beside bert: torchvision's ViT layer, tools/calib_torch.py --hf-archs bert,vit).

Usage: python3 tools/qwen3_rows.py --profile data/profiles/h200-default.json --out OUT.json
           [--arch A --anchor B] [--depth D.json] CALIB.json [CALIB.json ...]
"""
import argparse
import json
import statistics
import sys

import calib_torch

PARTS = ("layer", "rest", "pre")
MODES = ("bf16", "fp32")


def host_rows(comp):
    """{(op, dtype): (host_fwd_us, host_bwd_us)} of a compute object's host-only rows."""
    return {(o["op"], o["dtype"]): (float(o["host_fwd_us"]), float(o["host_bwd_us"]))
            for o in comp.get("ops", []) if "host_fwd_us" in o and not o.get("numel")}


def qwen3_rows(profile, calibs, arch="qwen3", anchor="llama", modes=MODES):
    """(rows, diag): the hf_<arch> rows (default qwen3) from the profile's hf_<anchor> rows (default
    llama) and the calibrations' arch / anchor ratios (calibs: [(name, compute object)]). ValueError
    where a row cannot be made."""
    prof = host_rows(profile.get("compute", {}))
    rows, diag = [], {}
    paired = [(name, comp["hf_pairs"]) for name, comp in calibs if comp.get("hf_pairs")]
    for name, pr in paired:
        for mode in modes:
            got = pr.get("modes", {}).get(mode, {}).get("rounds_us", {})
            if anchor not in got or arch not in got:
                raise ValueError("%s: its hf_pairs record has no %s and %s rounds in %s (calib_torch.py "
                                 "--hf-interleave --hf-archs %s,%s, run to its end)" % (name, anchor, arch, mode, anchor, arch))
    if paired:
        diag["paired"] = {"calibrations": [n for n, _ in paired],
                          "left_out": [n for n, comp in calibs if not comp.get("hf_pairs")]}
    for part in PARTS:
        for mode in modes:
            key = "hf_%s_%s_tiny"
            base = prof.get((key % (anchor, part), mode))
            if base is None:
                if part == "pre":
                    continue  # an older profile: no pre row for the anchor, none for arch
                raise ValueError("the profile has no %s row in %s" % (key % (anchor, part), mode))
            ratios, carried = [], []
            for name, comp in calibs:
                got = host_rows(comp)
                q, l = got.get((key % (arch, part), mode)), got.get((key % (anchor, part), mode))
                sides = (0,) if part == "pre" else (0, 1)
                if paired:  # the ratio is the rounds'; the paired calibrations' rows only for comparison
                    if not comp.get("hf_pairs") or q is None or l is None or \
                            any(not (l[k] > 0) or not (q[k] > 0) for k in sides):
                        continue
                if q is None or l is None:
                    raise ValueError("%s: no %s / %s rows in %s (calib_torch.py --hf-archs %s,%s)"
                                     % (name, key % (arch, part), key % (anchor, part), mode, anchor, arch))
                if any(not (l[k] > 0) or not (q[k] > 0) for k in sides):
                    raise ValueError("%s: %s / %s in %s not above 0 (%s, %s): no ratio" %
                                     (name, key % (arch, part), key % (anchor, part), mode, q, l))
                ratios.append([q[k] / l[k] if k in sides else 0.0 for k in (0, 1)])
                ref = profile["compute"].get("host_probe_min_us") or profile["compute"].get("host_probe_us")
                probes = comp.get("diag", {}).get("hf_host", {}).get("probes_us") or []
                if ref and probes and min(probes) > 0:
                    carried.append([round(q[k] * ref / min(probes), 2) for k in (0, 1)])
            d = {"%s_profile_us" % anchor: list(base)}
            if paired:
                # each round's arch / anchor, the rounds of every paired calibration pooled
                pooled = {a: {p: [x for _, rec in paired for x in rec["modes"][mode]["rounds_us"][a][p]]
                              for p in PARTS} for a in (anchor, arch)}
                pr_ = calib_torch.pair_ratios(pooled, anchor, arch)[part]
                if pr_[0] is None or (part != "pre" and pr_[1] is None):
                    raise ValueError("no round with a %s ratio in %s (the %s values not above 0)" % (part, mode, anchor))
                r = [x["median"] if x else 0.0 for x in pr_]
                d.update(method="paired", ci95=[x["ci95"] if x else None for x in pr_],
                         rounds=[x["rounds"] if x else 0 for x in pr_])
            else:
                r = [statistics.median(x[k] for x in ratios) for k in (0, 1)]
                d["method"] = "calibrations"
            row = {"op": key % (arch, part), "dtype": mode, "numel": [], "fwd_us": [], "bwd_us": [],
                   "host_fwd_us": round(base[0] * r[0], 2), "host_bwd_us": round(base[1] * r[1], 2)}
            rows.append(row)
            d.update(ratio_median=[round(v, 4) for v in r], ratios=[[round(v, 4) for v in x] for x in ratios],
                     by_probe_us=carried)
            diag["%s_%s" % (part, mode)] = d
    return rows, diag


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--depth", help="tools/hf_depth.py's output: its hf_<arch>_deep_tiny rows are added")
    ap.add_argument("--arch", default="qwen3", help="the architecture whose rows are made (default qwen3)")
    ap.add_argument("--anchor", default="llama",
                    help="the architecture timed beside it, whose profile rows carry the ratio (default llama)")
    ap.add_argument("--modes", default=",".join(MODES),
                    help="the modes made (default bf16,fp32; bf16 alone from a calibration cut short in fp32)")
    ap.add_argument("calibs", nargs="+")
    a = ap.parse_args(argv)
    modes = tuple(m for m in a.modes.split(",") if m)
    if not modes or any(m not in MODES for m in modes):
        print("qwen3_rows: --modes: from %s" % ",".join(MODES), file=sys.stderr)
        return 64
    try:
        profile = json.load(open(a.profile))
        calibs = []
        for p in a.calibs:
            d = json.load(open(p))
            calibs.append((p, d.get("compute", d)))
        rows, diag = qwen3_rows(profile, calibs, a.arch, a.anchor, modes)
        if a.depth:
            deep = [o for o in json.load(open(a.depth)).get("compute", {}).get("ops", [])
                    if o["op"] == "hf_%s_deep_tiny" % a.arch]
            if not deep:
                raise ValueError("%s: no hf_%s_deep_tiny rows (hf_depth.py --archs %s,...)" % (a.depth, a.arch, a.arch))
            rows += deep
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        print("qwen3_rows: %s" % e, file=sys.stderr)
        return 65 if not isinstance(e, OSError) else 66
    out = {"format": "fusim-compute-1",
           "command": "tools/qwen3_rows.py " + " ".join(argv if argv is not None else sys.argv[1:]),
           "compute": {"source": "tools/qwen3_rows.py: the profile's hf_%s _tiny rows x the median %s/%s "
                                 "ratio %s%s"
                                 % (a.anchor, a.arch, a.anchor, "over the rounds of %d calibration(s) timing both round by round (paired)"
                                    % len(diag["paired"]["calibrations"]) if "paired" in diag else
                                    "of %d calibrations measuring both side by side" % len(calibs),
                                    "; hf_%s_deep_tiny by hf_depth.py" % a.arch if a.depth else ""),
                       "ops": rows},
           "diag": diag}
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    if "paired" in diag:
        print("paired: the rounds of %s%s" % (", ".join(diag["paired"]["calibrations"]),
                                              "; left out (no hf_pairs): " + ", ".join(diag["paired"]["left_out"])
                                              if diag["paired"]["left_out"] else ""))
    for k, v in diag.items():
        if k == "paired":
            continue
        each = " ".join("%.3f/%.3f" % tuple(x) for x in v["ratios"])
        if v["method"] == "paired":
            ci, n = v["ci95"], v["rounds"]
            print("%-11s %s/%s paired median fwd %.3f [%.3f, %.3f] over %d rounds%s (the rows' ratios: %s)" % (
                k, a.arch, a.anchor, v["ratio_median"][0], ci[0][0], ci[0][1], n[0],
                "; bwd %.3f [%.3f, %.3f] over %d rounds" % (v["ratio_median"][1], ci[1][0], ci[1][1], n[1])
                if ci[1] else "", each or "none"))
        else:
            print("%-11s %s/%s median fwd %.3f bwd %.3f over %d calibrations (each %s)" % (
                k, a.arch, a.anchor, v["ratio_median"][0], v["ratio_median"][1], len(v["ratios"]), each))
    return 0


if __name__ == "__main__":
    sys.exit(main())
