#!/usr/bin/env python3
"""hf_host_from_log.py: a calibration file (fusim-compute-1) from the log lines of
tools/calib_torch.py's hf_host part, for a run whose JSON was lost (the 2026-12-03 device call
was killed by its own timeout before the part wrote its file; its log holds every row).

Usage: python3 tools/hf_host_from_log.py LOG OUT.json
"""
import json
import re
import sys

import bad_input


def main(log, out):
    ops = []
    for line in open(log):
        m = re.search(r"hf_host (\w+)\s+(bf16|fp32) (real|tiny) per layer fwd (-?\d+) bwd (-?\d+) us; rest fwd (-?\d+) bwd (-?\d+) us", line)
        if m:
            arch, dt, size, lf, lb, rf, rb = m.groups()
            sfx = "_real" if size == "real" else "_tiny"
            row = {"dtype": dt, "numel": [], "fwd_us": [], "bwd_us": []}
            ops.append(dict(row, op="hf_%s_layer%s" % (arch, sfx), host_fwd_us=float(lf), host_bwd_us=float(lb)))
            ops.append(dict(row, op="hf_%s_rest%s" % (arch, sfx), host_fwd_us=float(rf), host_bwd_us=float(rb)))
        m = re.search(r"hf_host (\w+)\s+(bf16|fp32) tiny before the first layer fwd (-?\d+) us", line)
        if m:
            arch, dt, pf = m.groups()
            ops.append({"op": "hf_%s_pre_tiny" % arch, "dtype": dt, "numel": [], "fwd_us": [], "bwd_us": [],
                        "host_fwd_us": float(pf), "host_bwd_us": 0.0})
        m = re.search(r"hf_host tv resnet50 (bf16|fp32) (held|plain) host fwd (\d+) bwd (\d+) us", line)
        if m:
            dt, how, f, b = m.groups()
            ops.append({"op": "tv_resnet50_" + how, "dtype": dt, "numel": [], "fwd_us": [], "bwd_us": [],
                        "host_fwd_us": float(f), "host_bwd_us": float(b)})
    d = {"format": "fusim-compute-1", "gpu": "NVIDIA H200", "gpu_mem_bytes": 150109880320, "torch": "2.11.0+cu130",
         "cuda": "13.0", "command": "python3 tools/calib_torch.py --out calib-d.json --parts hf_host,ops_kv "
         "(calib/device_compute_host.sh; killed by its 75 s timeout in the fp32 ResNet pass: rows transcribed "
         "from its log by the script in data/compute/README.md)",
         "compute": {"source": "tools/calib_torch.py --parts hf_host on NVIDIA H200 (torch 2.11.0+cu130, CUDA 13.0), 2026-12-03 09:05 UTC", "ops": ops}}
    json.dump(d, open(out, "w"), indent=1)
    print(len(ops), "rows")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: hf_host_from_log.py LOG OUT.json")
    sys.exit(bad_input.run("hf_host_from_log", main, sys.argv[1], sys.argv[2]))
