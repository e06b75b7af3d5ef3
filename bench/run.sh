#!/usr/bin/env bash
# Runs on the GPU machine (from .device-bundle/bench): builds the CUDA C side with nvcc, then
# runs ferrocuda's benchmark program, which times both sides in one process with CUDA events.
set -euo pipefail
cd "$(dirname "$0")"
arch="${BENCH_ARCH:-sm_90}"
nvcc -O3 -arch="$arch" -ptx vecadd.cu -o vecadd_cuda.ptx
nvcc -O3 -arch="$arch" vecadd.cu -o launch_overhead
cuda_launch=$(./launch_overhead 10000 7 | awk '/cuda_c_launch_us/ {print $2}')
../examples/bench_foundation --cuda-ptx vecadd_cuda.ptx --cuda-launch-us "$cuda_launch"
