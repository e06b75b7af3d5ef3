#!/usr/bin/env bash
# Makes NVIDIA's PTX assembler available at .tools/ptxas/ptxas (repo-relative; .tools is
# git-ignored) for checking generated PTX without a GPU:
#
#   scripts/fetch-ptxas.sh
#   .tools/ptxas/ptxas -arch=sm_90 -v kernels.ptx -o /dev/null
#
# ptxas ships inside NVIDIA's PyPI wheels, fetched with pip. The default is CUDA 12.9's
# (`nvidia-cuda-nvcc-cu12`, nvidia/cuda_nvcc/bin/ptxas): it assembles for sm_70 through sm_90,
# while CUDA 13's ptxas no longer knows sm_70 ("Value 'sm_70' is not defined").
# Idempotent: exits 0 at once when ptxas is already there.
# Environment: PTXAS_WHEEL (default nvidia-cuda-nvcc-cu12; e.g. "nvidia-cuda-nvcc" for CUDA 13),
# PYTHON (default python3).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest_dir="$root/.tools/ptxas"
dest="$dest_dir/ptxas"
wheel_spec="${PTXAS_WHEEL:-nvidia-cuda-nvcc-cu12}"
python="${PYTHON:-python3}"

if [[ -x "$dest" ]] && "$dest" --version >/dev/null 2>&1; then
    echo "$dest"
    exit 0
fi

if ! command -v "$python" >/dev/null 2>&1; then
    echo "fetch-ptxas: $python not found; install Python 3 with pip" >&2
    exit 1
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "fetch-ptxas: downloading $wheel_spec with pip ..." >&2
if ! "$python" -m pip download --quiet --no-deps --only-binary=:all: \
        --dest "$tmp" "$wheel_spec" >&2; then
    echo "fetch-ptxas: 'pip download $wheel_spec' failed" >&2
    exit 1
fi

shopt -s nullglob
wheels=("$tmp"/*.whl)
if [[ ${#wheels[@]} -ne 1 ]]; then
    echo "fetch-ptxas: expected one wheel in $tmp, found ${#wheels[@]}" >&2
    exit 1
fi
wheel="${wheels[0]}"

# The path of ptxas inside the wheel differs between CUDA versions (nvidia/cu13/bin/ptxas,
# nvidia/cuda_nvcc/bin/ptxas): look it up instead of guessing.
member="$("$python" - "$wheel" <<'EOF'
import sys, zipfile
names = [n for n in zipfile.ZipFile(sys.argv[1]).namelist() if n.endswith("/bin/ptxas")]
print(names[0] if names else "")
EOF
)"
if [[ -z "$member" ]]; then
    echo "fetch-ptxas: no bin/ptxas inside $(basename "$wheel")" >&2
    exit 1
fi

mkdir -p "$dest_dir"
"$python" - "$wheel" "$member" "$dest.tmp.$$" <<'EOF'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst)
EOF
chmod +x "$dest.tmp.$$"
mv -f "$dest.tmp.$$" "$dest"

echo "fetch-ptxas: $("$dest" --version | tail -n 1) from $(basename "$wheel") ($member)" >&2
echo "$dest"
