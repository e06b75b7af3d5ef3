#!/usr/bin/env bash
# Builds everything that must run on the GPU machine (which has no Rust toolchain) and copies it
# into .device-bundle/ (git-ignored), with run.sh to execute there:
#
#   bash scripts/gpu-bundle.sh [all|tests|bench]
#       all (default): test binaries, examples and the benchmark (with the kernels' PTX without
#       line tables and the NumPy 2.2 wheel for Numba: see below);
#       tests: test binaries and examples, for run.sh tests|examples|sanitize|differential
#       (with the optimiser-sensitive test binaries built again with FERROCUDA_PASSES=none,
#       in target/passes-none, for the differential tester);
#       bench: examples and the benchmark, for run.sh bench.
#   device run: carry [".device-bundle"], command "bash .device-bundle/run.sh [tests|examples|bench|sanitize|differential|all]"
#
# The device tool carries at most 64 MiB; the script says so if the bundle grows past it (then
# carry `tests` and `bench` bundles in turn).
#
# FERROCUDA_ARCH (default sm_90 here: the GPU machine is Hopper) picks the PTX target.
set -euo pipefail
cd "$(dirname "$0")/.."
export FERROCUDA_ARCH="${FERROCUDA_ARCH:-sm_90}"
parts="${1:-all}"
case "$parts" in
  all|tests|bench) ;;
  *) echo "gpu-bundle: unknown part '$parts' (expected all, tests or bench)" >&2; exit 2 ;;
esac
bundle=.device-bundle
rm -rf "$bundle"
mkdir -p "$bundle/tests" "$bundle/tests-passes-none" "$bundle/examples" "$bundle/examples-passes-none" "$bundle/bench/external"

executables() { # cargo args... -> paths of the built executables
  cargo "$@" --message-format=json-render-diagnostics \
    | python3 -c 'import sys, json
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable"): print(m["executable"])'
}

if [ "$parts" != bench ]; then
  echo "building GPU test binaries (FERROCUDA_ARCH=$FERROCUDA_ARCH)..." >&2
  for exe in $(executables test --no-run -p ferrocuda-tests); do
    name=$(basename "$exe" | sed 's/-[0-9a-f]\{16\}$//')
    case "$name" in ptx|ferrocuda_tests) continue ;; esac  # no GPU in these
    cp "$exe" "$bundle/tests/$name"
  done
  # The same tests of what the optimiser rewrites, built without its optional passes (the
  # differential tester's reference build; run.sh differential compares the two).
  echo "building the optimiser-sensitive tests with FERROCUDA_PASSES=none (target/passes-none)..." >&2
  for exe in $(FERROCUDA_PASSES=none CARGO_TARGET_DIR=target/passes-none executables test --no-run \
      -p ferrocuda-tests --test differential --test soundness --test check_versioning --test idiomatic \
      --test offset_checks --test load_speculation --test index_narrowing); do
    name=$(basename "$exe" | sed 's/-[0-9a-f]\{16\}$//')
    cp "$exe" "$bundle/tests-passes-none/$name"
  done
fi
echo "building examples (release)..." >&2
for exe in $(executables build --release -p ferrocuda-examples --examples); do
  cp "$exe" "$bundle/examples/"
done
if [ "$parts" != tests ]; then
  # The suites' benchmarks built without the optimiser's passes (FERROCUDA_PASSES=none): what
  # LLVM alone does, measured beside the default build (bench/run.sh's external step).
  echo "building the suites' benchmarks with FERROCUDA_PASSES=none (target/passes-none, release)..." >&2
  for exe in $(FERROCUDA_PASSES=none CARGO_TARGET_DIR=target/passes-none executables build --release \
      -p ferrocuda-examples --example bench_idiomatic --example bench_external_rodinia \
      --example bench_external_polybench); do
    cp "$exe" "$bundle/examples-passes-none/"
  done
fi
strip --strip-all "$bundle"/tests/* "$bundle"/tests-passes-none/* "$bundle"/examples/* \
  "$bundle"/examples-passes-none/* 2>/dev/null || true
# The device tool carries at most 64 MiB: ship the binaries as one xz archive, which run.sh
# unpacks on the GPU machine. Every test binary embeds the same kernel modules (PTX and cubins
# with line tables), so a dictionary larger than one binary lets xz store them once: 295 MiB of
# binaries came to 8.8 MB, where gzip's 32 KiB window gave 76 MB. About 80 s on 2 cores.
echo "compressing the binaries (xz, 256 MiB dictionary)..." >&2
tar -cf - -C "$bundle" tests tests-passes-none examples examples-passes-none | xz -T1 --lzma2=preset=6,dict=256MiB >"$bundle/binaries.tar.xz"
rm -rf "$bundle/tests" "$bundle/tests-passes-none" "$bundle/examples" "$bundle/examples-passes-none"
cp scripts/gpu-run.sh "$bundle/run.sh"
cp scripts/sanitizer-lineinfo.sh "$bundle/"  # line tables named by compute-sanitizer
if [ "$parts" = tests ]; then
  du -sh "$bundle" >&2
  exit 0
fi
cp bench/*.cu bench/*.sh bench/*.py "$bundle/bench/"
cp bench/external/*.cu "$bundle/bench/external/"
# The PTX the examples embed, for ptxas -v in the benchmark report.
cp "$(ls -t target/release/build/kernels-nvptx-*/out/ferrocuda-kernels.ptx | head -1)" "$bundle/bench/kernels.ptx"
# The idiomatic suite's PTX (built with the examples), for ptxas -v in bench/run.sh's step 7.
cp "$(ls -t target/release/build/kernels-idiomatic-*/out/ferrocuda-kernels.ptx | head -1)" "$bundle/bench/kernels-idiomatic.ptx"
# The same kernels without line tables (FERROCUDA_LINEINFO=0), in a target dir of their own so
# the default build stays as it is: the benchmark times both and ptxas reports both. `check`
# runs kernels-nvptx's build script (which writes the PTX) without generating host code: about
# 1 minute from scratch on 2 cores against 2 for `build`. `--release`: a debug outer build would
# give the kernels overflow checks.
echo "building the kernels without line tables (FERROCUDA_LINEINFO=0, target/nolineinfo)..." >&2
started=$SECONDS
FERROCUDA_LINEINFO=0 CARGO_TARGET_DIR=target/nolineinfo cargo check --release -q -p kernels-nvptx
echo "  took $((SECONDS - started)) s" >&2
cp "$(ls -t target/nolineinfo/release/build/kernels-nvptx-*/out/ferrocuda-kernels.ptx | head -1)" \
  "$bundle/bench/kernels-nolineinfo.ptx"
# The idiomatic suite built with fast math (FERROCUDA_FAST_MATH=contract: FMA contraction, what
# nvcc does by default), which bench_idiomatic times as a column of its own against nvcc's default
# build. Built in the same side target dir (another package, line tables on); bundled only when
# the builder really applied fast math (its PTX then names each such kernel in a
# "// ferrocuda fast math:" comment). IDIOMATIC_FAST_MATH_PTX names a PTX to bundle instead.
fast_math_ptx="${IDIOMATIC_FAST_MATH_PTX:-}"
if [ -z "$fast_math_ptx" ]; then
  echo "building kernels-idiomatic with FERROCUDA_FAST_MATH=contract (target/nolineinfo)..." >&2
  FERROCUDA_FAST_MATH=contract CARGO_TARGET_DIR=target/nolineinfo cargo check --release -q -p kernels-idiomatic
  fast_math_ptx=$(ls -t target/nolineinfo/release/build/kernels-idiomatic-*/out/ferrocuda-kernels.ptx | head -1)
fi
if grep -q "// ferrocuda fast math:" "$fast_math_ptx"; then
  cp "$fast_math_ptx" "$bundle/bench/kernels-idiomatic-fast-math.ptx"
else
  echo "gpu-bundle: $fast_math_ptx has no fast-math kernel (this builder has no FERROCUDA_FAST_MATH?): bench_idiomatic runs without its fast-math column" >&2
fi
# numba-cuda needs NumPy 2.2 (the GPU machine's NumPy 2.5 breaks it, and it has no internet):
# bench/run.sh installs this wheel into a private directory for the Numba script alone. Kept in
# .whl/ (git-ignored) between bundles.
numpy_wheel=numpy-2.2.6-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
if [ ! -f ".whl/$numpy_wheel" ]; then
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --platform manylinux_2_17_x86_64 numpy==2.2.6 -d .whl \
    || echo "numpy wheel not downloaded: the Numba column will show n/a" >&2
fi
cp ".whl/$numpy_wheel" "$bundle/bench/" 2>/dev/null || true
du -sh "$bundle" >&2
ls "$bundle"/* >&2
size=$(du -sb "$bundle" | cut -f1)
if [ "$size" -gt $((64 * 1024 * 1024)) ]; then
  echo "gpu-bundle: $((size / 1048576)) MiB is more than the device tool carries (64 MiB): build and carry 'tests' and 'bench' bundles in turn" >&2
fi
