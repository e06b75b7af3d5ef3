#!/usr/bin/env bash
# Runs on the GPU machine (from .device-bundle/bench): builds the CUDA C side with nvcc, then
# runs ferrocuda's benchmark programs, which time both sides in one process with CUDA events.
set -euo pipefail
cd "$(dirname "$0")"
arch="${BENCH_ARCH:-sm_90}"
nvcc -O3 -arch="$arch" -ptx vecadd.cu -o vecadd_cuda.ptx
nvcc -O3 -arch="$arch" vecadd.cu -o launch_overhead
# The C program's <<<>>> cost: the median of three runs of it (each a median of 7 x 10,000).
cuda_launch=$(for run in 1 2 3; do ./launch_overhead 10000 7 | awk '/cuda_c_launch_us/ {print $2}'; done | sort -g | sed -n 2p)
../examples/bench_foundation --cuda-ptx vecadd_cuda.ptx --cuda-launch-us "$cuda_launch"
if [ -x ../examples/bench_kernels ]; then
  nvcc -O3 -arch="$arch" -ptx reference_kernels.cu -o reference_kernels.ptx
  echo "CUDA C references, ptxas -v ($arch):"
  nvcc -O3 -arch="$arch" -cubin -Xptxas -v reference_kernels.cu -o /dev/null 2>&1 | grep -E "Compiling entry|Used|spill" || true
  cupy=$(PYTHONUNBUFFERED=1 python3 cupy_sum.py | awk '/cupy_sum_gbs/ {print $2}')
  echo "ferrocuda kernels, ptxas -v ($arch):"
  echo "| kernel | registers, barriers, shared memory | stack frame, spills |"
  echo "|---|---|---|"
  bash ptxas_report.sh kernels.ptx "$arch"
  ../examples/bench_kernels --cuda-ptx reference_kernels.ptx --cupy-sum-gbs "$cupy"
fi
