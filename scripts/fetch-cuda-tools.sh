#!/usr/bin/env bash
# Assembles a CUDA 13.5 toolkit for static code inspection on a machine without a GPU or a CUDA
# install, from NVIDIA's PyPI wheels, into .tools/cuda/ (git-ignored), laid out like a CUDA_HOME:
#
#   bin/      nvcc, ptxas, nvlink, fatbinary, cudafe++, cuobjdump, nvdisasm   (nvidia-cuda-nvcc,
#             nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm)
#   nvvm/     cicc and libdevice                                              (nvidia-nvvm)
#   include/  the CUDA headers nvcc includes, crt/ among them                 (nvidia-cuda-runtime,
#                                                                              nvidia-cuda-crt)
#
# Then `.tools/cuda/bin/nvcc -arch=sm_90 -cubin -O3 file.cu` works here (nvcc preprocesses with the
# host's gcc, which must be installed), and bench/sass_report.sh counts SASS with it. The cubins
# are for counting only: the GPU machine's driver is CUDA 13.0, older than these tools, and
# bench/run.sh compiles there with that machine's own nvcc.
#
#   bash scripts/fetch-cuda-tools.sh [--force]
#
# Settings (environment):
#   CUDA_TOOLS_VERSION  the wheels' version, a pip specifier suffix (13.5.*)
#   CUDA_WHEELS         a directory already holding some of the wheels: used before downloading
#   PYTHON              the interpreter whose pip downloads them (python3)
# Downloads go to .whl/cuda/ (git-ignored) and are kept for the next run.
set -euo pipefail
cd "$(dirname "$0")/.."
version="${CUDA_TOOLS_VERSION:-13.5.*}"
python="${PYTHON:-python3}"
dest=.tools/cuda
cache=.whl/cuda
packages=(nvidia-cuda-nvcc nvidia-nvvm nvidia-cuda-crt nvidia-cuda-runtime nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm)

if [ "${1:-}" != --force ] && [ -x "$dest/bin/nvcc" ] && [ -x "$dest/bin/cuobjdump" ] \
  && [ -x "$dest/bin/nvdisasm" ] && [ -x "$dest/nvvm/bin/cicc" ] && [ -f "$dest/include/cuda_runtime.h" ]; then
  echo "fetch-cuda-tools: $dest is complete ($("$dest/bin/nvcc" --version | tail -n 2 | head -n 1)); --force rebuilds it" >&2
  exit 0
fi
for tool in unzip gcc; do
  command -v "$tool" >/dev/null || { echo "fetch-cuda-tools: '$tool' is needed and not installed" >&2; exit 1; }
done

mkdir -p "$cache"
wheel_of() { # package -> the path of its wheel (cache or CUDA_WHEELS), or nothing
  local stem=${1//-/_}
  ls "$cache"/"$stem"-[0-9]*.whl ${CUDA_WHEELS:+"$CUDA_WHEELS"/"$stem"-[0-9]*.whl} 2>/dev/null \
    | grep -E "/${stem}-${version//\*/[0-9.]*}-" | head -n 1 || true
}
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
for package in "${packages[@]}"; do
  wheel=$(wheel_of "$package")
  if [ -z "$wheel" ]; then
    echo "fetch-cuda-tools: downloading $package==$version" >&2
    "$python" -m pip download -q --no-deps --only-binary=:all: "$package==$version" -d "$cache"
    wheel=$(wheel_of "$package")
    [ -n "$wheel" ] || { echo "fetch-cuda-tools: no $package $version wheel after download" >&2; exit 1; }
  fi
  echo "fetch-cuda-tools: unpacking $(basename "$wheel")" >&2
  unzip -q -o "$wheel" 'nvidia/cu13/*' -d "$staging"
done

rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
mv "$staging/nvidia/cu13" "$dest"
chmod +x "$dest"/bin/* "$dest"/nvvm/bin/* 2>/dev/null || true

# The proof that it works: a kernel compiled to an sm_90 cubin and disassembled.
probe="$staging/probe"
mkdir -p "$probe"
cat >"$probe/probe.cu" <<'CU'
extern "C" __global__ void probe(float* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = a[i] * 2.0f + 1.0f;
}
CU
"$dest/bin/nvcc" -arch=sm_90 -cubin -O3 "$probe/probe.cu" -o "$probe/probe.cubin"
count=$("$dest/bin/cuobjdump" -sass "$probe/probe.cubin" | grep -cE '^ +/\*[0-9a-f]{4}\*/ ')
"$dest/bin/nvdisasm" "$probe/probe.cubin" >/dev/null
echo "fetch-cuda-tools: $dest ready: $("$dest/bin/nvcc" --version | tail -n 2 | head -n 1); a probe kernel compiled to sm_90 SASS ($count instructions)" >&2
