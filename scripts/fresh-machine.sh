#!/usr/bin/env bash
# Reproduces a new user's first steps on a machine that has only rustup, and checks that the
# README's Quick start works there:
#
#   scripts/fresh-machine.sh [--keep]
#
# 1. An empty RUSTUP_HOME, CARGO_HOME and HOME in a temporary directory; rustup set up there
#    the way https://rustup.rs does (`rustup-init -y --no-modify-path --profile minimal
#    --default-toolchain stable`): from this machine's `rustup` binary run as `rustup-init`,
#    else from static.rust-lang.org. Toolchains are today's, whatever this machine has.
# 2. A clean `git clone` of this repository, checked out at the current commit (HEAD:
#    uncommitted changes are not tested).
# 3. Before any nightly is there: the template's kernel crate packaged with its PTX
#    (scripts/package-template-kernels.sh, with this machine's toolchains), then a consumer of
#    that .crate built and tested with the fresh machine's stable Rust alone
#    (scripts/stable-consumer.sh), which fails if the builder did not use the packaged PTX or if
#    a nightly appeared in the fresh RUSTUP_HOME.
# 4. The commands of README.md's Quick start code block, word for word (read from the README,
#    so this script cannot drift from it), each run with `bash -c` in the clone, with a
#    minimal environment: nothing of this machine's Rust setup leaks in.
#
# Prints the toolchain versions it got and the time each step took; exits 1 if any step
# failed (every command still runs). Needs network access (static.rust-lang.org, crates.io),
# about 4 GB of disk and, on 2 cores, 10 to 20 minutes. The temporary directory is removed at
# the end unless --keep is given. FRESH_MACHINE_TMP picks its parent (default: $TMPDIR or /tmp).
set -uo pipefail

keep=0
for arg in "$@"; do
  case "$arg" in
    --keep) keep=1 ;;
    -h | --help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "fresh-machine.sh: unknown argument $arg (expected --keep)" >&2; exit 2 ;;
  esac
done

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readme="$repo/README.md"
commit="$(git -C "$repo" rev-parse HEAD)" || { echo "fresh-machine.sh: $repo is not a git checkout" >&2; exit 2; }
if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no)" ]; then
  echo "fresh-machine.sh: note: uncommitted changes in $repo are not tested (testing commit $commit)" >&2
fi

# The Quick start block: the first ``` block after the "## Quick start" heading; its
# non-empty lines that are not comments are the commands.
quick_start() {
  awk '
    /^## / { in_section = ($0 == "## Quick start") }
    in_section && /^```/ { if (in_block) exit; in_block = 1; next }
    in_section && in_block && NF && $1 !~ /^#/ { print }
  ' "$readme"
}
mapfile -t commands < <(quick_start)
if [ "${#commands[@]}" -eq 0 ]; then
  echo "fresh-machine.sh: no commands found in the code block under \"## Quick start\" in $readme" >&2
  exit 2
fi

tmp="$(mktemp -d "${FRESH_MACHINE_TMP:-${TMPDIR:-/tmp}}/ferrocuda-fresh.XXXXXX")"
cleanup() {
  if [ "$keep" = 1 ]; then echo "kept: $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
mkdir -p "$tmp/home"

# A minimal environment: this machine's PATH without any Rust tool directory, the fresh homes
# first, and only the variables a download needs (certificates, proxies).
system_path="$(printf '%s' "$PATH" | tr ':' '\n' | grep -v -e '\.cargo/bin' -e '\.rustup' \
  ${CARGO_HOME:+-e "$CARGO_HOME/bin"} | paste -sd: -)"
fresh_env=(env -i
  "HOME=$tmp/home" "RUSTUP_HOME=$tmp/rustup" "CARGO_HOME=$tmp/cargo"
  "PATH=$tmp/cargo/bin:$system_path" "USER=${USER:-user}" "LANG=${LANG:-C.UTF-8}"
  "TERM=${TERM:-dumb}")
for var in SSL_CERT_FILE SSL_CERT_DIR CURL_CA_BUNDLE GIT_SSL_CAINFO http_proxy https_proxy \
  HTTP_PROXY HTTPS_PROXY no_proxy NO_PROXY; do
  if [ -n "${!var:-}" ]; then fresh_env+=("$var=${!var}"); fi
done

steps=() statuses=() seconds=()
failed=0
# run_step NAME COMMAND...: runs COMMAND in the fresh environment, in the clone once it exists.
run_step() {
  local name="$1"; shift
  echo
  echo "=== $name"
  local start=$SECONDS dir="$tmp"
  if [ -d "$tmp/ferrocuda" ]; then dir="$tmp/ferrocuda"; fi
  (cd "$dir" && "${fresh_env[@]}" "$@")
  local status=$?
  steps+=("$name") statuses+=("$status") seconds+=("$((SECONDS - start))")
  echo "=== $name: exit status $status, $((SECONDS - start)) s"
  [ "$status" = 0 ] || failed=1
  return "$status"
}

# run_host_step NAME COMMAND...: like run_step, with this machine's environment.
run_host_step() {
  local name="$1"; shift
  echo
  echo "=== $name"
  local start=$SECONDS
  "$@"
  local status=$?
  steps+=("$name") statuses+=("$status") seconds+=("$((SECONDS - start))")
  echo "=== $name: exit status $status, $((SECONDS - start)) s"
  [ "$status" = 0 ] || failed=1
  return "$status"
}

# 1. rustup, as a new user installs it.
rustup_init="$tmp/rustup-init"
if local_rustup="$(command -v rustup)"; then
  cp "$local_rustup" "$rustup_init"
else
  url="https://static.rust-lang.org/rustup/dist/$(uname -m)-unknown-linux-gnu/rustup-init"
  curl --proto '=https' --tlsv1.2 -sSf "$url" -o "$rustup_init" || { echo "cannot download $url" >&2; exit 1; }
fi
chmod +x "$rustup_init"
# RUSTUP_INIT_SKIP_SUDO_CHECK: the fake HOME is not the user's home in /etc/passwd, which
# rustup-init would otherwise report as a possible `sudo` mistake.
run_step "rustup-init" env RUSTUP_INIT_SKIP_SUDO_CHECK=yes "$rustup_init" -y --no-modify-path \
  --profile minimal --default-toolchain stable || exit 1

# 2. A clean clone at this commit.
run_step "git clone" bash -c "git clone --quiet '$repo' ferrocuda && git -C ferrocuda checkout --quiet --detach '$commit'" || exit 1

# 3. Stable Rust alone builds a packaged kernel crate. The template's kernel crate is packaged
#    with its PTX here, with this machine's toolchains (scripts/package-template-kernels.sh);
#    on the fresh machine, which has only stable so far, a consumer of that .crate runs its
#    tests on the simulator. The builder must say it used the packaged PTX, and no nightly may
#    appear in the fresh RUSTUP_HOME.
if run_host_step "package the template's kernel crate (this machine's toolchains)" \
  env CARGO_TARGET_DIR="$repo/target/template-kernel-project" \
  bash "$tmp/ferrocuda/scripts/package-template-kernels.sh" "$tmp/packaged"; then
  run_step "stable only: test a consumer of the packaged kernel crate" \
    bash "$tmp/ferrocuda/scripts/stable-consumer.sh" "$tmp/packaged" "$tmp/consumer" "$tmp/ferrocuda"
fi

# 4. The README's commands.
for cmd in "${commands[@]}"; do
  run_step "$cmd" bash -c "$cmd"
done

echo
echo "=== toolchains on the fresh machine"
"${fresh_env[@]}" rustup --version 2>/dev/null
"${fresh_env[@]}" bash -c 'for t in $(rustup toolchain list | cut -d" " -f1); do
  printf "%-50s %s\n" "$t" "$(rustc +"$t" -V)"; done'
echo
echo "=== summary (commit $commit)"
for i in "${!steps[@]}"; do
  printf "%-40s exit %-3s %5s s\n" "${steps[$i]}" "${statuses[$i]}" "${seconds[$i]}"
done
exit "$failed"
