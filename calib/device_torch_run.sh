#!/bin/bash
# device_torch_run.sh: one validate_torch run on a 1-GPU machine in one call, cut to fit BUDGET_S:
#   1. a smoke test of torch_modelcost's per-bucket variants (ddpv_n, hk_n and ddpo_n, DDP's
#      offload comm hook) and its spacing variants (hk_0, hk_e4, hk_e16, ddpv_e16, ddpo_e16) on
#      ResNet-18 batch 8, 3 rounds, into $OUT/smoke.txt (a failure there
#      is logged and the run goes on: capture keeps the tower's costs where measure() fails);
#   2. tools/validate_torch.py on MODELS with ITERS timed rounds and MC model-cost rounds, under
#      `timeout` so that the tar at the end always runs (runs.json is rewritten after every model,
#      so a cut keeps the models done).
# Everything but the log goes into $OUT/res.tgz (the run tool brings back at most 8 files).
# Run from the repository root (a copy of the tree) as
#   bash calib/device_torch_run.sh BUDGET_S MODELS [ITERS] [MC] [FW] [EVERY]
# EVERY: the spacing variants' bucket sizes in gradients (validate_torch --spacing-every, default
# 4,16; the smoke test uses them too); SMOKE=0 in the environment skips the smoke test; TWIN=1
# adds validate_torch --baseline-twin (a second framework-free runner a round: one runner more);
# COLD=0 passes validate_torch --no-model-cost-cold (no cache-flushed second step of every
# model-cost variant: each model-cost round in about half the time, data/validation/budget_split.py);
# RECIPE="--amp bf16 --optimizer adamw --set-to-none" (or any of them) trains with that recipe
# (validate_torch's options; default fp32/TF32, SGD with momentum, gradients zeroed in place);
# CHECK=1 first drops the models that do not build or take a step in that recipe
# (tools/torch_models_check.py: models never run before may need a newer transformers).
set -u
OUT=${OUT:-/tmp/fusim-out}
RES=$OUT
. calib/device_torch_env.sh
BUDGET=${1:-540}
MODELS=${2:?MODELS}
ITERS=${3:-30}
MC=${4:-16}
FW=${5:-6}
EVERY=${6:-4,16}
W=/tmp/torchrun
mkdir -p $W
if [ "${SMOKE:-1}" != 0 ]; then
t "smoke: torch_modelcost per-bucket and spacing variants (ddpo_n, hk_e*, ddp*_e*) on resnet18:8"
EVERY=$EVERY timeout 90 python3 - >$W/smoke.txt 2>&1 <<'EOF'
import os, sys, time
sys.path.insert(0, "tools")
import torch, torchvision
import torch_modelcost
t0 = time.time()
torch.manual_seed(0)
m = torchvision.models.resnet18(weights=None).cuda()
x = torch.randn(8, 3, 224, 224, device="cuda")
y = torch.randint(0, 1000, (8,), device="cuda")
crit = torch.nn.CrossEntropyLoss()
opt = torch.optim.SGD(m.parameters(), lr=1e-3, momentum=0.9)
out = torch_modelcost.measure(m, lambda mm: crit(mm(x), y), opt,
                              {"finalize_us": 0.0, "hooks_bucket_us": 0.0},
                              rounds=3, warmup=1, cold=False, buckets=True,
                              spacing_variants=True, log=print,
                              spacing_every=[int(n) for n in os.environ["EVERY"].split(",")])
print("ddpo_n raw", out["raw"].get("ddpo_n"))
print("spacing variants run:", sorted(v for v in out["raw"] if v in torch_modelcost.spacing_names(
    [int(n) for n in os.environ["EVERY"].split(",")])))
print("issue_spacing", out.get("issue_spacing"))
print("ddp_hook_bucket_us", out.get("ddp_hook_bucket_us"), out["ci"].get("ddp_hook_bucket_us"))
print("smoke ok in %.1f s" % (time.time() - t0))
EOF
echo "smoke rc $?"; cat $W/smoke.txt | tail -12
fi
if [ "${CHECK:-0}" = 1 ]; then   # drop the models that do not build or step in the recipe
  MODELS=$(python3 tools/torch_models_check.py "$MODELS" ${RECIPE:-}) || { t "no model builds"; MODELS=""; }
  t "models that build and step: $MODELS"
fi
LEFT=$(( BUDGET - $(el) - 15 ))
# timeout 0 is no limit and a negative one fails at once: too little left is said and skipped
[ "$LEFT" -ge 30 ] || { t "only $LEFT s left of the budget: validate_torch not run"; exit 1; }
t "validate_torch $MODELS iters $ITERS model-cost-rounds $MC fw-rounds $FW, cut at $LEFT s"
timeout $LEFT python3 tools/validate_torch.py --out $W/run --iters $ITERS --warmup 2 \
  --capture-iters 5 --fw-rounds $FW --no-chain --model-cost-rounds $MC --beside-rounds 5 \
  --first-issue-rounds 0 --no-loop-probes --spacing-every "$EVERY" --models "$MODELS" \
  $([ "${TWIN:-0}" = 1 ] && echo --baseline-twin) $([ "${COLD:-1}" = 0 ] && echo --no-model-cost-cold) \
  ${RECIPE:-}
echo "validate_torch rc $?"
t "tar"
cp $W/smoke.txt $W/run/ 2>/dev/null
tar czf $RES/res.tgz -C $W run
ls -la $RES
t "done"
