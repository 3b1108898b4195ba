#!/usr/bin/env bash
# The AVX2 GEMM unit (src/core/compute/gemm_avx2.cc) must hold no AVX code
# under a weak symbol that another unit could define too: the linker keeps one
# copy of a weak symbol, and an AVX2 copy standing in for the baseline's would
# crash a CPU without AVX2. Weak symbols in the unit's own namespaces
# (gemm::avx2, the renamed dlnode_eigen_avx2) are its own; any other (the
# standard library's, defined before the unit's `#pragma GCC target`) must be
# baseline code: no VEX-encoded instruction (v...) in its body. ctest runs this
# on the object CMake built: check_isa_symbols.sh OBJECT.
set -euo pipefail
object=$1
shared=$(nm -C "$object" | awk '$2 == "W"' | cut -c 20- |
  grep -v -e 'gemm::avx2' -e 'dlnode_eigen_avx2' | sort -u || true)
bad=$(objdump -d -C --no-show-raw-insn "$object" | awk -v list="$shared" '
  BEGIN { n = split(list, names, "\n"); for (i = 1; i <= n; i++) want[names[i]] = 1 }
  /^[0-9a-f]+ <.*>:$/ { name = substr($0, index($0, "<") + 1); sub(/>:$/, "", name); next }
  (name in want) && $2 ~ /^v/ { print name ": " $2; delete want[name] }')
if [[ -n $bad ]]; then
  echo "AVX code under weak symbols another unit may define ($object):" >&2
  echo "$bad" >&2
  exit 1
fi
echo "$(echo "$shared" | grep -c . || true) weak symbols outside the unit's namespaces, all baseline code"
