#!/usr/bin/env bash
# Builds the libFuzzer targets (CMake -DDLPACK_FUZZ=ON, clang) and runs each
# for SECONDS (default 60), starting from a temporary copy of its seed corpus
# in test/fuzz/corpus/<target>, so the repository's corpus never grows.
# Exits non-zero when any target crashes, after printing the reproducer.
#
#   test/fuzz/run.sh [SECONDS] [TARGET...]
#
# Environment: DLPACK_FUZZ_BUILD (build directory, default build-fuzz),
# DLPACK_FUZZ_KEEP (a directory to keep crash inputs and the grown corpora in),
# JOBS (build jobs, default 2), CXX (default clang++).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
seconds=${1:-60}
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(checklist buffer_view)
build=${DLPACK_FUZZ_BUILD:-build-fuzz}

work=$(mktemp -d "${TMPDIR:-/tmp}/dlpack-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Quiet unless something fails.
if ! { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="${CXX:-clang++}" \
         -DDLPACK_FUZZ=ON -DDLPACK_BUILD_TESTS=OFF -DDLPACK_CUDA=OFF &&
       cmake --build "$build" -j "${JOBS:-2}" --target "${targets[@]/#/fuzz_}"; } >"$work/build.log" 2>&1; then
  cat "$work/build.log"
  printf 'fuzzing failed: the build of %s did not succeed\n' "${targets[*]/#/fuzz_}"
  exit 1
fi
failed=()
for target in "${targets[@]}"; do
  dir="$work/$target"
  mkdir -p "$dir/corpus" "$dir/crashes"
  cp test/fuzz/corpus/"$target"/* "$dir/corpus/"
  printf '== fuzz_%s: %ss from %s seed inputs\n' "$target" "$seconds" "$(ls "$dir/corpus" | wc -l)"
  rc=0
  # -error_exitcode: a crash is 77, told apart from libFuzzer's own failures.
  "$build/fuzz_$target" -max_total_time="$seconds" -print_final_stats=1 -error_exitcode=77 \
    -artifact_prefix="$dir/crashes/" "$dir/corpus" >"$dir/log" 2>&1 || rc=$?
  # The last status line: coverage (cov), features (ft), corpus size, exec/s.
  grep -E '^#[0-9]+[[:space:]]+DONE' "$dir/log" | tail -n 1 || true
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$dir/log" || true
  if [[ -n ${DLPACK_FUZZ_KEEP:-} ]]; then
    mkdir -p "$DLPACK_FUZZ_KEEP/$target"
    cp -r "$dir/corpus" "$dir/crashes" "$DLPACK_FUZZ_KEEP/$target/"
  fi
  if [[ $rc -ne 0 ]]; then
    failed+=("$target")
    printf '!! fuzz_%s failed (exit %d); the end of its log:\n' "$target" "$rc"
    tail -n 60 "$dir/log"
    for crash in "$dir"/crashes/*; do
      [[ -f $crash ]] || continue
      printf '!! reproducer %s (%d bytes), base64:\n' "$(basename "$crash")" "$(stat -c %s "$crash")"
      base64 -w 76 "$crash"
      printf '!! replay: base64 -d > crash <<< "..." && %s/fuzz_%s crash\n' "$build" "$target"
    done
  fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
  printf 'fuzzing failed: %s\n' "${failed[*]}"
  exit 1
fi
printf 'fuzzing passed: %s (%ss each)\n' "${targets[*]}" "$seconds"
