#!/usr/bin/env bash
# Static comparison of the idiomatic suite's machine code, no GPU needed: for every kernel of
# kernels-idiomatic and its CUDA C twin in bench/idiomatic.cu, the SASS instruction count,
# registers and stack frame for sm_90:
#   - ferrocuda: the crate's PTX (FERROCUDA_ARCH=sm_90, release) through ptxas 13.5;
#   - CUDA C: nvcc 13.5 -O3 --fmad=false (no multiply-add contraction, as ferrocuda by default)
#     and nvcc's default (contraction on);
#   - with --fast-math (or --fast-math-ptx FILE), a second ferrocuda column: the same crate built
#     with FERROCUDA_FAST_MATH=contract (FMA contraction), compared with nvcc's default.
# Instructions are the lines of `cuobjdump -sass` for the function, NOP padding left out (the
# static size of the code, not the count executed: a loop body counts once), with how many of
# them are 64-bit integer arithmetic (see sass_counts).
#
#   bash bench/sass_report.sh [--ptx FILE] [--fast-math | --fast-math-ptx FILE] [--out FILE.md]
#
# Without --ptx it builds kernels-idiomatic (`cargo build --release`, FERROCUDA_ARCH=sm_90, as
# scripts/gpu-bundle.sh does) and reads its PTX; --fast-math builds the fast-math variant in
# target/nolineinfo, as scripts/gpu-bundle.sh does, and fails if the builder did not apply it. The tools come from .tools/cuda
# (scripts/fetch-cuda-tools.sh), or CUDA_TOOLS; SASS_ARCH (sm_90) picks the architecture.
# Prints a markdown table; --out writes it to a file too.
set -euo pipefail
cd "$(dirname "$0")/.."
tools="${CUDA_TOOLS:-.tools/cuda}"
arch="${SASS_ARCH:-sm_90}"
ptx="" fast_ptx="" out="" ptx_label=""
while [ $# -gt 0 ]; do
  case "$1" in
    --ptx) ptx=$2; shift 2 ;;
    --fast-math-ptx) fast_ptx=$2; shift 2 ;;
    --fast-math) fast_ptx=build; shift ;;
    --out) out=$2; shift 2 ;;
    *) echo "sass_report: unknown argument '$1' (expected --ptx FILE, --fast-math, --fast-math-ptx FILE, --out FILE)" >&2; exit 2 ;;
  esac
done
for tool in nvcc ptxas cuobjdump; do
  [ -x "$tools/bin/$tool" ] || { echo "sass_report: $tools/bin/$tool is missing: run scripts/fetch-cuda-tools.sh (or set CUDA_TOOLS)" >&2; exit 1; }
done
if [ -z "$ptx" ]; then
  echo "sass_report: building kernels-idiomatic (FERROCUDA_ARCH=$arch, release)..." >&2
  FERROCUDA_ARCH=$arch cargo build --release -q -p kernels-idiomatic
  ptx=$(ls -t target/release/build/kernels-idiomatic-*/out/ferrocuda-kernels.ptx | head -n 1)
  ptx_label="kernels-idiomatic's PTX (FERROCUDA_ARCH=$arch, release)"
fi
ptx_label=${ptx_label:-$ptx}
if [ "$fast_ptx" = build ]; then
  echo "sass_report: building kernels-idiomatic with FERROCUDA_FAST_MATH=contract (target/nolineinfo)..." >&2
  FERROCUDA_ARCH=$arch FERROCUDA_FAST_MATH=contract CARGO_TARGET_DIR=target/nolineinfo cargo check --release -q -p kernels-idiomatic
  fast_ptx=$(ls -t target/nolineinfo/release/build/kernels-idiomatic-*/out/ferrocuda-kernels.ptx | head -n 1)
  grep -q "// ferrocuda fast math:" "$fast_ptx" \
    || { echo "sass_report: $fast_ptx has no fast-math kernel: this nvptx-builder does not know FERROCUDA_FAST_MATH" >&2; exit 1; }
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# ptxas/nvcc -v output -> "entry registers stack" lines.
resources() {
  awk '/Compiling entry function/ { match($0, /'"'"'[^'"'"']+'"'"'/); entry = substr($0, RSTART + 1, RLENGTH - 2); frame = 0; next }
       /bytes stack frame/ && entry != "" { frame = $1 }
       /Used [0-9]+ registers/ && entry != "" { match($0, /Used [0-9]+/); print entry, substr($0, RSTART + 5, RLENGTH - 5), frame; entry = "" }'
}
# cubin -> "function instructions wide" lines (NOPs left out; `wide` counts the integer
# instructions that exist only for 64-bit arithmetic: the carry halves of adds and address
# computations (IADD3.X, LEA.HI.X), the high halves of compares (ISETP ... .EX) and 32x32->64
# multiplies (IMAD.WIDE), uniform-datapath forms included).
sass_counts() {
  "$tools/bin/cuobjdump" -sass "$1" | awk '
    /Function : / { if (name != "") print name, n, w; name = $3; n = 0; w = 0; next }
    /^ +\/\*[0-9a-f][0-9a-f][0-9a-f][0-9a-f]\*\/ / && !/ NOP[ ;]/ {
      n++
      if ($0 ~ /[ \t]U?(IADD3|LEA|ISETP|IMAD)[A-Z0-9.]*\.(X|EX|WIDE)[ .]/) w++
    }
    END { if (name != "") print name, n, w }'
}
side() { # label, cubin, -v log -> work/label.txt: "function instructions wide registers stack"
  sass_counts "$2" | sort >"$work/$1.sass"
  resources <"$3" | sort >"$work/$1.res"
  join "$work/$1.sass" "$work/$1.res" >"$work/$1.txt"
}

"$tools/bin/ptxas" -arch="$arch" -v "$ptx" -o "$work/ours.cubin" 2>"$work/ours.log"
side ours "$work/ours.cubin" "$work/ours.log"
if [ -n "$fast_ptx" ]; then
  "$tools/bin/ptxas" -arch="$arch" -v "$fast_ptx" -o "$work/fast.cubin" 2>"$work/fast.log"
  side fast "$work/fast.cubin" "$work/fast.log"
fi
for variant in nofma fma; do
  flags=(-O3); [ "$variant" = nofma ] && flags+=(--fmad=false)
  "$tools/bin/nvcc" -arch="$arch" -cubin "${flags[@]}" -Xptxas -v bench/idiomatic.cu -o "$work/$variant.cubin" 2>"$work/$variant.log"
  side "$variant" "$work/$variant.cubin" "$work/$variant.log"
done

{
  echo "SASS for $arch ($("$tools/bin/nvcc" --version | tail -n 2 | head -n 1)). Each cell: instructions (static: a loop body counts once; NOPs left out) / of which 64-bit integer instructions (IADD3.X, LEA.HI.X, ISETP.EX, IMAD.WIDE) / registers / stack frame bytes. ferrocuda: $ptx_label through ptxas; CUDA C: bench/idiomatic.cu through nvcc -O3."
  echo
  header="| kernel | ferrocuda | CUDA C --fmad=false | CUDA C default (fma) | instructions, ferrocuda / CUDA C --fmad=false |"
  rule="|---|---|---|---|---|"
  if [ -n "$fast_ptx" ]; then
    header="| kernel | ferrocuda | ferrocuda fast math | CUDA C --fmad=false | CUDA C default (fma) | instructions, ferrocuda / CUDA C --fmad=false | fast math / default |"
    rule="|---|---|---|---|---|---|---|"
  fi
  echo "$header"
  echo "$rule"
  for kernel in hotspot pathfinder stencil3d convolution nbody spmv_csr; do
    cell() { awk -v f="$2" '$1 == f { printf "%d / %d / %d / %d", $2, $3, $4, $5; found = 1 } END { if (!found) printf "missing" }' "$work/$1.txt"; }
    count() { awk -v f="$2" '$1 == f { print $2 }' "$work/$1.txt"; }
    ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2fx", a / b; else printf "n/a" }'; }
    ours=$(count ours "$kernel") nofma=$(count nofma "${kernel}_cuda") fma=$(count fma "${kernel}_cuda")
    if [ -n "$fast_ptx" ]; then
      fast=$(count fast "$kernel")
      echo "| $kernel | $(cell ours "$kernel") | $(cell fast "$kernel") | $(cell nofma "${kernel}_cuda") | $(cell fma "${kernel}_cuda") | $(ratio "$ours" "$nofma") | $(ratio "$fast" "$fma") |"
    else
      echo "| $kernel | $(cell ours "$kernel") | $(cell nofma "${kernel}_cuda") | $(cell fma "${kernel}_cuda") | $(ratio "$ours" "$nofma") |"
    fi
  done
} >"$work/table.md"
cat "$work/table.md"
if [ -n "$out" ]; then
  cp "$work/table.md" "$out"
  echo "sass_report: wrote $out" >&2
fi
