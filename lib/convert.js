'use strict';
// The conversion rules (docs/API.md "Conversion"); element copies are
// lib/route.js's. Tensor -> tensor conversion is native (src/core/convert.h: float ->
// integer saturates, NaN -> 0, integer -> integer wraps, complex -> real
// takes the real part, float16/bfloat16 round to nearest even). JS values
// -> integer dtypes are checked here, before anything is written: NaN,
// +-Infinity and values outside the dtype's range are ERR_OUT_OF_RANGE;
// fractions truncate toward zero (torch.tensor([2.7], dtype=torch.int32)).
const { outOfRange, describe } = require('./errors');

// Inclusive ranges of the integer dtypes, as BigInts and numbers.
const RANGES = {
  int8: [-128n, 127n], int16: [-32768n, 32767n], int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint8: [0n, 255n], uint16: [0n, 65535n], uint32: [0n, 2n ** 32n - 1n], uint64: [0n, 2n ** 64n - 1n],
};
const NUMBER_RANGES = Object.fromEntries(Object.entries(RANGES).map(([k, [lo, hi]]) => [k, [Number(lo), Number(hi)]]));

// A JS value for an integer dtype, as the number or BigInt to store;
// throws ERR_OUT_OF_RANGE naming `where` for NaN, +-Infinity and values
// outside the range (after truncation toward zero).
function integerValue(v, name, where) {
  if (typeof v === 'bigint') {
    const [lo, hi] = RANGES[name];
    if (v < lo || v > hi) throw outOfRange(where, `an integer from ${lo} to ${hi} (the ${name} range)`, `${v}n`);
    return name === 'int64' || name === 'uint64' ? v : Number(v);
  }
  if (typeof v === 'boolean') return name === 'int64' || name === 'uint64' ? BigInt(v) : +v;
  if (typeof v !== 'number') return v; // refused by the writer (ERR_INVALID_ARG_VALUE)
  const t = Math.trunc(v);
  const [lo, hi] = NUMBER_RANGES[name];
  // 2^63 and 2^64 are not in range, though Number(hi) rounds up to them.
  const big = name === 'int64' || name === 'uint64';
  if (!Number.isFinite(t) || t < lo || (big ? t >= hi : t > hi)) {
    throw outOfRange(where, `a finite number from ${RANGES[name][0]} to ${RANGES[name][1]} (the ${name} range)`,
      describe(v));
  }
  return big ? BigInt(t) : t;
}

const isInteger = (info) => RANGES[info.name] !== undefined;

module.exports = { integerValue, isInteger, RANGES };
