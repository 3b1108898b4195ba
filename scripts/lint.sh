#!/usr/bin/env bash
# The tree's linters and formatters, as CI runs them (.ci/run "Lint"):
#   ESLint (eslint.config.js)      every .js/.mjs file
#   clang-format (.clang-format)   src/, test/cpp, test/native, test/fuzz, bench/*.cu
#   pyflakes3                      every .py file
#   clang-tidy (.clang-tidy)       src/ and test/cpp, through CMake's compile commands
# `bash scripts/lint.sh` checks and exits non-zero on any finding;
# `bash scripts/lint.sh --fix` rewrites what ESLint and clang-format can fix.
# `--no-tidy` skips clang-tidy (about 90 s on two cores).
# Needs: npm's devDependencies, Debian's clang-format, clang-tidy and pyflakes3.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

fix=0 tidy=1
for arg in "$@"; do
  case $arg in
    --fix) fix=1 ;;
    --no-tidy) tidy=0 ;;
    *) echo "usage: scripts/lint.sh [--fix] [--no-tidy]" >&2; exit 2 ;;
  esac
done

failed=()
cpp_files() {
  git ls-files -co --exclude-standard -- 'src/*.cc' 'src/*.h' 'src/*.cu' 'test/cpp/*.cc' \
    'test/cpp/*.h' 'test/native/*.cc' 'test/fuzz/*.cc' 'test/fuzz/*.h' 'bench/*.cu'
}

echo "ESLint"
if [[ $fix == 1 ]]; then npx eslint --fix . || failed+=(eslint)
else npx eslint . || failed+=(eslint)
fi

echo "clang-format"
if [[ $fix == 1 ]]; then cpp_files | xargs clang-format -i --style=file
else cpp_files | xargs clang-format --dry-run -Werror --style=file || failed+=(clang-format)
fi

echo "pyflakes3"
git ls-files -co --exclude-standard -- '*.py' | xargs pyflakes3 || failed+=(pyflakes3)

if [[ $tidy == 1 ]]; then
  echo "clang-tidy"
  dir=${DLPACK_TIDY_BUILD:-build-tidy}
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)  # absolute: CI passes one under its log folder, a user a relative one
  cmake -S . -B "$dir" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DDLPACK_BUILD_ADDON=ON \
    -DDLPACK_CUDA=OFF -DDLPACK_BUILD_TESTS=ON >"$dir/configure.log" 2>&1 ||
    { cat "$dir/configure.log" >&2; failed+=(clang-tidy-configure); }
  if [[ -f $dir/compile_commands.json ]]; then
    node -e '
      const files = require(process.argv[1]).map((e) => e.file)
        .filter((f) => /\/(src|test\/cpp)\//.test(f));
      if (files.length === 0) { console.error("clang-tidy: no sources in compile_commands.json"); process.exit(1); }
      console.log(files.join("\n"));
    ' "$dir/compile_commands.json" |
      xargs -r -P "$(nproc)" -n 4 clang-tidy -p "$dir" --quiet 2>/dev/null || failed+=(clang-tidy)
  fi
fi

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "lint: findings from ${failed[*]}" >&2
  exit 1
fi
echo "lint: clean"
