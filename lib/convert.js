'use strict';
// The conversion rules (docs/API.md "Conversion"); element copies are
// lib/route.js's. Tensor -> tensor conversion is native (src/core/convert.h: float ->
// integer saturates, NaN -> 0, integer -> integer wraps, complex -> real
// takes the real part, float16/bfloat16 round to nearest even). JS values
// -> integer dtypes are checked here, before anything is written: NaN,
// +-Infinity and values outside the dtype's range are ERR_OUT_OF_RANGE;
// fractions truncate toward zero (torch.tensor([2.7], dtype=torch.int32)).
const { byIndex } = require('./dtypes');
const { outOfRange, describe } = require('./errors');

// Inclusive ranges of the integer dtypes, as BigInts and numbers (lib/dtypes.js).
const RANGES = Object.fromEntries(byIndex.filter((i) => i.min !== null).map((i) => [i.name, [i.min, i.max]]));
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
