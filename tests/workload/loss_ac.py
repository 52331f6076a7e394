#!/usr/bin/env python3
"""loss_ac.py: fusim workload prices BERT's loss under bf16 autocast from the cross_entropy_ac
tables (CrossEntropyLoss on the bf16 logits: log-softmax in bf16, its output cast up for
nll_loss), where the profile has them, and every other loss as before (GPT-2 and Llama cast the
logits to fp32 first: the cross_entropy tables). By hand on the --ops listing, with hand-made
tables whose last point is 1e6 elements (beyond it a table is linear in the element count):
at T x V elements, fwd = y_fwd x T x V / 1e6 and bwd = y_bwd x T x V / 1e6.
Checked: BERT autocast at vocabulary 32000 (aligned: cross_entropy_ac) and 30522 (unaligned:
cross_entropy_ac_unal); without the tables BERT keeps cross_entropy / cross_entropy_unaligned;
GPT-2 and Llama under autocast and BERT in TF32 keep the cross_entropy tables.
Usage: loss_ac.py FUSIM"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, finish, start, workload  # noqa: E402

fusim, tmp, prof = start()
TOL = 0.002  # the listing's 3 decimals
# per 1e6 elements (fwd, bwd): distinct, so that the listing says which table priced the loss
AC, AC_UNAL, CE, CE_UNAL = (10.0, 20.0), (11.0, 23.0), (13.0, 29.0), (17.0, 31.0)


def table(op, dtype, y):
    return {"op": op, "dtype": dtype, "numel": [1e5, 1e6], "fwd_us": [1.0, y[0]], "bwd_us": [1.0, y[1]],
            "host_fwd_us": 5.0, "host_bwd_us": 5.0}


base = [t for t in prof["compute"]["ops"] if not t["op"].startswith("cross_entropy")]
ce = [table("cross_entropy", d, CE) for d in ("bf16", "fp32")]
ce += [table("cross_entropy_unaligned", d, CE_UNAL) for d in ("bf16", "fp32")]
ac = [table("cross_entropy_ac", "bf16", AC), table("cross_entropy_ac_unal", "bf16", AC_UNAL)]
paths = {}
for name, rows in (("with", base + ce + ac), ("without", base + ce)):
    prof["compute"]["ops"] = rows
    paths[name] = os.path.join(tmp, name + ".json")
    with open(paths[name], "w") as f:
        json.dump(prof, f)

SEQ, BATCH = 256, 4
T = SEQ * BATCH


def loss_row(arch, vocab, prec="autocast-bf16", p="with"):
    """(op, fwd_us, bwd_us) of the loss (the listing's last row) of a one-layer model"""
    _, rows = workload(fusim, ["--transformer", "--arch", arch, "--layers", "1", "--hidden", "256", "--heads", "4",
                               "--ffn", "1024", "--vocab", str(vocab), "--seq", str(SEQ), "--micro-batch",
                               str(BATCH), "--precision", prec], paths[p], tmp)
    if not rows:
        return None
    r = rows[-1]
    return r["op"], float(r["fwd_us"]), float(r["bwd_us"])


def expect(what, got, op, y, vocab):
    if got is None:
        return
    check(what + ": the loss's table is " + op, got[0] == op, True, 0)
    check(what + ": fwd", got[1], y[0] * T * vocab / 1e6, TOL)
    check(what + ": bwd", got[2], y[1] * T * vocab / 1e6, TOL)


expect("bert autocast, vocabulary 32000", loss_row("bert", 32000), "cross_entropy_ac", AC, 32000)
expect("bert autocast, vocabulary 30522", loss_row("bert", 30522), "cross_entropy_ac_unal", AC_UNAL, 30522)
expect("bert autocast without the _ac tables", loss_row("bert", 32000, p="without"), "cross_entropy", CE, 32000)
expect("bert autocast without the _ac tables, 30522", loss_row("bert", 30522, p="without"),
       "cross_entropy_unaligned", CE_UNAL, 30522)
expect("gpt2 autocast", loss_row("gpt2", 32000), "cross_entropy", CE, 32000)
expect("llama autocast, 30522", loss_row("llama", 30522), "cross_entropy_unaligned", CE_UNAL, 30522)
expect("bert tf32", loss_row("bert", 32000, "tf32"), "cross_entropy", CE, 32000)
finish()
