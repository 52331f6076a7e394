"""One what-if, however spelled, is one workload (sim/cmd_workload.c, fu_opt_each).

fusim workload records its builder's arguments (priced_with.builder_args) and the database stores
a workload by its content, so two spellings of one value must be recorded alike: an alias
(--precision amp-bf16 is autocast-bf16), a type's other name (bfloat16 is bf16), a whole number
(02 is 2), a number (.10, 1e-1 and 0.1; 1e0 and 1). Each value is written in its one spelling, by
hand: 2, 0.1, 1, 2.5, autocast-bf16, bf16, 8, 224. So must two orders of the same options (and an
option given twice, whose last value the parse keeps): the arguments are recorded in the order of
fusim workload's option table (--help's), each once, written out here by hand."""
import atexit
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, finish  # noqa: E402

fusim = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="fusim-canon-")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)


def run(*args):
    """fusim ARGS, which must succeed (what follows reads its output)."""
    r = subprocess.run([fusim, *args], capture_output=True, text=True)
    if r.returncode:
        sys.exit("FAIL: fusim %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr))


TF = ["--transformer", "--arch", "llama", "--hidden", "512", "--heads", "8", "--ffn", "1376", "--vocab", "32000",
      "--seq", "256", "--micro-batch", "2", "--name", "t"]
CASES = [  # (name, one spelling, another, the recorded values of both, by hand)
    ("transformer", TF + ["--layers", "02", "--precision", "amp-bf16", "--grad-dtype", "bfloat16", "--dropout", ".10",
                          "--clip-grad-norm", "1e0", "--host-probe=2.50"],
     TF + ["--layers", "2", "--precision", "autocast-bf16", "--grad-dtype", "bf16", "--dropout", "1e-1",
           "--clip-grad-norm", "1", "--host-probe", "2.5"],
     ["--transformer", "--arch", "llama", "--layers", "2", "--hidden", "512", "--heads", "8", "--ffn", "1376",
      "--vocab", "32000", "--seq", "256", "--micro-batch", "2", "--dropout", "0.1", "--precision", "autocast-bf16",
      "--grad-dtype", "bf16", "--clip-grad-norm", "1", "--host-probe", "2.5", "--name", "t"]),
    ("cnn", ["--cnn", "resnet18", "--micro-batch", "008", "--image", "+224", "--dtype", "float32", "--name", "c"],
     ["--cnn", "resnet18", "--micro-batch", "8", "--image", "224", "--dtype", "fp32", "--name", "c"],
     ["--cnn", "resnet18", "--micro-batch", "8", "--image", "224", "--dtype", "float", "--name", "c"]),
    # two orders, neither the table's; --layers 4 given first and overridden by 2
    ("order", ["--name", "t", "--qkv-bias", "--seq", "256", "--layers", "4", "--micro-batch", "2", "--vocab", "32000",
               "--ffn", "1376", "--heads", "8", "--hidden", "512", "--arch", "llama", "--transformer", "--layers", "2",
               "--tied-embeddings"],
     ["--name", "t", "--transformer", "--arch", "llama", "--layers", "2", "--hidden", "512", "--heads", "8", "--ffn",
      "1376", "--vocab", "32000", "--seq", "256", "--micro-batch", "2", "--qkv-bias", "--tied-embeddings"],
     ["--transformer", "--arch", "llama", "--layers", "2", "--hidden", "512", "--heads", "8", "--ffn", "1376",
      "--vocab", "32000", "--seq", "256", "--micro-batch", "2", "--tied-embeddings", "--qkv-bias", "--name", "t"]),
]
for name, one, other, want in CASES:
    paths = [os.path.join(tmp, "%s_%d.json" % (name, i)) for i in (1, 2)]
    for args, p in zip((one, other), paths):
        run("workload", *args, "--out", p)
    texts = [open(p, "rb").read() for p in paths]
    got = json.loads(texts[0])["priced_with"]["builder_args"]
    check("%s: builder_args in one spelling: %s" % (name, got), got == want, True, 0)
    check("%s: the two files are byte-identical" % name, texts[0] == texts[1], True, 0)
    # the database: one stored workload for the two predictions
    db = os.path.join(tmp, name + ".db")
    for p in paths:
        run("predict", "--workload", p, "--comm", "allreduce:8", "--db", db)
    con = sqlite3.connect(db)
    n = con.execute("SELECT count(*) FROM workloads").fetchone()[0]
    npred = con.execute("SELECT count(*) FROM predictions").fetchone()[0]
    check("%s: predictions" % name, npred, 2, 0)
    check("%s: stored workloads" % name, n, 1, 0)
    con.close()

finish()
