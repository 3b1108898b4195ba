'use strict';
// How a JS scalar (a number, a boolean; a bigint where a fill takes one)
// becomes an element of a dtype: torch's two rules for scalar arguments,
// written once for every op and every device (docs/API.md "Scalars"; issue
// 37, finding 10). An integer-valued number stands for a Python int, any
// other number for a Python float (JavaScript keeps no other distinction:
// 256.0 is 256).
//
// Operands (the arithmetic and comparison ops, their in-place and `out`
// forms): torch casts the scalar to the dtype the op computes in, wrapping an
// int into an integer dtype (uint8 + 300 adds 44) and rounding a float to
// nearest (infinity past the largest finite value). float16 and bfloat16
// round to their own precision first, then compute through float32 (torch
// 1.13's order: eq(bfloat16 [256], 257) is true, 257 being 256 there). An
// int into an integer dtype must lie in [-2^63, 2^64) (torch 2.x: "int too
// big to convert"; 1.13 stops at 2^63); the engine wraps it exactly
// (src/core/elementwise.h StoreScalar).
//
// Checked values (clamp's bounds, where()'s scalar operands, full(),
// fill_()): torch's checked conversion, "value cannot be converted to type
// uint8_t without overflow". An int into an integer dtype lies in its range,
// or for an unsigned dtype down to -max (which wraps: fill_(-1) of uint8 is
// 255, torch lets `a - b` be written `a + 255 * b`); a float into an integer
// dtype is finite and in the range before truncation (255.5 is refused for
// uint8, 2.5 fills 2); a finite float into a floating dtype is at most its
// largest finite value in magnitude (1e5 is refused for float16; infinities
// and NaN are written, as torch writes them); a bool dtype takes anything
// (non-zero is true). torch 2.x compares float16 and bfloat16 in float32
// (65504.1 fills 65504, 3.4e38 fills bfloat16 with inf); this follows 1.13
// and refuses both.
const { outOfRange, describe } = require('./errors');
const { float16Bits, float16Value, bfloat16Bits, bfloat16Value } = require('./half');

const INT_LOW = -(2 ** 63);
const INT_END = 2 ** 64;

// A number rounded to the 16-bit float dtypes, from its float32 value (the
// conversion rule of src/core/convert.h, and torch's c10::Half(float)).
const ROUND_16 = {
  float16: (x) => float16Value(float16Bits(x)),
  bfloat16: (x) => bfloat16Value(bfloat16Bits(x)),
};

// x as the engine reads an element of `info`'s dtype that it computes
// through float32 (float16, bfloat16: rounded to them first); else x.
const rounded = (x, info) => (info.kind === 'float' && info.bits === 16 ? ROUND_16[info.name](x) : x);

const isInt = (v) => typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v));

// The number the engine is given for scalar operand `v` of an op computing in
// `info`'s dtype (the wrap rule above; a boolean is 0 or 1).
function operandValue(v, info, name) {
  const x = typeof v === 'boolean' ? +v : v;
  switch (info.kind) {
    case 'int':
    case 'uint':
      if (x < INT_LOW || x >= INT_END) {
        throw outOfRange(name, `an integer from -2^63 to 2^64 - 1 for a ${info.name} operand (torch: "int too big ` +
          'to convert")', describe(v));
      }
      return x;
    default:
      return rounded(x, info);
  }
}

function refused(name, info, v) {
  return outOfRange(name, `a value ${info.name} holds (torch: "value cannot be converted to type ${info.name} ` +
    'without overflow")', describe(v));
}

// `v` when it converts to `info`'s dtype without overflow (the checked rule
// above), else the coded refusal naming `name`.
function checkedValue(v, info, name) {
  const x = typeof v === 'boolean' ? +v : v;
  switch (info.kind) {
    case 'int':
    case 'uint': {
      if (isInt(x)) {
        const b = BigInt(x);
        const low = info.kind === 'uint' ? -info.max : info.min;
        if (b < low || b > info.max) throw refused(name, info, v);
      } else if (!(x >= Number(info.min) && x <= Number(info.max))) {
        throw refused(name, info, v); // NaN and the infinities too
      }
      return v;
    }
    case 'float':
    case 'complex': {
      const parts = Array.isArray(x) ? x : [x];
      for (const p of parts) {
        const n = Number(p);
        if (Number.isFinite(n) && Math.abs(n) > info.finiteMax) throw refused(name, info, v);
      }
      return v;
    }
    default:
      return v;
  }
}

// A checked value as the element build() writes: an integer dtype's wrapped
// into its range (a BigInt for the 64-bit ones), a float's truncated toward
// zero; other dtypes' as given.
function elementValue(v, info) {
  if (info.kind !== 'int' && info.kind !== 'uint') return v;
  const x = typeof v === 'boolean' ? +v : v;
  const b = BigInt(isInt(x) ? x : Math.trunc(x));
  const wrapped = info.kind === 'uint' ? BigInt.asUintN(info.bits, b) : BigInt.asIntN(info.bits, b);
  return info.bits === 64 ? wrapped : Number(wrapped);
}

module.exports = { operandValue, checkedValue, elementValue, rounded };
