"""torch_modelcost.py: the frameworks' per-parameter host costs measured on the model being
captured (issue 10: "record the framework's own costs, measured on the machine").

Why: on the H200 real steps paid 2.1-2.7x the per-parameter cost of DDP's Reducer that the
model-independent tower (tools/torch_fwcal.py) measured in the same process (run 10: 33.5-43.8
us against 16.3 in copy mode), while per bucket the two agreed; no probe of the host's speed
explained it. Whatever makes a model's hooks dearer (its graph, its shapes, its kernels, the
host's caches), it travels with the model, so the capture measures it on the model itself.

How: copies of the captured model, each with its own optimizer of the capture's kind, run full
training steps in rounds, one step of every variant per round in an order rotated every round:
  none    no framework
  ddpv_1  DDP, bucket views, ONE bucket for all gradients, DDP's default all-reduce (the tower's
          ddpv_1: per gradient the autograd hook and the in-place division of its view)
  ddpc_h  DDP, copies into ONE bucket, a comm hook that does nothing (per gradient the hook, the
          copy into the bucket and the copy back at finalize)
  hk_1    the hook pattern (torch_host.HookFuser), ONE bucket
None of them is a plan of the validation matrix (whose DDP plans have caps of 1-100 MiB or one
bucket per tensor with DDP's all-reduce or the offload hook, and whose hook pattern has caps of
one tensor, 4 and 25 MiB). With one bucket the per-bucket costs are paid once, so each variant's
backward() CPU time over the framework-free step's (median of per-round differences) is
P x its per-parameter cost plus a fixed part, which is taken from the tower (DDP's finalize_us,
which includes the one bucket's call; the hook pattern's bucket_us):
  ddp.param_us  = (d(ddpv_1) - finalize_us) / P
  ddp.copy_us   = median over rounds of (ddpc_h - ddpv_1) / P (the two modes paired directly)
  hooks.hook_us = (d(hk_1) - hooks.bucket_us) / P
With buckets (captures from run 19 on), two variants more, each with a bucket per parameter,
every bucket called from inside backward as it fills:
  ddpv_n  DDP, bucket views, one bucket per parameter, DDP's default all-reduce
  hk_n    the hook pattern, one bucket per parameter
  ddp.bucket_us   = (d(ddpv_n) - d(ddpv_1)) / (P - 1)
  hooks.bucket_us = (d(hk_n) - d(hk_1)) / (P - 1), and then hooks.hook_us takes it in place of
                    the tower's as hk_1's fixed part.
and from session 23 on a third (where a capture lacks it, comm_hook_bucket derives the cost):
  ddpo_n  DDP, bucket views, one bucket per parameter, the offload comm hook (torch_host's)
  ddp.hook_bucket_us = ddp.bucket_us + (d(ddpo_n) - d(ddpv_n)) / P: the same buckets as ddpv_n,
                    each the comm hook's call in place of the default all-reduce's.
and from session 24 on, the spacing variants (spacing_variants=True): how a bucket's issue from
inside backward costs more the more of backward's own host work ran since the previous issue. Runs
11-22's loops show it in both Python paths: the hook pattern's in-backward issue per bucket (each
overlap-on plan over the overlap-off one, backward() CPU paired) rises from per tensor to 4 MiB
to 25 MiB buckets in 26 of 37 model-runs (run 11: 29 -> 55 -> 79 us on ResNet-50, buckets 36,
302 and 1432 us apart), and DDP's offload comm hook over its default all-reduce is dearer per
bucket at 25 MiB than at 4 MiB in 31 of 37 (run 22: 37-51 us on the model at one bucket per
parameter, 136-268 at 4 MiB, 167-742 at 25 MiB) (torch_run_report's spacing section):
  hk_0     the hook pattern's hooks and copies into its buffers, no bucket issued
  hk_e4    the hook pattern, a bucket closed every 4 gradients (firing order), issued as it fills
  hk_e16   the same every 16 gradients
  ddpv_e16 DDP, bucket views, buckets of about 16 parameters' bytes, DDP's default all-reduce
  ddpo_e16 the same buckets, the offload comm hook
  a hook-pattern issue n gradients apart = (d(hk_n or hk_en) - d(hk_0)) / its buckets, and DDP's
  comm hook over its default all-reduce = (d(ddpo_x) - d(ddpv_x)) / buckets, each against the
  buckets' spacing (the framework-free backward() CPU over the buckets): issue_spacing in meta,
  and apply() writes each framework's curve (spacing_curve: the points the rounds tell from
  none, two at least) into the host block as host.issue_spacing, which fusim prices every
  in-backward issue by (sim/fu_predict.c).
  With hk_0 the hook pattern's two costs come from it (session 28): hooks.hook_us = d(hk_0) / P
  and hooks.bucket_us = (d(hk_n) - d(hk_0)) / P. hk_1's issue, the last of backward and as far
  from the one before as an issue can be, is dearer than a dense one; hk_1 less a dense bucket
  put that excess on every hook, so every bucketed plan paid it on top of its issues' spacing
  curve (which is counted from hk_0 already). hk_n is charged its whole either way.
Run 18's loop paid 75-92 us per DDP bucket and 102-140 us per hook-pattern bucket (its per-tensor
plans against the 100 / 25 MiB ones, backward() CPU time), where the tower's synthetic bank
measured 51 and 62 in the same run: like the per-parameter costs, the per-bucket ones travel
with the model.
The framework-free step's own median backward() CPU time (bwd_cpu_us) is kept with them: a
later loop of the same model carries the costs to its host speed by its own framework-free
backward() CPU time over this one (tools/store_torch_validation.py).

DDP's forward work (pre-forward, the broadcast of the module's buffers, preparing backward) is
measured here as well, whole: each step's forward CPU time, the DDP variants' over the
framework-free one's (ddp_forward; carried to a loop by its framework-free forward CPU time).
Where its bootstrap's low end is positive it replaces the tower's forward_us + broadcast_us +
buffers x buffer_us: on run 15 those, extrapolated from a synthetic bank of 18-144 buffers,
priced ResNet-101's (312 buffers) at 12.4 ms against 2.6-6.6 ms in the loop.

An experiment rides along (cold=True, not used for the costs): every round each variant runs a
second step right after the host's caches were flushed (a 256 MiB host tensor rewritten), as
they are in a loop where other models ran between two steps of one plan (the validation's
loop interleaves 13 copies of the model); "cold" holds the same estimates from those steps.

estimate() is pure Python (tests/validate/test_modelcost.py checks it on hand-made data);
measure() needs torch with CUDA and NCCL (a world of one rank is set up when none is).
"""
import copy
import gc
import random
import statistics
import time

import host_state
import torch_host
from quantile import quantile

MiB = 2**20
# How much more steeply an in-backward issue's whole cost (backward() over backward()) rises with
# its spacing than its own calls (issue_direct) do, measured inside the validation loop
# (tools/loop_issue_probe.py, data/validation/loop_issue_probe_run1: the hook pattern's 4 / 25 MiB
# plans over its per-tensor plan, the median of the three the rounds resolve: the host work
# right after a far-apart issue is slowed about as much as the issue's own calls are, which a
# capture's timed calls do not see). store_torch_validation.whole_rise.
WHOLE_OVER_CALLS = 2.11
# The hook pattern's in-backward issue: its calls' CPU time over the densest issue's against
# backward's own host work since the previous issue ([[us apart, extra us], ...]), timed call by
# call inside a real backward() at a bucket every 1, 4, 16 and 64 gradients on ResNet-50 and GPT-2
# (tools/issue_probe.py, data/validation/issue_probe_run1: the two models within a few us; the
# extra is the calls' data evicted from the CPU caches by that work, a property of the host and
# the calls). Reproduce: python3 data/validation/issue_cold_whatif.py
# data/validation/issue_probe_run1/issue_probe.json (its first line).
# store_torch_validation.probe_spacing prices it where a capture did not time its issues.
# The hook pattern's issue at one bucket per gradient: its whole cost in the validation loop (the
# per-tensor plan's backward() CPU over the overlap-off plan's, per issue) over its own calls
# timed in the same steps: MNASNet 42.5 / 34.4, ConvNeXt-S 45.6 / 32.2, T5-small 65.2 / 45.2
# (tools/loop_issue_probe.py, data/validation/loop_issue_probe_run1/split.txt), median 1.42.
# store_torch_validation.dense_from_calls (opt-in).
DENSE_WHOLE_OVER_CALLS = 1.42
ISSUE_COLD_EXTRA = [[56.3, 0.0], [223.7, 14.57], [830.2, 34.72], [2880.7, 50.68]]
HUGE = 1e4        # MiB: one bucket for all gradients
VARIANTS = ("none", "ddpv_1", "ddpc_h", "hk_1")
# per-bucket variants (captures from run 19 on): a bucket per parameter, each issued from inside
# backward as it fills; ddpo_n (DDP's offload comm hook) from session 23 on
BUCKET_VARIANTS = ("ddpv_n", "hk_n", "ddpo_n")
# spacing variants (session 24): the in-backward issue's cost against the host work between
# issues; each (variant, gradients a bucket); ddpv_e16 / ddpo_e16 size DDP's buckets by bytes
SPACING_VARIANTS = ("hk_0", "hk_e4", "hk_e16", "ddpv_e16", "ddpo_e16")
# measure(spacing_every=...) names others the same way (session 24, run 24: every 64 gradients,
# the plans' 25 MiB spacing on ResNet-50): hk_eN for every N, the DDP pair for N >= 16
DDP_EVERY_MIN = 16


def spacing_names(every=(4, 16)):
    """The spacing variants' names for bucket sizes of every N gradients (the default gives
    SPACING_VARIANTS)."""
    ns = sorted(set(int(n) for n in every))
    return (("hk_0",) + tuple("hk_e%d" % n for n in ns)
            + tuple("%s_e%d" % (k, n) for n in ns if n >= DDP_EVERY_MIN for k in ("ddpv", "ddpo")))


def every_of(v):
    """N of a spacing variant named *_eN, else None."""
    head, _, n = v.rpartition("_e")
    return int(n) if head in ("hk", "ddpv", "ddpo") and n.isdigit() else None
# each per-bucket estimate and the host-block cost it replaces
BUCKET_COSTS = (("ddp_bucket_us", "ddp", "bucket_us"), ("hooks_bucket_us", "hooks", "bucket_us"),
                ("ddp_hook_bucket_us", "ddp", "hook_bucket_us"))


def estimate(bwd, P, fixed, rounds=None):
    """The costs from bwd[v] = [backward() CPU us per round] for v in VARIANTS, P parameters and
    the tower's fixed parts fixed = {"finalize_us", "hooks_bucket_us"}. rounds: indices to use
    (default all; the bootstrap passes resamples). Negative costs are kept (they say the
    measurement was noise); the caller decides what to use."""
    n = len(bwd["none"])
    rs = list(range(n)) if rounds is None else rounds

    def d(v):
        return statistics.median(bwd[v][r] - bwd["none"][r] for r in rs)

    out = {}
    hooks_bucket = fixed["hooks_bucket_us"]
    # hk_0 (captures from session 24 on): the hook pattern's hooks and copies with no issue at
    # all, so the hook alone. hk_1's one issue comes at the end of backward, as far from the one
    # before (the previous step's) as an issue can be, and costs more than a dense one (the issue
    # probe's curve); through hk_1 less a dense bucket that excess rode on every hook, so every
    # bucketed plan paid it once a step on top of its own issues' spacing curve (torch19's
    # mechanism 3; data/validation/README.md, "The hook from hk_0").
    hk0 = bool(bwd.get("hk_0"))
    if bwd.get("ddpv_n") and bwd.get("hk_n") and P > 1:
        # P buckets against one, each a parameter: P - 1 bucket calls more, issued from inside
        # backward as the model's own gradients become ready (the tower's synthetic bank paid
        # 0.4-0.7x of this in run 18's loop). The hook pattern's then needs no fixed part. With
        # hk_0, P dense issues over none: hk_n is still charged its whole (P x (hook + bucket)).
        out["ddp_bucket_us"] = round((d("ddpv_n") - d("ddpv_1")) / (P - 1), 3)
        out["hooks_bucket_us"] = round((d("hk_n") - d("hk_0")) / P if hk0 else
                                       (d("hk_n") - d("hk_1")) / (P - 1), 3)
        hooks_bucket = out["hooks_bucket_us"]
        if bwd.get("ddpo_n"):   # the same buckets, the comm hook's call for the all-reduce's
            out["ddp_hook_bucket_us"] = round(out["ddp_bucket_us"]
                                              + (d("ddpo_n") - d("ddpv_n")) / P, 3)
    param = (d("ddpv_1") - fixed["finalize_us"]) / P
    # the copy is the copy mode's step over the view mode's, paired round by round: the two
    # differences of medians over `none` (the two modes' whole) each carry the framework-free
    # step's own jitter, which does not cancel (run 26's EfficientNetV2-S: 9.9 [-1.9, 13.1] that
    # way, 9.1 [0.3, 11.9] paired; the loop's own copy-over-view rounds 9.8)
    copy_ = statistics.median(bwd["ddpc_h"][r] - bwd["ddpv_1"][r] for r in rs) / P
    hook = d("hk_0") / P if hk0 else (d("hk_1") - hooks_bucket) / P
    out.update({"param_us": round(param, 3), "copy_us": round(copy_, 3), "hook_us": round(hook, 3),
                "bwd_cpu_us": round(statistics.median(bwd["none"][r] for r in rs), 1)})
    return out


def with_ci(bwd, P, fixed, boot=200, seed=1):
    """estimate() and, per cost, the p5 / p95 of a bootstrap over rounds (ci)."""
    est = estimate(bwd, P, fixed)
    n = len(bwd["none"])
    rng = random.Random(seed)
    samples = [estimate(bwd, P, fixed, [rng.randrange(n) for _ in range(n)]) for _ in range(boot)]
    est["ci"] = {k: [round(quantile([s[k] for s in samples], 0.05), 3),
                     round(quantile([s[k] for s in samples], 0.95), 3)]
                 for k in ("param_us", "copy_us", "hook_us") + tuple(c[0] for c in BUCKET_COSTS)
                 if k in est}
    return est


def spacing(bwd, P, nbs, rounds=None):
    """The spacing variants' points from bwd[v] (backward() CPU us per round, as estimate()'s) and
    nbs[v], the buckets each variant issued per step: {"hooks": [[buckets, us apart, us per
    bucket]], "ddp_offload": [...]}, each list dense first. us apart: the framework-free
    backward() CPU (median) over the buckets. hooks: (d(v) - d(hk_0)) / buckets for hk_n (P
    buckets), hk_e4, hk_e16; ddp_offload: (d(ddpo) - d(ddpv)) / buckets for the per-parameter
    pair and the e16 pair. A variant missing from bwd or nbs is left out."""
    n = len(bwd["none"])
    rs = list(range(n)) if rounds is None else rounds

    def d(v):
        return statistics.median(bwd[v][r] - bwd["none"][r] for r in rs)

    base = statistics.median(bwd["none"][r] for r in rs)
    out = {"hooks": [], "ddp_offload": []}
    ns = sorted({every_of(v) for v in bwd if every_of(v)})
    if bwd.get("hk_0"):
        for v, nb in [("hk_n", P)] + [("hk_e%d" % n, nbs.get("hk_e%d" % n)) for n in ns]:
            if bwd.get(v) and nb:
                out["hooks"].append([nb, round(base / nb, 1), round((d(v) - d("hk_0")) / nb, 3)])
    for o, v, nb in [("ddpo_n", "ddpv_n", P)] + [("ddpo_e%d" % n, "ddpv_e%d" % n,
                                                  nbs.get("ddpo_e%d" % n)) for n in ns]:
        if bwd.get(o) and bwd.get(v) and nb:
            out["ddp_offload"].append([nb, round(base / nb, 1), round((d(o) - d(v)) / nb, 3)])
    return out


def spacing_with_ci(bwd, P, nbs, boot=200, seed=1):
    """spacing() with each point's p5 / p95 over rounds resampled appended ([buckets, us apart,
    us per bucket, [p5, p95]])."""
    est = spacing(bwd, P, nbs)
    n = len(bwd["none"])
    rng = random.Random(seed)
    samples = [spacing(bwd, P, nbs, [rng.randrange(n) for _ in range(n)]) for _ in range(boot)]
    for key, pts in est.items():
        for i, pt in enumerate(pts):
            xs = [s_[key][i][2] for s_ in samples]
            pt.append([round(quantile(xs, 0.05), 3), round(quantile(xs, 0.95), 3)])
    return est


def spacing_curve(points):
    """A host block's issue-spacing curve ([[us apart, us], ...], fusim's host.issue_spacing)
    from spacing_with_ci()'s points of one framework: those whose bootstrap p5 is above 0 (the
    rounds tell them from none), in increasing spacing (a point no farther apart than the one
    before is left out); None with fewer than 2 (no curve: the per-bucket cost stands)."""
    pts, last = [], 0.0
    for p in sorted((p for p in points if len(p) > 3 and p[3][0] > 0), key=lambda p: p[1]):
        if p[1] > last:
            pts.append([p[1], p[2]])
            last = p[1]
    return pts if len(pts) >= 2 else None


def issue_direct(direct, P, nbs, base, rounds=None):
    """The in-backward issue's own CPU time, timed call by call (tools/issue_probe.py found the
    mechanism: the issue's calls find their data evicted from the CPU caches by backward's own
    host work since the previous issue, so they cost more the farther apart, up to all of it
    cold; a dummy issue right before takes the whole extra and leaves the real one at its dense
    cost; no GPU, launch-queue or byte effect). direct[v] = [per round: the median over the
    step's issues but its first (cold from the previous step) of each issue's CPU us] for the
    issuing variants hk_n, hk_eN (the hook pattern's HookFuser._issue) and ddpo_n, ddpo_eN (DDP's
    offload comm hook's body); nbs[v]: buckets a step (hk_n, ddpo_n: P). Per framework
    ({"hooks", "ddp_offload"}) the points [buckets, us apart, us, extra us] in increasing spacing,
    us apart as spacing()'s (the framework-free backward() CPU, base, over the buckets) and extra
    over the densest point's us (the per-bucket cost the model's one-bucket-per-parameter
    variants already price). rounds: indices to use (the bootstrap passes resamples)."""
    out = {}
    for key, pre in (("hooks", "hk"), ("ddp_offload", "ddpo")):
        pts = []
        for v, xs in direct.items():
            nb = P if v == pre + "_n" else nbs.get(v) if v.startswith(pre + "_e") else None
            xs = [xs[r] for r in (range(len(xs)) if rounds is None else rounds)
                  if r < len(xs) and xs[r] is not None]
            if nb and xs:
                pts.append([nb, round(base / nb, 1), round(statistics.median(xs), 3)])
        pts.sort(key=lambda p: p[1])
        for p in pts:
            p.append(round(p[2] - pts[0][2], 3))
        if len(pts) >= 2:
            out[key] = pts
    return out


def issue_direct_with_ci(direct, P, nbs, base, boot=200, seed=1):
    """issue_direct() with each point's extra bounded by a bootstrap over rounds (p5, p95
    appended: [buckets, us apart, us, extra, [p5, p95]])."""
    est = issue_direct(direct, P, nbs, base)
    n = max((len(x) for x in direct.values()), default=0)
    rng = random.Random(seed)
    samples = [issue_direct(direct, P, nbs, base, [rng.randrange(n) for _ in range(n)])
               for _ in range(boot)]
    for key, pts in est.items():
        for i, pt in enumerate(pts):
            xs = [s_[key][i][3] for s_ in samples if len(s_.get(key, [])) == len(pts)]
            pt.append([round(quantile(xs, 0.05), 3), round(quantile(xs, 0.95), 3)])
    return est


def direct_curve(points, dense_us):
    """A host block's issue-spacing curve from issue_direct_with_ci()'s points of one framework:
    the densest point at dense_us (the per-bucket cost the host block charges a dense issue), and
    each farther point whose extra the rounds tell from none (bootstrap p5 above 0) at dense_us
    plus its extra; None with no such point (the per-bucket cost stands)."""
    if not points:
        return None
    pts, last = [[points[0][1], round(dense_us, 3)]], points[0][1]
    for p in points[1:]:
        if len(p) > 4 and p[4][0] > 0 and p[1] > last:
            pts.append([p[1], round(dense_us + p[3], 3)])
            last = p[1]
    return pts if len(pts) >= 2 else None


def forward_cost(fwd, rounds=None):
    """DDP's forward work on the model from fwd[v] = [forward CPU us per round]: the median over
    rounds of the two DDP variants' mean forward CPU time minus the framework-free one's (both
    DDP variants run the same forward: pre-forward, the buffers' broadcast, prepare for backward),
    and that framework-free forward's median (fwd_cpu_us, to carry the cost to a loop)."""
    n = len(fwd["none"])
    rs = list(range(n)) if rounds is None else rounds
    d = statistics.median((fwd["ddpv_1"][r] + fwd["ddpc_h"][r]) / 2 - fwd["none"][r] for r in rs)
    return {"forward_us": round(d, 3),
            "fwd_cpu_us": round(statistics.median(fwd["none"][r] for r in rs), 1)}


def forward_with_ci(fwd, boot=200, seed=1):
    """forward_cost() and the p5 / p95 of forward_us over rounds resampled (ci)."""
    est = forward_cost(fwd)
    n = len(fwd["none"])
    rng = random.Random(seed)
    s = [forward_cost(fwd, [rng.randrange(n) for _ in range(n)])["forward_us"] for _ in range(boot)]
    est["ci"] = [round(quantile(s, 0.05), 3), round(quantile(s, 0.95), 3)]
    return est


# the validation loop's probes (tools/validate_torch.py PROBES) that are this module's variants
LOOP_PROBES = {"none": "compute-only", "ddpv_1": "probe ddpv_1", "ddpc_h": "probe ddpc_h",
               "hk_1": "probe hk_1"}


def from_loop(probes, P, fixed):
    """The costs as measure() gives them, from the variants run as probes among the validation
    loop's iterations (so at the loop's own host speed, round by round): probes = {label:
    {"cpu_times_us": [[forward, backward(), rest] per round]}} with the labels of LOOP_PROBES
    (the loop's compute-only iteration is the framework-free step). None where one is missing."""
    if any(not (probes.get(lab) or {}).get("cpu_times_us") for lab in LOOP_PROBES.values()):
        return None
    n = min(len(probes[lab]["cpu_times_us"]) for lab in LOOP_PROBES.values())
    bwd = {v: [c[1] for c in probes[lab]["cpu_times_us"][:n]] for v, lab in LOOP_PROBES.items()}
    fwd = {v: [c[0] for c in probes[lab]["cpu_times_us"][:n]] for v, lab in LOOP_PROBES.items()}
    out = with_ci(bwd, P, fixed)
    out.update({"P": P, "rounds": n, "fixed": dict(fixed), "raw": bwd, "raw_fwd": fwd,
                "ddp_forward": forward_with_ci(fwd), "source": "loop"})
    return out


def comm_hook_bucket(host, replaced):
    """DDP's offload comm hook per bucket (ddp.hook_bucket_us) where a per-bucket cost was
    measured on the model (replaced names ddp.bucket_us or hooks.bucket_us) and the comm hook
    itself was not (captures before the ddpo_n variant): DDP's own per-bucket work
    (ddp.bucket_us: the Reducer launching the bucket, its default all-reduce call included) plus
    the hook pattern's issue of a bucket (hooks.bucket_us: the event, the side stream's wait and
    the copy into pinned memory, which the offload hook issues as well). Why: the tower measures
    all three on one synthetic model, and there hook_bucket_us is 0.78-1.18x the sum of the other
    two (22 runs, median 0.97). The model's own per-bucket costs differ from the tower's by up to
    2x, so the tower's comm-hook cost no longer fits beside them; and in the loops of runs 11-21,
    DDP's offload plans at 4 MiB paid more backward() CPU per bucket over DDP's default all-reduce
    with the same buckets than the tower's difference carried to the loop in 31 of 33 model-runs
    (data/validation/run21_analysis.md). The bounds (host.ci, where both parts
    have them) are the parts' summed. Returns the value set, or None (host unchanged)."""
    d, hk = host.get("ddp", {}), host.get("hooks", {})
    if "ddp.hook_bucket_us" in replaced or not {"ddp.bucket_us", "hooks.bucket_us"} & set(replaced) \
            or "bucket_us" not in d or "bucket_us" not in hk:   # measured itself, or no part was
        return None
    d["hook_bucket_us"] = round(d["bucket_us"] + hk["bucket_us"], 3)
    ci = host.get("ci", {})
    lo_hi = [ci.get(grp, {}).get("bucket_us") for grp in ("ddp", "hooks")]
    if all(lo_hi) and "ddp" in ci:
        ci["ddp"]["hook_bucket_us"] = [round(a + b, 4) for a, b in zip(*lo_hi)]
    return d["hook_bucket_us"]


def measured(fw_model, est):
    """Whether the model's rounds tell cost est from zero: it and its bootstrap's low end are
    above 0 (else the tower's stands)."""
    return fw_model.get("ci", {}).get(est, [0, 0])[0] > 0 and fw_model.get(est, 0) > 0


def apply(host, fw_model):
    """The host block (torch_host.host_block's) with the per-parameter costs measured on the
    model in place of the tower's, where both bootstrap bounds are positive (a cost the model's
    rounds could not tell from zero keeps the tower's), and the issue-spacing curves where the
    spacing variants give them (host.issue_spacing). Returns the keys replaced (the curves are
    not among them)."""
    done = []
    for grp in ("ddp", "hooks"):   # the block may share these with the calibration's result
        if grp in host:
            host[grp] = dict(host[grp])
    for est, grp, key in ((("param_us", "ddp", "param_us"), ("copy_us", "ddp", "copy_us"),
                           ("hook_us", "hooks", "hook_us")) + BUCKET_COSTS):
        if grp in host and measured(fw_model, est):
            host[grp][key] = fw_model[est]
            done.append("%s.%s" % (grp, key))
    comm_hook_bucket(host, done)
    # the in-backward issue against its spacing (the spacing variants): a curve per framework
    # whose points the rounds tell from none; fusim prices each issue inside backward by it
    isp = {k: c for k, c in ((k, spacing_curve(v)) for k, v in
                             (fw_model.get("issue_spacing") or {}).items() if k != "buckets") if c}
    # better: the issues timed call by call (issue_direct; captures from session 25 on), each
    # curve the per-bucket cost charged a dense issue plus the measured extra at its spacing
    # (the DDP offload's curve is charged on top of ddp.bucket_us, so it starts at the comm
    # hook's excess over it); fw_model["issue_spacing_source"] says which curve came from which
    src = {}
    dense = {"hooks": host.get("hooks", {}).get("bucket_us"),
             "ddp_offload": host["ddp"]["hook_bucket_us"] - host["ddp"]["bucket_us"]
             if "hook_bucket_us" in host.get("ddp", {}) and "bucket_us" in host.get("ddp", {})
             else None}
    for key, pts in (fw_model.get("issue_direct") or {}).items():
        c = direct_curve(pts, dense[key]) if dense.get(key) is not None else None
        if c:
            isp[key] = c
            src[key] = "direct"
    fw_model["issue_spacing_source"] = dict({k: "backward" for k in isp}, **src)
    if isp and any(grp in host for grp in ("ddp", "hooks")):
        host["issue_spacing"] = isp
    # DDP's forward measured whole on the model: it takes the place of the tower's three parts
    # (fixed, per buffer, the broadcast's fixed part), which fw_model["forward_replaced"] says
    df = fw_model.get("ddp_forward")
    fw_model["forward_replaced"] = bool("ddp" in host and df and df["ci"][0] > 0)
    if fw_model["forward_replaced"]:
        host["ddp"].update(forward_us=df["forward_us"], buffer_us=0.0, broadcast_us=0.0)
    return done


def _noop_comm_hook(state, bucket):
    """A DDP comm hook that communicates nothing: the bucket comes back as it is."""
    import torch
    buf = bucket.buffer()
    fut = torch.futures.Future(devices=[buf.device])
    fut.set_result(buf)
    return fut


def _flush_caches():
    """Rewrites a 256 MiB host tensor (larger than the host's last-level cache), so that the
    next step finds none of its own data in the caches."""
    import torch
    if not hasattr(_flush_caches, "buf"):
        _flush_caches.buf = torch.zeros(64 * MiB)
    _flush_caches.buf.add_(1.0)


def runner_bytes(model, opt):
    """GPU bytes one variant's copy holds between steps: all its parameters and buffers (the copy),
    the trainable ones' gradients and a DDP bucket as large again (copy mode), and the
    optimizer's state as the capture's optimizer holds it (SGD's momentum, one buffer, where it
    holds none yet)."""
    every = list(model.parameters()) + list(getattr(model, "buffers", lambda: [])())
    copy_bytes = sum(t.numel() * t.element_size() for t in every)
    pbytes = sum(p.numel() * p.element_size() for p in model.parameters() if p.requires_grad)
    state = 0
    if opt is not None:
        state = sum(t.numel() * t.element_size() for st in opt.state.values()
                    for t in st.values() if hasattr(t, "numel") and getattr(t, "is_cuda", False))
    return copy_bytes + 2 * pbytes + (state if state else pbytes)


def runners_that_fit(free_bytes, step_bytes, per_runner, margin=0.9):
    """How many variant copies of per_runner bytes fit in margin of the GPU's free memory beside
    one step's own (step_bytes: the copies step one at a time)."""
    room = margin * free_bytes - step_bytes
    return max(0, int(room // per_runner)) if per_runner > 0 else 1 << 30


def variant_groups(variants, fit):
    """The variants ("none" among them) in groups of at most fit copies, each group "none" and
    the next fit - 1 of the others in their order (so ddpv_1 and ddpc_h, which the copy cost pairs
    round by round, share a group wherever fit > 2 allows); one group where all fit, None where
    not two do."""
    if fit >= len(variants):
        return [tuple(variants)]
    if fit < 2:
        return None
    rest = [v for v in variants if v != "none"]
    return [("none",) + tuple(rest[i:i + fit - 1]) for i in range(0, len(rest), fit - 1)]


def rebase(groups):
    """One dict of per-round times {variant: [us per round]} from several groups run one after
    the other, each with its own "none": every variant's round r carried to the first group's
    host speed by the two groups' framework-free steps of that round (times its first group's
    none over its own), as the store carries the costs to a loop's host (the host's speed moves
    in levels lasting seconds, and a group of a large model lasts tens of them); each variant
    over "none" round by round (estimate's d()) is then what its own group measured at the first
    group's speed. Rounds are cut to the fewest any group has."""
    base = groups[0]["none"]
    n = min(len(g["none"]) for g in groups)
    out = {"none": list(base[:n])}
    for g in groups:
        for v, xs in g.items():
            if v != "none":
                out[v] = [round(x * base[r] / g["none"][r], 1) for r, x in enumerate(xs[:n])]
    return out


def measure(model, run_loss, opt, fixed, *, rounds=16, warmup=3, set_to_none=True, cold=True,
            log=None, sync_fwd=False, buckets=False, spacing_variants=False,
            spacing_every=(4, 16), step_bytes=None):
    """Runs the variants on copies of model (see the module docstring); run_loss(m) -> the loss
    of one forward of m; opt: the capture's optimizer (its class and settings are copied,
    torch_host.same_optimizer; SGD when None); fixed: the tower's fixed parts. Returns
    with_ci()'s dict plus "P", "rounds" and "raw" (every round's backward() CPU time per
    variant). sync_fwd: wait for forward's GPU work before backward() (no launches pending when
    it starts; torch_launchq.py --sync-probe).
    buckets: the per-bucket variants too (BUCKET_VARIANTS: DDP's bucket call, the hook
    pattern's bucket issue and DDP's offload comm hook on the model, "ddp_bucket_us" /
    "hooks_bucket_us" / "ddp_hook_bucket_us"). spacing_variants: with buckets, SPACING_VARIANTS
    too ("issue_spacing", spacing_with_ci(); a variant that fails is dropped, the rest stand);
    spacing_every: their bucket sizes in gradients (spacing_names()).
    step_bytes: the GPU memory one training step of the model takes beyond what it holds between
    steps (its activations; the capture measures it). Given, where copies of every variant do not
    fit beside one step the variants run in groups (variant_groups, rebase), and where not two
    fit, RuntimeError; None (torch_launchq's probe): all in one group, as before groups."""
    import torch
    from torch.nn.parallel import DistributedDataParallel as DDP

    torch_host.ensure_process_group()
    t_start = time.time()
    spacing_set = spacing_names(spacing_every)
    variants = VARIANTS + (BUCKET_VARIANTS if buckets else ()) + \
        (spacing_set if buckets and spacing_variants else ())
    P = sum(1 for p in model.parameters() if p.requires_grad)
    # about N parameters' bytes a bucket for the eN pairs (DDP buckets by bytes)
    param_mb = sum(p.numel() * p.element_size() for p in model.parameters() if p.requires_grad) \
        / max(P, 1) / MiB
    torch.cuda.empty_cache()
    # every rank takes the fewest copies any rank holds: the groups build DDP copies together
    fit = len(variants) if step_bytes is None else \
        torch_host.fewest_ranks(runners_that_fit(torch.cuda.mem_get_info()[0], step_bytes,
                                                 runner_bytes(model, opt)))
    groups = variant_groups(variants, fit)
    if groups is None:
        raise RuntimeError("not even two copies of the model (%d fit beside a step) are left room "
                           "on the GPU" % fit)
    if len(groups) > 1 and log:
        log("  on the model: %d copies fit beside a step, its %d variants run in %d groups (%s), "
            "each beside its own framework-free copy" % (fit, len(variants), len(groups),
                                                           " | ".join(" ".join(g) for g in groups)))

    def run_group(group):
        """Every round's times of one group of variants ("none" first), run on copies of model in
        rounds; (bwd, fwd, bwd_cold, direct, host states, buckets issued per spacing variant),
        a variant of spacing_set that fails dropped from all."""
        runners = {}
        offload = {}   # the offload variants' states: their buckets are counted after the rounds
        for v in group:
            core = copy.deepcopy(model)
            m, fuser = core, None
            if v in ("ddpv_1", "ddpc_h", "ddpv_n", "ddpo_n") or v.startswith(("ddpv_e", "ddpo_e")):
                cap = 1e-9 if v in ("ddpv_n", "ddpo_n") else \
                    param_mb * every_of(v) if every_of(v) else HUGE
                m = DDP(core, device_ids=torch_host.device_ids(), bucket_cap_mb=cap,
                        gradient_as_bucket_view=v != "ddpc_h")
                if v == "ddpc_h":
                    m.register_comm_hook(None, _noop_comm_hook)
                elif v == "ddpo_n" or v.startswith("ddpo_e"):   # as validate_torch's "ddp offload" plans
                    offload[v] = torch_host.OffloadState()
                    m.register_comm_hook(offload[v], torch_host.offload_hook)
            elif v in ("hk_1", "hk_n", "hk_0") or v.startswith("hk_e"):
                params = [(n, p) for n, p in core.named_parameters() if p.requires_grad]
                fuser = torch_host.HookFuser(params, 0 if v == "hk_n" else int(HUGE * MiB),
                                             every=every_of(v), issue=v != "hk_0")
            o = torch_host.same_optimizer(opt, core.parameters()) if opt is not None else \
                torch.optim.SGD(core.parameters(), lr=1e-3, momentum=0.9)
            runners[v] = (m, core, fuser, o)

        def issuing(v):   # the variants whose issues are timed call by call (issue_direct)
            return v in ("hk_n", "ddpo_n") or (every_of(v) and v.startswith(("hk_e", "ddpo_e")))

        def step(v):
            """(forward CPU us, backward() CPU us, the median issue's CPU us over this step's issues
            but its first: cold from the last step; None for a variant not timed call by call)"""
            m, core, fuser, o = runners[v]
            times = None
            if issuing(v):
                times = []
                if fuser is not None:
                    fuser.issue_times = times
                else:
                    offload[v].times = times
            o.zero_grad(set_to_none=set_to_none)
            torch.cuda.synchronize()
            torch_host.align_ranks()   # at N ranks, as validate_torch's rounds
            t0 = time.perf_counter()
            loss = run_loss(m)
            fwd_t = (time.perf_counter() - t0) * 1e6
            if sync_fwd:
                torch.cuda.synchronize()
            t1 = time.perf_counter()
            loss.backward()
            if fuser is not None:
                fuser.after_backward()
            t2 = time.perf_counter()
            o.step()
            torch.cuda.synchronize()
            direct_us = statistics.median(times[1:]) / 1e3 if times and len(times) > 1 else None
            return fwd_t, (t2 - t1) * 1e6, direct_us

        group = tuple(group)
        bwd = {v: [] for v in group}
        fwd = {v: [] for v in group}   # forward's CPU time: DDP's own forward work on the model
        bwd_cold = {v: [] for v in group}
        direct = {v: [] for v in group if issuing(v)}   # issue_direct's per-round medians
        # what the host's CPUs did (host_state: the slow mode's cause), at the start of every timed
        # round and after the last: timed round i lies between states i and i + 1
        states = []
        for r in range(warmup + rounds):
            k0 = r % len(group)
            if r >= warmup:
                states.append(host_state.host_state())
            for v in group[k0:] + group[:k0]:
                try:
                    tf, t, dr = step(v)
                    if cold:
                        _flush_caches()
                        tc = step(v)[1]
                except Exception as e:   # an experiment: drop it, the costs above stand
                    if v not in spacing_set:
                        raise
                    if log:
                        log("  spacing variant %s dropped (%s: %s)" % (v, type(e).__name__, e))
                    group = tuple(x for x in group if x != v)
                    for dct in (bwd, fwd, bwd_cold, direct):
                        dct.pop(v, None)
                    continue
                if r >= warmup:
                    if v in direct:
                        direct[v].append(None if dr is None else round(dr, 2))
                    bwd[v].append(round(t, 1))
                    fwd[v].append(round(tf, 1))
                    if cold:
                        bwd_cold[v].append(round(tc, 1))
        states.append(host_state.host_state())   # after the last timed round
        # the buckets each spacing variant issued a step (the offload hook's calls in one more step)
        nbs = {v: len(runners[v][2].buckets) for v in group if v.startswith("hk_e")}
        for v in (v for v in group if v.startswith("ddpo_e")):
            try:
                offload[v].record = []
                step(v)
                nbs[v] = len({i for i, _ in offload[v].record})
            except Exception as e:
                if log:
                    log("  %s's buckets not counted (%s: %s)" % (v, type(e).__name__, e))
        runners.clear()   # the copies' memory back before the next group's (DDP's may sit in
        gc.collect()      # reference cycles, which only the collector frees)
        torch.cuda.empty_cache()
        return bwd, fwd, bwd_cold, direct, states, nbs, group

    done = [run_group(g) for g in groups]
    bwd = rebase([d[0] for d in done])
    fwd = rebase([d[1] for d in done])
    bwd_cold = rebase([d[2] for d in done]) if cold else {}
    direct = {v: xs for d in done for v, xs in d[3].items()}
    nbs = {v: n for d in done for v, n in d[5].items()}
    states = done[0][4]   # the first group's rounds (the later groups' states are not kept)
    out = with_ci(bwd, P, fixed)
    out.update({"P": P, "rounds": rounds, "fixed": dict(fixed),
                "seconds": round(time.time() - t_start, 1), "raw": bwd, "raw_fwd": fwd,
                "ddp_forward": forward_with_ci(fwd), "host_state": states})
    if len(groups) > 1:   # as they ran (a spacing variant that failed dropped)
        out["variant_groups"] = [list(d[6]) for d in done]
    if any(v in bwd for v in spacing_set):
        out["issue_spacing"] = dict(spacing_with_ci(bwd, P, nbs), buckets=nbs)
    if any(x is not None for xs in direct.values() for x in xs):
        out["issue_direct"] = issue_direct_with_ci(direct, P, nbs, out["bwd_cpu_us"])
        out["raw_direct"] = direct
    if cold:
        out["cold"] = dict(with_ci(bwd_cold, P, fixed), raw=bwd_cold)
    if log:
        log("  on the model (%.1f s, %d rounds, P %d): ddp param %.1f us %s, copy %.1f %s; "
            "hooks hook %.1f %s; plain backward() CPU %.0f us"
            % (out["seconds"], rounds, P, out["param_us"], out["ci"]["param_us"], out["copy_us"],
               out["ci"]["copy_us"], out["hook_us"], out["ci"]["hook_us"], out["bwd_cpu_us"]))
        if "ddp_bucket_us" in out:
            log("  per bucket on the model: ddp %.1f us %s; hooks %.1f %s; ddp offload hook %s"
                % (out["ddp_bucket_us"], out["ci"]["ddp_bucket_us"], out["hooks_bucket_us"],
                   out["ci"]["hooks_bucket_us"],
                   "%.1f %s" % (out["ddp_hook_bucket_us"], out["ci"]["ddp_hook_bucket_us"])
                   if "ddp_hook_bucket_us" in out else "-"))
        for key, pts in (out.get("issue_spacing") or {}).items():
            if key != "buckets" and pts:
                log("  %s issue per bucket against its spacing on the model: %s" % (key, "; ".join(
                    "%d buckets %.0f us apart %.1f us %s" % tuple(p) for p in pts)))
        for key, pts in (out.get("issue_direct") or {}).items():
            log("  %s issue timed call by call: %s" % (key, "; ".join(
                "%d buckets %.0f us apart %.1f us, +%.1f %s" % tuple(p) for p in pts)))
        df = out["ddp_forward"]
        log("  DDP's forward on the model: %.0f us %s over a plain forward() of %.0f us"
            % (df["forward_us"], df["ci"], df["fwd_cpu_us"]))
        if cold:
            c = out["cold"]
            log("  the same after a cache flush: ddp param %.1f us, copy %.1f; hooks hook %.1f; "
                "plain backward() CPU %.0f us" % (c["param_us"], c["copy_us"], c["hook_us"],
                                                 c["bwd_cpu_us"]))
    return out
