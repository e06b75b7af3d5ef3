#!/usr/bin/env bash
# Packages the template's kernel crate (templates/kernel-project/kernels, `my-kernels`) with its
# PTX, the way a kernel crate's author prepares a release for users without the nightly:
#
#   scripts/package-template-kernels.sh OUT_DIR
#
# builds it with FERROCUDA_WRITE_PREBUILT=1 in the dev and release profiles (which writes
# kernels/ferrocuda-prebuilt/ for both overflow-check settings), then `cargo package`s it
# (--no-verify: its ferrocuda dependencies are not on crates.io; --allow-dirty: the prebuilt
# directory is not committed) and copies the .crate into OUT_DIR. Needs the nightly the builder
# uses (it installs it if missing). scripts/fresh-machine.sh runs it, then
# scripts/stable-consumer.sh.
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 OUT_DIR" >&2
  exit 2
fi
out="$1"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target/template-kernel-project}"
cd "$repo/templates/kernel-project"

FERROCUDA_WRITE_PREBUILT=1 cargo build --locked -p my-kernels
FERROCUDA_WRITE_PREBUILT=1 cargo build --locked --release -p my-kernels
cargo package --locked -p my-kernels --no-verify --allow-dirty --exclude-lockfile
mkdir -p "$out"
cp "$CARGO_TARGET_DIR"/package/my-kernels-*.crate "$out/"
echo "packaged: $(ls "$out"/my-kernels-*.crate)"
listing="$(tar tzf "$out"/my-kernels-*.crate)"
for variant in sm_70-overflow-checks sm_70-wrapping; do
  for file in manifest.txt ferrocuda-kernels.ptx; do
    if ! grep -q "/ferrocuda-prebuilt/$variant/$file\$" <<<"$listing"; then
      echo "package-template-kernels: the .crate lacks ferrocuda-prebuilt/$variant/$file" >&2
      exit 1
    fi
  done
done
grep ferrocuda-prebuilt/ <<<"$listing"
