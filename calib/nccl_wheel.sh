# shellcheck shell=bash
# nccl_wheel.sh: sourced by the device scripts that build fusim-gpu (run from the repository
# root). Where NCCL is only a pip wheel (nvidia-nccl-cu*: libnccl.so.2, no unversioned name),
# NCCL_HOME points meson at /tmp/nccl, a folder of links with the names it looks for, and
# LD_LIBRARY_PATH finds the library at run time. NCCL_WHEEL: the wheel's folder ("" where NCCL is
# installed or absent).
# shellcheck disable=SC2034 # read by the scripts that source this one
NCCL_WHEEL=
if [ ! -e /usr/lib/x86_64-linux-gnu/libnccl.so ] && [ ! -e /usr/local/cuda/lib64/libnccl.so ]; then
  nd=$(python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))' 2>/dev/null)
  if [ -n "$nd" ] && [ -e "$nd/lib/libnccl.so.2" ]; then
    mkdir -p /tmp/nccl/lib && ln -sf "$nd/lib/libnccl.so.2" /tmp/nccl/lib/libnccl.so
    ln -sfn "$nd/include" /tmp/nccl/include
    export NCCL_HOME=/tmp/nccl LD_LIBRARY_PATH="$nd/lib:${LD_LIBRARY_PATH:-}"
    NCCL_WHEEL=$nd
  fi
fi
