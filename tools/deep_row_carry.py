#!/usr/bin/env python3
"""deep_row_carry.py: an architecture's hf_<arch>_deep_tiny rows from another's depth effect, where
no GPU measured its own (tools/hf_depth.py).

The _tiny rows' per-layer host cost is the slope between 1 and 3 layers; a layer past the
reference step's depth costs more (hf_depth.py timed tiny BERT at 3 and 12 layers: 1.05-1.22x the
slope; sim/fu_builder.c fu__deep_row), which is the framework's (Python module calls and an
autograd graph that grows with depth), not the architecture's. An architecture whose layer rows
were made beside an anchor's (tools/qwen3_rows.py --arch A --anchor B) takes the anchor's ratio:

    hf_<arch>_deep_tiny = hf_<arch>_layer_tiny x hf_<anchor>_deep_tiny / hf_<anchor>_layer_tiny

per mode, forward and backward apart. With --anchor-profile, the anchor's two rows come from that
profile instead: the same architecture measured on another GPU (--anchor vit --anchor-profile
data/profiles/h100-sxm.json carries the H100's measured ViT ratio to the H200, whose host and
software are the H100's kind; the ratio is the framework's and, as hf_depth.py shows, the
architecture's: ViT 1.16 / 1.16 in bf16 where BERT has 1.13 / 1.07). A derived row, written as one (its "derived" names the
anchor and the ratios; fusim workload says so when it prices with it), for `fusim fit --compute OUT --merge-into PROFILE`; a GPU's hf_depth.py run replaces it.

Usage: python3 tools/deep_row_carry.py --profile P --arch vit --anchor bert [--anchor-profile P2] --out OUT.json
"""
import argparse
import json
import sys

from derive_nchw import derived_mark

MODES = ("bf16", "fp32")


def deep_rows(compute, arch, anchor, anchor_compute=None, where=""):
    """The derived rows, one a mode (the anchor's rows from anchor_compute where given, named
    by where in the mark); ValueError where a row they need is missing."""
    rows = {(o["op"], o["dtype"]): o for o in compute.get("ops", [])}
    arows = {(o["op"], o["dtype"]): o for o in (anchor_compute or compute).get("ops", [])}
    out = []
    for mode in MODES:
        need = ["hf_%s_layer_tiny" % arch, "hf_%s_layer_tiny" % anchor, "hf_%s_deep_tiny" % anchor]
        got = [rows.get((need[0], mode))] + [arows.get((k, mode)) for k in need[1:]]
        for i, (k, g) in enumerate(zip(need, got)):
            if g is None:
                raise ValueError("the %s has no %s row in %s" % (
                    "anchor profile" if i and anchor_compute else "profile", k, mode))
        layer, alayer, adeep = got
        for t in (alayer, adeep):
            if not (t["host_fwd_us"] > 0 and t["host_bwd_us"] > 0):
                raise ValueError("%s in %s is not above 0" % (t["op"], mode))
        r = [adeep[k] / alayer[k] for k in ("host_fwd_us", "host_bwd_us")]
        out.append({"op": "hf_%s_deep_tiny" % arch, "dtype": mode, "numel": [], "fwd_us": [], "bwd_us": [],
                    "host_fwd_us": round(layer["host_fwd_us"] * r[0], 3),
                    "host_bwd_us": round(layer["host_bwd_us"] * r[1], 3),
                    "derived": derived_mark("%s's depth ratio %.3f / %.3f%s" % (anchor, r[0], r[1], where))})
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", required=True)
    ap.add_argument("--arch", required=True)
    ap.add_argument("--anchor", required=True)
    ap.add_argument("--anchor-profile", help="take the anchor's rows from this profile")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    try:
        anchor_compute, where = None, ""
        if a.anchor_profile:
            ap_json = json.load(open(a.anchor_profile))
            anchor_compute, where = ap_json["compute"], " on " + ap_json.get("name", a.anchor_profile)
        rows = deep_rows(json.load(open(a.profile))["compute"], a.arch, a.anchor, anchor_compute, where)
    except (OSError, ValueError, KeyError) as e:
        print("deep_row_carry: %s" % e, file=sys.stderr)
        return 65
    out = {"format": "fusim-compute-1",
           "command": "tools/deep_row_carry.py " + " ".join(argv),
           "compute": {"source": "tools/deep_row_carry.py: hf_%s_deep_tiny by hf_%s's depth effect%s (derived, "
                                 "not measured on %s here)" % (a.arch, a.anchor, where, a.arch), "ops": rows}}
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    for r in rows:
        print("%s %s fwd %.1f bwd %.1f us: hf_%s_layer_tiny x %s" % (r["op"], r["dtype"], r["host_fwd_us"],
                                                                   r["host_bwd_us"], a.arch, r["derived"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
