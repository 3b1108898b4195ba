#!/usr/bin/env bash
# What each compute family adds to the binary (docs/development.md "Binary
# size"): every src/core/compute unit compiled as the addon compiles it (-O3,
# -fPIC, hidden visibility), for x64 and with the arm64 cross compiler, then
# the bytes of its code and data (text + data + bss of `size`, the part of a
# unit that survives `strip`: its allocated PROGBITS sections) and those
# sections gzipped. Run from the
# repository root; needs g++-aarch64-linux-gnu and libeigen3-dev.
set -euo pipefail
out=${SIZES_DIR:-build-sizes}
mkdir -p "$out/x64" "$out/arm64"
flags=(-std=c++17 -O3 -fPIC -fvisibility=hidden -falign-loops=32 -ffp-contract=off -isystem /usr/include/eigen3 -Isrc/core)
printf '%-16s %10s %10s %10s %10s\n' unit x64 x64.gz arm64 arm64.gz
total=(0 0 0 0)
for src in src/core/compute/*.cc src/core/compute/cuda/*.cc; do
  name=$(basename "$src" .cc)
  g++ "${flags[@]}" -c "$src" -o "$out/x64/$name.o"
  aarch64-linux-gnu-g++ "${flags[@]}" -c "$src" -o "$out/arm64/$name.o"
  row=()
  for arch in x64 arm64; do
    o="$out/$arch/$name.o"
    prefix=; [[ $arch == arm64 ]] && prefix=aarch64-linux-gnu-
    # The allocated sections with contents (code, constants, data), concatenated.
    : > "$o.bin"
    for section in $(${prefix}readelf -SW "$o" | sed 's/^ *\[ *[0-9]*\] *//' |
                     awk '$2 == "PROGBITS" && $7 ~ /A/ {print $1}'); do
      ${prefix}objcopy --dump-section "$section=$o.part" "$o" /dev/null 2>/dev/null && cat "$o.part" >> "$o.bin"
    done
    bytes=$(stat -c %s "$o.bin")
    row+=("$bytes" "$(gzip -9c "$o.bin" | wc -c)")
  done
  printf '%-16s %10s %10s %10s %10s\n' "$name" "${row[@]}"
  for i in 0 1 2 3; do total[i]=$((total[i] + row[i])); done
done
printf '%-16s %10s %10s %10s %10s\n' total "${total[@]}"
