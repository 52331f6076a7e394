# device_torch_env.sh: sourced by the PyTorch-only device scripts: OUT (default /tmp/fusim-out),
# the log (tee to $OUT/log.txt), the elapsed-time helpers el and t, calib (one calib_torch run
# within the script's LIMIT seconds), the machine and versions first, and a clock log
# ($OUT/clocks.csv).
set -u
OUT=${OUT:-/tmp/fusim-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
T0=$(date +%s)
el() { echo $(( $(date +%s) - T0 )); }
t() { echo "[$(el) s] $*"; }
calib() {  # OUT-FILE SECONDS ARGS...: one calib_torch run, if SECONDS are left of LIMIT
  local f=$1 s=$2; shift 2
  local left=$(( ${LIMIT:-560} - $(el) - 5 ))
  [ "$left" -gt 20 ] || { t "$f skipped: $left s left"; return 0; }
  [ "$s" -gt "$left" ] && s=$left
  # --budget: a sweep stops short of the timeout and its file is still written
  timeout "$s" python3 tools/calib_torch.py --out "$OUT/$f" --budget $(( s * 3 / 4 )) "$@"
  t "$f exit $?"
}
export PYTHONUNBUFFERED=1
date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
python3 -c 'import torch, transformers, torchvision; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "transformers", transformers.__version__, "torchvision", torchvision.__version__)'
uname -r; nproc; lscpu | grep -i 'model name'
# The SM clock, power and temperature every second while the script works (-> clocks.csv): the
# clocks follow a power cap, so a sweep or a capture can be set beside the clock it ran at.
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu \
  --format=csv,nounits -l 1 > "$OUT/clocks.csv" 2>/dev/null &
CLOCK_LOGGER=$!
trap 'kill $CLOCK_LOGGER 2>/dev/null' EXIT
