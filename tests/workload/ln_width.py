#!/usr/bin/env python3
"""ln_width.py: fusim workload prices LayerNorm at its width H from the layernorm_wN tables
(tools/calib_torch.py ops_ln; "layernorm" is 1024 wide), by hand on the --ops listing. Hand-made
fp32 tables whose last point is 1e6 elements (beyond it a table is linear in the element count):
per 1e6 elements, fwd / bwd: 512 wide 40 / 80, 1024 wide 10 / 20, 2048 wide 5 / 10. At T x H
elements a width's time is y x T x H / 1e6; between two widths geometric in the width
(f = ln(H / lo) / ln(hi / lo): y_lo^(1 - f) y_hi^f), the nearest width beyond them.
Checked (BERT in TF32, every LayerNorm at T x H): 1024, 512 and 2048 exactly, 768 between 512 and
1024, 4096 and 256 at the nearest, and without the width tables the 1024-wide one at 768. With a
96-wide table too (ops_ln_narrow; 160 / 320 per 1e6, at 4x the batch so that T x H >= 1e6): 96
exactly, 256 between 96 and 512, 64 at the nearest, 96.
Usage: ln_width.py FUSIM"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, family_profiles, finish, start, workload  # noqa: E402

fusim, tmp, prof = start()
Y = {96: (160.0, 320.0), 512: (40.0, 80.0), 1024: (10.0, 20.0), 2048: (5.0, 10.0)}
SEQ, BATCH = 512, 8  # T x H >= 1e6 at every width checked (256 and up): the linear part
NARROW_BATCH = 32    # the same from 64 wide


paths = family_profiles(prof, tmp, "layernorm", "fp32", {
    name: [("layernorm" if w == 1024 else "layernorm_w%d" % w, Y[w]) for w in widths]
    for name, widths in (("with", (512, 1024, 2048)), ("without", (1024,)),
                         ("narrow", (96, 512, 1024, 2048)))})


def ln_rows(H, p="with", batch=BATCH):
    _, rows = workload(fusim, ["--transformer", "--arch", "bert", "--layers", "1", "--hidden", str(H), "--heads",
                               "4", "--ffn", str(4 * H), "--vocab", "1000", "--seq", str(SEQ), "--micro-batch",
                               str(batch), "--precision", "tf32"], paths[p], tmp)
    return [(float(r["fwd_us"]), float(r["bwd_us"])) for r in rows or [] if r["op"] == "layernorm"]


def expect(what, H, y, p="with", batch=BATCH):
    rows = ln_rows(H, p, batch)
    T = SEQ * batch
    check(what + ": BERT's four LayerNorms listed", len(rows), 4, 0)
    for fw, bw in rows:
        check(what + ": fwd", fw, y[0] * T * H / 1e6, 0.002)
        check(what + ": bwd", bw, y[1] * T * H / 1e6, 0.002)


def between(H, lo, hi):
    f = math.log(H / lo) / math.log(hi / lo)
    return tuple(Y[lo][b] ** (1 - f) * Y[hi][b] ** f for b in (0, 1))


expect("1024 wide", 1024, Y[1024])
expect("512 wide", 512, Y[512])
expect("2048 wide", 2048, Y[2048])
expect("768 wide: between 512 and 1024", 768, between(768, 512, 1024))
expect("4096 wide: the nearest, 2048", 4096, Y[2048])
expect("256 wide: the nearest, 512", 256, Y[512])
expect("768 wide without the width tables: the 1024-wide one", 768, Y[1024], "without")
expect("96 wide", 96, Y[96], "narrow", NARROW_BATCH)
expect("256 wide: between 96 and 512", 256, between(256, 96, 512), "narrow", NARROW_BATCH)
expect("64 wide: the nearest, 96", 64, Y[96], "narrow", NARROW_BATCH)
finish()
