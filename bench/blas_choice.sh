#!/usr/bin/env bash
# Builds bench/native/blas_choice.cc against Eigen 3.4 (AVX2+FMA and SSE2),
# OpenBLAS and BLIS (Debian's static libraries: apt-get install libeigen3-dev
# libopenblas-serial-dev libopenblas-pthread-dev libblis-serial-dev
# libblis-pthread-dev) and runs each in turn, then prints the stripped size
# each adds. docs/development.md "The BLAS" has the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${BLAS_CHOICE_DIR:-build-blas-choice}
mkdir -p "$out"
lib=/usr/lib/x86_64-linux-gnu
flags=(-O3 -std=c++17 -ffp-contract=off -Isrc/core -pthread bench/native/blas_choice.cc src/core/parallel.cc)
g++ "${flags[@]}" -DBACKEND_EIGEN -isystem /usr/include/eigen3 -mavx2 -mfma -o "$out/eigen_avx2"
g++ "${flags[@]}" -DBACKEND_EIGEN -isystem /usr/include/eigen3 -o "$out/eigen_sse2"
g++ "${flags[@]}" -DBACKEND_OPENBLAS -o "$out/openblas_serial" "$lib/openblas-serial/libopenblas.a"
g++ "${flags[@]}" -DBACKEND_OPENBLAS -o "$out/openblas_pthread" "$lib/openblas-pthread/libopenblas.a"
g++ "${flags[@]}" -DBACKEND_BLIS -o "$out/blis_serial" "$lib/blis-serial/libblis.a"
g++ "${flags[@]}" -DBACKEND_BLIS -o "$out/blis_pthread" "$lib/blis-pthread/libblis.a"
for round in 1 2 3; do
  for b in eigen_avx2 openblas_serial blis_serial eigen_sse2; do "$out/$b" lib1; done
  for b in eigen_avx2 openblas_serial blis_serial; do "$out/$b" pool2; done
  for b in openblas_pthread blis_pthread; do "$out/$b" lib2; done
done
for b in eigen_avx2 eigen_sse2 openblas_serial blis_serial; do
  strip -o "$out/$b.stripped" "$out/$b"
  echo "$b: $(stat -c %s "$out/$b.stripped") bytes stripped, $(gzip -9c "$out/$b.stripped" | wc -c) gzipped"
done
