#!/usr/bin/env bash
# Runs on the GPU machine from the repository root: bash .device-bundle/run.sh [tests|examples|bench|all]
# Prints every program's output, then a summary table; logs also go to $OUT when it is set.
# FERROCUDA_REQUIRE_GPU=1: a GPU test variant that cannot reach the GPU (broken driver, no
# device) fails with the reason instead of printing "skipped" and passing.
set -u
export FERROCUDA_REQUIRE_GPU=1
cd "$(dirname "$0")"
what="${1:-all}"
if [ -f binaries.tar.gz ]; then tar -xzf binaries.tar.gz; fi
out="${OUT:-/tmp/ferrocuda-out}"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
summary=()
run() { # label, command...
  local label=$1; shift
  echo "=== $label"
  if "$@" >"$out/$label.log" 2>&1; then summary+=("PASS $label"); else summary+=("FAIL($?) $label"); fi
  tail -n 40 "$out/$label.log"
}
if [ "$what" = tests ] || [ "$what" = all ]; then
  for t in tests/*; do run "test-$(basename "$t")" "$t" --test-threads=1; done
fi
if [ "$what" = examples ] || [ "$what" = all ]; then
  for e in examples/*; do
    case "$(basename "$e")" in bench_*) continue ;; esac  # run by bench/run.sh with their references
    run "example-$(basename "$e")" "$e"
  done
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  if [ -f bench/run.sh ]; then run bench bash bench/run.sh; fi
fi
echo "=== summary"
printf '%s\n' "${summary[@]}"
