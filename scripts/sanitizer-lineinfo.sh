#!/usr/bin/env bash
# Runs on the GPU machine, after `bash scripts/gpu-bundle.sh` here:
#   device run: carry [".device-bundle"], command "bash .device-bundle/sanitizer-lineinfo.sh"
#
# Checks that the line tables of the kernel builds reach the GPU tools: compute-sanitizer's
# memcheck runs the planted out-of-bounds write of tests/kernels/src/context_faults.rs
# (`write_far_out_of_bounds`, `*out.get_unchecked_mut(offset as usize) = 1`, launched by the
# `context_loss` test binary in its child mode) and its report must name that Rust file and line.
# It runs twice: with the module loaded from the cubin (FERROCUDA_MODULE_LOAD=cubin, line table
# from `ptxas -lineinfo`) and from the PTX (FERROCUDA_MODULE_LOAD=ptx, the driver's JIT reads the
# `.loc` directives). Prints the report lines that name the file, then PASS or FAIL per mode;
# exits 1 unless both pass.
set -u
bundle="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$bundle/.." && pwd)"
cd "$bundle" || exit 1
if [ ! -x tests/context_loss ]; then
  if [ -f binaries.tar.xz ]; then
    # xz where the machine has it, else Python's lzma (the GPU machine has Python 3).
    tar -xJf binaries.tar.xz 2>/dev/null \
      || python3 -c 'import tarfile; tarfile.open("binaries.tar.xz", "r:xz").extractall(".")'
  fi
fi
out="${OUT:-/tmp/ferrocuda-out}"
mkdir -p "$out"

source_file=tests/kernels/src/context_faults.rs
line=$(grep -n 'get_unchecked_mut(offset' "$root/$source_file" | head -n 1 | cut -d: -f1)
if [ -z "$line" ]; then
  echo "FAIL: the planted write is not in $root/$source_file"
  exit 1
fi
# The report names the file as the build machine's path (`.file` in the PTX), or by its name.
expected="context_faults.rs:$line"

if command -v compute-sanitizer >/dev/null 2>&1; then sanitizer=compute-sanitizer
elif [ -x /usr/local/cuda/bin/compute-sanitizer ]; then sanitizer=/usr/local/cuda/bin/compute-sanitizer
else echo "FAIL: compute-sanitizer not found (PATH, /usr/local/cuda/bin)"; exit 1; fi
echo "expected in the report: $expected, the planted line of $source_file ($("$sanitizer" --version | tail -n 1))"

failed=0
for mode in cubin ptx; do
  log="$out/sanitizer-lineinfo-$mode.log"
  # The child mode of the test runs the fault in this process (see tests/tests/context_loss.rs);
  # whether the test's own assertions pass under the sanitizer does not matter here.
  FERROCUDA_CONTEXT_LOSS_CHILD=1 FERROCUDA_MODULE_LOAD=$mode timeout -k 10 120 \
    "$sanitizer" --tool memcheck --print-limit 5 --report-api-errors no \
    tests/context_loss illegal_address_loses_the_context_until_reset --exact --nocapture \
    --test-threads=1 >"$log" 2>&1
  echo "=== FERROCUDA_MODULE_LOAD=$mode (log: $log)"
  grep -E 'Invalid __global__|context_faults\.rs' "$log" | head -n 6
  if grep -Eq "context_faults\.rs:$line([^0-9]|\$)" "$log"; then
    echo "PASS $mode: the report names $expected"
  else
    echo "FAIL $mode: no $expected in the report; its first lines:"
    head -n 20 "$log"
    failed=1
  fi
done
exit "$failed"
