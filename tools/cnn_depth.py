#!/usr/bin/env python3
"""cnn_depth.py: a ResNet bottleneck block's host cost past ResNet-50's depth (issue 13, compute16).

`fusim workload --cnn` scales every operation's host cost by one factor per direction, the one
that makes ResNet-50's operations add up to the profile's tv_resnet50_held row (the whole step,
batch 32, 224 x 224, channels-last, the GPU held: calib_torch's hf_host part), and prices
ResNet-101 and ResNet-152 by the same factor. The captured deep ResNets' forward() and backward()
CPU time came out 0.87-0.95x of that (data/compute/README.md, cpuF / cpuB), ResNet-50's own
0.95-1.05x: if a block costs the host less than ResNet-50's average operation implies (the stem,
the head, the loss and backward()'s own start spread over its 16 blocks by the one factor), the
reference cannot show it. Here torchvision's ResNet-50, -101 and -152 (16, 33 and 50 bottleneck
blocks; -101 adds 17 identity blocks to the third stage, -152 four to the second and 30 to the
third) run as tv_resnet50_held is timed (calib_torch.held_step_host), all three in every round
(order alternating), bf16 autocast and fp32. Per round (ResNet-101 - ResNet-50) / 17 blocks over
that round's ResNet-50 step is the host's speed cancelled; its median over rounds times the
profile's tv_resnet50_held gives the row tv_resnet_block_deep (host time of one bottleneck block
past ResNet-50's, at the profile's host speed; sim/fu_build_cnn.c fu__cnn_deep prices each such
block by it). ResNet-152 is timed beside them as a check (diag: each deep model's median ratio
to ResNet-50 and its own per-block row), not in the row: held, its calls can outlast the sleep
(more launches than the GPU's queue takes while it sleeps: on 2026-12-04u in bf16 both calls
lasted the sleep, 55-59 ms, in every round), and a call that waits on the GPU is no host time.
Rounds where a call of ResNet-50 or -101 outlasted its sleep are left out of the row (past_sleep
per round and model; the 2026-12-04u file predates that record and holds only the total).

--steps FILE re-derives the rows from an earlier output's steps (no GPU needed).

Usage (on the GPU machine): python3 tools/cnn_depth.py --profile data/profiles/h200-default.json
                                [--rounds 12] [--batch 32] --out F.json
The output is rewritten after every round, so a call cut short keeps the rounds it finished.
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from host_ref import profile_host_row, load_profile, out_writable  # noqa: E402

MODES = ("bf16", "fp32")
BLOCKS = {"resnet50": 16, "resnet101": 33, "resnet152": 50}  # bottleneck blocks (3+4+6+3, ...)
REF = "resnet50"
DEEP = "resnet101"  # the row's pair: ResNet-50 and this


def ref_row(profile, mode):
    """The profile's tv_resnet50_held (fwd, bwd) in mode; None without."""
    return profile_host_row(profile, "tv_resnet50_held", mode)


def pair_row(rounds, model, ref):
    """Median over rounds of (model's step - ResNet-50's) per block past ResNet-50's, over the
    round's ResNet-50 step, times the profile's row ref: (fwd, bwd) us."""
    n = BLOCKS[model] - BLOCKS[REF]
    return [statistics.median((r[model][k] - r[REF][k]) / n / r[REF][k] for r in rounds) * ref[k] for k in (0, 1)]


def deep_rows(steps, profile, past=None):
    """Rows and diagnosis from the timed steps: steps[mode] = [{model: (fwd, bwd)} per round], us;
    past[mode] (optional) = [{model: calls past the sleep} per round]. Row tv_resnet_block_deep per
    mode whose profile has tv_resnet50_held: pair_row of DEEP over the rounds where neither
    ResNet-50's nor DEEP's calls outlasted the sleep. diag: per deep model its median step ratio
    to ResNet-50 and its own pair_row (over the rounds that have it), and the row over the
    profile's mean block (tv_resnet50_held / 16: what the one factor gives a block, roughly)."""
    rows, diag = [], {}
    for mode, rounds in sorted(steps.items()):
        ref = ref_row(profile, mode)
        flags = (past or {}).get(mode) or [{} for _ in rounds]
        ok = [r for r, f in zip(rounds, flags) if REF in r and DEEP in r and not f.get(REF) and not f.get(DEEP)]
        if ref is None or not ok:
            continue
        per = pair_row(ok, DEEP, ref)
        rows.append({"op": "tv_resnet_block_deep", "dtype": mode, "numel": [], "fwd_us": [], "bwd_us": [],
                     "host_fwd_us": round(per[0], 2), "host_bwd_us": round(per[1], 2)})
        d = {"rounds": len(ok), "rounds_left_out": len(rounds) - len(ok),
             "block_over_ref_mean": [round(per[k] / (ref[k] / BLOCKS[REF]), 3) for k in (0, 1)]}
        for m in BLOCKS:
            have = [r for r in rounds if REF in r and m in r]
            if m == REF or not have:
                continue
            d["ratio_%s" % m] = [round(statistics.median(r[m][k] / r[REF][k] for r in have), 3) for k in (0, 1)]
            d["pair_block_us_%s" % m] = [round(v, 2) for v in pair_row(have, m, ref)]
        diag[mode] = d
    return rows, diag


def write(out, d, rows, diag):
    """The output file: d's record with the rows and the diagnosis."""
    d = dict(d, diag=diag)
    d["compute"] = dict(d.get("compute", {}), ops=rows)
    with open(out, "w") as f:
        json.dump(d, f, indent=1)
        f.write("\n")


def report(rows, diag):
    for mode, v in diag.items():
        print("%s (%d rounds, %d left out): a block past ResNet-50's over its mean block fwd %.3f bwd %.3f; %s" % (
            mode, v["rounds"], v["rounds_left_out"], v["block_over_ref_mean"][0], v["block_over_ref_mean"][1],
            {k: x for k, x in v.items() if k.startswith(("ratio", "pair"))}), flush=True)
    for r in rows:
        print("row %s %s host fwd %.1f bwd %.1f us" % (r["op"], r["dtype"], r["host_fwd_us"], r["host_bwd_us"]))


def rederive(a, profile):
    """--steps: the rows from an earlier output's steps (and past-sleep flags where it has them)."""
    try:
        d = json.load(open(a.steps))
        steps = {mode: [{m: tuple(v) for m, v in r.items()} for r in rs] for mode, rs in d["steps"].items()}
        rows, diag = deep_rows(steps, profile, d.get("past_sleep"))
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError) as e:
        print("cnn_depth: --steps %s: not a cnn_depth output (%s: %s)" % (a.steps, type(e).__name__, e),
              file=sys.stderr)
        return 65
    d["command_rows"] = "tools/cnn_depth.py --profile %s --steps %s" % (a.profile, a.steps)
    write(a.out, d, rows, diag)
    report(rows, diag)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--steps", help="re-derive the rows from this earlier output (no GPU)")
    a = ap.parse_args(argv)
    if a.rounds < 1 or a.batch < 2:
        print("cnn_depth: --rounds at least 1, --batch at least 2", file=sys.stderr)
        return 64
    profile, status = load_profile("cnn_depth", a.profile, lambda p: [ref_row(p, mode) for mode in MODES])
    if profile is None:
        return status
    if not out_writable("cnn_depth", a.out):
        return 73
    if a.steps:
        return rederive(a, profile)
    import calib_torch
    torch = calib_torch.import_torch("cnn_depth")
    import torchvision
    t0 = time.time()
    torch.backends.cudnn.benchmark = True  # as hf_host times tv_resnet50_held
    x = torch.randn(a.batch, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    models, sleeps = {}, {}
    for name in BLOCKS:
        torch.manual_seed(0)
        m = getattr(torchvision.models, name)(weights=None).cuda().to(memory_format=torch.channels_last).train()
        for mode in MODES:
            def fwd(m=m, bf16=mode == "bf16"):
                if bf16:
                    with torch.autocast("cuda", dtype=torch.bfloat16):
                        return m(x).float().sum()
                return m(x).sum()
            for _ in range(3):  # cuDNN's benchmark and the allocator
                f, b = calib_torch.plain_step_host(torch, m, fwd)
            # the sleep outlasts either call's issue with room (~2000 cycles a us)
            sleeps[(name, mode)] = int(2000 * (2 * max(f, b) + 5000))
            models[(name, mode)] = (m, fwd)
        print("[%.0f s] %s built and warm" % (time.time() - t0, name), flush=True)
    steps = {mode: [] for mode in MODES}
    past = {mode: [] for mode in MODES}
    names = list(BLOCKS)
    rec = {"format": "fusim-compute-1", "gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "torchvision": torchvision.__version__,
           "command": "tools/cnn_depth.py " + " ".join(argv if argv is not None else sys.argv[1:])}
    rows, diag = [], {}
    for i in range(a.rounds):
        for mode in MODES:
            got, flags = {}, {}
            for name in (names if i % 2 == 0 else names[::-1]):
                m, fwd = models[(name, mode)]
                f, b, s_ = calib_torch.held_step_host(torch, m, fwd, sleeps[(name, mode)])
                m.zero_grad(set_to_none=True)
                got[name], flags[name] = (f, b), int(s_)
            steps[mode].append(got)
            past[mode].append(flags)
        rows, diag = deep_rows(steps, profile, past)
        rec.update(compute={"source": "tools/cnn_depth.py (torchvision ResNet-50/101/152 at batch %d, held, "
                                      "%d rounds)" % (a.batch, i + 1)},
                   steps={mode: [{k: [round(v, 1) for v in r[k]] for k in r} for r in s] for mode, s in steps.items()},
                   past_sleep=past, calls_past_sleep=sum(sum(f.values()) for p in past.values() for f in p),
                   wall_s=round(time.time() - t0, 1))
        write(a.out, rec, rows, diag)
        print("[%.0f s] round %d: %s" % (time.time() - t0, i + 1, "; ".join(
            "%s %s" % (mode, " ".join("%s %.0f/%.0f" % (n, *steps[mode][-1][n]) for n in names)) for mode in MODES)),
            flush=True)
    report(rows, diag)
    print("calls past the sleep: %d" % rec.get("calls_past_sleep", 0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
