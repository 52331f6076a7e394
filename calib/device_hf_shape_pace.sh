#!/bin/bash
# device_hf_shape_pace.sh: one PyTorch-only call: tools/hf_shape_pace.py, an HF layer's host cost
# at real shapes against the tiny rows that price it, the host's speed cancelled by the tiny
# reference timed in every round (compute17; run for BERT bf16 on 2026-12-05 at main 1f6c577).
# Each ARCH:MODE (default bert:bf16) at every shape of SHAPES ("HIDDEN HEADS BATCH SEQ DEPTH"
# entries separated by commas; default the three BERT shapes of the 12-05 call: the captures'
# host-bound BERTs, h512 32 x 128 at 8 layers and h1024 16 x 256 at 6, and BERT-base's 16 x 512 at
# 12, GPU-bound in its captures: read its figure as an upper bound, backward() may wait on a full
# launch queue; each file's result.gpu_tail_us says how long the GPU ran after backward()
# returned). FFN 4 x hidden (Llama: 8/3 x hidden rounded up to 256, as its configs), vocabulary
# as the architecture's models (BERT 30522, GPT-2 50257, Llama 32000).
# -> $OUT/shapes.tgz (shape_<arch>_<mode>_h<hidden>_l<depth>.json each), $OUT/log.txt
# Run from the repository root:
#   [SHAPES="512 8 32 128 8,..."] bash calib/device_hf_shape_pace.sh [TIMEOUT_S_EACH] [ROUNDS] [ARCH:MODE...]
DT=${1:-90} R=${2:-30}
shift $(( $# < 2 ? $# : 2 ))
SETS=${*:-bert:bf16}
SHAPES=${SHAPES:-512 8 32 128 8,1024 16 16 256 6,768 12 16 512 12}
. calib/device_torch_env.sh
P=data/profiles/h200-default.json
for am in $SETS; do
  arch=${am%%:*} mode=${am#*:}
  case $arch in bert) V=30522 ;; gpt2) V=50257 ;; *) V=32000 ;; esac
  IFS=, read -ra shapes <<<"$SHAPES"
  for s in "${shapes[@]}"; do
    set -- $s
    F=$((4 * $1))
    [ "$arch" = llama ] && F=$(( (8 * $1 / 3 + 255) / 256 * 256 ))
    t "hf_shape_pace $arch $mode h$1 $3x$4 L$5"
    timeout "$DT" python3 tools/hf_shape_pace.py --profile $P --arch "$arch" --mode "$mode" --hidden $1 \
      --heads $2 --ffn $F --vocab $V --batch $3 --seq $4 --depth $5 --rounds "$R" \
      --out "$OUT/shape_${arch}_${mode}_h$1_l$5.json"
    t "exit $?"
  done
done
# One archive of every shape file: the run tool brings back at most 8 files, and the 12-05 call of
# 10 shapes lost 6 of them (data/compute/README, "Measured (session 32)").
tar czf "$OUT/shapes.tgz" -C "$OUT" $(cd "$OUT" && ls shape_*.json 2>/dev/null) && rm -f "$OUT"/shape_*.json
ls -la "$OUT"
