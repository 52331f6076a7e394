#!/usr/bin/env python3
"""emb_sort.py: fusim workload: an embedding's backward past 3072 indices (PyTorch's sort-based path) costs the
host the profile's embedding_sort row more, by hand on the --ops listing with a hand-made row of
500 us: on the token embeddings only (BERT's word and token-type, GPT-2's wte, Llama's
embed_tokens; position embeddings take seq indices), only past 3072 tokens, carried by the
reference step's backward ratio like every backward host cost, and nothing without the row.
Usage: emb_sort.py FUSIM"""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, finish, row_profiles, start, workload  # noqa: E402

fusim, tmp, prof = start()
EXTRA = 500.0
pf, pn, ops = row_profiles(prof, tmp, "embedding_sort", EXTRA)
TOL = 0.002  # the listing's 3 decimals, two rows


def emb(arch, batch, seq, extra=(), p=pf):
    """host_bwd_us of each embedding, by parameter name"""
    _, rows = workload(fusim, ["--transformer", "--arch", arch, "--layers", "1", "--hidden", "256", "--heads", "4",
                               "--ffn", "1024", "--vocab", "1000", "--seq", str(seq), "--micro-batch", str(batch),
                               "--precision", "autocast-bf16"] + list(extra), p, tmp)
    return {x["param"]: float(x["host_bwd_us"]) for x in rows or [] if x["op"] == "embedding"}


# GPT-2: 24 x 128 = 3072 tokens, the one-kernel path: wte as wpe; 25 x 128: wte + 500, wpe as before
a, b = emb("gpt2", 24, 128), emb("gpt2", 25, 128)
if a and b:
    check("gpt2 3072 tokens: wte = wpe", a["transformer.wte.weight"], a["transformer.wpe.weight"], TOL)
    check("gpt2 3200 tokens: wte = wpe + row", b["transformer.wte.weight"], b["transformer.wpe.weight"] + EXTRA, TOL)
    check("gpt2 3200 tokens: wpe unchanged", b["transformer.wpe.weight"], a["transformer.wpe.weight"], TOL)
# GPT-2 1 x 4096: the position ids are 4096 indices too
c = emb("gpt2", 1, 4096)
if a and c:
    check("gpt2 1x4096: wpe + row", c["transformer.wpe.weight"], a["transformer.wpe.weight"] + EXTRA, TOL)
# BERT 25 x 128: word and token-type embeddings past the switch, positions (128 ids) not
d = emb("bert", 25, 128)
if d:
    pos = d["bert.embeddings.position_embeddings.weight"]
    check("bert word = position + row", d["bert.embeddings.word_embeddings.weight"], pos + EXTRA, TOL)
    check("bert token type = position + row", d["bert.embeddings.token_type_embeddings.weight"], pos + EXTRA, TOL)
# Llama: embed_tokens at 3200 tokens = at 3072 + row
e, f = emb("llama", 24, 128), emb("llama", 25, 128)
if e and f:
    check("llama embed_tokens + row", f["model.embed_tokens.weight"], e["model.embed_tokens.weight"] + EXTRA, TOL)
# without the row (an older profile): nothing added
g = emb("gpt2", 25, 128, p=pn)
if g:
    check("no row: wte = wpe", g["transformer.wte.weight"], g["transformer.wpe.weight"], TOL)
# the reference step at twice the profile's backward time for it (rest + 3 layers of
# hf_gpt2_*_tiny): the extra doubles with every backward host cost
rows = {t["op"]: t for t in ops if t["dtype"] == "bf16"}
pb = rows["hf_gpt2_rest_tiny"]["host_bwd_us"] + 3 * rows["hf_gpt2_layer_tiny"]["host_bwd_us"]
pfw = rows["hf_gpt2_rest_tiny"]["host_fwd_us"] + 3 * rows["hf_gpt2_layer_tiny"]["host_fwd_us"]
h = emb("gpt2", 25, 128, ["--host-ref-fwd", "%.4f" % pfw, "--host-ref-bwd", "%.4f" % (2 * pb)])
if h and b:
    check("ref x2: wte - wpe = 2 x row", h["transformer.wte.weight"] - h["transformer.wpe.weight"], 2 * EXTRA, 2 * TOL)
    check("ref x2: wpe doubled", h["transformer.wpe.weight"], 2 * b["transformer.wpe.weight"], 2 * TOL)
shutil.rmtree(tmp, ignore_errors=True)
finish()
