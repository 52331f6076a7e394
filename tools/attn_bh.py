#!/usr/bin/env python3
"""attn_bh.py: SDPA forward and backward device time against batch x heads (bh) at one sequence
length and head size, in the calibration's layout (q, k, v contiguous [1, bh, s, hd]) and in HF's
(a [B, s, H, hd] view transposed to [B, H, s, hd]), for diagnosing the attention tables, which
until 2026-12-04o were measured at bh = 2^19 / seq alone and priced linearly in bh (issue 13:
Llama h2560 TF32, bh 40, ran its memory-efficient attention backward 16% above that; now
calib_torch.attn_bhs times several bh). Diagnosis only, no table.

Usage (on the GPU machine): python3 tools/attn_bh.py --out FILE
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    import calib_torch
    torch = calib_torch.import_torch("attn_bh")
    import torch.nn.functional as F
    tm = calib_torch.Timer(torch)
    rows = []
    for dname, dt in (("bf16", torch.bfloat16), ("fp32", torch.float32)):
        for hd, seq, causal in ((128, 1024, 1), (64, 1024, 1), (64, 512, 0), (128, 2048, 1)):
            for bh in (8, 16, 24, 40, 64, 96, 128, 256, 512):
                for layout in ("calib", "hf"):
                    heads = 8 if bh % 8 == 0 else bh
                    B = bh // heads
                    if layout == "calib":
                        q, k, v = (torch.randn(1, bh, seq, hd, device="cuda", dtype=dt, requires_grad=True) for _ in range(3))
                        qq, kk, vv = q, k, v
                    else:
                        q, k, v = (torch.randn(B, seq, heads * hd, device="cuda", dtype=dt, requires_grad=True) for _ in range(3))
                        qq, kk, vv = (t.view(B, seq, heads, hd).transpose(1, 2) for t in (q, k, v))
                    fn = lambda: F.scaled_dot_product_attention(qq, kk, vv, is_causal=bool(causal))  # noqa: E731
                    f_us = tm.device_us(fn, reps=5)
                    y = fn()
                    g = torch.randn_like(y)
                    b_us = tm.device_us(lambda: torch.autograd.grad(y, (q, k, v), g, retain_graph=True), reps=5)
                    rows.append({"dtype": dname, "head_dim": hd, "seq": seq, "causal": causal, "bh": bh,
                                 "layout": layout, "fwd_us": round(f_us, 2), "bwd_us": round(b_us, 2)})
                    del q, k, v, qq, kk, vv, y, g
            print("%s hd %d seq %d: %s" % (dname, hd, seq, [(r["bh"], r["layout"], r["bwd_us"]) for r in rows[-18:]]),
                  file=sys.stderr, flush=True)
    with open(a.out, "w") as f:
        json.dump({"tool": "tools/attn_bh.py", "gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
                   "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
