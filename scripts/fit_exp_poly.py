"""The coefficients of FastExp's polynomial (src/core/compute/fast_math.h).

e^r ~ 1 + r + r^2 P(r) on |r| <= ln2 / 2, P of degree 4, chosen to minimise
the largest relative error (Lawson's iteration: weighted least squares on
Chebyshev points, each point's weight multiplied by its error until the
errors level out). Prints the coefficients rounded to float32, lowest power
first, and the approximation's own error in float32 ulps (the rounding of
the evaluation adds about half an ulp per operation on top; the sweep in
test/cpp/fast_math_test.cc checks the sum).

    /usr/bin/python3 scripts/fit_exp_poly.py [degree of P, default 4]
"""
import sys

import numpy as np


def fit(degree, points=4000, rounds=300):
    half = np.log(2) / 2 * 1.0005  # a margin: |r| can pass ln2 / 2 by a rounding
    k = np.arange(points)
    r = half * np.cos(np.pi * (k + 0.5) / points)
    r = r[np.abs(r) > 1e-6]
    basis = np.vander(r, degree + 1, increasing=True) * (r * r)[:, None]
    target = np.expm1(r) - r
    size = np.exp(r)
    weight = np.ones_like(r)
    for _ in range(rounds):
        w = np.sqrt(weight) / size
        coefficients = np.linalg.lstsq(basis * w[:, None], target * w, rcond=None)[0]
        error = np.abs(basis @ coefficients - target) / size
        weight = weight * error
        weight /= weight.sum()
    rounded = coefficients.astype(np.float32)
    error = np.abs(basis @ rounded.astype(np.float64) - target) / size
    return rounded, error.max() / 2.0**-24


def main():
    degree = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    coefficients, ulps = fit(degree)
    for i, c in enumerate(coefficients):
        print(f"c{i} = {float(c)!r}F")
    print(f"largest error of the rounded polynomial: {ulps:.3f} ulp")


if __name__ == "__main__":
    main()
