#!/usr/bin/env python3
"""carry_one.py: a what-if, not the model. Predicts a run as tools/store_torch_validation.py does,
except that the framework costs measured on the model at capture are carried to the loop at
factor 1 (their model-cost rounds' own level) instead of the store's carry, the loop's
framework-free backward() CPU over the one measured beside them (model_cost_factor's f). Every
other factor (timeline, GPU, probes, DDP's forward) is the store's. Arguments are the store's.

    python3 data/validation/carry_one.py data/validation/torch_h100_run31 --no-store
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import store_torch_validation as stv  # noqa: E402

store_carry = stv.model_cost_factor


def carry_one(ws, wl, m, host_scale=True):
    """model_cost_factor with the loop's backward() CPU set to the model-cost rounds' (f = 1)."""
    fm = stv.on_model(wl) or (wl.get("meta") or {}).get("framework_on_model") or {}
    cpu = m.get("compute_only_cpu_fwd_bwd_rest_us")
    if cpu and fm.get("bwd_cpu_us", 0) > 0:
        m = dict(m, compute_only_cpu_fwd_bwd_rest_us=[cpu[0], fm["bwd_cpu_us"]] + list(cpu[2:]))
    return store_carry(ws, wl, m, host_scale)


if __name__ == "__main__":
    stv.model_cost_factor = carry_one
    sys.argv[0] = "store_torch_validation.py"
    sys.exit(stv.main())
