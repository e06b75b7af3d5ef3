#!/usr/bin/env bash
# Checks the project template (templates/kernel-project) as a downstream user gets it: builds it
# as its own workspace, runs its tests in the dev profile and in release, and fails if the dev
# test run takes more than 2x the release one (its Cargo.toml's profile overrides are what keep
# the CPU simulator fast in debug builds).
#
#   scripts/template-check.sh
#
# The target directory is target/template-kernel-project in this repository, so reruns are
# incremental. Only the runs of the test binaries are timed (best of TEMPLATE_CHECK_RUNS, 3),
# not the builds. FERROCUDA_SIMULATOR=1 keeps a GPU out of it, so both runs time the simulator.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
template="$repo/templates/kernel-project"
export CARGO_TARGET_DIR="$repo/target/template-kernel-project"
export FERROCUDA_SIMULATOR=1
runs="${TEMPLATE_CHECK_RUNS:-3}"
cd "$template"

# test_binaries PROFILE-ARGS...: builds the tests and prints their executables.
test_binaries() {
  cargo test --locked --no-run --message-format=json "$@" |
    grep -o '"executable":"[^"]*"' | sed 's/"executable":"\(.*\)"/\1/'
}

# best_time BINARIES...: runs every binary, $runs times; prints the best total in milliseconds.
best_time() {
  local best="" run start end total bin
  for run in $(seq "$runs"); do
    start=$(date +%s%N)
    for bin in "$@"; do
      "$bin" -q >/dev/null || { echo "template-check: $bin failed" >&2; "$bin" >&2; exit 1; }
    done
    end=$(date +%s%N)
    total=$(((end - start) / 1000000))
    if [ -z "$best" ] || [ "$total" -lt "$best" ]; then best=$total; fi
  done
  echo "$best"
}

mapfile -t dev_bins < <(test_binaries)
mapfile -t release_bins < <(test_binaries --release)
if [ "${#dev_bins[@]}" -eq 0 ] || [ "${#release_bins[@]}" -eq 0 ]; then
  echo "template-check: no test binaries were built" >&2
  exit 1
fi
dev_ms=$(best_time "${dev_bins[@]}")
release_ms=$(best_time "${release_bins[@]}")
echo "template-check: cargo test of templates/kernel-project: dev ${dev_ms} ms, release ${release_ms} ms (best of $runs)"
if [ "$dev_ms" -gt $((2 * release_ms)) ]; then
  echo "template-check: the dev-profile tests take more than 2x the release ones: the profile overrides in templates/kernel-project/Cargo.toml no longer keep the simulator fast" >&2
  exit 1
fi
