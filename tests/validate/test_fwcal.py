#!/usr/bin/env python3
"""test_fwcal.py: tools/torch_fwcal.py's estimator on hand-made data (no torch, no GPU).

Every iteration time is built from known costs (a host cost per parameter, per bucket, fixed and
per buffer; GPU-side costs likewise) on top of a framework-free iteration that varies from round
to round and depth to depth. estimate() must give those costs back to 1e-6 us, through noise that
is the same for every variant of a round (the per-round differences cancel it), and the bootstrap
must bracket them. Then the same data with one round made slow for every framework variant: the
median-based estimate must stay within 1% of the truth, while the spread (fw_rel_hi) must widen.

Last, store_torch_validation carries the costs from the calibration to a model's loop by the
host-speed probe measured in both (probe_factor, scaled's ff), by hand: loop probes 2.0 / 2.4 /
2.2 us (median 2.2) over the calibration's 1.1 -> 2.0; with host factor 0.8 the captured
timeline is scaled by 0.8 and the costs by 2.0; without a probe on either side (runs up to 8)
there is no factor and the costs follow the timeline's 0.8, as before.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import store_torch_validation as st  # noqa: E402
import torch_fwcal  # noqa: E402

TRUE = {"param": 17.0, "copy": 6.0, "bucket": 31.0, "hook_bucket": 75.0, "finalize": 140.0,
        "forward": 90.0, "buffer": 12.0, "bcast": 60.0, "hook": 38.0, "hk_bucket": 45.0,
        "noop": 4.0, "g_view": 2.5, "g_copy": 3.0, "g_buf": 1.8, "g_hook": 2.7}
DEPTHS = (6, 16, 32, 48)


def make(rounds=9, slow_round=None):
    P = {L: 4 * L for L in DEPTHS}
    nbuf = {L: 3 * L for L in DEPTHS}
    B = {v: {L: (P[L] if v.endswith("_pt") else 1 if v in ("ddpv_1", "ddp_1", "off_1", "ddpv_nb",
                                                            "hk_1") else 0)
             for L in DEPTHS} for v in torch_fwcal.VARIANTS}
    t = TRUE
    data = {q: {v: {L: [] for L in DEPTHS} for v in torch_fwcal.VARIANTS}
            for q in torch_fwcal.QUANTITIES}
    for r in range(rounds):
        for L in DEPTHS:
            base_f = 100.0 * L + 37.0 * ((r * 7 + L) % 5)     # round-to-round drift, all variants
            base_b = 250.0 * L + 53.0 * ((r * 3 + L) % 7)
            base_g = 600.0 * L + 11.0 * ((r * 5 + L) % 3)
            slow = 1.5 if r == slow_round else 1.0
            for v, (kind, _, view, bcast) in torch_fwcal.VARIANTS.items():
                f, b, g = base_f, base_b, base_g
                n, nb = P[L], B[v][L]
                if kind in ("ddp", "ddp_off"):
                    f += t["forward"] + (t["bcast"] + t["buffer"] * nbuf[L] if bcast else 0)
                    b += slow * (t["finalize"] + t["param"] * n + (0 if view else t["copy"] * n)
                                 + (t["hook_bucket"] if kind == "ddp_off" else t["bucket"]) * (nb - 1))
                    g += (t["g_view"] * n + (0 if view else t["g_copy"] * n)
                          + (t["g_buf"] * nbuf[L] if bcast else 0))
                elif kind == "hooks":
                    b += slow * (t["hook"] * n + t["hk_bucket"] * (nb - 1))
                    g += t["g_hook"] * n
                elif kind == "noop":
                    b += t["noop"] * n
                for q, val in zip(torch_fwcal.QUANTITIES, (f, b, g, f + b + g)):
                    data[q][v][L].append(val)
    data["P"], data["nbuf"], data["B"] = P, nbuf, B
    return data


def check(name, got, want, tol):
    ok = abs(got - want) <= tol
    print("%-4s %-26s %10.4f  want %10.4f (+-%g)" % ("ok" if ok else "FAIL", name, got, want, tol))
    return ok


def check_probe():
    ok = True
    f = st.probe_factor({"probe_us": 1.1}, {"host_probe_us": [2.0, 2.4, 2.2]})
    ok &= check("probe factor 2.2 / 1.1", f if f is not None else -1, 2.0, 1e-12)
    ok &= check("no loop probe: none", st.probe_factor({"probe_us": 1.1}, {}) is None, True, 0)
    ok &= check("no calibration probe: none",
                st.probe_factor({"ddp": {}}, {"host_probe_us": [2.0]}) is None, True, 0)
    w = {"name": "w", "fwd_us": 100.0, "bwd_us": 200.0, "opt_us": 10.0,
         "grads": [{"name": "a", "bytes": 4, "ready_us": 50.0}],
         "host": {"version": 2, "fwd_cpu_us": 10.0, "bwd_cpu_us": 20.0, "opt_cpu_us": 1.0,
                  "fwd_gpu_us": 100.0, "bwd_gpu_us": 200.0, "opt_gpu_us": 10.0,
                  "grad_cpu_us": [5.0], "grad_gpu_us": [50.0], "fwd_points": [[2.0, 20.0]],
                  "ddp": {"param_us": 10.0}, "hooks": {"hook_us": 40.0}}}
    h = st.scaled(w, 0.8, 1.5, 2.0)["host"]
    ok &= check("timeline x 0.8: bwd_cpu_us", h["bwd_cpu_us"], 16.0, 1e-12)
    ok &= check("GPU x 1.5: bwd_gpu_us", h["bwd_gpu_us"], 300.0, 1e-12)
    ok &= check("costs x 2.0: ddp param_us", h["ddp"]["param_us"], 20.0, 1e-12)
    ok &= check("costs x 2.0: hooks hook_us", h["hooks"]["hook_us"], 80.0, 1e-12)
    h = st.scaled(w, 0.8, 1.5, None)["host"]
    ok &= check("no factor: costs x 0.8", h["ddp"]["param_us"], 8.0, 1e-12)
    # Two threads: forward and the optimizer (main thread) at 1.25, backward() and its hooks'
    # times (autograd thread) at 0.5, the optimizer at 2.0; DDP's forward cost on the main
    # thread, its per-parameter cost and the hooks' on the autograd thread.
    w["host"]["ddp"]["forward_us"] = 100.0
    h = st.scaled(w, (1.25, 0.5, 2.0), 1.0, None)["host"]
    ok &= check("phases: fwd_cpu_us x 1.25", h["fwd_cpu_us"], 12.5, 1e-12)
    ok &= check("phases: forward point x 1.25", h["fwd_points"][0][0], 2.5, 1e-12)
    ok &= check("phases: bwd_cpu_us x 0.5", h["bwd_cpu_us"], 10.0, 1e-12)
    ok &= check("phases: a hook's time x 0.5", h["grad_cpu_us"][0], 2.5, 1e-12)
    ok &= check("phases: opt_cpu_us x 2.0", h["opt_cpu_us"], 2.0, 1e-12)
    ok &= check("no factor: DDP forward at forward's 1.25", h["ddp"]["forward_us"], 125.0, 1e-12)
    ok &= check("no factor: DDP param at backward's 0.5", h["ddp"]["param_us"], 5.0, 1e-12)
    ok &= check("no factor: hook at backward's 0.5", h["hooks"]["hook_us"], 20.0, 1e-12)
    h = st.scaled(w, (1.25, 0.5, 2.0), 1.0, (3.0, 4.0))["host"]
    ok &= check("ff (3, 4): DDP forward x 3", h["ddp"]["forward_us"], 300.0, 1e-12)
    ok &= check("ff (3, 4): DDP param x 4", h["ddp"]["param_us"], 40.0, 1e-12)
    ok &= check("ff (3, 4): hook x 4", h["hooks"]["hook_us"], 160.0, 1e-12)
    # the factors: main thread 2.2 / 1.1, autograd thread median(3, 9, 6) / 2 = 3
    fw = {"probe_us": 1.1, "bwd_probe_us": 2.0}
    m = {"host_probe_us": [2.0, 2.4, 2.2], "host_bwd_probe_us": [3.0, 9.0, 6.0]}
    f = st.fw_factors(fw, m)
    ok &= check("fw_factors main", f[0], 2.0, 1e-12)
    ok &= check("fw_factors autograd", f[1], 3.0, 1e-12)
    f = st.fw_factors({"probe_us": 1.1}, {"host_probe_us": [2.2]})
    ok &= check("no bwd probe (run 9): autograd at the main factor", f[1], 2.0, 1e-12)
    ok &= check("no probe: none", st.fw_factors({}, {"host_bwd_probe_us": [1.0]}) is None, True, 0)
    return ok


def check_structure():
    """family_estimate on one block kind built by hand: 6 parameters a block, depths 2 / 5 / 9,
    framework-free backward 45 us a parameter plus 300 us fixed plus per-round noise the same for
    every variant; DDP views 21 us a parameter + 150 fixed, copies 7 more a parameter, 33 us per
    extra bucket; hooks 40 a parameter, 50 per extra bucket. Then graph_stats on stand-in nodes:
    a loss over two chains sharing a node, 4 nodes and 3 leaves (one reached twice)."""
    ok = True
    depths = (2, 5, 9)
    P = {L: 6 * L for L in depths}
    B = {v: {L: (P[L] if v.endswith("_pt") else 1 if v != "none" else 0) for L in depths}
         for v in torch_fwcal.EXP_VARIANTS}
    cost = {"none": lambda n, b: 0.0, "ddpv_1": lambda n, b: 150 + 21 * n,
            "ddp_1": lambda n, b: 150 + 28 * n, "ddp_pt": lambda n, b: 150 + 28 * n + 33 * (b - 1),
            "hk_1": lambda n, b: 40 * n, "hk_pt": lambda n, b: 40 * n + 50 * (b - 1)}
    data = {q: {v: {L: [] for L in depths} for v in cost} for q in torch_fwcal.EXP_QUANTITIES}
    for r in range(7):
        for L in depths:
            base = 300 + 45 * P[L] + 29.0 * ((r * 5 + L) % 4)
            for v, c in cost.items():
                b = base + c(P[L], B[v][L])
                for q, val in zip(torch_fwcal.EXP_QUANTITIES, (100.0, b, 2 * b)):
                    data[q][v][L].append(val)
    data["P"], data["B"] = P, B
    e = torch_fwcal.family_estimate(data)
    for k, w in (("param_us", 21), ("finalize_us", 150), ("copy_us", 7), ("bucket_us", 33),
                 ("hook_us", 40), ("hook_bucket_us", 50), ("bwd_cpu_per_param_us", 45)):
        ok &= check("structure " + k, e[k], w, 1e-6)
    ci = torch_fwcal.family_ci(data, boot=30)
    ok &= check("structure ci param_us", min(max(21, ci["param_us"][0]), ci["param_us"][1]), 21, 1e-6)

    class Node:
        def __init__(self, *nxt):
            self.next_functions = tuple((n, 0) for n in nxt)

    class AccumulateGrad(Node):
        pass

    w1, w2, w3 = AccumulateGrad(), AccumulateGrad(), AccumulateGrad()
    shared = Node(w2, None)             # None: an input that needs no gradient

    class Loss:
        grad_fn = Node(Node(w1, shared), Node(shared, w3))

    g = torch_fwcal.graph_stats(Loss())
    ok &= check("graph nodes", g["nodes"], 4, 0)
    ok &= check("graph leaves", g["leaves"], 3, 0)
    return ok


def check_rounds():
    """run_rounds with stand-in runners whose step returns (fwd, bwd, gpu, step, host, sleep) from
    a counter: interleaved, each as-is call is followed by the same runner's held call; separate,
    every as-is call of every round comes before the first held call. Both keep the same number of
    values per variant and depth (rounds), held figures only from held calls, one probe a round."""
    ok = True
    for held in ("interleaved", "separate"):
        calls = []

        class Fake:
            def __init__(self, key):
                self.key = key

            def step(self, x, is_held):
                calls.append((self.key, is_held))
                n = len(calls)
                return (1.0 * n, 2.0 * n, 3.0 * n if is_held else -1.0, 4.0 * n, 10.0,
                        5.0 if self.key[1] == 6 else 50.0)

        runners = {(v, L): Fake((v, L)) for v in ("none", "ddpv_1") for L in (6, 16)}
        data, short, probes = torch_fwcal.run_rounds(runners, None, 3, 1, held, lambda: 7.0)
        ok &= check(held + ": calls", len(calls), 2 * 4 * 4, 0)
        if held == "interleaved":
            pairs = all(calls[i][0] == calls[i + 1][0] and not calls[i][1] and calls[i + 1][1]
                        for i in range(0, len(calls), 2))
        else:
            pairs = all(not c[1] for c in calls[:16]) and all(c[1] for c in calls[16:])
        ok &= check(held + ": call order", pairs, True, 0)
        ok &= check(held + ": values per cell", min(len(data[q][v][L]) for q in data
                                                     for (v, L) in runners), 3, 0)
        ok &= check(held + ": no as-is value in gpu", min(min(data["gpu"][v][L]) for (v, L) in runners)
                    > 0, True, 0)
        ok &= check(held + ": probes", len(probes), 3, 0)
        ok &= check(held + ": held passes short (depth 6)", short, 2 * 3, 0)
    return ok


def main():
    t = TRUE
    want = {("ddp", "param_us"): t["param"], ("ddp", "copy_us"): t["copy"],
            ("ddp", "bucket_us"): t["bucket"], ("ddp", "hook_bucket_us"): t["hook_bucket"],
            ("ddp", "finalize_us"): t["finalize"], ("ddp", "forward_us"): t["forward"],
            ("ddp", "buffer_us"): t["buffer"], ("hooks", "hook_us"): t["hook"],
            ("hooks", "bucket_us"): t["hk_bucket"], ("hooks", "noop_hook_us"): t["noop"],
            ("gpu", "ddp_view_param_us"): t["g_view"],
            ("gpu", "ddp_copy_param_us"): t["g_view"] + t["g_copy"],
            ("gpu", "buffer_us"): t["g_buf"], ("gpu", "hook_param_us"): t["g_hook"],
            ("other", "broadcast_fixed_us"): t["bcast"]}
    ok = True
    data = make()
    est = torch_fwcal.estimate(data)
    for (grp, k), w in want.items():
        ok &= check(k, est[grp][k], w, 1e-6)
    lo, hi, ci = torch_fwcal.spread(data, boot=50)
    ok &= check("fw_rel_lo (no noise)", lo, 0.0, 1e-9)
    ok &= check("fw_rel_hi (no noise)", hi, 0.0, 1e-9)
    for (grp, k), w in want.items():
        if grp in ci:
            ok &= check("ci %s" % k, min(max(w, ci[grp][k][0]), ci[grp][k][1]), w, 1e-6)
    # the data as framework_costs() stores it (JSON: depths as string keys) gives the same
    fw = {"raw": {"depths": list(DEPTHS), "P": {str(L): v for L, v in data["P"].items()},
                  "nbuf": {str(L): v for L, v in data["nbuf"].items()},
                  "buckets": {v: {str(L): n for L, n in d.items()} for v, d in data["B"].items()}},
          "rounds": {q: {"%s/%d" % (v, L): data[q][v][L] for v in torch_fwcal.VARIANTS
                         for L in DEPTHS} for q in torch_fwcal.QUANTITIES}}
    again = torch_fwcal.estimate(torch_fwcal.data_from_run(fw))
    ok &= check("from stored rounds: param_us", again["ddp"]["param_us"], t["param"], 1e-6)
    # one slow round (1.5x every framework's host cost): the medians hold, the spread shows it
    data = make(rounds=9, slow_round=4)
    est = torch_fwcal.estimate(data)
    ok &= check("one slow round: param_us", est["ddp"]["param_us"], t["param"], 0.01 * t["param"])
    ok &= check("one slow round: hook_us", est["hooks"]["hook_us"], t["hook"], 0.01 * t["hook"])
    _, hi, _ = torch_fwcal.spread(data, boot=50)
    ok &= check("one slow round: fw_rel_hi > 0.3", min(hi, 0.3), 0.3, 1e-9)
    ok &= check_probe()
    ok &= check_structure()
    ok &= check_rounds()
    print("test_fwcal: %s" % ("passed" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
