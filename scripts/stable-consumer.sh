#!/usr/bin/env bash
# Builds and tests a consumer of a packaged kernel crate with stable Rust alone:
#
#   scripts/stable-consumer.sh PACKAGED_DIR CONSUMER_DIR FERROCUDA_CHECKOUT
#
# PACKAGED_DIR holds my-kernels-*.crate (from scripts/package-template-kernels.sh). The consumer
# (written to CONSUMER_DIR) is the template's host crate, depending on the unpacked .crate and on
# ferrocuda from FERROCUDA_CHECKOUT (a [patch], since the packaged crate asks for ferrocuda and
# nvptx-builder from crates.io), with the template's profiles. Its `cargo test` runs the kernels
# on the simulator against CPU references. Fails unless: no nightly toolchain is installed
# before and after (rustup toolchain list), the tests pass, and the builder said it used the
# packaged PTX. scripts/fresh-machine.sh runs it on a machine with only stable.
set -euo pipefail

if [ $# -ne 3 ]; then
  echo "usage: $0 PACKAGED_DIR CONSUMER_DIR FERROCUDA_CHECKOUT" >&2
  exit 2
fi
packaged="$1" consumer="$2" checkout="$(cd "$3" && pwd)"
template="$checkout/templates/kernel-project"

nightlies() { rustup toolchain list | grep -i nightly || true; }
if [ -n "$(nightlies)" ]; then
  echo "stable-consumer: a nightly toolchain is installed already, so this would not test a stable-only machine:" >&2
  nightlies >&2
  exit 1
fi

crate="$(ls "$packaged"/my-kernels-*.crate | head -n 1)"
name="$(basename "$crate" .crate)"
mkdir -p "$consumer/vendor"
tar xzf "$crate" -C "$consumer/vendor"
cp -r "$template/host" "$consumer/host"
cp "$template/Cargo.lock" "$consumer/Cargo.lock"
{
  cat <<TOML
[workspace]
resolver = "3"
members = ["host"]

[workspace.package]
version = "0.1.0"
edition = "2024"

[workspace.dependencies]
ferrocuda = { path = "$checkout/runtime" }
my-kernels = { path = "vendor/$name" }

[patch.crates-io]
ferrocuda = { path = "$checkout/runtime" }
nvptx-builder = { path = "$checkout/nvptx-builder" }

TOML
  # The template's profile overrides, as a user who copied the template has them.
  sed -n '/^\[profile/,$p' "$template/Cargo.toml"
} >"$consumer/Cargo.toml"

cd "$consumer"
status=0
cargo test 2>&1 | tee "$consumer/cargo-test.log" || status=$?
log="$consumer/cargo-test.log"
problems=()
[ "$status" = 0 ] || problems+=("cargo test exited with status $status")
grep -q "nvptx-builder: using the packaged PTX of my-kernels" "$log" ||
  problems+=("the builder did not say it used the packaged PTX")
for t in nbody_simulator heat_simulator; do
  grep -q "test $t ... ok" "$log" || problems+=("the simulator test $t did not pass")
done
if [ -n "$(nightlies)" ]; then
  problems+=("a nightly toolchain was installed during the build: $(nightlies | tr '\n' ' ')")
fi
if [ "${#problems[@]}" -gt 0 ]; then
  printf 'stable-consumer: %s\n' "${problems[@]}" >&2
  exit 1
fi
echo "stable-consumer: the packaged PTX was used, the simulator tests passed, and no nightly was installed"
