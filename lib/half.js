'use strict';
// IEEE binary16 and bfloat16 <-> number, for runtimes without Float16Array
// (and always for bfloat16, which JavaScript has no view for). Rounding is
// to nearest, ties to even, from the float32 value.

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

function float16Bits(value) {
  f32[0] = value;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const exponent = (x >>> 23) & 0xff;
  let mantissa = x & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0); // Inf, NaN
  const e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow to infinity
  if (e <= 0) {
    if (e < -10) return sign; // underflow to zero
    mantissa |= 0x800000; // implicit leading 1
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    let bits = mantissa >>> shift;
    const rest = mantissa & ((1 << shift) - 1);
    if (rest > half || (rest === half && (bits & 1))) bits += 1;
    return sign | bits;
  }
  let bits = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (bits & 1))) bits += 1; // may carry into exponent: correct
  return sign | bits;
}

function float16Value(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

function bfloat16Bits(value) {
  f32[0] = value;
  const x = u32[0];
  if ((x & 0x7f800000) === 0x7f800000 && (x & 0x7fffff)) return ((x >>> 16) | 0x40) & 0xffff; // NaN
  return ((x + 0x7fff + ((x >>> 16) & 1)) >>> 16) & 0xffff;
}

function bfloat16Value(bits) {
  u32[0] = bits << 16;
  return f32[0];
}

module.exports = { float16Bits, float16Value, bfloat16Bits, bfloat16Value };
