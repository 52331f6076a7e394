# device_torch_env.sh: sourced by the PyTorch-only device scripts: OUT (default /tmp/fusim-out),
# the log (tee to $OUT/log.txt), the elapsed-time helpers el and t, and the machine and versions
# first.
set -u
OUT=${OUT:-/tmp/fusim-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
t() { echo "[$(el) s] $*"; }
export PYTHONUNBUFFERED=1
date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
python3 -c 'import torch, transformers, torchvision; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "transformers", transformers.__version__, "torchvision", torchvision.__version__)'
uname -r; nproc; lscpu | grep -i 'model name'
