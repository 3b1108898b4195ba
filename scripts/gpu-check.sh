#!/usr/bin/env bash
# The GPU check (docs/development.md "On a GPU machine"), run on a machine with an NVIDIA GPU, the CUDA
# toolkit (nvcc, compute-sanitizer) and a python3 with torch/CuPy/JAX/NumPy,
# but no Node.js and no network. It unpacks what scripts/gpu-pack.sh packed
# into .gpu/ under /tmp, then runs, in the unpacked project:
#   cuda      Jest over test/cuda*.test.js only: the device checks of issue 22
#             (conversions bit for bit with the CPU over every dtype pair,
#             misaligned views, emptyCache() after a large tensor, host access
#             after stream copies, two-GPU copies where there are two)
#   jest      the whole Jest suite, DLPACK_TEST_PYTHON=python3
#   bench     npm run bench (its command from package.json; there is no npm)
#   memcheck-cuda, memcheck-kernels, memcheck-streams, memcheck-ipc, memcheck-ops
#             compute-sanitizer memcheck (leak check on) over one of
#             test/cuda*.test.js each, with DLPACK_TEST_MEMCHECK=1 (the loop
#             through ten times the GPU's memory skipped, the gather made
#             small) and test/memcheck-setup.js emptying the block cache
#             after each file (its blocks are kept until exit: no leak)
#   memcheck  the five memcheck phases in turn
# and writes its logs to $OUT (default .gpu/logs):
#   summary.txt gpu.txt jest.log jest.json cuda.log bench.log memcheck-*.log
#   scripts/gpu-check.sh                  cuda, jest, bench, memcheck
#   scripts/gpu-check.sh cuda             one phase (each fits one 10-minute
#                                         device call: on an H200, cuda 26-36 s,
#                                         jest 93 s, memcheck-* 2-26 s each)
# Exit status: 0 when every phase passed on a usable GPU; 1 when a phase
# failed; 3 when they passed but no GPU was usable (device tests skipped),
# so a run without a GPU is never mistaken for a GPU check.
# JEST_ARGS adds arguments to the Jest run (e.g. test files).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pack=${GPU_PACK:-$root/.gpu}
out=${OUT:-$pack/logs}
work=${GPU_CHECK_WORK:-/tmp/dlpack-gpu-check}
memchecks=(memcheck-cuda memcheck-kernels memcheck-streams memcheck-ipc memcheck-ops)
# The test file a memcheck phase runs.
memcheck_file() { if [ "$1" = memcheck-cuda ]; then echo test/cuda.test.js; else echo "test/cuda-${1#memcheck-}.test.js"; fi; }
[ $# -gt 0 ] || set -- cuda jest bench memcheck
phases=()
for p in "$@"; do
  if [ "$p" = memcheck ]; then phases+=("${memchecks[@]}"); else phases+=("$p"); fi
done
for p in "${phases[@]}"; do
  case " cuda jest bench ${memchecks[*]} " in *" $p "*) ;; *)
    echo "gpu-check: unknown phase '$p' (cuda, jest, bench, memcheck, ${memchecks[*]})" >&2; exit 2 ;;
  esac
done
for f in node.xz project.tar.xz; do
  [ -f "$pack/$f" ] || { echo "gpu-check: $pack/$f is missing: run scripts/gpu-pack.sh first" >&2; exit 2; }
done
mkdir -p "$out"
summary="$out/summary.txt"
note() { echo "$*" | tee -a "$summary"; }

# Unpacked once per machine: a later call with the same pack reuses it.
stamp=$(cksum < "$pack/project.tar.xz")$(cksum < "$pack/node.xz")
if [ "$(cat "$work/.stamp" 2>/dev/null)" != "$stamp" ]; then
  rm -rf "$work"
  mkdir -p "$work/bin" "$work/project"
  if ! { xz -dc "$pack/node.xz" > "$work/bin/node" && chmod +x "$work/bin/node" &&
    tar -xJf "$pack/project.tar.xz" -C "$work/project"; }; then
    echo "gpu-check: unpacking failed" >&2
    exit 2
  fi
  echo "$stamp" > "$work/.stamp"
fi
export PATH="$work/bin:$PATH"
cd "$work/project" || exit 2
python=$(command -v python3 || echo /usr/bin/python3)
export DLPACK_TEST_PYTHON="$python" DLPACK_BENCH_PYTHON="$python"

{
  echo "date: $(date -u +%FT%TZ)"
  echo "node: $(node --version)  python3: $python"
  if command -v nvidia-smi > /dev/null; then nvidia-smi; else echo 'nvidia-smi: not found'; fi
  node -p "JSON.stringify(require('./lib').capabilities(), null, 2)"
  "$python" -c 'import sys
for name in ("numpy", "torch", "cupy", "jax"):
    try:
        print(name, __import__(name).__version__)
    except Exception as e:
        print(name, "not importable:", e)' 2>&1
} > "$out/gpu.txt" 2>&1
gpu=$(node -p "require('./lib').capabilities().cuda.available")
reason=$(node -p "require('./lib').capabilities().cuda.reason")
note "gpu-check $(date -u +%FT%TZ), phases: ${phases[*]}"
if [ "$gpu" = "true" ]; then note "GPU: usable ($(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1))"
else note "GPU: NONE USABLE ($reason): device tests skip, this is no GPU check"; fi

failed=0
script_of() { node -p "require('./package.json').scripts['$1']"; }
phase() { # name, log, command...
  local name=$1 log=$2 start rc
  shift 2
  start=$(date +%s)
  "$@" > "$log" 2>&1
  rc=$?
  note "$name: exit $rc in $(( $(date +%s) - start )) s"
  [ $rc -eq 0 ] || failed=1
}

for p in "${phases[@]}"; do
  case "$p" in
    cuda)
      phase cuda "$out/cuda.log" node --expose-gc node_modules/jest/bin/jest.js --runInBand test/cuda.test.js \
        test/cuda-kernels.test.js test/cuda-streams.test.js test/cuda-ipc.test.js test/cuda-ops.test.js
      grep -E '^(Tests|Test Suites):|skipped' "$out/cuda.log" | tee -a "$summary"
      grep -E '^\s+● .* › ' "$out/cuda.log" | sort -u | head -20 | tee -a "$summary"
      ;;
    jest)
      # npm test's Jest half (test:js; the GoogleTest half needs cmake and runs in CI),
      # with JSON results beside the log.
      # shellcheck disable=SC2086
      phase jest "$out/jest.log" sh -c "$(script_of test:js) --json --outputFile='$out/jest.json' ${JEST_ARGS:-}"
      grep -E '^(Tests|Test Suites):' "$out/jest.log" | tee -a "$summary"
      grep -E '^\s+● .* › ' "$out/jest.log" | sort -u | head -20 | tee -a "$summary"
      ;;
    bench)
      phase bench "$out/bench.log" sh -c "$(script_of bench)"
      grep -E 'targets met|CUDA|skipped' "$out/bench.log" | tee -a "$summary"
      ;;
    memcheck-*)
      sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
      if [ -z "$sanitizer" ] || [ "$gpu" != "true" ]; then
        note "$p: skipped (${sanitizer:-no compute-sanitizer}; GPU usable: $gpu)"
        continue
      fi
      # The test file comes first: --setupFilesAfterEnv takes a list and would
      # swallow it (every memcheck phase found no test file that way on an H200).
      # API errors are left out of the error count: the suite provokes them on
      # purpose (out of memory) and checks them itself. Leaks and bad accesses count.
      export DLPACK_TEST_MEMCHECK=1
      phase "$p" "$out/$p.log" "$sanitizer" --tool memcheck --leak-check full \
        --report-api-errors no --target-processes all --error-exitcode 86 \
        node --expose-gc node_modules/jest/bin/jest.js "$(memcheck_file "$p")" --runInBand \
        --setupFilesAfterEnv=./test/memcheck-setup.js
      unset DLPACK_TEST_MEMCHECK
      grep -E 'ERROR SUMMARY|LEAK SUMMARY|^Tests:' "$out/$p.log" | tee -a "$summary"
      ;;
  esac
done

[ $failed -eq 0 ] || exit 1
[ "$gpu" = "true" ] || exit 3
exit 0
