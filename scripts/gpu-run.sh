#!/usr/bin/env bash
# Runs on the GPU machine from the repository root:
#   bash .device-bundle/run.sh [tests|examples|bench|sanitize|differential|all]
# Prints every program's output, then a summary table; logs also go to $OUT when it is set.
# `differential` runs the differential tester (tests/tests/differential.rs) from the default
# build and from the build without the optimiser's passes (FERROCUDA_PASSES=none): each compares
# the GPU with the simulator, and the two builds' GPU digests must be identical; then the
# optimiser-sensitive tests of the second build. `sanitize` runs the GPU test variants under
# compute-sanitizer (see sanitize_all); `all`
# runs tests, examples, sanitize and bench, in that order (more than one device command's 10
# minutes with the benchmark: run `sanitize` and `bench` as commands of their own when time is
# short).
# FERROCUDA_REQUIRE_GPU=1: a GPU test variant that cannot reach the GPU (broken driver, no
# device) fails with the reason instead of printing "skipped" and passing.
set -u
export FERROCUDA_REQUIRE_GPU=1
cd "$(dirname "$0")" || exit 1
what="${1:-all}"
if [ -f binaries.tar.xz ]; then
  # xz where the machine has it, else Python's lzma (the GPU machine has Python 3).
  tar -xJf binaries.tar.xz 2>/dev/null \
    || python3 -c 'import tarfile; tarfile.open("binaries.tar.xz", "r:xz").extractall(".")'
fi
out="${OUT:-/tmp/ferrocuda-out}"
mkdir -p "$out"
# NCCL for the collectives (tests/collectives_nccl, least_squares_multi_gpu): ferrocuda loads it
# as `libnccl.so` (cudarc's name), which PyTorch's nvidia-nccl wheel ships as libnccl.so.2; link
# it into nccl-lib/ on the library path. NVLink multicast stays off for every NCCL user.
export NCCL_NVLS_ENABLE=0
nccl_dir=$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null || true)
if [ -n "$nccl_dir" ] && [ -f "$nccl_dir/libnccl.so.2" ]; then
  mkdir -p nccl-lib && ln -sf "$nccl_dir/libnccl.so.2" nccl-lib/libnccl.so
  export LD_LIBRARY_PATH="$PWD/nccl-lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
summary=()
run() { # label, command...
  local label=$1; shift
  echo "=== $label"
  if "$@" >"$out/$label.log" 2>&1; then summary+=("PASS $label"); else summary+=("FAIL($?) $label"); fi
  tail -n "${TAIL_LINES:-40}" "$out/$label.log"
}
# --- sanitize: every GPU test binary under compute-sanitizer's four tools ------------------------
# Each test binary runs once per tool, in one process, with only the GPU variants of its tests
# (the libtest filter SANITIZE_FILTER, default `::gpu`: `device_tests!` names them `<test>::gpu`;
# the simulator variants never touch the GPU and would only cost time). The tools run in the
# order memcheck, racecheck, synccheck, initcheck, each over every binary, so that when the time
# budget runs out the most important tool has covered everything.
#
#   compute-sanitizer --tool T --error-exitcode 86 --print-limit 20 --report-api-errors no \
#       tests/B ::gpu --test-threads=2          (under `timeout`, at most SANITIZE_TIMEOUT_S)
#
# `--report-api-errors no`: the error-path tests provoke driver errors on purpose (a rejected
# launch, a module without a panic record); those are the tests' business, not memory errors.
# Kernel panics are not sanitizer errors either: a panicking thread records the panic and exits.
#
# Settings (environment):
#   SANITIZE_TOOLS         tools to run (memcheck racecheck synccheck initcheck)
#   SANITIZE_FILTER        libtest filter (::gpu)
#   SANITIZE_JOBS          sanitizer processes at a time on the GPU (4; racecheck always runs
#                          alone): most of a run's time is the host's (start-up, instrumenting)
#   SANITIZE_TEST_THREADS  test threads per binary (2; racecheck always 1)
#   SANITIZE_TIMEOUT_S     limit of one run, seconds (90)
#   SANITIZE_BUDGET_S      limit of the whole mode, seconds (330); runs that do not fit are shown
#                          as `-` and make the verdict INCOMPLETE (not a failure)
#   SANITIZE_SKIP          more skip-list entries, space-separated (see sanitize_skip)
#
# The skip list: `binary` (every tool) or `binary:tool`. A test that kills its CUDA context on
# purpose (a device-side trap, an illegal address) belongs here: the sanitizer reports the fault,
# and every later launch of that process fails: `context_loss` writes far out of bounds through
# `get_unchecked` on purpose, to test that the lost context is reported and recovered.
# `ptx_bounds`, `ptx_index`, `ptx_panic_frame`, `ptx_unroll`, `ptx_barrier_reload`, `prelude_readme` and
# `crate_root_docs` read PTX or source text and have no GPU variant: the sanitizer finds no CUDA
# call in them and says "Target application terminated before first instrumented API call".
sanitize_skip=(context_loss ptx_bounds ptx_index ptx_panic_frame ptx_unroll ptx_barrier_reload prelude_readme crate_root_docs)

sanitizer_binary() {
  if command -v compute-sanitizer >/dev/null 2>&1; then command -v compute-sanitizer
  elif [ -x /usr/local/cuda/bin/compute-sanitizer ]; then echo /usr/local/cuda/bin/compute-sanitizer
  else return 1; fi
}

is_skipped() { # binary tool
  local entry
  for entry in ${sanitize_skip[@]+"${sanitize_skip[@]}"} ${SANITIZE_SKIP:-}; do
    if [ "$entry" = "$1" ] || [ "$entry" = "$1:$2" ]; then return 0; fi
  done
  return 1
}

# The errors a sanitizer log reports, summed over its processes (a test may start children):
# `ERROR SUMMARY: N errors` (every tool), and racecheck's `RACECHECK SUMMARY: ... (N errors, ...`.
# Prints nothing when the log has no summary (the sanitizer did not finish).
sanitizer_errors() { # log
  grep -Eo 'ERROR SUMMARY: [0-9]+|\([0-9]+ errors?' "$1" | grep -Eo '[0-9]+' \
    | awk '{ s += $1; n++ } END { if (n) print s }'
}

# Runs one binary under one tool; prints the table cell: the error count, `T` added when the run
# hit its time limit, `!` when the tests failed, `?` when no summary was printed.
sanitize_run() { # sanitizer binary tool limit_s log
  local sanitizer=$1 binary=$2 tool=$3 limit=$4 log=$5 rc errors threads
  threads=${SANITIZE_TEST_THREADS:-2}
  if [ "$tool" = racecheck ]; then threads=1; fi
  timeout -k 10 "$limit" "$sanitizer" --tool "$tool" --error-exitcode 86 --print-limit 20 \
    --report-api-errors no "$binary" "${SANITIZE_FILTER:-::gpu}" \
    --test-threads="$threads" >"$log" 2>&1
  rc=$?
  errors=$(sanitizer_errors "$log")
  case "$rc" in
    0) echo "${errors:-?}" ;;
    124 | 137) echo "${errors:-?}T" ;;
    86) echo "${errors:-?}" ;;
    *) echo "${errors:-?}!" ;;
  esac
}

sanitize_all() {
  local sanitizer tools binaries name tool started left limit cell log
  local -A cells=()
  sanitize_verdict=""
  if ! sanitizer=$(sanitizer_binary); then
    sanitize_verdict="compute-sanitizer not found (PATH, /usr/local/cuda/bin)"
    echo "=== sanitize: $sanitize_verdict"
    return 1
  fi
  read -r -a tools <<<"${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}"
  binaries=(tests/*)
  started=$SECONDS
  echo "=== sanitize: ${#binaries[@]} binaries x ${#tools[@]} tools, ${SANITIZE_JOBS:-4} at a time ($("$sanitizer" --version | tail -n 1))"
  for tool in "${tools[@]}"; do
    for binary in "${binaries[@]}"; do
      name=$(basename "$binary")
      log="$out/sanitize-$name-$tool.log"
      rm -f "$log.cell"
      if is_skipped "$name" "$tool"; then cells["$name:$tool"]=skip; continue; fi
      # racecheck runs alone, with one test thread: racecheck runs whose process launched from
      # two host threads at once hung now and then (a different binary past its time limit on
      # each try, on the H100 with compute-sanitizer 2025.3); with one thread, one process at
      # a time, all finished in 49 s.
      jobs_at_once=${SANITIZE_JOBS:-4}
      if [ "$tool" = racecheck ]; then jobs_at_once=1; fi
      while [ "$(jobs -rp | wc -l)" -ge "$jobs_at_once" ]; do wait -n; done
      left=$((${SANITIZE_BUDGET_S:-330} - (SECONDS - started)))
      limit=$((left < ${SANITIZE_TIMEOUT_S:-90} ? left : ${SANITIZE_TIMEOUT_S:-90}))
      if [ "$limit" -lt 10 ]; then cells["$name:$tool"]=-; continue; fi
      cells["$name:$tool"]=pending
      (
        cell=$(sanitize_run "$sanitizer" "$binary" "$tool" "$limit" "$log")
        echo "$cell" >"$log.cell"
        echo "  $tool $name: $cell ($((SECONDS - started)) s)"
      ) &
    done
  done
  wait
  for tool in "${tools[@]}"; do
    for binary in "${binaries[@]}"; do
      name=$(basename "$binary")
      if [ "${cells["$name:$tool"]}" = pending ]; then
        cells["$name:$tool"]=$(cat "$out/sanitize-$name-$tool.log.cell" 2>/dev/null || echo '?')
      fi
    done
  done
  echo "=== sanitize took $((SECONDS - started)) s"
  sanitize_table
}

# Prints the table (binary x tool -> errors) and sets sanitize_verdict; fails unless every run
# finished with zero errors and passing tests (runs left out by the budget only make it
# INCOMPLETE).
# Reads sanitize_all's locals tools, binaries and cells (bash's dynamic scope).
sanitize_table() {
  local binary name tool cell row bad=0 missing=0 runs=0
  printf '%-24s' "errors:"; printf ' %10s' "${tools[@]}"; echo
  for binary in "${binaries[@]}"; do
    name=$(basename "$binary")
    row=$(printf '%-24s' "$name")
    for tool in "${tools[@]}"; do
      cell=${cells["$name:$tool"]}
      row+=$(printf ' %10s' "$cell")
      case "$cell" in
        skip) ;;
        -) missing=$((missing + 1)) ;;
        0) runs=$((runs + 1)) ;;
        *) runs=$((runs + 1)); bad=$((bad + 1)) ;;
      esac
    done
    echo "$row"
  done
  echo "(a number: errors reported; T: hit SANITIZE_TIMEOUT_S; !: tests failed; ?: no summary; -: not run, budget spent; logs: $out/sanitize-*.log)"
  sanitize_verdict="$runs runs, $bad with errors or failures"
  if [ "$missing" -gt 0 ]; then sanitize_verdict+=", INCOMPLETE: $missing not run (SANITIZE_BUDGET_S)"; fi
  [ "$bad" -eq 0 ]
}

if [ "$what" = tests ] || [ "$what" = all ]; then
  # Each binary under a time limit (TEST_TIMEOUT_S, 240 s): one hung test must not take the
  # whole device command (10 minutes) with it; a binary past its limit shows as FAIL(124).
  for t in tests/*; do
    run "test-$(basename "$t")" timeout -k 10 "${TEST_TIMEOUT_S:-240}" "$t" --test-threads=1
  done
fi
if [ "$what" = differential ] || [ "$what" = all ]; then
  if [ -x tests/differential ] && [ -x tests-passes-none/differential ]; then
    FERROCUDA_DIFFERENTIAL_OUT="$out/differential-optimised.txt" \
      run differential-optimised tests/differential --nocapture --test-threads=1
    FERROCUDA_DIFFERENTIAL_OUT="$out/differential-passes-none.txt" \
      run differential-passes-none tests-passes-none/differential --nocapture --test-threads=1
    echo "=== differential: optimised against FERROCUDA_PASSES=none"
    if diff "$out/differential-optimised.txt" "$out/differential-passes-none.txt" >"$out/differential.diff"; then
      summary+=("PASS differential: $(wc -l <"$out/differential-optimised.txt") cases, 0 differences between the builds")
    else
      cat "$out/differential.diff"
      summary+=("FAIL differential: $(grep -c '^<' "$out/differential.diff") cases differ between the builds")
    fi
    # Their GPU variants only (`::gpu`): the others read the optimised PTX's shape.
    for t in tests-passes-none/*; do
      case "$(basename "$t")" in differential) continue ;; esac
      run "passes-none-$(basename "$t")" timeout -k 10 "${TEST_TIMEOUT_S:-240}" "$t" ::gpu --test-threads=1
    done
  else
    summary+=("FAIL differential: the bundle has no tests-passes-none/differential (scripts/gpu-bundle.sh tests)")
  fi
fi
if [ "$what" = examples ] || [ "$what" = all ]; then
  for e in examples/*; do
    case "$(basename "$e")" in bench_*) continue ;; esac  # run by bench/run.sh with their references
    run "example-$(basename "$e")" "$e"
  done
fi
if [ "$what" = sanitize ] || [ "$what" = all ]; then
  if sanitize_all; then summary+=("PASS sanitize: $sanitize_verdict")
  else summary+=("FAIL sanitize: $sanitize_verdict"); fi
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  # The whole benchmark log is its report; the results table, markdown and chart go to $out too
  # (bench-results.csv, bench-results.md, bench-chart.svg).
  if [ -f bench/run.sh ]; then TAIL_LINES=1000 BENCH_OUT="$out" run bench bash bench/run.sh; fi
fi
echo "=== summary"
printf '%s\n' "${summary[@]}"
