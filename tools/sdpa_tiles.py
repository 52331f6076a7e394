#!/usr/bin/env python3
"""sdpa_tiles.py: SDPA's time at sequence lengths between multiples of 64 (does a partial tile cost
a whole one? sim/fu_builder.c FU__ATTN_TILE), in fp32 and bf16, contiguous (batch, heads, seq,
head) and as nn.MultiheadAttention lays out q, k, v (views of a contiguous (3, seq, batch, hidden) tensor, as
_in_projection_packed's .contiguous() makes it).
Diagnosis only. Usage (GPU): python3 tools/sdpa_tiles.py [BH] [HD]"""
import sys

import torch
import torch.nn.functional as F


def timed(fn, reps=20):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(reps):
        fn()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) * 1e3 / reps


def main():
    bh = int(sys.argv[1]) if len(sys.argv) > 1 else 384
    hd = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    heads = 12
    B = bh // heads
    print("%-5s %-6s %4s %9s %9s %9s %9s" % ("dtype", "layout", "seq", "fwd_us", "fwdbwd_us", "per_seq2", "vs_256"))
    for dt in (torch.float32, torch.bfloat16):
        for layout in ("bhsd", "mha"):
            base = None
            rows = []
            for S in (128, 192, 197, 224, 256):
                if layout == "bhsd":
                    q, k, v = (torch.randn(B, heads, S, hd, device="cuda", dtype=dt, requires_grad=True) for _ in range(3))
                else:   # F.multi_head_attention_forward: (3, S, B, E) contiguous -> q, k, v views
                    proj = torch.randn(3, S, B, heads * hd, device="cuda", dtype=dt, requires_grad=True)
                    q, k, v = (proj[i].view(S, B * heads, hd).transpose(0, 1).view(B, heads, S, hd) for i in range(3))
                go = torch.randn(B, heads, S, hd, device="cuda", dtype=dt)
                f = timed(lambda: F.scaled_dot_product_attention(q, k, v))
                fb = timed(lambda: F.scaled_dot_product_attention(q, k, v).backward(go))
                rows.append((S, f, fb))
                if S == 256:
                    base = fb
            for S, f, fb in rows:
                print("%-5s %-6s %4d %9.1f %9.1f %9.4f %9.3f" % (str(dt)[6:], layout, S, f, fb, fb / S / S, fb / base))


if __name__ == "__main__":
    main()
