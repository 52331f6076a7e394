"""torch_interval.py: the 95% interval of a real-PyTorch validation row (issue 10), from what
varies on the machine. A row's measured time is the median of its timed iterations, and the
prediction is anchored to the median of the compute-only iterations timed in the same rounds, so
the interval is built for a median, not for one iteration:

  step   GPU work (fusim's jitter.step_rel): the bootstrap's 2.5 / 97.5 percentiles of the
         compute-only iterations' median over that median, times sqrt(2): the row's median and
         the compute-only median it is anchored to are two medians of as many iterations taken
         from the same rounds, each as uncertain as the other.
  host   the host timeline (jitter.host_rel): the same for the compute-only iterations' host time
         (forward + backward() + optimizer CPU); the frameworks' costs run on the same host
         threads, so their own iteration-to-iteration variation is this one (jitter.fw_rel).
  costs  each framework cost at its bounds (fusim's host.ci): the bootstrap over the rounds that
         measured it (torch_modelcost's rounds on the model, or torch_fwcal's tower rounds),
         2.5 / 97.5 percentiles, times the bounds of the factor that carried it to the loop's host
         speed (the loop's framework-free backward() CPU over the one beside the costs, or the
         host-speed probes in the loop over the tower's), itself bootstrapped over both sides.
         fusim charges each per parameter, per bucket or per iteration, so a plan's share of the
         costs' uncertainty grows with the parameters and buckets it pays for.

What is not here, because nothing measures it yet: the GPU time of the frameworks' kernels
(copies, DDP's division) beyond the step's own spread, and the NCCL / PCIe curves beyond the
profile's fits (fusim takes those at their own CI bounds).

A capture (tools/capture_torch.py) writes the costs' bounds as measured (capture_ci: nothing
carried yet), so that `fusim predict` on the captured workload sees them too; a validation run
replaces them with the carried ones.

The functions are pure Python (tests/validate/test_interval.py checks them on hand-made data).
"""
import math
import random
import statistics

import torch_fwcal
import torch_modelcost
from quantile import quantile

Q = 0.025          # two-sided 95%
BOOT = 400         # bootstrap resamples
SEED = 1


def _draw(rng, n):
    return [rng.randrange(n) for _ in range(n)]


def median_rel(xs, boot=BOOT, seed=SEED):
    """(lo, hi): the bootstrap's 2.5 / 97.5 percentiles of the median of xs over the median, minus
    1 (lo <= 0 <= hi); (0, 0) for fewer than 2 values or a median <= 0."""
    if len(xs) < 2:
        return 0.0, 0.0
    m = statistics.median(xs)
    if m <= 0:
        return 0.0, 0.0
    rng = random.Random(seed)
    meds = [statistics.median(xs[i] for i in _draw(rng, len(xs))) for _ in range(boot)]
    return min(0.0, quantile(meds, Q) / m - 1), max(0.0, quantile(meds, 1 - Q) / m - 1)


def ratio_rel(a, b, boot=BOOT, seed=SEED):
    """(lo, hi) of median(a) / median(b) over its value, minus 1, each side resampled on its own
    (two independent samples: the loop's and the calibration's); (0, 0) where either has fewer
    than 2 values or a median <= 0."""
    if len(a) < 2 or len(b) < 2 or statistics.median(a) <= 0 or statistics.median(b) <= 0:
        return 0.0, 0.0
    r0 = statistics.median(a) / statistics.median(b)
    rng = random.Random(seed)
    rs = [statistics.median(a[i] for i in _draw(rng, len(a)))
          / statistics.median(b[i] for i in _draw(rng, len(b))) for _ in range(boot)]
    return min(0.0, quantile(rs, Q) / r0 - 1), max(0.0, quantile(rs, 1 - Q) / r0 - 1)


def widen(lo, hi, rho=0.0):
    """The bounds of a difference of two medians, each as uncertain as the one bootstrapped and
    correlated by rho (the plan's and the compute-only iterations of a round share its host):
    sd(a - b) = sd x sqrt(2 (1 - rho)); rho 0 gives the independent x sqrt(2)."""
    k = math.sqrt(2 * (1 - min(max(rho, 0.0), 1.0)))
    return lo * k, hi * k


def median_corr(a, b, boot=BOOT, seed=SEED):
    """The correlation of median(a) and median(b) over the rounds resampled together (a[i] and
    b[i] timed in the same round): what widen's rho is for. 0 with fewer than 3 paired rounds or
    no spread."""
    n = min(len(a), len(b))
    if n < 3:
        return 0.0
    rng = random.Random(seed)
    pairs = []
    for _ in range(boot):
        idx = _draw(rng, n)
        pairs.append((statistics.median(a[i] for i in idx), statistics.median(b[i] for i in idx)))
    xs, ys = zip(*pairs)
    try:
        return statistics.correlation(xs, ys)
    except statistics.StatisticsError:   # a constant side
        return 0.0


def model_rel_mle(rows):
    """The model's own error as a relative sd s (its 95% half-width is 1.96 s): the maximum-
    likelihood s where each row's relative error e ~ N(0, v + s^2), v the row's noise variance
    (its noise-only interval's half-width on the side the measurement fell, over 1.96 and the
    prediction). rows: (e, half_width_rel). The likelihood can have several local maxima in s^2
    (its score, sum((e^2 - v - t) / (v + t)^2), can change sign more than once), so every sign
    change from + to - on a geometric grid of t = s^2 from 1e-12 to 1 is bisected, and the root
    (or 0, or 1) of the highest likelihood is taken. Rows of every width count, weighted
    1 / (v + s^2)^2, so the quiet (narrow) rows, where the model's error is not hidden behind
    noise, decide it."""
    data = [(e * e, max((hw / 1.96) ** 2, 1e-12)) for e, hw in rows]   # a floor: no 0 / 0
    if not data:
        return 0.0

    def score(t):
        return sum((e2 - v - t) / (v + t) ** 2 for e2, v in data)

    def loglik(t):
        return -0.5 * sum(math.log(v + t) + e2 / (v + t) for e2, v in data)
    grid = [0.0] + [10 ** (k / 10) for k in range(-120, 1)]   # 1e-12 .. 1, 10 points a decade
    cands = [0.0, 1.0]
    sc = [score(t) for t in grid]
    for k in range(len(grid) - 1):
        if sc[k] > 0 >= sc[k + 1]:
            lo, hi = grid[k], grid[k + 1]
            for _ in range(60):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if score(mid) > 0 else (lo, mid)
            cands.append((lo + hi) / 2)
    return math.sqrt(max(cands, key=loglik))


def _bounds(samples, keys, pairs):
    """{grp: {key: [lo, hi]}} from bootstrap samples ({grp: {key: value}}); pairs: (grp, part,
    whole) where the whole (e.g. DDP's copy mode, param_us + copy_us) is what the measurement
    determines, so part's bounds are the whole's minus the other part's."""
    out = {grp: {k: [quantile([s[grp][k] for s in samples], Q), quantile([s[grp][k] for s in samples], 1 - Q)]
                 for k in ks} for grp, ks in keys.items()}
    for grp, part, (a, b) in pairs:
        whole = [s[grp][a] + s[grp][b] for s in samples]
        lo, hi = quantile(whole, Q), quantile(whole, 1 - Q)
        out[grp][part] = [max(0.0, lo - out[grp][a][0]), max(0.0, hi - out[grp][a][1])]
    return out


def tower_bounds(fc, boot=BOOT, seed=SEED):
    """Per cost of the tower (torch_fwcal, as stored in runs.json framework_costs with its
    rounds) [lo, hi]: the bootstrap over its rounds; None where the rounds are not stored."""
    if not fc or "rounds" not in fc or "raw" not in fc:
        return None
    data = torch_fwcal.data_from_run(fc)
    n = len(data["bwd"]["none"][next(iter(data["P"]))])
    rng = random.Random(seed)
    samples = [torch_fwcal.estimate(data, _draw(rng, n)) for _ in range(boot)]
    for smp in samples:   # the broadcast's fixed part: the intercept of the buffers' line
        smp["ddp"]["broadcast_us"] = smp["other"]["broadcast_fixed_us"]
    keys = {"ddp": list(samples[0]["ddp"]), "hooks": list(samples[0]["hooks"])}
    # DDP's copy mode is measured as a whole (ddp_1): copy_us = that slope - param_us
    return _bounds(samples, keys, [("ddp", "copy_us", ("param_us", "copy_us"))])


def model_bounds(fm, whole=True, boot=BOOT, seed=SEED):
    """Per cost measured on the model (torch_modelcost, the workload's meta.framework_on_model
    with its rounds) [lo, hi]: the bootstrap over its rounds, the tower's fixed parts as given.
    whole: copy_us's bounds as the copy mode's whole minus param_us's (both measured on the
    model); else copy_us's own (where param_us is the tower's)."""
    raw, P, fixed = fm["raw"], fm["P"], fm["fixed"]
    n = len(raw["none"])
    rng = random.Random(seed)
    samples = []
    for _ in range(boot):
        e = torch_modelcost.estimate(raw, P, fixed, _draw(rng, n))
        smp = {"ddp": {"param_us": e["param_us"], "copy_us": e["copy_us"]},
               "hooks": {"hook_us": e["hook_us"]}}
        for est, grp, key in torch_modelcost.BUCKET_COSTS:   # per bucket, where measured
            if est in e:
                smp[grp][key] = e[est]
        samples.append(smp)
    per_bucket = {}
    for _, grp, key in torch_modelcost.BUCKET_COSTS:
        if key in samples[0][grp]:
            per_bucket.setdefault(grp, []).append(key)
    if not whole:
        keys = {"ddp": ["param_us", "copy_us"], "hooks": ["hook_us"]}
        for grp, ks in per_bucket.items():
            keys[grp] += ks
        return _bounds(samples, keys, [])
    keys = {"ddp": ["param_us"], "hooks": ["hook_us"]}
    for grp, ks in per_bucket.items():
        keys[grp] += ks
    return _bounds(samples, keys, [("ddp", "copy_us", ("param_us", "copy_us"))])


def forward_bounds(est, fm):
    """Where DDP's forward was measured whole on the model (fm["forward_replaced"],
    torch_modelcost), its bounds take the place of the tower's forward_us and the parts it took
    the place of (per buffer, the broadcast's fixed part) are [0, 0]. Returns the names set."""
    if not (fm and fm.get("forward_replaced") and "ddp" in est):
        return []
    est["ddp"]["forward_us"] = list(fm["ddp_forward"]["ci"])
    est["ddp"]["buffer_us"] = [0.0, 0.0]
    est["ddp"]["broadcast_us"] = [0.0, 0.0]
    return ["forward_us", "buffer_us", "broadcast_us"]


def cost_ci(host, est, factor, carry):
    """The host block's ci ({grp: {key: [lo, hi]}}) for the costs in host (already carried to the
    loop): est[grp][key] = [lo, hi] as measured, factor[grp][key] the factor that carried it,
    carry[grp][key] = (lo, hi) that factor's relative bounds. Each bound brackets the cost's
    value (a bootstrap's percentile can fall on either side of a median's own estimate)."""
    ci = {}
    for grp, ks in est.items():
        if grp not in host:
            continue
        for k, (lo, hi) in ks.items():
            if k not in host[grp]:
                continue
            f, (cl, ch) = factor[grp][k], carry[grp][k]
            v = host[grp][k]
            ci.setdefault(grp, {})[k] = [round(min(v, max(0.0, lo) * f * (1 + cl)), 4),
                                         round(max(v, max(0.0, hi) * f * (1 + ch)), 4)]
    return ci



def capture_ci(host, fc, fm=None):
    """The host block's ci for a capture: the tower's costs at their bounds (fc: what
    torch_fwcal.framework_costs returned, with its rounds) and, for the costs measured on the
    model (fm: torch_modelcost.measure's, with "replaced"), the model's bounds; nothing carried
    (the capture's own host), each bracketing the cost in host. {} where fc holds no rounds."""
    est = tower_bounds(fc)
    if est is None:
        return {}
    if fm and fm.get("replaced"):
        mb = model_bounds(fm, "ddp.param_us" in fm["replaced"])
        for name in fm["replaced"]:
            grp, key = name.split(".")
            est[grp][key] = mb[grp][key]
    forward_bounds(est, fm)
    one = {grp: {k: 1.0 for k in ks} for grp, ks in est.items()}
    return cost_ci(host, est, one, {grp: {k: (0.0, 0.0) for k in ks} for grp, ks in est.items()})
