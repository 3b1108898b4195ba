'use strict';
// The dtype table (docs/API.md "dtypes"): names, DLPack codes, the CPU view type
// of `tensor.data`, and how one element reads and writes as a JS value.
const { float16Bits, float16Value, bfloat16Bits, bfloat16Value } = require('./half');
const { invalidType, invalidValue } = require('./errors');
const { typedArrayName } = require('./typed');

const HasFloat16Array = typeof Float16Array === 'function';

const toNumber = (v) => (typeof v === 'bigint' ? Number(v) : +v);
const toBigInt = (v) => {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'boolean') return v ? 1n : 0n;
  return BigInt(Math.trunc(+v));
};

// A value is true unless it is zero (0, -0, 0n) or false: NaN is true, as in
// the native conversion, torch and NumPy (JS truthiness says false).
const toBool = (v) => (Number.isNaN(v) || v ? 1 : 0);

// [name, code, bits, View, lanes per element, read(view, i), write(view, i, v)]
const rows = [
  ['bool', 6, 8, Uint8Array, 1, (a, i) => a[i] !== 0, (a, i, v) => { a[i] = toBool(v); }],
  ['int8', 0, 8, Int8Array, 1],
  ['int16', 0, 16, Int16Array, 1],
  ['int32', 0, 32, Int32Array, 1],
  ['int64', 0, 64, BigInt64Array, 1, null, (a, i, v) => { a[i] = toBigInt(v); }],
  ['uint8', 1, 8, Uint8Array, 1],
  ['uint16', 1, 16, Uint16Array, 1],
  ['uint32', 1, 32, Uint32Array, 1],
  ['uint64', 1, 64, BigUint64Array, 1, null, (a, i, v) => { a[i] = toBigInt(v); }],
  HasFloat16Array
    ? ['float16', 2, 16, Float16Array, 1] // eslint-disable-line no-undef
    : ['float16', 2, 16, Uint16Array, 1, (a, i) => float16Value(a[i]),
      (a, i, v) => { a[i] = float16Bits(toNumber(v)); }],
  ['bfloat16', 4, 16, Uint16Array, 1, (a, i) => bfloat16Value(a[i]),
    (a, i, v) => { a[i] = bfloat16Bits(toNumber(v)); }],
  ['float32', 2, 32, Float32Array, 1],
  ['float64', 2, 64, Float64Array, 1],
  ['complex64', 5, 64, Float32Array, 2],
  ['complex128', 5, 128, Float64Array, 2],
];

const readPlain = (a, i) => a[i];
const writeNumber = (a, i, v) => { a[i] = toNumber(v); };
const readComplex = (a, i) => [a[2 * i], a[2 * i + 1]];
const writeComplex = (a, i, v) => {
  if (Array.isArray(v)) {
    a[2 * i] = toNumber(v[0]);
    a[2 * i + 1] = toNumber(v[1]);
  } else {
    a[2 * i] = toNumber(v);
    a[2 * i + 1] = 0;
  }
};

const dtypes = Object.create(null); // public: frozen { name, code, bits, lanes, itemSize }
const infos = Object.create(null);  // internal, by name
// The same rows in a Map, for dtypeInfo: an object made by Object.create(null)
// is a dictionary to V8, and a load from it with a name that varies is a
// generic keyed-load call (about 120 instructions of a fromBuffer call,
// bench/README.md "The per-call path"); Map#get is inlined.
const infoByName = new Map();
const byIndex = [];

// The facts every other lib file reads from a dtype's info rather than
// listing dtype names (test/architecture.test.js fails on such a list):
// `kind`, read from the name (bool, int, uint, float, complex; bfloat16 is a
// float), for the integer kinds their inclusive range as BigInts
// (`min`, `max`), from the bits, and for the floating kinds the largest
// finite value (`finiteMax`; a complex dtype's, of each part).
const kindOf = (name) => {
  const prefix = /^[a-z]+/.exec(name)[0];
  return prefix === 'bfloat' ? 'float' : prefix;
};
function rangeOf(kind, bits) {
  if (kind !== 'int' && kind !== 'uint') return [null, null];
  const width = BigInt(kind === 'int' ? bits - 1 : bits);
  return [kind === 'int' ? -(2n ** width) : 0n, 2n ** width - 1n];
}
// The exponent bits of each IEEE-style float format (a complex dtype's parts
// are floats of half its bits, read from the same row): the largest finite
// value is (2 - 2^-mantissa) * 2^(2^(exponent - 1) - 1).
const EXPONENT_BITS = { float16: 5, bfloat16: 8, float32: 8, float64: 11 };
const COMPONENT = { complex64: 'float32', complex128: 'float64' };
function finiteMaxOf(name) {
  const float = COMPONENT[name] || name;
  const exponent = EXPONENT_BITS[float];
  if (exponent === undefined) return null;
  const mantissa = Number(/[0-9]+$/.exec(float)[0]) - 1 - exponent;
  return (2 - 2 ** -mantissa) * 2 ** (2 ** (exponent - 1) - 1);
}

rows.forEach(([name, code, bits, View, viewLanes, read, write], index) => {
  const itemSize = bits / 8;
  const complex = viewLanes === 2;
  const kind = kindOf(name);
  const [min, max] = rangeOf(kind, bits);
  const info = {
    name,
    code,
    bits,
    itemSize,
    index,
    kind,
    min,
    max,
    finiteMax: finiteMaxOf(name),
    View,
    viewLanes,
    read: read || (complex ? readComplex : readPlain),
    write: write || (complex ? writeComplex : writeNumber),
    public: Object.freeze({ name, code, bits, lanes: 1, itemSize }),
  };
  dtypes[name] = info.public;
  infos[name] = info;
  infoByName.set(name, info);
  byIndex.push(info);
});
Object.freeze(dtypes);

// The name's row is the one path every creation and conversion takes: kept
// small, so that the optimizing compiler inlines it into its callers (the
// rest is dtypeInfoOf, below).
function dtypeInfo(value, name = 'dtype') {
  const info = typeof value === 'string' ? infoByName.get(value) : undefined;
  return info !== undefined ? info : dtypeInfoOf(value, name);
}

function dtypeInfoOf(value, name) {
  if (typeof value === 'string') throw invalidValue(name, `one of ${Object.keys(infos).join(', ')}`, value);
  if (value !== null && typeof value === 'object' && typeof value.name === 'string' &&
      infos[value.name] !== undefined && infos[value.name].public === value) {
    return infos[value.name];
  }
  throw invalidType(name, 'a dtype name string', value);
}

// The dtype a typed array implies (dl.tensor(typedArray)).
// `view` is a real typed array; its name comes from the intrinsic getter,
// which an own Symbol.toStringTag cannot fake.
function dtypeOfView(view) {
  switch (typedArrayName(view)) {
    case 'Int8Array': return infos.int8;
    case 'Uint8Array':
    case 'Uint8ClampedArray': return infos.uint8;
    case 'Int16Array': return infos.int16;
    case 'Uint16Array': return infos.uint16;
    case 'Int32Array': return infos.int32;
    case 'Uint32Array': return infos.uint32;
    case 'Float16Array': return infos.float16;
    case 'Float32Array': return infos.float32;
    case 'Float64Array': return infos.float64;
    case 'BigInt64Array': return infos.int64;
    case 'BigUint64Array': return infos.uint64;
    default: return undefined;
  }
}

module.exports = { dtypes, dtypeInfo, dtypeOfView, byIndex, infos };
